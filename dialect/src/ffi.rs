//! The crate's FFI layer: every raw MLIR C API call and every `unsafe`
//! block of `ocannl-dialect` lives here, behind safe functions.
//!
//! Two kinds of entry points: the C++ shim (`cpp/dialect_shim.cpp`: the
//! IRDL-defined `!ocannl.tensor`, errors with notes, per-operand verifiers)
//! and the few C API pieces melior has no safe wrapper for (string
//! references that may be empty, attribute and type queries, setting an
//! attribute through an [`OperationRef`]). The safe functions are
//! re-exported to the other crates as [`crate::ir`].
//!
//! Invariants every function here keeps:
//! - a handle passed in is a live MLIR object (melior's safe types
//!   guarantee it); results borrow from the context (`'c`), never from a
//!   temporary;
//! - every getter is guarded by the matching kind check, so a wrong input
//!   gives `None`, never UB;
//! - MLIR string references are read with [`str_of`], which accepts the
//!   null, empty references MLIR hands out for `""` (melior's
//!   `StringRef::as_str` panics on them, aborting across the FFI boundary).

use std::borrow::Cow;

use melior::{
    Context, StringRef,
    ir::{
        AffineExpr, AffineMap, Attribute, AttributeLike, Location, Type, TypeLike,
        operation::{OperationLike, OperationRef},
    },
};
use melior::{ContextRef, dialect::DialectRegistry};
use mlir_sys::{MlirContext, MlirDialectRegistry, MlirLocation, MlirStringRef, MlirType};

mod shim {
    use super::*;

    unsafe extern "C" {
        pub fn ocannlTypeIsTensor(ty: MlirType) -> bool;
        pub fn ocannlTensorTypeGetSpec(ty: MlirType) -> MlirStringRef;
        pub fn ocannlTensorTypeGetElementType(ty: MlirType) -> MlirType;
        pub fn ocannlTensorTypeGet(
            ctx: MlirContext,
            elem: MlirType,
            spec: MlirStringRef,
        ) -> MlirType;
        pub fn ocannlRelaxVariadicVerifier(
            ctx: MlirContext,
            name: MlirStringRef,
            min_operands: isize,
            num_string_attrs: isize,
            string_attrs: *const MlirStringRef,
        ) -> bool;
        pub fn ocannlRejectCustomSyntax(ctx: MlirContext, name: MlirStringRef) -> bool;
        pub fn ocannlRegisterDialect(
            registry: MlirDialectRegistry,
            irdl: MlirStringRef,
            loaded: extern "C" fn(MlirContext),
        );
        pub fn ocannlEmitErrorWithNotes(
            loc: MlirLocation,
            message: MlirStringRef,
            num_notes: isize,
            note_locs: *const MlirLocation,
            note_msgs: *const MlirStringRef,
        );
    }
}

/// The text of an MLIR string reference: `""` for an empty one (which MLIR
/// may represent with a null pointer), invalid UTF-8 replaced by U+FFFD.
pub fn str_of(s: StringRef<'_>) -> Cow<'_, str> {
    let raw = s.to_raw();
    if raw.length == 0 || raw.data.is_null() {
        return Cow::Borrowed("");
    }
    // SAFETY: a non-empty MLIR string reference points at `length` readable
    // bytes that live as long as the reference's owner ('_).
    let bytes = unsafe { std::slice::from_raw_parts(raw.data.cast::<u8>(), raw.length) };
    String::from_utf8_lossy(bytes)
}

/// The name of `op` (`func.func`, `ocannl.add`, ...).
pub fn op_name<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> String {
    str_of(op.name().as_string_ref()).into_owned()
}

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

/// The value of the string attribute `name` of `op`, if it has one.
pub fn string_attr<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, name: &str) -> Option<String> {
    op.attribute(name).ok().and_then(string_value)
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
/// not `elem`, or the element counts differ.
pub fn reshape_dense<'c>(
    attr: Attribute<'c>,
    shape: &[i64],
    elem: Type<'c>,
) -> Option<Attribute<'c>> {
    let info = elements(attr)?;
    let cells = shape
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(u64::try_from(d).ok()?))?;
    if !is_dense_elements(attr) || info.elem != elem || info.count != cells {
        return None;
    }
    let ty = ranked_tensor_type(shape, elem)?;
    // SAFETY: a dense elements attribute and a static tensor type with the
    // same element type and count (checked above).
    let raw = unsafe { mlir_sys::mlirDenseElementsAttrReshapeGet(attr.to_raw(), ty.to_raw()) };
    // SAFETY: null-checked before wrapping.
    (!raw.ptr.is_null()).then(|| unsafe { Attribute::from_raw(raw) })
}

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

/// Sets the attribute `name` of `op` (inherent or discardable, as MLIR
/// decides by the name).
pub fn set_attribute<'c>(op: OperationRef<'c, '_>, name: &str, attr: Attribute<'c>) {
    // SAFETY: live op and attribute of one context; the name is copied.
    unsafe {
        mlir_sys::mlirOperationSetAttributeByName(
            op.to_raw(),
            StringRef::new(name).to_raw(),
            attr.to_raw(),
        )
    }
}

/// Sets the discardable attribute `name` of `op`.
pub fn set_discardable_attribute<'c>(op: OperationRef<'c, '_>, name: &str, attr: Attribute<'c>) {
    // SAFETY: live op and attribute of one context; the name is copied.
    unsafe {
        mlir_sys::mlirOperationSetDiscardableAttributeByName(
            op.to_raw(),
            StringRef::new(name).to_raw(),
            attr.to_raw(),
        )
    }
}

/// The element type and spec text of an `!ocannl.tensor` type.
pub(crate) fn ocannl_tensor_parts(ty: Type<'_>) -> Option<(Type<'_>, Cow<'_, str>)> {
    let raw = ty.to_raw();
    // SAFETY: `raw` is a live type; the shim returns false / null results
    // for types that are not ocannl tensors; the spec string is uniqued in
    // the context and lives as long as the type ('_).
    unsafe {
        if !shim::ocannlTypeIsTensor(raw) {
            return None;
        }
        let elem = shim::ocannlTensorTypeGetElementType(raw);
        if elem.ptr.is_null() {
            return None;
        }
        let spec = str_of(StringRef::from_raw(shim::ocannlTensorTypeGetSpec(raw)));
        Some((Type::from_raw(elem), spec))
    }
}

/// `!ocannl.tensor<elem, "spec">`; `None` when the ocannl dialect is not
/// loaded in `elem`'s context.
pub(crate) fn ocannl_tensor_type<'c>(elem: Type<'c>, spec: &str) -> Option<Type<'c>> {
    // SAFETY: live handles; the spec is copied into the context; the shim
    // returns a null type when the dialect is missing.
    unsafe {
        let raw = shim::ocannlTensorTypeGet(
            mlir_sys::mlirTypeGetContext(elem.to_raw()),
            elem.to_raw(),
            StringRef::new(spec).to_raw(),
        );
        (!raw.ptr.is_null()).then(|| Type::from_raw(raw))
    }
}

/// Emits `message` as an error at `location` with one note per entry.
pub(crate) fn emit_error_with_notes(
    location: Location<'_>,
    message: &str,
    notes: &[(Location<'_>, String)],
) {
    let note_locs: Vec<_> = notes.iter().map(|(loc, _)| loc.to_raw()).collect();
    let note_msgs: Vec<_> = notes
        .iter()
        .map(|(_, msg)| StringRef::new(msg).to_raw())
        .collect();
    // SAFETY: both arrays hold `notes.len()` elements and outlive the call;
    // the shim copies every string into the diagnostic.
    unsafe {
        shim::ocannlEmitErrorWithNotes(
            location.to_raw(),
            StringRef::new(message).to_raw(),
            notes.len() as isize,
            note_locs.as_ptr(),
            note_msgs.as_ptr(),
        );
    }
}

/// Registers the ocannl dialect in `registry` (see the shim's
/// `ocannlRegisterDialect`): a context loads it from [`crate::IRDL`] when it
/// first meets an `ocannl` op or type, then [`dialect_loaded`] patches it.
pub(crate) fn register_dialect(registry: &DialectRegistry) {
    // SAFETY: a live registry.
    unsafe { register_raw(registry.to_raw()) }
}

/// [`crate::register`] on a registry handle from C or C++ (`ocannl-opt`'s
/// registry, `mlir-opt`'s plugin loader, the C API).
///
/// # Safety
///
/// `registry` must be a live `mlir::DialectRegistry`.
pub unsafe fn register_raw(registry: MlirDialectRegistry) {
    // SAFETY: the caller hands a live registry; `IRDL` is 'static (the
    // extension keeps the reference for the life of the process);
    // `dialect_loaded` is a plain function that never unwinds (it catches
    // panics).
    unsafe {
        shim::ocannlRegisterDialect(
            registry,
            StringRef::new(crate::IRDL).to_raw(),
            dialect_loaded,
        )
    }
}

/// Called by the registry extension once the ocannl dialect's IRDL is
/// loaded into `ctx`: patches what IRDL cannot express
/// ([`crate::relax_variadic_verifiers`]).
extern "C" fn dialect_loaded(ctx: MlirContext) {
    if ctx.ptr.is_null() {
        return;
    }
    // No panic may unwind into C++; the patch only fails when the dialect
    // is not loaded, which cannot happen here.
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: MLIR passes the live context that is loading the dialect.
        let context_ref = unsafe { ContextRef::from_raw(ctx) };
        #[allow(clippy::disallowed_methods)] // `context_ref` outlives the use below
        // SAFETY: the reference points into `context_ref`, alive for this frame.
        let context: &Context = unsafe { context_ref.to_ref() };
        let _ = crate::relax_variadic_verifiers(context);
    });
}

/// Makes the custom-syntax parser of op `name` report an error (IRDL's
/// fails silently; see the shim); false when the ocannl dialect is not
/// loaded in `context`.
pub(crate) fn reject_custom_syntax(context: &Context, name: &str) -> bool {
    // SAFETY: a live context; the name is copied.
    unsafe { shim::ocannlRejectCustomSyntax(context.to_raw(), StringRef::new(name).to_raw()) }
}

/// Replaces the IRDL verifier of the variadic op `name` (see the shim);
/// false when the ocannl dialect is not loaded in `context`.
pub(crate) fn relax_variadic_verifier(
    context: &Context,
    name: &str,
    min_operands: usize,
    string_attrs: &[&str],
) -> bool {
    let attrs: Vec<MlirStringRef> = string_attrs
        .iter()
        .map(|a| StringRef::new(a).to_raw())
        .collect();
    // SAFETY: a live context; the strings and the array outlive the call,
    // which copies them.
    unsafe {
        shim::ocannlRelaxVariadicVerifier(
            context.to_raw(),
            StringRef::new(name).to_raw(),
            min_operands as isize,
            attrs.len() as isize,
            attrs.as_ptr(),
        )
    }
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

/// Every op nested in `root` (not `root` itself), pre-order, that `select`
/// keeps; `select` also says whether to look inside the op.
///
/// The refs stay valid as long as the ops are not erased: callers collect
/// before they rewrite.
pub fn collect_ops<'c, 'a>(
    root: OperationRef<'c, 'a>,
    mut select: impl FnMut(OperationRef<'_, '_>) -> Select,
) -> Vec<OperationRef<'c, 'a>> {
    let mut raws = Vec::new();
    let root_raw = root.to_raw();
    root.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if op.to_raw().ptr == root_raw.ptr {
            return melior::ir::operation::WalkResult::Advance;
        }
        let choice = select(op);
        if choice.keep {
            raws.push(op.to_raw());
        }
        if choice.descend {
            melior::ir::operation::WalkResult::Advance
        } else {
            melior::ir::operation::WalkResult::Skip
        }
    });
    // SAFETY: each raw op is nested in `root` and lives as long as root's
    // regions ('a); nothing was erased during the walk.
    raws.into_iter()
        .map(|raw| unsafe { OperationRef::from_raw(raw) })
        .collect()
}

/// What [`collect_ops`] does with an op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Select {
    /// Put it in the result.
    pub keep: bool,
    /// Visit the ops nested in it.
    pub descend: bool,
}

/// Erases `op` (and everything nested in it) from its block.
///
/// The caller must hold no other reference to `op` or its nested ops and
/// values afterwards (the same rule as melior's `OperationRef`s of erased
/// ops); every use of its results must be gone.
pub fn erase_op(op: OperationRef<'_, '_>) {
    // SAFETY: a live op; MLIR unlinks it from its block and frees it. Its
    // results have no uses left (caller's contract, checked by MLIR's
    // assertions in debug builds of MLIR).
    unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) }
}

/// An owned copy of `op` (with its regions), detached from any block.
pub fn clone_op<'c>(op: OperationRef<'c, '_>) -> melior::ir::Operation<'c> {
    // SAFETY: a live op; `mlirOperationClone` returns a new, unlinked op
    // that the returned `Operation` owns (and destroys when dropped).
    unsafe { melior::ir::Operation::from_raw(mlir_sys::mlirOperationClone(op.to_raw())) }
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
