//! Tensor types ↔ shape specs for the passes: the spec of a value's type,
//! rewriting a value's type to a solved spec, and keeping a function's
//! signature in step with its body.

use melior::ir::{
    BlockLike, RegionLike, Type, Value, ValueLike,
    attribute::TypeAttribute,
    operation::{OperationLike, OperationRef, WalkOrder, WalkResult},
    r#type::FunctionType,
};
use ocannl_dialect::{
    ir,
    types::{TensorType, ocannl_tensor_type, shape_spec},
};
use ocannl_shape::spec::{ShapeAxis, ShapeSpec};

/// The shape spec of a value's tensor type, for messages about op `name`.
pub(crate) fn value_spec(name: &str, value: Value<'_, '_>) -> Result<ShapeSpec, String> {
    match shape_spec(value.r#type()) {
        Ok(Some(spec)) => Ok(spec),
        Ok(None) => Err(format!("'{name}' op: {} is not a tensor", value.r#type())),
        Err(e) => Err(format!("'{name}' op: invalid shape spec: {e}")),
    }
}

/// Sets `value`'s tensor type to `spec` (an `!ocannl.tensor` with that
/// spec, or a builtin tensor refined to it). Call [`update_signature`] after
/// changing a function's arguments or returned values.
pub fn set_value_spec(value: Value<'_, '_>, spec: &ShapeSpec) {
    if let Some(new) = solved_type(value.r#type(), spec) {
        value.set_type(new);
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
    func.walk(WalkOrder::PreOrder, |op| {
        for r in op.results() {
            apply(r.into());
        }
        WalkResult::Advance
    });
    update_signature(func);
}

/// The `function_type` of a function op.
pub(crate) fn function_type<'c>(func: OperationRef<'c, '_>) -> Option<FunctionType<'c>> {
    let attr = func.attribute("function_type").ok()?;
    FunctionType::try_from(TypeAttribute::try_from(attr).ok()?.value()).ok()
}

/// Makes `func`'s `function_type` follow its entry block's argument types
/// and its return op's operand types.
pub fn update_signature(func: OperationRef<'_, '_>) {
    let Some(body) = func.region(0).ok().and_then(|r| r.first_block()) else {
        return;
    };
    let inputs: Vec<Type<'_>> = (0..body.argument_count())
        .filter_map(|i| body.argument(i).ok())
        .map(|a| a.r#type())
        .collect();
    let old = function_type(func);
    let results: Vec<Type<'_>> = body
        .terminator()
        .filter(|t| ir::op_name(t) == "func.return")
        .map(|t| t.operands().map(|v| v.r#type()).collect())
        .unwrap_or_else(|| {
            old.map(|f| {
                (0..f.result_count())
                    .filter_map(|i| f.result(i).ok())
                    .collect()
            })
            .unwrap_or_default()
        });
    set_signature(func, &inputs, &results);
}

/// Sets `func`'s `function_type`.
pub(crate) fn set_signature<'c>(
    func: OperationRef<'c, '_>,
    inputs: &[Type<'c>],
    results: &[Type<'c>],
) {
    let fty = ir::function_type(func, inputs, results);
    ir::set_attribute(func, "function_type", TypeAttribute::new(fty).into());
}

/// The type `old` becomes with the solved `spec`: an `!ocannl.tensor` with
/// the canonical spec, or a builtin tensor refined in place.
pub(crate) fn solved_type<'c>(old: Type<'c>, spec: &ShapeSpec) -> Option<Type<'c>> {
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
            let dims: Vec<i64> = spec
                .output
                .end
                .iter()
                .map(|a| match a {
                    ShapeAxis::Size(d) | ShapeAxis::Labeled { size: d, .. } => {
                        i64::try_from(*d).unwrap_or(-1)
                    }
                    _ => -1,
                })
                .collect();
            ir::ranked_tensor_type(&dims, elem)
        }
    }
}

/// A `func.func` with ocannl tensors in its signature or ocannl ops inside.
pub(crate) fn is_ocannl_function(op: OperationRef<'_, '_>) -> bool {
    let in_signature = function_type(op).is_some_and(|f| {
        (0..f.input_count())
            .filter_map(|i| f.input(i).ok())
            .chain((0..f.result_count()).filter_map(|i| f.result(i).ok()))
            .any(|t| matches!(TensorType::classify(t), Some(TensorType::Ocannl { .. })))
    });
    in_signature
        || !ir::collect_ops(op, |inner| ir::Select {
            keep: ir::op_name(&inner).starts_with("ocannl."),
            descend: true,
        })
        .is_empty()
}
