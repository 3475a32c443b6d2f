//! Integration tests of the spec grammar (the only integration test binary
//! of this crate, to keep link times down):
//!
//! * snapshots of the parse of every example spec in the reference doc
//!   (`ocannl-shape-inference.md`) and the conformance files;
//! * property tests: generated ASTs print and parse back to themselves;
//! * fuzz-style property tests: arbitrary strings never make the parser
//!   panic, and whatever parses round-trips through the printer.
//!
//! Re-bless the snapshots with `INSTA_UPDATE=always cargo test -p ocannl-shape`.

use ocannl_shape::MAX_SIZE;
use ocannl_shape::spec::{
    Conv, EinsumAxis, EinsumSpec, IntOrIdent, Padding, Row, RowVar, ShapeAxis, ShapeSpec, SlotSpec,
    SpecError, parse_einsum_spec, parse_shape_spec,
};
use proptest::prelude::*;

/// Shape specs found in the reference doc and the conformance files.
const SHAPE_EXAMPLES: &[&str] = &[
    // Reference doc, "Representing shapes and constraints".
    "batch|input->output",
    "input->output",
    "batch|output",
    "output",
    // conformance/ocannl-einsum.mlir
    "2|3->4",
    "...|...->...",
    "4|2->3",
    "2,3|4,5->6,7",
    "4|2->5",
    "2|4->5",
    "2,2|3->5",
    // conformance/ocannl-infer-from-usage.mlir
    "20",
    "20->20",
    // conformance/rosette-readme.mlir
    "N->M",
    "4->3",
    "5->3",
    "7->3",
    "5->4",
    "7->5",
    // Multichar names, row variables, labeled sizes.
    "batch,seq|..r..,64->128",
    "3, ..rho.., 7",
    "rgb=3, h, w",
    "hidden,",
];

/// Einsum specs found in the reference doc and the conformance files; bare
/// affine axes are given as operands of a permutation.
const EINSUM_EXAMPLES: &[&str] = &[
    // Reference doc, "Representing shapes and constraints".
    "RHS1;RHS2=>LHS",
    "rhs1;rhs2=>lhs",
    "rhs=>lhs",
    // Reference doc, "Concatenation".
    "a^b => a",
    "a^b => b",
    "a^b => a^b",
    "b^c => a",
    "a; b => a^b",
    "a; b => a^c",
    // conformance/ocannl-einsum.mlir
    "b|i->o => o|b->i",
    "ab|cd->ef => c|a->d",
    "a|i->h; b|h->o => ab|i->o",
    // Reference doc, "Affine indexing and convolutions", in OCANNL syntax.
    "2*o+k => o",
    "o=+k => o",
    "2*o<+1+3*k => o",
    "oh=+kh, ow=+kw; kh, kw => oh, ow",
    "... | ... -> ..., i => ... | ... -> ..., 2*i + 1",
];

/// A row of the snapshot table: the spec, its canonical printing and its
/// parse (or error).
#[derive(Debug)]
#[allow(dead_code, reason = "the fields are read through the Debug snapshot")]
struct Example<T> {
    spec: &'static str,
    printed: Option<String>,
    parsed: Result<T, SpecError>,
}

fn examples<T: ToString + PartialEq + std::fmt::Debug>(
    specs: &[&'static str],
    parse: fn(&str) -> Result<T, SpecError>,
) -> Vec<Example<T>> {
    specs
        .iter()
        .map(|&spec| {
            let parsed = parse(spec);
            let printed = parsed.as_ref().ok().map(ToString::to_string);
            if let (Some(printed), Ok(value)) = (&printed, &parsed) {
                assert_eq!(parse(printed).as_ref(), Ok(value), "round trip of `{spec}`");
            }
            Example {
                spec,
                printed,
                parsed,
            }
        })
        .collect()
}

#[test]
fn shape_examples_snapshot() {
    let table = examples(SHAPE_EXAMPLES, parse_shape_spec);
    assert!(table.iter().all(|e| e.parsed.is_ok()));
    insta::assert_debug_snapshot!("shape_examples", table);
}

#[test]
fn einsum_examples_snapshot() {
    let table = examples(EINSUM_EXAMPLES, parse_einsum_spec);
    assert!(table.iter().all(|e| e.parsed.is_ok()));
    insta::assert_debug_snapshot!("einsum_examples", table);
}

// ---- OCANNL's one-name-one-kind rule ---------------------------------------

/// Whether a name is both a row variable and a dimension variable of the
/// spec (which must then be rejected: OCANNL's `test_einsum_capture`).
fn clashes<'a>(rows: impl IntoIterator<Item = &'a str>, dims: Vec<&'a str>) -> bool {
    rows.into_iter().any(|r| dims.contains(&r))
}

fn einsum_dim_vars(spec: &EinsumSpec) -> Vec<&str> {
    let mut names = vec![];
    for slot in spec.rhs.iter().chain([&spec.lhs]) {
        for (_, row) in slot.rows() {
            for axis in row.axes() {
                match axis {
                    EinsumAxis::Label(n) => names.push(n.as_str()),
                    EinsumAxis::Affine {
                        stride, over, conv, ..
                    } => {
                        if let IntOrIdent::Ident(n) = stride {
                            names.push(n);
                        }
                        names.push(over);
                        if let Some(c) = conv {
                            if let IntOrIdent::Ident(n) = &c.dilation {
                                names.push(n);
                            }
                            names.push(&c.kernel);
                        }
                    }
                    EinsumAxis::Concat(parts) => names.extend(parts.iter().map(String::as_str)),
                    EinsumAxis::Fresh | EinsumAxis::Fixed(_) => {}
                }
            }
        }
    }
    names
}

fn einsum_row_vars(spec: &EinsumSpec) -> Vec<&str> {
    spec.rhs
        .iter()
        .chain([&spec.lhs])
        .flat_map(|slot| slot.rows().filter_map(|(_, row)| row.row_var_name()))
        .collect()
}

/// A parse result of a generated spec: the spec itself, or (when a name is
/// both kinds of variable) the error that says so.
fn expect_clash<T: std::fmt::Debug>(
    clash: bool,
    reparsed: &Result<T, SpecError>,
    printed: &str,
) -> Result<bool, TestCaseError> {
    if clash {
        let err = reparsed.as_ref().err();
        prop_assert!(
            err.is_some_and(|e| e
                .message
                .contains("is used as both a dimension variable and a row variable")),
            "`{}` uses a name as both kinds of variable, parsed as {:?}",
            printed,
            reparsed
        );
    }
    Ok(clash)
}

// ---- generators ----------------------------------------------------------

fn ident() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec!["a", "b", "i", "o", "k", "x", "Z"]).prop_map(str::to_owned),
        prop::sample::select(vec!["hidden", "ab", "x1", "a_b", "batch", "rho", "kW_2"])
            .prop_map(str::to_owned),
        "[a-zA-Z][a-zA-Z0-9_]{0,4}",
    ]
}

/// Sizes, strides and dilations: small, or the largest the parser takes
/// (`MAX_SIZE`).
fn positive() -> impl Strategy<Value = u64> {
    prop_oneof![1u64..=9, 10u64..=100_000, Just(MAX_SIZE)]
}

fn row_var() -> impl Strategy<Value = RowVar> {
    prop_oneof![Just(RowVar::Anonymous), ident().prop_map(RowVar::Named)]
}

/// Rows that respect the invariant: no row variable means no `beg` axes.
fn row<A: Clone + std::fmt::Debug>(
    axis: impl Strategy<Value = A> + Clone,
) -> impl Strategy<Value = Row<A>> {
    (
        prop::collection::vec(axis.clone(), 0..3),
        prop::option::of(row_var()),
        prop::collection::vec(axis, 0..3),
    )
        .prop_map(|(beg, var, end)| match var {
            Some(var) => Row::open(beg, var, end),
            None => Row::closed(beg.into_iter().chain(end).collect()),
        })
}

fn shape_axis() -> impl Strategy<Value = ShapeAxis> + Clone {
    prop_oneof![
        positive().prop_map(ShapeAxis::Size),
        (ident(), positive()).prop_map(|(label, size)| ShapeAxis::Labeled { label, size }),
        ident().prop_map(ShapeAxis::Var),
        Just(ShapeAxis::Fresh),
    ]
}

fn shape_spec() -> impl Strategy<Value = ShapeSpec> {
    let row = || prop_oneof![1 => Just(Row::empty()), 3 => row(shape_axis())];
    (row(), row(), row()).prop_map(|(batch, input, output)| ShapeSpec {
        batch,
        input,
        output,
    })
}

fn int_or_ident() -> impl Strategy<Value = IntOrIdent> {
    prop_oneof![
        2 => Just(IntOrIdent::Int(1)),
        1 => positive().prop_map(IntOrIdent::Int),
        1 => ident().prop_map(IntOrIdent::Ident),
    ]
}

fn einsum_axis() -> impl Strategy<Value = EinsumAxis> + Clone {
    let padding = prop_oneof![
        Just(Padding::Pad),
        Just(Padding::Valid),
        Just(Padding::Unspecified)
    ];
    let conv = (int_or_ident(), ident(), padding).prop_map(|(dilation, kernel, padding)| Conv {
        dilation,
        kernel,
        padding,
    });
    prop_oneof![
        3 => ident().prop_map(EinsumAxis::Label),
        1 => Just(EinsumAxis::Fresh),
        1 => prop_oneof![0u64..=20, Just(MAX_SIZE)].prop_map(EinsumAxis::Fixed),
        2 => (int_or_ident(), ident(), prop_oneof![Just(0u64), 1u64..=5], prop::option::of(conv))
            .prop_map(|(stride, over, offset, conv)| EinsumAxis::Affine { stride, over, offset, conv }),
        1 => prop::collection::vec(ident(), 2..=4).prop_map(EinsumAxis::Concat),
    ]
}

fn slot_spec() -> impl Strategy<Value = SlotSpec> {
    let row = || prop_oneof![1 => Just(Row::empty()), 3 => row(einsum_axis())];
    (row(), row(), row()).prop_map(|(batch, input, output)| SlotSpec {
        batch,
        input,
        output,
    })
}

fn einsum_spec() -> impl Strategy<Value = EinsumSpec> {
    (prop::collection::vec(slot_spec(), 1..=3), slot_spec())
        .prop_map(|(rhs, lhs)| EinsumSpec { rhs, lhs })
}

/// Rows of at most one entry, without multichar triggers: the printer's
/// rule 5 (forcing multichar mode with a trailing comma) is only exercised
/// by specs made of these.
fn sparse_row<A: Clone + std::fmt::Debug + 'static>(
    axis: impl Strategy<Value = A> + 'static,
) -> impl Strategy<Value = Row<A>> {
    prop_oneof![
        Just(Row::empty()),
        axis.prop_map(|a| Row::closed(vec![a])),
        row_var().prop_map(|v| Row::open(vec![], v, vec![])),
    ]
}

fn sparse_shape_spec() -> impl Strategy<Value = ShapeSpec> {
    let axis = || {
        prop_oneof![
            positive().prop_map(ShapeAxis::Size),
            ident().prop_map(ShapeAxis::Var),
            Just(ShapeAxis::Fresh),
        ]
    };
    (sparse_row(axis()), sparse_row(axis()), sparse_row(axis())).prop_map(
        |(batch, input, output)| ShapeSpec {
            batch,
            input,
            output,
        },
    )
}

fn sparse_einsum_spec() -> impl Strategy<Value = EinsumSpec> {
    let axis = || {
        prop_oneof![
            ident().prop_map(EinsumAxis::Label),
            Just(EinsumAxis::Fresh),
            (0u64..100).prop_map(EinsumAxis::Fixed),
        ]
    };
    let slot = || {
        (sparse_row(axis()), sparse_row(axis()), sparse_row(axis())).prop_map(
            |(batch, input, output)| SlotSpec {
                batch,
                input,
                output,
            },
        )
    };
    (prop::collection::vec(slot(), 1..=3), slot()).prop_map(|(rhs, lhs)| EinsumSpec { rhs, lhs })
}

/// Strings made of spec-like pieces, more likely to parse than characters.
fn spec_like() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "a", "b", "hidden", "x1", "_", "0", "2", "64", ",", ", ", "...", "..r..", "..rho..", "..",
        "|", "->", "=>", ";", "*", "+", "=", "<", "^", " ", "rgb=3",
    ]);
    prop::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

// ---- properties ----------------------------------------------------------

/// Parsing never panics; what parses prints to a fixed point.
fn check_no_panic_and_round_trip(s: &str) -> Result<(), TestCaseError> {
    if let Ok(spec) = parse_shape_spec(s) {
        let printed = spec.to_string();
        prop_assert_eq!(
            parse_shape_spec(&printed),
            Ok(spec),
            "shape `{}` -> `{}`",
            s,
            printed
        );
    }
    if let Ok(spec) = parse_einsum_spec(s) {
        let printed = spec.to_string();
        prop_assert_eq!(
            parse_einsum_spec(&printed),
            Ok(spec),
            "einsum `{}` -> `{}`",
            s,
            printed
        );
    }
    for err in [parse_shape_spec(s).err(), parse_einsum_spec(s).err()]
        .into_iter()
        .flatten()
    {
        prop_assert!(err.span.start <= err.span.end && err.span.end <= s.len());
        prop_assert!(s.is_char_boundary(err.span.start) && s.is_char_boundary(err.span.end));
        prop_assert!(!err.message.is_empty() && !err.message.ends_with('.'));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn shape_spec_round_trips(spec in shape_spec()) {
        let printed = spec.to_string();
        let reparsed = parse_shape_spec(&printed);
        if expect_clash(clashes(spec.row_vars(), spec.dim_vars().collect()), &reparsed, &printed)? {
            return Ok(());
        }
        prop_assert_eq!(reparsed.as_ref(), Ok(&spec), "printed `{}`", printed);
        prop_assert_eq!(reparsed.map(|s| s.to_string()), Ok(printed));
    }

    #[test]
    fn einsum_spec_round_trips(spec in einsum_spec()) {
        let printed = spec.to_string();
        let reparsed = parse_einsum_spec(&printed);
        if expect_clash(clashes(einsum_row_vars(&spec), einsum_dim_vars(&spec)), &reparsed, &printed)? {
            return Ok(());
        }
        prop_assert_eq!(reparsed.as_ref(), Ok(&spec), "printed `{}`", printed);
        prop_assert_eq!(reparsed.map(|s| s.to_string()), Ok(printed));
    }

    #[test]
    fn sparse_shape_spec_round_trips(spec in sparse_shape_spec()) {
        let printed = spec.to_string();
        let reparsed = parse_shape_spec(&printed);
        if expect_clash(clashes(spec.row_vars(), spec.dim_vars().collect()), &reparsed, &printed)? {
            return Ok(());
        }
        prop_assert_eq!(reparsed, Ok(spec), "printed `{}`", printed);
    }

    #[test]
    fn sparse_einsum_spec_round_trips(spec in sparse_einsum_spec()) {
        let printed = spec.to_string();
        let reparsed = parse_einsum_spec(&printed);
        if expect_clash(clashes(einsum_row_vars(&spec), einsum_dim_vars(&spec)), &reparsed, &printed)? {
            return Ok(());
        }
        prop_assert_eq!(reparsed, Ok(spec), "printed `{}`", printed);
    }

    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>()) {
        check_no_panic_and_round_trip(&s)?;
    }

    #[test]
    fn spec_alphabet_strings_never_panic(s in "[a-z0-9_,|>=;.*+^<& -]{0,30}") {
        check_no_panic_and_round_trip(&s)?;
    }

    #[test]
    fn unicode_strings_never_panic(s in "[ab1_,|>=;.*+^<é日\u{0}\u{1F600} -]{0,20}") {
        check_no_panic_and_round_trip(&s)?;
    }

    #[test]
    fn spec_like_strings_never_panic(s in spec_like()) {
        check_no_panic_and_round_trip(&s)?;
    }
}

/// Shape inference tests (one test binary for the crate).
#[path = "inference/mod.rs"]
mod inference;
