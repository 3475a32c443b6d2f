//! `ocannl-capi`: the C API of the ocannl dialect and passes, declared in
//! `capi/include/ocannl-c/Ocannl.h` (and wrapped for C++ in
//! `capi/include/ocannl/{Dialect,Passes}.h`).
//!
//! This is what other MLIR compilers link: `cmake/` builds it into
//! `libOcannlMLIR.so` (linked against the host's `libMLIR.so`, never a
//! second copy of MLIR) and the `mlir-opt` plugin `OcannlMLIRPlugin.so`.
//! The entry points follow the MLIR C API's conventions:
//!
//! - `mlirGetDialectHandle__ocannl__()`: the dialect's handle, for
//!   `mlirDialectHandleInsertDialect` (into a registry) and
//!   `mlirDialectHandleLoadDialect` (into a context), like every upstream
//!   dialect's;
//! - `mlirRegisterOcannlPasses()`: every ocannl pass and named pipeline in
//!   MLIR's global pass registry (like `mlirRegisterTransformsPasses`);
//! - `mlirCreateOcannl<Pass>()`: one pass with its default options (like
//!   `mlirCreateTransformsCanonicalizer`).
//!
//! The entry points live in the crate's FFI layer ([`ffi`]): every one is
//! `extern "C"`, takes handles from C, and never lets a panic unwind into
//! its caller. They are exported from the library by name (`no_mangle`);
//! Rust users call `ocannl_dialect::register` and
//! `ocannl_passes::register_all` instead.

pub mod ffi;
