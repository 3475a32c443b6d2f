//! Rust passes in MLIR's pass registry, and the trampoline that runs them.

use std::{
    ffi::{CStr, CString, c_void},
    panic::{AssertUnwindSafe, catch_unwind},
};

use melior::{
    Context, ContextRef, StringRef,
    dialect::DialectRegistry,
    ir::operation::{OperationLike, OperationRef},
    pass::Pass,
};
use mlir_sys::{MlirOperation, MlirStringRef};
use ocannl_dialect::ir::str_of;

use super::shim;
use crate::pass::{OptionKind, PassDef, PassOptions};

/// Registers the pass `def` under its argument (the shim copies every
/// string; `def` lives for the whole process).
pub(crate) fn register_pass(def: &'static PassDef) {
    let options: Vec<shim::OptionDefRaw> = def
        .options
        .iter()
        .map(|o| shim::OptionDefRaw {
            name: o.name.as_ptr(),
            description: o.description.as_ptr(),
            is_bool: o.kind == OptionKind::Bool,
            default_value: o.default.as_ptr(),
        })
        .collect();
    // SAFETY: all strings are 'static and NUL-terminated, the options array
    // outlives the call; the shim copies them. `def` is 'static, so the
    // user-data pointer stays valid for every later run.
    unsafe {
        shim::ocannlRegisterPass(
            def.argument.as_ptr(),
            def.description.as_ptr(),
            def.anchor.map_or(std::ptr::null(), CStr::as_ptr),
            options.as_ptr(),
            options.len() as isize,
            trampoline,
            def as *const PassDef as *const c_void,
        );
    }
}

/// Registers a named pipeline (a registry name for a textual pass list
/// whose `$(name)` placeholders take the pipeline's options; `options`:
/// `name=default` entries separated by `;`).
pub(crate) fn register_pipeline(
    argument: &str,
    description: &str,
    passes: &str,
    options: &str,
    nvptx_target: bool,
) {
    let c = |s: &str| CString::new(s).expect("pipeline strings have no NUL");
    let (argument, description) = (c(argument), c(description));
    let (passes, options) = (c(passes), c(options));
    // SAFETY: NUL-terminated strings alive for the call; the shim copies them.
    unsafe {
        shim::ocannlRegisterPipeline(
            argument.as_ptr(),
            description.as_ptr(),
            passes.as_ptr(),
            options.as_ptr(),
            nvptx_target,
        )
    };
}

/// An NVPTX `chip` and `features` (`+ptxNN` or `auto`) checked against the
/// linked LLVM: the features to use, or why the pair is not valid.
pub(crate) fn resolve_nvptx_target(chip: &str, features: &str) -> Result<String, String> {
    let mut out = vec![0u8; 4096];
    // SAFETY: the two inputs are read for their given lengths during the
    // call; `out` is writable for its length, and the shim writes at most
    // that many bytes, NUL included.
    let ok = unsafe {
        shim::ocannlResolveNvptxTarget(
            chip.as_ptr().cast(),
            chip.len() as isize,
            features.as_ptr().cast(),
            features.len() as isize,
            out.as_mut_ptr().cast(),
            out.len() as isize,
        )
    };
    let end = out.iter().position(|&b| b == 0).unwrap_or(out.len());
    let text = String::from_utf8_lossy(&out[..end]).into_owned();
    if ok { Ok(text) } else { Err(text) }
}

/// Registers the shim's C++ passes (`ocannl-math-approximation`).
pub(crate) fn register_shim_passes() {
    // SAFETY: no arguments; registration copies nothing from us.
    unsafe { shim::ocannlRegisterShimPasses() }
}

/// Registers every upstream dialect and extension in `registry`, and every
/// upstream pass in the global registry.
pub(crate) fn register_upstream(registry: &DialectRegistry) {
    // SAFETY: `registry` is a live registry.
    unsafe { shim::ocannlRegisterAllUpstream(registry.to_raw()) }
}

/// A new instance of the registered pass `argument`.
pub(crate) fn create_registered_pass(argument: &str) -> Option<Pass> {
    let argument = CString::new(argument).ok()?;
    // SAFETY: a NUL-terminated name; the shim returns null for unknown names
    // and a new, owned pass otherwise.
    let raw = unsafe { shim::ocannlCreateRegisteredPass(argument.as_ptr()) };
    // SAFETY: non-null, owned by the caller from here.
    (!raw.ptr.is_null()).then(|| unsafe { Pass::from_raw(raw) })
}

/// What MLIR calls to run a pass: decodes the options, hands the body the
/// op and its context, and keeps panics from unwinding into C++.
unsafe extern "C" fn trampoline(
    op: MlirOperation,
    values: *const MlirStringRef,
    num_values: isize,
    user_data: *const c_void,
) -> bool {
    // SAFETY: `user_data` is the `&'static PassDef` given at registration.
    let def = unsafe { &*(user_data as *const PassDef) };
    let raw_values = if values.is_null() || num_values <= 0 {
        &[][..]
    } else {
        // SAFETY: the shim passes `num_values` valid string refs that live
        // for this call.
        unsafe { std::slice::from_raw_parts(values, num_values as usize) }
    };
    let options = PassOptions::from_values(def.options.iter().zip(raw_values).map(|(o, v)| {
        (
            o.name.to_string_lossy().into_owned(),
            // SAFETY: each ref points at a live std::string for this call.
            str_of(unsafe { StringRef::from_raw(*v) }).into_owned(),
        )
    }));
    // SAFETY: `op` is the live operation the pass runs on.
    let op = unsafe { OperationRef::from_raw(op) };
    // The context reference lives in this frame for the whole run: the
    // `&Context` made from it (melior's `to_ref` points into the
    // `ContextRef` itself) is valid until the body returns, and the body's
    // higher-ranked lifetime keeps it from escaping.
    let context_ref: ContextRef<'_> = op.context();
    #[allow(clippy::disallowed_methods)] // the one sound use: `context_ref` outlives the call
    // SAFETY: see above.
    let context: &Context = unsafe { context_ref.to_ref() };
    // A panic must never unwind into C++: turn it into a located error.
    match catch_unwind(AssertUnwindSafe(|| (def.run)(context, op, &options))) {
        Ok(Ok(())) => true,
        Ok(Err(_)) => false,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            ocannl_dialect::diagnostics::emit_error(
                op.location(),
                &format!("internal error in pass '{}': {what}", def.name()),
                &[],
            );
            false
        }
    }
}
