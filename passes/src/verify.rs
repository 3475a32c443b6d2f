//! `ocannl-verify`: every spec string parses, every ocannl op has the
//! operands and attributes its shape logic needs, and pointwise ops on
//! builtin tensors broadcast as MLIR's `Broadcastable` trait says.
//!
//! Algorithm (one walk over the anchor op, pre-order):
//! 1. For every op, the types it defines (results, block arguments, and the
//!    signature of a body-less function) that are `!ocannl.tensor` must have
//!    a builtin element type and a shape spec that parses
//!    (`ocannl_shape::spec::parse_shape_spec`).
//! 2. For every `ocannl.*` op, look it up in the catalog generated from ODS:
//!    unknown ops are errors; the operand count must be one the op accepts;
//!    it has one result; operands and result are tensors; every required
//!    attribute is present; every attribute the op defines has the right
//!    kind (shape spec, einsum spec with as many operand slots as operands,
//!    block spec likewise, enum value, 64-bit integer); an einsum `combine`
//!    fits the operand count.
//! 3. For every pointwise `ocannl.*` op (shape logic `PointwiseUn`,
//!    `PointwiseBin`, `PointwiseTern`) whose operands and results are all
//!    builtin tensors, MLIR's `Broadcastable` trait exactly as
//!    `OpTrait::impl::verifyCompatibleOperandBroadcast` in llvm-project
//!    `mlir/lib/Dialect/Traits.cpp` implements it ([`crate::broadcast`];
//!    prose: `shared/reference/mlir-broadcastable-trait.zh.md`). Ops with an
//!    `!ocannl.tensor` operand or result are left to the row-based check.
//!
//! 4. Every other ocannl op: its own constraints, solved alone without
//!    closing (the Broadcastable idea over rows with OCANNL's inequality),
//!    must be satisfiable.
//!
//! Every problem is an error at the op's location (spec errors name the
//! byte position inside the spec); the pass reports all of them and then
//! fails.

use melior::{
    Context,
    ir::{
        BlockLike, Location, RegionLike, Type, TypeLike, ValueLike,
        attribute::{Attribute, TypeAttribute},
        operation::{OperationLike, OperationRef},
        r#type::FunctionType,
    },
};
use ocannl_dialect::{
    catalog::{self, AttrDef, AttrKind, OpDef, ScalarFn, ShapeLogic},
    diagnostics::emit_error,
    ir,
    types::{TensorType, shape_spec},
};
use ocannl_shape::{
    problem::Problem as ShapeProblem,
    solver::{Closing, OpId},
    spec::{EinsumAxis, SpecError, parse_block_spec, parse_einsum_spec, parse_shape_spec},
};

use crate::{
    broadcast::{Dim, verify_compatible_operand_broadcast},
    compute::Compute,
    op_logic::OwnedLogic,
    pass::{PassDef, PassFailed, PassOptions},
};

/// The registry entry of `ocannl-verify`.
pub const PASS: PassDef = PassDef {
    argument: c"ocannl-verify",
    description: c"Check ocannl spec strings, op arity and attributes, and each op's broadcasting",
    anchor: None,
    options: &[],
    run,
};

/// One problem found by the pass, before it is emitted.
#[derive(Debug, Clone)]
pub struct Problem<'c> {
    /// The diagnostic text.
    pub message: String,
    /// Where to report it when not at the op (e.g. a block argument).
    pub location: Option<Location<'c>>,
}

impl Problem<'_> {
    fn at_op(message: String) -> Self {
        Self {
            message,
            location: None,
        }
    }
}

fn run(
    _ctx: &Context,
    root: OperationRef<'_, '_>,
    _options: &PassOptions,
) -> Result<(), PassFailed> {
    let mut failed = false;
    root.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        for problem in check_op(op) {
            emit_error(
                problem.location.unwrap_or_else(|| op.location()),
                &problem.message,
                &[],
            );
            failed = true;
        }
        melior::ir::operation::WalkResult::Advance
    });
    if failed { Err(PassFailed) } else { Ok(()) }
}

/// All problems of one op (not of the ops nested in it).
pub fn check_op<'c>(op: OperationRef<'c, '_>) -> Vec<Problem<'c>> {
    let mut problems = Vec::new();
    check_defined_types(op, &mut problems);
    let name = ir::op_name(&op);
    if let Some(mnemonic) = name.strip_prefix("ocannl.") {
        match catalog::lookup(&name) {
            Some(def) => check_ocannl_op(op, def, &mut problems),
            None => problems.push(Problem::at_op(format!("unknown op 'ocannl.{mnemonic}'"))),
        }
    }
    problems
}

/// Step 1: the `!ocannl.tensor` types this op defines are well-formed.
fn check_defined_types<'c>(op: OperationRef<'c, '_>, problems: &mut Vec<Problem<'c>>) {
    for (i, result) in op.results().enumerate() {
        check_type(result.r#type(), &format!("result #{i}"), None, problems);
    }
    let mut has_body = false;
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            has_body = true;
            for i in 0..b.argument_count() {
                if let Ok(arg) = b.argument(i) {
                    let location = arg.location();
                    check_type(
                        arg.r#type(),
                        &format!("block argument #{i}"),
                        Some(location),
                        problems,
                    );
                }
            }
            block = b.next_in_region();
        }
    }
    // A function declaration has no block arguments: check its signature.
    if !has_body
        && let Ok(attr) = op.attribute("function_type")
        && let Ok(attr) = TypeAttribute::try_from(attr)
        && let Ok(fty) = FunctionType::try_from(attr.value())
    {
        for i in 0..fty.input_count() {
            if let Ok(t) = fty.input(i) {
                check_type(t, &format!("function input #{i}"), None, problems);
            }
        }
        for i in 0..fty.result_count() {
            if let Ok(t) = fty.result(i) {
                check_type(t, &format!("function result #{i}"), None, problems);
            }
        }
    }
}

fn check_type<'c>(
    ty: Type<'_>,
    what: &str,
    location: Option<Location<'c>>,
    problems: &mut Vec<Problem<'c>>,
) {
    let Some(TensorType::Ocannl { elem, spec }) = TensorType::classify(ty) else {
        return;
    };
    if let Err(e) = parse_shape_spec(&spec) {
        problems.push(Problem {
            message: format!("{what}: {}", spec_error("shape spec", &spec, &e)),
            location,
        });
    }
    if !(elem.is_float() || elem.is_integer() || elem.is_index()) {
        problems.push(Problem {
            message: format!(
                "{what}: element type of !ocannl.tensor must be an integer, float or index type, got {elem}"
            ),
            location,
        });
    }
}

/// The uniform wording of a spec syntax error.
fn spec_error(kind: &str, spec: &str, e: &SpecError) -> String {
    format!(
        "invalid {kind} \"{spec}\": {} at position {}",
        e.message, e.span.start
    )
}

/// Step 2: an ocannl op against its catalog entry.
fn check_ocannl_op(op: OperationRef<'_, '_>, def: &OpDef, problems: &mut Vec<Problem<'_>>) {
    let n = op.operand_count();
    if !def.accepts_operand_count(n) {
        let plural = if def.min_operands == 1 && def.max_operands.is_none_or(|m| m == 1) {
            ""
        } else {
            "s"
        };
        problems.push(Problem::at_op(format!(
            "'{}' op expects {} operand{plural}, got {n}",
            def.name,
            def.arity_text()
        )));
    }
    if op.result_count() != 1 {
        problems.push(Problem::at_op(format!(
            "'{}' op expects 1 result, got {}",
            def.name,
            op.result_count()
        )));
    }
    for (i, operand) in op.operands().enumerate() {
        if TensorType::classify(operand.r#type()).is_none() {
            problems.push(Problem::at_op(format!(
                "'{}' op operand #{i} must be an ocannl or builtin tensor, got {}",
                def.name,
                operand.r#type()
            )));
        }
    }
    for (i, result) in op.results().enumerate() {
        if TensorType::classify(result.r#type()).is_none() {
            problems.push(Problem::at_op(format!(
                "'{}' op result #{i} must be an ocannl or builtin tensor, got {}",
                def.name,
                result.r#type()
            )));
        }
    }
    for attr_def in def.attributes {
        match op.attribute(attr_def.name) {
            Ok(attr) => check_attribute(def, attr_def, attr, n, problems),
            Err(_) if attr_def.required => problems.push(Problem::at_op(format!(
                "'{}' op requires attribute '{}'",
                def.name, attr_def.name
            ))),
            Err(_) => {}
        }
    }
    if let Some(combine) = def.attribute("combine")
        && let Some(s) = ir::string_attr(&op, combine.name)
    {
        check_combine_arity(def, &s, n, problems);
    }
    let before = problems.len();
    if !check_builtin_broadcast(op, def, problems) && problems.len() == before {
        check_shape_logic(op, def, problems);
    }
}

/// Step 4: any other ocannl op (one with an `!ocannl.tensor`, or a
/// non-pointwise logic): the op's own constraints, solved alone and without
/// closing, must be satisfiable. This is the Broadcastable idea over rows
/// with OCANNL's inequality: an operand axis of size 1 broadcasts, row
/// variables stand for unknown ranks, variables for unknown sizes
/// (reference: ocannl-shape-inference.md, "Inference strategy"). Variable
/// names are local to the op here; `ocannl-infer-shapes` relates ops.
fn check_shape_logic(op: OperationRef<'_, '_>, def: &OpDef, problems: &mut Vec<Problem<'_>>) {
    if def.logic == ShapeLogic::Block {
        return;
    }
    let owned = match OwnedLogic::of(op, def) {
        Ok(owned) => owned,
        Err(e) => {
            // Attribute problems are reported above; anything else (a
            // negative `batch_slice` index) here.
            if problems.is_empty() {
                problems.push(Problem::at_op(format!("'{}' op {e}", def.name)));
            }
            return;
        }
    };
    let mut problem = ShapeProblem::new();
    let shape = |problem: &mut ShapeProblem, ty: Type<'_>| {
        shape_spec(ty)
            .ok()
            .flatten()
            .map(|s| problem.shape_from_spec(&s, false))
    };
    let operands: Option<Vec<_>> = op
        .operands()
        .map(|v| shape(&mut problem, v.r#type()))
        .collect();
    let result = op
        .result(0)
        .ok()
        .and_then(|r| shape(&mut problem, r.r#type()));
    let (Some(operands), Some(result)) = (operands, result) else {
        return;
    };
    let logic = owned.as_logic(&mut problem);
    if problem.add_op(OpId(0), logic, &operands, result).is_err() {
        return;
    }
    if let Err(e) = problem.solve(Closing::None) {
        problems.push(Problem::at_op(format!(
            "'{}' op types violate its {} shape logic: {e}",
            def.name,
            def.logic.ocannl_name()
        )));
    }
}

/// Step 3: a pointwise op whose operands and results are all builtin
/// tensors follows MLIR's `Broadcastable` trait ([`crate::broadcast`]).
/// Returns whether the op was such an op.
fn check_builtin_broadcast(
    op: OperationRef<'_, '_>,
    def: &OpDef,
    problems: &mut Vec<Problem<'_>>,
) -> bool {
    if !matches!(
        def.logic,
        ShapeLogic::PointwiseUn | ShapeLogic::PointwiseBin | ShapeLogic::PointwiseTern
    ) {
        return false;
    }
    let operands: Option<Vec<_>> = op.operands().map(|v| builtin_shape(v.r#type())).collect();
    let results: Option<Vec<_>> = op.results().map(|v| builtin_shape(v.r#type())).collect();
    let (Some(operands), Some(results)) = (operands, results) else {
        return false;
    };
    if let Err(e) = verify_compatible_operand_broadcast(&operands, &results) {
        // `Operation::emitOpError`'s prefix.
        problems.push(Problem::at_op(format!("'{}' op {e}", def.name)));
    }
    true
}

/// The shape of a builtin tensor type: `Some(Some(dims))` when ranked,
/// `Some(None)` when unranked, `None` for any other type (an
/// `!ocannl.tensor`, a non-tensor).
fn builtin_shape(ty: Type<'_>) -> Option<Option<Vec<Dim>>> {
    match TensorType::classify(ty)? {
        TensorType::Ocannl { .. } => None,
        TensorType::Unranked { .. } => Some(None),
        TensorType::Ranked { .. } => {
            let dims = ir::shaped_dims(ty)?
                .into_iter()
                .map(|d| d.and_then(|d| u64::try_from(d).ok()))
                .collect();
            Some(Some(dims))
        }
    }
}

fn check_attribute(
    def: &OpDef,
    attr_def: &AttrDef,
    attr: Attribute<'_>,
    operands: usize,
    problems: &mut Vec<Problem<'_>>,
) {
    let mut push = |message: String| problems.push(Problem::at_op(message));
    let name = attr_def.name;
    if attr_def.kind == AttrKind::Any {
        return;
    }
    if attr_def.kind == AttrKind::I64 {
        if ir::integer_value(attr).is_none() {
            push(format!(
                "'{}' op attribute '{name}' must be a 64-bit integer, got {attr}",
                def.name
            ));
        }
        return;
    }
    let Some(text) = ir::string_value(attr) else {
        push(format!(
            "'{}' op attribute '{name}' must be a string, got {attr}",
            def.name
        ));
        return;
    };
    let text = text.as_str();
    match attr_def.kind {
        AttrKind::ShapeSpec => {
            if let Err(e) = parse_shape_spec(text) {
                push(format!(
                    "'{}' op attribute '{name}': {}",
                    def.name,
                    spec_error("shape spec", text, &e)
                ));
            }
        }
        AttrKind::EinsumSpec | AttrKind::BlockSpec => {
            let (kind, parsed) = if attr_def.kind == AttrKind::EinsumSpec {
                ("einsum spec", parse_einsum_spec(text))
            } else {
                ("block spec", parse_block_spec(text))
            };
            match parsed {
                Err(e) => push(format!(
                    "'{}' op attribute '{name}': {}",
                    def.name,
                    spec_error(kind, text, &e)
                )),
                Ok(spec) if spec.rhs.len() != operands => push(format!(
                    "'{}' op {kind} \"{text}\" has {} but the op has {}",
                    def.name,
                    count(spec.rhs.len(), "operand spec"),
                    count(operands, "operand"),
                )),
                Ok(spec)
                    if attr_def.kind == AttrKind::EinsumSpec
                        && spec
                            .rhs
                            .iter()
                            .chain(std::iter::once(&spec.lhs))
                            .flat_map(|slot| slot.rows().flat_map(|(_, row)| row.axes()))
                            .any(|a| matches!(a, EinsumAxis::Concat(_))) =>
                {
                    push(format!(
                        "'{}' op einsum spec \"{text}\": concatenated axes (`a^b`) are only allowed in block specs ('ocannl.concat')",
                        def.name
                    ))
                }
                Ok(_) => {}
            }
        }
        AttrKind::Enum(values) => {
            if !values.contains(&text) {
                push(format!(
                    "'{}' op attribute '{name}' must be one of {}, got \"{text}\"",
                    def.name,
                    values
                        .iter()
                        .map(|v| format!("\"{v}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        AttrKind::I64 | AttrKind::Any => {}
    }
}

/// `n thing` or `n things`.
fn count(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// `combine` joins the operands: binary operators need two operands, `fma`
/// and `where` three; a single operand has nothing to combine. A value that
/// names no combining function is reported by [`check_attribute`] (it is no
/// value of the attribute's enum).
fn check_combine_arity(
    def: &OpDef,
    combine: &str,
    operands: usize,
    problems: &mut Vec<Problem<'_>>,
) {
    let Some(needs) = ScalarFn::from_name(combine).and_then(combined_operands) else {
        return;
    };
    if operands != needs {
        problems.push(Problem::at_op(format!(
            "'{}' op combine \"{combine}\" takes {needs} operands, the op has {operands}",
            def.name
        )));
    }
}

/// The number of operands a combining function joins; `None` for a function
/// that joins none (unary ones): the arity of what it computes
/// (`compute.rs`, whose exhaustive match fails the build for a function ODS
/// gains until it is lowered).
fn combined_operands(f: ScalarFn) -> Option<usize> {
    // The arity the lowering computes it with (one table of the functions).
    Some(Compute::of(f).arity()).filter(|&n| n > 1)
}
