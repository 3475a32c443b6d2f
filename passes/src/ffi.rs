//! Declarations of the C++ shim (`cpp/passes_shim.cpp`).

use std::ffi::{c_char, c_int, c_void};

use mlir_sys::{MlirContext, MlirDialectRegistry, MlirOperation, MlirPass, MlirStringRef};

/// Mirrors `OcannlPassOptionDef`.
#[repr(C)]
pub struct OptionDefRaw {
    pub name: *const c_char,
    pub description: *const c_char,
    pub is_bool: bool,
    pub default_value: *const c_char,
}

/// Mirrors `OcannlPassRunFn`.
pub type RunFn = unsafe extern "C" fn(
    op: MlirOperation,
    option_values: *const MlirStringRef,
    num_options: isize,
    user_data: *const c_void,
) -> bool;

unsafe extern "C" {
    pub fn ocannlRegisterPass(
        argument: *const c_char,
        description: *const c_char,
        op_name: *const c_char,
        options: *const OptionDefRaw,
        num_options: isize,
        run: RunFn,
        user_data: *const c_void,
    );
    pub fn ocannlRegisterPipeline(
        argument: *const c_char,
        description: *const c_char,
        passes: *const c_char,
    );
    pub fn ocannlDiagnosticsCreate(context: MlirContext) -> *mut c_void;
    pub fn ocannlDiagnosticsDestroy(diagnostics: *mut c_void);
    pub fn ocannlParseSourceFile(
        context: MlirContext,
        path: *const c_char,
        diagnostics: *mut c_void,
    ) -> MlirOperation;
    pub fn ocannlCreateRegisteredPass(argument: *const c_char) -> MlirPass;
    pub fn ocannlRegisterAllUpstream(registry: MlirDialectRegistry);
    pub fn ocannlOptMain(argc: c_int, argv: *mut *mut c_char, tool_name: *const c_char) -> c_int;
}
