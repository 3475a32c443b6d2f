//! Declarations of the C++ shim (`cpp/*.cpp`, map in `cpp/shim.h`), used only by the
//! safe functions of the FFI layer.

use std::ffi::{c_char, c_int, c_void};

use mlir_sys::{MlirContext, MlirDialectRegistry, MlirOperation, MlirPass, MlirStringRef};

/// Mirrors `OcannlPassOptionDef`.
#[repr(C)]
pub(super) struct OptionDefRaw {
    pub(super) name: *const c_char,
    pub(super) description: *const c_char,
    pub(super) is_bool: bool,
    pub(super) default_value: *const c_char,
}

/// Mirrors `OcannlPassRunFn`.
pub(super) type RunFn = unsafe extern "C" fn(
    op: MlirOperation,
    option_values: *const MlirStringRef,
    num_options: isize,
    user_data: *const c_void,
) -> bool;

unsafe extern "C" {
    pub(super) fn ocannlRegisterPass(
        argument: *const c_char,
        description: *const c_char,
        op_name: *const c_char,
        options: *const OptionDefRaw,
        num_options: isize,
        run: RunFn,
        user_data: *const c_void,
    );
    pub(super) fn ocannlRegisterShimPasses();
    pub(super) fn ocannlRegisterPipeline(
        argument: *const c_char,
        description: *const c_char,
        passes: *const c_char,
        option_spec: *const c_char,
        nvptx_target: bool,
    );
    pub(super) fn ocannlResolveNvptxTarget(
        chip: *const c_char,
        chip_len: isize,
        features: *const c_char,
        features_len: isize,
        out: *mut c_char,
        out_len: isize,
    ) -> bool;
    pub(super) fn ocannlDiagnosticsCreate(context: MlirContext) -> *mut c_void;
    pub(super) fn ocannlDiagnosticsDestroy(diagnostics: *mut c_void);
    pub(super) fn ocannlParseSourceFile(
        context: MlirContext,
        path: *const c_char,
        diagnostics: *mut c_void,
    ) -> MlirOperation;
    pub(super) fn ocannlCreateRegisteredPass(argument: *const c_char) -> MlirPass;
    pub(super) fn ocannlRegisterAllUpstream(registry: MlirDialectRegistry);
    pub(super) fn ocannlStdoutClosedAtStart() -> bool;
    pub(super) fn ocannlOptMain(
        argc: c_int,
        argv: *mut *mut c_char,
        tool_name: *const c_char,
        register_dialects: extern "C" fn(MlirDialectRegistry),
    ) -> c_int;
}

/// Mirrors `OcannlEdgeFn`.
pub(super) type EdgeFn = unsafe extern "C" fn(
    from: mlir_sys::MlirValue,
    to: mlir_sys::MlirValue,
    at: MlirOperation,
    data: *mut c_void,
);

unsafe extern "C" {
    pub(super) fn ocannlForEachControlFlowEdge(
        root: MlirOperation,
        edge: EdgeFn,
        data: *mut c_void,
    ) -> MlirOperation;
    pub(super) fn ocannlSymbolTablesCreate() -> *mut c_void;
    pub(super) fn ocannlSymbolTablesDestroy(tables: *mut c_void);
    pub(super) fn ocannlCallInfo(
        op: MlirOperation,
        tables: *mut c_void,
        callee: *mut MlirOperation,
        first_arg: *mut isize,
        num_args: *mut isize,
    ) -> bool;
}
