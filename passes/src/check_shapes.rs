//! `ocannl-check-shapes`: every ocannl op's types, fully known, satisfy its
//! shape logic — judged by the independent checker
//! (`ocannl_shape::check`), which shares no code with the solver.
//!
//! Run it after `ocannl-infer-shapes` to confirm a solution (the lit suite
//! does, on every inference test), or on hand-written IR whose shapes are
//! all known. An op with a variable left in its types is an error: there is
//! nothing to check yet.

use melior::{
    Context,
    ir::operation::{OperationLike, OperationRef},
};
use ocannl_dialect::{catalog, ir};
use ocannl_shape::{check::check_op, spec::ShapeSpec};

use crate::{
    op_logic::OwnedLogic,
    pass::{PassDef, PassFailed, PassOptions, check_each_op},
    tensor_types::value_spec,
};

/// The registry entry of `ocannl-check-shapes`.
pub const PASS: PassDef = PassDef {
    argument: c"ocannl-check-shapes",
    description:
        c"Check fully known ocannl shapes against each op's shape logic (independent checker)",
    anchor: None,
    options: &[],
    run,
};

fn run(
    _ctx: &Context,
    root: OperationRef<'_, '_>,
    _options: &PassOptions,
) -> Result<(), PassFailed> {
    check_each_op(root, check)
}

fn check(op: OperationRef<'_, '_>) -> Result<(), String> {
    let name = ir::op_name(&op);
    let name = name.as_str();
    let Some(def) = catalog::lookup(name) else {
        return Ok(());
    };
    let owned = OwnedLogic::of(op, def).map_err(|e| format!("'{name}' op {e}"))?;
    let operands: Vec<ShapeSpec> = op
        .operands()
        .map(|v| value_spec(name, v))
        .collect::<Result<_, _>>()?;
    let result = op
        .result(0)
        .map_err(|_| format!("'{name}' op has no result"))?;
    let result = value_spec(name, result.into())?;
    let refs: Vec<&ShapeSpec> = operands.iter().collect();
    check_op(&owned.to_check_logic(), &refs, &result).map_err(|e| {
        format!(
            "'{name}' op types violate its {} shape logic: {e}",
            def.logic.ocannl_name()
        )
    })
}
