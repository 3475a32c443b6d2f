//! What the `ocannl-*` binaries share: their global allocator and their
//! command-line checks ([`cli`]); and the parts of `ocannl-run` beyond its
//! command line ([`run`]: its threads, what it prints and writes).
//!
//! The binaries themselves live in `src/bin/`; the MLIR work is in
//! `ocannl-passes` and the runner's in `ocannl-runtime`.

pub mod cli;
mod ffi;
pub mod run;

pub use ffi::{MiMalloc, use_large_os_pages};
