//! An independent checker of solved shapes: given the *concrete* shapes of
//! one op's operands and result, does the op's shape logic hold?
//!
//! It restates OCANNL's semantics directly on sizes, without variables and
//! without sharing code with [`crate::solver`] or [`crate::problem`], so that
//! tests can confirm a solution instead of trusting the solver that produced
//! it. Reference: `ocannl-shape-inference.md`, sections "Representing shapes
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
//! Per [`CheckLogic`] (mirroring `Shape.get_inequalities`):
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

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use crate::spec::{
    EinsumAxis, EinsumSpec, IntOrIdent, Padding, Row, RowKind, RowVar, ShapeAxis, ShapeSpec,
    SlotSpec,
};

/// The shape logic of one op, as the checker needs it: an owned mirror of
/// [`crate::problem::OpLogic`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckLogic {
    /// One operand broadcasts to the result.
    PointwiseUn,
    /// Two operands broadcast to the result.
    PointwiseBin,
    /// Three operands broadcast to the result.
    PointwiseTern,
    /// The outputs of operand 1 feed the inputs of operand 0.
    Compose,
    /// `Compose` of operands 0 and 1, plus operand 2 broadcast to the result.
    ComposeAccumulate,
    /// Input and output rows swap.
    Transpose,
    /// Rows equal the spec's slots (OCANNL's Permute/Einsum).
    Einsum(EinsumSpec),
    /// OCANNL's Block: `Einsum` with concatenated axes `a^b`, whose size is
    /// the sum of their parts (discardable parts may be 0).
    Block(EinsumSpec),
    /// The leftmost batch axis of the operand is indexed at `index`.
    BatchSlice {
        /// The position taken.
        index: u64,
    },
    /// A terminal (no operands).
    Terminal {
        /// A concrete shape the result must equal.
        spec: Option<ShapeSpec>,
        /// The number of elements the result must have.
        elems: Option<u64>,
        /// The axes the result must have in memory order (batch, output,
        /// input), when the data has a shape (`Exact`).
        exact: Option<Vec<u64>>,
    },
    /// As many elements as the operand.
    Reshape,
}

impl CheckLogic {
    fn name(&self) -> &'static str {
        match self {
            CheckLogic::PointwiseUn => "pointwise unary",
            CheckLogic::PointwiseBin => "pointwise binary",
            CheckLogic::PointwiseTern => "pointwise ternary",
            CheckLogic::Compose => "compose",
            CheckLogic::ComposeAccumulate => "compose-accumulate",
            CheckLogic::Transpose => "transpose",
            CheckLogic::Einsum(_) => "einsum",
            CheckLogic::Block(_) => "block",
            CheckLogic::BatchSlice { .. } => "batch slice",
            CheckLogic::Terminal { .. } => "terminal",
            CheckLogic::Reshape => "reshape",
        }
    }
}

/// Which tensor of the op a row belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tensor {
    /// The op's result.
    Result,
    /// Operand `i` (0-based).
    Operand(usize),
    /// The `spec` of a [`CheckLogic::Terminal`].
    Attribute,
}

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tensor::Result => write!(f, "the result"),
            Tensor::Operand(i) => write!(f, "operand #{i}"),
            Tensor::Attribute => write!(f, "the attribute spec"),
        }
    }
}

/// One row of one tensor of the op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RowRef {
    /// The tensor.
    pub tensor: Tensor,
    /// The row kind.
    pub kind: RowKind,
}

impl RowRef {
    fn new(tensor: Tensor, kind: RowKind) -> Self {
        RowRef { tensor, kind }
    }

    /// `output row of operand #1`.
    fn row(self) -> String {
        format!("{} row of {}", kind_name(self.kind), self.tensor)
    }

    /// `output axis 2 (from the end) of operand #1`.
    fn axis(self, axis: usize) -> String {
        format!(
            "{} axis {axis} (from the end) of {}",
            kind_name(self.kind),
            self.tensor
        )
    }

    /// `output axis 2 of operand #1`, after [`RowRef::axis`] said "from the end".
    fn axis_short(self, axis: usize) -> String {
        format!("{} axis {axis} of {}", kind_name(self.kind), self.tensor)
    }
}

impl fmt::Display for RowRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.row())
    }
}

fn kind_name(kind: RowKind) -> &'static str {
    match kind {
        RowKind::Batch => "batch",
        RowKind::Input => "input",
        RowKind::Output => "output",
    }
}

/// A concrete axis: a size with an optional dimension label.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Axis {
    /// The size.
    pub size: u64,
    /// The dimension label (`rgb` in `rgb=3`).
    pub label: Option<String>,
}

impl Axis {
    /// Same size, and the same label where both have one.
    fn agrees(&self, other: &Axis) -> bool {
        self.size == other.size
            && match (&self.label, &other.label) {
                (Some(l1), Some(l2)) => l1 == l2,
                _ => true,
            }
    }

    /// `cur >= subr` for ground dims, with `self` as `subr`: equal, or an
    /// unlabelled 1.
    fn broadcasts_to(&self, cur: &Axis) -> bool {
        (self.size == 1 && self.label.is_none()) || self.agrees(cur)
    }
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.label {
            Some(label) => write!(f, "{label}={}", self.size),
            None => write!(f, "{}", self.size),
        }
    }
}

/// Where an axis of an einsum match was seen: a row and an axis counted
/// from the end (1 = last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AxisAt {
    /// The row.
    pub row: RowRef,
    /// The axis, counted from the end of the row (1 = last).
    pub axis: usize,
}

impl fmt::Display for AxisAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.row.axis(self.axis))
    }
}

/// Why the shapes do not satisfy the op's shape logic (or cannot be checked).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// A shape has a dimension variable, `_` or a row variable.
    #[error("{row} is not concrete: {what}")]
    NotConcrete {
        /// The row.
        row: RowRef,
        /// What is not concrete.
        what: String,
    },
    /// Wrong number of operands for the logic.
    #[error("{logic} needs {expected} operand(s), got {got}")]
    Arity {
        /// The logic's name.
        logic: &'static str,
        /// Expected count.
        expected: usize,
        /// Actual count.
        got: usize,
    },
    /// An einsum axis kind the checker does not handle.
    #[error("{0} are not supported by the checker")]
    Unsupported(&'static str),
    /// `cur >= subr` fails: `cur` has fewer axes.
    #[error("{subr} ({subr_len} axes) does not broadcast to {cur} ({cur_len} axes): too few axes")]
    TooFewAxes {
        /// The bigger side.
        cur: RowRef,
        /// The side that should broadcast.
        subr: RowRef,
        /// Axes of `cur`.
        cur_len: usize,
        /// Axes of `subr`.
        subr_len: usize,
    },
    /// `cur >= subr` fails at one axis.
    #[error(
        "{} is {subr_axis}, which does not broadcast to {}, which is {cur_axis}",
        subr.axis(*axis), cur.axis_short(*axis)
    )]
    NoBroadcast {
        /// The bigger side.
        cur: RowRef,
        /// The side that should broadcast.
        subr: RowRef,
        /// The axis, counted from the end (1 = last).
        axis: usize,
        /// The axis of `cur`.
        cur_axis: Axis,
        /// The axis of `subr`.
        subr_axis: Axis,
    },
    /// `r1 = r2` fails: different numbers of axes.
    #[error("{lhs} has {lhs_len} axes but {rhs} has {rhs_len}: they must be equal")]
    RankMismatch {
        /// One row.
        lhs: RowRef,
        /// The other row.
        rhs: RowRef,
        /// Axes of `lhs`.
        lhs_len: usize,
        /// Axes of `rhs`.
        rhs_len: usize,
    },
    /// `r1 = r2` fails at one axis.
    #[error(
        "{} is {lhs_axis} but {} is {rhs_axis}: they must be equal",
        lhs.axis(*axis), rhs.axis_short(*axis)
    )]
    AxisMismatch {
        /// One row.
        lhs: RowRef,
        /// The other row.
        rhs: RowRef,
        /// The axis, counted from the end (1 = last).
        axis: usize,
        /// The axis of `lhs`.
        lhs_axis: Axis,
        /// The axis of `rhs`.
        rhs_axis: Axis,
    },
    /// A row has fewer axes than its einsum slot lists, or (without a row
    /// variable in the slot) a different number.
    #[error("{row} has {len} axes but its einsum slot {}{known} axes", if *open { "needs at least " } else { "has " })]
    EinsumRank {
        /// The row.
        row: RowRef,
        /// Its number of axes.
        len: usize,
        /// The number of axes the slot lists (besides its row variable).
        known: usize,
        /// Whether the slot has a row variable.
        open: bool,
    },
    /// A row variable would stand for sequences of different lengths.
    #[error("einsum row variable {var} stands for {first_len} axes in {first} but {len} in {row}")]
    EinsumRowVarLength {
        /// The row variable, as written (`...` of a kind, or `..name..`).
        var: String,
        /// Where it was first matched.
        first: RowRef,
        /// The length matched there.
        first_len: usize,
        /// Where it does not fit.
        row: RowRef,
        /// The length it would need there.
        len: usize,
    },
    /// An einsum label (or a position of a row variable) matches axes that
    /// do not agree.
    #[error(transparent)]
    EinsumBinding(Box<EinsumConflict>),
    /// A fixed index is out of range of its axis.
    #[error("einsum fixed index {index} is out of range of {at}, of size {size}")]
    EinsumFixedIndex {
        /// The index.
        index: u64,
        /// Where.
        at: AxisAt,
        /// The axis size.
        size: u64,
    },
    /// A strided or convolution axis (`stride*o+k`) does not have the size
    /// its iterator (and kernel) give it.
    #[error("{at} has size {size}, but its strided or convolution iteration needs size {expected}")]
    EinsumStride {
        /// Where.
        at: AxisAt,
        /// The axis size.
        size: u64,
        /// The size the formula gives.
        expected: u64,
    },
    /// A concatenated axis (`a^b`) is not the sum of its parts' sizes.
    #[error("{at} has size {size}, but its parts {parts} {sum}")]
    EinsumConcat {
        /// Where.
        at: AxisAt,
        /// The axis size.
        size: u64,
        /// The parts, `a^b`.
        parts: String,
        /// What the parts sum to (`sum to 5`, `need at least 2`).
        sum: String,
    },
    /// `BatchSlice`: the operand's batch row is not one axis longer than the
    /// result's.
    #[error(
        "batch row of operand #0 has {operand_len} axes and the result's has {result_len}: batch slice removes exactly one axis"
    )]
    SliceRank {
        /// Axes of the operand's batch row.
        operand_len: usize,
        /// Axes of the result's batch row.
        result_len: usize,
    },
    /// `BatchSlice`: the index is out of range of the sliced axis.
    #[error(
        "batch slice index {index} is out of range of the leftmost batch axis of operand #0, of size {size}"
    )]
    SliceIndex {
        /// The index.
        index: u64,
        /// The size of the sliced axis.
        size: u64,
    },
    /// `Terminal`: the result does not have the given number of elements.
    #[error("the result has {got} elements but the terminal has {expected}")]
    Elements {
        /// The given count.
        expected: u64,
        /// The result's count.
        got: u128,
    },
    /// `Terminal`: the result's axes in memory order are not the data's.
    #[error("the result's axes in memory order are {got:?} but the data's are {expected:?}")]
    Exact {
        /// The data's axes.
        expected: Vec<u64>,
        /// The result's axes (batch, output, input).
        got: Vec<u64>,
    },
    /// `Reshape`: operand and result have different numbers of elements.
    #[error("the result has {result} elements but operand #0 has {operand}")]
    Reshape {
        /// The operand's count.
        operand: u128,
        /// The result's count.
        result: u128,
    },
}

/// An einsum label (or a position of a row variable) matches axes that do
/// not agree: the payload of [`CheckError::EinsumBinding`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("einsum {what} is {first_axis} at {first} but {axis} at {at}")]
pub struct EinsumConflict {
    /// `label i` or `row variable ..r.. (its axis 2 from the start)`.
    pub what: String,
    /// Where the conflicting earlier value was seen.
    pub first: AxisAt,
    /// The earlier value.
    pub first_axis: Axis,
    /// Where the conflict is.
    pub at: AxisAt,
    /// The value there.
    pub axis: Axis,
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
            row.axes()
                .map(|axis| match axis {
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

    fn elems(&self) -> u128 {
        self.rows
            .iter()
            .flatten()
            .fold(1u128, |acc, axis| acc.saturating_mul(u128::from(axis.size)))
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
    let arity = |expected: usize| {
        if operands.len() == expected {
            Ok(())
        } else {
            Err(CheckError::Arity {
                logic: logic.name(),
                expected,
                got: operands.len(),
            })
        }
    };
    match logic {
        CheckLogic::PointwiseUn
        | CheckLogic::Transpose
        | CheckLogic::BatchSlice { .. }
        | CheckLogic::Reshape => arity(1)?,
        CheckLogic::PointwiseBin | CheckLogic::Compose => arity(2)?,
        CheckLogic::PointwiseTern | CheckLogic::ComposeAccumulate => arity(3)?,
        CheckLogic::Terminal { .. } => arity(0)?,
        CheckLogic::Einsum(spec) | CheckLogic::Block(spec) => arity(spec.rhs.len())?,
    }
    let res = Concrete::of(result, Tensor::Result)?;
    let ops = operands
        .iter()
        .enumerate()
        .map(|(i, spec)| Concrete::of(spec, Tensor::Operand(i)))
        .collect::<Result<Vec<_>, _>>()?;
    let r = |kind| side(&res, Tensor::Result, kind);
    let o = |i: usize, kind| side(&ops[i], Tensor::Operand(i), kind);
    use RowKind::{Batch, Input, Output};
    match logic {
        CheckLogic::PointwiseUn | CheckLogic::PointwiseBin | CheckLogic::PointwiseTern => {
            for i in 0..ops.len() {
                for kind in RowKind::ALL {
                    broadcasts(r(kind), o(i, kind))?;
                }
            }
        }
        CheckLogic::Compose | CheckLogic::ComposeAccumulate => {
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
        CheckLogic::Transpose => {
            broadcasts(r(Batch), o(0, Batch))?;
            broadcasts(r(Input), o(0, Output))?;
            broadcasts(r(Output), o(0, Input))?;
        }
        CheckLogic::Einsum(spec) => check_einsum(spec, &ops, &res, false)?,
        CheckLogic::Block(spec) => check_einsum(spec, &ops, &res, true)?,
        CheckLogic::BatchSlice { index } => {
            let (operand_batch, result_batch) = (ops[0].row(Batch), res.row(Batch));
            let Some((sliced, rest)) = operand_batch
                .split_first()
                .filter(|(_, rest)| rest.len() == result_batch.len())
            else {
                return Err(CheckError::SliceRank {
                    operand_len: operand_batch.len(),
                    result_len: result_batch.len(),
                });
            };
            if sliced.size <= *index {
                return Err(CheckError::SliceIndex {
                    index: *index,
                    size: sliced.size,
                });
            }
            let rest = Side {
                row: RowRef::new(Tensor::Operand(0), Batch),
                axes: rest,
            };
            equal(rest, r(Batch))?;
            equal(o(0, Input), r(Input))?;
            equal(o(0, Output), r(Output))?;
        }
        CheckLogic::Terminal { spec, elems, exact } => {
            if let Some(expected) = exact {
                let got: Vec<u64> = [Batch, Output, Input]
                    .iter()
                    .flat_map(|k| res.row(*k).iter().map(|a| a.size))
                    .collect();
                if &got != expected {
                    return Err(CheckError::Exact {
                        expected: expected.clone(),
                        got,
                    });
                }
            }
            if let Some(spec) = spec {
                let attr = Concrete::of(spec, Tensor::Attribute)?;
                for kind in RowKind::ALL {
                    equal(r(kind), side(&attr, Tensor::Attribute, kind))?;
                }
            }
            if let Some(expected) = *elems {
                let got = res.elems();
                if got != u128::from(expected) {
                    return Err(CheckError::Elements { expected, got });
                }
            }
        }
        CheckLogic::Reshape => {
            let (operand, result) = (ops[0].elems(), res.elems());
            if operand != result {
                return Err(CheckError::Reshape { operand, result });
            }
        }
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

/// The key of an einsum row variable: `...` is per row kind, `..name..` per
/// name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum RowKey {
    Ellipsis(RowKind),
    Named(String),
}

impl RowKey {
    fn of(var: &RowVar, kind: RowKind) -> Self {
        match var {
            RowVar::Anonymous => RowKey::Ellipsis(kind),
            RowVar::Named(name) => RowKey::Named(name.clone()),
        }
    }

    fn text(&self) -> String {
        match self {
            RowKey::Ellipsis(kind) => format!("... (of the {} rows)", kind_name(*kind)),
            RowKey::Named(name) => format!("..{name}.."),
        }
    }
}

/// What must be one axis throughout an einsum: a label, or position `j` of a
/// row variable's sequence.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Class {
    Label(String),
    RowVarAxis(RowKey, usize),
}

impl Class {
    fn text(&self) -> String {
        match self {
            Class::Label(label) => format!("label {label}"),
            Class::RowVarAxis(key, j) => {
                format!(
                    "row variable {} (its axis {} from the start)",
                    key.text(),
                    j + 1
                )
            }
        }
    }
}

/// What a class is bound to: its size (and where it was first seen), and its
/// label once one is seen.
struct Binding {
    size: u64,
    size_at: AxisAt,
    label: Option<(String, AxisAt)>,
}

/// The matching state of one einsum: row variable lengths and class bindings.
#[derive(Default)]
struct EinsumMatch {
    row_lens: HashMap<RowKey, (RowRef, usize)>,
    bindings: HashMap<Class, Binding>,
    /// Strided and convolution axes, checked once every label is bound.
    affine: Vec<AffineUse>,
    /// Concatenated axes, checked once every label is bound.
    concat: Vec<ConcatUse>,
}

/// An axis `a^b^...` of size `size`.
struct ConcatUse {
    size: u64,
    at: AxisAt,
    parts: Vec<String>,
}

/// An axis `stride*over[+dilation*kernel]` of size `size`.
struct AffineUse {
    size: u64,
    at: AxisAt,
    stride: u64,
    over: String,
    /// The kernel label and dilation of a valid (unpadded) convolution.
    valid_kernel: Option<(String, u64)>,
}

impl EinsumMatch {
    /// Checks the strided and convolution axes against the reference's size
    /// formulas ("Affine indexing and convolutions"): `stride * o` when
    /// strided or padded, `stride * (o - 1) + (k - 1) * dilation + 1` for a
    /// valid convolution.
    fn check_affine(&self) -> Result<(), CheckError> {
        for u in &self.affine {
            let size_of = |label: &str| {
                self.bindings
                    .get(&Class::Label(label.to_owned()))
                    .map(|b| b.size)
                    .ok_or(CheckError::Unsupported(
                        "strided axes whose labels appear in no other axis",
                    ))
            };
            let o = size_of(&u.over)?;
            let expected = match &u.valid_kernel {
                None => u.stride * o,
                Some((k, dilation)) => {
                    let k = size_of(k)?;
                    u.stride * o.saturating_sub(1) + k.saturating_sub(1) * dilation + 1
                }
            };
            if u.size != expected {
                return Err(CheckError::EinsumStride {
                    at: u.at,
                    size: u.size,
                    expected,
                });
            }
        }
        Ok(())
    }
}

impl EinsumMatch {
    /// Checks the concatenated axes: each is the sum of its parts
    /// (reference, "Concatenation"). A label seen in a plain axis has that
    /// axis's size; a label seen only in concatenations takes what a
    /// concatenation leaves when it is its only unknown part. Labels that no
    /// concatenation determines exist if what is left covers their minimum
    /// sizes (1, or 0 for discardable labels).
    fn check_concat(&self, discardable: &BTreeSet<String>) -> Result<(), CheckError> {
        let mut sizes: HashMap<&str, u64> = self
            .bindings
            .iter()
            .filter_map(|(c, b)| match c {
                Class::Label(l) => Some((l.as_str(), b.size)),
                _ => None,
            })
            .collect();
        let fail = |u: &ConcatUse, sum: String| CheckError::EinsumConcat {
            at: u.at,
            size: u.size,
            parts: u.parts.join("^"),
            sum,
        };
        let mut progress = true;
        while progress {
            progress = false;
            for u in &self.concat {
                let known: u64 = u.parts.iter().filter_map(|p| sizes.get(p.as_str())).sum();
                let unknown: Vec<&str> = u
                    .parts
                    .iter()
                    .map(String::as_str)
                    .filter(|p| !sizes.contains_key(p))
                    .collect();
                let min: u64 = unknown
                    .iter()
                    .map(|p| u64::from(!discardable.contains(*p)))
                    .sum();
                if u.size < known.saturating_add(min) {
                    return Err(fail(u, format!("need at least {}", known + min)));
                }
                match unknown.as_slice() {
                    [] if known != u.size => return Err(fail(u, format!("sum to {known}"))),
                    [first, rest @ ..] if rest.iter().all(|p| p == first) => {
                        let k = unknown.len() as u64;
                        if !(u.size - known).is_multiple_of(k) {
                            return Err(fail(
                                u,
                                format!("leave {} for {k} parts of one size", u.size - known),
                            ));
                        }
                        sizes.insert(first, (u.size - known) / k);
                        progress = true;
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// Matches one slot row against a concrete row.
    fn row(
        &mut self,
        slot: &Row<EinsumAxis>,
        row: RowRef,
        axes: &[Axis],
    ) -> Result<(), CheckError> {
        let known = slot.len_known();
        let var_len = match &slot.var {
            None if axes.len() != known => None,
            Some(_) if axes.len() < known => None,
            _ => Some(axes.len() - known),
        };
        let Some(var_len) = var_len else {
            return Err(CheckError::EinsumRank {
                row,
                len: axes.len(),
                known,
                open: slot.var.is_some(),
            });
        };
        let key = slot.var.as_ref().map(|var| RowKey::of(var, row.kind));
        if let Some(key) = &key {
            let (first, first_len) = *self.row_lens.entry(key.clone()).or_insert((row, var_len));
            if first_len != var_len {
                return Err(CheckError::EinsumRowVarLength {
                    var: key.text(),
                    first,
                    first_len,
                    row,
                    len: var_len,
                });
            }
        }
        // The slot's items, left to right: `beg`, the row variable's axes,
        // `end` (a slot without a row variable has all axes in `end`).
        let slot_items = slot
            .beg
            .iter()
            .map(Some)
            .chain(std::iter::repeat_n(None, var_len))
            .chain(slot.end.iter().map(Some));
        let mut var_pos = 0;
        for (i, (item, axis)) in slot_items.zip(axes).enumerate() {
            let at = AxisAt {
                row,
                axis: axes.len() - i,
            };
            let class = match item {
                Some(EinsumAxis::Label(label)) => Class::Label(label.clone()),
                Some(EinsumAxis::Fresh) => continue,
                Some(EinsumAxis::Fixed(index)) => {
                    if axis.size <= *index {
                        return Err(CheckError::EinsumFixedIndex {
                            index: *index,
                            at,
                            size: axis.size,
                        });
                    }
                    continue;
                }
                Some(EinsumAxis::Affine {
                    stride, over, conv, ..
                }) => {
                    // `check_einsum` rejects symbolic strides before matching.
                    let int = |v: &IntOrIdent| match v {
                        IntOrIdent::Int(n) => *n,
                        IntOrIdent::Ident(_) => 1,
                    };
                    self.affine.push(AffineUse {
                        size: axis.size,
                        at,
                        stride: int(stride),
                        over: over.clone(),
                        valid_kernel: conv
                            .as_ref()
                            .filter(|c| c.padding != Padding::Pad)
                            .map(|c| (c.kernel.clone(), int(&c.dilation))),
                    });
                    continue;
                }
                Some(EinsumAxis::Concat(parts)) => {
                    // `check_einsum` rejects these outside block specs.
                    self.concat.push(ConcatUse {
                        size: axis.size,
                        at,
                        parts: parts.clone(),
                    });
                    continue;
                }
                None => {
                    let key = key
                        .clone()
                        .expect("row variable axes only with a row variable");
                    var_pos += 1;
                    Class::RowVarAxis(key, var_pos - 1)
                }
            };
            self.bind(class, at, axis)?;
        }
        Ok(())
    }

    fn bind(&mut self, class: Class, at: AxisAt, axis: &Axis) -> Result<(), CheckError> {
        let conflict = |class: &Class, first: AxisAt, first_axis: Axis| {
            CheckError::EinsumBinding(Box::new(EinsumConflict {
                what: class.text(),
                first,
                first_axis,
                at,
                axis: axis.clone(),
            }))
        };
        match self.bindings.get_mut(&class) {
            None => {
                self.bindings.insert(
                    class,
                    Binding {
                        size: axis.size,
                        size_at: at,
                        label: axis.label.clone().map(|label| (label, at)),
                    },
                );
            }
            Some(binding) => {
                if binding.size != axis.size {
                    let first = Axis {
                        size: binding.size,
                        label: None,
                    };
                    return Err(conflict(&class, binding.size_at, first));
                }
                match (&binding.label, &axis.label) {
                    (Some((label, label_at)), Some(new)) if label != new => {
                        let first = Axis {
                            size: binding.size,
                            label: Some(label.clone()),
                        };
                        return Err(conflict(&class, *label_at, first));
                    }
                    (None, Some(new)) => binding.label = Some((new.clone(), at)),
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

/// Einsum: operand `i`'s rows equal slot `i`, the result's rows equal `lhs`;
/// in a block spec (`block`), concatenated axes are the sums of their parts.
fn check_einsum(
    spec: &EinsumSpec,
    ops: &[Concrete],
    res: &Concrete,
    block: bool,
) -> Result<(), CheckError> {
    let axes = spec
        .rhs
        .iter()
        .chain(std::iter::once(&spec.lhs))
        .flat_map(|slot| slot.rows().flat_map(|(_, row)| row.axes()));
    for axis in axes {
        match axis {
            EinsumAxis::Affine { stride, conv, .. } => {
                let symbolic = matches!(stride, IntOrIdent::Ident(_))
                    || conv
                        .as_ref()
                        .is_some_and(|c| matches!(c.dilation, IntOrIdent::Ident(_)));
                if symbolic {
                    return Err(CheckError::Unsupported("symbolic strides and dilations"));
                }
            }
            EinsumAxis::Concat(_) if !block => {
                return Err(CheckError::Unsupported(
                    "concatenated axes outside block specs",
                ));
            }
            _ => {}
        }
    }
    let mut matching = EinsumMatch::default();
    let slots: Vec<(&SlotSpec, Tensor, &Concrete)> = spec
        .rhs
        .iter()
        .zip(ops)
        .enumerate()
        .map(|(i, (slot, shape))| (slot, Tensor::Operand(i), shape))
        .chain(std::iter::once((&spec.lhs, Tensor::Result, res)))
        .collect();
    for (slot, tensor, shape) in slots {
        for kind in RowKind::ALL {
            matching.row(slot.row(kind), RowRef::new(tensor, kind), shape.row(kind))?;
        }
    }
    matching.check_affine()?;
    matching.check_concat(&spec.discardable_labels())
}

#[cfg(test)]
mod tests;
