//! What an op's projection indices say about memory: whether a store
//! covers a box once ([`plain_box`]), which iterator runs along an axis's
//! contiguous cells ([`contiguous`], [`reads_along`]). Shared by the
//! planner and the lowering.

use ocannl_shape::projection::{AffineIndex, AxisIndex};

/// Whether `indices` write each cell of an axis box once and cover it: per
/// axis its own iterator (possibly shifted by a constant), or a fixed 0 on a
/// size-1 axis.
pub(crate) fn plain_box(indices: &[AxisIndex], dims: &[u64]) -> bool {
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
pub(crate) fn contiguous(indices: &[AxisIndex], dims: &[u64]) -> Option<usize> {
    let last = indices.iter().zip(dims).rposition(|(_, &d)| d != 1)?;
    match indices[last] {
        AxisIndex::Iter(i) => Some(i),
        _ => None,
    }
}

/// How an operand reads iterator `v`: `Some(true)` on its contiguous axis
/// only, `Some(false)` not at all, `None` otherwise.
pub(crate) fn reads_along(indices: &[AxisIndex], dims: &[u64], v: usize) -> Option<bool> {
    let uses = indices.iter().filter(|a| a.uses(v)).count();
    match uses {
        0 => Some(false),
        1 if contiguous(indices, dims) == Some(v) => Some(true),
        _ => None,
    }
}
