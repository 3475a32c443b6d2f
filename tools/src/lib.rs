//! What the `ocannl-*` binaries share: their global allocator.
//!
//! The binaries themselves live in `src/bin/`; the MLIR work is in
//! `ocannl-passes` and the runner's in `ocannl-runtime`.

mod ffi;

pub use ffi::MiMalloc;
