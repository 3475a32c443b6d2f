//! MLIR diagnostics with notes.
//!
//! The MLIR C API can emit an error at a location but cannot attach notes;
//! conflicts between ops are reported as an error at one op and notes at
//! the others (MLIR's convention), so the shim provides that.

use melior::{StringRef, ir::Location};

use crate::ffi;

/// Emits `message` as an error at `location`, with a note at each of `notes`.
pub fn emit_error(location: Location<'_>, message: &str, notes: &[(Location<'_>, String)]) {
    let message = StringRef::new(message);
    let note_locs: Vec<_> = notes.iter().map(|(loc, _)| loc.to_raw()).collect();
    let note_msgs: Vec<_> = notes
        .iter()
        .map(|(_, msg)| StringRef::new(msg).to_raw())
        .collect();
    // SAFETY: the pointers are valid for `notes.len()` elements for the
    // duration of the call; the shim copies the strings into the diagnostic.
    unsafe {
        ffi::ocannlEmitErrorWithNotes(
            location.to_raw(),
            message.to_raw(),
            notes.len() as isize,
            note_locs.as_ptr(),
            note_msgs.as_ptr(),
        );
    }
}
