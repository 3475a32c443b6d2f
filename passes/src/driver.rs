//! The `ocannl-opt` driver: MLIR's `MlirOptMain` with every upstream
//! dialect and pass, the ocannl passes, and the ocannl dialect loaded from
//! its IRDL definition.
//!
//! `MlirOptMain` loads IRDL only from a file (`--irdl-file`). The driver
//! hands it the IRDL text embedded in the binary through an anonymous
//! in-memory file (`memfd_create`, read back as `/proc/self/fd/N`), so the
//! tool works from any directory and leaves nothing on disk. A user's own
//! `--irdl-file` is loaded too: its text is appended to the ocannl dialect's.

use std::{
    ffi::{CString, c_char, c_int},
    fs::File,
    io::Write,
    os::fd::{FromRawFd, IntoRawFd},
};

use crate::{ffi, registry::register_all};

/// Called by the C++ shim's registry extensions whenever `func`, `arith` or
/// `tensor` is loaded into a context of `ocannl-opt`: once the ocannl
/// dialect is there (MlirOptMain loads it from the IRDL file first), its
/// variadic ops get their per-operand verifiers
/// ([`ocannl_dialect::relax_variadic_verifiers`]).
#[unsafe(no_mangle)]
pub extern "C" fn ocannlDialectHook(ctx: mlir_sys::MlirContext) {
    // Not loaded yet (or not at all): nothing to patch.
    // SAFETY: MLIR passes a live context.
    let _ = unsafe { ocannl_dialect::relax_variadic_verifiers(ctx) };
}

/// Runs `ocannl-opt` with the command-line arguments `args` (including the
/// program name); returns the process exit code.
pub fn opt_main(args: Vec<String>) -> i32 {
    register_all();
    let args = match with_irdl(args) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("ocannl-opt: error: {message}");
            return 1;
        }
    };
    let Ok(c_args) = args
        .into_iter()
        .map(CString::new)
        .collect::<Result<Vec<_>, _>>()
    else {
        eprintln!("ocannl-opt: error: an argument contains a NUL byte");
        return 1;
    };
    let mut argv: Vec<*mut c_char> = c_args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    argv.push(std::ptr::null_mut());
    // SAFETY: argv holds `len - 1` valid NUL-terminated strings and a null
    // terminator, all alive for the call; MlirOptMain does not keep them.
    unsafe {
        ffi::ocannlOptMain(
            (argv.len() - 1) as c_int,
            argv.as_mut_ptr(),
            c"ocannl-opt: the ocannl dialect and passes on MLIR's opt driver\n".as_ptr(),
        )
    }
}

/// Replaces (or adds) `--irdl-file` with an in-memory file holding the
/// ocannl dialect's IRDL plus the user's IRDL file, if any.
fn with_irdl(args: Vec<String>) -> Result<Vec<String>, String> {
    let mut out = Vec::with_capacity(args.len() + 1);
    let mut user_files = Vec::new();
    let mut iter = args.into_iter();
    let mut seen_double_dash = false;
    while let Some(arg) = iter.next() {
        if seen_double_dash {
            out.push(arg);
            continue;
        }
        if arg == "--" {
            seen_double_dash = true;
            out.push(arg);
        } else if let Some(path) = arg
            .strip_prefix("--irdl-file=")
            .or_else(|| arg.strip_prefix("-irdl-file="))
        {
            user_files.push(path.to_owned());
        } else if arg == "--irdl-file" || arg == "-irdl-file" {
            let path = iter
                .next()
                .ok_or_else(|| "--irdl-file needs a file name".to_owned())?;
            user_files.push(path);
        } else {
            out.push(arg);
        }
    }
    let mut text = ocannl_dialect::IRDL.to_owned();
    for path in &user_files {
        let user = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read IRDL file '{path}': {e}"))?;
        text.push('\n');
        text.push_str(&user);
    }
    let path =
        memfd_with(&text).map_err(|e| format!("cannot create the in-memory IRDL file: {e}"))?;
    // Insert right after the program name so that `--` handling is unaffected.
    out.insert(1.min(out.len()), format!("--irdl-file={path}"));
    Ok(out)
}

/// An anonymous in-memory file holding `text`; returns a path that opens it.
fn memfd_with(text: &str) -> std::io::Result<String> {
    // SAFETY: plain syscall with a valid NUL-terminated name; flags 0 keeps
    // the descriptor open for the whole process (MlirOptMain opens the path).
    let fd = unsafe { libc::memfd_create(c"ocannl.irdl.mlir".as_ptr(), 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` is a fresh descriptor that we own.
    let mut file = unsafe { File::from_raw_fd(fd) };
    file.write_all(text.as_bytes())?;
    let fd = file.into_raw_fd();
    Ok(format!("/proc/self/fd/{fd}"))
}
