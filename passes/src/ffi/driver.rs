//! `MlirOptMain`, with the ocannl dialect in its registry.

use std::ffi::{CString, c_char, c_int};

use mlir_sys::MlirDialectRegistry;

use super::shim;

/// Adds the ocannl dialect to `ocannl-opt`'s registry (called by the shim's
/// `ocannlOptMain` while it builds the registry).
extern "C" fn register_dialects(registry: MlirDialectRegistry) {
    // SAFETY: the shim passes its live registry, alive for this call.
    unsafe { ocannl_dialect::register_raw(registry) }
}

/// Runs `MlirOptMain` (every upstream dialect, extension and pass, the
/// registered ocannl passes, and the ocannl dialect) with `args` (including
/// the program name); returns the process exit code.
pub(crate) fn opt_main(args: &[CString], tool_name: &std::ffi::CStr) -> i32 {
    let mut argv: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    argv.push(std::ptr::null_mut());
    // SAFETY: argv holds `len - 1` valid NUL-terminated strings and a null
    // terminator, all alive for the call; MlirOptMain does not keep them.
    unsafe {
        shim::ocannlOptMain(
            (argv.len() - 1) as c_int,
            argv.as_mut_ptr(),
            tool_name.as_ptr(),
            register_dialects,
        )
    }
}

/// Whether standard output was closed when the process started; read before
/// `main`, since Rust's runtime reopens a closed descriptor on `/dev/null`.
pub(crate) fn stdout_closed_at_start() -> bool {
    // SAFETY: reads a `const bool` the shim set during static initialisation.
    unsafe { shim::ocannlStdoutClosedAtStart() }
}
