//! The projections of one op: how each axis of each tensor is indexed by
//! the iterators of the op's product space ([`AxisIndex`], [`AffineIndex`]),
//! with their index ranges, and the blocks of a concatenation
//! ([`Projections::blocks`]).
//!
//! Index ranges are computed exactly (in `i128`): the projections that
//! [`super::infer_projections`] returns have every range within `i64`
//! (MLIR's index arithmetic; it checks), and values built by hand get
//! [`AxisIndex::checked_range`] to tell, never a wrapped bound.

use super::ProjectionError;
use crate::MAX_SIZE;

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The active iterators (one per component), ascending: the loops.
    pub iterators: Vec<usize>,
    /// For each operand, its indices, or `None` when the operand takes no
    /// part in this block.
    pub operands: Vec<Option<Vec<AxisIndex>>>,
    /// The result's indices.
    pub result: Vec<AxisIndex>,
}

impl Projections {
    /// Iterators that do not index the result: the op reduces over them.
    pub fn reductions(&self) -> Vec<usize> {
        (0..self.product_space.len())
            .filter(|i| !self.result.iter().any(|a| a.uses(*i)))
            .collect()
    }

    /// Whether some axis is a concatenation.
    pub fn has_concat(&self) -> bool {
        self.result
            .iter()
            .chain(self.operands.iter().flatten())
            .any(|a| matches!(a, AxisIndex::Concat(_)))
    }

    /// The blocks of the loop nest (OCANNL's Block lowering): for every
    /// choice of one active iterator per component, the concatenated axes
    /// resolve to the active part's iterator plus the sizes of the parts
    /// before it. A block is dropped when the result reads an inactive
    /// iterator (no cell of the result belongs to it), when an active
    /// iterator has size 0, or when no operand takes part; an operand takes
    /// part when it reads only active iterators and, if the result has one
    /// concatenated axis with a part per operand, its part is active.
    /// Without concatenation there is one block with everything.
    ///
    /// # Errors
    ///
    /// [`ProjectionError::Mismatch`] when two operands take part in one
    /// block (both would write the same cells).
    pub fn blocks(&self) -> Result<Vec<Block>, ProjectionError> {
        let n = self.operands.len();
        // The result's single concatenated axis, when it has a part per
        // operand (concatenation, stacking): operand `i` writes part `i`.
        let concats: Vec<&Vec<usize>> = self
            .result
            .iter()
            .filter_map(|a| match a {
                AxisIndex::Concat(parts) => Some(parts),
                _ => None,
            })
            .collect();
        let per_operand = match concats.as_slice() {
            [parts] if parts.len() == n => Some(*parts),
            _ => None,
        };
        let mut blocks = Vec::new();
        let mut choice = vec![0usize; self.components.len()];
        loop {
            let mut active = vec![false; self.product_space.len()];
            for (c, &k) in self.components.iter().zip(&choice) {
                active[c[k]] = true;
            }
            let empty = (0..active.len()).any(|i| active[i] && self.product_space[i] == 0);
            let resolve = |indices: &[AxisIndex]| -> Result<Option<Vec<AxisIndex>>, _> {
                let mut out = Vec::with_capacity(indices.len());
                for a in indices {
                    match self.resolve(a, &active)? {
                        Some(x) => out.push(x),
                        None => return Ok(None),
                    }
                }
                Ok(Some(out))
            };
            if !empty && let Some(result) = resolve(&self.result)? {
                let operands: Vec<Option<Vec<AxisIndex>>> = (0..n)
                    .map(|i| {
                        if per_operand.is_some_and(|parts| !active[parts[i]]) {
                            return Ok(None);
                        }
                        resolve(&self.operands[i])
                    })
                    .collect::<Result<_, ProjectionError>>()?;
                let taking: Vec<usize> = (0..n).filter(|&i| operands[i].is_some()).collect();
                if taking.len() > 1 {
                    return Err(ProjectionError::Mismatch(format!(
                        "operands #{} and #{} would both write the same cells of the result (ambiguous concatenation)",
                        taking[0], taking[1]
                    )));
                }
                if taking.len() == 1 {
                    blocks.push(Block {
                        iterators: (0..active.len()).filter(|&i| active[i]).collect(),
                        operands,
                        result,
                    });
                }
            }
            // The next choice, like an odometer.
            let mut c = 0;
            loop {
                if c == choice.len() {
                    return Ok(blocks);
                }
                choice[c] += 1;
                if choice[c] < self.components[c].len() {
                    break;
                }
                choice[c] = 0;
                c += 1;
            }
        }
    }

    /// One index with the `active` iterators: `None` when it reads an
    /// inactive one (a concatenation: when none of its parts is active).
    ///
    /// # Errors
    ///
    /// [`ProjectionError::Overflow`] when the parts before the active one
    /// are past `i64` (not for projections [`infer_projections`](super::infer_projections) returns,
    /// whose concatenated axes are at most [`MAX_SIZE`]).
    fn resolve(
        &self,
        a: &AxisIndex,
        active: &[bool],
    ) -> Result<Option<AxisIndex>, ProjectionError> {
        match a {
            AxisIndex::Concat(parts) => {
                let Some(k) = parts.iter().position(|&p| active[p]) else {
                    return Ok(None);
                };
                let sizes: Vec<u64> = parts[..k].iter().map(|&p| self.product_space[p]).collect();
                let offset: u128 = sizes.iter().map(|&d| u128::from(d)).sum();
                let offset = i64::try_from(offset).map_err(|_| {
                    ProjectionError::Overflow(format!(
                        "the parts of a concatenated axis before its part #{k} have {offset} cells, more than the largest size {MAX_SIZE}"
                    ))
                })?;
                Ok(Some(if offset == 0 {
                    AxisIndex::Iter(parts[k])
                } else {
                    AxisIndex::Affine(AffineIndex {
                        over: Some((parts[k], 1)),
                        kernel: None,
                        offset,
                    })
                }))
            }
            other => Ok((0..active.len())
                .all(|i| active[i] || !other.uses(i))
                .then(|| other.clone())),
        }
    }
}
