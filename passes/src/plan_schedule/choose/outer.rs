//! Where a tiled contraction's outer loops (a convolution's output rows)
//! run relative to its reduction tile and its block columns:
//! [`Plan::outer_tile`](crate::schedule::plan::Plan::outer_tile) and
//! [`Plan::outer_in_block`](crate::schedule::plan::Plan::outer_in_block).

use super::{Nest, extents_but};
#[cfg(doc)]
use crate::plan_schedule::target::Target;
use crate::schedule::{legal::panel_operand, plan::Unrolled};

impl Nest<'_> {
    /// Whether the outer loops (a convolution's output rows) run inside
    /// the first block column's point loop ([`Plan::outer_in_block`]):
    /// under a reduction tile, when the operand read along the vector
    /// iterator is read in place (not packed per reduction tile: a
    /// convolution's weights, laid out in micro-panels when compiling and
    /// cold from memory inside a model) and the block columns of one tile
    /// of the vector iterator read more of it per reduction tile than
    /// L1's budget ([`Target::l1_budget`]). Then each outer iteration
    /// would stream that from L2 again; inside one block column, its part
    /// stays in L1 across them. Measured on ResNet-50 (per-op minima): the 3×3 convolutions
    /// on 7² and 14² gained 8–15% at 1 and 2 threads, those on 28² were
    /// even; for 1×1 convolutions, whose weights the kernel packs per
    /// reduction tile (hot in L2), it lost up to 15% on 14² and 28² and is
    /// not chosen.
    pub(super) fn outer_in_block(
        &self,
        outer: &[usize],
        unrolled: &[Unrolled],
        k_tile: Option<(usize, u64)>,
    ) -> bool {
        let (Some((k, kc)), Some(cols)) = (k_tile, unrolled.first()) else {
            return false;
        };
        let space = self.space();
        let v = cols.iter;
        if outer.is_empty() || panel_operand(self.p, v, k, None).is_some() {
            return false;
        }
        // The vector iterator's cells one tile of it covers, and the
        // reduction's taps besides the tiled iterator.
        let span = cols.tile.unwrap_or(space[v]).min(space[v]);
        let taps = extents_but(space, &self.reductions, k);
        span > cols.factor * self.width
            && kc * taps * span * self.elem_bytes > self.target.l1_budget()
    }

    /// The tile of the first outer loop (a convolution's output rows) that
    /// runs around the reduction's tile loop, when that moves fewer bytes
    /// past L2. Without it (the default), each reduction tile sweeps every
    /// outer iteration, and the result's cells that one tile of the vector
    /// iterator covers are loaded and stored once per reduction tile: from
    /// L3 when they overflow half of L2 (a 128 → 128 3×3 convolution on
    /// 112² re-read 6 MB per tile of 8 input channels, and two threads
    /// gained 1.13×). With it, as many output rows as fit in half of L2
    /// stay there across the reduction's tiles, and the operands that read
    /// no outer iterator (the weights) are read once per outer tile: from
    /// L3 when they overflow half of L2 (ResNet-50's 512 → 512 3×3 weights,
    /// 9.4 MB for 7 output rows, ran 2× slower read once per row). Never
    /// when a panel is packed in the reduction tile (it would be packed
    /// again per outer tile).
    pub(super) fn outer_tile(
        &self,
        outer: &[usize],
        unrolled: &[Unrolled],
        k_tile: Option<(usize, u64)>,
    ) -> Option<u64> {
        let (Some((k, kc)), Some(cols), Some(&first)) = (k_tile, unrolled.first(), outer.first())
        else {
            return None;
        };
        let space = self.space();
        let v = cols.iter;
        if panel_operand(self.p, v, k, None).is_some() {
            return None;
        }
        // The share of the vector iterator one of its tiles covers.
        let share = cols.tile.unwrap_or(space[v]).min(space[v]) as f64 / space[v].max(1) as f64;
        let elem = self.elem_bytes as f64;
        let half_l2 = self.target.l2 as f64 / 2.0;
        let result = self
            .parallel
            .iter()
            .map(|&i| space[i] as f64)
            .product::<f64>()
            * elem
            * share;
        if result <= half_l2 {
            return None;
        }
        let reused: f64 = self
            .operands()
            .filter(|(o, _)| !o.iter().any(|a| outer.iter().any(|&i| a.uses(i))))
            .map(|(o, d)| {
                let part = if o.iter().any(|a| a.uses(v)) {
                    share
                } else {
                    1.0
                };
                d.iter().map(|&x| x as f64).product::<f64>() * elem * part
            })
            .sum();
        let fit = ((half_l2 * space[first] as f64 / result) as u64).clamp(1, space[first]);
        // Tiles of even size (28 rows in two tiles of 14, not 18 and 10).
        let tiles = space[first].div_ceil(fit);
        let rows = space[first].div_ceil(tiles);
        let tiles = tiles as f64;
        let inside = 2.0 * space[k].div_ceil(kc) as f64 * result;
        let tiled = if reused > half_l2 {
            tiles * reused
        } else {
            0.0
        };
        (rows < space[first] && tiled < inside).then_some(rows)
    }
}
