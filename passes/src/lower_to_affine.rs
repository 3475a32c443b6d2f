//! `ocannl-lower-to-affine`: functions on ocannl tensors become functions on
//! memrefs whose every op is an affine loop nest over its product space.
//!
//! Reference: ocannl-shape-inference.md, "Projections inference", and
//! OCANNL's `arrayjit/lib/assignments.ml` (the loop nest of an assignment
//! and its initialisation).
//!
//! - **Buffers.** A tensor of shape `batch|input->output` is a
//!   `memref<batch x output x input x elem>` (memory order batch, output,
//!   input; row-major, identity layout). Shapes must be concrete: run
//!   `ocannl-infer-shapes` first.
//! - **Calling convention** (destination passing). `func.func @f(%a, %b) ->
//!   (r1, r2)` becomes `func.func @f(%a, %b, %r1, %r2)` with no results: the
//!   caller owns every buffer and the function writes its results into the
//!   trailing arguments. Intermediates are `memref.alloc`ed and freed before
//!   the return.
//! - **Loop nests.** Each op is one `affine.for` per iterator of its product
//!   space (parallel iterators outside, reductions inside), with
//!   `affine.load`/`affine.store` through its projection maps
//!   (`ocannl.indexing_maps`, computed here when `ocannl-infer-projections`
//!   did not attach them). Constant bounds and affine maps keep the nests
//!   open to upstream affine tiling, fusion and vectorisation.
//! - **Initialisation** (OCANNL's rule). A store that is not injective
//!   (the op reduces over iterators absent from the result) accumulates with
//!   the op's `accum` operator into a buffer first filled with its neutral
//!   element; a store that is not surjective (fixed indices, diagonals such
//!   as `i=>ii`) is preceded by a fill with the neutral element (0 for a
//!   plain assignment). `ocannl.fma` (`a * b + c`) initialises its result
//!   from `c`, then accumulates `a * b`.
//! - **Terminals.** `ocannl.constant` fills (scalar or splat) or copies a
//!   private `memref.global` (dense values); `ocannl.range` stores each
//!   cell's linear index; `ocannl.reshape` copies in memory order through a
//!   delinearising affine map.
//!
//! Concatenations (`ocannl.concat`) lower to one nest per block of their
//! projections, in sequence ([`ocannl_shape::projection::Projections::blocks`]).

use std::collections::HashMap;

use melior::{
    Context,
    ir::{
        Attribute, AttributeLike, Block, BlockLike, BlockRef, Identifier, Location, Region,
        RegionLike, Type, TypeLike, Value, ValueLike,
        attribute::{
            DenseI32ArrayAttribute, FlatSymbolRefAttribute, IntegerAttribute, StringAttribute,
            TypeAttribute,
        },
        operation::{OperationBuilder, OperationLike, OperationRef},
        r#type::{FunctionType, IntegerType, MemRefType},
    },
};
use mlir_sys::{
    MlirAffineExpr, mlirAffineAddExprGet, mlirAffineConstantExprGet, mlirAffineDimExprGet,
    mlirAffineFloorDivExprGet, mlirAffineMapAttrGet, mlirAffineMapAttrGetValue,
    mlirAffineMapConstantGet, mlirAffineMapGet, mlirAffineMapGetNumDims,
    mlirAffineMapGetNumResults, mlirAffineMapGetResult, mlirAffineModExprGet, mlirAffineMulExprGet,
    mlirArrayAttrGetElement, mlirArrayAttrGetNumElements, mlirAttributeGetNull,
    mlirAttributeIsAAffineMap, mlirAttributeIsAArray, mlirAttributeIsADenseElements,
    mlirAttributeIsADenseI64Array, mlirAttributeIsAFloat, mlirAttributeIsAInteger,
    mlirDenseElementsAttrGetSplatValue, mlirDenseElementsAttrIsSplat,
    mlirDenseElementsAttrReshapeGet, mlirDenseI64ArrayGetElement, mlirFloatAttrDoubleGet,
    mlirFloatAttrGetValueDouble, mlirIntegerAttrGet, mlirIntegerAttrGetValueInt,
    mlirIntegerSetAttrGet, mlirIntegerSetGet, mlirIntegerTypeGetWidth, mlirOperationDestroy,
    mlirRankedTensorTypeGet, mlirShapedTypeGetDimSize, mlirShapedTypeGetElementType,
    mlirTypeIsAFloat, mlirTypeIsAInteger, mlirValueGetLocation,
};
use ocannl_dialect::{
    catalog::{self, ShapeLogic},
    types::{TensorType, shape_spec},
};
use ocannl_shape::projection::{AffineIndex, AxisIndex, Projections, memory_dims};

use crate::{
    infer_projections::projections,
    infer_shapes::string_attr,
    registry::{PassDef, PassFailed, PassOptions},
};

/// The registry entry of `ocannl-lower-to-affine`.
pub const PASS: PassDef = PassDef {
    argument: c"ocannl-lower-to-affine",
    description: c"Lower functions on ocannl tensors to memrefs and affine loop nests (destination-passing results)",
    anchor: Some(c"builtin.module"),
    options: &[],
    run,
};

/// An error at a location.
struct Located<'c> {
    location: Location<'c>,
    message: String,
}

fn at<'c>(location: Location<'c>, message: impl Into<String>) -> Located<'c> {
    Located {
        location,
        message: message.into(),
    }
}

fn run(root: OperationRef<'_, '_>, _options: &PassOptions) -> Result<(), PassFailed> {
    let Some(body) = root.region(0).ok().and_then(|r| r.first_block()) else {
        return Ok(());
    };
    // Collect first: lowering inserts and erases functions.
    let mut funcs = Vec::new();
    let mut next = body.first_operation();
    while let Some(op) = next {
        if is_ocannl_function(op) {
            funcs.push(op);
        }
        next = op.next_in_block();
    }
    let mut failed = false;
    for (n, func) in funcs.into_iter().enumerate() {
        match lower_function(body, func, n) {
            // SAFETY: `func` is a live op of `body`, no longer referenced.
            Ok(()) => unsafe { mlirOperationDestroy(func.to_raw()) },
            Err(e) => {
                ocannl_dialect::diagnostics::emit_error(e.location, &e.message, &[]);
                failed = true;
            }
        }
    }
    if failed { Err(PassFailed) } else { Ok(()) }
}

/// A `func.func` with ocannl tensors in its signature or ocannl ops inside.
fn is_ocannl_function(op: OperationRef<'_, '_>) -> bool {
    if op.name().as_string_ref().as_str() != Ok("func.func") {
        return false;
    }
    let in_signature = function_type(op).is_some_and(|f| {
        (0..f.input_count())
            .filter_map(|i| f.input(i).ok())
            .chain((0..f.result_count()).filter_map(|i| f.result(i).ok()))
            .any(|t| matches!(TensorType::classify(t), Some(TensorType::Ocannl { .. })))
    });
    let mut has_ops = false;
    op.walk(melior::ir::operation::WalkOrder::PreOrder, |inner| {
        if inner
            .name()
            .as_string_ref()
            .as_str()
            .is_ok_and(|n| n.starts_with("ocannl."))
        {
            has_ops = true;
            melior::ir::operation::WalkResult::Interrupt
        } else {
            melior::ir::operation::WalkResult::Advance
        }
    });
    in_signature || has_ops
}

fn function_type<'c>(op: OperationRef<'c, '_>) -> Option<FunctionType<'c>> {
    let attr = op.attribute("function_type").ok()?;
    let ty = TypeAttribute::try_from(attr).ok()?.value();
    FunctionType::try_from(ty).ok()
}

/// The buffer of a tensor type: its memref type and dimensions.
fn buffer_type<'c>(ty: Type<'c>, what: &str) -> Result<(Type<'c>, Vec<u64>), String> {
    let tensor = TensorType::classify(ty).ok_or_else(|| format!("{what} {ty} is not a tensor"))?;
    let spec = shape_spec(ty)
        .map_err(|e| format!("{what} has an invalid shape spec: {e}"))?
        .ok_or_else(|| format!("{what} {ty} is not a tensor"))?;
    let dims = memory_dims(&spec).map_err(|_| {
        format!("{what} {ty} does not have a concrete shape: run ocannl-infer-shapes first")
    })?;
    let elem = tensor.element_type();
    scalar_kind(elem).ok_or_else(|| {
        format!("{what} has element type {elem}: only float and integer elements are lowered")
    })?;
    let shape: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    Ok((MemRefType::new(elem, &shape, None, None).into(), dims))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScalarKind {
    Float,
    Int(u32),
}

fn scalar_kind(ty: Type<'_>) -> Option<ScalarKind> {
    // SAFETY: `ty` is a valid type.
    unsafe {
        if mlirTypeIsAFloat(ty.to_raw()) {
            Some(ScalarKind::Float)
        } else if mlirTypeIsAInteger(ty.to_raw()) {
            Some(ScalarKind::Int(mlirIntegerTypeGetWidth(ty.to_raw())))
        } else {
            None
        }
    }
}

fn lower_function<'c, 'm>(
    module: BlockRef<'c, 'm>,
    func: OperationRef<'c, 'm>,
    serial: usize,
) -> Result<(), Located<'c>> {
    let loc = func.location();
    // SAFETY: the context outlives the pass run.
    let ctx = unsafe { func.context().to_ref() };
    let ftype = function_type(func).ok_or_else(|| at(loc, "function has no function_type"))?;
    let region = func
        .region(0)
        .map_err(|_| at(loc, "function has no body"))?;
    let old_entry = region
        .first_block()
        .ok_or_else(|| at(loc, "cannot lower a function declaration on ocannl tensors"))?;
    if old_entry.next_in_region().is_some() {
        return Err(at(
            loc,
            "cannot lower a function with more than one block on ocannl tensors",
        ));
    }
    let mut params = Vec::new();
    for i in 0..ftype.input_count() {
        let ty = ftype.input(i).expect("in range");
        let arg = old_entry
            .argument(i)
            .map_err(|_| at(loc, "argument mismatch"))?;
        // SAFETY: `arg` is a live block argument.
        let arg_loc = unsafe { Location::from_raw(mlirValueGetLocation(arg.to_raw())) };
        let (mty, _) = buffer_type(ty, &format!("argument #{i}")).map_err(|m| at(arg_loc, m))?;
        params.push((mty, arg_loc));
    }
    let n_inputs = params.len();
    for i in 0..ftype.result_count() {
        let ty = ftype.result(i).expect("in range");
        let (mty, _) = buffer_type(ty, &format!("result #{i}")).map_err(|m| at(loc, m))?;
        params.push((mty, loc));
    }
    let types: Vec<Type<'c>> = params.iter().map(|p| p.0).collect();
    let mut attrs: Vec<(Identifier<'c>, Attribute<'c>)> = func
        .attributes()
        .filter(|(name, _)| {
            !matches!(
                name.as_string_ref().as_str(),
                Ok("function_type" | "res_attrs" | "arg_attrs")
            )
        })
        .collect();
    attrs.push((
        Identifier::new(ctx, "function_type"),
        TypeAttribute::new(FunctionType::new(ctx, &types, &[]).into()).into(),
    ));
    let body = Region::new();
    body.append_block(Block::new(&params));
    let new_func = OperationBuilder::new("func.func", loc)
        .add_attributes(&attrs)
        .add_regions([body])
        .build()
        .map_err(|e| at(loc, format!("cannot build the lowered function: {e}")))?;
    let new_func = module.insert_operation_before(func, new_func);
    let entry = new_func
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .expect("built with one block");
    let function_name = func
        .attribute("sym_name")
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok())
        .map_or_else(|| serial.to_string(), |s| s.value().to_owned());
    let mut lowering = Lowering {
        ctx,
        module,
        func: new_func,
        function_name,
        globals: 0,
        values: HashMap::new(),
        allocs: Vec::new(),
    };
    let result = lowering.body(old_entry, entry, n_inputs);
    if result.is_err() {
        // SAFETY: the half-built function is ours and referenced nowhere.
        unsafe { mlirOperationDestroy(new_func.to_raw()) };
    }
    result
}

/// Where to put the next op: at the end of `block`, or before `before`.
#[derive(Clone, Copy)]
struct At<'c, 'a> {
    block: BlockRef<'c, 'a>,
    before: Option<OperationRef<'c, 'a>>,
}

/// How an op's computed value reaches its result cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Accum {
    Add,
    Mul,
    Max,
    Min,
}

/// What an op computes at each point of its product space.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Compute {
    /// The single operand's value.
    Identity,
    /// A unary function (op name without the dialect prefix).
    Unary(String),
    /// A binary function.
    Binary(String),
    /// `a * b + c`.
    Fma,
    /// `c != 0 ? a : b`.
    Where,
}

struct Lowering<'c, 'a> {
    ctx: &'c Context,
    module: BlockRef<'c, 'a>,
    func: OperationRef<'c, 'a>,
    /// For the names of constants' globals.
    function_name: String,
    globals: usize,
    /// Old SSA values (by raw pointer) → their buffers.
    values: HashMap<usize, Value<'c, 'a>>,
    /// Buffers to free before returning.
    allocs: Vec<Value<'c, 'a>>,
}

fn key(v: Value<'_, '_>) -> usize {
    v.to_raw().ptr as usize
}

impl<'c, 'a> Lowering<'c, 'a> {
    fn body(
        &mut self,
        old: BlockRef<'c, 'a>,
        entry: BlockRef<'c, 'a>,
        n_inputs: usize,
    ) -> Result<(), Located<'c>> {
        for i in 0..n_inputs {
            let old_arg = old.argument(i).expect("checked");
            let new_arg = entry.argument(i).expect("built");
            self.values.insert(key(old_arg.into()), new_arg.into());
        }
        let end = At {
            block: entry,
            before: None,
        };
        // Results returned once and computed here are written in place.
        let terminator = old.terminator();
        let mut destinations: HashMap<usize, Value<'c, 'a>> = HashMap::new();
        if let Some(ret) = terminator {
            for (i, v) in ret.operands().enumerate() {
                let is_op_result = !self.values.contains_key(&key(v));
                if is_op_result && !destinations.contains_key(&key(v)) {
                    let out = entry.argument(n_inputs + i).expect("built");
                    destinations.insert(key(v), out.into());
                }
            }
        }
        let mut next = old.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            let name = op.name();
            let name = name.as_string_ref().as_str().unwrap_or_default().to_owned();
            if name == "func.return" {
                let mut used: Vec<usize> = Vec::new();
                for (i, v) in op.operands().enumerate() {
                    let out: Value<'c, 'a> = entry.argument(n_inputs + i).expect("built").into();
                    let src = self.buffer(v).map_err(|m| at(op.location(), m))?;
                    if destinations.get(&key(v)).is_some_and(|d| *d == out)
                        && !used.contains(&key(v))
                    {
                        used.push(key(v));
                        continue;
                    }
                    self.emit(end, "memref.copy", &[src, out], &[], &[], op.location());
                }
                for buf in std::mem::take(&mut self.allocs) {
                    self.emit(end, "memref.dealloc", &[buf], &[], &[], op.location());
                }
                self.emit(end, "func.return", &[], &[], &[], op.location());
                continue;
            }
            if !name.starts_with("ocannl.") {
                return Err(at(
                    op.location(),
                    format!(
                        "'{name}' op cannot be lowered by ocannl-lower-to-affine: functions on ocannl tensors may hold only ocannl ops"
                    ),
                ));
            }
            let result = op
                .result(0)
                .map_err(|_| at(op.location(), format!("'{name}' op has no result")))?;
            let result: Value<'c, 'a> = result.into();
            let (mty, dims) = buffer_type(result.r#type(), "result")
                .map_err(|m| at(op.location(), format!("'{name}' op: {m}")))?;
            let buf = match destinations.get(&key(result)) {
                Some(out) => *out,
                None => {
                    let v = self.value(
                        end,
                        "memref.alloc",
                        &[],
                        mty,
                        &[
                            (
                                "operandSegmentSizes",
                                DenseI32ArrayAttribute::new(self.ctx, &[0, 0]).into(),
                            ),
                            (
                                "alignment",
                                IntegerAttribute::new(self.int_type(64), 64).into(),
                            ),
                        ],
                        op.location(),
                    );
                    self.allocs.push(v);
                    v
                }
            };
            self.lower_op(end, op, &name, buf, &dims)
                .map_err(|m| at(op.location(), format!("'{name}' op: {m}")))?;
            self.values.insert(key(result), buf);
        }
        if terminator.is_none() {
            return Err(at(self.func.location(), "function body has no terminator"));
        }
        Ok(())
    }

    /// The buffer of an operand computed earlier in the function.
    fn buffer(&self, v: Value<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        self.values
            .get(&key(v))
            .copied()
            .ok_or_else(|| "operand is not an ocannl tensor computed in this function".to_owned())
    }

    /// Builds an op at `at`.
    fn emit(
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
    fn emit_with_regions(
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
            .unwrap_or_else(|e| panic!("building '{name}': {e}"));
        match at.before {
            Some(t) => at.block.insert_operation_before(t, op),
            None => at.block.append_operation(op),
        }
    }

    /// One `affine.for` per size, outermost first; returns the insertion
    /// point inside the innermost loop and the induction variables.
    fn nest(
        &self,
        mut at: At<'c, 'a>,
        sizes: &[u64],
        loc: Location<'c>,
    ) -> (At<'c, 'a>, Vec<Value<'c, 'a>>) {
        let index = Type::index(self.ctx);
        let mut ivs = Vec::with_capacity(sizes.len());
        for &n in sizes {
            let block = Block::new(&[(index, loc)]);
            block.append_operation(
                OperationBuilder::new("affine.yield", loc)
                    .build()
                    .expect("affine.yield"),
            );
            let region = Region::new();
            region.append_block(block);
            // SAFETY: valid context; constant maps.
            let (lower, upper) = unsafe {
                (
                    Attribute::from_raw(mlirAffineMapAttrGet(mlirAffineMapConstantGet(
                        self.ctx.to_raw(),
                        0,
                    ))),
                    Attribute::from_raw(mlirAffineMapAttrGet(mlirAffineMapConstantGet(
                        self.ctx.to_raw(),
                        n as i64,
                    ))),
                )
            };
            let for_op = self.emit_with_regions(
                at,
                "affine.for",
                &[],
                &[],
                &[
                    ("lowerBoundMap", lower),
                    ("upperBoundMap", upper),
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

    /// `affine_map<(d0, ..., d{dims-1}) -> (exprs)>`.
    fn map(&self, dims: usize, indices: &[AxisIndex]) -> Attribute<'c> {
        let ctx = self.ctx.to_raw();
        let exprs: Vec<MlirAffineExpr> = indices
            .iter()
            .map(|a| crate::infer_projections::index_expr(ctx, a))
            .collect();
        self.map_of(dims, &exprs)
    }

    /// `affine_map<(d0, ..., d{n-1}) -> (d0, ..., d{n-1})>`.
    fn identity(&self, n: usize) -> Attribute<'c> {
        let indices: Vec<AxisIndex> = (0..n).map(AxisIndex::Iter).collect();
        self.map(n, &indices)
    }

    fn map_of(&self, dims: usize, exprs: &[MlirAffineExpr]) -> Attribute<'c> {
        // SAFETY: valid context; `exprs` outlives the call.
        unsafe {
            Attribute::from_raw(mlirAffineMapAttrGet(mlirAffineMapGet(
                self.ctx.to_raw(),
                dims as isize,
                0,
                exprs.len() as isize,
                exprs.as_ptr().cast_mut(),
            )))
        }
    }

    fn load(
        &self,
        at: At<'c, 'a>,
        buf: Value<'c, 'a>,
        map: Attribute<'c>,
        ivs: &[Value<'c, 'a>],
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let elem = element_of(buf);
        let mut operands = vec![buf];
        operands.extend_from_slice(ivs);
        self.value(at, "affine.load", &operands, elem, &[("map", map)], loc)
    }

    /// Loads an operand cell through `indices`. Strided and convolution
    /// indices that can leave the axis (padding) are guarded: outside, the
    /// cell reads as `pad` (the neutral element of the op's accumulation:
    /// 0 for a sum of products, -inf for a max-pool), inside an `affine.if`
    /// whose integer set keeps every such index within its axis.
    #[allow(clippy::too_many_arguments)]
    fn operand_load(
        &self,
        at: At<'c, 'a>,
        buf: Value<'c, 'a>,
        indices: &[AxisIndex],
        space: &[u64],
        ivs: &[Value<'c, 'a>],
        pad: Attribute<'c>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let n_dims = space.len();
        let map = self.map(n_dims, indices);
        let ctx = self.ctx.to_raw();
        let mut conditions: Vec<MlirAffineExpr> = Vec::new();
        for (j, a) in indices.iter().enumerate() {
            // SAFETY: `buf` is a memref with at least `indices.len()` axes.
            let size = unsafe { mlirShapedTypeGetDimSize(buf.r#type().to_raw(), j as isize) };
            // Any index whose range leaves the axis is guarded: a strided
            // or convolution sum, or a kernel iterator alone (its output
            // iterator has size 1) that reaches into the padding.
            let (lo, hi) = a.range(space);
            let e = crate::infer_projections::index_expr(ctx, a);
            // SAFETY: plain constructors on a valid context.
            unsafe {
                if lo < 0 {
                    conditions.push(e);
                }
                if hi > size - 1 {
                    conditions.push(mlirAffineAddExprGet(
                        mlirAffineMulExprGet(e, mlirAffineConstantExprGet(ctx, -1)),
                        mlirAffineConstantExprGet(ctx, size - 1),
                    ));
                }
            }
        }
        if conditions.is_empty() {
            return self.load(at, buf, map, ivs, loc);
        }
        let eq = vec![false; conditions.len()];
        // SAFETY: the arrays outlive the call.
        let condition = unsafe {
            Attribute::from_raw(mlirIntegerSetAttrGet(mlirIntegerSetGet(
                ctx,
                n_dims as isize,
                0,
                conditions.len() as isize,
                conditions.as_ptr(),
                eq.as_ptr(),
            )))
        };
        let padding = self.constant(at, pad, loc);
        let regions = vec![Region::new(), Region::new()];
        for r in &regions {
            r.append_block(Block::new(&[]));
        }
        let elem = element_of(buf);
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
        let inside = At {
            block: block(0),
            before: None,
        };
        let v = self.load(inside, buf, map, ivs, loc);
        self.emit(inside, "affine.yield", &[v], &[], &[], loc);
        let outside = At {
            block: block(1),
            before: None,
        };
        self.emit(outside, "affine.yield", &[padding], &[], &[], loc);
        if_op.result(0).expect("one result").into()
    }

    fn store(
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
        self.emit(at, "affine.store", &operands, &[], &[("map", map)], loc);
    }

    fn constant(&self, at: At<'c, 'a>, value: Attribute<'c>, loc: Location<'c>) -> Value<'c, 'a> {
        self.value(
            at,
            "arith.constant",
            &[],
            value.r#type(),
            &[("value", value)],
            loc,
        )
    }

    /// A scalar attribute of type `elem` holding `value` (floats) or its
    /// integer conversion.
    fn scalar_attr(&self, elem: Type<'c>, value: f64) -> Attribute<'c> {
        // SAFETY: valid context and type.
        unsafe {
            match scalar_kind(elem) {
                Some(ScalarKind::Float) => Attribute::from_raw(mlirFloatAttrDoubleGet(
                    self.ctx.to_raw(),
                    elem.to_raw(),
                    value,
                )),
                kind => {
                    let width = match kind {
                        Some(ScalarKind::Int(w)) => w,
                        _ => 64,
                    };
                    let v = if value.is_infinite() {
                        let max = if width >= 64 {
                            i64::MAX
                        } else {
                            (1i64 << (width - 1)) - 1
                        };
                        if value > 0.0 { max } else { -max - 1 }
                    } else {
                        value as i64
                    };
                    Attribute::from_raw(mlirIntegerAttrGet(elem.to_raw(), v))
                }
            }
        }
    }

    /// Stores `value` (a scalar attribute) into every cell of `buf`.
    fn fill(
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

    /// The buffers of `op`'s operands, each of element type `elem` (but
    /// operand #0 when it is a `where` condition).
    fn operand_buffers(
        &self,
        op: OperationRef<'c, 'a>,
        elem: Type<'c>,
        condition: bool,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let operands: Vec<Value<'c, 'a>> = op
            .operands()
            .map(|v| self.buffer(v))
            .collect::<Result<_, _>>()?;
        for (i, o) in operands.iter().enumerate() {
            if !(condition && i == 0) && element_of(*o) != elem {
                return Err(format!(
                    "operand #{i} has element type {} but the result has {elem}",
                    element_of(*o)
                ));
            }
        }
        Ok(operands)
    }

    fn lower_op(
        &mut self,
        at: At<'c, 'a>,
        op: OperationRef<'c, 'a>,
        name: &str,
        buf: Value<'c, 'a>,
        dims: &[u64],
    ) -> Result<(), String> {
        let loc = op.location();
        let elem = element_of(buf);
        let short = name.trim_start_matches("ocannl.");
        let def = catalog::lookup(name).ok_or_else(|| "unknown ocannl op".to_owned())?;
        match short {
            "constant" => return self.lower_constant(at, op, buf, dims),
            "range" => return self.lower_range(at, buf, dims, loc),
            "reshape" => return self.lower_reshape(at, op, buf, dims),
            _ => {}
        }
        if def.logic == ShapeLogic::Block {
            return self.lower_block(at, op, buf, dims);
        }
        // A `where` condition may have another element type.
        let condition = short == "where"
            || short == "einsum"
                && op.operand_count() == 3
                && combine(op).as_deref() == Some("where");
        let operands = self.operand_buffers(op, elem, condition)?;
        let p = op_projections(op)?;
        let accum_attr = string_attr(op, "accum");
        let (compute, mut accum, init) = match (short, operands.len()) {
            ("matmul", _) => (Compute::Binary("mul".into()), Some(Accum::Add), None),
            ("fma", _) => (Compute::Binary("mul".into()), Some(Accum::Add), Some(2)),
            ("transpose" | "batch_slice", _) => (Compute::Identity, None, None),
            ("where", _) => (Compute::Where, None, None),
            ("einsum", n) => {
                let c = combine(op);
                let compute = match (n, c.as_deref()) {
                    (1, _) => Compute::Identity,
                    (2, None) => Compute::Binary("mul".into()),
                    (2, Some(c)) => Compute::Binary(c.into()),
                    (3, None | Some("fma")) => Compute::Fma,
                    (3, Some("where")) => Compute::Where,
                    (_, Some(c)) => {
                        return Err(format!("combine '{c}' does not take {n} operands"));
                    }
                    _ => return Err(format!("{n} operands")),
                };
                (compute, None, None)
            }
            (s, 1) => (Compute::Unary(s.into()), None, None),
            (s, 2) => (Compute::Binary(s.into()), None, None),
            (s, n) => return Err(format!("'{s}' with {n} operands is not lowered")),
        };
        if p.result.iter().any(|a| matches!(a, AxisIndex::Affine(_))) {
            return Err("strided or convolution indices of the result are not lowered".into());
        }
        let reductions = p.reductions();
        let injective = reductions.is_empty();
        let surjective = plain_box(&p.result, dims);
        // The op's accumulation operator: its neutral element fills cells
        // a store does not cover, and it combines values a store reaches
        // more than once.
        let accum_kind = if short == "fma" || short == "matmul" {
            Accum::Add
        } else {
            match accum_attr.as_deref() {
                None | Some("add") => Accum::Add,
                Some("mul") => Accum::Mul,
                Some("max") => Accum::Max,
                Some("min") => Accum::Min,
                Some(other) => return Err(format!("unknown accumulation operator '{other}'")),
            }
        };
        if !injective || init.is_some() {
            accum = Some(accum_kind);
        }
        let n_dims = p.product_space.len();
        let result_map = self.map(n_dims, &p.result);
        if let Some(k) = init {
            // The result starts as operand `k`, read on the parallel
            // iterators (numbered first) only.
            let parallel = n_dims - reductions.len();
            let in_range = |idx: &[AxisIndex]| {
                idx.iter()
                    .all(|a| !matches!(a, AxisIndex::Iter(i) if *i >= parallel))
            };
            if !surjective || !in_range(&p.operands[k]) || !in_range(&p.result) {
                return Err("the addend must be indexed by the result's iterators".into());
            }
            let (inner, ivs) = self.nest(at, &p.product_space[..parallel], loc);
            let v = self.load(
                inner,
                operands[k],
                self.map(parallel, &p.operands[k]),
                &ivs,
                loc,
            );
            self.store(inner, v, buf, self.map(parallel, &p.result), &ivs, loc);
        } else if !(injective && surjective) {
            let neutral = neutral(accum_kind);
            self.fill(at, buf, dims, self.scalar_attr(elem, neutral), loc);
        }
        let (inner, ivs) = self.nest(at, &p.product_space, loc);
        let mut args = Vec::new();
        for (k, o) in operands.iter().enumerate() {
            if Some(k) == init {
                continue;
            }
            let pad = self.scalar_attr(element_of(*o), neutral(accum_kind));
            args.push(self.operand_load(
                inner,
                *o,
                &p.operands[k],
                &p.product_space,
                &ivs,
                pad,
                loc,
            ));
        }
        let mut value = self.compute(inner, &compute, elem, &args, loc)?;
        if let Some(acc) = accum {
            let old = self.load(inner, buf, result_map, &ivs, loc);
            let name = match acc {
                Accum::Add => "add",
                Accum::Mul => "mul",
                Accum::Max => "max",
                Accum::Min => "min",
            };
            value = self.binary(inner, name, elem, old, value, loc)?;
        }
        self.store(inner, value, buf, result_map, &ivs, loc);
        Ok(())
    }

    /// `ocannl.concat` (OCANNL's Block with `concat_sum`'s `Identity` and
    /// `Add`): one loop nest per block ([`Projections::blocks`]), in
    /// sequence, over the block's active iterators; each copies its one
    /// operand into its part of the result. Cells no block writes are 0;
    /// cells several blocks (or several iterations of one) reach are summed
    /// into a 0-filled result.
    fn lower_block(
        &mut self,
        at: At<'c, 'a>,
        op: OperationRef<'c, 'a>,
        buf: Value<'c, 'a>,
        dims: &[u64],
    ) -> Result<(), String> {
        let loc = op.location();
        let elem = element_of(buf);
        let operands = self.operand_buffers(op, elem, false)?;
        // Always from the shapes: blocks are not affine maps of one nest.
        let p = projections(op)?.ok_or_else(|| "has no projections".to_owned())?;
        let blocks = p.blocks().map_err(|e| e.to_string())?;
        let space = &p.product_space;
        // Each block writes a box of the result; where boxes overlap, or a
        // block iterates over a size > 1 the result does not see, cells are
        // reached more than once and the values add up.
        let boxes: Vec<Vec<(i64, i64)>> = blocks
            .iter()
            .map(|b| b.result.iter().map(|a| a.range(space)).collect())
            .collect();
        let reduces = blocks.iter().any(|b| {
            b.iterators
                .iter()
                .any(|&i| space[i] > 1 && !b.result.iter().any(|a| a.uses(i)))
        });
        let overlap = (0..boxes.len()).any(|x| {
            (x + 1..boxes.len()).any(|y| {
                boxes[x]
                    .iter()
                    .zip(&boxes[y])
                    .all(|(a, b)| a.0 <= b.1 && b.0 <= a.1)
            })
        });
        let accumulate = reduces || overlap;
        // Without accumulation the boxes are disjoint: they cover the result
        // when each is a plain box and their volumes add up to its size.
        let volume: u64 = boxes
            .iter()
            .map(|bx| {
                bx.iter()
                    .map(|(lo, hi)| (hi - lo + 1).max(0) as u64)
                    .product::<u64>()
            })
            .sum();
        let covered = !accumulate
            && blocks.iter().all(|b| plain_box(&b.result, dims))
            && volume == dims.iter().product::<u64>();
        if !covered {
            self.fill(at, buf, dims, self.scalar_attr(elem, 0.0), loc);
        }
        for b in &blocks {
            let sizes: Vec<u64> = b.iterators.iter().map(|&i| space[i]).collect();
            let (inner, ivs) = self.nest(at, &sizes, loc);
            let (k, indices) = b
                .operands
                .iter()
                .enumerate()
                .find_map(|(k, o)| o.as_ref().map(|o| (k, o)))
                .expect("a block has one operand");
            let n = b.iterators.len();
            let local = |indices: &[AxisIndex]| {
                crate::infer_projections::block_local(indices, &b.iterators)
            };
            let mut value = self.load(inner, operands[k], self.map(n, &local(indices)), &ivs, loc);
            let result_map = self.map(n, &local(&b.result));
            if accumulate {
                let old = self.load(inner, buf, result_map, &ivs, loc);
                value = self.binary(inner, "add", elem, old, value, loc)?;
            }
            self.store(inner, value, buf, result_map, &ivs, loc);
        }
        Ok(())
    }

    fn compute(
        &self,
        at: At<'c, 'a>,
        compute: &Compute,
        elem: Type<'c>,
        args: &[Value<'c, 'a>],
        loc: Location<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        match compute {
            Compute::Identity => Ok(args[0]),
            Compute::Unary(f) => self.unary(at, f, elem, args[0], loc),
            Compute::Binary(f) => self.binary(at, f, elem, args[0], args[1], loc),
            Compute::Fma => {
                let m = self.binary(at, "mul", elem, args[0], args[1], loc)?;
                self.binary(at, "add", elem, m, args[2], loc)
            }
            Compute::Where => {
                let (cond, on_true, on_false) = (args[0], args[1], args[2]);
                let cty = cond.r#type();
                let zero = self.constant(at, self.scalar_attr(cty, 0.0), loc);
                let (cmp, pred) = match scalar_kind(cty) {
                    // `une` (unordered or not equal) = 13, `ne` = 1.
                    Some(ScalarKind::Float) => ("arith.cmpf", 13),
                    _ => ("arith.cmpi", 1),
                };
                let pred = IntegerAttribute::new(self.int_type(64), pred).into();
                let i1 = self.int_type(1);
                let c = self.value(at, cmp, &[cond, zero], i1, &[("predicate", pred)], loc);
                Ok(self.value(at, "arith.select", &[c, on_true, on_false], elem, &[], loc))
            }
        }
    }

    /// Builds a one-result op at `at` and returns its result.
    fn value(
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

    fn int_type(&self, width: u32) -> Type<'c> {
        IntegerType::new(self.ctx, width).into()
    }

    fn unary(
        &self,
        at: At<'c, 'a>,
        f: &str,
        elem: Type<'c>,
        x: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        let float = scalar_kind(elem) == Some(ScalarKind::Float);
        Ok(match (f, float) {
            ("neg", true) => self.value(at, "arith.negf", &[x], elem, &[], loc),
            ("neg", false) => {
                let zero = self.constant(at, self.scalar_attr(elem, 0.0), loc);
                self.value(at, "arith.subi", &[zero, x], elem, &[], loc)
            }
            ("relu", _) => {
                let zero = self.constant(at, self.scalar_attr(elem, 0.0), loc);
                self.binary(at, "max", elem, x, zero, loc)?
            }
            ("abs", true) => self.value(at, "math.absf", &[x], elem, &[], loc),
            ("abs", false) => self.value(at, "math.absi", &[x], elem, &[], loc),
            ("recip", _) => {
                let one = self.constant(at, self.scalar_attr(elem, 1.0), loc);
                self.binary(at, "div", elem, one, x, loc)?
            }
            ("exp" | "log" | "sqrt" | "tanh" | "sin" | "cos", true) => {
                self.value(at, &format!("math.{f}"), &[x], elem, &[], loc)
            }
            (f, _) => return Err(format!("'{f}' is not lowered for element type {elem}")),
        })
    }

    fn binary(
        &self,
        at: At<'c, 'a>,
        f: &str,
        elem: Type<'c>,
        x: Value<'c, 'a>,
        y: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        let float = scalar_kind(elem) == Some(ScalarKind::Float);
        let name = match (f, float) {
            ("add", true) => "arith.addf",
            ("sub", true) => "arith.subf",
            ("mul", true) => "arith.mulf",
            ("div", true) => "arith.divf",
            ("max", true) => "arith.maximumf",
            ("min", true) => "arith.minimumf",
            ("pow", true) => "math.powf",
            ("add", false) => "arith.addi",
            ("sub", false) => "arith.subi",
            ("mul", false) => "arith.muli",
            ("div", false) => "arith.divsi",
            ("max", false) => "arith.maxsi",
            ("min", false) => "arith.minsi",
            ("pow", false) => "math.ipowi",
            (f, _) => return Err(format!("'{f}' is not lowered for element type {elem}")),
        };
        Ok(self.value(at, name, &[x, y], elem, &[], loc))
    }

    fn lower_constant(
        &mut self,
        at: At<'c, 'a>,
        op: OperationRef<'c, 'a>,
        buf: Value<'c, 'a>,
        dims: &[u64],
    ) -> Result<(), String> {
        let loc = op.location();
        let elem = element_of(buf);
        let value = op
            .attribute("value")
            .map_err(|_| "missing 'value' attribute".to_owned())?;
        let raw = value.to_raw();
        // SAFETY: `raw` is a live attribute; each getter matches its check.
        unsafe {
            let scalar = if mlirAttributeIsAFloat(raw) {
                Some(mlirFloatAttrGetValueDouble(raw))
            } else if mlirAttributeIsAInteger(raw) {
                Some(mlirIntegerAttrGetValueInt(raw) as f64)
            } else if mlirAttributeIsADenseElements(raw) && mlirDenseElementsAttrIsSplat(raw) {
                let s = mlirDenseElementsAttrGetSplatValue(raw);
                if mlirAttributeIsAFloat(s) {
                    Some(mlirFloatAttrGetValueDouble(s))
                } else if mlirAttributeIsAInteger(s) {
                    Some(mlirIntegerAttrGetValueInt(s) as f64)
                } else {
                    None
                }
            } else {
                None
            };
            if let Some(v) = scalar {
                self.fill(at, buf, dims, self.scalar_attr(elem, v), loc);
                return Ok(());
            }
            if !mlirAttributeIsADenseElements(raw) {
                return Err("'value' must be a scalar or a dense elements attribute".into());
            }
            let value_elem = Type::from_raw(mlirShapedTypeGetElementType(value.r#type().to_raw()));
            if value_elem != elem {
                return Err(format!(
                    "'value' has element type {value_elem} but the result has {elem}"
                ));
            }
            let shape: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
            let tensor = Type::from_raw(mlirRankedTensorTypeGet(
                shape.len() as isize,
                shape.as_ptr(),
                elem.to_raw(),
                mlirAttributeGetNull(),
            ));
            let reshaped = mlirDenseElementsAttrReshapeGet(raw, tensor.to_raw());
            if reshaped.ptr.is_null() {
                return Err("'value' does not have as many elements as the result".into());
            }
            let name = format!("__ocannl_constant_{}_{}", self.function_name, self.globals);
            self.globals += 1;
            let mty = buf.r#type();
            let global = OperationBuilder::new("memref.global", loc)
                .add_attributes(&[
                    (
                        Identifier::new(self.ctx, "sym_name"),
                        StringAttribute::new(self.ctx, &name).into(),
                    ),
                    (
                        Identifier::new(self.ctx, "sym_visibility"),
                        StringAttribute::new(self.ctx, "private").into(),
                    ),
                    (
                        Identifier::new(self.ctx, "type"),
                        TypeAttribute::new(mty).into(),
                    ),
                    (
                        Identifier::new(self.ctx, "initial_value"),
                        Attribute::from_raw(reshaped),
                    ),
                    (
                        Identifier::new(self.ctx, "constant"),
                        Attribute::unit(self.ctx),
                    ),
                ])
                .build()
                .map_err(|e| format!("cannot build the constant's global: {e}"))?;
            self.module.insert_operation_before(self.func, global);
            let src = self.value(
                at,
                "memref.get_global",
                &[],
                mty,
                &[("name", FlatSymbolRefAttribute::new(self.ctx, &name).into())],
                loc,
            );
            self.emit(at, "memref.copy", &[src, buf], &[], &[], loc);
        }
        Ok(())
    }

    /// The linear (row-major) index of a cell of `dims` as an affine expr.
    fn linear(&self, dims: &[u64]) -> MlirAffineExpr {
        // SAFETY: valid context.
        unsafe {
            let ctx = self.ctx.to_raw();
            let mut e = mlirAffineConstantExprGet(ctx, 0);
            for (i, &d) in dims.iter().enumerate() {
                e = mlirAffineMulExprGet(e, mlirAffineConstantExprGet(ctx, d as i64));
                e = mlirAffineAddExprGet(e, mlirAffineDimExprGet(ctx, i as isize));
            }
            e
        }
    }

    fn lower_range(
        &self,
        at: At<'c, 'a>,
        buf: Value<'c, 'a>,
        dims: &[u64],
        loc: Location<'c>,
    ) -> Result<(), String> {
        let elem = element_of(buf);
        let (inner, ivs) = self.nest(at, dims, loc);
        let index = Type::index(self.ctx);
        let lin = self.map_of(dims.len(), &[self.linear(dims)]);
        let i = self.value(inner, "affine.apply", &ivs, index, &[("map", lin)], loc);
        let value = match scalar_kind(elem) {
            Some(ScalarKind::Float) => {
                let i64t = self.int_type(64);
                let n = self.value(inner, "arith.index_cast", &[i], i64t, &[], loc);
                self.value(inner, "arith.sitofp", &[n], elem, &[], loc)
            }
            _ => self.value(inner, "arith.index_cast", &[i], elem, &[], loc),
        };
        let identity: Vec<AxisIndex> = (0..dims.len()).map(AxisIndex::Iter).collect();
        self.store(
            inner,
            value,
            buf,
            self.map(dims.len(), &identity),
            &ivs,
            loc,
        );
        Ok(())
    }

    fn lower_reshape(
        &self,
        at: At<'c, 'a>,
        op: OperationRef<'c, 'a>,
        buf: Value<'c, 'a>,
        dims: &[u64],
    ) -> Result<(), String> {
        let loc = op.location();
        let operand = op.operand(0).map_err(|_| "missing operand".to_owned())?;
        let src = self.buffer(operand)?;
        let (_, src_dims) = buffer_type(operand.r#type(), "operand")?;
        if src_dims.iter().product::<u64>() != dims.iter().product::<u64>() {
            return Err(format!(
                "operand has {} elements but the result has {}",
                src_dims.iter().product::<u64>(),
                dims.iter().product::<u64>()
            ));
        }
        let (inner, ivs) = self.nest(at, dims, loc);
        let lin = self.linear(dims);
        // SAFETY: valid context; exprs built from live exprs.
        let exprs: Vec<MlirAffineExpr> = unsafe {
            let ctx = self.ctx.to_raw();
            let mut stride = 1u64;
            let mut out = Vec::with_capacity(src_dims.len());
            for &d in src_dims.iter().rev() {
                let q =
                    mlirAffineFloorDivExprGet(lin, mlirAffineConstantExprGet(ctx, stride as i64));
                out.push(mlirAffineModExprGet(
                    q,
                    mlirAffineConstantExprGet(ctx, d.max(1) as i64),
                ));
                stride *= d.max(1);
            }
            out.reverse();
            out
        };
        let v = self.load(inner, src, self.map_of(dims.len(), &exprs), &ivs, loc);
        self.store(inner, v, buf, self.identity(dims.len()), &ivs, loc);
        Ok(())
    }
}

/// Whether `indices` write each cell of an axis box once and cover it: per
/// axis its own iterator (possibly shifted by a constant), or a fixed 0 on a
/// size-1 axis.
fn plain_box(indices: &[AxisIndex], dims: &[u64]) -> bool {
    let mut seen = vec![];
    indices.iter().zip(dims).all(|(a, &d)| match a {
        AxisIndex::Iter(i)
        | AxisIndex::Affine(AffineIndex {
            over: Some((i, 1)),
            kernel: None,
            ..
        }) if !seen.contains(i) => {
            seen.push(*i);
            true
        }
        AxisIndex::Fixed(0) => d == 1,
        _ => false,
    })
}

fn neutral(accum: Accum) -> f64 {
    match accum {
        Accum::Add => 0.0,
        Accum::Mul => 1.0,
        Accum::Max => f64::NEG_INFINITY,
        Accum::Min => f64::INFINITY,
    }
}

fn element_of<'c>(buf: Value<'c, '_>) -> Type<'c> {
    // SAFETY: buffers are memrefs.
    unsafe { Type::from_raw(mlirShapedTypeGetElementType(buf.r#type().to_raw())) }
}

fn combine(op: OperationRef<'_, '_>) -> Option<String> {
    string_attr(op, "combine")
}

/// The op's projections: from the attributes of `ocannl-infer-projections`
/// when present, else computed.
fn op_projections(op: OperationRef<'_, '_>) -> Result<Projections, String> {
    let (Ok(space), Ok(maps)) = (
        op.attribute("ocannl.product_space"),
        op.attribute("ocannl.indexing_maps"),
    ) else {
        return projections(op)?.ok_or_else(|| "has no projections".to_owned());
    };
    let bad = || "malformed ocannl.product_space / ocannl.indexing_maps attributes".to_owned();
    // SAFETY: each getter is guarded by its kind check.
    unsafe {
        let (space, maps) = (space.to_raw(), maps.to_raw());
        if !mlirAttributeIsADenseI64Array(space) || !mlirAttributeIsAArray(maps) {
            return Err(bad());
        }
        let n = mlir_sys::mlirDenseArrayGetNumElements(space);
        let product_space: Vec<u64> = (0..n)
            .map(|i| mlirDenseI64ArrayGetElement(space, i).max(0) as u64)
            .collect();
        let mut decoded = Vec::new();
        for i in 0..mlirArrayAttrGetNumElements(maps) {
            let m = mlirArrayAttrGetElement(maps, i);
            if !mlirAttributeIsAAffineMap(m) {
                return Err(bad());
            }
            let map = mlirAffineMapAttrGetValue(m);
            if mlirAffineMapGetNumDims(map) != product_space.len() as isize {
                return Err(bad());
            }
            let mut indices = Vec::new();
            for r in 0..mlirAffineMapGetNumResults(map) {
                let e = mlirAffineMapGetResult(map, r);
                indices.push(crate::infer_projections::decode_index(e).ok_or_else(|| {
                    "indexing maps other than iterators, constants and strided or convolution sums are not lowered".to_owned()
                })?);
            }
            decoded.push(indices);
        }
        let result = decoded.pop().ok_or_else(bad)?;
        if decoded.len() != op.operand_count() {
            return Err(bad());
        }
        let components = (0..product_space.len()).map(|i| vec![i]).collect();
        Ok(Projections {
            product_space,
            operands: decoded,
            result,
            components,
        })
    }
}
