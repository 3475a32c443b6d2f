//! The C++ shim (`cpp/dialect_shim.cpp`): what the C API lacks for the
//! ocannl dialect. The IRDL-defined `!ocannl.tensor` type's parameters,
//! errors with notes, the dialect's registration (a registry extension
//! that loads it from IRDL), and the patches of its verifiers and parsers.

use std::borrow::Cow;

use melior::{
    Context, ContextRef, StringRef,
    dialect::DialectRegistry,
    ir::{Location, Type, TypeLike},
};
use mlir_sys::{MlirContext, MlirDialectRegistry, MlirLocation, MlirStringRef, MlirType};

use super::str_of;

/// The shim's functions.
mod c {
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

/// The element type and spec text of an `!ocannl.tensor` type.
pub(crate) fn ocannl_tensor_parts(ty: Type<'_>) -> Option<(Type<'_>, Cow<'_, str>)> {
    let raw = ty.to_raw();
    // SAFETY: `raw` is a live type; the shim returns false / null results
    // for types that are not ocannl tensors; the spec string is uniqued in
    // the context and lives as long as the type ('_).
    unsafe {
        if !c::ocannlTypeIsTensor(raw) {
            return None;
        }
        let elem = c::ocannlTensorTypeGetElementType(raw);
        if elem.ptr.is_null() {
            return None;
        }
        let spec = str_of(StringRef::from_raw(c::ocannlTensorTypeGetSpec(raw)));
        Some((Type::from_raw(elem), spec))
    }
}

/// `!ocannl.tensor<elem, "spec">`; `None` when the ocannl dialect is not
/// loaded in `elem`'s context.
pub(crate) fn ocannl_tensor_type<'c>(elem: Type<'c>, spec: &str) -> Option<Type<'c>> {
    // SAFETY: live handles; the spec is copied into the context; the shim
    // returns a null type when the dialect is missing.
    unsafe {
        let raw = c::ocannlTensorTypeGet(
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
        c::ocannlEmitErrorWithNotes(
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
        c::ocannlRegisterDialect(
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
    unsafe { c::ocannlRejectCustomSyntax(context.to_raw(), StringRef::new(name).to_raw()) }
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
        c::ocannlRelaxVariadicVerifier(
            context.to_raw(),
            StringRef::new(name).to_raw(),
            min_operands as isize,
            attrs.len() as isize,
            attrs.as_ptr(),
        )
    }
}
