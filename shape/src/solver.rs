//! OCANNL's shape-constraint solver.
//!
//! Reference: `ocannl-shape-inference.md`, sections "Representing shapes and
//! constraints", "Inference strategy" and "Solving the constraints".
//!
//! A shape has three rows (batch, input, output); a row is
//! `beg ++ ..var.. ++ end` where the row variable (if any) stands for any
//! number of axes in the middle. Constraints are equations and inequalities
//! between dims and rows, where `cur >= subr` means *subr broadcasts to
//! cur*: for dims, `subr = cur` or `subr = 1` (unlabelled); for rows, `cur`
//! has at least as many axes, and the axes, aligned from the end (and from
//! the start for `beg` axes), are `>=` axis-wise.
//!
//! The algorithm:
//! 1. **Online stage** ([`Solver::propagate`]): a worklist of constraints.
//!    Each step simplifies one constraint against the current substitution
//!    and either finishes it, replaces it by simpler ones (dim equations and
//!    inequalities, forced row expansions by fresh "template" axes), or
//!    leaves it *stuck*, watching the variables whose binding would let it
//!    progress. Only forced conclusions are drawn, so the result does not
//!    depend on the order constraints are added in.
//! 2. **Closing stages** ([`Solver::close`], stages 3–7 of the reference's
//!    stage table): terminal row variables take their least upper bound
//!    (read off the stuck inequalities, transitively through variable-to-
//!    variable bounds), then no further axes; terminal dims take their LUB,
//!    then 1; then every remaining row variable gets no further axes and
//!    every remaining dim its lower bound or 1. Each stage decides for all
//!    candidates from one snapshot and then applies the decisions, so
//!    iteration order cannot leak into the result; propagation runs to a
//!    fixpoint after each stage.
//!
//! Errors carry provenance: the origin of the failing constraint and of the
//! bindings that made its sides what they are.
//!
//! Sizes are bounded by [`MAX_SIZE`](crate::MAX_SIZE): every size a
//! constraint gives is checked when the constraint is first simplified, and
//! every size the solver computes (strided and convolution dims,
//! concatenations, element counts) is computed exactly and checked, so a
//! size past the bound is a [`ShapeErrorKind::Overflow`] error at the
//! constraint, never a wrapped or saturated size.

mod arith;
mod close;
mod close_ambiguous;
mod close_counts;
mod compress;
mod count_guesses;
mod counts;
mod dims;
mod lubs;
mod marked;
mod origin;
mod propagate;
mod provenance;
mod rank;
mod resolve;
mod row_rules;
mod simplify;
mod store;
mod tables;
mod watch;

use std::collections::{HashMap, VecDeque};
use std::fmt;

pub use origin::{OpId, Origin, Role};
use tables::{DimInfo, RowInfo};
use watch::WatchPool;

use crate::spec::RowKind;

/// A dimension variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DimVar(pub u32);

/// A row variable: stands for any number of axes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RowVar(pub u32);

/// An interned axis label (`rgb` in `rgb=3`); [`Label::NONE`] for none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Label(pub u32);

impl Label {
    /// No label.
    pub const NONE: Label = Label(0);
}

/// One axis: a variable or a size with an optional label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    /// Not yet known.
    Var(DimVar),
    /// A known size.
    Size(u64, Label),
}

impl Dim {
    /// An unlabelled size.
    pub fn size(d: u64) -> Self {
        Dim::Size(d, Label::NONE)
    }
}

/// The axes of a row part: a vector one pointer wide (its length and
/// capacity live in the allocation; an empty one allocates nothing), so that
/// a [`Row`] is three words and the constraints holding rows, which the
/// solver stores and moves by the million, stay small.
pub type Axes = thin_vec::ThinVec<Dim>;

pub use thin_vec::thin_vec as axes;

/// A row of axes `beg ++ ..var.. ++ end`. Invariant: without a row variable
/// `beg` is empty (all axes are in `end`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Row {
    /// Axes before the row variable.
    pub beg: Axes,
    /// The row variable, if the row may have more axes.
    pub var: Option<RowVar>,
    /// Axes after the row variable (all axes of a closed row).
    pub end: Axes,
}

impl Row {
    /// Frees the memory of an empty axis list that still holds some (left
    /// by truncating): a row about to be stored for long (a binding, a
    /// stuck constraint) keeps no room it will not use. At a million ops
    /// those lists would be tens of megabytes.
    pub(crate) fn release_empty(&mut self) {
        for axes in [&mut self.beg, &mut self.end] {
            if axes.is_empty() && axes.capacity() > 0 {
                *axes = Axes::new();
            }
        }
    }

    /// A closed row with these axes.
    pub fn closed(dims: impl Into<Axes>) -> Self {
        Row {
            beg: Axes::new(),
            var: None,
            end: dims.into(),
        }
    }

    /// The bare row variable `v`.
    pub fn of_var(v: RowVar) -> Self {
        Row {
            beg: Axes::new(),
            var: Some(v),
            end: Axes::new(),
        }
    }

    /// The number of known axes.
    pub fn known_len(&self) -> usize {
        self.beg.len() + self.end.len()
    }

    /// Whether the row is a bare row variable.
    pub fn bare_var(&self) -> Option<RowVar> {
        if self.beg.is_empty() && self.end.is_empty() {
            self.var
        } else {
            None
        }
    }

    /// All axes of a closed row.
    pub fn closed_dims(&self) -> Option<&[Dim]> {
        self.var.is_none().then_some(&self.end[..])
    }

    fn normalize(mut self) -> Self {
        if self.var.is_none() && !self.beg.is_empty() {
            let mut dims = std::mem::take(&mut self.beg);
            dims.append(&mut self.end);
            self.end = dims;
        }
        self
    }
}

/// A shape: three rows.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Shape {
    /// The batch row.
    pub batch: Row,
    /// The input row.
    pub input: Row,
    /// The output row.
    pub output: Row,
}

impl Shape {
    /// The row of `kind`.
    pub fn row(&self, kind: RowKind) -> &Row {
        match kind {
            RowKind::Batch => &self.batch,
            RowKind::Input => &self.input,
            RowKind::Output => &self.output,
        }
    }

    /// Whether every row is closed and every axis a size (nothing left to
    /// solve or name).
    pub fn is_concrete(&self) -> bool {
        [&self.batch, &self.input, &self.output].iter().all(|r| {
            r.var.is_none()
                && r.beg
                    .iter()
                    .chain(&r.end)
                    .all(|d| matches!(d, Dim::Size(..)))
        })
    }

    /// The row of `kind`, mutably.
    pub fn row_mut(&mut self, kind: RowKind) -> &mut Row {
        match kind {
            RowKind::Batch => &mut self.batch,
            RowKind::Input => &mut self.input,
            RowKind::Output => &mut self.output,
        }
    }
}

pub(crate) fn kind_name(k: RowKind) -> &'static str {
    match k {
        RowKind::Batch => "batch",
        RowKind::Input => "input",
        RowKind::Output => "output",
    }
}

/// A constraint between dims and rows.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Constraint {
    /// `d1 = d2`.
    DimEq(Dim, Dim),
    /// `r1 = r2`.
    RowEq(Row, Row),
    /// `cur >= subr`: `subr` broadcasts to `cur`.
    DimIneq {
        /// The bigger side (a super-tensor's axis).
        cur: Dim,
        /// The smaller side (a sub-tensor's axis).
        subr: Dim,
    },
    /// `cur >= subr` for rows.
    RowIneq {
        /// The bigger side.
        cur: Row,
        /// The smaller side.
        subr: Row,
        /// Whether `subr` came from a row with leading axes
        /// (`solver/marked.rs`): then the rows are as long as each other, aligned
        /// at both ends, even once `subr` is left without leading axes.
        marked: bool,
    },
    /// The dim is at least this size (e.g. a fixed index `i` needs `> i`).
    AtLeast(Dim, u64),
    /// The rows together have this many elements (`Total_elems` with a
    /// `Num_elems` numerator).
    TotalElems(Vec<Row>, u64),
    /// `Total_elems` with a `Strided_var` numerator (reference, "Preventing
    /// Premature Guessing with Total_elems Constraints"): the rows together
    /// have `coeff * var / denom` elements. Until it is resolved, `var` is
    /// not guessed by closing unless one of the unknown dims of the rows is
    /// also kept from guessing (`has_uniq_constr_unless`).
    StridedElems {
        /// The rows, in memory order. A thin vector keeps this variant,
        /// and so every stored constraint, at 56 bytes.
        rows: thin_vec::ThinVec<Row>,
        /// The coefficient, at least 1.
        coeff: u64,
        /// The variable counting elements.
        var: Dim,
        /// The denominator, at least 1.
        denom: u64,
    },
    /// `Exact`: the rows, concatenated (in memory order), are exactly these
    /// axes.
    Exact(Vec<Row>, Vec<Dim>),
    /// OCANNL's `Affine` dim (reference, "Affine indexing and
    /// convolutions"), boxed: rare, and the largest constraint, so it does
    /// not set the size of every stored constraint.
    Affine(Box<AffineDims>),
    /// OCANNL's `Concat` dim (reference, "Concatenation"): the axis `whole`
    /// is the concatenation of `parts`, so its size is their sum.
    Concat {
        /// The concatenated axis.
        whole: Dim,
        /// The parts, in order.
        parts: Vec<Dim>,
    },
}

impl Constraint {
    /// [`Row::release_empty`] on the rows of a row constraint.
    pub(crate) fn release_empty(&mut self) {
        if let Constraint::RowEq(a, b)
        | Constraint::RowIneq {
            cur: a, subr: b, ..
        } = self
        {
            a.release_empty();
            b.release_empty();
        }
    }
}

/// The iteration `input = stride * output [+ dilation * kernel]` of a
/// [`Constraint::Affine`] (reference, "Affine indexing and convolutions").
/// Strided iteration and padded convolutions (`kernel = None`): `input =
/// stride * output`; a valid convolution (`kernel = Some((k, dilation))`):
/// `input = stride * (output - 1) + (k - 1) * dilation + 1`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AffineDims {
    /// The iterated (input) axis.
    pub input: Dim,
    /// The iterator's (output) axis.
    pub output: Dim,
    /// The stride, at least 1.
    pub stride: u64,
    /// The kernel axis and the dilation, for a valid convolution.
    pub kernel: Option<(Dim, u64)>,
    /// Explicit padding `(lo, hi)` of a convolution (`@lo,hi`, our
    /// extension): `output = (input + lo + hi - span) / stride + 1`,
    /// rounded down. `None`: the exact formulas above.
    pub pads: Option<(u64, u64)>,
}

/// A constraint with its origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tagged {
    /// The constraint.
    pub constraint: Constraint,
    /// Where it comes from.
    pub origin: Origin,
}

/// The kinds of shape errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShapeErrorKind {
    /// Two axes that must agree (or broadcast) have different sizes.
    SizeMismatch,
    /// Two axes of the same size have different labels.
    LabelMismatch,
    /// A row would have to contain itself plus more axes.
    RankCycle,
    /// An einsum spec slot does not fit its tensor.
    EinsumMismatch,
    /// A row has fewer axes than a row that must broadcast to it.
    TooFewAxes,
    /// Two rows that must be equal have different numbers of axes.
    RankMismatch,
    /// An element-count constraint cannot hold.
    ElementCount,
    /// An axis size does not fit a strided or convolution iteration.
    IncompatibleStride,
    /// A concatenated axis is not the sum of its parts.
    ConcatMismatch,
    /// A size, stride or element count given or derived (strided and
    /// convolution dims, concatenations, element counts) is above
    /// [`MAX_SIZE`](crate::MAX_SIZE). The message names the sizes involved
    /// and ends in `more than the largest size 9223372036854775807`.
    Overflow,
    /// The solver stopped making progress (an internal error: please report
    /// the input).
    NoConvergence,
}

impl fmt::Display for ShapeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ShapeErrorKind::SizeMismatch => "size mismatch",
            ShapeErrorKind::LabelMismatch => "label mismatch",
            ShapeErrorKind::RankCycle => "rank cycle",
            ShapeErrorKind::EinsumMismatch => "einsum spec mismatch",
            ShapeErrorKind::TooFewAxes => "too few axes",
            ShapeErrorKind::RankMismatch => "rank mismatch",
            ShapeErrorKind::ElementCount => "element count mismatch",
            ShapeErrorKind::IncompatibleStride => "incompatible stride",
            ShapeErrorKind::ConcatMismatch => "mismatched concatenation",
            ShapeErrorKind::Overflow => "size overflow",
            ShapeErrorKind::NoConvergence => "internal error: the solver does not converge",
        })
    }
}

/// A shape error with provenance: the constraint that failed (`origin`) and
/// the constraints that made its sides what they are (`related`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct ShapeError {
    /// What went wrong.
    pub kind: ShapeErrorKind,
    /// Details (sizes, axes, roles).
    pub message: String,
    /// The failing constraint's origin.
    pub origin: Origin,
    /// Origins of the bindings involved, without `origin` itself.
    pub related: Vec<Origin>,
}

/// The solver state. Build constraints with [`Solver::add`], run
/// [`Solver::propagate`], then [`Solver::close`].
///
/// Its fields by concept, each kept by its own file: the variable tables
/// (`solver/tables.rs`, read through their bindings by
/// `solver/resolve.rs`), the constraint store and its worklist
/// (`solver/store.rs`), and propagation's and closing's working state
/// (`solver/propagate.rs`, `solver/close_counts.rs`).
#[derive(Debug, Default, Clone)]
pub struct Solver {
    // The variable tables.
    pub(crate) dims: Vec<DimInfo>,
    /// The least upper bound of a free dim variable (a representative),
    /// from `d >= var` with `d > 1`.
    pub(crate) lubs: foldhash::HashMap<u32, (u64, Label, Origin)>,
    /// `has_uniq_constr_unless` (reference, "Preventing Premature Guessing
    /// with Total_elems Constraints"), per representative: the numerator
    /// variable of a pending `StridedElems` is not guessed unless one of
    /// these (the unknown dims of its rows) is also kept from guessing.
    pub(crate) uniq_unless: foldhash::HashMap<u32, thin_vec::ThinVec<DimVar>>,
    pub(crate) rows: Vec<RowInfo>,
    labels: Vec<String>,
    label_ids: HashMap<String, Label>,
    /// Row variables bound since the last [`Solver::compress_rows`].
    pub(crate) bound_since_compression: usize,

    // The constraint store and its worklist.
    /// All constraints ever added; `None` once finished.
    pub(crate) store: Vec<Option<Tagged>>,
    /// Slots of finished constraints, reused by new ones. A stale watcher
    /// pointing at a reused slot only causes a harmless re-examination.
    pub(crate) free: Vec<u32>,
    /// Constraints stored but not yet queued ([`Solver::add_deferred`]).
    deferred: Vec<u32>,
    queue: VecDeque<u32>,
    /// Per slot of the store: `QUEUED` and `UNCHECKED` (`solver/store.rs`).
    /// One byte for both, so that taking a constraint off the queue reads
    /// one table besides the store (at a million ops, each is a cache
    /// miss).
    flags: Vec<u8>,
    /// The watch lists of all variables.
    watches: WatchPool,
    /// Reused buffer for the ids of woken constraints.
    scratch_ids: Vec<u32>,

    // Propagation and closing.
    /// Reused stack of [`Solver::propagate`]'s derived constraints (empty
    /// between calls). Online, propagation runs once per op: a fresh stack
    /// grew from nothing every time.
    stack: Vec<Tagged>,
    /// While closing element counts: the constraints propagation left
    /// stuck again (`solver/close_counts.rs`); `None` otherwise.
    pub(crate) restuck: Option<Vec<u32>>,

    // Options, and what was ever added.
    /// `false`: only the general rules ([`Solver::set_shortcuts`]).
    pub(crate) no_shortcuts: bool,
    /// Whether a concatenation was ever added (only simplifying one derives
    /// another): closing looks for stuck ones only then.
    pub(crate) has_concat: bool,
    /// Whether an element count (`TotalElems`, `StridedElems`, `Exact`)
    /// was ever added (only simplifying one derives another).
    pub(crate) has_counts: bool,
}

impl Solver {
    /// An empty solver.
    pub fn new() -> Self {
        let mut s = Solver::default();
        s.labels.push(String::new());
        s
    }

    /// With `false`, the solver takes none of its shortcuts: every
    /// constraint is stored and goes through the worklist, every row is
    /// expanded by the general walk, and each rule concludes one step at a
    /// time. The shortcuts draw the same conclusions in fewer steps; this
    /// is for testing that (the property `shortcuts_agree` compares both).
    pub fn set_shortcuts(&mut self, enabled: bool) {
        self.no_shortcuts = !enabled;
    }

    /// Reserves room for this many more dim variables, row variables and
    /// constraints, so that a caller that knows the problem's size saves
    /// the tables' regrowth (copies into fresh memory).
    pub fn reserve(&mut self, dims: usize, rows: usize, constraints: usize) {
        self.dims.reserve(dims);
        self.rows.reserve(rows);
        self.store.reserve(constraints);
        self.flags.reserve(constraints);
        self.deferred.reserve(constraints);
    }
}

/// How far [`Solver::close`] goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closing {
    /// Only the online stage: variables stay where nothing forces them.
    None,
    /// All closing stages: every variable is solved.
    Full,
}

#[cfg(test)]
mod tests {
    use super::{Dim, Row, axes};

    /// A row stored for long keeps no memory in an emptied axis list, and
    /// its other lists as they are.
    #[test]
    fn release_empty_frees_only_emptied_lists() {
        let mut beg = axes![Dim::size(2), Dim::size(3)];
        beg.truncate(0);
        let mut row = Row {
            beg,
            var: Some(super::RowVar(0)),
            end: axes![Dim::size(4)],
        };
        assert!(row.beg.capacity() > 0);
        row.release_empty();
        assert_eq!(row.beg.capacity(), 0);
        assert_eq!(row.end.as_slice(), &[Dim::size(4)]);
    }
}
