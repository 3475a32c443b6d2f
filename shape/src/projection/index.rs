//! The projections of one op: how each axis of each tensor is indexed by
//! the iterators of the op's product space ([`AxisIndex`], [`AffineIndex`]),
//! with their index ranges, and the blocks of a concatenation
//! (`blocks.rs`: [`Projections::blocks`]).
//!
//! Index ranges are computed exactly (in `i128`): the projections that
//! [`super::infer_projections`] returns have every range within `i64`
//! (MLIR's index arithmetic; it checks), and values built by hand get
//! [`AxisIndex::checked_range`] to tell, never a wrapped bound.

/// How one axis of a tensor is indexed in the op's loop nest.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AxisIndex {
    /// The iterator with this number (into [`Projections::product_space`]).
    Iter(usize),
    /// A constant position.
    Fixed(u64),
    /// A strided or convolution access (reference, "Affine indexing and
    /// convolutions"): `stride * over + dilation * kernel + offset`, where
    /// `offset` folds in the stride offset and, for padded convolutions,
    /// minus the left padding. Such an index may fall outside the axis
    /// (padding): a reader treats those cells as the neutral element.
    Affine(AffineIndex),
    /// A concatenated axis (reference, "Concatenation"): the iterators of
    /// its parts, in order. In each block of the loop nest (see
    /// [`Projections::blocks`]) one part is active and the axis is indexed
    /// by its iterator plus the sizes of the parts before it.
    Concat(Vec<usize>),
}

impl AxisIndex {
    /// The smallest and largest position this index takes over a product
    /// space (an index whose range leaves its axis reads padding).
    ///
    /// For the projections [`infer_projections`](super::infer_projections) returns, the range always
    /// fits `i64` (it checks). For other values, a bound past `i64` is
    /// clamped to `i64::MIN` / `i64::MAX`; use [`AxisIndex::checked_range`]
    /// to tell.
    pub fn range(&self, product_space: &[u64]) -> (i64, i64) {
        let (lo, hi) = self.wide_range(product_space);
        (clamp(lo), clamp(hi))
    }

    /// [`AxisIndex::range`], or `None` when a bound does not fit `i64`.
    pub fn checked_range(&self, product_space: &[u64]) -> Option<(i64, i64)> {
        let (lo, hi) = self.wide_range(product_space);
        Some((i64::try_from(lo).ok()?, i64::try_from(hi).ok()?))
    }

    /// The exact range (sizes and coefficients are `u64`, so every term
    /// fits `i128`; sums of up to 2^62 of them do too).
    pub(super) fn wide_range(&self, product_space: &[u64]) -> (i128, i128) {
        match self {
            AxisIndex::Iter(i) => (0, i128::from(product_space[*i]) - 1),
            AxisIndex::Fixed(f) => (i128::from(*f), i128::from(*f)),
            AxisIndex::Affine(x) => x.wide_range(product_space),
            AxisIndex::Concat(parts) => (
                0,
                parts
                    .iter()
                    .map(|&i| i128::from(product_space[i]))
                    .fold(0i128, i128::saturating_add)
                    - 1,
            ),
        }
    }

    /// Calls `f` with every iterator the index reads.
    pub fn for_each_iterator(&self, mut f: impl FnMut(usize)) {
        match self {
            AxisIndex::Iter(j) => f(*j),
            AxisIndex::Fixed(_) => {}
            AxisIndex::Affine(x) => [x.over, x.kernel].iter().flatten().for_each(|(j, _)| f(*j)),
            AxisIndex::Concat(parts) => parts.iter().for_each(|&j| f(j)),
        }
    }

    /// Whether the index reads iterator `i`.
    pub fn uses(&self, i: usize) -> bool {
        match self {
            AxisIndex::Iter(j) => *j == i,
            AxisIndex::Fixed(_) => false,
            AxisIndex::Affine(x) => [x.over, x.kernel].iter().flatten().any(|(j, _)| *j == i),
            AxisIndex::Concat(parts) => parts.contains(&i),
        }
    }
}

/// `over.1 * iter(over.0) + kernel.1 * iter(kernel.0) + offset`; a missing
/// term is an iterator of size 1 (always 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AffineIndex {
    /// The output iterator and the stride.
    pub over: Option<(usize, u64)>,
    /// The kernel iterator and the dilation.
    pub kernel: Option<(usize, u64)>,
    /// The constant part.
    pub offset: i64,
}

impl AffineIndex {
    /// The smallest and largest index over a product space; a bound past
    /// `i64` is clamped (see [`AxisIndex::range`]).
    pub fn range(&self, product_space: &[u64]) -> (i64, i64) {
        let (lo, hi) = self.wide_range(product_space);
        (clamp(lo), clamp(hi))
    }

    /// [`AffineIndex::range`], or `None` when a bound does not fit `i64`.
    pub fn checked_range(&self, product_space: &[u64]) -> Option<(i64, i64)> {
        let (lo, hi) = self.wide_range(product_space);
        Some((i64::try_from(lo).ok()?, i64::try_from(hi).ok()?))
    }

    /// The exact range: `coeff * (size - 1)` is below 2^128 and the sum of
    /// two of them and an `i64` offset fits `i128`.
    pub(super) fn wide_range(&self, product_space: &[u64]) -> (i128, i128) {
        let span = |t: Option<(usize, u64)>| {
            t.map_or(0i128, |(i, c)| {
                let extent = u128::from(c) * u128::from(product_space[i].max(1) - 1);
                i128::try_from(extent).unwrap_or(i128::MAX)
            })
        };
        let offset = i128::from(self.offset);
        (
            offset,
            offset
                .saturating_add(span(self.over))
                .saturating_add(span(self.kernel)),
        )
    }
}

/// An `i128` bound as an `i64`, clamped.
fn clamp(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

/// The projections of one op.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projections {
    /// The size of each iterator: the op's loop nest.
    pub product_space: Vec<u64>,
    /// For each operand, the index of each axis in memory order.
    pub operands: Vec<Vec<AxisIndex>>,
    /// The index of each result axis in memory order.
    pub result: Vec<AxisIndex>,
    /// The connected components of the concatenation hypergraph over the
    /// iterators (reference, "Projections inference", "Concatenation"):
    /// the iterators of one concatenated axis are one component, looped in
    /// sequence; every other iterator is a component of its own. Sorted.
    pub components: Vec<Vec<usize>>,
}

/// One block of an op with concatenated axes: one iterator of each
/// component is active, and the indices are resolved for that choice.
/// Exactly one operand takes part in a block (see [`Projections::blocks`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The active iterators (one per component), ascending: the loops.
    pub iterators: Vec<usize>,
    /// The operand that takes part in this block (the others read only
    /// inactive iterators, or their part is inactive).
    pub operand: usize,
    /// That operand's indices.
    pub indices: Vec<AxisIndex>,
    /// The result's indices.
    pub result: Vec<AxisIndex>,
}

impl Projections {
    /// Iterators that do not index the result: the op reduces over them.
    pub fn reductions(&self) -> Vec<usize> {
        let mut used = vec![false; self.product_space.len()];
        for a in &self.result {
            a.for_each_iterator(|i| {
                if let Some(u) = used.get_mut(i) {
                    *u = true;
                }
            });
        }
        (0..used.len()).filter(|&i| !used[i]).collect()
    }

    /// Whether some axis is a concatenation.
    pub fn has_concat(&self) -> bool {
        self.result
            .iter()
            .chain(self.operands.iter().flatten())
            .any(|a| matches!(a, AxisIndex::Concat(_)))
    }
}
