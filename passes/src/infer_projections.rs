//! `ocannl-infer-projections`: attaches each ocannl op's projections
//! (`ocannl_shape::projection`) as builtin attributes, so that lowering and
//! readers (and FileCheck) see the loop nest of every op:
//!
//! - `ocannl.product_space = array<i64: ...>`: the size of each iterator;
//! - `ocannl.iterator_types = ["parallel", "reduction", ...]`: an iterator
//!   that does not index the result is reduced over;
//! - `ocannl.indexing_maps = [affine_map<(d0, ...) -> (...)>, ...]`: one map
//!   per operand, then one for the result, from the iterators to the axes of
//!   the tensor in memory order (batch, output, input); a constant result
//!   expression is a fixed index (`0` for a broadcast axis).
//!
//! An `ocannl.concat` (Block logic, reference "Projections inference",
//! "Concatenation") cannot be one affine map per tensor: its concatenated
//! axes resolve differently in each block of the loop nest. It gets
//!
//! - `ocannl.product_space` and `ocannl.iterator_types` as above;
//! - `ocannl.components = [array<i64: ...>, ...]`: the connected components
//!   of the concatenation hypergraph (iterators looped in sequence);
//! - `ocannl.blocks = [{iterators = array<i64: ...>, maps = [...],
//!   operand = k : i64}, ...]`: per block, its active iterators, the one
//!   operand `k` that takes part, and two maps over the active iterators in
//!   order: operand `k`'s, then the result's (linear in the operands: a
//!   block lists no operand that takes no part).
//!
//! Shapes must be solved (run `ocannl-infer-shapes` first). `ocannl.reshape`
//! has no projections (it copies in memory order) and is left alone.

use melior::{
    Context,
    ir::operation::{OperationLike, OperationRef},
};
use ocannl_dialect::{catalog, ir};
use ocannl_shape::{
    projection::{ProjectionError, Projections, infer_projections},
    spec::ShapeSpec,
};

use crate::{
    op_logic::OwnedLogic,
    pass::{PassDef, PassFailed, PassOptions},
    projection_attrs::{attach_blocks, attach_maps},
    tensor_types::value_spec,
};

/// The registry entry of `ocannl-infer-projections`.
pub const PASS: PassDef = PassDef {
    argument: c"ocannl-infer-projections",
    description:
        c"Attach each ocannl op's loop nest: product space, iterator types, indexing affine maps",
    anchor: None,
    options: &[],
    run,
};

fn run<'c>(
    ctx: &'c Context,
    root: OperationRef<'c, '_>,
    _options: &PassOptions,
) -> Result<(), PassFailed> {
    let ops = ir::collect_ops(root, |_| ir::Select {
        keep: true,
        descend: true,
    });
    let mut failed = false;
    for op in ops {
        let attached = projections(op).and_then(|p| match p {
            Some(p) => attach(ctx, op, &p),
            None => Ok(()),
        });
        if let Err(message) = attached {
            ocannl_dialect::diagnostics::emit_error(op.location(), &message, &[]);
            failed = true;
        }
    }
    if failed { Err(PassFailed) } else { Ok(()) }
}

/// The projections of an ocannl op computed from its (solved) types;
/// `None` for other ops and for `ocannl.reshape` (which copies in memory
/// order).
pub(crate) fn projections(op: OperationRef<'_, '_>) -> Result<Option<Projections>, String> {
    let name = ir::op_name(&op);
    let Some(def) = catalog::lookup(&name) else {
        return Ok(None);
    };
    if def.computes == catalog::Computes::Reshape {
        return Ok(None);
    }
    let owned = OwnedLogic::of(op, def).map_err(|e| format!("'{name}' op {e}"))?;
    let operands: Vec<ShapeSpec> = op
        .operands()
        .map(|v| value_spec(&name, v))
        .collect::<Result<_, _>>()?;
    let result = value_spec(
        &name,
        op.result(0)
            .map_err(|_| format!("'{name}' op has no result"))?
            .into(),
    )?;
    let refs: Vec<&ShapeSpec> = operands.iter().collect();
    infer_projections(owned.as_projection_logic(), &refs, &result)
        .map(Some)
        .map_err(|e| {
            let hint = match e {
                ProjectionError::NotConcrete(_) => " (run ocannl-infer-shapes first)",
                _ => "",
            };
            format!("'{name}' op: cannot infer projections: {e}{hint}")
        })
}

/// Sets the three attributes on `op` (or, for a concatenation, the
/// product space, iterator types, components and blocks: an
/// `ocannl.concat` gets blocks even without a concatenated axis, so that
/// two operands writing the same cells are an error here).
fn attach<'c>(ctx: &'c Context, op: OperationRef<'c, '_>, p: &Projections) -> Result<(), String> {
    let blocks_op = catalog::lookup(&ir::op_name(&op))
        .is_some_and(|def| def.computes == catalog::Computes::Blocks);
    if p.has_concat() || blocks_op {
        let blocks = p
            .blocks()
            .map_err(|e| format!("'{}' op: cannot infer projections: {e}", ir::op_name(&op)))?;
        attach_blocks(ctx, op, p, &blocks);
    } else {
        attach_maps(ctx, op, p);
    }
    Ok(())
}
