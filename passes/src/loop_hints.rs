//! `ocannl-loop-hints`: every `scf.for` of the module (after
//! `lower-affine`) that holds a register block (at least 32 ops,
//! nested ones included) gets `llvm.loop_annotation =
//! #llvm.loop_annotation<unroll = <disable = true>>`, which `convert-scf-to-cf` moves onto the loop's
//! latch branch. The conversion to the LLVM dialect keeps it there as a
//! discardable attribute, which the translation to LLVM IR ignores: run
//! again at the end, the pass moves it into the `llvm.br`'s (or
//! `llvm.cond_br`'s) own `loop_annotation`, which becomes the
//! `llvm.loop.unroll.disable` metadata.
//!
//! Why: the lowering unrolls and vectorises its register blocks itself
//! (`lower_to_affine::cpu`); LLVM's unrollers (partial and full) unrolling
//! those loops again made ResNet-50's code about twice as large to optimise
//! and generate: O3 2.6–3.0 s and code generation 0.9–1.2 s with them, 1.2–1.4
//! and 0.56 s without, for a run within noise (`docs/performance.md`,
//! "Compile time of ResNet-50"; `docs/decisions/0051-no-llvm-unroll.md`).
//! The loop vectoriser is not affected (scalar nests still vectorise and
//! interleave). A loop that already carries an annotation keeps it, so a
//! hand-written pipeline can still ask for unrolling.
//!
//! `lower-affine` drops an `affine.for`'s discardable attributes, so the
//! hint cannot be written by the lowering itself: the pass runs between
//! `lower-affine` and `convert-scf-to-cf`, and last ([`crate::pipelines`]).

use melior::{
    Context,
    ir::{
        Attribute,
        operation::{OperationLike, OperationRef, WalkOrder, WalkResult},
    },
};
use ocannl_dialect::{diagnostics::emit_error, ir};

use crate::pass::{PassDef, PassFailed, PassOptions};

/// The registry entry of `ocannl-loop-hints`.
pub const PASS: PassDef = PassDef {
    argument: c"ocannl-loop-hints",
    description: c"Mark every scf.for of at least 32 ops (nested ones included) without a loop annotation with llvm.loop_annotation<unroll = <disable = true>> (run after lower-affine, before convert-scf-to-cf), and move such a mark on an llvm.br/llvm.cond_br into its loop_annotation (run last): the lowering unrolls its register blocks itself, and LLVM unrolling them again doubles the code to optimise and generate",
    anchor: Some(c"builtin.module"),
    options: &[],
    run,
};

/// The fewest ops (nested ones included) in a loop that LLVM is told not
/// to unroll: a register block's step (a 6 × 4 block's 24 FMAs, its loads
/// and broadcasts) has more; a small loop (a remainder of one vector, an
/// elementwise loop, a depthwise kernel's five taps) keeps LLVM's own
/// choice, which made MobileNetV3 three times faster than none.
const MIN_OPS: usize = 32;

/// The ops nested in `op` (not `op` itself).
fn nested_ops(op: OperationRef<'_, '_>) -> usize {
    let mut n = 0usize;
    op.walk(WalkOrder::PreOrder, |_| {
        n += 1;
        WalkResult::Advance
    });
    n.saturating_sub(1)
}

/// The attribute `convert-scf-to-cf` moves onto the latch.
const ANNOTATION: &str = "llvm.loop_annotation";
/// A latch's own (inherent) annotation, which the translation reads.
const LATCH: &str = "loop_annotation";

fn run<'c>(
    ctx: &'c Context,
    root: OperationRef<'c, '_>,
    _options: &PassOptions,
) -> Result<(), PassFailed> {
    let Some(disable) = Attribute::parse(ctx, "#llvm.loop_annotation<unroll = <disable = true>>")
    else {
        emit_error(
            root.location(),
            "ocannl-loop-hints: the LLVM dialect is not loaded (#llvm.loop_annotation does not parse)",
            &[],
        );
        return Err(PassFailed);
    };
    let ops = ir::collect_ops(root, |op| ir::Select {
        keep: matches!(
            ir::op_name(&op).as_str(),
            "scf.for" | "llvm.br" | "llvm.cond_br"
        ),
        descend: true,
    });
    for op in ops {
        if ir::op_name(&op) == "scf.for" {
            if op.attribute(ANNOTATION).is_err() && nested_ops(op) >= MIN_OPS {
                ir::set_discardable_attribute(op, ANNOTATION, disable);
            }
        } else if let Ok(mark) = op.attribute(ANNOTATION) {
            // A latch: its own annotation, unless it has one already.
            if op.attribute(LATCH).is_err() {
                ir::set_attribute(op, LATCH, mark);
            }
            ir::remove_attribute(op, ANNOTATION);
        }
    }
    Ok(())
}
