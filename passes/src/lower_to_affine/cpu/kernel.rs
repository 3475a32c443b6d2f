//! Emits a [`Plan`]: for every combination of the block's main and
//! remainder segments ([`Instance`]), the outer loops, the cache tile
//! loops, the point loops of the register block and the micro-kernel:
//! accumulators loaded once (or started at the neutral element), carried
//! through the reduction loops as `iter_args`, and stored once.

use melior::{dialect::ods, ir::Value};

use super::{
    pack::{self, PanelSpan},
    view::{Op, Packed},
};
use crate::lower_to_affine::{
    Module,
    emit::{At, Emitter},
};
use crate::{
    buffers::element_of,
    schedule::plan::{Lanes, Plan, Segment, segments},
};

/// Which loop of an instance runs on the threads (`parallel=true`): with
/// the plan's `split_outer`, the first outer loop's tile loop; in a
/// tiled contraction split into tiles along its vector iterator, that tile
/// loop; else the first outer loop; else, in a tiled contraction with a tiled block of
/// rows, the rows' tile loop (inside the reduction's tile loop: each
/// thread writes its own rows, and the panel packed along the vector
/// iterator is filled once for all of them); else the first tile loop;
/// else the first point loop.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Parallel {
    Off,
    /// The first outer loop's tile loop ([`Plan::split_outer`]).
    OuterTile,
    Outer,
    /// The tile loop of block iterator `j`.
    Tile(usize),
    Point,
}

impl Parallel {
    fn of(on: bool, plan: &Plan, combo: &[Segment]) -> Self {
        if !on {
            return Self::Off;
        }
        if plan.split_outer {
            return Self::OuterTile;
        }
        // A tiled contraction split along its vector iterator into several
        // tiles (the planner's one per thread): that loop, outermost.
        let split = combo
            .first()
            .is_some_and(|s| s.tile.is_some_and(|t| t < s.hi - s.lo));
        if plan.lanes == Lanes::Result && plan.k_tile.is_some() && split {
            return Self::Tile(0);
        }
        if !plan.outer.is_empty() {
            return Self::Outer;
        }
        let rows_tiled = combo.len() == 2 && combo[1].tile.is_some();
        if plan.lanes == Lanes::Result && plan.k_tile.is_some() && rows_tiled {
            return Self::Tile(1);
        }
        match (0..combo.len()).find(|&j| combo[j].tile.is_some()) {
            Some(j) => Self::Tile(j),
            None => Self::Point,
        }
    }
}

/// Where an instance's outer loops (the parallel iterators outside the
/// block: a convolution's output rows `o0` besides the block's `o1`, a
/// batch) go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OuterAt {
    /// Outermost: without a reduction tile, or when an outer loop is the
    /// parallel one (one parallel region).
    First,
    /// Inside the reduction's tile loop (the default): the panel read there
    /// (packed or not) serves every outer iteration instead of being
    /// packed or streamed again per iteration.
    InReductionTile,
    /// The plan's `outer_tile`: the first outer loop's tile loop outside
    /// the reduction's tile loop (inside the first block tile, the
    /// threads' split), the outer point loops inside it, so that the
    /// result's cells of one outer tile (a few output rows of a
    /// convolution) stay in L2 across the reduction's tiles.
    Tiled(u64),
    /// The plan's `outer_in_block`: inside the first block iterator's
    /// point loop (one block column), outside the second's, so that the
    /// block column's part of the operand read along the vector iterator
    /// stays in L1 across the outer iterations. Not when the rows' operand
    /// is packed in the rows' tile loop (it reads the outer iterators):
    /// then [`Self::InReductionTile`].
    InBlock,
}

impl OuterAt {
    fn of(plan: &Plan, parallel: Parallel, rows_packed: bool) -> Self {
        // With `split_outer` the tile loop is already outermost: only the
        // point loops are placed here.
        let tile = plan.outer_tile.filter(|_| !plan.split_outer);
        match (plan.k_tile, parallel, tile) {
            (None, ..) | (_, Parallel::Outer, _) => Self::First,
            (_, _, Some(size)) => Self::Tiled(size),
            _ if plan.outer_in_block && !rows_packed => Self::InBlock,
            _ => Self::InReductionTile,
        }
    }
}

/// One combination of segments as its loops are built: where the next
/// loop goes, the iterators' positions, the tile loops' (one per block
/// iterator) and the reduction tile's, and the packed panels.
struct Instance<'i, 'o, 'c, 'a> {
    plan: &'i Plan,
    combo: &'i [Segment],
    /// The op, its packed panels recorded as they are filled.
    op: Op<'o, 'c, 'a>,
    at: At<'c, 'a>,
    ivs: Vec<Value<'c, 'a>>,
    tiles: Vec<Option<Value<'c, 'a>>>,
    k_tile: Option<(usize, u64, Value<'c, 'a>)>,
    /// The operands to pack ([`super::pack`]): the one read along the
    /// vector iterator (its panel allocated in the first tile loop), and
    /// the one read along the rows (in the rows' tile loop); their panels,
    /// each thread's own.
    pack: [Option<usize>; 2],
    panels: [Option<Value<'c, 'a>>; 2],
    parallel: Parallel,
    /// The first outer loop's tile loop, outermost ([`Plan::split_outer`]):
    /// its position and size.
    outer_split: Option<(Value<'c, 'a>, u64)>,
}

impl<'c> Emitter<'c> {
    /// The op's nests per `plan`, at `at`; the result is already filled
    /// (neutral element, or the addend) where the plan accumulates.
    pub(in crate::lower_to_affine) fn lower_planned<'a>(
        &self,
        module: &mut Module<'c, 'a>,
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
        // A constant operand read along the vector iterator (and not
        // packed per call): laid out here, once, in micro-panels.
        let main = per_iter.first().and_then(|s| s.first());
        let blocked = main.and_then(|m| self.block_constant(module, at, plan, op, m));
        let op = &Op { blocked, ..*op };
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
        at: At<'c, 'a>,
        plan: &Plan,
        op: &Op<'_, 'c, 'a>,
        combo: &[Segment],
    ) -> Result<(), String> {
        let zero = self.index_constant(at, 0, op.loc);
        let mut inst = Instance {
            plan,
            combo,
            op: *op,
            at,
            ivs: vec![zero; op.p.product_space.len()],
            tiles: vec![None; combo.len()],
            k_tile: None,
            pack: [
                combo.first().and_then(|m| pack::candidate(plan, op, m)),
                pack::row_candidate(plan, op, combo),
            ],
            panels: [None; 2],
            parallel: Parallel::of(self.target.parallel, plan, combo),
            outer_split: None,
        };
        if let (true, Some(size)) = (plan.split_outer, plan.outer_tile) {
            let parallel = inst.parallel == Parallel::OuterTile;
            inst.outer_split = Some((self.outer_tile(&mut inst, size, parallel), size));
        }
        // Tile loops: the first block iterator's, the reduction's, the
        // second block iterator's. Where the outer loops go
        // ([`OuterAt`]):
        let outer_at = OuterAt::of(plan, inst.parallel, inst.pack[1].is_some());
        if outer_at == OuterAt::First {
            self.outer_loops(&mut inst);
        }
        let order: &[Option<usize>] = match combo.len() {
            0 => &[None],
            1 => &[Some(0), None],
            _ => &[Some(0), None, Some(1)],
        };
        for slot in order {
            match *slot {
                Some(j) => self.block_tile(&mut inst, j),
                None => {
                    if let OuterAt::Tiled(size) = outer_at {
                        inst.outer_split = Some((self.outer_tile(&mut inst, size, false), size));
                    }
                    self.reduction_tile(&mut inst);
                    if !matches!(outer_at, OuterAt::First | OuterAt::InBlock) {
                        self.outer_loops(&mut inst);
                    }
                }
            }
        }
        self.point_loops(&mut inst, outer_at == OuterAt::InBlock);
        self.micro_kernel(inst.at, plan, &inst.op, combo, inst.ivs, inst.k_tile)
    }

    /// The loops over the plan's outer iterators; the first one's within
    /// its tile (`inst.outer_split`: the tile loop's position and size)
    /// when tiled.
    fn outer_loops(&self, inst: &mut Instance<'_, '_, 'c, '_>) {
        let (plan, p, loc) = (inst.plan, inst.op.p, inst.op.loc);
        for (n, &i) in plan.outer.iter().enumerate() {
            let parallel = inst.parallel == Parallel::Outer && n == 0;
            let range = match inst.outer_split {
                Some((t, size)) if n == 0 => self.tile(t, size, p.product_space[i]),
                _ => self.range(0, p.product_space[i]),
            };
            let l = self.for_loop(inst.at, range, 1, &[], parallel, loc);
            inst.ivs[i] = l.iv;
            inst.at = l.body;
        }
    }

    /// The first outer iterator's tile loop, by `size` (on the threads
    /// when `parallel`): its position.
    fn outer_tile<'a>(
        &self,
        inst: &mut Instance<'_, '_, 'c, 'a>,
        size: u64,
        parallel: bool,
    ) -> Value<'c, 'a> {
        let i = inst.plan.outer[0];
        let range = self.range(0, inst.op.p.product_space[i]);
        let l = self.for_loop(inst.at, range, size, &[], parallel, inst.op.loc);
        inst.at = l.body;
        l.iv
    }

    /// Block iterator `j`'s tile loop, when its segment is tiled: inside
    /// it, the panel of the operand packed there allocated (and freed after
    /// the loops inside), and for the rows (`j = 1`) packed.
    fn block_tile(&self, inst: &mut Instance<'_, '_, 'c, '_>, j: usize) {
        let s = inst.combo[j];
        let Some(t) = s.tile else { return };
        let loc = inst.op.loc;
        let parallel = inst.parallel == Parallel::Tile(j);
        let l = self.for_loop(inst.at, self.range(s.lo, s.hi), t, &[], parallel, loc);
        inst.tiles[j] = Some(l.iv);
        inst.at = l.body;
        if let (Some(_), Some((_, kc))) = (inst.pack[j], inst.plan.k_tile) {
            let elem = element_of(inst.op.buf);
            let buf = self.alloc_panel(inst.at, elem, kc, t, s.step, loc);
            let free = self.put(inst.at, ods::memref::dealloc(self.ctx, buf, loc));
            // The loops go between the two.
            inst.at = At {
                block: inst.at.block,
                before: Some(free),
            };
            inst.panels[j] = Some(buf);
        }
        if j == 1 {
            self.pack(inst, 1, false);
        }
    }

    /// The reduction's tile loop, when the plan tiles it, and inside it
    /// the panel read along the vector iterator packed (shared by the
    /// threads of the rows' tile loop when that one is parallel: filled by
    /// all of them).
    fn reduction_tile(&self, inst: &mut Instance<'_, '_, 'c, '_>) {
        let Some((k, kc)) = inst.plan.k_tile else {
            return;
        };
        let range = self.range(0, inst.op.p.product_space[k]);
        let l = self.for_loop(inst.at, range, kc, &[], false, inst.op.loc);
        inst.k_tile = Some((k, kc, l.iv));
        inst.at = l.body;
        let shared = inst.parallel == Parallel::Tile(1);
        self.pack(inst, 0, shared);
    }

    /// The point loops of the register block: over each block iterator's
    /// segment, within its tile when tiled, by the block's step; with
    /// `outer_in_block`, the outer loops inside the first one.
    fn point_loops(&self, inst: &mut Instance<'_, '_, 'c, '_>, outer_in_block: bool) {
        let (plan, combo) = (inst.plan, inst.combo);
        for (j, s) in combo.iter().enumerate() {
            let range = match (inst.tiles[j], s.tile) {
                (Some(t), Some(size)) => self.tile(t, size, s.hi),
                _ => self.range(s.lo, s.hi),
            };
            let parallel = inst.parallel == Parallel::Point && j == 0;
            let l = self.for_loop(inst.at, range, s.step, &[], parallel, inst.op.loc);
            inst.ivs[plan.unrolled[j].iter] = l.iv;
            inst.at = l.body;
            if outer_in_block && j == 0 {
                self.outer_loops(inst);
            }
        }
    }

    /// Fills panel `p` (0: the operand read along the vector iterator, 1:
    /// the rows' operand) at `inst.at`, where its tiles' positions are
    /// known, and records it in `inst.op`; `parallel`: with every thread.
    fn pack(&self, inst: &mut Instance<'_, '_, 'c, '_>, p: usize, parallel: bool) {
        let (Some(n), Some(buf), Some(jt), Some((k, kc, kt))) = (
            inst.pack[p],
            inst.panels[p],
            inst.tiles.get(p).copied().flatten(),
            inst.k_tile,
        ) else {
            return;
        };
        let s = &inst.combo[p];
        let packed = Packed {
            operand: n,
            buf,
            iter: inst.plan.unrolled[p].iter,
            nr: s.step,
            lanes: s.vector,
            k,
            kt,
            jt,
            block: None,
        };
        let span = PanelSpan {
            kc,
            nc: s.tile.expect("packed segments are tiled"),
            hi: s.hi,
        };
        self.fill_panel(inst.at, inst.plan, &inst.op, packed, span, parallel);
        inst.op.packed[p] = Some(packed);
    }
}
