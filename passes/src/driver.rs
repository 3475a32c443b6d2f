//! The `ocannl-opt` driver: MLIR's `MlirOptMain` with every upstream
//! dialect and pass, the ocannl passes, and the ocannl dialect.
//!
//! The dialect is in the registry ([`ocannl_dialect::register`]), the way the
//! `mlir-opt` plugin and C++ compilers get it: a context loads it from the
//! IRDL text embedded in the binary when it first meets an `ocannl` op or
//! type. A user's `--irdl-file` defines further dialects, as in `mlir-opt`.

use std::ffi::CString;

use crate::{ffi::driver, registry::register_all};

/// Runs `ocannl-opt` with the command-line arguments `args` (including the
/// program name); returns the process exit code.
pub fn opt_main(args: Vec<String>) -> i32 {
    register_all();
    let Ok(c_args) = args
        .into_iter()
        .map(CString::new)
        .collect::<Result<Vec<_>, _>>()
    else {
        eprintln!("ocannl-opt: error: an argument contains a NUL byte");
        return 1;
    };
    driver::opt_main(
        &c_args,
        c"ocannl-opt: the ocannl dialect and passes on MLIR's opt driver\n",
    )
}

/// Whether standard output was closed when the process started (`tool >&-`).
///
/// Rust's runtime reopens a closed descriptor 0-2 on `/dev/null` before
/// `main`, so output written there would vanish and the tool would exit 0.
/// The shim reads the descriptor before that, during static initialisation;
/// a tool that writes to standard output reports this as an error.
pub fn stdout_closed_at_start() -> bool {
    driver::stdout_closed_at_start()
}
