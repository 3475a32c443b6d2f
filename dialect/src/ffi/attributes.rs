//! Attribute values the C API reads and melior does not (or reads with
//! `StringRef::as_str`, which panics on empty strings): strings, symbol
//! references, integers, floats, elements, affine maps and integer sets.

use melior::{
    Context, StringRef,
    ir::{AffineExpr, AffineMap, Attribute, AttributeLike, Type, TypeLike},
};

use super::{str_of, types::ranked_tensor_type};

/// The value of a string attribute (`None` for any other attribute).
pub fn string_value(attr: Attribute<'_>) -> Option<String> {
    // SAFETY: kind check before the getter; the string is copied.
    unsafe {
        let raw = attr.to_raw();
        mlir_sys::mlirAttributeIsAString(raw).then(|| {
            str_of(StringRef::from_raw(mlir_sys::mlirStringAttrGetValue(raw))).into_owned()
        })
    }
}

/// The name a flat symbol reference attribute (`@f`) refers to (`None` for
/// any other attribute).
pub fn symbol_ref_value(attr: Attribute<'_>) -> Option<String> {
    // SAFETY: kind check before the getter; the string is copied.
    unsafe {
        let raw = attr.to_raw();
        mlir_sys::mlirAttributeIsAFlatSymbolRef(raw).then(|| {
            str_of(StringRef::from_raw(
                mlir_sys::mlirFlatSymbolRefAttrGetValue(raw),
            ))
            .into_owned()
        })
    }
}

/// The value of an integer attribute whose type has at most 64 bits
/// (sign-extended; `None` for wider integers and any other attribute).
pub fn integer_value(attr: Attribute<'_>) -> Option<i64> {
    // SAFETY: kind and width checks before the getter (wider values would
    // be truncated by `mlirIntegerAttrGetValueInt`).
    unsafe {
        let raw = attr.to_raw();
        if !mlir_sys::mlirAttributeIsAInteger(raw) {
            return None;
        }
        let ty = mlir_sys::mlirAttributeGetType(raw);
        if mlir_sys::mlirTypeIsAIndex(ty) {
            return Some(mlir_sys::mlirIntegerAttrGetValueInt(raw));
        }
        if !mlir_sys::mlirTypeIsAInteger(ty) || mlir_sys::mlirIntegerTypeGetWidth(ty) > 64 {
            return None;
        }
        if mlir_sys::mlirIntegerTypeIsUnsigned(ty) {
            return i64::try_from(mlir_sys::mlirIntegerAttrGetValueUInt(raw)).ok();
        }
        Some(mlir_sys::mlirIntegerAttrGetValueSInt(raw))
    }
}

/// The value of a float attribute (`None` for any other attribute).
pub fn float_value(attr: Attribute<'_>) -> Option<f64> {
    // SAFETY: kind check before the getter.
    unsafe {
        let raw = attr.to_raw();
        mlir_sys::mlirAttributeIsAFloat(raw).then(|| mlir_sys::mlirFloatAttrGetValueDouble(raw))
    }
}

/// What a dense elements attribute (`dense<...> : tensor<...>`) holds.
#[derive(Debug, Clone, Copy)]
pub struct Elements<'c> {
    /// The attribute itself.
    pub attr: Attribute<'c>,
    /// The number of elements.
    pub count: u64,
    /// The element type.
    pub elem: Type<'c>,
    /// The one value of a splat.
    pub splat: Option<Attribute<'c>>,
}

/// The elements of `attr` when it is an elements attribute; `dense` ones
/// (the only kind with readable values) also report a splat value.
pub fn elements(attr: Attribute<'_>) -> Option<Elements<'_>> {
    // SAFETY: kind checks before every getter.
    unsafe {
        let raw = attr.to_raw();
        if !mlir_sys::mlirAttributeIsAElements(raw) {
            return None;
        }
        let count = u64::try_from(mlir_sys::mlirElementsAttrGetNumElements(raw)).ok()?;
        let ty = mlir_sys::mlirAttributeGetType(raw);
        if !mlir_sys::mlirTypeIsAShaped(ty) {
            return None;
        }
        let elem = Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(ty));
        // An empty dense attribute is a "splat" without a value to read.
        let splat = (count > 0
            && mlir_sys::mlirAttributeIsADenseElements(raw)
            && mlir_sys::mlirDenseElementsAttrIsSplat(raw))
        .then(|| Attribute::from_raw(mlir_sys::mlirDenseElementsAttrGetSplatValue(raw)));
        Some(Elements {
            attr,
            count,
            elem,
            splat,
        })
    }
}

/// Whether `attr` is a dense elements attribute (values known cell by cell).
pub fn is_dense_elements(attr: Attribute<'_>) -> bool {
    // SAFETY: a plain kind query.
    unsafe { mlir_sys::mlirAttributeIsADenseElements(attr.to_raw()) }
}

/// The dense elements `attr` with the same data and the ranked tensor type
/// `shape` x `elem`; `None` when `attr` is not dense, its element type is
/// not `elem` (or, for data that is no splat, an integer type of `elem`'s
/// width: `ui8` data becomes `i8`), or the element counts differ.
pub fn reshape_dense<'c>(
    attr: Attribute<'c>,
    shape: &[i64],
    elem: Type<'c>,
) -> Option<Attribute<'c>> {
    let info = elements(attr)?;
    let cells = shape
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(u64::try_from(d).ok()?))?;
    let signedness_only = info.elem != elem && super::types::signless(info.elem) == elem;
    if !is_dense_elements(attr) || (info.elem != elem && !signedness_only) || info.count != cells {
        return None;
    }
    let ty = ranked_tensor_type(shape, elem)?;
    if signedness_only {
        // The same bits as the signless type (`ui8` -> `i8`): integers of
        // at least 8 bits are stored one per `width / 8` bytes.
        let bytes = usize::try_from(cells)
            .ok()?
            .checked_mul(super::types::bit_width(elem)?.div_ceil(8) as usize)?;
        // SAFETY: a dense elements attribute that is no splat (a splat is
        // a scalar to the callers, and its raw data holds one cell: checked
        // here) and a static tensor type; the raw data holds `bytes` bytes,
        // which MLIR copies.
        let raw = unsafe {
            if mlir_sys::mlirDenseElementsAttrIsSplat(attr.to_raw()) {
                return None;
            }
            let data = mlir_sys::mlirDenseElementsAttrGetRawData(attr.to_raw());
            mlir_sys::mlirDenseElementsAttrRawBufferGet(ty.to_raw(), bytes, data)
        };
        // SAFETY: null-checked before wrapping.
        return (!raw.ptr.is_null()).then(|| unsafe { Attribute::from_raw(raw) });
    }
    // SAFETY: a dense elements attribute and a static tensor type with the
    // same element type and count (checked above).
    let raw = unsafe { mlir_sys::mlirDenseElementsAttrReshapeGet(attr.to_raw(), ty.to_raw()) };
    // SAFETY: null-checked before wrapping.
    (!raw.ptr.is_null()).then(|| unsafe { Attribute::from_raw(raw) })
}

/// The raw bytes of a dense elements attribute that is no splat, with
/// elements of a whole number of bytes (`bytes_per_cell` each): `None`
/// otherwise (`i1` data is bit-packed).
pub fn dense_raw_bytes(attr: Attribute<'_>, bytes_per_cell: usize) -> Option<Vec<u8>> {
    let info = elements(attr)?;
    if !is_dense_elements(attr) || info.splat.is_some() || info.count == 0 {
        return None;
    }
    let width = super::types::bit_width(info.elem)? as usize;
    if !width.is_multiple_of(8) || width / 8 != bytes_per_cell {
        return None;
    }
    let len = usize::try_from(info.count)
        .ok()?
        .checked_mul(bytes_per_cell)?;
    // SAFETY: a dense elements attribute that is no splat, of elements of
    // `bytes_per_cell` bytes each (checked above): its raw data holds
    // `count * bytes_per_cell` bytes, alive as long as the context; they
    // are copied out before returning.
    unsafe {
        let data = mlir_sys::mlirDenseElementsAttrGetRawData(attr.to_raw()).cast::<u8>();
        if data.is_null() {
            return None;
        }
        Some(std::slice::from_raw_parts(data, len).to_vec())
    }
}

/// A dense elements attribute of the ranked tensor type `shape` x `elem`
/// holding `bytes` (row-major cells of `elem`'s width, a whole number of
/// bytes each); `None` when the sizes disagree.
pub fn dense_from_bytes<'c>(shape: &[i64], elem: Type<'c>, bytes: &[u8]) -> Option<Attribute<'c>> {
    let width = super::types::bit_width(elem)? as usize;
    let cells = shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?))?;
    if !width.is_multiple_of(8) || cells.checked_mul(width / 8)? != bytes.len() {
        return None;
    }
    let ty = ranked_tensor_type(shape, elem)?;
    // SAFETY: a static tensor type whose cells take exactly `bytes.len()`
    // bytes (checked above); MLIR copies the buffer.
    let raw = unsafe {
        mlir_sys::mlirDenseElementsAttrRawBufferGet(ty.to_raw(), bytes.len(), bytes.as_ptr().cast())
    };
    // SAFETY: null-checked before wrapping.
    (!raw.ptr.is_null()).then(|| unsafe { Attribute::from_raw(raw) })
}

/// `affine_map<...>` as an attribute.
pub fn affine_map_attr(map: AffineMap<'_>) -> Attribute<'_> {
    // SAFETY: a live affine map; the attribute is uniqued in its context.
    unsafe { Attribute::from_raw(mlir_sys::mlirAffineMapAttrGet(map.to_raw())) }
}

/// The map of an affine map attribute (`None` for any other attribute).
pub fn affine_map_value(attr: Attribute<'_>) -> Option<AffineMap<'_>> {
    // SAFETY: kind check before the getter.
    unsafe {
        mlir_sys::mlirAttributeIsAAffineMap(attr.to_raw())
            .then(|| AffineMap::from_raw(mlir_sys::mlirAffineMapAttrGetValue(attr.to_raw())))
    }
}

/// The integer set `(d0, ..., d{dims-1}) : (c0 >= 0, c1 >= 0, ...)` as an
/// attribute (the condition of an `affine.if`); `None` for an empty set of
/// constraints or constraints of another context.
pub fn integer_set_attr<'c>(
    context: &'c Context,
    dims: usize,
    non_negative: &[AffineExpr<'c>],
) -> Option<Attribute<'c>> {
    if non_negative.is_empty() || non_negative.iter().any(|e| e.context() != *context) {
        return None;
    }
    let exprs: Vec<mlir_sys::MlirAffineExpr> = non_negative.iter().map(|e| e.to_raw()).collect();
    let eq = vec![false; exprs.len()];
    // SAFETY: a live context; both arrays hold `exprs.len()` elements and
    // outlive the call, which copies them.
    unsafe {
        let set = mlir_sys::mlirIntegerSetGet(
            context.to_raw(),
            dims as isize,
            0,
            exprs.len() as isize,
            exprs.as_ptr(),
            eq.as_ptr(),
        );
        Some(Attribute::from_raw(mlir_sys::mlirIntegerSetAttrGet(set)))
    }
}
