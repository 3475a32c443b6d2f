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
//! - `ocannl.blocks = [{iterators = array<i64: ...>, maps = [...]}, ...]`:
//!   per block, its active iterators and one map per operand (`unit` when
//!   the operand takes no part) then one for the result, over the active
//!   iterators in order.
//!
//! Shapes must be solved (run `ocannl-infer-shapes` first). `ocannl.reshape`
//! has no projections (it copies in memory order) and is left alone.

use melior::{
    StringRef,
    ir::operation::{OperationLike, OperationRef},
};
use mlir_sys::{
    MlirAttribute, mlirAffineConstantExprGet, mlirAffineDimExprGet, mlirAffineMapAttrGet,
    mlirAffineMapGet, mlirArrayAttrGet, mlirDenseI64ArrayGet, mlirDictionaryAttrGet,
    mlirIdentifierGet, mlirNamedAttributeGet, mlirOperationGetContext,
    mlirOperationSetDiscardableAttributeByName, mlirStringAttrGet, mlirUnitAttrGet,
};
use ocannl_dialect::catalog;
use ocannl_shape::{
    projection::{AffineIndex, AxisIndex, Block, ProjectionError, Projections, infer_projections},
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
            attach(op, &p)?;
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
    if name == "ocannl.reshape" {
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

/// Sets the three attributes on `op` (or, with concatenated axes, the
/// product space, iterator types, components and blocks).
fn attach(op: OperationRef<'_, '_>, p: &Projections) -> Result<(), String> {
    if p.has_concat() {
        let blocks = p.blocks().map_err(|e| {
            format!(
                "'{}' op: cannot infer projections: {e}",
                op.name().as_string_ref().as_str().unwrap_or_default()
            )
        })?;
        attach_blocks(op, p, &blocks);
        return Ok(());
    }
    attach_maps(op, p);
    Ok(())
}

/// The attributes of an op with concatenated axes.
fn attach_blocks(op: OperationRef<'_, '_>, p: &Projections, blocks: &[Block]) {
    // SAFETY: all handles are valid for the duration of the calls; arrays
    // outlive the calls that read them.
    unsafe {
        let ctx = mlirOperationGetContext(op.to_raw());
        let i64s = |v: &[usize]| {
            let v: Vec<i64> = v.iter().map(|&x| x as i64).collect();
            mlirDenseI64ArrayGet(ctx, v.len() as isize, v.as_ptr())
        };
        let array = |v: &[MlirAttribute]| mlirArrayAttrGet(ctx, v.len() as isize, v.as_ptr());
        let components: Vec<MlirAttribute> = p.components.iter().map(|c| i64s(c)).collect();
        let mut dicts = Vec::with_capacity(blocks.len());
        for b in blocks {
            let local = |indices: &[AxisIndex]| -> MlirAttribute {
                let exprs: Vec<_> = block_local(indices, &b.iterators)
                    .iter()
                    .map(|a| index_expr(ctx, a))
                    .collect();
                mlirAffineMapAttrGet(mlirAffineMapGet(
                    ctx,
                    b.iterators.len() as isize,
                    0,
                    exprs.len() as isize,
                    exprs.as_ptr().cast_mut(),
                ))
            };
            let maps: Vec<MlirAttribute> = b
                .operands
                .iter()
                .map(|o| {
                    o.as_ref()
                        .map_or_else(|| mlirUnitAttrGet(ctx), |o| local(o))
                })
                .chain(std::iter::once(local(&b.result)))
                .collect();
            let named = |name: &str, attr: MlirAttribute| {
                mlirNamedAttributeGet(mlirIdentifierGet(ctx, StringRef::new(name).to_raw()), attr)
            };
            let entries = [
                named("iterators", i64s(&b.iterators)),
                named("maps", array(&maps)),
            ];
            dicts.push(mlirDictionaryAttrGet(
                ctx,
                entries.len() as isize,
                entries.as_ptr(),
            ));
        }
        let set = |name: &str, attr: MlirAttribute| {
            mlirOperationSetDiscardableAttributeByName(
                op.to_raw(),
                StringRef::new(name).to_raw(),
                attr,
            )
        };
        set("ocannl.product_space", product_space(ctx, p));
        set("ocannl.iterator_types", iterator_types(ctx, p));
        set("ocannl.components", array(&components));
        set("ocannl.blocks", array(&dicts));
    }
}

/// A block's indices over its active iterators only: iterator `i` becomes
/// its position in `iterators`.
pub(crate) fn block_local(indices: &[AxisIndex], iterators: &[usize]) -> Vec<AxisIndex> {
    let pos = |i: usize| iterators.iter().position(|&x| x == i).unwrap_or(0);
    indices
        .iter()
        .map(|a| match a {
            AxisIndex::Iter(i) => AxisIndex::Iter(pos(*i)),
            AxisIndex::Affine(x) => AxisIndex::Affine(AffineIndex {
                over: x.over.map(|(i, c)| (pos(i), c)),
                kernel: x.kernel.map(|(i, c)| (pos(i), c)),
                offset: x.offset,
            }),
            other => other.clone(),
        })
        .collect()
}

/// `array<i64: ...>`: the size of each iterator.
fn product_space(ctx: mlir_sys::MlirContext, p: &Projections) -> MlirAttribute {
    let space: Vec<i64> = p.product_space.iter().map(|&d| d as i64).collect();
    // SAFETY: valid context; `space` outlives the call.
    unsafe { mlirDenseI64ArrayGet(ctx, space.len() as isize, space.as_ptr()) }
}

/// `["parallel", "reduction", ...]`: an iterator that does not index the
/// result is reduced over.
fn iterator_types(ctx: mlir_sys::MlirContext, p: &Projections) -> MlirAttribute {
    let reductions = p.reductions();
    let kinds: Vec<MlirAttribute> = (0..p.product_space.len())
        .map(|i| {
            let k = if reductions.contains(&i) {
                "reduction"
            } else {
                "parallel"
            };
            // SAFETY: valid context.
            unsafe { mlirStringAttrGet(ctx, StringRef::new(k).to_raw()) }
        })
        .collect();
    // SAFETY: `kinds` outlives the call.
    unsafe { mlirArrayAttrGet(ctx, kinds.len() as isize, kinds.as_ptr()) }
}

/// Sets the three attributes on `op`.
fn attach_maps(op: OperationRef<'_, '_>, p: &Projections) {
    // SAFETY: all handles are valid for the duration of the calls; arrays
    // outlive the calls that read them.
    unsafe {
        let ctx = mlirOperationGetContext(op.to_raw());
        let dims = p.product_space.len() as isize;
        let map = |indices: &[AxisIndex]| -> MlirAttribute {
            let exprs: Vec<_> = indices.iter().map(|a| index_expr(ctx, a)).collect();
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

        let set = |name: &str, attr: MlirAttribute| {
            mlirOperationSetDiscardableAttributeByName(
                op.to_raw(),
                StringRef::new(name).to_raw(),
                attr,
            )
        };
        set("ocannl.product_space", product_space(ctx, p));
        set("ocannl.iterator_types", iterator_types(ctx, p));
        set(
            "ocannl.indexing_maps",
            mlirArrayAttrGet(ctx, maps.len() as isize, maps.as_ptr()),
        );
    }
}

/// The affine expression of one axis index: `d<i>`, a constant, or
/// `d<o> * stride + d<k> * dilation + offset`.
pub(crate) fn index_expr(ctx: mlir_sys::MlirContext, a: &AxisIndex) -> mlir_sys::MlirAffineExpr {
    // SAFETY: plain constructors on a valid context.
    unsafe {
        match a {
            AxisIndex::Iter(i) => mlirAffineDimExprGet(ctx, *i as isize),
            AxisIndex::Fixed(f) => mlirAffineConstantExprGet(ctx, *f as i64),
            // Resolved per block (`Projections::blocks`) before reaching here;
            // the whole axis is never one expression.
            AxisIndex::Concat(_) => mlirAffineConstantExprGet(ctx, 0),
            AxisIndex::Affine(x) => {
                // over * stride + kernel * dilation + offset, in that order.
                let mut e: Option<mlir_sys::MlirAffineExpr> = None;
                for (i, c) in [x.over, x.kernel].into_iter().flatten() {
                    let term = mlir_sys::mlirAffineMulExprGet(
                        mlirAffineDimExprGet(ctx, i as isize),
                        mlirAffineConstantExprGet(ctx, c as i64),
                    );
                    e = Some(e.map_or(term, |e| mlir_sys::mlirAffineAddExprGet(e, term)));
                }
                let offset = mlirAffineConstantExprGet(ctx, x.offset);
                match e {
                    Some(e) if x.offset == 0 => e,
                    Some(e) => mlir_sys::mlirAffineAddExprGet(e, offset),
                    None => offset,
                }
            }
        }
    }
}

/// The axis index an affine expression stands for, if it is one of the
/// forms [`index_expr`] builds (a linear combination of at most two
/// iterators with non-negative coefficients, plus a constant).
pub(crate) fn decode_index(e: mlir_sys::MlirAffineExpr) -> Option<AxisIndex> {
    use mlir_sys::*;
    // Sum of coefficient * dim, plus a constant.
    fn linear(
        e: MlirAffineExpr,
        scale: i64,
        terms: &mut Vec<(usize, i64)>,
        constant: &mut i64,
    ) -> bool {
        // SAFETY: each getter is guarded by its kind check.
        unsafe {
            if mlirAffineExprIsADim(e) {
                let d = mlirAffineDimExprGetPosition(e) as usize;
                match terms.iter_mut().find(|(x, _)| *x == d) {
                    Some((_, c)) => *c += scale,
                    None => terms.push((d, scale)),
                }
                true
            } else if mlirAffineExprIsAConstant(e) {
                *constant += scale * mlirAffineConstantExprGetValue(e);
                true
            } else if mlirAffineExprIsAAdd(e) {
                linear(mlirAffineBinaryOpExprGetLHS(e), scale, terms, constant)
                    && linear(mlirAffineBinaryOpExprGetRHS(e), scale, terms, constant)
            } else if mlirAffineExprIsAMul(e) {
                let (l, r) = (
                    mlirAffineBinaryOpExprGetLHS(e),
                    mlirAffineBinaryOpExprGetRHS(e),
                );
                if mlirAffineExprIsAConstant(r) {
                    linear(
                        l,
                        scale * mlirAffineConstantExprGetValue(r),
                        terms,
                        constant,
                    )
                } else if mlirAffineExprIsAConstant(l) {
                    linear(
                        r,
                        scale * mlirAffineConstantExprGetValue(l),
                        terms,
                        constant,
                    )
                } else {
                    false
                }
            } else {
                false
            }
        }
    }
    let (mut terms, mut constant) = (Vec::new(), 0i64);
    if !linear(e, 1, &mut terms, &mut constant) {
        return None;
    }
    terms.retain(|(_, c)| *c != 0);
    if terms.iter().any(|(_, c)| *c < 0) || terms.len() > 2 {
        return None;
    }
    match (terms.as_slice(), constant) {
        ([], c) if c >= 0 => Some(AxisIndex::Fixed(c as u64)),
        ([], _) => None,
        ([(d, 1)], 0) => Some(AxisIndex::Iter(*d)),
        _ => {
            let mut t = terms.iter().map(|&(d, c)| (d, c as u64));
            Some(AxisIndex::Affine(ocannl_shape::projection::AffineIndex {
                over: t.next(),
                kernel: t.next(),
                offset: constant,
            }))
        }
    }
}
