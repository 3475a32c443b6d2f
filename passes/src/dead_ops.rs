//! `ocannl-erase-dead-ops`: the ocannl ops whose results nothing reads,
//! erased.
//!
//! Every ocannl op is pure (`Ocannl_Op` in `dialect/td/OcannlOps.td`
//! carries `Pure`), but the dialect is registered through IRDL, which
//! keeps no traits: upstream `canonicalize` and `cse` cannot see that an
//! unread ocannl op may go. Importers produce such ops (ONNX Dropout's
//! mask, outputs no node reads); each costs a loop nest per call and, as a
//! second reader of its operand, keeps that operand's producer from
//! fusing its one real reader as an epilogue (the planner's fusion chains
//! need a single reader).
//!
//! A pass of its own, not a step of the planner or the lowering: those
//! lower what is written (lit tests inspect the nests of unread ops), and
//! a user's pipeline says whether unread work goes. `ocannl-run`'s
//! pipelines run it after `ocannl-infer-projections`; after shape
//! inference, so a dead op's unsatisfiable shape is still an error.

use melior::{
    Context,
    ir::{
        BlockLike, BlockRef, RegionLike,
        operation::{OperationLike, OperationRef},
    },
};
use ocannl_dialect::{catalog, ir};

use crate::{
    pass::{PassDef, PassFailed, PassOptions},
    tensor_types::is_ocannl_function,
};

/// The registry entry of `ocannl-erase-dead-ops`.
pub const PASS: PassDef = PassDef {
    argument: c"ocannl-erase-dead-ops",
    description: c"Erase the ocannl ops whose results nothing reads (all ocannl ops are pure), last first, so that ops read only by erased ones go too; run it before ocannl-plan-schedule, whose fusion needs single readers",
    anchor: Some(c"builtin.module"),
    options: &[],
    run,
};

fn run<'c>(
    _ctx: &'c Context,
    root: OperationRef<'c, '_>,
    _options: &PassOptions,
) -> Result<(), PassFailed> {
    let funcs = ir::collect_ops(root, |op| ir::Select {
        keep: ir::op_name(&op) == "func.func",
        descend: ir::op_name(&op) != "func.func",
    });
    for func in funcs {
        if is_ocannl_function(func)
            && let Some(block) = func.region(0).ok().and_then(|r| r.first_block())
        {
            erase_dead_ops(block);
        }
    }
    Ok(())
}

/// Erases the ocannl ops of `block` whose results have no readers, last
/// first, so that an op read only by erased ones goes too (in one block,
/// an op's operands are defined before it).
fn erase_dead_ops(block: BlockRef<'_, '_>) {
    let mut ops = Vec::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        ops.push(op);
    }
    for op in ops.into_iter().rev() {
        let pure = catalog::lookup(&ir::op_name(&op)).is_some() && op.region_count() == 0;
        let unread = op.result_count() > 0 && op.results().all(|r| !ir::has_uses(r.into()));
        if pure && unread {
            ir::erase_op(op);
        }
    }
}
