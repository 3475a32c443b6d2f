//! `ocannl-infer-shapes`: OCANNL shape inference on every `func.func`.
//!
//! Algorithm, per function (reference: ocannl-shape-inference.md, "Solving
//! the constraints"; the engine is `ocannl_shape::problem`):
//! 1. Variables named in types are scoped to the function: every type of
//!    the function is turned into a shape of one [`Problem`]. Entry-block
//!    arguments and values made by non-ocannl ops are terminals (their
//!    shapes close to their least upper bounds).
//! 2. Every ocannl op adds the constraints of its catalog shape logic
//!    (einsum specs, `batch_slice` indices, constant element counts and
//!    `spec` attributes included).
//! 3. The problem is solved; with `close=true` (default) the closing stages
//!    run and every shape becomes concrete, with `close=false` the remaining
//!    variables stay visible in the printed types.
//! 4. The solution is written back into the result types of ocannl ops, the
//!    entry block's argument types and the function signature. Builtin
//!    tensors are refined in place (`?` to sizes, `*` to ranked).
//!
//! A conflict is an error at the op whose constraint failed, with notes at
//! the ops whose constraints fixed the conflicting sizes.

use std::collections::HashMap;

use melior::ir::{
    BlockLike, Location, RegionLike, Type, TypeLike, Value, ValueLike,
    attribute::{AttributeLike, StringAttribute},
    operation::{OperationLike, OperationRef, WalkOrder, WalkResult},
};
use mlir_sys::{
    MlirType, MlirValue, mlirAttributeIsAElements, mlirElementsAttrGetNumElements,
    mlirFunctionTypeGet, mlirIntegerAttrGetValueInt, mlirOperationSetAttributeByName,
    mlirRankedTensorTypeGet, mlirShapedTypeGetDynamicSize, mlirTypeAttrGet, mlirValueSetType,
};
use ocannl_dialect::{
    catalog::{self, ShapeLogic},
    diagnostics::emit_error,
    types::{TensorType, ocannl_tensor_type, shape_spec},
};
use ocannl_shape::{
    problem::{OpLogic, Problem, ShapeId},
    solver::{Closing, OpId, ShapeError},
    spec::{
        EinsumSpec, ShapeAxis, ShapeSpec, parse_block_spec, parse_einsum_spec, parse_shape_spec,
    },
};

use crate::registry::{OptionKind, PassDef, PassFailed, PassOptionDef, PassOptions};

/// The registry entry of `ocannl-infer-shapes`.
pub const PASS: PassDef = PassDef {
    argument: c"ocannl-infer-shapes",
    description: c"Infer OCANNL shapes in every func.func and write them into the types",
    anchor: None,
    options: &[PassOptionDef {
        name: c"close",
        description: c"Apply OCANNL's closing stages (false: leave unsolved variables visible)",
        kind: OptionKind::Bool,
        default: c"true",
    }],
    run,
};

fn run(root: OperationRef<'_, '_>, options: &PassOptions) -> Result<(), PassFailed> {
    let closing = if options.get_bool("close") {
        Closing::Full
    } else {
        Closing::None
    };
    let mut funcs = vec![];
    root.walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("func.func") {
            funcs.push(op.to_raw());
            WalkResult::Skip
        } else {
            WalkResult::Advance
        }
    });
    let mut failed = false;
    for raw in funcs {
        // SAFETY: the function ops live for the whole pass run.
        let func = unsafe { OperationRef::from_raw(raw) };
        if infer_function(func, closing).is_err() {
            failed = true;
        }
    }
    if failed { Err(PassFailed) } else { Ok(()) }
}

/// A value whose type takes part, and whether the pass may rewrite it.
struct Tracked {
    value: MlirValue,
    shape: ShapeId,
    writable: bool,
}

/// What one function contributes: the problem, the values, and the ops in
/// `OpId` order (for diagnostics).
struct FunctionShapes<'c> {
    problem: Problem,
    values: Vec<Tracked>,
    by_value: HashMap<usize, usize>,
    op_locations: Vec<Location<'c>>,
}

impl<'c> FunctionShapes<'c> {
    /// The shape of `value`, registering it (as a terminal) when unseen.
    fn shape_of(
        &mut self,
        value: Value<'c, '_>,
        writable: bool,
        terminal: bool,
    ) -> Result<Option<ShapeId>, String> {
        let key = value.to_raw().ptr as usize;
        if let Some(&i) = self.by_value.get(&key) {
            return Ok(Some(self.values[i].shape));
        }
        let spec = match shape_spec(value.r#type()) {
            Ok(Some(spec)) => spec,
            Ok(None) => return Ok(None),
            Err(e) => {
                return Err(format!(
                    "invalid shape spec in type {}: {e}",
                    value.r#type()
                ));
            }
        };
        let shape = self.problem.shape_from_spec(&spec, terminal);
        self.by_value.insert(key, self.values.len());
        self.values.push(Tracked {
            value: value.to_raw(),
            shape,
            writable,
        });
        Ok(Some(shape))
    }
}

fn infer_function(func: OperationRef<'_, '_>, closing: Closing) -> Result<(), PassFailed> {
    let mut fs = FunctionShapes {
        problem: Problem::new(),
        values: vec![],
        by_value: HashMap::new(),
        op_locations: vec![],
    };
    let Some(body) = func.region(0).ok().and_then(|r| r.first_block()) else {
        return Ok(()); // a declaration: nothing to infer
    };
    for i in 0..body.argument_count() {
        let arg = body.argument(i).expect("index below argument_count");
        if let Err(e) = fs.shape_of(arg.into(), true, true) {
            emit_error(func.location(), &e, &[]);
            return Err(PassFailed);
        }
    }
    // Collect the ops first (the walk borrows the function).
    let mut ops = vec![];
    func.walk(WalkOrder::PreOrder, |op| {
        if op.to_raw().ptr != func.to_raw().ptr {
            ops.push(op.to_raw());
        }
        WalkResult::Advance
    });
    let mut failed = false;
    // First pass: register every op result (operands may be defined later
    // in graph regions).
    for raw in &ops {
        // SAFETY: ops of the function are alive during the pass.
        let op = unsafe { OperationRef::from_raw(*raw) };
        let name = op.name();
        let def = catalog::lookup(name.as_string_ref().as_str().unwrap_or_default());
        let is_terminal_result = def.is_none_or(|d| d.logic == ShapeLogic::Terminal);
        for result in op.results() {
            if let Err(e) = fs.shape_of(result.into(), def.is_some(), is_terminal_result) {
                emit_error(op.location(), &e, &[]);
                failed = true;
            }
        }
    }
    if failed {
        return Err(PassFailed);
    }
    // Second pass: constraints.
    for (index, raw) in ops.iter().enumerate() {
        // SAFETY: as above.
        let op = unsafe { OperationRef::from_raw(*raw) };
        fs.op_locations.push(op.location());
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or_default().to_owned();
        let Some(def) = catalog::lookup(&name) else {
            continue;
        };
        let mut operands = vec![];
        for operand in op.operands() {
            match fs.shape_of(operand, false, true) {
                Ok(Some(s)) => operands.push(s),
                Ok(None) => {
                    emit_error(
                        op.location(),
                        &format!(
                            "'{name}' op operand must be a tensor, got {}",
                            operand.r#type()
                        ),
                        &[],
                    );
                    failed = true;
                }
                Err(e) => {
                    emit_error(op.location(), &e, &[]);
                    failed = true;
                }
            }
        }
        let Some(result) = op
            .result(0)
            .ok()
            .and_then(|r| fs.by_value.get(&(r.to_raw().ptr as usize)).copied())
        else {
            continue;
        };
        let result = fs.values[result].shape;
        let owned = match OwnedLogic::of(op, def) {
            Ok(owned) => owned,
            Err(e) => {
                emit_error(op.location(), &format!("'{name}' op {e}"), &[]);
                failed = true;
                continue;
            }
        };
        let logic = owned.as_logic(&mut fs.problem);
        if let Err(e) = fs
            .problem
            .add_op(OpId(index as u32), logic, &operands, result)
        {
            emit_error(op.location(), &format!("'{name}' op: {e}"), &[]);
            failed = true;
        }
    }
    if failed {
        return Err(PassFailed);
    }
    if let Err(e) = fs.problem.solve(closing) {
        report(&fs, func.location(), &e);
        return Err(PassFailed);
    }
    write_back(func, &fs);
    Ok(())
}

/// The shape logic of an ocannl op with the attribute values it needs,
/// owned (an einsum spec is borrowed by [`OpLogic`]).
pub(crate) struct OwnedLogic {
    logic: ShapeLogic,
    reshape: bool,
    einsum: Option<EinsumSpec>,
    index: u64,
    spec: Option<ShapeSpec>,
    elems: Option<u64>,
    /// The shape of a dense `value` of rank 2 or more (OCANNL's `Exact`).
    exact: Option<Vec<u64>>,
}

impl OwnedLogic {
    /// Reads the logic of `op` (catalog entry `def`) and its attributes.
    pub(crate) fn of(op: OperationRef<'_, '_>, def: &catalog::OpDef) -> Result<Self, String> {
        let mut owned = OwnedLogic {
            logic: def.logic,
            reshape: def.name == "ocannl.reshape",
            einsum: None,
            index: 0,
            spec: None,
            elems: None,
            exact: None,
        };
        match def.logic {
            ShapeLogic::Einsum => match string_attr(op, "spec").map(|s| parse_einsum_spec(&s)) {
                Some(Ok(spec)) => owned.einsum = Some(spec),
                Some(Err(e)) => return Err(format!("invalid einsum spec: {e}")),
                None => return Err("requires attribute 'spec'".into()),
            },
            ShapeLogic::BatchSlice => {
                // SAFETY: `a` is a valid attribute; non-integers give 0.
                let index = op
                    .attribute("index")
                    .ok()
                    .map(|a| unsafe { mlirIntegerAttrGetValueInt(a.to_raw()) });
                owned.index = index.unwrap_or(0).max(0) as u64;
            }
            ShapeLogic::Terminal if !owned.reshape => {
                owned.spec = match string_attr(op, "spec").map(|s| parse_shape_spec(&s)) {
                    Some(Ok(spec)) => Some(spec),
                    Some(Err(e)) => return Err(format!("invalid shape spec: {e}")),
                    None => None,
                };
                owned.elems = op.attribute("value").ok().and_then(|a| {
                    // SAFETY: `a` is a valid attribute.
                    unsafe { mlirAttributeIsAElements(a.to_raw()) }.then(|| {
                        unsafe { mlirElementsAttrGetNumElements(a.to_raw()) }.max(0) as u64
                    })
                });
                // Data of rank 2 or more has a shape of its own: the result's
                // axes in memory order (a flat one fixes only the count).
                owned.exact = op.attribute("value").ok().and_then(|a| {
                    // SAFETY: each getter is guarded by its kind check.
                    unsafe {
                        if !mlirAttributeIsAElements(a.to_raw()) {
                            return None;
                        }
                        let ty = mlir_sys::mlirAttributeGetType(a.to_raw());
                        if !mlir_sys::mlirTypeIsAShaped(ty) || !mlir_sys::mlirShapedTypeHasRank(ty)
                        {
                            return None;
                        }
                        let rank = mlir_sys::mlirShapedTypeGetRank(ty);
                        (rank >= 2).then(|| {
                            (0..rank)
                                .map(|i| {
                                    mlir_sys::mlirShapedTypeGetDimSize(ty, i as isize).max(0) as u64
                                })
                                .collect()
                        })
                    }
                });
            }
            ShapeLogic::Block => match string_attr(op, "spec").map(|s| parse_block_spec(&s)) {
                Some(Ok(spec)) => owned.einsum = Some(spec),
                Some(Err(e)) => return Err(format!("invalid block spec: {e}")),
                None => return Err("requires attribute 'spec'".into()),
            },
            _ => {}
        }
        Ok(owned)
    }

    /// The logic for projection inference (terminal attribute shapes play no
    /// part there).
    pub(crate) fn as_projection_logic(&self) -> OpLogic<'_> {
        match self.logic {
            ShapeLogic::PointwiseUn => OpLogic::PointwiseUn,
            ShapeLogic::PointwiseBin => OpLogic::PointwiseBin,
            ShapeLogic::PointwiseTern => OpLogic::PointwiseTern,
            ShapeLogic::Compose => OpLogic::Compose,
            ShapeLogic::ComposeAccumulate => OpLogic::ComposeAccumulate,
            ShapeLogic::Transpose => OpLogic::Transpose,
            ShapeLogic::Einsum => {
                OpLogic::Einsum(self.einsum.as_ref().expect("set by `of` for einsum"))
            }
            ShapeLogic::BatchSlice => OpLogic::BatchSlice { index: self.index },
            ShapeLogic::Terminal if self.reshape => OpLogic::Reshape,
            ShapeLogic::Block => {
                OpLogic::Block(self.einsum.as_ref().expect("set by `of` for block"))
            }
            ShapeLogic::Terminal => OpLogic::Terminal {
                spec: None,
                elems: self.elems,
                exact: self.exact.as_deref(),
            },
        }
    }

    /// The independent checker's view of the logic.
    pub(crate) fn to_check_logic(&self) -> ocannl_shape::check::CheckLogic {
        use ocannl_shape::check::CheckLogic;
        match self.logic {
            ShapeLogic::PointwiseUn => CheckLogic::PointwiseUn,
            ShapeLogic::PointwiseBin => CheckLogic::PointwiseBin,
            ShapeLogic::PointwiseTern => CheckLogic::PointwiseTern,
            ShapeLogic::Compose => CheckLogic::Compose,
            ShapeLogic::ComposeAccumulate => CheckLogic::ComposeAccumulate,
            ShapeLogic::Transpose => CheckLogic::Transpose,
            ShapeLogic::Einsum => {
                CheckLogic::Einsum(self.einsum.clone().expect("set by `of` for einsum"))
            }
            ShapeLogic::BatchSlice => CheckLogic::BatchSlice { index: self.index },
            ShapeLogic::Terminal if self.reshape => CheckLogic::Reshape,
            ShapeLogic::Block => {
                CheckLogic::Block(self.einsum.clone().expect("set by `of` for block"))
            }
            ShapeLogic::Terminal => CheckLogic::Terminal {
                spec: self.spec.clone(),
                elems: self.elems,
                exact: self.exact.clone(),
            },
        }
    }

    /// The engine's view: the projection logic plus the `spec` attribute's
    /// shape (registered in `problem`) for terminals.
    pub(crate) fn as_logic<'a>(&'a self, problem: &mut Problem) -> OpLogic<'a> {
        match self.as_projection_logic() {
            OpLogic::Terminal { elems, exact, .. } => OpLogic::Terminal {
                spec: self.spec.as_ref().map(|s| problem.shape_from_spec(s, true)),
                elems,
                exact,
            },
            logic => logic,
        }
    }
}

/// The shape spec of a value's tensor type, for messages about op `name`.
pub(crate) fn value_spec(
    name: &str,
    value: melior::ir::Value<'_, '_>,
) -> Result<ShapeSpec, String> {
    match shape_spec(value.r#type()) {
        Ok(Some(spec)) => Ok(spec),
        Ok(None) => Err(format!("'{name}' op: {} is not a tensor", value.r#type())),
        Err(e) => Err(format!("'{name}' op: invalid shape spec: {e}")),
    }
}

pub(crate) fn string_attr(op: OperationRef<'_, '_>, name: &str) -> Option<String> {
    op.attribute(name)
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok())
        .map(|s| s.value().to_owned())
}

/// An error at the failing constraint's op, notes at the related ops.
fn report(fs: &FunctionShapes<'_>, func_location: Location<'_>, e: &ShapeError) {
    let location = |op: OpId| {
        fs.op_locations
            .get(op.0 as usize)
            .copied()
            .unwrap_or(func_location)
    };
    // One note per op: the first (most direct) constraint of each.
    let mut seen = vec![e.origin.op];
    let notes: Vec<(Location<'_>, String)> = e
        .related
        .iter()
        .filter(|o| {
            let fresh = !seen.contains(&o.op);
            seen.push(o.op);
            fresh
        })
        .map(|o| {
            let what = if o.op.0 == u32::MAX {
                "a variable was closed here (OCANNL's closing stages)".to_owned()
            } else {
                format!("constrained here: {}", o.describe())
            };
            (location(o.op), what)
        })
        .collect();
    emit_error(
        location(e.origin.op),
        &format!("shape inference failed: {e}"),
        &notes,
    );
}

/// Writes the solved shapes into types and the function signature.
fn write_back(func: OperationRef<'_, '_>, fs: &FunctionShapes<'_>) {
    for tracked in fs.values.iter().filter(|t| t.writable) {
        // SAFETY: tracked values belong to the function, alive for the pass.
        let value = unsafe { Value::from_raw(tracked.value) };
        let spec = fs.problem.to_spec(tracked.shape);
        if let Some(new) = solved_type(value.r#type(), &spec) {
            // SAFETY: both handles are valid; the new type is a tensor type.
            unsafe { mlirValueSetType(tracked.value, new.to_raw()) };
        }
    }
    update_signature(func);
}

/// Sets `value`'s tensor type to `spec` (an `!ocannl.tensor` with that
/// spec, or a builtin tensor refined to it). Call [`update_signature`] after
/// changing a function's arguments or returned values.
pub fn set_value_spec(value: Value<'_, '_>, spec: &ShapeSpec) {
    if let Some(new) = solved_type(value.r#type(), spec) {
        // SAFETY: both handles are valid; the new type is a tensor type.
        unsafe { mlirValueSetType(value.to_raw(), new.to_raw()) };
    }
}

/// Rewrites the spec of every tensor value of `func` (entry block
/// arguments and op results, nested ones too) with `f`, then the signature.
pub fn map_function_specs(func: OperationRef<'_, '_>, f: &dyn Fn(&ShapeSpec) -> ShapeSpec) {
    let apply = |v: Value<'_, '_>| {
        if let Ok(Some(spec)) = shape_spec(v.r#type()) {
            set_value_spec(v, &f(&spec));
        }
    };
    if let Some(body) = func.region(0).ok().and_then(|r| r.first_block()) {
        for i in 0..body.argument_count() {
            if let Ok(a) = body.argument(i) {
                apply(a.into());
            }
        }
    }
    func.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        for r in op.results() {
            apply(r.into());
        }
        melior::ir::operation::WalkResult::Advance
    });
    update_signature(func);
}

/// Makes `func`'s `function_type` follow its entry block's argument types
/// and its return op's operand types.
pub fn update_signature(func: OperationRef<'_, '_>) {
    // The signature follows the entry block and the return op.
    let Some(body) = func.region(0).ok().and_then(|r| r.first_block()) else {
        return;
    };
    let inputs: Vec<MlirType> = (0..body.argument_count())
        .filter_map(|i| body.argument(i).ok())
        .map(|a| a.r#type().to_raw())
        .collect();
    let results: Vec<MlirType> = body
        .terminator()
        .filter(|t| t.name().as_string_ref().as_str() == Ok("func.return"))
        .map(|t| t.operands().map(|v| v.r#type().to_raw()).collect())
        .unwrap_or_else(|| {
            func.attribute("function_type")
                .ok()
                .and_then(|a| melior::ir::attribute::TypeAttribute::try_from(a).ok())
                .and_then(|a| melior::ir::r#type::FunctionType::try_from(a.value()).ok())
                .map(|f| {
                    (0..f.result_count())
                        .filter_map(|i| f.result(i).ok())
                        .map(|t| t.to_raw())
                        .collect()
                })
                .unwrap_or_default()
        });
    // SAFETY: valid context and type arrays for the duration of the calls.
    unsafe {
        let ctx = mlir_sys::mlirOperationGetContext(func.to_raw());
        let fty = mlirFunctionTypeGet(
            ctx,
            inputs.len() as isize,
            inputs.as_ptr(),
            results.len() as isize,
            results.as_ptr(),
        );
        let name = melior::StringRef::new("function_type");
        mlirOperationSetAttributeByName(func.to_raw(), name.to_raw(), mlirTypeAttrGet(fty));
    }
}

/// The type `old` becomes with the solved `spec`: an `!ocannl.tensor` with
/// the canonical spec, or a builtin tensor refined in place.
fn solved_type<'c>(old: Type<'c>, spec: &ShapeSpec) -> Option<Type<'c>> {
    match TensorType::classify(old)? {
        TensorType::Ocannl { elem, spec: text } => {
            let printed = spec.to_string();
            if printed == text {
                None
            } else {
                ocannl_tensor_type(elem, &printed)
            }
        }
        TensorType::Ranked { elem } | TensorType::Unranked { elem } => {
            // Builtin tensors have only an output row.
            if !spec.batch.is_empty_closed()
                || !spec.input.is_empty_closed()
                || spec.output.var.is_some()
            {
                return None;
            }
            // SAFETY: plain query.
            let dynamic = unsafe { mlirShapedTypeGetDynamicSize() };
            let dims: Vec<i64> = spec
                .output
                .end
                .iter()
                .map(|a| match a {
                    ShapeAxis::Size(d) | ShapeAxis::Labeled { size: d, .. } => {
                        i64::try_from(*d).unwrap_or(dynamic)
                    }
                    _ => dynamic,
                })
                .collect();
            // SAFETY: `dims` outlives the call; a null encoding is allowed.
            let raw = unsafe {
                mlirRankedTensorTypeGet(
                    dims.len() as isize,
                    dims.as_ptr(),
                    elem.to_raw(),
                    mlir_sys::MlirAttribute {
                        ptr: std::ptr::null(),
                    },
                )
            };
            // SAFETY: a valid ranked tensor type.
            Some(unsafe { Type::from_raw(raw) })
        }
    }
}
