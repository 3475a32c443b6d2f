//! Layouts: the order in which a tensor's axes lie in its buffer.
//!
//! A tensor's *canonical* layout is OCANNL's memory order (batch, output,
//! input rows, each in spec order). An op may store its result in another
//! order: its `ocannl.layout = array<i64: p0, p1, ...>` says that the
//! buffer's axis `j` is the canonical axis `p[j]` (a permutation). The
//! projections (`ocannl.indexing_maps`) stay canonical; every reader of the
//! projections (the planner, the fusion checks, the lowering) applies the
//! layouts of the op's operands and result ([`crate::projection_attrs`]),
//! and the lowering allocates the buffer in the permuted order
//! ([`crate::buffers::value_buffer`]). A constant with a layout is stored
//! permuted at compile time.
//!
//! `ocannl-plan-schedule` chooses layouts (`plan_schedule/layouts.rs`) and
//! keeps hand-written ones. Where a layout may stand is checked here
//! ([`check_uses`]): the producer computes a loop nest or a
//! concatenation, or is a constant; every reader computes a loop nest or a
//! concatenation (both read through their projections), and the value is
//! not a function result or a call's argument: those keep the canonical
//! layout, which is what the function's callers see.

use melior::ir::{
    Value,
    attribute::DenseI64ArrayAttribute,
    operation::{OperationLike, OperationRef, OperationResult},
};
use ocannl_dialect::{
    catalog::{self, Computes},
    ir,
};

/// The attribute that holds an op's result layout.
pub(crate) const LAYOUT: &str = "ocannl.layout";

/// The layout attribute of `op` (a permutation of `rank` axes); `Ok(None)`
/// when it has none or the identity.
///
/// # Errors
///
/// An attribute that is not an `array<i64>` permutation of `rank` axes.
pub(crate) fn of_op(op: OperationRef<'_, '_>, rank: usize) -> Result<Option<Vec<usize>>, String> {
    let Ok(attr) = op.attribute(LAYOUT) else {
        return Ok(None);
    };
    let bad =
        || format!("{LAYOUT} must be an array<i64: ...> permutation of the result's {rank} axes");
    let a = DenseI64ArrayAttribute::try_from(attr).map_err(|_| bad())?;
    if a.len() != rank {
        return Err(bad());
    }
    let mut perm = Vec::with_capacity(rank);
    let mut seen = vec![false; rank];
    for i in 0..rank {
        let p = a.element(i).map_err(|_| bad())?;
        let p = usize::try_from(p)
            .ok()
            .filter(|&p| p < rank)
            .ok_or_else(bad)?;
        if std::mem::replace(&mut seen[p], true) {
            return Err(bad());
        }
        perm.push(p);
    }
    Ok((!is_identity(&perm)).then_some(perm))
}

/// The layout of value `v` of `rank` axes: its producer's, or `None`
/// (canonical) for block arguments and ops without one. A malformed
/// attribute reads as canonical here; [`check_uses`] reports it.
pub(crate) fn of_value(v: Value<'_, '_>, rank: usize) -> Option<Vec<usize>> {
    let r = OperationResult::try_from(v).ok()?;
    if r.owner().result_count() != 1 {
        return None;
    }
    of_op(r.owner(), rank).ok().flatten()
}

/// Whether `perm` keeps every axis in place.
pub(crate) fn is_identity(perm: &[usize]) -> bool {
    perm.iter().enumerate().all(|(j, &p)| j == p)
}

/// `xs` in the order `perm` gives: `out[j] = xs[perm[j]]`.
pub(crate) fn permute<T: Clone>(xs: &[T], perm: &[usize]) -> Vec<T> {
    perm.iter().map(|&p| xs[p].clone()).collect()
}

/// The inverse of [`permute`]: `out[perm[j]] = xs[j]`.
pub(crate) fn unpermute<T: Clone>(xs: &[T], perm: &[usize]) -> Vec<T> {
    let mut out = xs.to_vec();
    for (j, &p) in perm.iter().enumerate() {
        out[p] = xs[j].clone();
    }
    out
}

/// Checks that the layout of `op`'s result (if any) stands where the
/// lowering can honour it: a single-result op computing a loop nest or a
/// dense constant, every user (`users`, the ops that read the result)
/// computing a loop nest (`return`, calls, reshapes, concatenations,
/// gathers read the canonical layout only).
///
/// # Errors
///
/// A malformed attribute, or a use that cannot read the layout.
pub(crate) fn check_uses(
    op: OperationRef<'_, '_>,
    rank: usize,
    users: &[OperationRef<'_, '_>],
) -> Result<(), String> {
    if op.attribute(LAYOUT).is_err() {
        return Ok(());
    }
    if op.result_count() != 1 {
        return Err(format!("{LAYOUT} stands on single-result ops only"));
    }
    if of_op(op, rank)?.is_none() {
        return Ok(());
    }
    if !may_carry(op) {
        return Err(format!(
            "{LAYOUT} stands only on ops that compute a loop nest or a concatenation and on constants"
        ));
    }
    match users_read_layouts(users) {
        Ok(()) => Ok(()),
        Err(user) => Err(format!(
            "its result has a {LAYOUT} but is read by '{user}', which reads tensors in their canonical layout only"
        )),
    }
}

/// Whether `op`'s result may have a layout: it computes a loop nest or a
/// concatenation's blocks, or is a constant (dense data is permuted when
/// compiling; a splat is the same in every layout).
pub(crate) fn may_carry(op: OperationRef<'_, '_>) -> bool {
    op.result_count() == 1
        && catalog::lookup(&ir::op_name(&op)).is_some_and(|d| {
            matches!(
                d.computes,
                Computes::Nest | Computes::Blocks | Computes::Constant
            )
        })
}

/// `Err(name)` of the first of `users` that does not read through
/// projections (a loop nest's or a concatenation's blocks).
pub(crate) fn users_read_layouts(users: &[OperationRef<'_, '_>]) -> Result<(), String> {
    for user in users {
        let name = ir::op_name(user);
        if catalog::lookup(&name)
            .is_none_or(|d| !matches!(d.computes, Computes::Nest | Computes::Blocks))
        {
            return Err(name);
        }
    }
    Ok(())
}

/// The cells (`elem_bytes` bytes each) of a row-major tensor of canonical
/// `dims`, laid out as `perm` says (row-major over the permuted dims).
pub(crate) fn permute_cells(
    bytes: &[u8],
    elem_bytes: usize,
    dims: &[u64],
    perm: &[usize],
) -> Vec<u8> {
    let rank = dims.len();
    let mut strides = vec![1usize; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * dims[i + 1] as usize;
    }
    let new_dims: Vec<usize> = perm.iter().map(|&p| dims[p] as usize).collect();
    let new_strides: Vec<usize> = perm.iter().map(|&p| strides[p]).collect();
    let mut out = Vec::with_capacity(bytes.len());
    if new_dims.contains(&0) {
        return out;
    }
    let mut idx = vec![0usize; rank];
    let mut src = 0usize;
    loop {
        out.extend_from_slice(&bytes[src * elem_bytes..(src + 1) * elem_bytes]);
        // The odometer over the new dims, the source offset kept in step.
        let mut j = rank;
        loop {
            if j == 0 {
                return out;
            }
            j -= 1;
            idx[j] += 1;
            src += new_strides[j];
            if idx[j] < new_dims[j] {
                break;
            }
            src -= new_strides[j] * idx[j];
            idx[j] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permute_and_back() {
        let xs = ["n", "c", "h", "w"];
        let p = [0, 2, 3, 1];
        assert_eq!(permute(&xs, &p), ["n", "h", "w", "c"]);
        assert_eq!(unpermute(&permute(&xs, &p), &p), xs);
        assert!(is_identity(&[0, 1, 2]));
        assert!(!is_identity(&p));
    }

    #[test]
    fn cells_follow_the_permutation() {
        // A 2x3 matrix transposed: [[0,1,2],[3,4,5]] -> [[0,3],[1,4],[2,5]].
        let bytes: Vec<u8> = (0..6).collect();
        assert_eq!(
            permute_cells(&bytes, 1, &[2, 3], &[1, 0]),
            [0, 3, 1, 4, 2, 5]
        );
        // Two-byte cells, NCHW 1x2x1x2 -> NHWC.
        let bytes: Vec<u8> = (0..8).collect();
        assert_eq!(
            permute_cells(&bytes, 2, &[1, 2, 1, 2], &[0, 2, 3, 1]),
            [0, 1, 4, 5, 2, 3, 6, 7]
        );
        assert_eq!(permute_cells(&bytes, 2, &[4], &[0]), bytes);
    }
}
