//! An independent checker of solved shapes: given the *concrete* shapes of
//! one op's operands and result, does the op's shape logic hold?
//!
//! It restates OCANNL's semantics directly on sizes, without variables and
//! without sharing code with [`crate::solver`] or [`crate::problem`] (only
//! the vocabulary of [`crate::logic`]: which logics there are and what data
//! they carry), so that tests can confirm a solution instead of trusting the
//! solver that produced it. Reference: `ocannl-shape-inference.md`, sections "Representing shapes
//! and constraints" (rows, labels), "Inference strategy" (the meaning of
//! `cur >= subr` on ground dims and rows) and "Deriving the constraints"
//! (`Shape.get_inequalities`).
//!
//! # Semantics
//!
//! A concrete shape has three closed rows of axes; an axis is a size with an
//! optional dimension label (`3`, `rgb=3`). Two axes *agree* when they have
//! the same size and, if both are labelled, the same label.
//!
//! * **Broadcasting** `cur >= subr` (rows): `cur` has at least as many axes
//!   as `subr`; aligned from the end, each `subr` axis agrees with the `cur`
//!   axis or is an unlabelled 1.
//! * **Equality** `r1 = r2` (rows): the same number of axes, pairwise in
//!   agreement.
//!
//! Per logic ([`CheckLogic`]: the shared vocabulary [`Logic`] with owned
//! data; only the names are shared, the meaning below is the checker's own),
//! mirroring `Shape.get_inequalities`:
//!
//! | logic | constraints |
//! |---|---|
//! | `PointwiseUn/Bin/Tern` | `result.K >= operand_i.K` for every row kind `K` |
//! | `Compose(a, b)` | `a.input >= b.output`; `result.batch >= a.batch`, `>= b.batch`; `result.input >= b.input`; `result.output >= a.output` |
//! | `ComposeAccumulate(a, b, c)` | `Compose(a, b)` and `result.K >= c.K` |
//! | `Transpose(a)` | `result.batch >= a.batch`; `result.input >= a.output`; `result.output >= a.input` |
//! | `Einsum(spec)` | each operand's rows equal its slot, the result's rows equal the `=>` slot (below) |
//! | `Block(spec)` | as `Einsum`; a concatenated axis `a^b` is the sum of its parts (below) |
//! | `BatchSlice { index }` | `a.batch = [s] ++ result.batch` with `s > index`; input and output rows equal |
//! | `Terminal { spec, elems, exact }` | `result = spec`; the product of all sizes is `elems`; the axes in memory order are `exact` |
//! | `Reshape(a)` | the products of all sizes of `result` and `a` are equal |
//!
//! **Einsum matching.** Slot `i` matches operand `i`, the last slot (`lhs`)
//! the result. A label stands for one axis everywhere in the spec: all its
//! occurrences agree (sizes equal, labels agree where present). `_` matches
//! any axis. A fixed index `i` matches an axis of size greater than `i`. A
//! row variable matches a sequence of axes, the same sequence everywhere:
//! `...` in a row of kind `K` is the spec's `K` row variable, `..name..` is
//! shared by name. Each row holds at most one row variable, so its length is
//! fixed by the concrete row: `len(row) - known axes`; the matching tries
//! exactly that length. A strided or convolution axis has the size the
//! reference's formulas give. In a block spec, a concatenated axis `a^b` has
//! the sum of its parts' sizes; a part seen only in concatenations is
//! deduced where it is the only unknown, and otherwise needs at least 1 (0
//! for a discardable part). Concatenated axes outside block specs are
//! reported as [`CheckError::Unsupported`].
//!
//! # Example
//!
//! ```
//! use ocannl_shape::check::{CheckLogic, check_op};
//! use ocannl_shape::spec::ShapeSpec;
//!
//! let a: ShapeSpec = "4->3".parse()?;
//! let x: ShapeSpec = "2|4".parse()?;
//! let y: ShapeSpec = "2|3".parse()?;
//! assert!(check_op(&CheckLogic::Compose, &[&a, &x], &y).is_ok());
//!
//! let bad: ShapeSpec = "2|5".parse()?;
//! let err = check_op(&CheckLogic::Compose, &[&a, &x], &bad).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "output axis 1 (from the end) of operand #0 is 3, which does not \
//!      broadcast to output axis 1 of the result, which is 5"
//! );
//! # Ok::<(), ocannl_shape::spec::SpecError>(())
//! ```

mod einsum;
mod error;

use crate::MAX_SIZE;
use crate::logic::Logic;
use crate::spec::{EinsumSpec, RowKind, RowVar, ShapeAxis, ShapeSpec};
use einsum::check_einsum;
pub use error::{Axis, AxisAt, CheckError, EinsumConflict, RowRef, Tensor};
use error::{kind_name, overflow};

/// The shape logic of one op as the checker takes it: the shared
/// [`Logic`] (the vocabulary the solver's problem builder uses too) with its
/// data owned. What each logic means is restated here, not shared.
pub type CheckLogic = Logic<ShapeSpec, EinsumSpec, Vec<u64>>;

/// The logic's name in errors.
fn logic_name(logic: &CheckLogic) -> &'static str {
    match logic {
        Logic::PointwiseUn => "pointwise unary",
        Logic::PointwiseBin => "pointwise binary",
        Logic::PointwiseTern => "pointwise ternary",
        Logic::Compose => "compose",
        Logic::ComposeAccumulate => "compose-accumulate",
        Logic::Transpose => "transpose",
        Logic::Einsum(_) => "einsum",
        Logic::Block(_) => "block",
        Logic::BatchSlice { .. } => "batch slice",
        Logic::Terminal { .. } => "terminal",
        Logic::Reshape => "reshape",
    }
}

/// A concrete shape: rows in kind order (batch, input, output).
struct Concrete {
    rows: [Vec<Axis>; 3],
}

impl Concrete {
    fn of(spec: &ShapeSpec, tensor: Tensor) -> Result<Self, CheckError> {
        let row = |kind: RowKind| -> Result<Vec<Axis>, CheckError> {
            let row = spec.row(kind);
            let not_concrete = |what: String| CheckError::NotConcrete {
                row: RowRef::new(tensor, kind),
                what,
            };
            if let Some(var) = &row.var {
                return Err(not_concrete(format!(
                    "row variable {}",
                    row_var_text(var, kind)
                )));
            }
            let len = row.len_known();
            row.axes()
                .enumerate()
                .map(|(i, axis)| match axis {
                    ShapeAxis::Size(size) | ShapeAxis::Labeled { size, .. } if *size > MAX_SIZE => {
                        Err(overflow(format!(
                            "{} has size {size}",
                            RowRef::new(tensor, kind).axis(len - i)
                        )))
                    }
                    ShapeAxis::Size(size) => Ok(Axis {
                        size: *size,
                        label: None,
                    }),
                    ShapeAxis::Labeled { label, size } => Ok(Axis {
                        size: *size,
                        label: Some(label.clone()),
                    }),
                    ShapeAxis::Var(name) => Err(not_concrete(format!("dimension variable {name}"))),
                    ShapeAxis::Fresh => Err(not_concrete("`_`".into())),
                })
                .collect()
        };
        Ok(Concrete {
            rows: [
                row(RowKind::Batch)?,
                row(RowKind::Input)?,
                row(RowKind::Output)?,
            ],
        })
    }

    fn row(&self, kind: RowKind) -> &[Axis] {
        &self.rows[kind_index(kind)]
    }

    /// The number of elements, when it is at most [`MAX_SIZE`]; otherwise
    /// an overflow error about `what`.
    fn elems(&self, what: &str) -> Result<u64, CheckError> {
        let sizes = || self.rows.iter().flatten().map(|axis| axis.size);
        if sizes().any(|d| d == 0) {
            return Ok(0);
        }
        let product = sizes().try_fold(1u128, |acc, d| acc.checked_mul(u128::from(d)));
        match product.and_then(|p| u64::try_from(p).ok()) {
            Some(p) if p <= MAX_SIZE => Ok(p),
            _ => Err(overflow(format!(
                "{what} has {} elements",
                product.map_or_else(|| "more than 2^128".to_owned(), |p| p.to_string())
            ))),
        }
    }
}

fn kind_index(kind: RowKind) -> usize {
    match kind {
        RowKind::Batch => 0,
        RowKind::Input => 1,
        RowKind::Output => 2,
    }
}

fn row_var_text(var: &RowVar, kind: RowKind) -> String {
    match var {
        RowVar::Anonymous => format!("... (of the {} rows)", kind_name(kind)),
        RowVar::Named(name) => format!("..{name}.."),
    }
}

/// Checks that the concrete shapes `operands` and `result` satisfy the
/// constraints of `logic` (see the [module docs](self) for the semantics).
///
/// # Errors
///
/// The first violated constraint, naming its rows and axis; or
/// [`CheckError::NotConcrete`] when a shape has variables,
/// [`CheckError::Arity`] for a wrong operand count, and
/// [`CheckError::Unsupported`] for affine or concatenated einsum axes.
pub fn check_op(
    logic: &CheckLogic,
    operands: &[&ShapeSpec],
    result: &ShapeSpec,
) -> Result<(), CheckError> {
    let expected = logic.arity(|spec| spec.rhs.len());
    if operands.len() != expected {
        return Err(CheckError::Arity {
            logic: logic_name(logic),
            expected,
            got: operands.len(),
        });
    }
    let res = Concrete::of(result, Tensor::Result)?;
    let ops = operands
        .iter()
        .enumerate()
        .map(|(i, spec)| Concrete::of(spec, Tensor::Operand(i)))
        .collect::<Result<Vec<_>, _>>()?;
    match logic {
        Logic::PointwiseUn
        | Logic::PointwiseBin
        | Logic::PointwiseTern
        | Logic::Compose
        | Logic::ComposeAccumulate
        | Logic::Transpose => check_broadcasts(logic, &ops, &res),
        Logic::Einsum(spec) => check_einsum(spec, &ops, &res, false),
        Logic::Block(spec) => check_einsum(spec, &ops, &res, true),
        Logic::BatchSlice { index } => check_batch_slice(*index, &ops[0], &res),
        Logic::Terminal { spec, elems, exact } => {
            check_terminal(spec.as_ref(), *elems, exact.as_deref(), &res)
        }
        Logic::Reshape => check_reshape(&ops[0], &res),
    }
}

/// Pointwise, compose and transpose logics: their broadcasts (the table of
/// the [module docs](self)).
fn check_broadcasts(
    logic: &CheckLogic,
    ops: &[Concrete],
    res: &Concrete,
) -> Result<(), CheckError> {
    use RowKind::{Batch, Input, Output};
    let r = |kind| side(res, Tensor::Result, kind);
    let o = |i: usize, kind| side(&ops[i], Tensor::Operand(i), kind);
    match logic {
        Logic::Compose | Logic::ComposeAccumulate => {
            broadcasts(o(0, Input), o(1, Output))?;
            broadcasts(r(Batch), o(0, Batch))?;
            broadcasts(r(Batch), o(1, Batch))?;
            broadcasts(r(Input), o(1, Input))?;
            broadcasts(r(Output), o(0, Output))?;
            if ops.len() == 3 {
                for kind in RowKind::ALL {
                    broadcasts(r(kind), o(2, kind))?;
                }
            }
        }
        Logic::Transpose => {
            broadcasts(r(Batch), o(0, Batch))?;
            broadcasts(r(Input), o(0, Output))?;
            broadcasts(r(Output), o(0, Input))?;
        }
        _ => {
            for i in 0..ops.len() {
                for kind in RowKind::ALL {
                    broadcasts(r(kind), o(i, kind))?;
                }
            }
        }
    }
    Ok(())
}

/// `a.batch = [s] ++ result.batch` with `s > index`; input and output rows
/// equal.
fn check_batch_slice(index: u64, a: &Concrete, res: &Concrete) -> Result<(), CheckError> {
    use RowKind::{Batch, Input, Output};
    let r = |kind| side(res, Tensor::Result, kind);
    let o = |kind| side(a, Tensor::Operand(0), kind);
    let (operand_batch, result_batch) = (a.row(Batch), res.row(Batch));
    let Some((sliced, rest)) = operand_batch
        .split_first()
        .filter(|(_, rest)| rest.len() == result_batch.len())
    else {
        return Err(CheckError::SliceRank {
            operand_len: operand_batch.len(),
            result_len: result_batch.len(),
        });
    };
    if sliced.size <= index {
        return Err(CheckError::SliceIndex {
            index,
            size: sliced.size,
        });
    }
    let rest = Side {
        row: RowRef::new(Tensor::Operand(0), Batch),
        axes: rest,
    };
    equal(rest, r(Batch))?;
    equal(o(Input), r(Input))?;
    equal(o(Output), r(Output))
}

/// `result = spec`; the product of all sizes is `elems`; the axes in memory
/// order are `exact`.
fn check_terminal(
    spec: Option<&ShapeSpec>,
    elems: Option<u64>,
    exact: Option<&[u64]>,
    res: &Concrete,
) -> Result<(), CheckError> {
    use RowKind::{Batch, Input, Output};
    if let Some(too_large) = exact.into_iter().flatten().find(|&&d| d > MAX_SIZE) {
        return Err(overflow(format!(
            "the data has an axis of size {too_large}"
        )));
    }
    if let Some(expected) = elems.filter(|&n| n > MAX_SIZE) {
        return Err(overflow(format!(
            "the terminal's element count is {expected}"
        )));
    }
    if let Some(expected) = exact {
        let got: Vec<u64> = [Batch, Output, Input]
            .iter()
            .flat_map(|k| res.row(*k).iter().map(|a| a.size))
            .collect();
        if got != expected {
            return Err(CheckError::Exact {
                expected: expected.to_vec(),
                got,
            });
        }
    }
    if let Some(spec) = spec {
        let attr = Concrete::of(spec, Tensor::Attribute)?;
        for kind in RowKind::ALL {
            equal(
                side(res, Tensor::Result, kind),
                side(&attr, Tensor::Attribute, kind),
            )?;
        }
    }
    if let Some(expected) = elems {
        let got = res.elems("the result")?;
        if got != expected {
            return Err(CheckError::Elements {
                expected,
                got: got.into(),
            });
        }
    }
    Ok(())
}

/// The products of all sizes of the result and the operand `a` are equal.
fn check_reshape(a: &Concrete, res: &Concrete) -> Result<(), CheckError> {
    let (operand, result) = (a.elems("operand #0")?, res.elems("the result")?);
    if operand != result {
        return Err(CheckError::Reshape {
            operand: operand.into(),
            result: result.into(),
        });
    }
    Ok(())
}

/// A row of a concrete shape, with where it is from.
#[derive(Clone, Copy)]
struct Side<'a> {
    row: RowRef,
    axes: &'a [Axis],
}

fn side(shape: &Concrete, tensor: Tensor, kind: RowKind) -> Side<'_> {
    Side {
        row: RowRef::new(tensor, kind),
        axes: shape.row(kind),
    }
}

/// `cur >= subr`: `subr` broadcasts to `cur`.
fn broadcasts(cur: Side<'_>, subr: Side<'_>) -> Result<(), CheckError> {
    if cur.axes.len() < subr.axes.len() {
        return Err(CheckError::TooFewAxes {
            cur: cur.row,
            subr: subr.row,
            cur_len: cur.axes.len(),
            subr_len: subr.axes.len(),
        });
    }
    let pairs = cur.axes.iter().rev().zip(subr.axes.iter().rev());
    for (axis, (c, s)) in (1..).zip(pairs) {
        if !s.broadcasts_to(c) {
            return Err(CheckError::NoBroadcast {
                cur: cur.row,
                subr: subr.row,
                axis,
                cur_axis: c.clone(),
                subr_axis: s.clone(),
            });
        }
    }
    Ok(())
}

/// `lhs = rhs` for rows.
fn equal(lhs: Side<'_>, rhs: Side<'_>) -> Result<(), CheckError> {
    if lhs.axes.len() != rhs.axes.len() {
        return Err(CheckError::RankMismatch {
            lhs: lhs.row,
            rhs: rhs.row,
            lhs_len: lhs.axes.len(),
            rhs_len: rhs.axes.len(),
        });
    }
    let pairs = lhs.axes.iter().rev().zip(rhs.axes.iter().rev());
    for (axis, (l, r)) in (1..).zip(pairs) {
        if !l.agrees(r) {
            return Err(CheckError::AxisMismatch {
                lhs: lhs.row,
                rhs: rhs.row,
                axis,
                lhs_axis: l.clone(),
                rhs_axis: r.clone(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
