//! Fusion groups as data: a producer and the pointwise ops folded into it
//! ([`Chain`]), and the epilogue its nest applies to each final value
//! before storing it ([`Step`], [`Other`]); and which ops can be a step
//! ([`unary`], [`binary`]) of which producers ([`producer`]). The planner
//! (`ocannl-plan-schedule`) chooses the groups and marks each step's
//! schedule `epilogue`; the lowering rebuilds the groups from the marks,
//! checking each step here, gives their values buffers, and the emitters
//! apply the epilogues.
//!
//! A chain step is a unary op (`relu`, `exp`, ...) or a binary op whose
//! other operand is computed before the producer (a bias, a residual), on
//! the cells of the value before it, of its layout.

use std::collections::HashMap;

use melior::ir::{
    Type, Value, ValueLike,
    operation::{OperationLike, OperationRef},
};
use ocannl_dialect::{
    catalog::{self, ShapeLogic},
    ir,
};
use ocannl_shape::projection::AxisIndex;

use super::memory::{contiguous, reads_along};
use crate::{
    buffers::value_buffer,
    compute::{Compute, scalar_function},
    projection_attrs::read_projections,
};

/// The identity of an SSA value (its raw pointer).
pub(crate) fn key(v: Value<'_, '_>) -> usize {
    v.to_raw().ptr as usize
}

/// One fused consumer: its function and, for a binary op, its other
/// operand.
#[derive(Clone)]
pub(crate) struct Step<'c, 'a> {
    pub f: Compute,
    pub other: Option<Other<'c, 'a>>,
}

/// The other operand of a fused binary op.
#[derive(Clone)]
pub(crate) struct Other<'c, 'a> {
    /// The operand: the old SSA value in a [`Chain`], its buffer once the
    /// function's values have buffers.
    pub value: Value<'c, 'a>,
    /// Its indices over the fused value's axes (`Iter(j)` is axis `j`).
    pub indices: Vec<AxisIndex>,
    /// It is the op's first operand (`sub(b, x)`).
    pub first: bool,
    /// It reads the fused value's contiguous axis (on its own contiguous
    /// axis): vector lanes along that axis load a vector of it.
    pub along: bool,
}

/// A producer and the pointwise ops folded into it.
pub(crate) struct Chain<'c, 'a> {
    pub producer: OperationRef<'c, 'a>,
    /// The folded ops' functions, in order.
    pub epilogue: Vec<Step<'c, 'a>>,
    /// The chain's last value: what the producer's nest now computes.
    pub last: Value<'c, 'a>,
    /// The values in between (the producer's result included): no buffer.
    pub hidden: Vec<Value<'c, 'a>>,
    pub folded: Vec<OperationRef<'c, 'a>>,
}

/// The op's function when it is a unary pointwise op of the catalog.
pub(crate) fn unary(op: &OperationRef<'_, '_>) -> Option<Compute> {
    let def = catalog::lookup(&ir::op_name(op))?;
    if def.logic != ShapeLogic::PointwiseUn || op.operand_count() != 1 || op.result_count() != 1 {
        return None;
    }
    match scalar_function(*op, def, 1).ok()? {
        f @ Compute::Unary(_) => Some(f),
        _ => None,
    }
}

/// The step of `op` when it is a binary pointwise op reading `v` (of
/// memory dims `dims`) on the cells of its result and `available` holds
/// for its other operand.
pub(crate) fn binary<'c, 'a>(
    op: &OperationRef<'c, 'a>,
    v: Value<'c, 'a>,
    dims: &[u64],
    available: impl Fn(Value<'c, 'a>) -> bool,
) -> Option<Step<'c, 'a>> {
    let def = catalog::lookup(&ir::op_name(op))?;
    // An einsum of two operands without a reduction (the importer's
    // per-channel bias `n,m,h,w; m => n,m,h,w`) is a binary pointwise op
    // too: checked on its projections below.
    let einsum = def.logic == ShapeLogic::Einsum;
    if !(def.logic == ShapeLogic::PointwiseBin || einsum)
        || def.computes != catalog::Computes::Nest
        || def.init_operand.is_some()
        || op.operand_count() != 2
        || op.result_count() != 1
    {
        return None;
    }
    let f @ Compute::Binary(_) = scalar_function(*op, def, 2).ok()? else {
        return None;
    };
    let k = (0..2).find(|&k| op.operand(k).is_ok_and(|o| key(o) == key(v)))?;
    let other = op.operand(1 - k).ok()?;
    if key(other) == key(v) || !available(other) {
        return None;
    }
    let (other_dims, other_elem) = layout(other)?;
    if Some(other_elem) != layout(v).map(|l| l.1) {
        return None;
    }
    let operand_dims = if k == 0 {
        vec![dims.to_vec(), other_dims.clone()]
    } else {
        vec![other_dims.clone(), dims.to_vec()]
    };
    let p = read_projections(*op, &operand_dims, dims).ok()??;
    // The fused value is read on the result's cells.
    if p.operands[k] != p.result || (einsum && !p.reductions().is_empty()) {
        return None;
    }
    let mut axis_of = HashMap::new();
    for (j, a) in p.result.iter().enumerate() {
        match a {
            AxisIndex::Iter(i) => {
                axis_of.insert(*i, j);
            }
            AxisIndex::Fixed(0) => {}
            _ => return None,
        }
    }
    let indices = p.operands[1 - k]
        .iter()
        .map(|a| match a {
            AxisIndex::Iter(i) => axis_of.get(i).map(|&j| AxisIndex::Iter(j)),
            AxisIndex::Fixed(c) => Some(AxisIndex::Fixed(*c)),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let axes: Vec<AxisIndex> = (0..dims.len()).map(AxisIndex::Iter).collect();
    let along = match contiguous(&axes, dims) {
        Some(c) => reads_along(&indices, &other_dims, c)?,
        None => false,
    };
    Some(Step {
        f,
        other: Some(Other {
            value: other,
            indices,
            first: k == 1,
            along,
        }),
    })
}

/// Whether the op's nest can take an epilogue: an ocannl op with one
/// result computed by a loop nest (not a terminal or a concatenation).
pub(crate) fn producer(op: &OperationRef<'_, '_>) -> bool {
    let name = ir::op_name(op);
    catalog::lookup(&name)
        .is_some_and(|def| def.computes == catalog::Computes::Nest && op.result_count() == 1)
}

/// The memory dims and element type of a value's buffer.
pub(crate) fn layout<'c>(v: Value<'c, '_>) -> Option<(Vec<u64>, Type<'c>)> {
    let (mty, dims, _) = value_buffer(v, "value").ok()?;
    Some((dims, ir::shaped_element(mty)?))
}
