//! `ocannl-opt`: an `mlir-opt` with the ocannl dialect and passes.
//!
//! Every `mlir-opt` flag works (`-p`/`--pass-pipeline`, `--split-input-file`,
//! `--verify-diagnostics`, `--mlir-print-ir-after-all`, ...); `--help` lists
//! the ocannl passes beside the upstream ones.

use std::process::ExitCode;

fn main() -> ExitCode {
    let code = ocannl_passes::driver::opt_main(std::env::args().collect());
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
