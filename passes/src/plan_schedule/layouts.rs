//! Layouts chosen for a function's intermediates (`ocannl.layout`,
//! [`crate::layout`]): the first phase of `ocannl-plan-schedule`, before
//! any nest is planned, so that the plans see the layouts.
//!
//! Two rules, in program order, from the projections only:
//!
//! - **Seed.** A contraction whose nest takes vector lanes along its
//!   result's contiguous axis poorly or not at all (a convolution in
//!   ONNX's NCHW: the width is read past its ends, or narrow: 7 cells in
//!   vectors of 4) gets a layout that puts another result iterator `v`
//!   last (the output channels: NHWC), when every operand then reads `v`
//!   on its contiguous axis or not at all. A dense constant read only by
//!   this op (a weight) is permuted at compile time to put `v` last too:
//!   the packed weights of oneDNN's and onnxruntime's NHWC/NCHWc
//!   convolutions, without a copy per call. The seed is taken only when
//!   the planner ([`super::choose`]) then finds lanes along `v` that use
//!   the vector unit clearly better ([`lanes_quality`]).
//! - **Propagation.** An op that reads an operand with a layout on the
//!   result's own iterators, axis for axis (pointwise ops, a batch norm's
//!   broadcast, pools, a reduction to 1), stores its result in the same
//!   layout, so that chains stay in it (onnxruntime's NCHWc transformer
//!   does the same for its pointwise ops and pools); so does a
//!   concatenation of parts that all have one layout.
//!
//! Function results, call arguments, reshapes, concatenations and gathers
//! read the canonical layout ([`layout::users_read_layouts`]): a seed whose
//! result they read gives them a copy in it (an identity `ocannl.einsum`
//! inserted after the seed), and propagation stops before them, so
//! reorders happen where a chain of nests ends. Hand-written layouts are
//! kept, and `layouts=false` (or a GPU target) chooses none.

use std::collections::HashMap;

use melior::{
    Context,
    ir::{
        BlockLike, BlockRef, Identifier, Value, ValueLike,
        attribute::{DenseI64ArrayAttribute, StringAttribute},
        operation::{OperationBuilder, OperationLike, OperationRef},
    },
};
use ocannl_dialect::{
    catalog::{self, Computes},
    ir,
    types::shape_spec,
};
use ocannl_shape::projection::{AxisIndex, Projections, memory_dims};

use super::{NestFacts, choose, target::Target};
use crate::{
    layout::{self, LAYOUT},
    projection_attrs::attach_maps,
    schedule::{
        epilogue::key,
        legal::parallel,
        memory::{contiguous, reads_along},
        plan::Lanes,
    },
};

/// Writes the layouts of `ops` (one function's body, in order).
pub(super) fn choose_layouts<'c, 'a>(
    ctx: &'c Context,
    target: &Target,
    block: BlockRef<'c, 'a>,
    ops: &[OperationRef<'c, 'a>],
) {
    if !target.layouts || !target.enabled || target.gpu_block.is_some() {
        return;
    }
    let mut users: Users<'c, 'a> = HashMap::new();
    for op in ops {
        for v in op.operands() {
            users.entry(key(v)).or_default().push(*op);
        }
    }
    for op in ops {
        let computes = catalog::lookup(&ir::op_name(op)).map(|d| d.computes);
        if op.result_count() != 1 || op.attribute(LAYOUT).is_ok() {
            continue;
        }
        if computes == Some(Computes::Blocks) {
            if let Some(perm) = concatenated(*op, &users) {
                set(ctx, *op, &perm);
            }
            continue;
        }
        if computes != Some(Computes::Nest) {
            continue;
        }
        let Ok(r) = op.result(0) else { continue };
        let r: Value<'c, 'a> = r.into();
        let uses = readers(&users, r).to_vec();
        let Some(facts) = NestFacts::of(*op) else {
            continue;
        };
        let all_read_layouts = layout::users_read_layouts(&uses).is_ok();
        if all_read_layouts
            && !uses.is_empty()
            && let Some(perm) = propagated(*op, &facts)
        {
            set(ctx, *op, &perm);
            follow_weights(ctx, target, *op, &users);
            continue;
        }
        let Some((perm, weights)) = seed(target, *op, &facts, &users) else {
            continue;
        };
        if !layout::is_identity(&perm) {
            if !all_read_layouts && !reorder(ctx, block, *op, r, &uses) {
                continue;
            }
            set(ctx, *op, &perm);
        }
        for (w, p) in weights {
            set(ctx, w, &p);
        }
    }
}

/// The readers of each value (by raw pointer).
type Users<'c, 'a> = HashMap<usize, Vec<OperationRef<'c, 'a>>>;

/// The ops that read `v`.
fn readers<'m, 'c, 'a>(users: &'m Users<'c, 'a>, v: Value<'c, 'a>) -> &'m [OperationRef<'c, 'a>] {
    users.get(&key(v)).map_or(&[][..], Vec::as_slice)
}

fn set<'c>(ctx: &'c Context, op: OperationRef<'c, '_>, perm: &[usize]) {
    let v: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
    ir::set_discardable_attribute(op, LAYOUT, DenseI64ArrayAttribute::new(ctx, &v).into());
}

/// Gives the readers of `r` that read canonical layouts only (`return`,
/// calls, reshapes...) a copy of it in the canonical layout: an identity
/// `ocannl.einsum` after `op`, with its projections. `false` (and nothing
/// changed) when `r`'s type has batch or input axes (the copy's spec would
/// have to name the rows; the seed is not worth it there).
fn reorder<'c, 'a>(
    ctx: &'c Context,
    block: BlockRef<'c, 'a>,
    op: OperationRef<'c, 'a>,
    r: Value<'c, 'a>,
    uses: &[OperationRef<'c, 'a>],
) -> bool {
    let Ok(Some(spec)) = shape_spec(r.r#type()) else {
        return false;
    };
    let Ok(dims) = memory_dims(&spec) else {
        return false;
    };
    if !spec.batch.is_empty_closed() || !spec.input.is_empty_closed() || dims.is_empty() {
        return false;
    }
    let labels: Vec<String> = (0..dims.len()).map(|i| format!("x{i}")).collect();
    let labels = labels.join(",");
    let copy = OperationBuilder::new("ocannl.einsum", op.location())
        .add_operands(&[r])
        .add_results(&[r.r#type()])
        .add_attributes(&[(
            Identifier::new(ctx, "spec"),
            StringAttribute::new(ctx, &format!("{labels} => {labels}")).into(),
        )])
        .build();
    let Ok(copy) = copy else {
        return false;
    };
    let copy = block.insert_operation_after(op, copy);
    let axes: Vec<AxisIndex> = (0..dims.len()).map(AxisIndex::Iter).collect();
    let p = Projections {
        product_space: dims.clone(),
        operands: vec![axes.clone()],
        result: axes,
        components: (0..dims.len()).map(|i| vec![i]).collect(),
    };
    attach_maps(ctx, copy, &p);
    let Ok(c) = copy.result(0) else {
        return false;
    };
    for user in uses {
        if layout::users_read_layouts(std::slice::from_ref(user)).is_err() {
            ir::replace_uses_of_with(*user, r, c.into());
        }
    }
    true
}

/// The layout of the first operand with one that the op reads on its
/// result's iterators, axis for axis.
fn propagated(op: OperationRef<'_, '_>, facts: &NestFacts<'_>) -> Option<Vec<usize>> {
    let p = &facts.p;
    op.operands().enumerate().find_map(|(k, v)| {
        let rank = facts.operand_dims.get(k)?.len();
        let perm = layout::of_value(v, rank)?;
        // The projections read with the layouts: back to canonical order.
        let canonical = layout::unpermute(&p.operands[k], &perm);
        (rank == p.result.len() && aligned(&canonical, &p.result)).then_some(perm)
    })
}

/// A concatenation's layout: its operands' when they all have the same one
/// and every reader of its result reads layouts (the blocks then copy
/// contiguous runs; a channel concatenation of NHWC parts stays NHWC).
fn concatenated(op: OperationRef<'_, '_>, users: &Users<'_, '_>) -> Option<Vec<usize>> {
    let r: Value<'_, '_> = op.result(0).ok()?.into();
    let uses = readers(users, r);
    if uses.is_empty() || layout::users_read_layouts(uses).is_err() {
        return None;
    }
    let rank = memory_dims(&shape_spec(r.r#type()).ok()??).ok()?.len();
    let mut perms = op.operands().map(|v| layout::of_value(v, rank));
    let first = perms.next()??;
    perms.all(|p| p.as_ref() == Some(&first)).then_some(first)
}

/// Whether operand indices `o` read, on each axis, the result's iterator
/// on that axis (plainly, shifted, strided or with a kernel offset), or a
/// fixed cell where the result is fixed too.
fn aligned(o: &[AxisIndex], result: &[AxisIndex]) -> bool {
    o.iter().zip(result).all(|(a, r)| match r {
        AxisIndex::Iter(i) => a.uses(*i),
        AxisIndex::Fixed(_) => matches!(a, AxisIndex::Fixed(_)),
        _ => false,
    })
}

/// A weight constant to permute, with its layout.
type Weights<'c, 'a> = Vec<(OperationRef<'c, 'a>, Vec<usize>)>;

/// The seed rule: the result's layout and the weights' when the op, a
/// contraction without result lanes, gets them by putting another result
/// iterator last.
fn seed<'c, 'a>(
    target: &Target,
    op: OperationRef<'c, 'a>,
    facts: &NestFacts<'c>,
    users: &Users<'c, 'a>,
) -> Option<(Vec<usize>, Weights<'c, 'a>)> {
    let p = &facts.p;
    let current = lanes_quality(target, p, &facts.dims, &facts.operand_dims, facts.bits);
    // A matrix-vector product (one parallel iterator: a Gemm at batch 1)
    // keeps its dot-product form: each weight row streams once, in order.
    // Permuted to put the outputs last, the weight was read 256 bytes from
    // each of its rows in turn (and packed per call): VGG-19's 411 MB
    // layer ran 1.7× slower.
    if p.reductions().is_empty() || current >= 0.75 || parallel(p).len() < 2 {
        return None;
    }
    let width = target.vector_bytes * 8 / u64::from(facts.bits.max(8));
    let mut candidates: Vec<usize> = parallel(p)
        .into_iter()
        .filter(|&v| p.product_space[v] >= width)
        .collect();
    // Whole vectors first, then the longest.
    candidates.sort_by_key(|&v| {
        let n = p.product_space[v];
        (!n.is_multiple_of(width), std::cmp::Reverse(n))
    });
    candidates.into_iter().find_map(|v| {
        let j = p.result.iter().position(|a| *a == AxisIndex::Iter(v))?;
        let perm = last(p.result.len(), j);
        let mut q = p.clone();
        q.result = layout::permute(&p.result, &perm);
        let dims = layout::permute(&facts.dims, &perm);
        let mut operand_dims = facts.operand_dims.clone();
        let weights = permuted_weights(op, &mut q, &mut operand_dims, v, users)?;
        let quality = lanes_quality(target, &q, &dims, &operand_dims, facts.bits);
        (quality >= 0.5 && quality >= 1.5 * current).then_some((perm, weights))
    })
}

/// The weight constants of `op` to permute so that every operand reads
/// iterator `v` on its contiguous axis or not at all, and the projections
/// `q` and dims `operand_dims` with them permuted; `None` when an operand
/// reads `v` otherwise and is no such constant.
fn permuted_weights<'c, 'a>(
    op: OperationRef<'c, 'a>,
    q: &mut Projections,
    operand_dims: &mut [Vec<u64>],
    v: usize,
    users: &Users<'c, 'a>,
) -> Option<Weights<'c, 'a>> {
    let mut weights = vec![];
    for (k, v_op) in op.operands().enumerate() {
        let (o, d) = (q.operands[k].clone(), operand_dims[k].clone());
        if reads_along(&o, &d, v).is_some() {
            continue;
        }
        let w = weight(v_op, users)?;
        let axis = o.iter().position(|a| *a == AxisIndex::Iter(v))?;
        if o.iter().filter(|a| a.uses(v)).count() != 1 {
            return None;
        }
        let wp = last(o.len(), axis);
        q.operands[k] = layout::permute(&o, &wp);
        operand_dims[k] = layout::permute(&d, &wp);
        weights.push((w, wp));
    }
    Some(weights)
}

/// After a contraction took its operand's layout: the weight constants
/// that read its new contiguous iterator off their contiguous axis,
/// permuted (a depthwise convolution after an NHWC one), when that gives
/// the nest lanes along its result.
fn follow_weights<'c, 'a>(
    ctx: &'c Context,
    target: &Target,
    op: OperationRef<'c, 'a>,
    users: &Users<'c, 'a>,
) {
    let Some(facts) = NestFacts::of(op) else {
        return;
    };
    let p = &facts.p;
    if p.reductions().is_empty()
        || lanes_quality(target, p, &facts.dims, &facts.operand_dims, facts.bits) > 0.0
    {
        return;
    }
    let Some(v) = contiguous(&p.result, &facts.dims) else {
        return;
    };
    let mut q = p.clone();
    let mut operand_dims = facts.operand_dims.clone();
    let Some(weights) = permuted_weights(op, &mut q, &mut operand_dims, v, users) else {
        return;
    };
    if lanes_quality(target, &q, &facts.dims, &operand_dims, facts.bits) > 0.0 {
        for (w, wp) in weights {
            set(ctx, w, &wp);
        }
    }
}

/// The permutation of `rank` axes that moves axis `j` last.
fn last(rank: usize, j: usize) -> Vec<usize> {
    (0..rank).filter(|&i| i != j).chain([j]).collect()
}

/// The producer of `v` when it is a dense constant without a layout, read
/// by one op only.
fn weight<'c, 'a>(v: Value<'c, 'a>, users: &Users<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let r = melior::ir::operation::OperationResult::try_from(v).ok()?;
    let w = r.owner();
    let only_reader = readers(users, v).len() == 1;
    let constant =
        catalog::lookup(&ir::op_name(&w)).is_some_and(|d| d.computes == Computes::Constant);
    (constant && only_reader && layout::may_carry(w) && w.attribute(LAYOUT).is_err()).then_some(w)
}

/// How well the planner's plan for the nest uses the vector unit: 0
/// without lanes along the result; else the share of the full vector
/// width its lanes take, times the share of its vector iterator covered
/// by whole vectors (a 7-wide row in vectors of 4: 1/4 × 4/7).
fn lanes_quality(
    target: &Target,
    p: &Projections,
    dims: &[u64],
    operand_dims: &[Vec<u64>],
    bits: u32,
) -> f64 {
    match choose::plan(target, p, dims, operand_dims, bits) {
        Some(plan) if plan.lanes == Lanes::Result => {
            let full = (target.vector_bytes * 8 / u64::from(bits.max(8))).max(1);
            let n = p.product_space[plan.vector].max(1);
            let covered = n / plan.width * plan.width;
            (plan.width as f64 / full as f64) * (covered as f64 / n as f64)
        }
        _ => 0.0,
    }
}
