//! Emits a [`Plan`]: for every combination of the block's main and
//! remainder segments, the outer loops, the cache tile loops, the point
//! loops of the register block and the micro-kernel: accumulators loaded
//! once (or started at the neutral element), carried through the reduction
//! loops as `iter_args`, and stored once.

use melior::ir::{Location, Type, Value};
use ocannl_shape::projection::Projections;

use super::{
    compute::{Accum, Compute},
    emit::{At, Emitter},
    fusion::Step,
    pack::{self, Packed},
    schedule::{Plan, Unrolled},
};

/// One stretch of an unrolled iterator: `[lo, hi)` in steps of `step`,
/// `factor` copies per step, vector lanes or scalars, maybe tiled.
#[derive(Debug, Clone, Copy)]
pub(super) struct Segment {
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
fn segments(u: &Unrolled, extent: u64, width: u64) -> Vec<Segment> {
    let unit = if u.lanes { width } else { 1 };
    let block = u.factor * unit;
    let m1 = extent / block * block;
    let mut out = vec![Segment {
        lo: 0,
        hi: m1,
        step: block,
        factor: u.factor,
        vector: u.lanes,
        tile: u.tile.filter(|&t| t < m1),
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

/// What the micro-kernel needs besides the plan.
#[derive(Clone, Copy)]
pub(super) struct Op<'o, 'c, 'a> {
    pub p: &'o Projections,
    pub operands: &'o [Value<'c, 'a>],
    /// The operand the result starts from (`fma`'s addend): not read here.
    pub init: Option<usize>,
    pub compute: &'o Compute,
    /// How values reach the result: accumulated (`Some`) or stored.
    pub accum: Option<Accum>,
    /// Pointwise steps applied to each final value before it is stored
    /// (fused consumers, [`super::fusion`]).
    pub epilogue: &'o [Step<'c, 'a>],
    pub buf: Value<'c, 'a>,
    pub loc: Location<'c>,
    /// The operand panel packed for this nest ([`super::pack`]).
    pub packed: Option<Packed<'c, 'a>>,
}

/// The micro-kernel's mode: its element type and whether the lanes are on.
#[derive(Clone, Copy)]
pub(super) struct Mode<'c> {
    /// `vector<width x elem>` or `elem`.
    pub ty: Type<'c>,
    pub vector: bool,
}

impl<'c> Mode<'c> {
    /// The vector type when the lanes are on (for [`Emitter::load_as`]).
    pub(super) fn lanes(self) -> Option<Type<'c>> {
        self.vector.then_some(self.ty)
    }
}

impl<'c> Emitter<'c> {
    /// The op's nests per `plan`, at `at`; the result is already filled
    /// (neutral element, or the addend) where the plan accumulates.
    pub(super) fn lower_planned<'a>(
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
        let mut first_parallel = true;
        let mut parallel = |em: &Self| {
            let p = em.target.parallel && first_parallel;
            first_parallel = false;
            p
        };
        for &i in &plan.outer {
            let l = self.for_loop(at, self.range(0, space[i]), 1, &[], parallel(self), loc);
            ivs[i] = l.iv;
            at = l.body;
        }
        // Tile loops: the first block iterator's, the reduction's, the
        // second block iterator's.
        let mut tiles: Vec<Option<Value<'c, 'a>>> = vec![None; combo.len()];
        let mut k_tile = None;
        let order: Vec<Option<usize>> = match combo.len() {
            0 => vec![None],
            1 => vec![Some(0), None],
            _ => vec![Some(0), None, Some(1)],
        };
        let pack_operand = combo.first().and_then(|m| pack::candidate(plan, op, m));
        let mut op = *op;
        let mut panel = None;
        for slot in order {
            match slot {
                Some(j) => {
                    if let Some(t) = combo[j].tile {
                        let s = &combo[j];
                        let l =
                            self.for_loop(at, self.range(s.lo, s.hi), t, &[], parallel(self), loc);
                        tiles[j] = Some(l.iv);
                        at = l.body;
                        if j == 0
                            && let (Some(_), Some((_, kc))) = (pack_operand, plan.k_tile)
                        {
                            // One panel per thread: allocated in the
                            // (parallel) tile loop, freed at its end.
                            let elem = super::buffers::element_of(op.buf);
                            let buf = self.alloc_panel(at, elem, kc, t, loc);
                            let free = self.emit(at, "memref.dealloc", &[buf], &[], &[], loc);
                            // The loops go between the two.
                            at = At {
                                block: at.block,
                                before: Some(free),
                            };
                            panel = Some(buf);
                        }
                    }
                }
                None => {
                    if let Some((k, kc)) = plan.k_tile {
                        let l = self.for_loop(at, self.range(0, space[k]), kc, &[], false, loc);
                        k_tile = Some((k, kc, l.iv));
                        at = l.body;
                        if let (Some(n), Some(buf), Some(jt)) =
                            (pack_operand, panel, tiles.first().copied().flatten())
                        {
                            let packed = Packed {
                                operand: n,
                                buf,
                                k,
                                kt: l.iv,
                                jt,
                            };
                            let nc = combo[0].tile.expect("tiled");
                            self.fill_panel(at, plan, &op, packed, kc, nc, combo[0].hi);
                            op.packed = Some(packed);
                        }
                    }
                }
            }
        }
        for (j, s) in combo.iter().enumerate() {
            let range = match (tiles[j], s.tile) {
                (Some(t), Some(size)) => self.tile(t, size, s.hi),
                _ => self.range(s.lo, s.hi),
            };
            let p = tiles.iter().all(Option::is_none) && parallel(self);
            let l = self.for_loop(at, range, s.step, &[], p, loc);
            ivs[plan.unrolled[j].iter] = l.iv;
            at = l.body;
        }
        self.micro_kernel(at, plan, &op, combo, ivs, k_tile)
    }
}
