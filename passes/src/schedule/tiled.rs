//! The matrix-product form of a contraction on the GPU: the roles of its
//! iterators (rows, the contiguous column, reductions, batch) and operands
//! for the tiled kernel in workgroup memory. `ocannl-plan-schedule` asks
//! for the tiled kernel where [`tiled`] recognises the form;
//! `ocannl-lower-to-affine` (`gpu/tiled.rs`) emits it from the same
//! description, and rejects a schedule that asks for it elsewhere.

use melior::ir::Type;
use ocannl_dialect::ir;
use ocannl_shape::projection::{AxisIndex, Projections};

use crate::compute::{Accum, BinaryFn, Compute};

/// Threads per block along x and y; the reduction step.
pub(crate) const T: u64 = 16;
/// Cells per thread along rows and columns: 4 (a block's tile of C is
/// 64 × 64), or 8 (128 × 128) for products with enough such tiles to keep
/// every multiprocessor busy ([`LARGE_TILES_FROM`]). With 8, each step of
/// the reduction does 64 FMAs per 16 loads from workgroup memory instead
/// of 16 per 8: the loads no longer bound the rate (an f32 matmul 4096²
/// on an H200: 20 TFLOP/s with 4).
pub(crate) const R_SMALL: u64 = 4;
pub(crate) const R_LARGE: u64 = 8;
/// The fewest 128 × 128 tiles (over the batch too) that take the large
/// block: two per multiprocessor of an H100/H200 (132).
pub(crate) const LARGE_TILES_FROM: u64 = 264;

/// A contraction in matrix-product form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tiled {
    pub(crate) a: usize,
    pub(crate) b: usize,
    /// The operands' and the result's indices (over the product space) and
    /// the operands' dims (padding guards).
    pub(crate) idx_a: Vec<AxisIndex>,
    pub(crate) idx_b: Vec<AxisIndex>,
    pub(crate) idx_c: Vec<AxisIndex>,
    pub(crate) dims_a: Vec<u64>,
    pub(crate) dims_b: Vec<u64>,
    pub(crate) space: Vec<u64>,
    /// The row iterators (outermost first), the column iterator, the
    /// reductions, the batch iterators (read by both operands: the grid's
    /// z), each with its extent.
    pub(crate) rows: Vec<(usize, u64)>,
    pub(crate) col: (usize, u64),
    pub(crate) reds: Vec<(usize, u64)>,
    pub(crate) batch: Vec<(usize, u64)>,
    pub(crate) m: u64,
    pub(crate) n: u64,
    pub(crate) k: u64,
    /// Cells per thread along rows and columns ([`R_SMALL`] or
    /// [`R_LARGE`]).
    pub(crate) r: u64,
}

impl Tiled {
    /// The side of a block's tile of C.
    pub(crate) fn block(&self) -> u64 {
        T * self.r
    }
}

/// The iterators an index reads.
pub(crate) fn iterators(a: &AxisIndex) -> Vec<usize> {
    match a {
        AxisIndex::Iter(i) => vec![*i],
        AxisIndex::Affine(x) => x.over.iter().chain(&x.kernel).map(|(i, _)| *i).collect(),
        _ => vec![],
    }
}

/// The matrix-product form of an op, if it has one: `f32`/`f64` products
/// summed over two operands (besides the initial value); the result's
/// contiguous iterator `n` read by one of them (B) only; the result's other
/// iterators read by the other (A) only (rows), by both (batch) or by
/// neither (rows); B reads no row; indices plain, fixed or affine (strides,
/// dilations, padding), not concatenated; the products small enough for
/// the grid.
pub(crate) fn tiled(
    p: &Projections,
    operand_dims: &[Vec<u64>],
    init: Option<usize>,
    compute: &Compute,
    accum: Option<Accum>,
    elem: Type<'_>,
) -> Option<Tiled> {
    if *compute != Compute::Binary(BinaryFn::Mul)
        || accum.map(|a| a.function()) != Some(BinaryFn::Add)
        || !matches!(ir::bit_width(elem), Some(32 | 64))
        || !elem.to_string().starts_with('f')
    {
        return None;
    }
    let space = &p.product_space;
    let operands: Vec<usize> = (0..p.operands.len()).filter(|&n| Some(n) != init).collect();
    let [x, y] = operands[..] else { return None };
    let mut cells = vec![];
    for a in &p.result {
        match a {
            AxisIndex::Iter(i) if !cells.contains(i) => cells.push(*i),
            AxisIndex::Iter(_) | AxisIndex::Fixed(_) => {}
            _ => return None,
        }
    }
    let col = *cells.iter().rev().find(|&&i| space[i] > 1)?;
    let uses = |n: usize, i: usize| p.operands[n].iter().any(|a| iterators(a).contains(&i));
    let (a, b) = if uses(y, col) && !uses(x, col) {
        (x, y)
    } else {
        (y, x)
    };
    if !uses(b, col) || uses(a, col) {
        return None;
    }
    let mut rows = vec![];
    let mut batch = vec![];
    for &i in cells.iter().filter(|&&i| i != col && space[i] > 1) {
        match (uses(a, i), uses(b, i)) {
            (true, true) => batch.push((i, space[i])),
            (false, true) => return None,
            _ => rows.push((i, space[i])),
        }
    }
    let reds: Vec<(usize, u64)> = p
        .reductions()
        .into_iter()
        .filter(|&r| space[r] > 1)
        .map(|r| (r, space[r]))
        .collect();
    if rows.is_empty() || reds.is_empty() {
        return None;
    }
    // Indices the kernel can compute: no concatenation; every iterator one
    // of the roles' (or of extent 1).
    let known = |i: usize| {
        space[i] == 1 || i == col || rows.iter().chain(&reds).chain(&batch).any(|(r, _)| *r == i)
    };
    let fits = |idx: &[AxisIndex]| {
        idx.iter()
            .all(|a| !matches!(a, AxisIndex::Concat(_)) && iterators(a).into_iter().all(known))
    };
    if !fits(&p.operands[a]) || !fits(&p.operands[b]) {
        return None;
    }
    let product = |v: &[(usize, u64)]| v.iter().try_fold(1u64, |acc, (_, e)| acc.checked_mul(*e));
    let (m, k, gz) = (product(&rows)?, product(&reds)?, product(&batch)?);
    let n = space[col];
    // The grid's limits: x up to 2^31 - 1 blocks, y and z up to 65535;
    // linear row and reduction positions in `index` (i64).
    let r = cells_per_thread(m, n, gz);
    let side = T * r;
    if n.div_ceil(side) >= 1 << 31
        || m.div_ceil(side) > 65535
        || gz > 65535
        || m > 1 << 62
        || k > 1 << 62
    {
        return None;
    }
    Some(Tiled {
        a,
        b,
        idx_a: p.operands[a].clone(),
        idx_b: p.operands[b].clone(),
        idx_c: p.result.clone(),
        dims_a: operand_dims[a].clone(),
        dims_b: operand_dims[b].clone(),
        space: space.clone(),
        rows,
        col: (col, n),
        reds,
        batch,
        m,
        n,
        k,
        r,
    })
}

/// Cells per thread along rows and columns of a product of `m × n` cells
/// (times `gz` in the batch): [`R_LARGE`] when it has at least
/// [`LARGE_TILES_FROM`] whole-or-partial tiles of that size and is no
/// narrower than one, else [`R_SMALL`].
pub(crate) fn cells_per_thread(m: u64, n: u64, gz: u64) -> u64 {
    let large = T * R_LARGE;
    let tiles = m
        .div_ceil(large)
        .saturating_mul(n.div_ceil(large))
        .saturating_mul(gz);
    if n >= large && m >= large && tiles >= LARGE_TILES_FROM {
        R_LARGE
    } else {
        R_SMALL
    }
}
