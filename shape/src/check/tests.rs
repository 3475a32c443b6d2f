//! Data-driven unit tests: each case is a logic, the operand and result
//! specs, and `ok` or the expected error message.

use super::*;
use crate::spec::{EinsumAxis, IntOrIdent, Row, parse_block_spec};

/// Parses the specs, runs [`check_op`] and compares `ok` / `error: MSG`
/// with `expect`.
#[track_caller]
fn check(logic: &CheckLogic, operands: &[&str], result: &str, expect: &str) {
    let parse = |s: &str| -> ShapeSpec { s.parse().expect("test specs parse") };
    let operands: Vec<ShapeSpec> = operands.iter().map(|s| parse(s)).collect();
    let refs: Vec<&ShapeSpec> = operands.iter().collect();
    let actual = match check_op(logic, &refs, &parse(result)) {
        Ok(()) => "ok".to_owned(),
        Err(e) => format!("error: {e}"),
    };
    assert_eq!(actual, expect, "{logic:?} {operands:?} => {result}");
}

fn einsum(spec: &str) -> CheckLogic {
    CheckLogic::Einsum(spec.parse().expect("test einsum specs parse"))
}

#[test]
fn pointwise_broadcasting() {
    let bin = &CheckLogic::PointwiseBin;
    check(bin, &["2,3|4->5", "5"], "2,3|4->5", "ok");
    check(bin, &["1,3", "4,1"], "4,3", "ok");
    check(
        bin,
        &["3", "4"],
        "4",
        "error: output axis 1 (from the end) of operand #0 is 3, which does not broadcast to output axis 1 of the result, which is 4",
    );
    check(
        &CheckLogic::PointwiseUn,
        &["2,3"],
        "3",
        "error: output row of operand #0 (2 axes) does not broadcast to output row of the result (1 axes): too few axes",
    );
    // Broadcasting is per row kind: an output axis does not fill a batch axis.
    check(
        &CheckLogic::PointwiseUn,
        &["2|3"],
        "3",
        "error: batch row of operand #0 (1 axes) does not broadcast to batch row of the result (0 axes): too few axes",
    );
    check(
        &CheckLogic::PointwiseTern,
        &["1", "3", "2->1"],
        "2->3",
        "ok",
    );
}

#[test]
fn labels() {
    let un = &CheckLogic::PointwiseUn;
    check(un, &["rgb=3"], "rgb=3", "ok");
    // An unlabelled axis agrees with a labelled one of the same size.
    check(un, &["3"], "rgb=3", "ok");
    check(un, &["rgb=3"], "3", "ok");
    check(
        un,
        &["rgb=3"],
        "hsv=3",
        "error: output axis 1 (from the end) of operand #0 is rgb=3, which does not broadcast to output axis 1 of the result, which is hsv=3",
    );
    // Only an unlabelled 1 broadcasts.
    check(un, &["1"], "rgb=3", "ok");
    check(
        un,
        &["one=1"],
        "3",
        "error: output axis 1 (from the end) of operand #0 is one=1, which does not broadcast to output axis 1 of the result, which is 3",
    );
}

#[test]
fn compose() {
    let compose = &CheckLogic::Compose;
    check(compose, &["4->3", "2|4"], "2|3", "ok");
    check(compose, &["4->3", "2|1"], "2|3", "ok");
    check(
        compose,
        &["4->3", "2|5"],
        "2|3",
        "error: output axis 1 (from the end) of operand #1 is 5, which does not broadcast to input axis 1 of operand #0, which is 4",
    );
    check(compose, &["1|4->3", "2|4"], "2|3", "ok");
    check(
        compose,
        &["3|4->3", "2|4"],
        "3|3",
        "error: batch axis 1 (from the end) of operand #1 is 2, which does not broadcast to batch axis 1 of the result, which is 3",
    );
    check(compose, &["4->3", "7->4"], "7->3", "ok");
    check(
        compose,
        &["4->3", "7->4"],
        "3",
        "error: input row of operand #1 (1 axes) does not broadcast to input row of the result (0 axes): too few axes",
    );
    let fma = &CheckLogic::ComposeAccumulate;
    check(fma, &["4->3", "5->4", "5->3"], "5->3", "ok");
    check(
        fma,
        &["4->3", "5->4", "6->3"],
        "5->3",
        "error: input axis 1 (from the end) of operand #2 is 6, which does not broadcast to input axis 1 of the result, which is 5",
    );
}

#[test]
fn transpose() {
    let t = &CheckLogic::Transpose;
    check(t, &["2|3->4"], "2|4->3", "ok");
    check(
        t,
        &["2|3->4"],
        "2|3->4",
        "error: output axis 1 (from the end) of operand #0 is 4, which does not broadcast to input axis 1 of the result, which is 3",
    );
}

#[test]
fn einsum_labels_and_rows() {
    check(&einsum("b|i->o => o|b->i"), &["2|3->4"], "4|2->3", "ok");
    check(
        &einsum("ab|cd->ef => c|a->d"),
        &["2,3|4,5->6,7"],
        "4|2->5",
        "ok",
    );
    check(
        &einsum("a|i->h; b|h->o => ab|i->o"),
        &["2|3->4", "2|4->5"],
        "2,2|3->5",
        "ok",
    );
    check(
        &einsum("a|i->h; b|h->o => ab|i->o"),
        &["2|3->4", "2|6->5"],
        "2,2|3->5",
        "error: einsum label h is 4 at output axis 1 (from the end) of operand #0 but 6 at input axis 1 (from the end) of operand #1",
    );
    // No broadcasting in einsum: a 1 does not stand for any size.
    check(
        &einsum("i; i => i"),
        &["3", "1"],
        "3",
        "error: einsum label i is 3 at output axis 1 (from the end) of operand #0 but 1 at output axis 1 (from the end) of operand #1",
    );
    check(
        &einsum("i => i"),
        &["2,3"],
        "3",
        "error: output row of operand #0 has 2 axes but its einsum slot has 1 axes",
    );
    check(&einsum("i => ii"), &["2"], "2,2", "ok");
    check(&einsum("_ => _"), &["2"], "5", "ok");
}

#[test]
fn einsum_label_agreement() {
    check(&einsum("i; i => i"), &["rgb=3", "3"], "3", "ok");
    check(
        &einsum("i; i => i"),
        &["3", "rgb=3"],
        "hsv=3",
        "error: einsum label i is rgb=3 at output axis 1 (from the end) of operand #1 but hsv=3 at output axis 1 (from the end) of the result",
    );
}

#[test]
fn einsum_fixed_index() {
    check(&einsum("2i => i"), &["3,4"], "4", "ok");
    check(
        &einsum("3i => i"),
        &["3,4"],
        "4",
        "error: einsum fixed index 3 is out of range of output axis 2 (from the end) of operand #0, of size 3",
    );
}

#[test]
fn einsum_row_variables() {
    check(
        &einsum("...|i->o => ...|o->i"),
        &["2,3|4->5"],
        "2,3|5->4",
        "ok",
    );
    check(
        &einsum("...|i->o => ...|o->i"),
        &["2,3|4->5"],
        "3,2|5->4",
        "error: einsum row variable ... (of the batch rows) (its axis 1 from the start) is 2 at batch axis 2 (from the end) of operand #0 but 3 at batch axis 2 (from the end) of the result",
    );
    check(
        &einsum("...|i->o => ...|o->i"),
        &["2,3|4->5"],
        "3|5->4",
        "error: einsum row variable ... (of the batch rows) stands for 2 axes in batch row of operand #0 but 1 in batch row of the result",
    );
    // `...` is per row kind: the batch and output row variables are distinct.
    check(&einsum("...|... => ...|..."), &["2|3"], "2|3", "ok");
    check(
        &einsum("...|... => ...|..."),
        &["2|3"],
        "3|2",
        "error: einsum row variable ... (of the batch rows) (its axis 1 from the start) is 2 at batch axis 1 (from the end) of operand #0 but 3 at batch axis 1 (from the end) of the result",
    );
    // A named row variable is shared across kinds.
    check(
        &einsum("..r..|i; ..r.. => i->..r.."),
        &["2,3|4", "2,3"],
        "4->2,3",
        "ok",
    );
    check(
        &einsum("..r..|i; ..r.. => i->..r.."),
        &["2,3|4", "3"],
        "4->2,3",
        "error: einsum row variable ..r.. stands for 2 axes in batch row of operand #0 but 1 in output row of operand #1",
    );
    // Axes on both sides of the row variable.
    check(&einsum("a,...,b => b,...,a"), &["1,2,3,4"], "4,2,3,1", "ok");
    check(
        &einsum("a,...,b => b,...,a"),
        &["1"],
        "1",
        "error: output row of operand #0 has 1 axes but its einsum slot needs at least 2 axes",
    );
}

#[test]
fn batch_slice() {
    let slice = |index| CheckLogic::BatchSlice { index };
    check(&slice(2), &["8,4|3->2"], "4|3->2", "ok");
    check(
        &slice(8),
        &["8,4|3->2"],
        "4|3->2",
        "error: batch slice index 8 is out of range of the leftmost batch axis of operand #0, of size 8",
    );
    check(
        &slice(0),
        &["8,4|3->2"],
        "8|3->2",
        "error: batch axis 1 (from the end) of operand #0 is 4 but batch axis 1 of the result is 8: they must be equal",
    );
    check(
        &slice(0),
        &["8|3->2"],
        "8|3->2",
        "error: batch row of operand #0 has 1 axes and the result's has 1: batch slice removes exactly one axis",
    );
    check(
        &slice(0),
        &["2|3->2"],
        "3->1",
        "error: output axis 1 (from the end) of operand #0 is 2 but output axis 1 of the result is 1: they must be equal",
    );
}

#[test]
fn terminals_and_reshape() {
    let elems = |n| CheckLogic::Terminal {
        spec: None,
        elems: Some(n),
        exact: None,
    };
    check(&elems(6), &[], "2|3", "ok");
    check(
        &elems(6),
        &[],
        "2|4",
        "error: the result has 8 elements but the terminal has 6",
    );
    let spec = |s: &str| CheckLogic::Terminal {
        spec: Some(s.parse().expect("test specs parse")),
        elems: None,
        exact: None,
    };
    let exact = CheckLogic::Terminal {
        spec: None,
        elems: None,
        exact: Some(vec![2, 3]),
    };
    check(&exact, &[], "2|3", "ok");
    check(&exact, &[], "3->2", "ok");
    check(
        &exact,
        &[],
        "3|2",
        "error: the result's axes in memory order are [3, 2] but the data's are [2, 3]",
    );
    check(&spec("20"), &[], "20", "ok");
    check(
        &spec("20"),
        &[],
        "1|20",
        "error: batch row of the result has 1 axes but batch row of the attribute spec has 0: they must be equal",
    );
    check(&CheckLogic::Reshape, &["2,3"], "6", "ok");
    check(&CheckLogic::Reshape, &["2,3"], "3|1->2", "ok");
    check(
        &CheckLogic::Reshape,
        &["2,3"],
        "5",
        "error: the result has 5 elements but operand #0 has 6",
    );
}

#[test]
fn rejects_what_it_cannot_check() {
    check(
        &CheckLogic::PointwiseUn,
        &["n"],
        "3",
        "error: output row of operand #0 is not concrete: dimension variable n",
    );
    check(
        &CheckLogic::PointwiseUn,
        &["3"],
        "_",
        "error: output row of the result is not concrete: `_`",
    );
    check(
        &CheckLogic::PointwiseUn,
        &["3"],
        "..r..|3",
        "error: batch row of the result is not concrete: row variable ..r..",
    );
    check(
        &CheckLogic::PointwiseUn,
        &["...|3"],
        "3",
        "error: batch row of operand #0 is not concrete: row variable ... (of the batch rows)",
    );
    check(
        &CheckLogic::PointwiseBin,
        &["3"],
        "3",
        "error: pointwise binary needs 2 operand(s), got 1",
    );
    check(
        &einsum("i; i => i"),
        &["3"],
        "3",
        "error: einsum needs 2 operand(s), got 1",
    );
    check(
        &einsum("2*o+k => o"),
        &["7"],
        "3",
        "error: strided axes whose labels appear in no other axis are not supported by the checker",
    );
    check(
        &einsum("s*o => o"),
        &["6"],
        "3",
        "error: symbolic strides and dilations are not supported by the checker",
    );
    check(
        &einsum("a; b => a^b"),
        &["2", "3"],
        "5",
        "error: concatenated axes outside block specs are not supported by the checker",
    );
}

fn block(spec: &str) -> CheckLogic {
    CheckLogic::Block(parse_block_spec(spec).expect("block spec parses"))
}

/// "Concatenation": a concatenated axis is the sum of its parts; parts seen
/// only in concatenations are deduced, discardable ones may be 0.
#[test]
fn concatenated_axes() {
    check(&block("a; b => a^b"), &["2", "3"], "5", "ok");
    check(
        &block("a; b => a^b"),
        &["2", "3"],
        "6",
        "error: output axis 1 (from the end) of the result has size 6, but its parts a^b sum to 5",
    );
    check(&block("a; b; c => a^b^c"), &["2", "3", "1"], "6", "ok");
    check(
        &block("x|a->y; x|b->y => x|a^b->y"),
        &["4|2->3", "4|5->3"],
        "4|7->3",
        "ok",
    );
    // Slicing: `b` is deduced (2), or discardable and 0.
    check(&block("a^b => a"), &["5"], "3", "ok");
    check(&block("a^b => a"), &["5"], "5", "ok");
    check(
        &block("a^b => a"),
        &["5"],
        "6",
        "error: output axis 1 (from the end) of operand #0 has size 5, but its parts a^b need at least 6",
    );
    // `c` is not discardable here: it cannot be 0.
    check(
        &block("a; b => a^c"),
        &["5", "5"],
        "5",
        "error: output axis 1 (from the end) of the result has size 5, but its parts a^c need at least 6",
    );
    check(&block("a^a => a"), &["6"], "3", "ok");
    // Two parts of one size.
    check(
        &block("a^a => b"),
        &["5"],
        "7",
        "error: output axis 1 (from the end) of operand #0 has size 5, but its parts a^a leave 5 for 2 parts of one size",
    );
    // Stacking: one axis per operand, of size 1.
    check(
        &block("...; ... => s^t, ..."),
        &["3,4", "3,4"],
        "2,3,4",
        "ok",
    );
}

/// The size formulas of "Affine indexing and convolutions".
#[test]
fn strided_and_convolution_axes() {
    check(&einsum("2*o => o"), &["6"], "3", "ok");
    check(
        &einsum("2*o => o"),
        &["7"],
        "3",
        "error: output axis 1 (from the end) of operand #0 has size 7, but its strided or convolution iteration needs size 6",
    );
    // Valid convolution: 8 - 3 + 1 = 6.
    check(&einsum("o<+k; k => o"), &["8", "3"], "6", "ok");
    check(
        &einsum("o<+k; k => o"),
        &["8", "3"],
        "5",
        "error: output axis 1 (from the end) of operand #0 has size 8, but its strided or convolution iteration needs size 7",
    );
    // Without a padding marker the convolution is valid.
    check(&einsum("o+k; k => o"), &["8", "3"], "6", "ok");
    // Padded, stride 2: the input is 2 * 4.
    check(&einsum("2*o=+k; k => o"), &["8", "3"], "4", "ok");
    // Dilation 2: the kernel spans 5; stride 2: (9 - 5) / 2 + 1 = 3.
    check(&einsum("2*o<+2*k; k => o"), &["9", "3"], "3", "ok");
    // conv2d with batch and channels.
    check(
        &einsum("b|h<+i,w<+j,c; i,j,c->d => b|h,w,d"),
        &["2|8,8,3", "3,3,3->4"],
        "2|6,6,4",
        "ok",
    );
}

/// Sizes past `MAX_SIZE`, and sizes and element counts that would pass it,
/// are check failures (`size overflow: ...`), never a panic or a wrapped
/// comparison.
#[test]
fn sizes_past_the_limit_are_check_failures() {
    const BEYOND: &str = "more than the largest size 9223372036854775807";
    let huge = ShapeSpec {
        output: Row::closed(vec![ShapeAxis::Size(u64::MAX)]),
        ..ShapeSpec::default()
    };
    let three: ShapeSpec = "3".parse().unwrap();
    assert_eq!(
        check_op(&CheckLogic::PointwiseUn, &[&huge], &three)
            .unwrap_err()
            .to_string(),
        format!(
            "size overflow: output axis 1 (from the end) of operand #0 has size 18446744073709551615, {BEYOND}"
        )
    );
    check(
        &einsum("2*o => o"),
        &["9223372036854775806"],
        "4611686018427387904",
        &format!(
            "error: size overflow: output axis 1 (from the end) of operand #0 needs size 2 * 4611686018427387904 = 9223372036854775808 for its strided or convolution iteration, {BEYOND}"
        ),
    );
    check(
        &einsum("2*o => o"),
        &["9223372036854775806"],
        "4611686018427387903",
        "ok",
    );
    check(
        &einsum("o<+4611686018427387904*k; k => o"),
        &["9223372036854775807", "3"],
        "1",
        &format!(
            "error: size overflow: output axis 1 (from the end) of operand #0 needs size 1 * (1 - 1) + (3 - 1) * 4611686018427387904 + 1 = 9223372036854775809 for its strided or convolution iteration, {BEYOND}"
        ),
    );
    check(
        &CheckLogic::Reshape,
        &["100000,100000,100000,100000"],
        "100000,100000,100000,100000",
        &format!("error: size overflow: operand #0 has 100000000000000000000 elements, {BEYOND}"),
    );
    let terminal = |elems| CheckLogic::Terminal {
        spec: None,
        elems: Some(elems),
        exact: None,
    };
    check(
        &terminal(u64::MAX),
        &[],
        "3",
        &format!(
            "error: size overflow: the terminal's element count is 18446744073709551615, {BEYOND}"
        ),
    );
    check(
        &terminal(1),
        &[],
        "9223372036854775807,9223372036854775807,9223372036854775807",
        &format!("error: size overflow: the result has more than 2^128 elements, {BEYOND}"),
    );
    check(
        &CheckLogic::Terminal {
            spec: None,
            elems: None,
            exact: Some(vec![u64::MAX]),
        },
        &[],
        "3",
        &format!(
            "error: size overflow: the data has an axis of size 18446744073709551615, {BEYOND}"
        ),
    );
    // Parts past the limit: the sum is exact.
    check(
        &CheckLogic::Block(parse_block_spec("a; b => a^b").unwrap()),
        &["9223372036854775807", "9223372036854775807"],
        "5",
        "error: output axis 1 (from the end) of the result has size 5, but its parts a^b need at least 18446744073709551614",
    );
    let mut strided: EinsumSpec = "2*o => o".parse().unwrap();
    if let EinsumAxis::Affine { stride, .. } = &mut strided.rhs[0].output.end[0] {
        *stride = IntOrIdent::Int(u64::MAX);
    }
    check(
        &CheckLogic::Einsum(strided),
        &["3"],
        "3",
        &format!(
            "error: size overflow: the einsum spec has a stride or dilation of 18446744073709551615, {BEYOND}"
        ),
    );
}
