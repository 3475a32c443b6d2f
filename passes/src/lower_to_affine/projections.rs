//! An op's projections as the lowering reads them (the attributes of
//! `ocannl-infer-projections`, checked against the buffers, or computed
//! from the shapes), and what their indices say about memory: whether a
//! store covers a box once ([`plain_box`]), which iterator runs along an
//! axis's contiguous cells ([`contiguous`], [`reads_along`]).

use melior::ir::{Value, operation::OperationRef};
use ocannl_shape::projection::{AffineIndex, AxisIndex, Projections};

use super::buffers::buffer_dims;
use crate::{infer_projections::projections, projection_attrs::read_projections};

/// The op's projections: from the attributes of `ocannl-infer-projections`
/// when present (checked against the buffers), else computed.
pub(super) fn op_projections(
    op: OperationRef<'_, '_>,
    operands: &[Value<'_, '_>],
    dims: &[u64],
) -> Result<Projections, String> {
    let operand_dims: Vec<Vec<u64>> = operands.iter().map(|o| buffer_dims(*o)).collect();
    projections_for(op, &operand_dims, dims)
}

/// The op's projections for operands and a result of these memory dims.
pub(super) fn projections_for(
    op: OperationRef<'_, '_>,
    operand_dims: &[Vec<u64>],
    dims: &[u64],
) -> Result<Projections, String> {
    match read_projections(op, operand_dims, dims)? {
        Some(p) => Ok(p),
        None => projections(op)?.ok_or_else(|| "has no projections".to_owned()),
    }
}

/// Whether `indices` write each cell of an axis box once and cover it: per
/// axis its own iterator (possibly shifted by a constant), or a fixed 0 on a
/// size-1 axis.
pub(super) fn plain_box(indices: &[AxisIndex], dims: &[u64]) -> bool {
    let mut seen = vec![];
    indices.iter().zip(dims).all(|(a, &d)| match a {
        AxisIndex::Iter(i)
        | AxisIndex::Affine(AffineIndex {
            over: Some((i, 1)),
            kernel: None,
            ..
        }) if !seen.contains(i) => {
            seen.push(*i);
            true
        }
        AxisIndex::Fixed(0) => d == 1,
        _ => false,
    })
}

/// The iterator of the last axis of `indices` whose size (in `dims`) is
/// not 1, when that axis is a plain iterator: the contiguous one.
pub(super) fn contiguous(indices: &[AxisIndex], dims: &[u64]) -> Option<usize> {
    let last = indices.iter().zip(dims).rposition(|(_, &d)| d != 1)?;
    match indices[last] {
        AxisIndex::Iter(i) => Some(i),
        _ => None,
    }
}

/// How an operand reads iterator `v`: `Some(true)` on its contiguous axis
/// only, `Some(false)` not at all, `None` otherwise.
pub(super) fn reads_along(indices: &[AxisIndex], dims: &[u64], v: usize) -> Option<bool> {
    let uses = indices.iter().filter(|a| a.uses(v)).count();
    match uses {
        0 => Some(false),
        1 if contiguous(indices, dims) == Some(v) => Some(true),
        _ => None,
    }
}
