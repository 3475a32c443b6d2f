//! MLIR's `Broadcastable` trait, for ocannl ops whose operands and results
//! are all builtin tensors.
//!
//! A line-by-line port of `OpTrait::impl::verifyCompatibleOperandBroadcast`
//! and its helpers (`OpTrait::util::getBroadcastedShape`,
//! `isCompatibleInferredReturnShape`, `getShapeString`) in llvm-project
//! `mlir/lib/Dialect/Traits.cpp`, so that `ocannl-verify` accepts and rejects
//! exactly what MLIR does, with the same wording. The prose of the trait is
//! `shared/reference/mlir-broadcastable-trait.zh.md`; where it and the
//! implementation disagree this module follows the implementation
//! (`shared/DESIGN.md`):
//! - only the trailing `inferred.len()` dims of a result are compared, so a
//!   result may have extra leading dims (`(3x2, 3x2) -> 4x3x2` is fine);
//! - an inferred `?` is compatible with any result dim, so `(?, ?) -> 4` is
//!   accepted.
//!
//! Algorithm ([`verify_compatible_operand_broadcast`]):
//! 1. Drop unranked operands; if none is left, every result is fine.
//! 2. Fold the ranked operand shapes from the left with
//!    [`broadcasted_shape`] (right-aligned, TensorFlow's rules for `?`); a
//!    pair of static sizes that differ and are both not 1 is an error.
//! 3. Drop unranked results. For each ranked result take its last
//!    `inferred.len()` dims (all of them when it has fewer) and require
//!    [`is_compatible_inferred_return_shape`]: the same number of dims, each
//!    pair equal or one of them `?`. The first failing result is the error.
//!
//! The functions are pure over `&[Dim]` so the algorithm does not depend on
//! MLIR; `verify.rs` reads the shapes of the types and reports the error at
//! the op.

/// One dimension of a ranked tensor: `Some(size)`, or `None` for a dynamic
/// size (`?`, MLIR's `ShapedType::kDynamic`).
pub type Dim = Option<u64>;

/// Why an op's builtin tensor types are not broadcast compatible. The text
/// is MLIR's; the caller prefixes it with `'<op name>' op ` as
/// `Operation::emitOpError` does.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BroadcastError {
    /// Two ranked operands have static sizes that differ and are both not 1
    /// at the same (right-aligned) position.
    #[error("operands don't have broadcast-compatible shapes")]
    Operands,
    /// A ranked result does not match the broadcast shape of the operands.
    #[error(
        "result type {} not broadcast compatible with broadcasted operands's shapes {}",
        shape_string(.result),
        shape_string(.inferred)
    )]
    Result {
        /// The whole shape of the offending result.
        result: Vec<Dim>,
        /// The broadcast shape of the ranked operands.
        inferred: Vec<Dim>,
    },
}

/// Verifies operand and result shapes as MLIR's
/// `OpTrait::impl::verifyCompatibleOperandBroadcast` does. Each entry is
/// the shape of a ranked tensor, or `None` for an unranked one.
pub fn verify_compatible_operand_broadcast(
    operands: &[Option<Vec<Dim>>],
    results: &[Option<Vec<Dim>>],
) -> Result<(), BroadcastError> {
    let mut ranked_operands = operands.iter().flatten();
    // If all operands are unranked, then all result shapes are possible.
    let Some(first) = ranked_operands.next() else {
        return Ok(());
    };
    // MLIR folds over all ranked operands, the first one included (a shape
    // broadcast with itself is itself).
    let mut inferred = first.clone();
    for other in std::iter::once(first).chain(ranked_operands) {
        inferred = broadcasted_shape(&inferred, other).ok_or(BroadcastError::Operands)?;
    }
    for result in results.iter().flatten() {
        // `ArrayRef::take_back(n)`: the whole shape when it has at most n dims.
        let suffix = &result[result.len().saturating_sub(inferred.len())..];
        if !is_compatible_inferred_return_shape(&inferred, suffix) {
            return Err(BroadcastError::Result {
                result: result.clone(),
                inferred,
            });
        }
    }
    Ok(())
}

/// The broadcast of two ranked shapes, `None` when they are incompatible:
/// MLIR's `OpTrait::util::getBroadcastedShape`.
///
/// Shapes are aligned on the right; the result has the rank of the longer
/// shape, and its leading dims are that shape's. For each aligned pair:
/// - both static: equal sizes or a 1 give the other size; otherwise the
///   shapes are incompatible;
/// - some `?` (TensorFlow's behaviour): a size greater than 1 wins (the
///   program is assumed correct); else if one is 1 the other is the result;
///   else the result is `?`.
pub fn broadcasted_shape(shape1: &[Dim], shape2: &[Dim]) -> Option<Vec<Dim>> {
    let mut result = if shape1.len() > shape2.len() {
        shape1.to_vec()
    } else {
        shape2.to_vec()
    };
    let greater_than_one = |d: Dim| d.is_some_and(|n| n > 1);
    for ((&d1, &d2), r) in shape1
        .iter()
        .rev()
        .zip(shape2.iter().rev())
        .zip(result.iter_mut().rev())
    {
        *r = match (d1, d2) {
            (Some(n1), Some(n2)) => {
                if n1 == n2 || n2 == 1 {
                    d1
                } else if n1 == 1 {
                    d2
                } else {
                    return None;
                }
            }
            _ if greater_than_one(d1) => d1,
            _ if greater_than_one(d2) => d2,
            (Some(1), _) => d2,
            (_, Some(1)) => d1,
            _ => None,
        };
    }
    Some(result)
}

/// Whether a result's (trailing) dims agree with the inferred shape: MLIR's
/// `isCompatibleInferredReturnShape`. The ranks must be equal; each pair of
/// dims must be equal unless one of them is `?`.
pub fn is_compatible_inferred_return_shape(inferred: &[Dim], existing: &[Dim]) -> bool {
    inferred.len() == existing.len()
        && inferred
            .iter()
            .zip(existing)
            .all(|(&i, &e)| i.is_none() || e.is_none() || i == e)
}

/// A shape as MLIR's `getShapeString` prints it: quoted, dims joined by
/// `x`, `?` for a dynamic dim, e.g. `'4x?x2'` (and `''` for a scalar).
pub fn shape_string(shape: &[Dim]) -> String {
    let mut s = String::from("'");
    for (i, d) in shape.iter().enumerate() {
        if i > 0 {
            s.push('x');
        }
        match d {
            Some(n) => s.push_str(&n.to_string()),
            None => s.push('?'),
        }
    }
    s.push('\'');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: Dim = None;

    fn s(d: &[u64]) -> Vec<Dim> {
        d.iter().map(|&n| Some(n)).collect()
    }

    #[test]
    fn broadcast_follows_mlir_and_tensorflow() {
        assert_eq!(
            broadcasted_shape(&s(&[3, 1]), &s(&[1, 4])),
            Some(s(&[3, 4]))
        );
        assert_eq!(
            broadcasted_shape(&s(&[4, 3, 2]), &s(&[2])),
            Some(s(&[4, 3, 2]))
        );
        assert_eq!(broadcasted_shape(&s(&[2]), &s(&[3])), None);
        // `?` against a size > 1 takes the size; against 1 or `?` stays `?`.
        assert_eq!(broadcasted_shape(&[Q], &s(&[4])), Some(s(&[4])));
        assert_eq!(broadcasted_shape(&[Q], &s(&[1])), Some(vec![Q]));
        assert_eq!(broadcasted_shape(&s(&[1]), &[Q]), Some(vec![Q]));
        assert_eq!(broadcasted_shape(&[Q], &[Q]), Some(vec![Q]));
    }

    #[test]
    fn results_are_checked_on_their_trailing_dims() {
        let ranked = |d: &[u64]| Some(s(d));
        assert_eq!(
            verify_compatible_operand_broadcast(&[None, None], &[ranked(&[7])]),
            Ok(())
        );
        // Extra leading result dims are fine (the implementation, not the prose).
        assert_eq!(
            verify_compatible_operand_broadcast(
                &[ranked(&[3, 2]), ranked(&[3, 2])],
                &[ranked(&[4, 3, 2])]
            ),
            Ok(())
        );
        assert_eq!(
            verify_compatible_operand_broadcast(&[Some(vec![Q]), Some(vec![Q])], &[ranked(&[4])]),
            Ok(())
        );
        assert_eq!(
            verify_compatible_operand_broadcast(&[ranked(&[2]), ranked(&[3])], &[]),
            Err(BroadcastError::Operands)
        );
        let err = verify_compatible_operand_broadcast(
            &[ranked(&[3, 1]), ranked(&[4])],
            &[ranked(&[3, 5])],
        )
        .expect_err("5 is not 4");
        assert_eq!(
            err.to_string(),
            "result type '3x5' not broadcast compatible with broadcasted operands's shapes '3x4'"
        );
    }

    #[test]
    fn shapes_print_as_mlir_does() {
        assert_eq!(shape_string(&[]), "''");
        assert_eq!(shape_string(&[Some(4), Q, Some(2)]), "'4x?x2'");
    }
}
