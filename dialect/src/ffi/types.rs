//! Type queries and constructors of the C API: shaped types (dimensions,
//! element type, ranked tensors, plain memrefs), bit widths, signless
//! integers, function types.

use melior::ir::{Type, TypeLike, operation::OperationRef};
use mlir_sys::MlirType;

/// The rank and dimension sizes of a ranked shaped type (tensor, memref,
/// vector): `None` for dynamic sizes; `None` overall for other types.
pub fn shaped_dims(ty: Type<'_>) -> Option<Vec<Option<i64>>> {
    // SAFETY: kind checks first; every index is below the rank.
    unsafe {
        let raw = ty.to_raw();
        if !mlir_sys::mlirTypeIsAShaped(raw) || !mlir_sys::mlirShapedTypeHasRank(raw) {
            return None;
        }
        let rank = mlir_sys::mlirShapedTypeGetRank(raw).max(0) as isize;
        Some(
            (0..rank)
                .map(|i| {
                    (!mlir_sys::mlirShapedTypeIsDynamicDim(raw, i))
                        .then(|| mlir_sys::mlirShapedTypeGetDimSize(raw, i))
                })
                .collect(),
        )
    }
}

/// The element type of a shaped type (tensor, memref, vector).
pub fn shaped_element(ty: Type<'_>) -> Option<Type<'_>> {
    // SAFETY: kind check before the getter.
    unsafe {
        mlir_sys::mlirTypeIsAShaped(ty.to_raw())
            .then(|| Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(ty.to_raw())))
    }
}

/// `tensor<d0 x d1 x ... x elem>`, a negative size standing for `?`;
/// `None` when `elem` cannot be a tensor element.
pub fn ranked_tensor_type<'c>(dims: &[i64], elem: Type<'c>) -> Option<Type<'c>> {
    // SAFETY: the dims array outlives the call; a null encoding is allowed;
    // the checked constructor returns null for invalid element types.
    unsafe {
        let dynamic = mlir_sys::mlirShapedTypeGetDynamicSize();
        let dims: Vec<i64> = dims
            .iter()
            .map(|&d| if d < 0 { dynamic } else { d })
            .collect();
        let raw = mlir_sys::mlirRankedTensorTypeGetChecked(
            mlir_sys::mlirLocationUnknownGet(mlir_sys::mlirTypeGetContext(elem.to_raw())),
            dims.len() as isize,
            dims.as_ptr(),
            elem.to_raw(),
            mlir_sys::MlirAttribute {
                ptr: std::ptr::null(),
            },
        );
        (!raw.ptr.is_null()).then(|| Type::from_raw(raw))
    }
}

/// The bit width of an integer or float type.
pub fn bit_width(ty: Type<'_>) -> Option<u32> {
    // SAFETY: kind checks before the getters.
    unsafe {
        let raw = ty.to_raw();
        if mlir_sys::mlirTypeIsAInteger(raw) {
            Some(mlir_sys::mlirIntegerTypeGetWidth(raw))
        } else if mlir_sys::mlirTypeIsAFloat(raw) {
            Some(mlir_sys::mlirFloatTypeGetWidth(raw))
        } else {
            None
        }
    }
}

/// Whether `ty` is a memref type of static shape with the identity layout
/// (row-major, offset 0): what the lowering's buffers are.
pub fn is_plain_memref(ty: Type<'_>) -> bool {
    // SAFETY: kind checks before the getters; the layout of a memref type
    // is always an attribute (an affine map for the identity layout).
    unsafe {
        let raw = ty.to_raw();
        if !mlir_sys::mlirTypeIsAMemRef(raw) || !mlir_sys::mlirShapedTypeHasStaticShape(raw) {
            return false;
        }
        let layout = mlir_sys::mlirMemRefTypeGetLayout(raw);
        mlir_sys::mlirAttributeIsAAffineMap(layout)
            && mlir_sys::mlirAffineMapIsIdentity(mlir_sys::mlirAffineMapAttrGetValue(layout))
    }
}

/// Whether `ty` is a signless integer type (`i32`, not `ui32`/`si32`).
pub fn is_signless_integer(ty: Type<'_>) -> bool {
    // SAFETY: kind check before the query.
    unsafe {
        mlir_sys::mlirTypeIsAInteger(ty.to_raw())
            && mlir_sys::mlirIntegerTypeIsSignless(ty.to_raw())
    }
}

/// Whether `ty` is an unsigned integer type (`ui8`, ...).
pub fn is_unsigned_integer(ty: Type<'_>) -> bool {
    // SAFETY: kind check before the query.
    unsafe {
        mlir_sys::mlirTypeIsAInteger(ty.to_raw())
            && mlir_sys::mlirIntegerTypeIsUnsigned(ty.to_raw())
    }
}

/// The signless integer type of `ty`'s width when `ty` is a signed or
/// unsigned integer type (`ui8` -> `i8`); `ty` itself otherwise.
pub fn signless<'c>(ty: Type<'c>) -> Type<'c> {
    // SAFETY: kind checks before the getters; the new type is uniqued in
    // `ty`'s context, which outlives `'c`.
    unsafe {
        let raw = ty.to_raw();
        if !mlir_sys::mlirTypeIsAInteger(raw) || mlir_sys::mlirIntegerTypeIsSignless(raw) {
            return ty;
        }
        let width = mlir_sys::mlirIntegerTypeGetWidth(raw);
        Type::from_raw(mlir_sys::mlirIntegerTypeGet(
            mlir_sys::mlirTypeGetContext(raw),
            width,
        ))
    }
}

/// `(inputs) -> results` in the context of `op` (melior's
/// `FunctionType::new` needs a `&Context`).
pub fn function_type<'c>(
    op: OperationRef<'c, '_>,
    inputs: &[Type<'c>],
    results: &[Type<'c>],
) -> Type<'c> {
    let inputs: Vec<MlirType> = inputs.iter().map(|t| t.to_raw()).collect();
    let results: Vec<MlirType> = results.iter().map(|t| t.to_raw()).collect();
    // SAFETY: a live context; both arrays outlive the call, which copies
    // them into the uniqued type.
    unsafe {
        Type::from_raw(mlir_sys::mlirFunctionTypeGet(
            mlir_sys::mlirOperationGetContext(op.to_raw()),
            inputs.len() as isize,
            inputs.as_ptr(),
            results.len() as isize,
            results.as_ptr(),
        ))
    }
}
