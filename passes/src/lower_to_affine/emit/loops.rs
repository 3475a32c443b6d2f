//! Builders for the scheduled nests: `affine.for` with bound maps, a step
//! and loop-carried values (`iter_args`), `affine.parallel`, `affine.apply`,
//! the vector ops of a micro-kernel, and grids of GPU threads (the form
//! every nest takes with `target=gpu`, [`Emitter::nest`]).

use melior::ir::{
    AffineExpr, AffineMap, Attribute, Block, BlockLike, Location, Region, RegionLike, Type, Value,
    ValueLike,
    attribute::{DenseElementsAttribute, DenseI32ArrayAttribute, IntegerAttribute},
    operation::OperationLike,
};
use ocannl_dialect::ir;

use super::{At, Emitter};

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
            block.append_operation(
                melior::ir::operation::OperationBuilder::new("affine.yield", loc)
                    .build()
                    .expect("affine.yield"),
            );
        }
        let region = Region::new();
        region.append_block(block);
        let mut operands: Vec<Value<'c, 'a>> = lb.operands.clone();
        operands.extend_from_slice(&ub.operands);
        operands.extend_from_slice(inits);
        let types: Vec<Type<'c>> = inits.iter().map(|v| v.r#type()).collect();
        let step_attr = IntegerAttribute::new(index, step as i64).into();
        let op = if parallel && inits.is_empty() {
            let groups = |n: usize| -> Attribute<'c> {
                let ty = ir::ranked_tensor_type(&[1], self.int_type(32)).expect("tensor<1xi32>");
                let n = IntegerAttribute::new(self.int_type(32), n as i64).into();
                DenseElementsAttribute::new(ty, &[n])
                    .expect("a splat")
                    .into()
            };
            let steps = Attribute::parse(self.ctx, &format!("[{step}]")).expect("an array");
            self.emit_with_regions(
                at,
                "affine.parallel",
                &operands,
                &[],
                &[
                    ("lowerBoundsMap", ir::affine_map_attr(lb.map)),
                    ("lowerBoundsGroups", groups(lb.map.result_count())),
                    ("upperBoundsMap", ir::affine_map_attr(ub.map)),
                    ("upperBoundsGroups", groups(ub.map.result_count())),
                    ("steps", steps),
                    ("reductions", Attribute::parse(self.ctx, "[]").expect("[]")),
                ],
                vec![region],
                loc,
            )
        } else {
            let segments = [
                lb.operands.len() as i32,
                ub.operands.len() as i32,
                inits.len() as i32,
            ];
            self.emit_with_regions(
                at,
                "affine.for",
                &operands,
                &types,
                &[
                    ("lowerBoundMap", ir::affine_map_attr(lb.map)),
                    ("upperBoundMap", ir::affine_map_attr(ub.map)),
                    ("step", step_attr),
                    (
                        "operandSegmentSizes",
                        DenseI32ArrayAttribute::new(self.ctx, &segments).into(),
                    ),
                ],
                vec![region],
                loc,
            )
        };
        let body = op
            .region(0)
            .ok()
            .and_then(|r| r.first_block())
            .expect("built with a body");
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

    /// `affine.apply` of the one-result map `e` over dims `operands`.
    pub(in crate::lower_to_affine) fn apply<'a>(
        &self,
        at: At<'c, 'a>,
        e: AffineExpr<'c>,
        operands: &[Value<'c, 'a>],
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let map = AffineMap::new(self.ctx, operands.len(), 0, &[e]);
        self.value(
            at,
            "affine.apply",
            operands,
            Type::index(self.ctx),
            &[("map", ir::affine_map_attr(map))],
            loc,
        )
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
        let regions = vec![Region::new(), Region::new()];
        for r in &regions {
            r.append_block(Block::new(&[]));
        }
        let if_op = self.emit_with_regions(
            at,
            "affine.if",
            &[x],
            &[],
            &[("condition", condition)],
            regions,
            loc,
        );
        let branch = |i: usize| {
            let block = if_op
                .region(i)
                .ok()
                .and_then(|r| r.first_block())
                .expect("built with a block");
            let y = self.emit(At::end(block), "affine.yield", &[], &[], &[], loc);
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
        self.value(at, "vector.broadcast", &[x], ty, &[], loc)
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
        self.value(at, "vector.reduction", &[x], elem, &[("kind", kind)], loc)
    }

    /// Lane 0 of `x`.
    pub(in crate::lower_to_affine) fn lane0<'a>(
        &self,
        at: At<'c, 'a>,
        x: Value<'c, 'a>,
        elem: Type<'c>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let pos = Attribute::parse(self.ctx, "array<i64: 0>").expect("array");
        self.value(
            at,
            "vector.extract",
            &[x],
            elem,
            &[("static_position", pos)],
            loc,
        )
    }

    /// `x` with lane 0 replaced by `s`.
    pub(in crate::lower_to_affine) fn set_lane0<'a>(
        &self,
        at: At<'c, 'a>,
        s: Value<'c, 'a>,
        x: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let pos = Attribute::parse(self.ctx, "array<i64: 0>").expect("array");
        self.value(
            at,
            "vector.insert",
            &[s, x],
            x.r#type(),
            &[("static_position", pos)],
            loc,
        )
    }
}

impl<'c> Emitter<'c> {
    /// A grid of `block`-thread blocks over the cells of `sizes`
    /// (row-major): the insertion point inside the guard, and each cell's
    /// position (a constant 0 on size-1 axes). An `affine.parallel` over
    /// blocks holds an `affine.parallel` over the block's threads; the
    /// cell's linear index is guarded against the grid's overhang, and its
    /// position delinearised with the last axis fastest, so that the
    /// threads of a warp touch adjacent cells (coalesced).
    pub(in crate::lower_to_affine) fn grid<'a>(
        &self,
        at: At<'c, 'a>,
        sizes: &[u64],
        block: u64,
        loc: Location<'c>,
    ) -> (At<'c, 'a>, Vec<Value<'c, 'a>>) {
        let total: u64 = sizes.iter().product();
        let threads = block.min(total.div_ceil(32).max(1) * 32);
        let blocks = total.div_ceil(threads);
        let outer = self.for_loop(at, self.range(0, blocks), 1, &[], true, loc);
        let inner = self.for_loop(outer.body, self.range(0, threads), 1, &[], true, loc);
        let d = |i| AffineExpr::dim(self.ctx, i);
        let c = |v: u64| AffineExpr::constant(self.ctx, v as i64);
        let apply = |at, e, operands: &[Value<'c, 'a>]| self.apply(at, e, operands, loc);
        let mut body = inner.body;
        let linear = apply(body, d(0) * c(threads) + d(1), &[outer.iv, inner.iv]);
        if blocks * threads > total {
            // The last block's overhang: total - 1 - linear >= 0.
            let e = c(total - 1) + d(0) * AffineExpr::constant(self.ctx, -1);
            let condition = ir::integer_set_attr(self.ctx, 1, &[e]).expect("one constraint");
            let then = Region::new();
            let block = then.append_block(Block::new(&[]));
            let y = self.emit(At::end(block), "affine.yield", &[], &[], &[], loc);
            self.emit_with_regions(
                body,
                "affine.if",
                &[linear],
                &[],
                &[("condition", condition)],
                vec![then, Region::new()],
                loc,
            );
            body = At {
                block,
                before: Some(y),
            };
        }
        let zero = self.index_constant(body, 0, loc);
        let mut stride = total;
        let positions = sizes
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
                apply(body, e, &[linear])
            })
            .collect();
        (body, positions)
    }
}
