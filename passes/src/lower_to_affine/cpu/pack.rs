//! Packing ([`Lanes::Result`] with a reduction tile): the
//! panel of the operand read along the vector iterator, `k_tile × v_tile`
//! cells of it, copied into a contiguous buffer once per pair of tiles and
//! read from there by every row of the block. Read in place, its rows lie
//! a whole operand row apart: at a power-of-two row length they all fall in
//! one L1 set, and each row of the panel is on its own page (a 2048²
//! matmul ran 4× slower than at 1024³ × 8). BLIS packs the same panel, and
//! in the same order: micro-panels of the block's width (`nr` columns),
//! each `k_tile × nr` cells contiguous (`memref<nc/nr x kc x nr>`), so that
//! the micro-panel one block column reads stays in L1 while the block
//! sweeps the rows (laid out `kc × nc`, a micro-panel's rows were `nc`
//! cells apart and fell into 4 of L1's 64 sets).

use melior::ir::{AffineExpr, AffineMap, Attribute, Location, Type, Value, r#type::MemRefType};
use ocannl_dialect::ir;

use super::view::{Op, Packed};
use crate::lower_to_affine::emit::{At, Emitter};
use crate::{
    buffers::{buffer_dims, element_of},
    schedule::legal::panel_operand,
    schedule::memory::reads_along,
    schedule::plan::{Lanes, Plan, Segment},
};

/// The cells a panel's copy covers: `kc` of the reduction from its tile's
/// first position, `nc` of the packed iterator from its tile's, up to
/// `hi`.
#[derive(Clone, Copy)]
pub(super) struct PanelSpan {
    pub kc: u64,
    pub nc: u64,
    pub hi: u64,
}

/// The operand to pack for the main segment `main` of `plan`'s vector
/// iterator: the one operand read along it (a plain 2-D panel), unless it
/// was laid out in micro-panels when compiling (`op.blocked`) and is read
/// in place.
pub(super) fn candidate(plan: &Plan, op: &Op<'_, '_, '_>, main: &Segment) -> Option<usize> {
    let (k, _) = plan.k_tile?;
    if plan.lanes != Lanes::Result || main.tile.is_none() || !main.vector {
        return None;
    }
    panel_operand(op.p, plan.vector, k, op.init)
        .filter(|&n| op.blocked.as_ref().is_none_or(|b| b.operand != n))
}

/// The operand to pack for the rows of `combo` (the vector iterator's main
/// segment, then the rows' main segment, tiled): the one operand that
/// reads the rows (BLIS's packed A: its rows lie a whole row of the
/// operand apart, and at a power-of-two length the rows of a tile all fall
/// into the same few L2 sets).
pub(super) fn row_candidate(plan: &Plan, op: &Op<'_, '_, '_>, combo: &[Segment]) -> Option<usize> {
    let (k, _) = plan.k_tile?;
    let [cols, rows] = combo else { return None };
    if plan.lanes != Lanes::Result
        || cols.tile.is_none()
        || !cols.vector
        || rows.tile.is_none()
        || rows.vector
        || rows.factor < 2
    {
        return None;
    }
    let u = plan.unrolled.get(1)?.iter;
    let n = panel_operand(op.p, u, k, op.init)?;
    // It broadcasts: it does not read the vector iterator.
    (!op.p.operands[n].iter().any(|a| a.uses(plan.vector))).then_some(n)
}

impl<'c> Emitter<'c> {
    /// `memref.alloc` of a `kc × nc` panel of `elem` in micro-panels of
    /// `nr` columns (`nr` divides `nc`).
    pub(super) fn alloc_panel<'a>(
        &self,
        at: At<'c, 'a>,
        elem: Type<'c>,
        kc: u64,
        nc: u64,
        nr: u64,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let dims = [(nc / nr) as i64, kc as i64, nr as i64];
        let ty = MemRefType::new(elem, &dims, None, None).into();
        self.alloc(at, ty, loc)
    }

    /// Copies the operand's cells `[kt, min(kt + kc, K)) × [jt, min(jt +
    /// nc, hi))` (along `packed.iter`; `hi - jt` is a multiple of `nr`;
    /// `kc`, `nc` and `hi` from `span`) into the panel: a vector at a time
    /// where the operand is contiguous along `packed.iter`, reading its
    /// rows; else a cell at a time, each micro-panel's cells in turn,
    /// reading along the reduction (the rows' operand, and a transposed
    /// operand read along the vector iterator). `parallel`: the copies are
    /// spread over the threads (a panel shared by the threads of the loop
    /// inside).
    pub(super) fn fill_panel<'a>(
        &self,
        at: At<'c, 'a>,
        plan: &Plan,
        op: &Op<'_, 'c, 'a>,
        packed: Packed<'c, 'a>,
        span: PanelSpan,
        parallel: bool,
    ) {
        let PanelSpan { kc, nc, hi } = span;
        let loc = op.loc;
        let space = &op.p.product_space;
        let src = op.operands[packed.operand];
        let k_range = self.tile(packed.kt, kc, space[packed.k]);
        let j_range = self.tile(packed.jt, nc, hi);
        let indices = &op.p.operands[packed.operand];
        let vectors =
            packed.lanes && reads_along(indices, &buffer_dims(src), packed.iter) == Some(true);
        let (k, j, body) = if vectors {
            let kl = self.for_loop(at, k_range, 1, &[], parallel, loc);
            let jl = self.for_loop(kl.body, j_range, packed.nr, &[], false, loc);
            (kl.iv, jl.iv, jl.body)
        } else {
            let jl = self.for_loop(at, j_range, packed.nr, &[], parallel, loc);
            let kl = self.for_loop(jl.body, k_range, 1, &[], false, loc);
            (kl.iv, jl.iv, kl.body)
        };
        let block = self.panel_block(body, packed, j, loc);
        let zero = self.index_constant(body, 0, loc);
        let mut ivs = vec![zero; space.len()];
        ivs[packed.k] = k;
        let map = self.map(space.len(), &op.p.operands[packed.operand]);
        let (unit, ty) = if vectors {
            let ty = self.vector_type(element_of(src), plan.width);
            (plan.width, Some(ty))
        } else {
            (1, None)
        };
        for c in (0..packed.nr).step_by(unit as usize) {
            ivs[packed.iter] = self.offset(body, j, c as i64, loc);
            let v = self.load_as(body, src, map, &ivs, ty, loc);
            let (panel_map, operands) = self.panel_map(packed, k, block, c);
            self.store(body, v, packed.buf, panel_map, &operands, loc);
        }
    }

    /// The micro-panel holding position `j` of `packed.iter` (`(j - jt)
    /// floordiv nr`).
    pub(super) fn panel_block<'a>(
        &self,
        at: At<'c, 'a>,
        packed: Packed<'c, 'a>,
        j: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let d = |i| AffineExpr::dim(self.ctx, i);
        let col = d(0) + d(1) * AffineExpr::constant(self.ctx, -1);
        let nr = AffineExpr::constant(self.ctx, packed.nr as i64);
        self.apply(at, AffineExpr::floor_div(col, nr), &[j, packed.jt], loc)
    }

    /// The panel's map `(k, kt, block) -> (block, k - kt, c)` and its
    /// operands.
    fn panel_map<'a>(
        &self,
        packed: Packed<'c, 'a>,
        k: Value<'c, 'a>,
        block: Value<'c, 'a>,
        c: u64,
    ) -> (Attribute<'c>, Vec<Value<'c, 'a>>) {
        let d = |i| AffineExpr::dim(self.ctx, i);
        let minus = AffineExpr::constant(self.ctx, -1);
        let map = AffineMap::new(
            self.ctx,
            3,
            0,
            &[
                d(2),
                d(0) + d(1) * minus,
                AffineExpr::constant(self.ctx, c as i64),
            ],
        );
        (ir::affine_map_attr(map), vec![k, packed.kt, block])
    }

    /// The packed operand at reduction position `k`, `c` cells into the
    /// block whose micro-panel is `packed.block`: a vector of `ty` when
    /// the panel has lanes, else a cell (broadcast to `ty` when `ty` is a
    /// vector).
    pub(super) fn load_panel<'a>(
        &self,
        at: At<'c, 'a>,
        packed: Packed<'c, 'a>,
        k: Value<'c, 'a>,
        c: u64,
        ty: Type<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        let block = packed
            .block
            .ok_or("the packed panel is read outside a block")?;
        let (map, operands) = self.panel_map(packed, k, block, c);
        if packed.lanes {
            return Ok(self.load_as(at, packed.buf, map, &operands, Some(ty), loc));
        }
        let v = self.load_as(at, packed.buf, map, &operands, None, loc);
        Ok(if ty == element_of(packed.buf) {
            v
        } else {
            self.broadcast(at, v, ty, loc)
        })
    }
}
