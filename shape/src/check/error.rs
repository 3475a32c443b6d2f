//! What the checker reports: the rows and axes of an op's tensors
//! ([`Tensor`], [`RowRef`], [`Axis`], [`AxisAt`]) and why the shapes do not
//! satisfy the op's logic ([`CheckError`]).

use std::fmt;

use crate::MAX_SIZE;
use crate::spec::RowKind;

/// Which tensor of the op a row belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tensor {
    /// The op's result.
    Result,
    /// Operand `i` (0-based).
    Operand(usize),
    /// The `spec` of a terminal ([`Logic::Terminal`](crate::logic::Logic::Terminal)).
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
    pub(super) fn new(tensor: Tensor, kind: RowKind) -> Self {
        RowRef { tensor, kind }
    }

    /// `output row of operand #1`.
    fn row(self) -> String {
        format!("{} row of {}", kind_name(self.kind), self.tensor)
    }

    /// `output axis 2 (from the end) of operand #1`.
    pub(super) fn axis(self, axis: usize) -> String {
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

pub(super) fn kind_name(kind: RowKind) -> &'static str {
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
    pub(super) fn agrees(&self, other: &Axis) -> bool {
        self.size == other.size
            && match (&self.label, &other.label) {
                (Some(l1), Some(l2)) => l1 == l2,
                _ => true,
            }
    }

    /// `cur >= subr` for ground dims, with `self` as `subr`: equal, or an
    /// unlabelled 1.
    pub(super) fn broadcasts_to(&self, cur: &Axis) -> bool {
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
    /// A size, the size a strided or convolution axis needs, or an element
    /// count (of a terminal with a count, or of a reshape) is above
    /// [`MAX_SIZE`]; also a stride or dilation above it. Displays as
    /// `size overflow: {0}`; the message names the values and ends in
    /// `more than the largest size 9223372036854775807`.
    #[error("size overflow: {0}")]
    Overflow(String),
}

/// `{what}, more than the largest size 9223372036854775807`.
pub(super) fn overflow(what: String) -> CheckError {
    CheckError::Overflow(format!("{what}, more than the largest size {MAX_SIZE}"))
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
