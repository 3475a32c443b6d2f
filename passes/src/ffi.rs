//! The crate's FFI layer: the C++ shim (`cpp/*.cpp`, map in `cpp/shim.h`) and every
//! `unsafe` block of `ocannl-passes`, behind safe functions.
//!
//! - [`pass`]: registering Rust passes and pipelines in MLIR's registry,
//!   and the trampoline through which MLIR runs a pass body (it hands the
//!   body a `&Context` that lives for the whole run, never one derived from
//!   a temporary, and turns a panic into a located error);
//! - [`driver`]: `MlirOptMain` and the in-memory IRDL file;
//! - [`source`]: parsing files with `mlir-opt`'s diagnostics;
//! - [`location`]: a block argument's location set.
//!
//! Generic MLIR access (strings, attributes, shaped types, affine maps)
//! is `ocannl_dialect::ir`, the dialect crate's FFI layer. Pass code has
//! no `unsafe`.

pub mod driver;
pub(crate) mod flow;
pub(crate) mod location;
pub mod pass;
mod shim;
pub mod source;
