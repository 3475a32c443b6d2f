//! Sizes at and past [`MAX_SIZE`], and rows of many axes.
//!
//! * Every size the solver derives past `MAX_SIZE` (strided and convolution
//!   dims, concatenations, element counts, indices) is a `size overflow`
//!   error at the op that needed it, never a panic or a wrapped size; sizes
//!   at the limit still solve.
//! * Rows may have any number of axes: the rank-cycle guard is relative to
//!   the problem, and positive cycles are still rank cycles.
//!
//! The property test over sizes near the limits is in `limits_props`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use ocannl_shape::{
    MAX_SIZE,
    problem::{OpLogic, Problem},
    solver::{Closing, OpId, ShapeError, ShapeErrorKind},
    spec::{EinsumAxis, EinsumSpec, IntOrIdent, ShapeAxis, ShapeSpec},
};

use super::harness::{build, check, solve_and_render, verify_solution};

/// The error of a program that must not solve.
#[track_caller]
fn error(src: &str) -> ShapeError {
    let mut built = build(src);
    match solve_and_render(&mut built, Closing::Full) {
        Ok(s) => panic!("expected an error, got\n{s}\nprogram:\n{src}"),
        Err(e) => e,
    }
}

/// An overflow error whose message contains `needle`.
#[track_caller]
fn overflow(src: &str, needle: &str) {
    let e = error(src);
    assert_eq!(e.kind, ShapeErrorKind::Overflow, "{e}\nprogram:\n{src}");
    assert!(
        e.to_string().contains(needle),
        "`{e}` does not contain `{needle}`"
    );
    assert!(
        e.to_string()
            .contains("more than the largest size 9223372036854775807"),
        "{e}"
    );
}

/// The solved specs of a program that must solve, confirmed op by op by the
/// independent checker.
#[track_caller]
fn solves(src: &str) -> HashMap<String, String> {
    let mut built = build(src);
    let rendered = solve_and_render(&mut built, Closing::Full)
        .unwrap_or_else(|e| panic!("{e}\nprogram:\n{src}"));
    verify_solution(&built).unwrap_or_else(|e| panic!("{e}\nsolution:\n{rendered}"));
    rendered
        .lines()
        .filter_map(|l| {
            l.split_once(": ")
                .or_else(|| Some((l.strip_suffix(':')?, "")))
        })
        .map(|(n, s)| (n.trim().to_owned(), s.to_owned()))
        .collect()
}

/// `n` axes of size 1, as a spec.
fn ones(n: usize) -> String {
    vec!["1"; n].join(",")
}

#[test]
fn the_limit_is_i64_max() {
    assert_eq!(MAX_SIZE, i64::MAX as u64);
    assert_eq!(ShapeErrorKind::Overflow.to_string(), "size overflow");
}

#[test]
fn sizes_at_the_limit_solve() {
    check(
        "arg a : 9223372036854775807,1
         arg b : 1,9223372036854775807
         r = add(a, b) : ...",
        "a: 9223372036854775807,1
         b: 1,9223372036854775807
         r: 9223372036854775807,9223372036854775807",
    );
    check(
        "arg x : ...
         e = einsum[\"2*o => o\"](x) : 4611686018427387903",
        "x: 9223372036854775806
         e: 4611686018427387903",
    );
    check(
        "arg a : 9223372036854775806
         arg b : 1
         c = concat[\"a; b => a^b\"](a, b) : ...",
        "a: 9223372036854775806
         b: 1
         c: 9223372036854775807",
    );
    check(
        "c = constant[elems=9223372036854775807]() : n",
        "c: 9223372036854775807",
    );
}

#[test]
fn strided_axis_past_the_limit_is_an_overflow() {
    overflow(
        "arg x : ...
         e = einsum[\"2*o => o\"](x) : 4611686018427387904",
        "size overflow: the strided axis needs size 2 * 4611686018427387904 = 9223372036854775808",
    );
    // A stride of 2^62 on an output of 3.
    overflow(
        "arg x : ...
         e = einsum[\"4611686018427387904*o => o\"](x) : 3",
        "4611686018427387904 * 3 = 13835058055282163712",
    );
    // Padded: the input is `stride * output` wide.
    overflow(
        "arg x : ...
         arg w : 3
         e = einsum[\"4611686018427387904*o=+k; k => o\"](x, w) : 2",
        "4611686018427387904 * 2 = 9223372036854775808",
    );
}

#[test]
fn convolution_past_the_limit_is_an_overflow() {
    // Valid: `stride * (o - 1) + (k - 1) * dilation + 1`, forwards.
    overflow(
        "arg x : ...
         arg w : 3
         e = einsum[\"o<+4611686018427387904*k; k => o\"](x, w) : 2",
        "the convolution input needs size 1 * (2 - 1) + (3 - 1) * 4611686018427387904 + 1 = 9223372036854775810",
    );
    // Backwards from the input: the dilated kernel alone is too wide.
    overflow(
        "arg x : 10
         arg w : 3
         e = einsum[\"2*o+4611686018427387904*k; k => o\"](x, w) : ...",
        "the dilated kernel spans (3 - 1) * 4611686018427387904 + 1 = 9223372036854775809",
    );
    // The kernel from input and output: the outputs alone are too wide.
    overflow(
        "arg x : 10
         arg w : ...
         e = einsum[\"4611686018427387904*o+k; k => o\"](x, w) : 3",
        "the convolution's outputs span 4611686018427387904 * (3 - 1) = 9223372036854775808",
    );
}

#[test]
fn concatenation_past_the_limit_is_an_overflow() {
    overflow(
        "arg a : 9223372036854775807
         arg b : 1
         c = concat[\"a; b => a^b\"](a, b) : ...",
        "the known parts of the concatenated axis sum to 9223372036854775807 + 1 = 9223372036854775808",
    );
    // Also when the whole is known (whatever the order of the constraints).
    overflow(
        "arg a : 9223372036854775807
         arg b : 9223372036854775807
         c = concat[\"a; b => a^b\"](a, b) : 5",
        "= 18446744073709551614",
    );
}

#[test]
fn element_counts_past_the_limit_are_overflows() {
    // 10^20 cells.
    overflow(
        "arg x : 100000,100000,100000,100000
         r = reshape(x) : ...",
        "the axes have 100000 * 100000 * 100000 * 100000 = 100000000000000000000 elements",
    );
    overflow(
        "c = constant[elems=6]() : 100000,100000,100000,100000,n",
        "100000000000000000000 elements",
    );
    overflow(
        "c = constant[elems=18446744073709551615]() : ...",
        "element count 18446744073709551615 is more than the largest size",
    );
    overflow(
        "c = constant[exact=9223372036854775808]() : ...",
        "size 9223372036854775808 is more than the largest size",
    );
    // Not an overflow: a count with no row to give it to is a mismatch.
    assert_eq!(
        error("c = constant[elems=6]() : 4").kind,
        ShapeErrorKind::ElementCount
    );
}

#[test]
fn fixed_index_at_the_limit_needs_an_axis_past_it() {
    overflow(
        "arg x : ...
         e = einsum[\"9223372036854775807 => \"](x) :",
        "an index needs an axis of size at least 9223372036854775808",
    );
    overflow(
        "arg x : ...|...->...
         s = batch_slice[9223372036854775807](x) : ...|...->...",
        "at least 9223372036854775808",
    );
}

/// Shapes built without the parser (as a caller may) cannot smuggle a size
/// past the limit through the solver.
#[test]
fn sizes_past_the_limit_in_built_specs_are_overflows() {
    let mut p = Problem::new();
    let spec = |d: u64| ShapeSpec {
        output: ocannl_shape::spec::Row::closed(vec![ShapeAxis::Size(d)]),
        ..ShapeSpec::default()
    };
    let x = p.shape_from_spec(&spec(u64::MAX), true);
    let y = p.shape_from_spec(&"...".parse().expect("spec"), false);
    p.add_op(OpId(0), OpLogic::PointwiseUn, &[x], y)
        .expect("logic fits");
    let e = p.solve(Closing::Full).expect_err("too large");
    assert_eq!(e.kind, ShapeErrorKind::Overflow);
    assert!(
        e.message
            .starts_with("size 18446744073709551615 is more than the largest size"),
        "{e}"
    );
}

/// A padded convolution's dilation is in no solver constraint (the input
/// is `stride * output` wide): one past the limit is rejected with the op's
/// logic, as a zero one is, so that no solution holds it.
#[test]
fn padded_dilation_past_the_limit_is_rejected_with_the_logic() {
    let mut spec: EinsumSpec = "o=+2*k; k => o".parse().expect("spec");
    if let EinsumAxis::Affine {
        conv: Some(conv), ..
    } = &mut spec.rhs[0].output.end[0]
    {
        conv.dilation = IntOrIdent::Int(MAX_SIZE + 1);
    }
    let mut p = Problem::new();
    let x = p.shape_from_spec(&"4".parse().expect("spec"), true);
    let w = p.shape_from_spec(&"3".parse().expect("spec"), true);
    let r = p.shape_from_spec(&"4".parse().expect("spec"), false);
    let e = p
        .add_op(OpId(0), OpLogic::Einsum(&spec), &[x, w], r)
        .expect_err("dilation past the limit");
    assert_eq!(
        e.to_string(),
        "the dilation 9223372036854775808 of 'o' is more than the largest size 9223372036854775807"
    );
}

#[test]
fn rows_of_257_axes_of_size_1_infer() {
    for n in [257, 1000] {
        let ones = ones(n);
        // Pointwise, both sides.
        let s = solves(&format!(
            "arg x : {ones}
             y = neg(x) : ..r..
             z = add(x, y) : ..."
        ));
        assert_eq!(s["y"], ones);
        assert_eq!(s["z"], ones);
        // Broadcast: a 5 against the last of n ones.
        let s = solves(&format!(
            "arg x : {ones}
             arg b : 5
             y = add(x, b) : ..."
        ));
        assert_eq!(s["y"], format!("{},5", self::ones(n - 1)));
        // Einsum with row variables.
        let s = solves(&format!(
            "arg x : {ones}
             e = einsum[\"...,a => a,...\"](x) : ...
             f = einsum[\"..r.. => ..r..\"](e) : ..s.."
        ));
        assert_eq!(s["e"], ones);
        assert_eq!(s["f"], ones);
        // Batch, input and output rows at once; matmul and transpose.
        let s = solves(&format!(
            "arg w : {ones}->{ones}
             arg x : {ones}|{ones}
             y = matmul(w, x) : ...|...->...
             t = transpose(y) : ...|...->..."
        ));
        assert_eq!(s["y"], format!("{ones}|{ones}"));
        assert_eq!(s["t"], format!("{ones}|{ones}->"));
    }
}

/// A chain of einsums, each adding one axis: rows grow to as many axes as
/// the chain is long, with one axis written per op.
#[test]
fn a_chain_adding_one_axis_per_op_infers() {
    let n = 1000;
    let mut src = String::from("arg x0 : ...\n");
    for i in 1..=n {
        src.push_str(&format!(
            "x{i} = einsum[\"... => a,...\"](x{}) : ...\n",
            i - 1
        ));
    }
    let s = solves(&src);
    assert_eq!(s[&format!("x{n}")], ones(n));
}

/// An error past axis 65,535 names its axis (origins kept the axis in 16
/// bits and named every axis past it 65,535); the axis counts from the end
/// of the rows as the op wrote them, also after the last axes were paired
/// by a row constraint with a row variable (`Origin::offset`).
#[test]
fn errors_name_axes_past_65535() {
    let n = 70_000;
    let ones = ones(n);
    let e = error(&format!(
        "arg a : 2,{ones}
         arg b : 3,{ones}
         r = add(a, b) : ..."
    ));
    assert_eq!(e.kind, ShapeErrorKind::SizeMismatch, "{e}");
    assert!(
        e.to_string().contains("output axis 70001 (from the end)"),
        "{e}"
    );
    let e = error(&format!(
        "arg a : 2,{ones}
         arg b : ..v..,{ones}
         c = neg(b) : 3,{ones}
         r = add(a, b) : ..."
    ));
    assert!(e.to_string().contains("axis 70001 (from the end)"), "{e}");
}

/// The lit test `InferShapes/errors.mlir` (`@rank_cycle`) keeps its message.
#[test]
fn positive_cycles_are_rank_cycles() {
    let cycle = "arg x : ..u..,3
                 arg y : ..v..,3
                 a = neg(x) : ..v..
                 b = neg(y) : ..u..";
    let e = error(cycle);
    assert_eq!(e.kind, ShapeErrorKind::RankCycle);
    assert!(
        e.to_string().starts_with(
            "rank cycle: rows grow without bound (more than 256 axes): the inequalities form a cycle"
        ),
        "{e}"
    );
    // A large problem elsewhere does not delay the detection.
    let start = Instant::now();
    let e = error(&format!(
        "arg big : {}
         c = neg(big) : ...
         {cycle}",
        ones(1000)
    ));
    assert_eq!(e.kind, ShapeErrorKind::RankCycle);
    assert!(e.message.contains("more than 256 axes"), "{e}");
    // A cycle among rows of 1000 axes is still found.
    let e = error(&format!(
        "arg big : {}
         {cycle}
         c = add(a, big) : ...",
        ones(1000)
    ));
    assert_eq!(e.kind, ShapeErrorKind::RankCycle, "{e}");
    assert!(start.elapsed() < Duration::from_secs(30));
}
