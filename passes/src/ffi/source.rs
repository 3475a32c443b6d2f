//! Parsing source files with `mlir-opt`-style diagnostics, for tools other
//! than `ocannl-opt` (e.g. `ocannl-run`).

use std::{ffi::CString, path::Path};

use melior::{Context, ir::Module};

use super::shim;

/// While alive, diagnostics of `context` are printed to stderr as
/// `mlir-opt` prints them: `file:line:col: error: message`, the source line
/// and a caret, then the notes.
pub struct SourceDiagnostics<'c> {
    raw: *mut std::ffi::c_void,
    context: &'c Context,
}

impl<'c> SourceDiagnostics<'c> {
    /// Installs the handler on `context`.
    pub fn new(context: &'c Context) -> Self {
        // SAFETY: `context` is live for 'c, which outlives the handler.
        let raw = unsafe { shim::ocannlDiagnosticsCreate(context.to_raw()) };
        Self { raw, context }
    }

    /// Parses the file at `path`; `None` when it cannot be read or does not
    /// parse (the error has been printed).
    pub fn parse_file(&self, path: &Path) -> Option<Module<'c>> {
        let path = CString::new(path.as_os_str().as_encoded_bytes()).ok()?;
        // SAFETY: a live context and diagnostics handle; the shim returns
        // null or an owned `builtin.module`, which the `Module` then owns.
        unsafe {
            let op = shim::ocannlParseSourceFile(self.context.to_raw(), path.as_ptr(), self.raw);
            if op.ptr.is_null() {
                return None;
            }
            Some(Module::from_raw(mlir_sys::mlirModuleFromOperation(op)))
        }
    }
}

impl Drop for SourceDiagnostics<'_> {
    fn drop(&mut self) {
        // SAFETY: created by `ocannlDiagnosticsCreate`, destroyed once.
        unsafe { shim::ocannlDiagnosticsDestroy(self.raw) }
    }
}
