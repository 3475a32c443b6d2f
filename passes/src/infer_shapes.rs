//! `ocannl-infer-shapes`: OCANNL shape inference on every `func.func`,
//! across calls and control flow.
//!
//! OCANNL's shapes are monomorphic (reference: ocannl-shape-inference.md,
//! "Solving the constraints"; the engine is `ocannl_shape::problem`): a
//! function called from several places has one shape per argument, so a
//! function is solved together with every function it calls or is called
//! by. Algorithm:
//! 1. The functions under the pass's op are grouped into the components of
//!    their call graph (`func.call` and any `CallOpInterface` op). A cycle
//!    of calls (recursion) is an error at a call in it. Run on a single
//!    `func.func` (a nested pipeline), the pass cannot read other
//!    functions, and a call that passes tensors is an error.
//! 2. One [`Problem`](ocannl_shape::problem::Problem) per component. Variables named in types are scoped to
//!    their function; every tensor type of the component becomes a shape.
//!    Entry-block arguments and values made by non-ocannl ops are terminals
//!    (their shapes close to their least upper bounds).
//! 3. Every ocannl op adds the constraints of its catalog shape logic
//!    (einsum specs, `batch_slice` indices, constant element counts and
//!    `spec` attributes included). Values that control flow passes along
//!    are equal: a call's arguments and results and the callee's signature,
//!    a `func.return`'s operands and the signature's results, a branch's
//!    operands and its successor's block arguments (`BranchOpInterface`:
//!    `cf.br`, `cf.cond_br`), a region op's operands, region arguments,
//!    yields and results (`RegionBranchOpInterface`: `scf.if`, `scf.for`,
//!    `scf.while`). An op that moves tensors in or out of regions or
//!    successors through neither interface is an error at that op.
//! 4. The problem is solved; with `close=true` (default) the closing stages
//!    run and every shape becomes concrete, with `close=false` the remaining
//!    variables stay visible in the printed types.
//!    An op's `ocannl.declared_shape = "SPEC"` (what an importer read in
//!    the file, e.g. ONNX's `value_info`) is then checked against its
//!    closed result: a mismatch is an error at the op with notes at its
//!    operands' producers (a check, never a constraint: a stated type
//!    could widen a pointwise result through broadcasting).
//! 5. The solution is written back into every value's type (ocannl op
//!    results, block arguments, region op results) and every function's
//!    signature. Builtin tensors are refined in place (`?` to sizes, `*` to
//!    ranked).
//!
//! Every error is found before the IR is touched: a component that fails
//! is left as it was. A conflict is an error at the op whose constraint
//! failed, with notes at the ops whose constraints fixed the conflicting
//! sizes.

mod calls;
mod scope;

use melior::{
    Context,
    ir::operation::{OperationLike, OperationRef},
};
use ocannl_dialect::{diagnostics::emit_error, ir};
use ocannl_shape::solver::Closing;

use crate::pass::{OptionKind, PassDef, PassFailed, PassOptionDef, PassOptions};

/// The registry entry of `ocannl-infer-shapes`.
pub const PASS: PassDef = PassDef {
    argument: c"ocannl-infer-shapes",
    description: c"Infer OCANNL shapes in every func.func (with the functions it calls) and write them into the types",
    anchor: None,
    options: &[PassOptionDef {
        name: c"close",
        description: c"Apply OCANNL's closing stages (false: leave unsolved variables visible)",
        kind: OptionKind::Bool,
        default: c"true",
    }],
    run,
};

fn run<'c>(
    _ctx: &'c Context,
    root: OperationRef<'c, '_>,
    options: &PassOptions,
) -> Result<(), PassFailed> {
    let closing = if options.get_bool("close") {
        Closing::Full
    } else {
        Closing::None
    };
    let on_function = ir::op_name(&root) == "func.func";
    let functions = if on_function {
        vec![root]
    } else {
        ir::collect_ops(root, |op| {
            let is_func = ir::op_name(&op) == "func.func";
            ir::Select {
                keep: is_func,
                descend: !is_func,
            }
        })
    };
    let graph = match calls::CallGraph::new(&functions, !on_function) {
        Ok(graph) => graph,
        Err(errors) => {
            for e in errors {
                emit_error(e.location, &e.message, &[]);
            }
            return Err(PassFailed);
        }
    };
    let mut failed = false;
    for component in graph.components() {
        if scope::infer(&component, &functions, &graph, closing).is_err() {
            failed = true;
        }
    }
    if failed { Err(PassFailed) } else { Ok(()) }
}

/// An error found before solving, at an op.
pub(crate) struct Located<'c> {
    location: melior::ir::Location<'c>,
    message: String,
}

impl<'c> Located<'c> {
    fn at(op: OperationRef<'c, '_>, message: impl Into<String>) -> Self {
        Self {
            location: op.location(),
            message: message.into(),
        }
    }
}
