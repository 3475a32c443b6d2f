//! The shape logics of ops: the one vocabulary that the dialect's op
//! catalog, the problem builder ([`crate::problem`]), projection inference
//! ([`crate::projection`]) and the independent checker ([`crate::check`])
//! share. Reference: ocannl-shape-inference.md, "Inference strategy"
//! (`compose_type`, `transpose_type`, `ternary_type`, `terminal_type`) and
//! "Deriving the constraints" (`Shape.get_inequalities`).
//!
//! Two types:
//!
//! * [`ShapeLogic`], the data-free kind: what ODS names (`shapeLogic`) and
//!   the generated catalog stores for every op.
//! * [`Logic`], the kind with the data an op's attributes give it (an einsum
//!   spec, a batch-slice index, a terminal's shape and element count),
//!   generic over how that data is held: the problem builder takes it by
//!   reference ([`crate::problem::OpLogic`]: a terminal's shape registered as
//!   a [`ShapeId`](crate::problem::ShapeId)), the checker owned
//!   ([`crate::check::CheckLogic`]), and the passes read it from an op's
//!   attributes once and convert with [`Logic::as_ref`] and [`Logic::map`].
//!
//! This module says what the logics *are*, never what they mean: the
//! constraints of each are derived by the problem builder, and restated on
//! concrete sizes by the checker, each on its own (the checker shares no
//! code with the solver).

/// OCANNL's shape logic of an op, without data: ODS `shapeLogic`, the
/// catalog's `OpDef::logic`. Every [`Logic`] has one ([`Logic::kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShapeLogic {
    /// `Pointwise_un`: the operand broadcasts to the result.
    PointwiseUn,
    /// `Pointwise_bin`: both operands broadcast to the result.
    PointwiseBin,
    /// `Pointwise_tern`: all three operands broadcast to the result.
    PointwiseTern,
    /// `Compose`: outputs of operand 1 feed inputs of operand 0.
    Compose,
    /// `Compose_accumulate`: `Compose` of operands 0 and 1, plus operand 2
    /// broadcast to the result.
    ComposeAccumulate,
    /// `Transpose`: input and output rows swap.
    Transpose,
    /// `Permute`/`Einsum`/`Einsum_tern`, by the number of operands.
    Einsum,
    /// `Block`: concatenation with `a^b` axes.
    Block,
    /// `Batch_slice`: the leftmost batch axis is removed.
    BatchSlice,
    /// A terminal: the result's shape comes from the op itself (its
    /// attributes, its data, or for a reshape its operand's element count).
    Terminal,
}

impl ShapeLogic {
    /// Every kind, in declaration order.
    pub const ALL: [ShapeLogic; 10] = [
        ShapeLogic::PointwiseUn,
        ShapeLogic::PointwiseBin,
        ShapeLogic::PointwiseTern,
        ShapeLogic::Compose,
        ShapeLogic::ComposeAccumulate,
        ShapeLogic::Transpose,
        ShapeLogic::Einsum,
        ShapeLogic::Block,
        ShapeLogic::BatchSlice,
        ShapeLogic::Terminal,
    ];

    /// OCANNL's name of the logic, e.g. `Pointwise_bin` (ODS `shapeLogic`).
    pub const fn ocannl_name(self) -> &'static str {
        match self {
            ShapeLogic::PointwiseUn => "Pointwise_un",
            ShapeLogic::PointwiseBin => "Pointwise_bin",
            ShapeLogic::PointwiseTern => "Pointwise_tern",
            ShapeLogic::Compose => "Compose",
            ShapeLogic::ComposeAccumulate => "Compose_accumulate",
            ShapeLogic::Transpose => "Transpose",
            ShapeLogic::Einsum => "Einsum",
            ShapeLogic::Block => "Block",
            ShapeLogic::BatchSlice => "Batch_slice",
            ShapeLogic::Terminal => "Terminal",
        }
    }

    /// The logic OCANNL names `name` (ODS `shapeLogic`), if any. A `const`
    /// function: the generated catalog resolves its ops' names at compile
    /// time, so the names are written once, here.
    pub const fn from_ocannl_name(name: &str) -> Option<Self> {
        let mut i = 0;
        while i < Self::ALL.len() {
            if str_eq(Self::ALL[i].ocannl_name(), name) {
                return Some(Self::ALL[i]);
            }
            i += 1;
        }
        None
    }
}

/// `a == b` in a `const` context.
const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The shape logic of one op with the data its attributes give it.
///
/// Generic over how the data is held: `Spec` is the shape a terminal's
/// result must equal, `Einsum` an einsum or block spec, `Dims` the axes of a
/// terminal's data in memory order. The problem builder instantiates it with
/// references ([`crate::problem::OpLogic`]), the checker with owned values
/// ([`crate::check::CheckLogic`]).
///
/// Control flow's "the result is the operand" (a block argument, a call's
/// argument and the callee's parameter) is no variant: it is no op's shape
/// logic, nothing in the catalog or the checker has it, and only the
/// problem builder relates such values
/// ([`Problem::add_equal`](crate::problem::Problem::add_equal)). A variant
/// here would be one that every other user must reject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Logic<Spec, Einsum, Dims> {
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
    /// OCANNL's Permute/Einsum/Einsum_tern: rows equal the spec's slots.
    Einsum(Einsum),
    /// OCANNL's Block: like `Einsum` (rows equal the spec's slots), with
    /// concatenated axes `a^b` (reference, "Concatenation"), whose size is
    /// the sum of their parts, and any number of operands; discardable
    /// parts may be 0.
    Block(Einsum),
    /// The leftmost batch axis of the operand is sliced away at `index`.
    BatchSlice {
        /// The position taken.
        index: u64,
    },
    /// A terminal (no operands): optionally a given shape and a known
    /// element count.
    Terminal {
        /// A shape the result must equal (e.g. the `spec` attribute).
        spec: Option<Spec>,
        /// The number of elements, when the data fixes it.
        elems: Option<u64>,
        /// The axes in memory order (batch, output, input), when the data
        /// has a shape of its own (OCANNL's `Exact`).
        exact: Option<Dims>,
    },
    /// A terminal with as many elements as its one operand (ODS: a
    /// `Terminal` that `computes` `reshape`).
    Reshape,
}

impl<S, E, D> Logic<S, E, D> {
    /// The data-free kind; a reshape is a [`ShapeLogic::Terminal`].
    pub fn kind(&self) -> ShapeLogic {
        match self {
            Logic::PointwiseUn => ShapeLogic::PointwiseUn,
            Logic::PointwiseBin => ShapeLogic::PointwiseBin,
            Logic::PointwiseTern => ShapeLogic::PointwiseTern,
            Logic::Compose => ShapeLogic::Compose,
            Logic::ComposeAccumulate => ShapeLogic::ComposeAccumulate,
            Logic::Transpose => ShapeLogic::Transpose,
            Logic::Einsum(_) => ShapeLogic::Einsum,
            Logic::Block(_) => ShapeLogic::Block,
            Logic::BatchSlice { .. } => ShapeLogic::BatchSlice,
            Logic::Terminal { .. } | Logic::Reshape => ShapeLogic::Terminal,
        }
    }

    /// The number of operands: fixed by the logic, or for [`Logic::Einsum`]
    /// and [`Logic::Block`] the number of operand slots of the spec, which
    /// `slots` counts.
    pub fn arity(&self, slots: impl FnOnce(&E) -> usize) -> usize {
        match self {
            Logic::Terminal { .. } => 0,
            Logic::PointwiseUn | Logic::Transpose | Logic::BatchSlice { .. } | Logic::Reshape => 1,
            Logic::PointwiseBin | Logic::Compose => 2,
            Logic::PointwiseTern | Logic::ComposeAccumulate => 3,
            Logic::Einsum(spec) | Logic::Block(spec) => slots(spec),
        }
    }

    /// The same logic with its data borrowed.
    pub fn as_ref(&self) -> Logic<&S, &E, &D> {
        match self {
            Logic::PointwiseUn => Logic::PointwiseUn,
            Logic::PointwiseBin => Logic::PointwiseBin,
            Logic::PointwiseTern => Logic::PointwiseTern,
            Logic::Compose => Logic::Compose,
            Logic::ComposeAccumulate => Logic::ComposeAccumulate,
            Logic::Transpose => Logic::Transpose,
            Logic::Einsum(e) => Logic::Einsum(e),
            Logic::Block(e) => Logic::Block(e),
            Logic::BatchSlice { index } => Logic::BatchSlice { index: *index },
            Logic::Terminal { spec, elems, exact } => Logic::Terminal {
                spec: spec.as_ref(),
                elems: *elems,
                exact: exact.as_ref(),
            },
            Logic::Reshape => Logic::Reshape,
        }
    }

    /// The same logic with its data converted: `spec` for a terminal's
    /// shape, `einsum` for an einsum or block spec, `dims` for a
    /// terminal's data shape (each called at most once).
    pub fn map<S2, E2, D2>(
        self,
        spec: impl FnOnce(S) -> S2,
        einsum: impl FnOnce(E) -> E2,
        dims: impl FnOnce(D) -> D2,
    ) -> Logic<S2, E2, D2> {
        match self {
            Logic::PointwiseUn => Logic::PointwiseUn,
            Logic::PointwiseBin => Logic::PointwiseBin,
            Logic::PointwiseTern => Logic::PointwiseTern,
            Logic::Compose => Logic::Compose,
            Logic::ComposeAccumulate => Logic::ComposeAccumulate,
            Logic::Transpose => Logic::Transpose,
            Logic::Einsum(e) => Logic::Einsum(einsum(e)),
            Logic::Block(e) => Logic::Block(einsum(e)),
            Logic::BatchSlice { index } => Logic::BatchSlice { index },
            Logic::Terminal {
                spec: s,
                elems,
                exact,
            } => Logic::Terminal {
                spec: s.map(spec),
                elems,
                exact: exact.map(dims),
            },
            Logic::Reshape => Logic::Reshape,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for kind in ShapeLogic::ALL {
            assert_eq!(ShapeLogic::from_ocannl_name(kind.ocannl_name()), Some(kind));
        }
        assert_eq!(ShapeLogic::from_ocannl_name("Pointwise"), None);
        assert_eq!(ShapeLogic::from_ocannl_name(""), None);
    }

    #[test]
    fn map_keeps_the_variant() {
        type Owned = Logic<String, String, Vec<u64>>;
        let terminal: Owned = Logic::Terminal {
            spec: Some("2,3".into()),
            elems: Some(6),
            exact: Some(vec![2, 3]),
        };
        let mapped = terminal.as_ref().map(|s| s.len(), |e| e.len(), |d| d.len());
        assert_eq!(
            mapped,
            Logic::Terminal {
                spec: Some(3),
                elems: Some(6),
                exact: Some(2)
            }
        );
        let einsum: Owned = Logic::Block("a;b=>a^b".into());
        assert_eq!(
            einsum.as_ref().map(|_| 0u8, |e| e.len(), |_| 0u8),
            Logic::Block(8)
        );
        let slice: Owned = Logic::BatchSlice { index: 4 };
        assert_eq!(slice.as_ref().kind(), ShapeLogic::BatchSlice);
        assert_eq!(
            slice.map(|_| 0u8, |_| 0u8, |_| 0u8),
            Logic::BatchSlice { index: 4 }
        );
        assert_eq!(Owned::Reshape.kind(), ShapeLogic::Terminal);
        assert_eq!(Owned::Reshape.arity(|_| 0), 1);
        assert_eq!(einsum.arity(|_| 2), 2);
    }
}
