//! `MlirOptMain`, the in-memory IRDL file it loads the dialect from, and
//! the hook that patches the dialect's variadic verifiers.

use std::{
    ffi::{CString, c_char, c_int},
    fs::File,
    io::Write,
    os::fd::{FromRawFd, IntoRawFd},
};

use melior::{Context, ContextRef};

use super::shim;

/// Called by the C++ shim's registry extensions whenever `func`, `arith` or
/// `tensor` is loaded into a context of `ocannl-opt`: once the ocannl
/// dialect is there (MlirOptMain loads it from the IRDL file first), its
/// variadic ops get their per-operand verifiers
/// ([`ocannl_dialect::relax_variadic_verifiers`]).
#[unsafe(no_mangle)]
pub extern "C" fn ocannlDialectHook(ctx: mlir_sys::MlirContext) {
    if ctx.ptr.is_null() {
        return;
    }
    // SAFETY: MLIR passes the live context whose dialect is being loaded.
    let context_ref = unsafe { ContextRef::from_raw(ctx) };
    #[allow(clippy::disallowed_methods)] // `context_ref` outlives the use below
    // SAFETY: the reference points into `context_ref`, alive for this frame.
    let context: &Context = unsafe { context_ref.to_ref() };
    // Not loaded yet (or not at all): nothing to patch.
    let _ = ocannl_dialect::relax_variadic_verifiers(context);
}

/// Runs `MlirOptMain` (every upstream dialect, extension and pass plus the
/// registered ocannl passes) with `args` (including the program name);
/// returns the process exit code.
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
        )
    }
}

/// An anonymous in-memory file holding `text`; returns a path that opens it
/// for the rest of the process.
pub(crate) fn memfd_with(text: &str) -> std::io::Result<String> {
    // SAFETY: a plain syscall with a valid NUL-terminated name; flags 0 keep
    // the descriptor open for the whole process (MlirOptMain opens the path).
    let fd = unsafe { libc::memfd_create(c"ocannl.irdl.mlir".as_ptr(), 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` is a fresh descriptor that nothing else owns.
    let mut file = unsafe { File::from_raw_fd(fd) };
    file.write_all(text.as_bytes())?;
    let fd = file.into_raw_fd();
    Ok(format!("/proc/self/fd/{fd}"))
}
