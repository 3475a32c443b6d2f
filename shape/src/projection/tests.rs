//! Data-driven projection tests: `check(logic, operands, result, expected)`
//! where the expectation renders the product space and each tensor's axis
//! indices in memory order (`iN` an iterator, a number a fixed position).

use super::*;
use crate::problem::OpLogic;
use crate::spec::{EinsumAxis, IntOrIdent, parse_einsum_spec, parse_shape_spec};

fn axes(v: &[AxisIndex]) -> String {
    v.iter()
        .map(|a| match a {
            AxisIndex::Concat(parts) => parts
                .iter()
                .map(|i| format!("i{i}"))
                .collect::<Vec<_>>()
                .join("^"),
            AxisIndex::Iter(i) => format!("i{i}"),
            AxisIndex::Fixed(f) => f.to_string(),
            AxisIndex::Affine(a) => {
                let mut parts: Vec<String> = [a.over, a.kernel]
                    .into_iter()
                    .flatten()
                    .map(|(i, c)| format!("{c}*i{i}"))
                    .collect();
                if a.offset != 0 || parts.is_empty() {
                    parts.push(a.offset.to_string());
                }
                parts.join("+")
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn render(p: &Projections) -> String {
    let space: Vec<String> = p.product_space.iter().map(u64::to_string).collect();
    let ops: Vec<String> = p
        .operands
        .iter()
        .map(|o| format!("[{}]", axes(o)))
        .collect();
    format!(
        "space [{}]; operands {}; result [{}]",
        space.join(","),
        ops.join(" "),
        axes(&p.result)
    )
}

#[track_caller]
fn check(logic: OpLogic<'_>, operands: &[&str], result: &str, expected: &str) {
    let ops: Vec<ShapeSpec> = operands
        .iter()
        .map(|s| parse_shape_spec(s).expect("operand spec"))
        .collect();
    let refs: Vec<&ShapeSpec> = ops.iter().collect();
    let res = parse_shape_spec(result).expect("result spec");
    let actual = match infer_projections(logic, &refs, &res) {
        Ok(p) => render(&p),
        Err(e) => format!("error: {e}"),
    };
    assert_eq!(actual, expected);
}

fn einsum(spec: &str) -> crate::spec::EinsumSpec {
    parse_einsum_spec(spec).expect("einsum spec")
}

#[test]
fn pointwise_with_broadcast() {
    // Memory order: batch, output, input. The operand's size-1 axis and its
    // missing leading axis are broadcast.
    check(
        OpLogic::PointwiseBin,
        &["2,3", "1,3"],
        "2,3",
        "space [2,3]; operands [i0,i1] [0,i1]; result [i0,i1]",
    );
    check(
        OpLogic::PointwiseBin,
        &["2|4->3", "3"],
        "2|4->3",
        "space [2,3,4]; operands [i0,i1,i2] [i1]; result [i0,i1,i2]",
    );
    check(
        OpLogic::PointwiseUn,
        &["5"],
        "4",
        "error: size 5 does not broadcast to size 4",
    );
}

#[test]
fn matmul_contracts_inputs_with_outputs() {
    // w: 3->4 (memory [4][3]), x: b=2 | 3 (memory [2][3]); result 2|4.
    check(
        OpLogic::Compose,
        &["3->4", "2|3"],
        "2|4",
        "space [2,4,3]; operands [i1,i2] [i0,i2]; result [i0,i1]",
    );
}

#[test]
fn transpose_swaps_rows() {
    check(
        OpLogic::Transpose,
        &["2|3->4"],
        "2|4->3",
        "space [2,3,4]; operands [i0,i2,i1]; result [i0,i1,i2]",
    );
}

#[test]
fn einsum_permute_reduce_outer_diagonal_fixed() {
    let permute = einsum("b|i->o => o|b->i");
    check(
        OpLogic::Einsum(&permute),
        &["2|3->4"],
        "4|2->3",
        "space [4,3,2]; operands [i2,i0,i1]; result [i0,i1,i2]",
    );
    let reduce = einsum("i,j => i");
    check(
        OpLogic::Einsum(&reduce),
        &["2,3"],
        "2",
        "space [2,3]; operands [i0,i1]; result [i0]",
    );
    let outer = einsum("i; j => i,j");
    check(
        OpLogic::Einsum(&outer),
        &["2", "3"],
        "2,3",
        "space [2,3]; operands [i0] [i1]; result [i0,i1]",
    );
    let diagonal = einsum("i => i,i");
    check(
        OpLogic::Einsum(&diagonal),
        &["3"],
        "3,3",
        "space [3]; operands [i0]; result [i0,i0]",
    );
    let fixed = einsum("i => i,0");
    check(
        OpLogic::Einsum(&fixed),
        &["3"],
        "3,2",
        "space [3]; operands [i0]; result [i0,0]",
    );
    let rows = einsum("...|i->o => ...|o->i");
    check(
        OpLogic::Einsum(&rows),
        &["5,6|2->3"],
        "5,6|3->2",
        "space [5,6,2,3]; operands [i0,i1,i3,i2]; result [i0,i1,i2,i3]",
    );
    check(
        OpLogic::Einsum(&reduce),
        &["2,3,4"],
        "2",
        "error: einsum: a spec row of 2 axes does not fit a row of 3 axes",
    );
}

#[test]
fn batch_slice_fixes_the_leading_batch_axis() {
    check(
        OpLogic::BatchSlice { index: 2 },
        &["8,4|3->2"],
        "4|3->2",
        "space [4,2,3]; operands [2,i0,i1,i2]; result [i0,i1,i2]",
    );
}

#[test]
fn terminals_iterate_the_result_and_reshape_has_none() {
    check(
        OpLogic::Terminal {
            spec: None,
            elems: None,
            exact: None,
        },
        &[],
        "2,3",
        "space [2,3]; operands ; result [i0,i1]",
    );
    check(
        OpLogic::Reshape,
        &["6"],
        "2,3",
        "error: reshape has no projections: it copies in memory order",
    );
    check(
        OpLogic::PointwiseUn,
        &["n"],
        "3",
        "error: the operand #0 shape is not concrete: projections need solved shapes",
    );
}

/// Strided and convolution axes index their input through the output and
/// kernel iterators; a padded convolution shifts by half the dilated
/// kernel's extent (the cells before 0 and past the end are padding).
#[test]
fn convolutions() {
    let spec = parse_einsum_spec("o<+k; k => o").unwrap();
    check(
        OpLogic::Einsum(&spec),
        &["8", "3"],
        "6",
        "space [6,3]; operands [1*i0+1*i1] [i1]; result [i0]",
    );
    let spec = parse_einsum_spec("2*o=+2*k; k => o").unwrap();
    check(
        OpLogic::Einsum(&spec),
        &["8", "3"],
        "4",
        "space [4,3]; operands [2*i0+2*i1+-2] [i1]; result [i0]",
    );
    let spec = parse_einsum_spec("2*o+1 => o").unwrap();
    check(
        OpLogic::Einsum(&spec),
        &["6"],
        "3",
        "space [3]; operands [2*i0+1]; result [i0]",
    );
    let spec = parse_einsum_spec("b|2*h<+i,2*w<+j,c; i,j => b|h,w,c").unwrap();
    check(
        OpLogic::Einsum(&spec),
        &["2|9,9,3", "3,3"],
        "2|4,4,3",
        "space [2,4,4,3,3,3]; operands [i0,2*i1+1*i4,2*i2+1*i5,i3] [i4,i5]; result [i0,i1,i2,i3]",
    );
    let spec = parse_einsum_spec("o => 2*o").unwrap();
    check(
        OpLogic::Einsum(&spec),
        &["3"],
        "6",
        "error: strided or convolution axes in the result have no projections",
    );
}

fn block(spec: &str) -> crate::spec::EinsumSpec {
    crate::spec::parse_block_spec(spec).expect("block spec")
}

/// The blocks of a concatenation: the active iterators, then each operand's
/// resolved indices (`-` when it takes no part) and the result's.
fn render_blocks(logic: OpLogic<'_>, operands: &[&str], result: &str) -> String {
    let ops: Vec<ShapeSpec> = operands
        .iter()
        .map(|s| parse_shape_spec(s).expect("operand spec"))
        .collect();
    let refs: Vec<&ShapeSpec> = ops.iter().collect();
    let res = parse_shape_spec(result).expect("result spec");
    let p = match infer_projections(logic, &refs, &res) {
        Ok(p) => p,
        Err(e) => return format!("error: {e}"),
    };
    let comps: Vec<String> = p
        .components
        .iter()
        .map(|c| {
            c.iter()
                .map(|i| format!("i{i}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let mut out = format!("{}; components [{}]", render(&p), comps.join("] ["));
    match p.blocks() {
        Err(e) => out.push_str(&format!("\nerror: {e}")),
        Ok(blocks) => {
            for b in blocks {
                let ops: Vec<String> = (0..p.operands.len())
                    .map(|o| {
                        if o == b.operand {
                            format!("[{}]", axes(&b.indices))
                        } else {
                            "-".into()
                        }
                    })
                    .collect();
                let its: Vec<String> = b.iterators.iter().map(|i| format!("i{i}")).collect();
                out.push_str(&format!(
                    "\n{{{}}}: {} => [{}]",
                    its.join(","),
                    ops.join(" "),
                    axes(&b.result)
                ));
            }
        }
    }
    out
}

/// "Projections inference", "Concatenation": the parts of a concatenated
/// axis are iterators of one component, looped in sequence; each block
/// resolves the concatenation to the active part plus an offset.
#[test]
fn concatenation() {
    let spec = block("a; b => a^b");
    assert_eq!(
        render_blocks(OpLogic::Block(&spec), &["2", "3"], "5"),
        "space [2,3]; operands [i0] [i1]; result [i0^i1]; components [i0 i1]
{i0}: [i0] - => [i0]
{i1}: - [i1] => [1*i1+2]"
    );
    // Three operands along an input axis, with a batch axis.
    let spec = block("n|a->o; n|b->o; n|c->o => n|a^b^c->o");
    assert_eq!(
        render_blocks(OpLogic::Block(&spec), &["4|1->3", "4|2->3", "4|3->3"], "4|6->3"),
        "space [4,3,1,2,3]; operands [i0,i1,i2] [i0,i1,i3] [i0,i1,i4]; result [i0,i1,i2^i3^i4]; components [i0] [i1] [i2 i3 i4]
{i0,i1,i2}: [i0,i1,i2] - - => [i0,i1,i2]
{i0,i1,i3}: - [i0,i1,i3] - => [i0,i1,1*i3+1]
{i0,i1,i4}: - - [i0,i1,i4] => [i0,i1,1*i4+3]"
    );
    // Slicing: the part `b` (size 2, from the result) writes nothing.
    let spec = block("a^b => a");
    assert_eq!(
        render_blocks(OpLogic::Block(&spec), &["5"], "3"),
        "space [3,2]; operands [i0^i1]; result [i0]; components [i0 i1]
{i0}: [i0] => [i0]"
    );
    let spec = block("a^b => b");
    assert_eq!(
        render_blocks(OpLogic::Block(&spec), &["5"], "2"),
        "space [2,3]; operands [i1^i0]; result [i0]; components [i0 i1]
{i0}: [1*i0+3] => [i0]"
    );
    // The discardable part is 0 when the result is the whole axis.
    let spec = block("a^b => a");
    assert_eq!(
        render_blocks(OpLogic::Block(&spec), &["5"], "5"),
        "space [5,0]; operands [i0^i1]; result [i0]; components [i0 i1]
{i0}: [i0] => [i0]"
    );
    // Stacking: each operand writes its own part (size 1).
    let spec = block("...; ... => s^t, ...");
    assert_eq!(
        render_blocks(OpLogic::Block(&spec), &["3", "3"], "2,3"),
        "space [1,1,3]; operands [i2] [i2]; result [i0^i1,i2]; components [i0 i1] [i2]
{i0,i2}: [i2] - => [i0,i2]
{i1,i2}: - [i2] => [1*i1+1,i2]"
    );
    // Embedding: the new part is never written.
    let spec = block("a => a^b");
    assert_eq!(
        render_blocks(OpLogic::Block(&spec), &["3"], "7"),
        "space [3,4]; operands [i0]; result [i0^i1]; components [i0 i1]
{i0}: [i0] => [i0]"
    );
    // A block diagonal: off-diagonal blocks have no operand.
    let spec = block("a,b; c,d => a^c,b^d");
    assert_eq!(
        render_blocks(OpLogic::Block(&spec), &["2,2", "3,1"], "5,3"),
        "space [2,3,2,1]; operands [i0,i2] [i1,i3]; result [i0^i1,i2^i3]; components [i0 i1] [i2 i3]
{i0,i2}: [i0,i2] - => [i0,i2]
{i1,i3}: - [i1,i3] => [1*i1+2,1*i3+2]"
    );
    // Two operands writing the same cells.
    let spec = block("a; a => a");
    assert_eq!(
        render_blocks(OpLogic::Block(&spec), &["3", "3"], "3"),
        "space [3]; operands [i0] [i0]; result [i0]; components [i0]
error: operands #0 and #1 would both write the same cells of the result (ambiguous concatenation)"
    );
    // A part used again in the same tensor is active only where the
    // concatenation reads it: the tensor would take part in no block.
    for (spec, operand, result, label) in [
        ("a^b,b => a", "5,3", "2", "b"),
        ("a^b,a => a", "5,2", "2", "a"),
        ("a^b => a^b,b", "5", "5,2", "b"),
        ("a^b,b^c => a", "5,4", "2", "b"),
        ("a^b,2*b => a", "5,6", "2", "b"),
    ] {
        let spec = block(spec);
        let out = render_blocks(OpLogic::Block(&spec), &[operand], result);
        assert!(
            out.contains(&format!(
                "the label '{label}' is a part of the concatenation"
            )),
            "{out}"
        );
    }
    // The parts must add up.
    let spec = block("a; b => a^b");
    assert_eq!(
        render_blocks(OpLogic::Block(&spec), &["2", "3"], "6"),
        "error: block: the concatenated axis 'a^b' has size 6, but its parts sum to 5"
    );
}

/// A padded convolution reads up to `stride * (o - 1) + dilation * (k - 1)`
/// minus the left padding: with a dilation of 2^62 and an input of 2^62 + 1
/// that is 2^63, past `i64` (MLIR's index arithmetic): an overflow error,
/// not a wrapped index. One less is the largest index there is.
#[test]
fn index_ranges_past_i64_are_overflow_errors() {
    let spec = parse_einsum_spec("o=+4611686018427387904*k; k => o").unwrap();
    check(
        OpLogic::Einsum(&spec),
        &["4611686018427387905", "3"],
        "4611686018427387905",
        "error: size overflow: the strided or convolution index of operand #0 (axis 0 in memory order) reaches 9223372036854775808, outside the 64-bit index range",
    );
    check(
        OpLogic::Einsum(&spec),
        &["4611686018427387904", "3"],
        "4611686018427387904",
        "space [4611686018427387904,3]; operands [1*i0+4611686018427387904*i1+-4611686018427387904] [i1]; result [i0]",
    );
    let ops = [
        parse_shape_spec("4611686018427387904").unwrap(),
        parse_shape_spec("3").unwrap(),
    ];
    let p = infer_projections(
        OpLogic::Einsum(&spec),
        &[&ops[0], &ops[1]],
        &parse_shape_spec("4611686018427387904").unwrap(),
    )
    .unwrap();
    assert_eq!(
        p.operands[0][0].checked_range(&p.product_space),
        Some((-(1 << 62), i64::MAX))
    );
}

/// Values built without the parser (as a caller may) past `MAX_SIZE`.
#[test]
fn sizes_and_spec_values_past_the_limit_are_overflow_errors() {
    let huge = ShapeSpec {
        output: Row::closed(vec![ShapeAxis::Size(u64::MAX)]),
        ..ShapeSpec::default()
    };
    let three = parse_shape_spec("3").unwrap();
    let err = |r: Result<Projections, ProjectionError>| r.unwrap_err().to_string();
    assert_eq!(
        err(infer_projections(OpLogic::PointwiseUn, &[&huge], &three)),
        "size overflow: the operand #0 shape has an axis of size 18446744073709551615, more than the largest size 9223372036854775807"
    );
    assert_eq!(
        memory_dims(&huge).unwrap_err().to_string(),
        "size overflow: the tensor shape has an axis of size 18446744073709551615, more than the largest size 9223372036854775807"
    );
    let mut fixed = einsum("0 => ");
    fixed.rhs[0].output.end[0] = EinsumAxis::Fixed(u64::MAX);
    assert_eq!(
        err(infer_projections(
            OpLogic::Einsum(&fixed),
            &[&three],
            &ShapeSpec::default()
        )),
        "size overflow: the fixed index 18446744073709551615 is more than the largest size 9223372036854775807"
    );
    let mut strided = einsum("2*o => o");
    if let EinsumAxis::Affine { stride, .. } = &mut strided.rhs[0].output.end[0] {
        *stride = IntOrIdent::Int(u64::MAX);
    }
    assert_eq!(
        err(infer_projections(
            OpLogic::Einsum(&strided),
            &[&three],
            &three
        )),
        "size overflow: the stride 18446744073709551615 is more than the largest size 9223372036854775807"
    );
    let batch = parse_shape_spec("4|3").unwrap();
    assert_eq!(
        err(infer_projections(
            OpLogic::BatchSlice { index: u64::MAX },
            &[&batch],
            &three
        )),
        "size overflow: the batch slice index 18446744073709551615 is more than the largest size 9223372036854775807"
    );
}

#[test]
fn cell_count_is_checked() {
    assert_eq!(cell_count(&[]), Some(1));
    assert_eq!(cell_count(&[2, 3, 4]), Some(24));
    assert_eq!(cell_count(&[MAX_SIZE]), Some(MAX_SIZE));
    assert_eq!(cell_count(&[MAX_SIZE, 1, 1]), Some(MAX_SIZE));
    assert_eq!(
        cell_count(&[1 << 31, 1 << 32]),
        None,
        "2^63 is one past the limit"
    );
    assert_eq!(cell_count(&[1 << 31, 1 << 31]), Some(1 << 62));
    assert_eq!(cell_count(&[100_000, 100_000, 100_000, 100_000]), None);
    assert_eq!(cell_count(&[MAX_SIZE + 1]), None);
    assert_eq!(
        cell_count(&[u64::MAX, 0]),
        None,
        "a dimension past the limit"
    );
    assert_eq!(cell_count(&[1 << 62, 1 << 62, 0]), Some(0));
}

/// Hand-built indices (as the lowering reads them back from attributes):
/// `range` never panics or wraps, `checked_range` tells when it clamps.
#[test]
fn hand_built_ranges_clamp_and_checked_range_tells() {
    let space = [u64::MAX, u64::MAX, 0];
    let affine = AxisIndex::Affine(AffineIndex {
        over: Some((0, u64::MAX)),
        kernel: Some((1, u64::MAX)),
        offset: i64::MAX,
    });
    assert_eq!(affine.range(&space), (i64::MAX, i64::MAX));
    assert_eq!(affine.checked_range(&space), None);
    let below = AxisIndex::Affine(AffineIndex {
        over: None,
        kernel: None,
        offset: i64::MIN,
    });
    assert_eq!(below.checked_range(&space), Some((i64::MIN, i64::MIN)));
    assert_eq!(AxisIndex::Iter(0).checked_range(&space), None);
    assert_eq!(AxisIndex::Iter(0).range(&space), (0, i64::MAX));
    assert_eq!(AxisIndex::Iter(2).checked_range(&space), Some((0, -1)));
    assert_eq!(AxisIndex::Fixed(u64::MAX).checked_range(&space), None);
    assert_eq!(AxisIndex::Concat(vec![0, 1]).checked_range(&space), None);
    assert_eq!(AxisIndex::Concat(vec![0, 1]).range(&space), (0, i64::MAX));
}

/// A hand-built concatenation whose parts pass `i64` before the active
/// one: an overflow error from `blocks`, not a wrapped offset.
#[test]
fn blocks_of_hand_built_projections_do_not_wrap() {
    let p = Projections {
        product_space: vec![u64::MAX, 1],
        operands: vec![vec![AxisIndex::Iter(0)], vec![AxisIndex::Iter(1)]],
        result: vec![AxisIndex::Concat(vec![0, 1])],
        components: vec![vec![0, 1]],
    };
    assert_eq!(
        p.blocks().unwrap_err().to_string(),
        "size overflow: the parts of a concatenated axis before its part #1 have 18446744073709551615 cells, more than the largest size 9223372036854775807"
    );
}

/// The sweep agrees with comparing every pair.
#[test]
fn overlap_sweep_matches_pairs() {
    let pairs = |boxes: &[Vec<(i64, i64)>]| {
        (0..boxes.len()).any(|x| {
            (x + 1..boxes.len()).any(|y| {
                boxes[x]
                    .iter()
                    .zip(&boxes[y])
                    .all(|(a, b)| a.0 <= b.1 && b.0 <= a.1)
            })
        })
    };
    // A small deterministic generator (no dependency): boxes of rank
    // 0..=3 with coordinates in 0..6.
    let mut seed = 0x9e37_79b9_u64;
    let mut next = |m: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        i64::try_from(seed % m).expect("small")
    };
    for _ in 0..5000 {
        let rank = usize::try_from(next(4)).expect("small");
        let count = usize::try_from(next(6)).expect("small");
        let boxes: Vec<Vec<(i64, i64)>> = (0..count)
            .map(|_| {
                (0..rank)
                    .map(|_| {
                        let lo = next(6);
                        (lo, lo + next(3))
                    })
                    .collect()
            })
            .collect();
        assert_eq!(any_overlap(&boxes), pairs(&boxes), "{boxes:?}");
    }
    // A concatenation along the last axis: disjoint neighbours.
    let row: Vec<Vec<(i64, i64)>> = (0..1000)
        .map(|k| vec![(0, 1), (2 * k, 2 * k + 1)])
        .collect();
    assert!(!any_overlap(&row));
}
/// The quadratic algorithm `blocks()` had before it was made linear, kept
/// as the reference: every operand resolved in every block, `None` for
/// those taking no part.
fn reference_blocks(p: &Projections) -> Result<Vec<Block>, ProjectionError> {
    let n = p.operands.len();
    let concats: Vec<&Vec<usize>> = p
        .result
        .iter()
        .filter_map(|a| match a {
            AxisIndex::Concat(parts) => Some(parts),
            _ => None,
        })
        .collect();
    let per_operand = match concats.as_slice() {
        [parts] if parts.len() == n => Some(*parts),
        _ => None,
    };
    let resolve1 = |a: &AxisIndex, active: &[bool]| -> Result<Option<AxisIndex>, ProjectionError> {
        match a {
            AxisIndex::Concat(parts) => {
                let Some(k) = parts.iter().position(|&q| active[q]) else {
                    return Ok(None);
                };
                let offset: u128 = parts[..k]
                    .iter()
                    .map(|&q| u128::from(p.product_space[q]))
                    .sum();
                let offset = i64::try_from(offset)
                    .map_err(|_| ProjectionError::Overflow(format!("part #{k}")))?;
                Ok(Some(if offset == 0 {
                    AxisIndex::Iter(parts[k])
                } else {
                    AxisIndex::Affine(AffineIndex {
                        over: Some((parts[k], 1)),
                        kernel: None,
                        offset,
                    })
                }))
            }
            other => Ok((0..active.len())
                .all(|i| active[i] || !other.uses(i))
                .then(|| other.clone())),
        }
    };
    let mut blocks = Vec::new();
    let mut choice = vec![0usize; p.components.len()];
    loop {
        let mut active = vec![false; p.product_space.len()];
        for (c, &k) in p.components.iter().zip(&choice) {
            active[c[k]] = true;
        }
        let empty = (0..active.len()).any(|i| active[i] && p.product_space[i] == 0);
        let resolve = |indices: &[AxisIndex]| -> Result<Option<Vec<AxisIndex>>, ProjectionError> {
            let mut out = Vec::new();
            for a in indices {
                match resolve1(a, &active)? {
                    Some(x) => out.push(x),
                    None => return Ok(None),
                }
            }
            Ok(Some(out))
        };
        if !empty && let Some(result) = resolve(&p.result)? {
            let operands: Vec<Option<Vec<AxisIndex>>> = (0..n)
                .map(|i| {
                    if per_operand.is_some_and(|parts| !active[parts[i]]) {
                        return Ok(None);
                    }
                    resolve(&p.operands[i])
                })
                .collect::<Result<_, ProjectionError>>()?;
            let taking: Vec<usize> = (0..n).filter(|&i| operands[i].is_some()).collect();
            if taking.len() > 1 {
                return Err(ProjectionError::Mismatch(format!(
                    "operands #{} and #{} would both write the same cells of the result (ambiguous concatenation)",
                    taking[0], taking[1]
                )));
            }
            if let [operand] = taking[..] {
                blocks.push(Block {
                    iterators: (0..active.len()).filter(|&i| active[i]).collect(),
                    operand,
                    indices: operands[operand].clone().expect("taking part"),
                    result,
                });
            }
        }
        let mut c = 0;
        loop {
            if c == choice.len() {
                return Ok(blocks);
            }
            choice[c] += 1;
            if choice[c] < p.components[c].len() {
                break;
            }
            choice[c] = 0;
            c += 1;
        }
    }
}

/// Hand-built projections with concatenated axes: iterators partitioned
/// into components, the result and each operand indexing iterators,
/// constants or whole components as concatenations.
fn arb_concat_projections() -> impl proptest::strategy::Strategy<Value = Projections> {
    use proptest::prelude::*;
    (
        proptest::collection::vec(0u64..4, 1..7),
        proptest::collection::vec(any::<u32>(), 8),
        proptest::collection::vec(proptest::collection::vec((0u8..4, any::<u8>()), 0..4), 1..6),
    )
        .prop_map(|(space, cuts, tensors)| {
            // Components: consecutive runs of iterators.
            let mut components: Vec<Vec<usize>> = vec![];
            for i in 0..space.len() {
                if i == 0 || cuts[i % cuts.len()] % 3 == 0 {
                    components.push(vec![i]);
                } else {
                    components.last_mut().expect("one").push(i);
                }
            }
            let index = |(kind, pick): (u8, u8)| {
                let pick = usize::from(pick);
                match kind {
                    0 => AxisIndex::Fixed(pick as u64 % 2),
                    1 | 2 => AxisIndex::Iter(pick % space.len()),
                    _ => AxisIndex::Concat(components[pick % components.len()].clone()),
                }
            };
            let mut all: Vec<Vec<AxisIndex>> = tensors
                .into_iter()
                .map(|t| t.into_iter().map(index).collect())
                .collect();
            let result = all.pop().expect("at least one tensor");
            Projections {
                product_space: space,
                operands: all,
                result,
                components,
            }
        })
}

proptest::proptest! {
    /// The linear `blocks()` gives what the quadratic reference gives: the
    /// same blocks, or the same kind of error.
    #[test]
    fn blocks_match_the_reference(p in arb_concat_projections()) {
        match (p.blocks(), reference_blocks(&p)) {
            (Ok(a), Ok(b)) => proptest::prop_assert_eq!(a, b),
            (Err(ProjectionError::Mismatch(a)), Err(ProjectionError::Mismatch(b))) => {
                proptest::prop_assert_eq!(a, b)
            }
            (a, b) => proptest::prop_assert!(false, "{a:?} vs {b:?}"),
        }
    }
}
