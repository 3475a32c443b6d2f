//! Packing ([`super::schedule::Lanes::Result`] with a reduction tile): the
//! panel of the operand read along the vector iterator, `k_tile × v_tile`
//! cells of it, copied into a contiguous buffer once per pair of tiles and
//! read from there by every row of the block. Read in place, its rows lie
//! a whole operand row apart: at a power-of-two row length they all fall in
//! one L1 set, and each row of the panel is on its own page (a 2048²
//! matmul ran 4× slower than at 1024³ × 8). BLIS packs the same panel.

use melior::ir::{AffineExpr, AffineMap, Attribute, Location, Type, Value, r#type::MemRefType};
use ocannl_dialect::ir;
use ocannl_shape::projection::AxisIndex;

use super::{
    buffers::element_of,
    emit::{At, Emitter},
    kernel::{Op, Segment},
    schedule::{Lanes, Plan},
};

/// A packed panel: which operand, its buffer (`memref<kc x nc x elem>`),
/// and the tiles' first positions.
#[derive(Clone, Copy)]
pub(super) struct Packed<'c, 'a> {
    pub operand: usize,
    pub buf: Value<'c, 'a>,
    /// The reduction iterator and its tile's first position.
    pub k: usize,
    pub kt: Value<'c, 'a>,
    /// The vector iterator's tile's first position.
    pub jt: Value<'c, 'a>,
}

/// The operand to pack for the main segment `main` of `plan`: the one
/// operand read along the vector iterator whose every axis is the tiled
/// reduction, the vector iterator, or of size 1 (a plain 2-D panel).
pub(super) fn candidate(plan: &Plan, op: &Op<'_, '_, '_>, main: &Segment) -> Option<usize> {
    let (k, _) = plan.k_tile?;
    if plan.lanes != Lanes::Result || main.tile.is_none() || !main.vector {
        return None;
    }
    let space = &op.p.product_space;
    let v = plan.vector;
    let mut found = None;
    for (n, indices) in op.p.operands.iter().enumerate() {
        if Some(n) == op.init || !indices.iter().any(|a| a.uses(v)) {
            continue;
        }
        let plain = indices.iter().all(|a| match a {
            AxisIndex::Iter(i) => *i == k || *i == v || space[*i] == 1,
            AxisIndex::Fixed(_) => true,
            _ => false,
        }) && indices.iter().any(|a| a.uses(k));
        if !plain || found.is_some() {
            return None;
        }
        found = Some(n);
    }
    found
}

impl<'c> Emitter<'c> {
    /// `memref.alloc` of a `kc × nc` panel of `elem`.
    pub(super) fn alloc_panel<'a>(
        &self,
        at: At<'c, 'a>,
        elem: Type<'c>,
        kc: u64,
        nc: u64,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let ty = MemRefType::new(elem, &[kc as i64, nc as i64], None, None).into();
        self.alloc(at, ty, loc)
    }

    /// Copies the operand's cells `[kt, min(kt + kc, K)) × [jt, min(jt +
    /// nc, hi))` into the panel, a vector at a time.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fill_panel<'a>(
        &self,
        at: At<'c, 'a>,
        plan: &Plan,
        op: &Op<'_, 'c, 'a>,
        packed: Packed<'c, 'a>,
        kc: u64,
        nc: u64,
        hi: u64,
    ) {
        let loc = op.loc;
        let space = &op.p.product_space;
        let src = op.operands[packed.operand];
        let ty = self.vector_type(element_of(src), plan.width);
        let kl = self.for_loop(
            at,
            self.tile(packed.kt, kc, space[packed.k]),
            1,
            &[],
            false,
            loc,
        );
        let jl = self.for_loop(
            kl.body,
            self.tile(packed.jt, nc, hi),
            plan.width,
            &[],
            false,
            loc,
        );
        let zero = self.index_constant(jl.body, 0, loc);
        let mut ivs = vec![zero; space.len()];
        ivs[packed.k] = kl.iv;
        ivs[plan.vector] = jl.iv;
        let map = self.map(space.len(), &op.p.operands[packed.operand]);
        let v = self.load_as(jl.body, src, map, &ivs, Some(ty), loc);
        let (panel_map, operands) = self.panel_map(packed, kl.iv, jl.iv);
        self.store(jl.body, v, packed.buf, panel_map, &operands, loc);
    }

    /// The panel's map `(k, j, kt, jt) -> (k - kt, j - jt)` and its operands.
    fn panel_map<'a>(
        &self,
        packed: Packed<'c, 'a>,
        k: Value<'c, 'a>,
        j: Value<'c, 'a>,
    ) -> (Attribute<'c>, Vec<Value<'c, 'a>>) {
        let d = |i| AffineExpr::dim(self.ctx, i);
        let minus = AffineExpr::constant(self.ctx, -1);
        let map = AffineMap::new(self.ctx, 4, 0, &[d(0) + d(2) * minus, d(1) + d(3) * minus]);
        (ir::affine_map_attr(map), vec![k, j, packed.kt, packed.jt])
    }

    /// The packed operand's vector at `ivs`.
    pub(super) fn load_panel<'a>(
        &self,
        at: At<'c, 'a>,
        plan: &Plan,
        packed: Packed<'c, 'a>,
        ivs: &[Value<'c, 'a>],
        ty: Type<'c>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let (map, operands) = self.panel_map(packed, ivs[packed.k], ivs[plan.vector]);
        self.load_as(at, packed.buf, map, &operands, Some(ty), loc)
    }
}
