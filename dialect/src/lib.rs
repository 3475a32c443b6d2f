//! `ocannl-dialect`: the ocannl MLIR dialect.
//!
//! The dialect is defined once, in ODS (`dialect/td/*.td`). The build script
//! reads it with the `tblgen` crate and generates
//! - the IRDL module [`IRDL`] that MLIR loads at run time (checked in as
//!   `dialect/ocannl.irdl.mlir` so stock `mlir-opt --irdl-file=` works without
//!   building anything; a test keeps the copy current), and
//! - the op [`catalog`]: op name → shape logic, operands, attributes.
//!
//! [`types`] converts between MLIR types (`!ocannl.tensor<ELEM, "SPEC">` and
//! builtin tensors) and [`ocannl_shape`] specs; [`diagnostics`] emits MLIR
//! diagnostics with notes.
#![warn(missing_docs)]

pub mod catalog;
pub mod diagnostics;
mod ffi;
pub mod types;

use melior::{Context, ir::Module};

/// The IRDL definition of the dialect, generated from ODS by the build script.
pub const IRDL: &str = include_str!(concat!(env!("OUT_DIR"), "/ocannl.irdl.mlir"));

/// Errors of this crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The IRDL module did not parse or load (an internal invariant: the
    /// generated module is tested).
    #[error("failed to load the ocannl dialect from its IRDL definition")]
    IrdlLoad,
}

/// Loads the ocannl dialect into `context` from [`IRDL`]. The context must
/// have the IRDL dialect available (e.g. after
/// `melior::utility::register_all_dialects`).
pub fn load(context: &Context) -> Result<(), Error> {
    // Parsing the IRDL module below fails when the IRDL dialect is missing.
    context.get_or_load_dialect("irdl");
    let module = Module::parse(context, IRDL).ok_or(Error::IrdlLoad)?;
    if melior::utility::load_irdl_dialects(&module) {
        Ok(())
    } else {
        Err(Error::IrdlLoad)
    }
}
