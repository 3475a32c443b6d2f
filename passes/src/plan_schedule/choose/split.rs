//! How the threads share a tiled contraction with outer loops (a
//! convolution): tiles of its vector iterator (the output channels; each
//! thread reads all of the rows' operand, the input, and its share of the
//! weights), or whole tiles of its first outer loop (the output rows;
//! each thread reads its share of the input and all of the weights):
//! [`Plan::split_outer`](crate::schedule::plan::Plan::split_outer).

use super::Nest;
use crate::schedule::legal::panel_operand;

/// How the threads split a convolution's first outer loop
/// ([`Nest::split_rows`]): each thread's share of its extent.
#[derive(Debug, Clone, Copy)]
pub(super) enum Split {
    /// In L2 tiles ([`Nest::split_tile`]), as many per thread.
    Tiles(u64),
    /// One tile per thread, whatever L2 holds.
    Whole(u64),
}

impl Nest<'_> {
    /// The first outer loop's tile, one per thread, when the threads split
    /// it rather than the vector iterator `v`'s tiles: on several threads,
    /// with a reduction tile `k_tile`, when the outer loop's extent
    /// divides among the threads (or is long enough that the last tile's
    /// shortfall does not matter), and either
    ///
    /// - `v` is too narrow to split (one block of `block` columns per
    ///   thread or fewer) and its operand is packed per reduction tile:
    ///   the threads would otherwise share the outer loop one iteration at
    ///   a time, each packing the panel again per iteration (read in
    ///   place, a 3×3 convolution's weights, that order is kept: VGG-19's
    ///   64 → 64 convolution on 224² ran 5–11% slower in tiles), or
    /// - `v` is wide enough, and the rows' operand is at least half as
    ///   large as the operand read along `v` alone.
    ///
    /// The weight of two on the rows' operand is measured: splitting the
    /// output channels, each thread reads all of a convolution's input,
    /// whose pixels (one reduction tile of channels each) lie a row of
    /// channels apart, on a different page for 1024 channels, where the
    /// hardware prefetchers stop; the weights are read once per tile as
    /// one stream. On ResNet-50 at 2 threads (per-op minima), the 1×1
    /// convolutions from 512 to 128 channels on 28² and from 256 to 128
    /// on 56² (input 6× and 25× their weights) ran 28–34% faster split by
    /// rows, the one from 1024 to 256 on 14² (input 0.8× its weights) 8%
    /// faster, the 3×3 one from 128 to 128 on 28² 23% faster.
    ///
    /// A third case, [`Split::Whole`]: `v` wide enough, its operand read in
    /// place (a 3×3 convolution's weights, laid out when compiling) and
    /// larger than L2. Split by rows, in one tile per thread, inside which
    /// the rows run in the block column (`outer_in_block`), every thread
    /// streams the weights once, all of them in step (one fetch from
    /// memory serves both through the shared L3). VGG-19's 3×3
    /// convolutions to 512 channels on 28² at 2 threads
    /// (`tools/bench/conv_variants.py`, same runs): 512 → 512 25.5 →
    /// 22.7 ms against channels split in L2 tiles of rows (tiles of 7
    /// rows: 23.9, of 4: 25.7), 256 → 512 11.8 → 10.8 ms; with the true
    /// 2 MiB L2, where each thread's channels need no tile of rows, 24.0
    /// against 27.3–28.5 ms (the rows inside the block column or not, in
    /// tiles of 7 or 14 or whole).
    ///
    /// A fourth case, uneven channels: `v`'s whole blocks would load the
    /// threads less evenly than the outer loop's shares, for weights each
    /// thread can afford to read whole (at most 8× L2). A 7 × 3 block (48
    /// channels) splits 256 channels 144 + 112: the busier thread does
    /// 12.5% more than half. At 2 threads (`conv_variants.py`, same runs):
    /// ResNet-50's 3×3 256 → 256 on 14² ran 1.93 → 1.58 ms split by rows
    /// (2.4 MB of weights), the strided one to 14² 1.95 → 1.73; VGG-19's
    /// 512 → 512 on 14² (9.4 MB, 288 + 224 channels) was even, 6.35–6.58
    /// either way.
    pub(super) fn split_rows(
        &self,
        v: usize,
        row: Option<usize>,
        block: u64,
        k_tile: Option<(usize, u64)>,
    ) -> Option<Split> {
        let (space, threads) = (self.space(), self.target.threads);
        let (k, _) = k_tile.filter(|_| self.threaded())?;
        let outer: Vec<usize> = self
            .parallel
            .iter()
            .copied()
            .filter(|&i| i != v && Some(i) != row)
            .collect();
        let extent = space[*outer.first()?];
        if extent < threads || (extent % threads != 0 && extent < 4 * threads) {
            return None;
        }
        // The bytes of the operands that read the outer loops (the input)
        // and of those that read `v` alone (the weights).
        let (mut rows, mut cols) = (0u64, 0u64);
        for (o, d) in self.operands() {
            let bytes = d.iter().product::<u64>().saturating_mul(self.elem_bytes);
            if o.iter().any(|a| outer.iter().any(|&i| a.uses(i))) {
                rows = rows.saturating_add(bytes);
            } else if o.iter().any(|a| a.uses(v)) {
                cols = cols.saturating_add(bytes);
            }
        }
        // Each thread's share of `v` in whole blocks, and of the outer loop.
        let by_v = space[v].div_ceil(threads).div_ceil(block) * block;
        let share = extent.div_ceil(threads);
        let packed = panel_operand(self.p, v, k, None).is_some();
        if by_v >= space[v] {
            // `v` too narrow to split.
            return packed.then_some(Split::Tiles(share));
        }
        let l2 = self.target.l2;
        // The channels' blocks load the busier thread more than the rows'
        // share would (`by_v / space[v] > share / extent`).
        let uneven = u128::from(by_v) * u128::from(extent)
            > u128::from(share) * u128::from(space[v])
            && cols <= l2.saturating_mul(8);
        if rows.saturating_mul(2) >= cols || uneven {
            return Some(Split::Tiles(share));
        }
        (!packed && cols > l2).then_some(Split::Whole(share))
    }

    /// Whether the threads share the nest's loops: `parallel` on, and
    /// more than one thread.
    pub(super) fn threaded(&self) -> bool {
        self.target.parallel && self.target.threads > 1
    }

    /// The first outer loop's tile when the threads split it into tiles
    /// of `rows`: the L2 tile (`l2`, [`Plan::outer_tile`]) instead when
    /// it is smaller, in a number of tiles the threads divide (a
    /// 128 → 128 3×3 convolution on 112² keeps its tiles of a few output
    /// rows, whose result cells stay in L2 across the reduction's tiles).
    ///
    /// [`Plan::outer_tile`]: crate::schedule::plan::Plan::outer_tile
    pub(super) fn split_tile(&self, split: Split, l2: Option<u64>, outer: &[usize]) -> u64 {
        let rows = match split {
            Split::Whole(rows) => return rows,
            Split::Tiles(rows) => rows,
        };
        let Some(r) = l2.filter(|&r| r < rows) else {
            return rows;
        };
        let extent = self.space()[outer[0]];
        let tiles = extent.div_ceil(r).div_ceil(self.target.threads) * self.target.threads;
        extent.div_ceil(tiles)
    }
}
