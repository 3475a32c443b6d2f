//! A CPU schedule as data: which iterator carries the vector lanes, which
//! are unrolled into the register block and tiled for the caches, in which
//! order the loops run ([`Plan`]), and the stretches each unrolled iterator
//! is cut into (the main blocks, then remainders: [`Segment`]).
//! `ocannl-plan-schedule` chooses the plan and writes it as the op's
//! `ocannl.schedule` ([`super`]); the lowering's CPU emitters obey it.

/// The most taps of an innermost reduction the CPU micro-kernel unrolls
/// (a 3×3 convolution's kernel column; [`Lanes::Result`] only, and not the
/// reduction tiled for the caches).
pub(crate) const MAX_UNROLLED_TAPS: u64 = 4;

/// Which iterator the vector lanes run along.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lanes {
    /// A parallel iterator: the result's contiguous axis.
    Result,
    /// A reduction iterator.
    Reduction,
}

/// An iterator unrolled into the register block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unrolled {
    pub iter: usize,
    /// Copies in the block (vectors of lanes for the vector iterator).
    pub factor: u64,
    /// The iterator is the vector iterator ([`Lanes::Result`]): a step
    /// covers `factor × width` positions.
    pub lanes: bool,
    /// Cache tile (a multiple of the block), when the extent exceeds it.
    pub tile: Option<u64>,
}

/// How to emit one op's nest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    pub lanes: Lanes,
    /// Lanes per vector.
    pub width: u64,
    /// The vector iterator.
    pub vector: usize,
    /// Parallel iterators looped one by one outside the block, outermost
    /// first.
    pub outer: Vec<usize>,
    /// The block's iterators; the first one's point loop runs outside the
    /// second's.
    pub unrolled: Vec<Unrolled>,
    /// The reductions, outermost first ([`Lanes::Reduction`]: the vector
    /// iterator last).
    pub reductions: Vec<usize>,
    /// A reduction tiled for the caches (its tile loop runs between the
    /// block's tile loops).
    pub k_tile: Option<(usize, u64)>,
    /// With a reduction tile: the first outer loop tiled by this many
    /// iterations, its tile loop outside the reduction's tile loop and its
    /// point loop (with the other outer loops) inside, so that the result
    /// cells of one outer tile stay in L2 across the reduction's tiles.
    /// Without it the outer loops run inside the reduction's tile loop
    /// whole (the panel read there, packed or not, serves every outer
    /// iteration).
    pub outer_tile: Option<u64>,
    /// With a reduction tile and no `outer_tile`: the outer loops run
    /// inside the first block iterator's point loop (one block column)
    /// instead of outside it, so that the block column's operand read in
    /// place along the vector iterator (a convolution's weights, cold from
    /// memory) stays in L1 across the outer iterations for one reduction
    /// tile; the operands that read the outer iterators are re-read per
    /// block column instead.
    pub outer_in_block: bool,
    /// With a reduction tile and an `outer_tile`: that tile loop runs
    /// outermost, before the block's tile loops, and it is the loop the
    /// threads share (`parallel`): each thread takes whole tiles of the
    /// first outer loop (a convolution's output rows), packs its own
    /// panels and reads its share of the rows' operand, instead of the
    /// threads splitting the vector iterator's tiles and each reading all
    /// of the rows' operand. The outer point loops go where they would
    /// without it (inside the reduction's tile loop, or with
    /// `outer_in_block` inside the first block column), within the tile.
    pub split_outer: bool,
    /// The block's first iterator indexes the result's contiguous axis: its
    /// cells are adjacent in memory.
    pub block_contiguous: bool,
}

/// One stretch of an unrolled iterator: `[lo, hi)` in steps of `step`,
/// `factor` copies per step, vector lanes or scalars, maybe tiled.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Segment {
    pub lo: u64,
    pub hi: u64,
    pub step: u64,
    pub factor: u64,
    /// Each copy is a vector of lanes ([`Lanes::Result`] only).
    pub vector: bool,
    pub tile: Option<u64>,
}

/// The main stretch of `u` (whole blocks), then smaller blocks, then
/// scalars.
pub(crate) fn segments(u: &Unrolled, extent: u64, width: u64) -> Vec<Segment> {
    let unit = if u.lanes { width } else { 1 };
    let block = u.factor * unit;
    let m1 = extent / block * block;
    let mut out = vec![Segment {
        lo: 0,
        hi: m1,
        step: block,
        factor: u.factor,
        vector: u.lanes,
        // A tile past the whole blocks is one tile of them (still packed).
        tile: u.tile.map(|t| t.min(m1)).filter(|&t| t > 0),
    }];
    let m2 = extent / unit * unit;
    if u.lanes && m2 > m1 {
        out.push(Segment {
            lo: m1,
            hi: m2,
            step: unit,
            factor: 1,
            vector: true,
            tile: None,
        });
    }
    let lo = if u.lanes { m1.max(m2) } else { m1 };
    out.push(Segment {
        lo,
        hi: extent,
        step: 1,
        factor: 1,
        vector: false,
        tile: None,
    });
    out.retain(|s| s.hi > s.lo);
    out
}
