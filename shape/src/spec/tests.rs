//! Data-driven unit tests: each case is an input and the expected canonical
//! printing, or the expected error (`error: {message} at position {start}`).

use super::*;

/// Parses `input` as a shape spec and compares the canonical printing (or
/// the error) with `expect`; a successful parse must also round-trip.
#[track_caller]
fn check_shape(input: &str, expect: &str) {
    let actual = match parse_shape_spec(input) {
        Ok(spec) => {
            let printed = spec.to_string();
            assert_eq!(
                parse_shape_spec(&printed).as_ref(),
                Ok(&spec),
                "`{printed}` (printed from `{input}`) does not parse back"
            );
            printed
        }
        Err(err) => format!("error: {err}"),
    };
    assert_eq!(actual, expect, "shape spec `{input}`");
}

/// As [`check_shape`], for einsum specs.
#[track_caller]
fn check_einsum(input: &str, expect: &str) {
    let actual = match parse_einsum_spec(input) {
        Ok(spec) => {
            let printed = spec.to_string();
            assert_eq!(
                parse_einsum_spec(&printed).as_ref(),
                Ok(&spec),
                "`{printed}` (printed from `{input}`) does not parse back"
            );
            printed
        }
        Err(err) => format!("error: {err}"),
    };
    assert_eq!(actual, expect, "einsum spec `{input}`");
}

fn var(name: &str) -> ShapeAxis {
    ShapeAxis::Var(name.to_owned())
}

fn label(name: &str) -> EinsumAxis {
    EinsumAxis::Label(name.to_owned())
}

fn named(name: &str) -> RowVar {
    RowVar::Named(name.to_owned())
}

#[test]
fn shape_rows() {
    check_shape("", "");
    check_shape("20", "20");
    check_shape("20->20", "20->20");
    check_shape("2|3->4", "2|3->4");
    check_shape("2|4", "2|4");
    check_shape("|4", "4");
    check_shape("->4", "4");
    check_shape("|->", "");
    check_shape("2,3|4,5->6,7", "2,3|4,5->6,7");
    check_shape("2, 3 | 4 -> 5", "2,3|4->5");
    check_shape(" 4 | 2 -> 3 ", "4|2->3");
    check_shape("2|", "2|");
    check_shape("2->", "2->");
    check_shape("...|...->...", "...|...->...");
    check_shape("batch|input->output", "b,a,t,c,h|i,n,p,u,t->o,u,t,p,u,t");
}

#[test]
fn shape_axes() {
    check_shape("abc", "a,b,c");
    check_shape("a_1", "a,_,1");
    check_shape("12ab", "12,a,b");
    check_shape("_", "_");
    check_shape("hidden", "h,i,d,d,e,n");
    check_shape("hidden,", "hidden,");
    check_shape(" hidden , ", "hidden,");
    check_shape("hidden,64", "hidden,64");
    check_shape("rgb=3", "rgb=3");
    check_shape("h=1, w=2", "h=1,w=2");
    check_shape("batch,seq|..r..,64->128", "batch,seq|..r..,64->128");
    // An empty axis (a discardable part of a concatenation closes to 0).
    check_shape("0", "0");
    check_shape("2,0", "2,0");
    check_shape("rgb=0", "rgb=0");
    check_shape(
        "99999999999999999999",
        "error: size 99999999999999999999 is too large (at most 9223372036854775807) at position 0",
    );
    check_shape(
        "2*o",
        "error: affine axes are only allowed in einsum specs at position 0",
    );
    check_shape(
        "x, o=+k",
        "error: affine axes are only allowed in einsum specs at position 3",
    );
    check_shape(
        "a^b",
        "error: concatenated axes are only allowed in einsum specs at position 0",
    );
    check_shape(
        "rgb=x",
        "error: expected a size or `+` after `=`, found `x` at position 4",
    );
}

#[test]
fn shape_structure() {
    let spec = parse_shape_spec("b,...,c").expect("parses");
    assert_eq!(
        spec.output,
        Row::open(vec![var("b")], RowVar::Anonymous, vec![var("c")])
    );
    let spec = parse_shape_spec("3, ..rho.., 7").expect("parses");
    assert_eq!(
        spec.output,
        Row::open(
            vec![ShapeAxis::Size(3)],
            named("rho"),
            vec![ShapeAxis::Size(7)]
        )
    );
    let spec = parse_shape_spec("a..s..").expect("parses");
    assert_eq!(spec.output, Row::open(vec![var("a")], named("s"), vec![]));
    let spec = parse_shape_spec("batch,seq|..r..,64->128").expect("parses");
    assert_eq!(spec.batch, Row::closed(vec![var("batch"), var("seq")]));
    assert_eq!(spec.input.len_known(), 1);
    assert_eq!(
        spec.row(RowKind::Output),
        &Row::closed(vec![ShapeAxis::Size(128)])
    );
    assert_eq!(spec.dim_vars().collect::<Vec<_>>(), ["batch", "seq"]);
    assert_eq!(spec.row_vars().collect::<Vec<_>>(), ["r"]);
    assert!(!spec.is_concrete());
    assert!(
        parse_shape_spec("2,rgb=3|4->5")
            .expect("parses")
            .is_concrete()
    );
    assert!(!parse_shape_spec("2|_").expect("parses").is_concrete());
    assert_eq!(
        "4|2->3".parse::<ShapeSpec>().map(|s| s.to_string()),
        Ok("4|2->3".into())
    );
}

#[test]
fn commas() {
    // The optional commas of parser.mly's `row_spec` and `axes_spec`.
    check_shape(",", "");
    check_shape("a,", "a");
    check_shape("a,,", "a");
    check_shape(",...", "...");
    check_shape("...,,", "...");
    check_shape("a,,...,b,,", "a,...,b");
    check_shape("a...b", "a,...,b");
    check_shape("a ...", "a,...");
    check_shape("...,a", "...,a");
    check_shape("..r,..", "..r..");
    check_shape(",|,->,", "");
    check_shape("a,,,", "error: unexpected `,` at position 3");
    check_shape(",,", "error: unexpected `,` at position 1");
    check_shape("a,,b", "error: unexpected `,` at position 2");
    check_shape("...,,a", "error: unexpected `,` at position 4");
    check_shape(
        ",a",
        "error: expected `|`, `->` or end of input, found `a` at position 1",
    );
    check_shape("a b", "a,b");
    check_shape(
        "a b,",
        "error: expected `,` between axes, found `b` at position 2",
    );
}

#[test]
fn row_variables() {
    check_shape("..r..", "..r..");
    check_shape("..rho..,", "..rho..,");
    check_shape("..rho..|i->o,", "..rho..|i->o,");
    check_shape("..rho..|...,", "..rho..|...,");
    check_shape("i->..rho..,", "i->..rho..,");
    check_shape(
        "..rho..",
        "error: expected `..` to close `..r`, found `h` at position 3",
    );
    check_shape("..r..|..r..->..r..", "..r..|..r..->..r..");
    check_shape(
        "......",
        "error: a row may have only one row variable at position 3",
    );
    check_shape(
        "..r..,..r..",
        "error: duplicate row variable `..r..` in one row at position 6",
    );
    check_shape(
        "...,a,..s..",
        "error: a row may have only one row variable at position 6",
    );
    check_shape(
        "..",
        "error: expected a row variable name after `..`, found end of input at position 2",
    );
    check_shape(
        ".._..",
        "error: expected a row variable name after `..`, found `_` at position 2",
    );
    check_shape(
        "..rs..",
        "error: expected `..` to close `..r`, found `s` at position 3",
    );
    check_shape(
        "..r",
        "error: expected `..` to close `..r`, found end of input at position 3",
    );
    check_shape("....", "error: unexpected character `.` at position 3");
}

/// Every integer literal is at most `MAX_SIZE` (`i64::MAX`): a larger one
/// (or one past `u64`) is an error at the literal, saying what it is.
#[test]
fn literals_past_max_size_are_rejected_at_the_literal() {
    const TOO_LARGE: &str = "is too large (at most 9223372036854775807)";
    check_shape("9223372036854775807", "9223372036854775807");
    check_shape("rgb=9223372036854775807", "rgb=9223372036854775807");
    check_shape(
        "9223372036854775808",
        &format!("error: size 9223372036854775808 {TOO_LARGE} at position 0"),
    );
    check_shape(
        "2,18446744073709551616",
        &format!("error: size 18446744073709551616 {TOO_LARGE} at position 2"),
    );
    check_shape(
        "rgb=18446744073709551615",
        &format!("error: size 18446744073709551615 {TOO_LARGE} at position 4"),
    );
    check_einsum("9223372036854775807 => ", "9223372036854775807 => ");
    check_einsum(
        "9223372036854775808 => ",
        &format!("error: fixed index 9223372036854775808 {TOO_LARGE} at position 0"),
    );
    check_einsum(
        "9223372036854775808*o => o",
        &format!("error: stride 9223372036854775808 {TOO_LARGE} at position 0"),
    );
    check_einsum(
        "2*o+9223372036854775808 => o",
        &format!("error: offset 9223372036854775808 {TOO_LARGE} at position 4"),
    );
    check_einsum(
        "2*o+9223372036854775808+k => o",
        &format!("error: offset 9223372036854775808 {TOO_LARGE} at position 4"),
    );
    check_einsum(
        "o=+9223372036854775808*k; k => o",
        &format!("error: dilation 9223372036854775808 {TOO_LARGE} at position 3"),
    );
    check_einsum(
        "o<+4611686018427387904*k; k => o",
        "o<+4611686018427387904*k; k => o",
    );
    // The span is the literal.
    let err = parse_einsum_spec("2*o+99999999999999999999999+k => o").expect_err("too large");
    assert_eq!(err.span, Span::new(4, 27));
    // A literal in an unexpected place is quoted as written, not as the
    // value it saturates to.
    check_shape(
        "rgb=3 99999999999999999999999",
        "error: expected `,` between axes, found `99999999999999999999999` at position 6",
    );
}

#[test]
fn lexical_errors() {
    check_shape("a#", "error: unexpected character `#` at position 1");
    check_shape("a&b", "error: `&` is reserved at position 1");
    check_shape("a-b", "error: unexpected character `-` at position 1");
    check_shape("日本", "error: unexpected character `日` at position 0");
    check_shape("a,é", "error: unexpected character `é` at position 2");
    let err = parse_shape_spec("ab→c").expect_err("arrow is not ascii");
    assert_eq!(err.span, Span::new(2, 5));
    check_shape("a\u{0}", "error: unexpected character `\\0` at position 1");
}

#[test]
fn shape_structure_errors() {
    check_shape(
        "a|b|c",
        "error: expected `->` or end of input, found `|` at position 3",
    );
    check_shape(
        "a->b->c",
        "error: expected end of input, found `->` at position 4",
    );
    check_shape(
        "a->b|c",
        "error: expected end of input, found `|` at position 4",
    );
    check_shape(
        "a => b",
        "error: expected `|`, `->` or end of input, found `=>` at position 2",
    );
    check_shape(
        "a;b",
        "error: expected `|`, `->` or end of input, found `;` at position 1",
    );
}

#[test]
fn einsum_examples() {
    // From the conformance files and OCANNL's tests.
    check_einsum("b|i->o => o|b->i", "b|i->o => o|b->i");
    check_einsum("ab|cd->ef => c|a->d", "a,b|c,d->e,f => c|a->d");
    check_einsum("a|i->h; b|h->o => ab|i->o", "a|i->h; b|h->o => a,b|i->o");
    check_einsum("ij;jk=>ik", "i,j; j,k => i,k");
    check_einsum("ij;jk;km=>im", "i,j; j,k; k,m => i,m");
    check_einsum("a..s..;..s..b=>ab", "a,..s..; ..s..,b => a,b");
    check_einsum(
        "...b|...i->...o => ...i|...o->...b",
        "...,b|...,i->...,o => ...,i|...,o->...,b",
    );
    check_einsum("...|... => ...|0", "...|... => ...|0");
    check_einsum("i=>i0", "i => i,0");
    check_einsum(" => ", " => ");
    check_einsum("RHS1;RHS2=>LHS", "R,H,S,1; R,H,S,2 => L,H,S");
    check_einsum("hidden => h", "h,i,d,d,e,n => h");
    check_einsum("hidden, => h", "hidden => h,");
    check_einsum("h => hidden,", "h => hidden,");
    check_einsum("..batch.., => ...", "..batch.. => ...,");
    check_einsum("x, y; => _", "x,y;  => _");
}

#[test]
fn einsum_affine() {
    check_einsum("2*o+k => o", "2*o+k => o");
    check_einsum("o=+k => o", "o=+k => o");
    check_einsum("2*o<+1+3*k => o", "2*o<+1+3*k => o");
    check_einsum("2*o+3*k, x => o", "2*o+3*k,x => o");
    check_einsum("i,j=>2*i+j", "i,j => 2*i+j");
    check_einsum("ij=>i+3*j", "ij => i+3*j");
    check_einsum("2*x=+k; y => z", "2*x=+k; y => z");
    check_einsum("stride*x=+k; y => z", "stride*x=+k; y => z");
    check_einsum(
        "oh=+wh, ow=+ww; wh, ww => oh, ow",
        "oh=+wh,ow=+ww; wh,ww => oh,ow",
    );
    check_einsum(
        "... | ... -> ..., i => ... | ... -> ..., 2*i + 1",
        "...|...->...,i => ...|...->...,2*i+1",
    );
    check_einsum("1*o => o", "1*o => o");
    check_einsum("1*o+0 => o", "1*o => o");
    // Explicit padding (our extension for ONNX).
    check_einsum("2*o@1,2+kh; kh => o", "2*o@1,2+kh; kh => o");
    check_einsum("o@0,0+2*k; k => o", "o@0,0+2*k; k => o");
    check_einsum("n, 4*h @ 3, 3 + kh, c => n,h,c", "n,4*h@3,3+kh,c => n,h,c");
    check_einsum(
        "o@1+k => o",
        "error: expected `,` and the padding after the axis, found `+` at position 3",
    );
    check_einsum(
        "o@1,x+k => o",
        "error: expected an integer for the padding after the axis, found `x` at position 4",
    );
    check_einsum(
        "o@1,1 => o",
        "error: expected `+` and a kernel after a padding marker, found `=>` at position 6",
    );
    check_einsum(
        "o@1,9223372036854775808+k => o",
        "error: the padding after the axis 9223372036854775808 is too large (at most 9223372036854775807) at position 4",
    );
    check_einsum("1*o+k => o", "o+k => o");
    check_einsum("o+0+1*k => o", "o+k => o");
    check_einsum("s*o+2+d*k => o", "s*o+2+d*k => o");
    check_einsum("o<+2+k => o", "o<+2+k => o");
    check_einsum(
        "o+2 => o",
        "error: an offset without a kernel needs a stride, as in `1*o+2` at position 2",
    );
    check_einsum(
        "o=+2 => o",
        "error: an offset after a padding marker needs a kernel, as in `o=+1+k` at position 3",
    );
    check_einsum(
        "2*o= => o",
        "error: expected `+` and a kernel after a padding marker, found `=>` at position 5",
    );
    check_einsum(
        "o< => o",
        "error: expected `+` and a kernel after a padding marker, found `=>` at position 3",
    );
    check_einsum("0*o => o", "error: stride must be at least 1 at position 0");
    check_einsum(
        "o+0*k => o",
        "error: dilation must be at least 1 at position 2",
    );
    check_einsum(
        "o+2*3 => o",
        "error: expected a kernel label after `*`, found `3` at position 4",
    );
    check_einsum(
        "2* => o",
        "error: expected a label after `*`, found `=>` at position 3",
    );
    check_einsum(
        "o+3+4 => o",
        "error: expected `*` after the dilation, found `=>` at position 6",
    );
    check_einsum(
        "o+_ => o",
        "error: expected an offset, a dilation or a kernel label after `+`, found `_` at position 2",
    );
    check_einsum(
        "2*_ => o",
        "error: expected a label after `*`, found `_` at position 2",
    );
}

#[test]
fn einsum_affine_structure() {
    let spec = parse_einsum_spec("2*o<+1+3*k => o").expect("parses");
    assert_eq!(
        spec.rhs[0].output.end,
        [EinsumAxis::Affine {
            stride: IntOrIdent::Int(2),
            over: "o".into(),
            offset: 1,
            conv: Some(Conv {
                dilation: IntOrIdent::Int(3),
                kernel: "k".into(),
                padding: Padding::Valid,
            }),
        }]
    );
    let spec = parse_einsum_spec("s*o+2 => o").expect("parses");
    assert_eq!(
        spec.rhs[0].output.end,
        [EinsumAxis::Affine {
            stride: IntOrIdent::Ident("s".into()),
            over: "o".into(),
            offset: 2,
            conv: None,
        }]
    );
    let spec = parse_einsum_spec("o+d*k => o").expect("parses");
    let EinsumAxis::Affine {
        conv: Some(conv), ..
    } = &spec.rhs[0].output.end[0]
    else {
        panic!("expected a convolution, got {spec:?}");
    };
    assert_eq!(conv.dilation, IntOrIdent::Ident("d".into()));
    assert_eq!(conv.padding, Padding::Unspecified);
}

#[test]
fn einsum_concat() {
    check_einsum("a^b => a", "a^b => a");
    check_einsum("a; b => a^b", "a; b => a^b");
    check_einsum("a; b; c => a^b^c", "a; b; c => a^b^c");
    check_einsum("i; j => i ^ j", "i; j => i^j");
    check_einsum("ii; jj => ii^jj", "ii; jj => ii^jj");
    check_einsum(
        "a^ => a",
        "error: expected a label after `^`, found `=>` at position 3",
    );
    check_einsum(
        "a^1 => a",
        "error: expected a label after `^`, found `1` at position 2",
    );
    let spec = parse_einsum_spec("a; b => a^b").expect("parses");
    assert_eq!(
        spec.lhs.output.end,
        [EinsumAxis::Concat(vec!["a".into(), "b".into()])]
    );
    assert_eq!(spec.rhs[1].output.end, [label("b")]);
}

#[test]
fn einsum_structure_errors() {
    check_einsum(
        "a",
        "error: expected `|`, `->`, `;` or `=>`, found end of input at position 1",
    );
    check_einsum(
        "a|b->c",
        "error: expected `;` or `=>`, found end of input at position 6",
    );
    check_einsum(
        "a;b;c;d=>e",
        "error: einsum takes at most 3 operand specs at position 5",
    );
    check_einsum("a;b;c=>d", "a; b; c => d");
    check_einsum(
        "a=>b=>c",
        "error: expected `|`, `->` or end of input, found `=>` at position 4",
    );
    check_einsum(
        "a=>b;c",
        "error: expected `|`, `->` or end of input, found `;` at position 4",
    );
    check_einsum(
        "rgb=3 => a",
        "error: labeled sizes are only allowed in shape specs at position 0",
    );
    check_einsum("0 => 0", "0 => 0");
    check_einsum("a&b => c", "error: `&` is reserved at position 1");
}

#[test]
fn printer_forces_multichar_mode() {
    let shape = |output| ShapeSpec {
        output,
        ..ShapeSpec::default()
    };
    let cases = [
        (shape(Row::closed(vec![var("hidden")])), "hidden,"),
        (shape(Row::closed(vec![var("h")])), "h"),
        (shape(Row::closed(vec![ShapeAxis::Size(64)])), "64"),
        (shape(Row::open(vec![], named("rr"), vec![])), "..rr..,"),
        (
            ShapeSpec {
                batch: Row::closed(vec![var("bb")]),
                ..ShapeSpec::default()
            },
            "bb,|",
        ),
        (
            ShapeSpec {
                input: Row::closed(vec![var("ii")]),
                output: Row::closed(vec![var("o")]),
                ..ShapeSpec::default()
            },
            "ii->o,",
        ),
        (
            shape(Row::closed(vec![ShapeAxis::Labeled {
                label: "c".into(),
                size: 3,
            }])),
            "c=3",
        ),
    ];
    for (spec, expect) in cases {
        let printed = spec.to_string();
        assert_eq!(printed, expect);
        assert_eq!(parse_shape_spec(&printed), Ok(spec));
    }
    let slot = SlotSpec {
        output: Row::closed(vec![label("xy")]),
        ..SlotSpec::default()
    };
    assert_eq!(slot.to_string(), "xy,");
}

#[test]
fn is_ident_matches_lexer() {
    assert!(is_ident("a"));
    assert!(is_ident("a_1"));
    assert!(!is_ident("_a"));
    assert!(!is_ident("1a"));
    assert!(!is_ident(""));
    assert!(!is_ident("é"));
}

#[test]
fn block_specs_take_any_number_of_operands() {
    let spec = super::parse_block_spec("a; b; c; d => a^b^c^d").expect("four operands parse");
    assert_eq!(spec.rhs.len(), 4);
    assert_eq!(spec.to_string(), "a; b; c; d => a^b^c^d");
    assert_eq!(
        super::parse_block_spec("a; b").map_err(|e| e.to_string()),
        Err("expected `|`, `->`, `;` or `=>`, found end of input at position 4".to_owned())
    );
}

/// OCANNL's `test_einsum_capture`: one name is a row variable or a
/// dimension variable within a spec, never both.
#[test]
fn row_and_dimension_variable_share_a_name() {
    check_shape(
        "..d..,d",
        "error: name 'd' is used as both a dimension variable and a row variable (as a row variable at position 2) at position 6",
    );
    check_shape(
        "d|..d..",
        "error: name 'd' is used as both a dimension variable and a row variable (as a dimension variable at position 0) at position 4",
    );
    check_einsum(
        "..d..,d; d,e => ..d..,e",
        "error: name 'd' is used as both a dimension variable and a row variable (as a row variable at position 2) at position 6",
    );
    check_einsum(
        "..v..,v => v,..v..",
        "error: name 'v' is used as both a dimension variable and a row variable (as a row variable at position 2) at position 6",
    );
    // Affine terms and concatenated parts are dimension variables too.
    check_einsum(
        "..k..,o+k => o",
        "error: name 'k' is used as both a dimension variable and a row variable (as a row variable at position 2) at position 6",
    );
    check_einsum(
        "..a..; b => a^b",
        "error: name 'a' is used as both a dimension variable and a row variable (as a row variable at position 2) at position 12",
    );
    // Different names, and a label that happens to match, are fine.
    check_shape("..d..,e", "..d..,e");
    check_shape("..rgb..,rgb=3", "..rgb..,rgb=3");
    check_einsum("..b..,d; d,e => ..b..,e", "..b..,d; d,e => ..b..,e");
}
