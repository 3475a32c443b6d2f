//! Constant operands laid out for the micro-kernel when compiling (issue
//! 41, "constants are compile-time work"). A convolution's weights read
//! along the vector iterator `j` (its output channels, contiguous after the
//! layout stage's permutation: `kh, kw, c, m`) are read by the register
//! block `nr` channels at a time, for every tap and input channel: in place,
//! those `nr` cells are one short stretch of each row of `m` cells, a row
//! apart, and a model's weights come cold from memory (the model's other
//! weights evicted them) in a pattern the hardware prefetchers follow
//! poorly. Copied at compile time into micro-panels — `memref<nb x kh x
//! kw x c x nr>`, `nb = ceil(m / nr)`, zeros past `m` — each block column
//! reads one contiguous stretch instead (ONNX Runtime's NCHWc reorders its
//! weights the same way when it creates a session). The read of cell `(…,
//! j)` becomes `(j floordiv nr, …, j mod nr)`. The other axes follow the
//! micro-kernel's loops ([`panel_order`]): under a reduction tile the
//! tiled axis (the input channels) is split, its tile number first, so
//! that one tile of one block column (all its taps) is one stretch read in
//! order and the next block column's follows: a single stream the
//! prefetchers follow, where the taps' rows 64 KiB apart were nine
//! (ResNet-50's 3×3 convolutions on 7² and 14², whose weights serve few
//! pixels, 18–29% faster at one thread). The original global, unread
//! once every op of the function is lowered, is dropped
//! ([`crate::lower_to_affine::Module`]'s `drop_unread_constants`).
//!
//! An operand the micro-kernel packs per call ([`super::pack`]: a plain
//! panel under a reduction tile, as in a 1×1 convolution or a matmul) is
//! laid out here too, in the packed panel's order, when the product serves
//! each weight to fewer than [`IN_PLACE_ROWS`] result rows: there the copy
//! per call (a read and a write of every weight) is a large share of the
//! work. Elsewhere it is left alone: that copy streams the weights once
//! into a panel that stays hot across the rows. Measured on ResNet-50
//! (per-op minima, binaries alternated, `docs/performance.md`): the 1×1
//! convolutions on 7² (49 rows; 4 MB of weights for 0.1–0.2 GFLOP) ran
//! 13–25% faster read in place at one and two threads; those on 14² (196
//! rows) 3.5% faster at one thread and 5% at two on an AMD EPYC (1 MiB
//! L2), where an Intel Xeon (2 MiB L2) had measured them even at one and
//! about 5% slower at two in noisier runs; SqueezeNet's classifier (169
//! rows) 4–6% faster; those on 28² (784 rows) even.

use melior::ir::{
    AffineExpr, AffineMap, Attribute, OperationRef, Value,
    operation::{OperationLike, OperationResult},
    r#type::MemRefType,
};
use ocannl_dialect::ir;
use ocannl_shape::projection::AxisIndex;

use super::view::{Blocked, Op, Order};
use crate::lower_to_affine::{
    Module,
    emit::{At, Emitter},
};
use crate::{
    buffers::{buffer_dims, element_of},
    projection_attrs::index_expr,
    schedule::plan::{Lanes, Plan, Segment},
};

/// The constant global operand `v` is read from (`memref.get_global` of a
/// private constant `memref.global` this pass created for the function,
/// with dense data that is not a splat): the `get_global`, the global and
/// its data.
fn constant_source<'c, 'a>(
    module: &Module<'c, 'a>,
    v: Value<'c, 'a>,
) -> Option<(OperationRef<'c, 'a>, OperationRef<'c, 'a>, Attribute<'c>)> {
    let get = OperationResult::try_from(v).ok()?.owner();
    if ir::op_name(&get) != "memref.get_global" {
        return None;
    }
    let name = ir::symbol_ref_value(get.attribute("name").ok()?)?;
    let global = module.created_global(&name)?;
    global.attribute("constant").ok()?;
    let data = global.attribute("initial_value").ok()?;
    let e = ir::elements(data)?;
    (e.splat.is_none() && ir::is_dense_elements(data)).then_some((get, global, data))
}

/// Row-major `data` of memory dims `dims` (`cell` bytes a cell) as
/// micro-panels of `nr` cells of its last axis, the other axes in
/// `order`: dims [`Order::shape`], zero bytes past the last axis and past
/// the tiled axis's last tile. `None` when `data` is not that many cells.
fn micro_panels(data: &[u8], dims: &[u64], cell: usize, nr: u64, order: &Order) -> Option<Vec<u8>> {
    let cells = dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d))?;
    if nr == 0 || data.len() as u64 != cells.checked_mul(cell as u64)? {
        return None;
    }
    let shape = order.shape(dims, nr)?;
    let total = shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d))?;
    let mut out = vec![0u8; usize::try_from(total.checked_mul(cell as u64)?).ok()?];
    let r = dims.len();
    let mut idx = vec![0u64; r];
    for from in 0..cells {
        // The destination of source cell `idx` (row-major).
        let mut to = 0u64;
        let mut k = 0;
        if let Some((a, t)) = order.tile {
            to = idx[a] / t;
            k = 1;
        }
        to = to * shape[k] + idx[r - 1] / nr;
        k += 1;
        for a in order.order() {
            let i = match order.tile {
                Some((ta, t)) if ta == a => idx[a] % t,
                _ => idx[a],
            };
            to = to * shape[k] + i;
            k += 1;
        }
        to = to * nr + idx[r - 1] % nr;
        let (f, t) = ((from as usize) * cell, (to as usize) * cell);
        out[t..t + cell].copy_from_slice(&data[f..f + cell]);
        for a in (0..r).rev() {
            idx[a] += 1;
            if idx[a] < dims[a] {
                break;
            }
            idx[a] = 0;
        }
    }
    Some(out)
}

/// The order of the copy for `plan`: the axes read by no reduction first
/// (in memory order), then those read by a reduction in the plan's loop
/// order, outermost first; the reduction tile's axis split, when an axis
/// reads the tiled reduction. So one block column's cells for one tile of
/// the reduction follow each other in the order the micro-kernel reads
/// them, and the next block column's right after: one stream.
fn panel_order(plan: &Plan, rest: &[AxisIndex]) -> Option<Order> {
    let rank = |a: &AxisIndex| match a {
        AxisIndex::Iter(i) => plan.reductions.iter().position(|r| r == i),
        _ => None,
    };
    let mut order: Vec<usize> = (0..rest.len()).collect();
    order.sort_by_key(|&a| rank(&rest[a]).map_or((0, a), |p| (1, p)));
    let tile = plan
        .k_tile
        .and_then(|(k, t)| Some((rest.iter().position(|a| *a == AxisIndex::Iter(k))?, t)));
    Order::new(&order, tile)
}

/// Whether `indices` read iterator `j` on their last axis only (`Iter(j)`
/// there), every other axis by a plain iterator or a fixed position.
fn read_along_last(indices: &[AxisIndex], j: usize) -> bool {
    let Some((last, rest)) = indices.split_last() else {
        return false;
    };
    *last == AxisIndex::Iter(j)
        && rest.iter().all(|a| match a {
            AxisIndex::Iter(i) => *i != j,
            AxisIndex::Fixed(_) => true,
            _ => false,
        })
}

/// The result rows (cells per column of the vector iterator) below which a
/// constant the kernel would pack per call is laid out when compiling and
/// read in place: ResNet-50's 1×1 convolutions on 7² (49 rows) and 14²
/// (196), SqueezeNet's classifier on 13² (169), not those on 28² (784).
const IN_PLACE_ROWS: u64 = 200;

impl<'c> Emitter<'c> {
    /// The constant operand of `op` read along `plan`'s vector iterator on
    /// its last axis (main segment `main`, blocks of `nr` cells), copied
    /// here, at compile time, into micro-panels of `nr`: the copy's global
    /// and its `get_global` at `at`. `None` when there is no such operand,
    /// when its last axis is no wider than a micro-panel (its rows already
    /// follow each other), or when the kernel packs it per call
    /// ([`super::pack::candidate`]) for [`IN_PLACE_ROWS`] result rows or
    /// more (see the module's documentation).
    pub(super) fn block_constant<'a>(
        &self,
        module: &mut Module<'c, 'a>,
        at: At<'c, 'a>,
        plan: &Plan,
        op: &Op<'_, 'c, 'a>,
        main: &Segment,
    ) -> Option<Blocked<'c, 'a>> {
        let j = plan.vector;
        let nr = main.step;
        if plan.lanes != Lanes::Result || !main.vector || main.lo != 0 || nr < plan.width {
            return None;
        }
        let space = &op.p.product_space;
        let rows =
            op.p.result
                .iter()
                .filter_map(|a| match a {
                    AxisIndex::Iter(i) if *i != j => space.get(*i).copied(),
                    _ => None,
                })
                .fold(1u64, u64::saturating_mul);
        let packed = super::pack::candidate(plan, op, main).filter(|_| rows >= IN_PLACE_ROWS);
        let (n, (get, global, data)) = (0..op.operands.len())
            .filter(|&n| {
                Some(n) != op.init && Some(n) != packed && read_along_last(&op.p.operands[n], j)
            })
            .find_map(|n| Some((n, constant_source(module, op.operands[n])?)))?;
        let src = op.operands[n];
        let elem = element_of(src);
        let bits = ir::bit_width(elem)?;
        if bits == 0 || bits % 8 != 0 {
            return None;
        }
        let cell = bits as usize / 8;
        let dims = buffer_dims(src);
        // At most one micro-panel wide, its rows already follow each other.
        if dims.last().is_none_or(|&last| last <= nr) {
            return None;
        }
        let rest = &op.p.operands[n][..dims.len() - 1];
        let order = panel_order(plan, rest)?;
        let bytes = micro_panels(&ir::dense_raw_bytes(data, cell)?, &dims, cell, nr, &order)?;
        let shape: Vec<i64> = order
            .shape(&dims, nr)?
            .iter()
            .map(|&d| i64::try_from(d).ok())
            .collect::<Option<_>>()?;
        let value = ir::dense_from_bytes(&shape, elem, &bytes)?;
        let mty = MemRefType::new(elem, &shape, None, None).into();
        let buf = self.constant_global(module, at, ("__ocannl_blocked", mty), value, op.loc);
        module.note_relaid(get, global);
        Some(Blocked {
            operand: n,
            buf,
            nr,
            order,
        })
    }

    /// The map from the product space's `n_dims` iterators to a cell of
    /// `b`'s copy, for the operand's `indices` (the last one `Iter(j)`):
    /// `([k floordiv kt,] j floordiv nr, indices[..r-1] in the copy's order
    /// (the tiled one `k mod kt`), j mod nr)`.
    pub(super) fn blocked_map(
        &self,
        b: &Blocked,
        n_dims: usize,
        indices: &[AxisIndex],
    ) -> Attribute<'c> {
        let (last, rest) = indices.split_last().expect("checked by block_constant");
        let j = index_expr(self.ctx, last);
        let nr = AffineExpr::constant(self.ctx, b.nr as i64);
        let mut exprs = Vec::with_capacity(indices.len() + 2);
        let tile = b
            .order
            .tile
            .map(|(a, t)| (a, AffineExpr::constant(self.ctx, t as i64)));
        if let Some((a, t)) = tile {
            exprs.push(AffineExpr::floor_div(index_expr(self.ctx, &rest[a]), t));
        }
        exprs.push(AffineExpr::floor_div(j, nr));
        for a in b.order.order() {
            let e = index_expr(self.ctx, &rest[a]);
            exprs.push(match tile {
                Some((ta, t)) if ta == a => AffineExpr::modulo(e, t),
                _ => e,
            });
        }
        exprs.push(AffineExpr::modulo(j, nr));
        ir::affine_map_attr(AffineMap::new(self.ctx, n_dims, 0, &exprs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2 × 5 operand (one byte a cell) in micro-panels of 2 of its last
    /// axis: 3 of them, the last padded with zeros.
    #[test]
    fn micro_panels_pad_the_last_one() {
        let data: Vec<u8> = (1..=10).collect(); // rows [1..5], [6..10]
        let plain = Order::new(&[0], None).unwrap();
        let got = micro_panels(&data, &[2, 5], 1, 2, &plain).unwrap();
        assert_eq!(got, vec![1, 2, 6, 7, 3, 4, 8, 9, 5, 0, 10, 0]);
        assert!(micro_panels(&data, &[2, 4], 1, 2, &plain).is_none());
        assert!(micro_panels(&data, &[2, 5], 1, 0, &plain).is_none());
    }

    /// Two-byte cells keep their bytes together.
    #[test]
    fn micro_panels_of_wider_cells() {
        let data: Vec<u8> = vec![1, 2, 3, 4, 5, 6]; // one row of 3 cells
        let plain = Order::new(&[0], None).unwrap();
        let got = micro_panels(&data, &[1, 3], 2, 2, &plain).unwrap();
        assert_eq!(got, vec![1, 2, 3, 4, 5, 6, 0, 0]);
    }

    /// Axes reordered and one tiled: a 3 × 2 × 4 operand `[c, t, m]`
    /// (cell `100c + 10t + m`), `t` before `c`, `c` in tiles of 2, panels
    /// of 2: dims `[2 tiles, 2 panels, t 2, c 2, 2]`, the last tile's
    /// second `c` zero.
    #[test]
    fn micro_panels_in_tile_order() {
        let mut data = vec![];
        for c in 0..3u8 {
            for t in 0..2u8 {
                for m in 0..4u8 {
                    data.push(100 * c + 10 * t + m);
                }
            }
        }
        let order = Order::new(&[1, 0], Some((0, 2))).unwrap();
        assert_eq!(order.shape(&[3, 2, 4], 2), Some(vec![2, 2, 2, 2, 2]));
        let got = micro_panels(&data, &[3, 2, 4], 1, 2, &order).unwrap();
        let at = |tile: usize, b: usize, t: usize, c: usize, m: usize| {
            got[(((tile * 2 + b) * 2 + t) * 2 + c) * 2 + m]
        };
        // Cell (c 1, t 1, m 3): tile 0, panel 1, t 1, c 1, lane 1.
        assert_eq!(at(0, 1, 1, 1, 1), 113);
        // Cell (c 2, t 0, m 2): tile 1, panel 1, t 0, c 0, lane 0.
        assert_eq!(at(1, 1, 0, 0, 0), 202);
        // Past c: zero.
        assert_eq!(at(1, 0, 1, 1, 0), 0);
    }

    #[test]
    fn reads_along_the_last_axis_only() {
        use AxisIndex::{Fixed, Iter};
        assert!(read_along_last(&[Iter(1), Fixed(0), Iter(0)], 0));
        assert!(!read_along_last(&[Iter(0), Iter(0)], 0));
        assert!(!read_along_last(&[Iter(0), Iter(1)], 0));
        assert!(!read_along_last(&[], 0));
    }
}
