//! `ocannl-opt`: an `mlir-opt` with the ocannl dialect and passes.
//!
//! Every `mlir-opt` flag works (`-p`/`--pass-pipeline`, `--split-input-file`,
//! `--verify-diagnostics`, `--mlir-print-ir-after-all`, ...); `--help` lists
//! the ocannl passes beside the upstream ones.

use std::process::ExitCode;

/// mimalloc for Rust's allocations (MLIR's C++ keeps the system allocator):
/// the solver and the IR translation allocate many small, short-lived
/// vectors, and mimalloc's thread-local free lists make `ocannl-infer-shapes`
/// about 30% faster than glibc's malloc (`tools/bench/infer_vs_onnx.py`).
/// Version 2 of mimalloc (see `tools/Cargo.toml` for why not 3), called
/// directly for the blocks it aligns anyway (`tools/src/ffi.rs`).
/// Loaded as a plugin, the passes use the host's allocator.
#[global_allocator]
static GLOBAL: ocannl_tools::MiMalloc = ocannl_tools::MiMalloc;

fn main() -> ExitCode {
    let code = ocannl_passes::driver::opt_main(std::env::args().collect());
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
