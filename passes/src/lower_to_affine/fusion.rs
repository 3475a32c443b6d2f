//! Fusion of pointwise consumers into their producer: a chain of pointwise
//! ops, each the only reader of the value before it, on the same cells, is
//! computed in the producer's nest as an epilogue on each final value
//! before it is stored: no buffer for the values in between, one pass over
//! memory instead of one per op. A chain step is a unary op (`relu`,
//! `exp`, ...) or a binary op whose other operand is computed before the
//! producer (a bias, a residual): `add(matmul, b)` then `relu` is one nest.
//! A contraction's epilogue runs once per result cell, after its
//! reduction.

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

use super::{
    buffers::buffer_type,
    compute::{Compute, scalar_function},
    fused::{Chain, Other, Step},
    key,
    projections::{contiguous, projections_for, reads_along},
};

/// The op's function when it is a unary pointwise op of the catalog.
fn unary(op: &OperationRef<'_, '_>) -> Option<Compute> {
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
fn binary<'c, 'a>(
    op: &OperationRef<'c, 'a>,
    v: Value<'c, 'a>,
    dims: &[u64],
    available: impl Fn(Value<'c, 'a>) -> bool,
) -> Option<Step<'c, 'a>> {
    let def = catalog::lookup(&ir::op_name(op))?;
    if def.logic != ShapeLogic::PointwiseBin
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
    let p = projections_for(*op, &operand_dims, dims).ok()?;
    // The fused value is read on the result's cells.
    if p.operands[k] != p.result {
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
fn producer(op: &OperationRef<'_, '_>) -> bool {
    let name = ir::op_name(op);
    catalog::lookup(&name)
        .is_some_and(|def| def.computes == catalog::Computes::Nest && op.result_count() == 1)
}

/// The memory dims and element type of a value's buffer.
fn layout<'c>(v: Value<'c, '_>) -> Option<(Vec<u64>, Type<'c>)> {
    let (mty, dims, _) = buffer_type(v.r#type(), "value").ok()?;
    Some((dims, ir::shaped_element(mty)?))
}

/// The chains among `ops` (one function body, in order; `returned` are its
/// results, which always keep their buffers).
pub(super) fn chains<'c, 'a>(
    ops: &[OperationRef<'c, 'a>],
    returned: &[Value<'c, 'a>],
) -> Vec<Chain<'c, 'a>> {
    let mut users: HashMap<usize, Vec<OperationRef<'c, 'a>>> = HashMap::new();
    // Where each op result is defined (function arguments are not).
    let mut defined: HashMap<usize, usize> = HashMap::new();
    for (n, op) in ops.iter().enumerate() {
        for v in op.operands() {
            users.entry(key(v)).or_default().push(*op);
        }
        for r in op.results() {
            defined.insert(key(r.into()), n);
        }
    }
    let mut folded_ops: Vec<usize> = vec![];
    let mut out = vec![];
    for (n, op) in ops.iter().enumerate() {
        if folded_ops.contains(&(op.to_raw().ptr as usize)) || !producer(op) {
            continue;
        }
        let Ok(first) = op.result(0) else { continue };
        let mut v: Value<'c, 'a> = first.into();
        let Some(shape) = layout(v) else { continue };
        let mut chain = Chain {
            producer: *op,
            epilogue: vec![],
            last: v,
            hidden: vec![],
            folded: vec![],
        };
        // A binary step's other operand is read where the producer runs:
        // it must be computed before.
        let available = |o: Value<'c, 'a>| defined.get(&key(o)).is_none_or(|&d| d < n);
        loop {
            if returned.iter().any(|r| key(*r) == key(v)) {
                break;
            }
            let Some([user]) = users.get(&key(v)).map(Vec::as_slice) else {
                break;
            };
            let step = match unary(user) {
                Some(f) => Step { f, other: None },
                None => match binary(user, v, &shape.0, available) {
                    Some(s) => s,
                    None => break,
                },
            };
            let Ok(next) = user.result(0) else { break };
            let next: Value<'c, 'a> = next.into();
            if layout(next).as_ref() != Some(&shape) {
                break;
            }
            chain.hidden.push(v);
            chain.epilogue.push(step);
            chain.folded.push(*user);
            folded_ops.push(user.to_raw().ptr as usize);
            v = next;
            chain.last = v;
        }
        if !chain.epilogue.is_empty() {
            out.push(chain);
        }
    }
    out
}
