//! Builders for the scheduled nests: `affine.for` with bound maps, a step
//! and loop-carried values (`iter_args`), `affine.parallel`, `affine.apply`,
//! the vector ops of a micro-kernel, and grids of GPU threads (the form
//! every nest takes with `target=gpu`, [`Emitter::nest`]).

use melior::{
    dialect::ods,
    ir::{
        AffineExpr, AffineMap, Attribute, Block, BlockLike, Identifier, Location, Region,
        RegionLike, Type, Value, ValueLike,
        attribute::{
            ArrayAttribute, DenseElementsAttribute, DenseI64ArrayAttribute, IntegerAttribute,
        },
        operation::{OperationBuilder, OperationLike, OperationRef},
    },
};
use ocannl_dialect::ir;

use super::{At, Emitter, first_block};

/// A loop bound: `max`/`min` of the results of an affine map of values.
pub(in crate::lower_to_affine) struct Bound<'c, 'a> {
    pub map: AffineMap<'c>,
    pub operands: Vec<Value<'c, 'a>>,
}

impl<'c, 'a> Bound<'c, 'a> {
    /// The constant `v`.
    pub(in crate::lower_to_affine) fn constant(em: &Emitter<'c>, v: i64) -> Self {
        Self {
            map: AffineMap::constant(em.ctx, v),
            operands: vec![],
        }
    }

    /// `x + offset`, or with `cap` both `x + offset` and `cap`: their
    /// minimum as an upper bound, their maximum as a lower bound.
    pub(in crate::lower_to_affine) fn from(
        em: &Emitter<'c>,
        x: Value<'c, 'a>,
        offset: i64,
        cap: Option<i64>,
    ) -> Self {
        let d = AffineExpr::dim(em.ctx, 0);
        let shifted = if offset == 0 {
            d
        } else {
            d + AffineExpr::constant(em.ctx, offset)
        };
        let mut exprs = vec![shifted];
        exprs.extend(cap.map(|c| AffineExpr::constant(em.ctx, c)));
        Self {
            map: AffineMap::new(em.ctx, 1, 0, &exprs),
            operands: vec![x],
        }
    }
}

/// The lower and upper bound of a loop.
pub(in crate::lower_to_affine) type Range<'c, 'a> = (Bound<'c, 'a>, Bound<'c, 'a>);

impl<'c> Emitter<'c> {
    /// `[lo, hi)`.
    pub(in crate::lower_to_affine) fn range<'a>(&self, lo: u64, hi: u64) -> Range<'c, 'a> {
        (
            Bound::constant(self, lo as i64),
            Bound::constant(self, hi as i64),
        )
    }

    /// The tile `[t, min(t + size, cap))`.
    pub(in crate::lower_to_affine) fn tile<'a>(
        &self,
        t: Value<'c, 'a>,
        size: u64,
        cap: u64,
    ) -> Range<'c, 'a> {
        (
            Bound::from(self, t, 0, None),
            Bound::from(self, t, size as i64, Some(cap as i64)),
        )
    }
}

/// A built loop: the insertion point in its body (before the terminator
/// when it has no loop-carried values; at the end otherwise, where the
/// caller yields), its induction variable, its loop-carried values and its
/// results.
pub(in crate::lower_to_affine) struct Loop<'c, 'a> {
    pub body: At<'c, 'a>,
    pub iv: Value<'c, 'a>,
    pub args: Vec<Value<'c, 'a>>,
    pub results: Vec<Value<'c, 'a>>,
}

impl<'c> Emitter<'c> {
    /// `affine.for %iv = lb to ub step step iter_args(inits)`; `parallel`
    /// (no loop-carried values) makes it a one-dimensional `affine.parallel`.
    pub(in crate::lower_to_affine) fn for_loop<'a>(
        &self,
        at: At<'c, 'a>,
        (lb, ub): Range<'c, 'a>,
        step: u64,
        inits: &[Value<'c, 'a>],
        parallel: bool,
        loc: Location<'c>,
    ) -> Loop<'c, 'a> {
        let index = Type::index(self.ctx);
        let mut args = vec![(index, loc)];
        args.extend(inits.iter().map(|v| (v.r#type(), loc)));
        let block = Block::new(&args);
        if inits.is_empty() {
            block.append_operation(ods::affine::r#yield(self.ctx, &[], loc).into());
        }
        let region = Region::new();
        region.append_block(block);
        let op = if parallel && inits.is_empty() {
            self.parallel_loop(at, (lb, ub), step, region, loc)
        } else {
            let types: Vec<Type<'c>> = inits.iter().map(|v| v.r#type()).collect();
            let op = ods::affine::r#for(
                self.ctx,
                &types,
                &lb.operands,
                &ub.operands,
                inits,
                region,
                ir::affine_map_attr(lb.map),
                ir::affine_map_attr(ub.map),
                IntegerAttribute::new(index, step as i64),
                loc,
            );
            let segments = [lb.operands.len(), ub.operands.len(), inits.len()].map(|n| n as i32);
            self.put(at, self.with_segments(op, &segments))
        };
        let body = first_block(op, 0);
        let arg = |i: usize| -> Value<'c, 'a> { body.argument(i).expect("an argument").into() };
        Loop {
            body: match body.terminator() {
                Some(t) => At {
                    block: body,
                    before: Some(t),
                },
                None => At::end(body),
            },
            iv: arg(0),
            args: (1..=inits.len()).map(arg).collect(),
            results: (0..op.result_count())
                .map(|i| op.result(i).expect("a result").into())
                .collect(),
        }
    }

    /// The one-dimensional `affine.parallel` over `[lb, ub)` by `step` with
    /// the body `region`.
    fn parallel_loop<'a>(
        &self,
        at: At<'c, 'a>,
        (lb, ub): Range<'c, 'a>,
        step: u64,
        region: Region<'c>,
        loc: Location<'c>,
    ) -> OperationRef<'c, 'a> {
        let groups = |n: usize| -> Attribute<'c> {
            let ty = ir::ranked_tensor_type(&[1], self.int_type(32)).expect("tensor<1xi32>");
            let n = IntegerAttribute::new(self.int_type(32), n as i64).into();
            DenseElementsAttribute::new(ty, &[n])
                .expect("a splat")
                .into()
        };
        let mut operands: Vec<Value<'c, 'a>> = lb.operands.clone();
        operands.extend_from_slice(&ub.operands);
        let steps = [IntegerAttribute::new(self.int_type(64), step as i64).into()];
        let op = ods::affine::parallel(
            self.ctx,
            &[],
            &operands,
            region,
            ArrayAttribute::new(self.ctx, &[]),
            ir::affine_map_attr(lb.map),
            groups(lb.map.result_count()),
            ir::affine_map_attr(ub.map),
            groups(ub.map.result_count()),
            ArrayAttribute::new(self.ctx, &steps),
            loc,
        );
        self.put(at, op)
    }

    /// `affine.apply` of the one-result map `e` over dims `operands`. Built
    /// by name: melior's typed builder drops the op's result (unnamed in
    /// ODS, and not inferred).
    pub(in crate::lower_to_affine) fn apply<'a>(
        &self,
        at: At<'c, 'a>,
        e: AffineExpr<'c>,
        operands: &[Value<'c, 'a>],
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let map = AffineMap::new(self.ctx, operands.len(), 0, &[e]);
        let op = OperationBuilder::new("affine.apply", loc)
            .add_operands(operands)
            .add_results(&[Type::index(self.ctx)])
            .add_attributes(&[(Identifier::new(self.ctx, "map"), ir::affine_map_attr(map))])
            .build()
            .expect("a valid affine.apply");
        self.put_value(at, op)
    }

    /// `affine.apply (d0) -> (d0 + offset)` of `x` (`x` itself for 0).
    pub(in crate::lower_to_affine) fn offset<'a>(
        &self,
        at: At<'c, 'a>,
        x: Value<'c, 'a>,
        offset: i64,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        if offset == 0 {
            return x;
        }
        let e = AffineExpr::dim(self.ctx, 0) + AffineExpr::constant(self.ctx, offset);
        self.apply(at, e, &[x], loc)
    }

    /// `affine.if x >= at_least` without results: the insertion points of
    /// its then and else blocks (before their `affine.yield`).
    pub(in crate::lower_to_affine) fn if_at_least<'a>(
        &self,
        at: At<'c, 'a>,
        x: Value<'c, 'a>,
        at_least: i64,
        loc: Location<'c>,
    ) -> (At<'c, 'a>, At<'c, 'a>) {
        let e = AffineExpr::dim(self.ctx, 0) + AffineExpr::constant(self.ctx, -at_least);
        let condition = ir::integer_set_attr(self.ctx, 1, &[e]).expect("one constraint");
        let if_op = self.affine_if(at, condition, &[x], &[], true, loc);
        let branch = |i: usize| {
            let block = first_block(if_op, i);
            let y = self.affine_yield(At::end(block), &[], loc);
            At {
                block,
                before: Some(y),
            }
        };
        (branch(0), branch(1))
    }

    /// `vector<width x elem>`.
    pub(in crate::lower_to_affine) fn vector_type(&self, elem: Type<'c>, width: u64) -> Type<'c> {
        Type::parse(self.ctx, &format!("vector<{width}x{elem}>")).expect("a vector type")
    }

    /// `vector.broadcast` of a scalar to `ty`.
    pub(in crate::lower_to_affine) fn broadcast<'a>(
        &self,
        at: At<'c, 'a>,
        x: Value<'c, 'a>,
        ty: Type<'c>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        self.put_value(at, ods::vector::broadcast(self.ctx, ty, x, loc))
    }

    /// `vector.reduction <kind>` of `x` to a scalar of `elem`.
    pub(in crate::lower_to_affine) fn reduce_lanes<'a>(
        &self,
        at: At<'c, 'a>,
        kind: &str,
        x: Value<'c, 'a>,
        elem: Type<'c>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let kind = Attribute::parse(self.ctx, &format!("#vector.kind<{kind}>")).expect("a kind");
        self.put_value(at, ods::vector::reduction(self.ctx, elem, x, kind, loc))
    }

    /// Lane 0 of `x` (a scalar of its element type).
    pub(in crate::lower_to_affine) fn lane0<'a>(
        &self,
        at: At<'c, 'a>,
        x: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let pos = DenseI64ArrayAttribute::new(self.ctx, &[0]).into();
        self.put_value(at, ods::vector::extract(self.ctx, x, &[], pos, loc))
    }

    /// `x` with lane 0 replaced by `s`.
    pub(in crate::lower_to_affine) fn set_lane0<'a>(
        &self,
        at: At<'c, 'a>,
        s: Value<'c, 'a>,
        x: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let pos = DenseI64ArrayAttribute::new(self.ctx, &[0]).into();
        let op = ods::vector::insert(self.ctx, x.r#type(), s, x, &[], pos, loc);
        self.put_value(at, op)
    }
}

/// The most blocks a grid launches: CUDA's limit on a grid's x dimension
/// (`2^31 - 1`). A grid of more cells than its blocks' threads loops over
/// them (a grid-stride loop).
pub(in crate::lower_to_affine) const MAX_GRID_BLOCKS: u64 = (1 << 31) - 1;

impl<'c> Emitter<'c> {
    /// A grid of `block`-thread blocks over the cells of `sizes`
    /// (row-major): the insertion point inside the guard, and each cell's
    /// position (a constant 0 on size-1 axes). An `affine.parallel` over
    /// blocks holds an `affine.parallel` over the block's threads; the
    /// cell's linear index is guarded against the grid's overhang, and its
    /// position delinearised with the last axis fastest, so that the
    /// threads of a warp touch adjacent cells (coalesced). Past
    /// [`MAX_GRID_BLOCKS`] blocks, each thread loops over the cells one
    /// grid apart (`affine.for`, a grid-stride loop). No cells (an axis of
    /// size 0): a loop that never runs, and no grid (nothing launched).
    pub(in crate::lower_to_affine) fn grid<'a>(
        &self,
        at: At<'c, 'a>,
        sizes: &[u64],
        block: u64,
        loc: Location<'c>,
    ) -> (At<'c, 'a>, Vec<Value<'c, 'a>>) {
        let (body, mut cells) = self.grid_cells(at, sizes, block, 1, loc);
        (body, cells.swap_remove(0))
    }

    /// [`Emitter::grid`] with `per_thread` cells for each thread where
    /// they divide the grid evenly (else one): the positions of each,
    /// one grid of threads apart, so that a warp's accesses stay adjacent
    /// for each of them. A caller that loads every cell's operands before
    /// it stores any result keeps `per_thread` times the bytes in flight.
    pub(in crate::lower_to_affine) fn grid_cells<'a>(
        &self,
        at: At<'c, 'a>,
        sizes: &[u64],
        block: u64,
        per_thread: u64,
        loc: Location<'c>,
    ) -> (At<'c, 'a>, Vec<Vec<Value<'c, 'a>>>) {
        let total: u64 = sizes.iter().product();
        if total == 0 {
            let never = self.for_loop(at, self.range(0, 0), 1, &[], false, loc);
            return (never.body, vec![vec![never.iv; sizes.len()]]);
        }
        let threads = block.min(total.div_ceil(32).max(1) * 32);
        let d = |i| AffineExpr::dim(self.ctx, i);
        let c = |v: u64| AffineExpr::constant(self.ctx, v as i64);
        let apply = |at, e, operands: &[Value<'c, 'a>]| self.apply(at, e, operands, loc);
        let grid = threads * per_thread.max(1);
        if per_thread > 1 && total.is_multiple_of(grid) && total / grid <= MAX_GRID_BLOCKS {
            let blocks = total / grid;
            let outer = self.for_loop(at, self.range(0, blocks), 1, &[], true, loc);
            let inner = self.for_loop(outer.body, self.range(0, threads), 1, &[], true, loc);
            let body = inner.body;
            let zero = self.index_constant(body, 0, loc);
            let cells = (0..per_thread)
                .map(|k| {
                    let e = d(0) * c(threads) + d(1) + c(k * blocks * threads);
                    let linear = apply(body, e, &[outer.iv, inner.iv]);
                    self.grid_positions(body, sizes, total, (linear, zero), loc)
                })
                .collect();
            return (body, cells);
        }
        let needed = total.div_ceil(threads);
        let blocks = needed.min(MAX_GRID_BLOCKS);
        let rounds = needed.div_ceil(blocks);
        let outer = self.for_loop(at, self.range(0, blocks), 1, &[], true, loc);
        let inner = self.for_loop(outer.body, self.range(0, threads), 1, &[], true, loc);
        let mut body = inner.body;
        let linear = if rounds > 1 {
            let round = self.for_loop(body, self.range(0, rounds), 1, &[], false, loc);
            body = round.body;
            let e = d(0) * c(threads) + d(1) + d(2) * c(blocks * threads);
            apply(body, e, &[outer.iv, inner.iv, round.iv])
        } else {
            apply(body, d(0) * c(threads) + d(1), &[outer.iv, inner.iv])
        };
        if rounds.saturating_mul(blocks).saturating_mul(threads) > total {
            // The last block's overhang: total - 1 - linear >= 0.
            let e = c(total - 1) + d(0) * AffineExpr::constant(self.ctx, -1);
            let condition = ir::integer_set_attr(self.ctx, 1, &[e]).expect("one constraint");
            let if_op = self.affine_if(body, condition, &[linear], &[], false, loc);
            let block = first_block(if_op, 0);
            let y = self.affine_yield(At::end(block), &[], loc);
            body = At {
                block,
                before: Some(y),
            };
        }
        let zero = self.index_constant(body, 0, loc);
        let positions = self.grid_positions(body, sizes, total, (linear, zero), loc);
        (body, vec![positions])
    }

    /// The position of the cell `linear` (row-major over `sizes`, the
    /// last axis fastest): `zero` (an index constant) on size-1 axes.
    fn grid_positions<'a>(
        &self,
        body: At<'c, 'a>,
        sizes: &[u64],
        total: u64,
        (linear, zero): (Value<'c, 'a>, Value<'c, 'a>),
        loc: Location<'c>,
    ) -> Vec<Value<'c, 'a>> {
        let d = |i| AffineExpr::dim(self.ctx, i);
        let c = |v: u64| AffineExpr::constant(self.ctx, v as i64);
        let mut stride = total;
        sizes
            .iter()
            .map(|&n| {
                stride /= n.max(1);
                if n <= 1 {
                    return zero;
                }
                let e = AffineExpr::floor_div(d(0), c(stride));
                let e = if stride * n == total {
                    e
                } else {
                    AffineExpr::modulo(e, c(n))
                };
                self.apply(body, e, &[linear], loc)
            })
            .collect()
    }
}
