//! Building the lowered IR: ops at an insertion point, affine loop nests,
//! maps, loads and stores (guarded where an index can leave its axis),
//! constants and fills. The builders every emitter shares are here and in
//! the submodules: loops with bounds, steps and loop-carried values, vector
//! ops and GPU grids ([`loops`]); the values at one cell, an op's function
//! and accumulation ([`arith`]); a fusion group's epilogue ([`epilogue`]).

mod arith;
mod epilogue;
pub(super) mod loops;

use melior::{
    Context,
    ir::{
        AffineExpr, AffineMap, Attribute, AttributeLike, Block, BlockLike, BlockRef, Identifier,
        Location, Region, RegionLike, Type, Value, ValueLike,
        attribute::{
            DenseElementsAttribute, DenseI32ArrayAttribute, FloatAttribute, IntegerAttribute,
        },
        operation::{OperationBuilder, OperationLike, OperationRef},
        r#type::IntegerType,
    },
};
use ocannl_dialect::ir;
use ocannl_shape::projection::AxisIndex;

use super::{arena::ALIGNMENT, target::Target};
use crate::buffers::{Scalar, element_of, scalar};
use crate::projection_attrs::{index_expr, index_map};

/// Where to put the next op: at the end of `block`, or before `before`.
#[derive(Clone, Copy)]
pub(super) struct At<'c, 'a> {
    pub block: BlockRef<'c, 'a>,
    pub before: Option<OperationRef<'c, 'a>>,
}

impl<'c, 'a> At<'c, 'a> {
    /// The end of `block`.
    pub(super) fn end(block: BlockRef<'c, 'a>) -> Self {
        Self {
            block,
            before: None,
        }
    }
}

/// Builds ops in one context.
#[derive(Clone, Copy)]
pub(super) struct Emitter<'c> {
    pub ctx: &'c Context,
    /// The machine the nests are scheduled for.
    pub target: Target,
}

impl<'c> Emitter<'c> {
    /// Ends `at`'s block with a branch to a new block of the same region,
    /// and returns the new block's end; `at` itself when it is not the end
    /// of a block in a region (the nests then share one block).
    pub(super) fn next_block<'a>(&self, at: At<'c, 'a>, loc: Location<'c>) -> At<'c, 'a> {
        if at.before.is_some() {
            return at;
        }
        let Some(region) = at.block.parent_region() else {
            return at;
        };
        let next = region.append_block(Block::new(&[]));
        let br = OperationBuilder::new("cf.br", loc)
            .add_successors(&[&next])
            .build()
            .expect("a valid cf.br");
        at.block.append_operation(br);
        At::end(next)
    }

    /// Builds an op at `at`.
    pub(super) fn emit<'a>(
        &self,
        at: At<'c, 'a>,
        name: &str,
        operands: &[Value<'c, 'a>],
        results: &[Type<'c>],
        attrs: &[(&str, Attribute<'c>)],
        loc: Location<'c>,
    ) -> OperationRef<'c, 'a> {
        self.emit_with_regions(at, name, operands, results, attrs, vec![], loc)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn emit_with_regions<'a>(
        &self,
        at: At<'c, 'a>,
        name: &str,
        operands: &[Value<'c, 'a>],
        results: &[Type<'c>],
        attrs: &[(&str, Attribute<'c>)],
        regions: Vec<Region<'c>>,
        loc: Location<'c>,
    ) -> OperationRef<'c, 'a> {
        let attrs: Vec<(Identifier<'c>, Attribute<'c>)> = attrs
            .iter()
            .map(|(n, a)| (Identifier::new(self.ctx, n), *a))
            .collect();
        let op = OperationBuilder::new(name, loc)
            .add_operands(operands)
            .add_results(results)
            .add_attributes(&attrs)
            .add_regions_vec(regions)
            .build()
            .unwrap_or_else(|e| panic!("the lowering builds a valid '{name}': {e}"));
        match at.before {
            Some(t) => at.block.insert_operation_before(t, op),
            None => at.block.append_operation(op),
        }
    }

    /// Builds a one-result op at `at` and returns its result.
    pub(super) fn value<'a>(
        &self,
        at: At<'c, 'a>,
        name: &str,
        operands: &[Value<'c, 'a>],
        ty: Type<'c>,
        attrs: &[(&str, Attribute<'c>)],
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        self.emit(at, name, operands, &[ty], attrs, loc)
            .result(0)
            .expect("one result")
            .into()
    }

    pub(super) fn int_type(&self, width: u32) -> Type<'c> {
        IntegerType::new(self.ctx, width).into()
    }

    pub(super) fn constant<'a>(
        &self,
        at: At<'c, 'a>,
        value: Attribute<'c>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        self.value(
            at,
            "arith.constant",
            &[],
            value.r#type(),
            &[("value", value)],
            loc,
        )
    }

    /// One `affine.for` per size, outermost first; returns the insertion
    /// point inside the innermost loop and the induction variables. A size
    /// of 1 gets no loop: its induction variable is the constant 0 (a valid
    /// affine dimension). Deep nests of unit loops (a constant of 300 axes
    /// of size 1) cost LLVM's loop passes minutes; every other nest is at
    /// most 63 loops deep, since its sizes multiply to at most `2^63`.
    pub(super) fn nest<'a>(
        &self,
        mut at: At<'c, 'a>,
        sizes: &[u64],
        loc: Location<'c>,
    ) -> (At<'c, 'a>, Vec<Value<'c, 'a>>) {
        if let Some(block) = self.target.gpu_block {
            return self.grid(at, sizes, block, loc);
        }
        let index = Type::index(self.ctx);
        let mut ivs = Vec::with_capacity(sizes.len());
        let mut zero = None;
        for &n in sizes {
            if n == 1 {
                let z = *zero.get_or_insert_with(|| {
                    self.constant(at, IntegerAttribute::new(index, 0).into(), loc)
                });
                ivs.push(z);
                continue;
            }
            let block = Block::new(&[(index, loc)]);
            block.append_operation(
                OperationBuilder::new("affine.yield", loc)
                    .build()
                    .expect("affine.yield"),
            );
            let region = Region::new();
            region.append_block(block);
            let bound = |v: i64| ir::affine_map_attr(AffineMap::constant(self.ctx, v));
            let for_op = self.emit_with_regions(
                at,
                "affine.for",
                &[],
                &[],
                &[
                    ("lowerBoundMap", bound(0)),
                    ("upperBoundMap", bound(n as i64)),
                    ("step", IntegerAttribute::new(index, 1).into()),
                    (
                        "operandSegmentSizes",
                        DenseI32ArrayAttribute::new(self.ctx, &[0, 0, 0]).into(),
                    ),
                ],
                vec![region],
                loc,
            );
            let body = for_op
                .region(0)
                .ok()
                .and_then(|r| r.first_block())
                .expect("built with a body");
            ivs.push(body.argument(0).expect("one iv").into());
            at = At {
                block: body,
                before: body.terminator(),
            };
        }
        (at, ivs)
    }

    /// The `index` constant `v`.
    pub(super) fn index_constant<'a>(
        &self,
        at: At<'c, 'a>,
        v: i64,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        self.constant(
            at,
            IntegerAttribute::new(Type::index(self.ctx), v).into(),
            loc,
        )
    }

    /// `affine_map<(d0, ..., d{dims-1}) -> (indices)>`.
    pub(super) fn map(&self, dims: usize, indices: &[AxisIndex]) -> Attribute<'c> {
        ir::affine_map_attr(index_map(self.ctx, dims, indices))
    }

    /// `affine_map<(d0, ..., d{n-1}) -> (d0, ..., d{n-1})>`.
    pub(super) fn identity(&self, n: usize) -> Attribute<'c> {
        ir::affine_map_attr(AffineMap::multi_dim_identity(self.ctx, n))
    }

    /// `affine_map<(d0, ..., d{dims-1}) -> (exprs)>`.
    pub(super) fn map_of(&self, dims: usize, exprs: &[AffineExpr<'c>]) -> Attribute<'c> {
        ir::affine_map_attr(AffineMap::new(self.ctx, dims, 0, exprs))
    }

    /// `affine.load` of the cell at `map(ivs)`.
    pub(super) fn load<'a>(
        &self,
        at: At<'c, 'a>,
        buf: Value<'c, 'a>,
        map: Attribute<'c>,
        ivs: &[Value<'c, 'a>],
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        self.load_as(at, buf, map, ivs, None, loc)
    }

    /// `affine.load` of the cell at `map(ivs)`, or with `vector` the
    /// `affine.vector_load` of that vector type starting there.
    pub(super) fn load_as<'a>(
        &self,
        at: At<'c, 'a>,
        buf: Value<'c, 'a>,
        map: Attribute<'c>,
        ivs: &[Value<'c, 'a>],
        vector: Option<Type<'c>>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let mut operands = vec![buf];
        operands.extend_from_slice(ivs);
        let (name, ty) = match vector {
            Some(ty) => ("affine.vector_load", ty),
            None => ("affine.load", element_of(buf)),
        };
        self.value(at, name, &operands, ty, &[("map", map)], loc)
    }

    /// Stores `value` at `map(ivs)`: `affine.store` of a scalar,
    /// `affine.vector_store` of a vector.
    pub(super) fn store<'a>(
        &self,
        at: At<'c, 'a>,
        value: Value<'c, 'a>,
        buf: Value<'c, 'a>,
        map: Attribute<'c>,
        ivs: &[Value<'c, 'a>],
        loc: Location<'c>,
    ) {
        let mut operands = vec![value, buf];
        operands.extend_from_slice(ivs);
        let name = if ir::shaped_dims(value.r#type()).is_some() {
            "affine.vector_store"
        } else {
            "affine.store"
        };
        self.emit(at, name, &operands, &[], &[("map", map)], loc);
    }

    /// `memref.alloc` of `ty`, aligned to [`ALIGNMENT`] bytes.
    pub(super) fn alloc<'a>(
        &self,
        at: At<'c, 'a>,
        ty: Type<'c>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        self.value(
            at,
            "memref.alloc",
            &[],
            ty,
            &[
                (
                    "operandSegmentSizes",
                    DenseI32ArrayAttribute::new(self.ctx, &[0, 0]).into(),
                ),
                (
                    "alignment",
                    IntegerAttribute::new(self.int_type(64), ALIGNMENT as i64).into(),
                ),
            ],
            loc,
        )
    }

    /// Loads an operand cell through `indices`. Indices whose range leaves
    /// the axis (strided and convolution sums reaching into padding, fixed
    /// or hand-written indices past the end) are guarded: outside, the cell
    /// reads as `pad` (the neutral element of the op's accumulation: 0 for
    /// a sum of products, -inf for a max-pool), inside an `affine.if` whose
    /// integer set keeps every such index within its axis.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn operand_load<'a>(
        &self,
        at: At<'c, 'a>,
        buf: Value<'c, 'a>,
        indices: &[AxisIndex],
        space: &[u64],
        ivs: &[Value<'c, 'a>],
        pad: Attribute<'c>,
        vector: Option<Type<'c>>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let n_dims = space.len();
        let plain =
            |at: At<'c, 'a>, map: Attribute<'c>| self.load_as(at, buf, map, ivs, vector, loc);
        let map = self.map(n_dims, indices);
        let dims = ir::shaped_dims(buf.r#type()).expect("buffers are ranked memrefs");
        let mut conditions: Vec<AffineExpr<'c>> = Vec::new();
        for (a, size) in indices.iter().zip(&dims) {
            let size = size.expect("buffers have static shapes");
            let (lo, hi) = a.range(space);
            let e = index_expr(self.ctx, a);
            if lo < 0 {
                conditions.push(e);
            }
            if hi > size - 1 {
                // size - 1 - e >= 0
                conditions.push(
                    e * AffineExpr::constant(self.ctx, -1)
                        + AffineExpr::constant(self.ctx, size - 1),
                );
            }
        }
        let Some(condition) = ir::integer_set_attr(self.ctx, n_dims, &conditions) else {
            return plain(at, map);
        };
        let padding = self.constant(at, pad, loc);
        let regions = vec![Region::new(), Region::new()];
        for r in &regions {
            r.append_block(Block::new(&[]));
        }
        let elem = vector.unwrap_or_else(|| element_of(buf));
        let if_op = self.emit_with_regions(
            at,
            "affine.if",
            ivs,
            &[elem],
            &[("condition", condition)],
            regions,
            loc,
        );
        let block = |i: usize| {
            if_op
                .region(i)
                .ok()
                .and_then(|r| r.first_block())
                .expect("built with a block")
        };
        let inside = At::end(block(0));
        let v = plain(inside, map);
        self.emit(inside, "affine.yield", &[v], &[], &[], loc);
        self.emit(At::end(block(1)), "affine.yield", &[padding], &[], &[], loc);
        if_op.result(0).expect("one result").into()
    }

    /// A scalar attribute of type `elem` holding `value` (floats) or its
    /// integer conversion, infinities saturating to the integer type's
    /// bounds (the neutral elements of max and min).
    /// A vector type gets the splat of that value.
    pub(super) fn scalar_attr(&self, elem: Type<'c>, value: f64) -> Attribute<'c> {
        if let Some(lane) = ir::shaped_element(elem) {
            let splat = self.scalar_attr(lane, value);
            return DenseElementsAttribute::new(elem, &[splat])
                .expect("a splat of the vector's element type")
                .into();
        }
        match scalar(elem) {
            Ok(Scalar::Float) => FloatAttribute::new(self.ctx, elem, value).into(),
            kind => {
                let width = match kind {
                    Ok(Scalar::Int(w)) => w,
                    _ => 64,
                };
                let (min, max) = int_bounds(width);
                let v = if value.is_nan() {
                    0
                } else {
                    (value.clamp(min as f64, max as f64)) as i64
                };
                IntegerAttribute::new(elem, v).into()
            }
        }
    }

    /// Stores `value` (a scalar attribute) into every cell of `buf`.
    pub(super) fn fill<'a>(
        &self,
        at: At<'c, 'a>,
        buf: Value<'c, 'a>,
        dims: &[u64],
        value: Attribute<'c>,
        loc: Location<'c>,
    ) {
        let c = self.constant(at, value, loc);
        let (inner, ivs) = self.nest(at, dims, loc);
        self.store(inner, c, buf, self.identity(dims.len()), &ivs, loc);
    }
}

/// The smallest and largest value of a signless integer of `width` bits,
/// read as signed (`i1`: -1 and 0).
pub(super) fn int_bounds(width: u32) -> (i64, i64) {
    if width >= 64 {
        (i64::MIN, i64::MAX)
    } else {
        (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1)
    }
}
