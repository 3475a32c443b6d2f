//! Emits a [`Plan`]: for every combination of the block's main and
//! remainder segments, the outer loops, the cache tile loops, the point
//! loops of the register block and the micro-kernel: accumulators loaded
//! once (or started at the neutral element), carried through the reduction
//! loops as `iter_args`, and stored once.

use melior::{dialect::ods, ir::Value};

use super::{
    pack,
    view::{Op, Packed},
};
use crate::lower_to_affine::emit::{At, Emitter};
use crate::{
    buffers::element_of,
    schedule::plan::{Lanes, Plan, Segment, segments},
};

/// The operands to pack, their panels and the block's tile positions.
type Packing<'p, 'c, 'a> = (
    &'p [Option<usize>; 2],
    &'p [Option<Value<'c, 'a>>; 2],
    &'p [Option<Value<'c, 'a>>],
);

impl<'c> Emitter<'c> {
    /// The op's nests per `plan`, at `at`; the result is already filled
    /// (neutral element, or the addend) where the plan accumulates.
    pub(in crate::lower_to_affine) fn lower_planned<'a>(
        &self,
        at: At<'c, 'a>,
        plan: &Plan,
        op: &Op<'_, 'c, 'a>,
    ) -> Result<(), String> {
        let space = &op.p.product_space;
        let per_iter: Vec<Vec<Segment>> = plan
            .unrolled
            .iter()
            .map(|u| segments(u, space[u.iter], plan.width))
            .collect();
        // Every combination of segments, main ones first.
        let mut combos: Vec<Vec<Segment>> = vec![vec![]];
        for segs in &per_iter {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    segs.iter().map(move |s| {
                        let mut c = c.clone();
                        c.push(*s);
                        c
                    })
                })
                .collect();
        }
        for combo in combos {
            self.instance(at, plan, op, &combo)?;
        }
        Ok(())
    }

    /// One combination of segments: outer, tile and point loops, then the
    /// micro-kernel.
    fn instance<'a>(
        &self,
        mut at: At<'c, 'a>,
        plan: &Plan,
        op: &Op<'_, 'c, 'a>,
        combo: &[Segment],
    ) -> Result<(), String> {
        let loc = op.loc;
        let space = &op.p.product_space;
        let zero = self.index_constant(at, 0, loc);
        let mut ivs: Vec<Value<'c, 'a>> = vec![zero; space.len()];
        // The parallel loop: the first outer loop; else, in a tiled
        // contraction with a tiled block of rows, the rows' tile loop
        // (inside the reduction's tile loop: each thread writes its own
        // rows, and the panel packed along the vector iterator is filled
        // once for all of them); else the first tile loop; else the first
        // point loop.
        let rows_tiled = combo.len() == 2 && combo[1].tile.is_some();
        let parallel_tile = if plan.lanes == Lanes::Result && plan.k_tile.is_some() && rows_tiled {
            Some(1)
        } else {
            (0..combo.len()).find(|&j| combo[j].tile.is_some())
        };
        let parallel_on = self.target.parallel;
        for (n, &i) in plan.outer.iter().enumerate() {
            let l = self.for_loop(
                at,
                self.range(0, space[i]),
                1,
                &[],
                parallel_on && n == 0,
                loc,
            );
            ivs[i] = l.iv;
            at = l.body;
        }
        let outer_parallel = parallel_on && !plan.outer.is_empty();
        // Tile loops: the first block iterator's, the reduction's, the
        // second block iterator's.
        let mut tiles: Vec<Option<Value<'c, 'a>>> = vec![None; combo.len()];
        let mut k_tile = None;
        let order: Vec<Option<usize>> = match combo.len() {
            0 => vec![None],
            1 => vec![Some(0), None],
            _ => vec![Some(0), None, Some(1)],
        };
        // Packed panels ([`super::pack`]): the operand read along the
        // vector iterator (allocated in the first tile loop), and the one
        // read along the rows (allocated in the rows' tile loop); each
        // thread has its own.
        let pack_operands = [
            combo.first().and_then(|m| pack::candidate(plan, op, m)),
            pack::row_candidate(plan, op, combo),
        ];
        let mut op = *op;
        let mut panels: [Option<Value<'c, 'a>>; 2] = [None; 2];
        let elem = element_of(op.buf);
        for slot in order {
            match slot {
                Some(j) => {
                    let Some(t) = combo[j].tile else { continue };
                    let s = &combo[j];
                    let p = parallel_on && !outer_parallel && parallel_tile == Some(j);
                    let l = self.for_loop(at, self.range(s.lo, s.hi), t, &[], p, loc);
                    tiles[j] = Some(l.iv);
                    at = l.body;
                    if let (Some(_), Some((_, kc))) = (pack_operands[j], plan.k_tile) {
                        let buf = self.alloc_panel(at, elem, kc, t, s.step, loc);
                        let free = self.put(at, ods::memref::dealloc(self.ctx, buf, loc));
                        // The loops go between the two.
                        at = At {
                            block: at.block,
                            before: Some(free),
                        };
                        panels[j] = Some(buf);
                    }
                    if j == 1 {
                        let packing = (&pack_operands, &panels, tiles.as_slice());
                        self.pack(at, plan, &mut op, combo, packing, 1, k_tile, false);
                    }
                }
                None => {
                    if let Some((k, kc)) = plan.k_tile {
                        let l = self.for_loop(at, self.range(0, space[k]), kc, &[], false, loc);
                        k_tile = Some((k, kc, l.iv));
                        at = l.body;
                        let packing = (&pack_operands, &panels, tiles.as_slice());
                        // Shared by the threads of the rows' tile loop:
                        // filled by all of them.
                        let shared = parallel_on && !outer_parallel && parallel_tile == Some(1);
                        self.pack(at, plan, &mut op, combo, packing, 0, k_tile, shared);
                    }
                }
            }
        }
        for (j, s) in combo.iter().enumerate() {
            let range = match (tiles[j], s.tile) {
                (Some(t), Some(size)) => self.tile(t, size, s.hi),
                _ => self.range(s.lo, s.hi),
            };
            let p = parallel_on && !outer_parallel && parallel_tile.is_none() && j == 0;
            let l = self.for_loop(at, range, s.step, &[], p, loc);
            ivs[plan.unrolled[j].iter] = l.iv;
            at = l.body;
        }
        self.micro_kernel(at, plan, &op, combo, ivs, k_tile)
    }

    /// Fills panel `p` (0: the operand read along the vector iterator, 1:
    /// the rows' operand) at `at`, where its tiles' positions are known,
    /// and records it in `op`; `parallel`: with every thread.
    #[allow(clippy::too_many_arguments)]
    fn pack<'a>(
        &self,
        at: At<'c, 'a>,
        plan: &Plan,
        op: &mut Op<'_, 'c, 'a>,
        combo: &[Segment],
        (operands, panels, tiles): Packing<'_, 'c, 'a>,
        p: usize,
        k_tile: Option<(usize, u64, Value<'c, 'a>)>,
        parallel: bool,
    ) {
        let (Some(n), Some(buf), Some(jt), Some((k, kc, kt))) = (
            operands[p],
            panels[p],
            tiles.get(p).copied().flatten(),
            k_tile,
        ) else {
            return;
        };
        let s = &combo[p];
        let packed = Packed {
            operand: n,
            buf,
            iter: plan.unrolled[p].iter,
            nr: s.step,
            lanes: s.vector,
            k,
            kt,
            jt,
            block: None,
        };
        let nc = s.tile.expect("packed segments are tiled");
        self.fill_panel(at, plan, op, packed, kc, nc, s.hi, parallel);
        op.packed[p] = Some(packed);
    }
}
