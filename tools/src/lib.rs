//! What the `ocannl-*` binaries share: their global allocator and their
//! command-line checks ([`cli`]).
//!
//! The binaries themselves live in `src/bin/`; the MLIR work is in
//! `ocannl-passes` and the runner's in `ocannl-runtime`.

pub mod cli;
mod ffi;

pub use ffi::MiMalloc;
