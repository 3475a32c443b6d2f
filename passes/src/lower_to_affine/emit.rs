//! Building the lowered IR: ops at an insertion point, affine loop nests,
//! maps, loads and stores (guarded where an index can leave its axis),
//! constants and fills. The builders every emitter shares are here and in
//! the submodules: loops with bounds, steps and loop-carried values, vector
//! ops and GPU grids ([`loops`]); the values at one cell, an op's function
//! and accumulation ([`arith`]); a fusion group's epilogue ([`epilogue`]).
//!
//! Upstream ops come from melior's typed builders (`melior::dialect::ods`,
//! generated from MLIR's ODS, and the hand-written ones beside it),
//! inserted with [`Emitter::put`]. Three are built by name, each in one
//! place that says why: `affine.if`, `affine.apply` and `memref.view`,
//! whose generated builders drop an operand or result that ODS leaves
//! unnamed. The builders do not write `operandSegmentSizes`:
//! [`Emitter::with_segments`] does.

mod arith;
mod convert;
mod epilogue;
mod intops;
pub(super) mod loops;

use melior::{
    Context,
    dialect::{cf, ods},
    ir::{
        AffineExpr, AffineMap, Attribute, AttributeLike, Block, BlockLike, BlockRef, Identifier,
        Location, Region, RegionLike, Type, Value, ValueLike,
        attribute::{
            DenseElementsAttribute, DenseI32ArrayAttribute, FloatAttribute, IntegerAttribute,
        },
        operation::{Operation, OperationBuilder, OperationLike, OperationMutLike, OperationRef},
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

/// A cell of a buffer: its indices over a product space of extents
/// `space`, at the positions `ivs` of that space's iterators.
#[derive(Clone, Copy)]
pub(super) struct Cell<'x, 'c, 'a> {
    pub indices: &'x [AxisIndex],
    pub space: &'x [u64],
    pub ivs: &'x [Value<'c, 'a>],
}

/// The first block of region `i` of `op` (built with one).
pub(super) fn first_block<'c, 'a>(op: OperationRef<'c, 'a>, i: usize) -> BlockRef<'c, 'a> {
    op.region(i)
        .ok()
        .and_then(|r| r.first_block())
        .expect("built with a block")
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
        self.put(at, cf::br(&next, &[], loc));
        At::end(next)
    }

    /// Inserts `op` (built by one of melior's typed builders) at `at`.
    pub(super) fn put<'a>(
        &self,
        at: At<'c, 'a>,
        op: impl Into<Operation<'c>>,
    ) -> OperationRef<'c, 'a> {
        let op = op.into();
        match at.before {
            Some(t) => at.block.insert_operation_before(t, op),
            None => at.block.append_operation(op),
        }
    }

    /// Inserts the one-result op `op` at `at` and returns its result.
    pub(super) fn put_value<'a>(
        &self,
        at: At<'c, 'a>,
        op: impl Into<Operation<'c>>,
    ) -> Value<'c, 'a> {
        self.put(at, op).result(0).expect("one result").into()
    }

    /// `op` (an `AttrSizedOperandSegments` op) with its operand segments'
    /// sizes: melior's typed builders add the operands but leave
    /// `operandSegmentSizes` at zeros.
    pub(super) fn with_segments(
        &self,
        op: impl Into<Operation<'c>>,
        sizes: &[i32],
    ) -> Operation<'c> {
        let mut op = op.into();
        op.set_inherent_attribute(
            "operandSegmentSizes",
            DenseI32ArrayAttribute::new(self.ctx, sizes).into(),
        );
        op
    }

    /// `affine.yield` of `values`.
    pub(super) fn affine_yield<'a>(
        &self,
        at: At<'c, 'a>,
        values: &[Value<'c, 'a>],
        loc: Location<'c>,
    ) -> OperationRef<'c, 'a> {
        self.put(at, ods::affine::r#yield(self.ctx, values, loc))
    }

    /// `affine.if` of the integer set `condition` over `operands`, with
    /// `results`: its then region one empty block, its else region one
    /// too (`with_else`) or none. Built by name: melior's typed builder
    /// has no setter for the op's operands (unnamed in ODS).
    pub(super) fn affine_if<'a>(
        &self,
        at: At<'c, 'a>,
        condition: Attribute<'c>,
        operands: &[Value<'c, 'a>],
        results: &[Type<'c>],
        with_else: bool,
        loc: Location<'c>,
    ) -> OperationRef<'c, 'a> {
        let (then, other) = (Region::new(), Region::new());
        then.append_block(Block::new(&[]));
        if with_else {
            other.append_block(Block::new(&[]));
        }
        let op = OperationBuilder::new("affine.if", loc)
            .add_operands(operands)
            .add_results(results)
            .add_attributes(&[(Identifier::new(self.ctx, "condition"), condition)])
            .add_regions([then, other])
            .build()
            .expect("a valid affine.if");
        self.put(at, op)
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
        self.put_value(
            at,
            ods::arith::constant(self.ctx, value.r#type(), value, loc),
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
        at: At<'c, 'a>,
        sizes: &[u64],
        loc: Location<'c>,
    ) -> (At<'c, 'a>, Vec<Value<'c, 'a>>) {
        self.nest_with(at, sizes, false, loc)
    }

    /// [`Emitter::nest`], its outermost loop an `affine.parallel` when
    /// `parallel` (on the CPU; the caller knows its iterations write
    /// distinct cells).
    pub(super) fn nest_with<'a>(
        &self,
        mut at: At<'c, 'a>,
        sizes: &[u64],
        parallel: bool,
        loc: Location<'c>,
    ) -> (At<'c, 'a>, Vec<Value<'c, 'a>>) {
        if let Some(block) = self.target.gpu_block {
            return self.grid(at, sizes, block, loc);
        }
        let mut ivs = Vec::with_capacity(sizes.len());
        let mut zero = None;
        let mut first = parallel;
        for &n in sizes {
            if n == 1 {
                ivs.push(*zero.get_or_insert_with(|| self.index_constant(at, 0, loc)));
                continue;
            }
            let l = self.for_loop(at, self.range(0, n), 1, &[], first, loc);
            first = false;
            ivs.push(l.iv);
            at = l.body;
        }
        (at, ivs)
    }

    /// A nest over `sizes` in their order, except that iterator `r` is
    /// tiled by `tile` and iterator `c` runs between `r`'s tile loop and
    /// its point loop, innermost but for it (`order = (r, c, tile)`; a
    /// transposing copy: `crate::lower_to_affine::nests`); the first loop
    /// an `affine.parallel` when `parallel` (every iteration writes its own
    /// cells). The induction variables by iterator.
    pub(super) fn transposed_nest<'a>(
        &self,
        mut at: At<'c, 'a>,
        sizes: &[u64],
        (r, c, tile): (usize, usize, u64),
        parallel: bool,
        loc: Location<'c>,
    ) -> (At<'c, 'a>, Vec<Value<'c, 'a>>) {
        let zero = self.index_constant(at, 0, loc);
        let mut ivs = vec![zero; sizes.len()];
        let mut first = parallel;
        let mut open = |at: &mut At<'c, 'a>, range, step, ivs: &mut Vec<Value<'c, 'a>>, i| {
            let l = self.for_loop(*at, range, step, &[], first, loc);
            first = false;
            if let Some(i) = i {
                ivs[i] = l.iv;
            }
            *at = l.body;
            l.iv
        };
        for (i, &n) in sizes.iter().enumerate() {
            if n > 1 && i != r && i != c {
                open(&mut at, self.range(0, n), 1, &mut ivs, Some(i));
            }
        }
        let t = open(&mut at, self.range(0, sizes[r]), tile, &mut ivs, None);
        open(&mut at, self.range(0, sizes[c]), 1, &mut ivs, Some(c));
        open(&mut at, self.tile(t, tile, sizes[r]), 1, &mut ivs, Some(r));
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
        let op: Operation<'c> = match vector {
            Some(ty) => ods::affine::vector_load(self.ctx, ty, buf, ivs, map, loc).into(),
            None => ods::affine::load(self.ctx, element_of(buf), buf, ivs, map, loc).into(),
        };
        self.put_value(at, op)
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
        let op: Operation<'c> = if ir::shaped_dims(value.r#type()).is_some() {
            ods::affine::vector_store(self.ctx, value, buf, ivs, map, loc).into()
        } else {
            ods::affine::store(self.ctx, value, buf, ivs, map, loc).into()
        };
        self.put(at, op);
    }

    /// `memref.alloc` of `ty`, aligned to [`ALIGNMENT`] bytes.
    pub(super) fn alloc<'a>(
        &self,
        at: At<'c, 'a>,
        ty: Type<'c>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let alignment = IntegerAttribute::new(self.int_type(64), ALIGNMENT as i64);
        let op = ods::memref::AllocOperation::builder(self.ctx, loc)
            .memref(ty)
            .dynamic_sizes(&[])
            .symbol_operands(&[])
            .alignment(alignment)
            .build();
        self.put_value(at, self.with_segments(op, &[0, 0]))
    }

    /// `memref.alloca` of `ty` (without dynamic sizes): the stand-in of
    /// an empty buffer passed across a call as `memref<0xT>` (see
    /// [`super::boundary_type`]).
    pub(super) fn alloca<'a>(
        &self,
        at: At<'c, 'a>,
        ty: Type<'c>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let op = ods::memref::AllocaOperation::builder(self.ctx, loc)
            .memref(ty)
            .dynamic_sizes(&[])
            .symbol_operands(&[])
            .build();
        self.put_value(at, self.with_segments(op, &[0, 0]))
    }

    /// `memref.view` of `ty` at byte `shift` of `arena`. Built by name:
    /// melior's typed builder drops the op's result (unnamed in ODS), and
    /// its hand-written `memref::view` adds an `operand_segment_sizes`
    /// attribute, which `memref.view` (one variadic operand) would keep
    /// and print.
    pub(super) fn view<'a>(
        &self,
        at: At<'c, 'a>,
        arena: Value<'c, 'a>,
        shift: Value<'c, 'a>,
        ty: Type<'c>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let op = OperationBuilder::new("memref.view", loc)
            .add_operands(&[arena, shift])
            .add_results(&[ty])
            .build()
            .expect("a valid memref.view");
        self.put_value(at, op)
    }

    /// Loads the operand cell `cell` of `buf`. Indices whose range leaves
    /// the axis (strided and convolution sums reaching into padding, fixed
    /// or hand-written indices past the end) are guarded: outside, the cell
    /// reads as `pad` (the neutral element of the op's accumulation: 0 for
    /// a sum of products, -inf for a max-pool), inside an `affine.if` whose
    /// integer set keeps every such index within its axis.
    pub(super) fn operand_load<'a>(
        &self,
        at: At<'c, 'a>,
        buf: Value<'c, 'a>,
        cell: Cell<'_, 'c, 'a>,
        pad: Attribute<'c>,
        vector: Option<Type<'c>>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let Cell {
            indices,
            space,
            ivs,
        } = cell;
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
        let elem = vector.unwrap_or_else(|| element_of(buf));
        let if_op = self.affine_if(at, condition, ivs, &[elem], true, loc);
        let inside = At::end(first_block(if_op, 0));
        let v = plain(inside, map);
        self.affine_yield(inside, &[v], loc);
        self.affine_yield(At::end(first_block(if_op, 1)), &[padding], loc);
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
