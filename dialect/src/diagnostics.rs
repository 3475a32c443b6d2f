//! MLIR diagnostics with notes.
//!
//! The MLIR C API can emit an error at a location but cannot attach notes;
//! conflicts between ops are reported as an error at one op and notes at
//! the others (MLIR's convention), so the shim provides that.

use melior::ir::Location;

use crate::ffi;

/// Emits `message` as an error at `location`, with a note at each of `notes`.
pub fn emit_error(location: Location<'_>, message: &str, notes: &[(Location<'_>, String)]) {
    ffi::emit_error_with_notes(location, message, notes);
}
