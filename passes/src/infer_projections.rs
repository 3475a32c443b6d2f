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
//! Shapes must be solved (run `ocannl-infer-shapes` first). `ocannl.reshape`
//! has no projections (it copies in memory order) and is left alone.

use melior::{
    StringRef,
    ir::operation::{OperationLike, OperationRef},
};
use mlir_sys::{
    MlirAttribute, mlirAffineConstantExprGet, mlirAffineDimExprGet, mlirAffineMapAttrGet,
    mlirAffineMapGet, mlirArrayAttrGet, mlirDenseI64ArrayGet, mlirOperationGetContext,
    mlirOperationSetDiscardableAttributeByName, mlirStringAttrGet,
};
use ocannl_dialect::catalog::{self, ShapeLogic};
use ocannl_shape::{
    projection::{AxisIndex, ProjectionError, Projections, infer_projections},
    spec::ShapeSpec,
};

use crate::{
    infer_shapes::{OwnedLogic, value_spec},
    registry::{PassDef, PassFailed, PassOptions, check_each_op},
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

fn run(root: OperationRef<'_, '_>, _options: &PassOptions) -> Result<(), PassFailed> {
    check_each_op(root, |op| {
        if let Some(p) = projections(op)? {
            attach(op, &p);
        }
        Ok(())
    })
}

pub(crate) fn projections(op: OperationRef<'_, '_>) -> Result<Option<Projections>, String> {
    let name = op.name();
    let name = name.as_string_ref().as_str().unwrap_or_default();
    let Some(def) = catalog::lookup(name) else {
        return Ok(None);
    };
    if def.logic == ShapeLogic::Block || name == "ocannl.reshape" {
        return Ok(None);
    }
    let owned = OwnedLogic::of(op, def).map_err(|e| format!("'{name}' op {e}"))?;
    let operands: Vec<ShapeSpec> = op
        .operands()
        .map(|v| value_spec(name, v))
        .collect::<Result<_, _>>()?;
    let result = value_spec(
        name,
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

/// Sets the three attributes on `op`.
fn attach(op: OperationRef<'_, '_>, p: &Projections) {
    // SAFETY: all handles are valid for the duration of the calls; arrays
    // outlive the calls that read them.
    unsafe {
        let ctx = mlirOperationGetContext(op.to_raw());
        let dims = p.product_space.len() as isize;
        let map = |indices: &[AxisIndex]| -> MlirAttribute {
            let exprs: Vec<_> = indices
                .iter()
                .map(|a| match a {
                    AxisIndex::Iter(i) => mlirAffineDimExprGet(ctx, *i as isize),
                    AxisIndex::Fixed(f) => mlirAffineConstantExprGet(ctx, *f as i64),
                })
                .collect();
            mlirAffineMapAttrGet(mlirAffineMapGet(
                ctx,
                dims,
                0,
                exprs.len() as isize,
                exprs.as_ptr().cast_mut(),
            ))
        };
        let maps: Vec<MlirAttribute> = p
            .operands
            .iter()
            .map(|o| map(o))
            .chain(std::iter::once(map(&p.result)))
            .collect();
        let reductions = p.reductions();
        let kinds: Vec<MlirAttribute> = (0..p.product_space.len())
            .map(|i| {
                let k = if reductions.contains(&i) {
                    "reduction"
                } else {
                    "parallel"
                };
                mlirStringAttrGet(ctx, StringRef::new(k).to_raw())
            })
            .collect();
        let space: Vec<i64> = p.product_space.iter().map(|&d| d as i64).collect();
        let set = |name: &str, attr: MlirAttribute| {
            mlirOperationSetDiscardableAttributeByName(
                op.to_raw(),
                StringRef::new(name).to_raw(),
                attr,
            )
        };
        set(
            "ocannl.product_space",
            mlirDenseI64ArrayGet(ctx, space.len() as isize, space.as_ptr()),
        );
        set(
            "ocannl.iterator_types",
            mlirArrayAttrGet(ctx, kinds.len() as isize, kinds.as_ptr()),
        );
        set(
            "ocannl.indexing_maps",
            mlirArrayAttrGet(ctx, maps.len() as isize, maps.as_ptr()),
        );
    }
}
