//! Declarations of the C++ shim (`cpp/dialect_shim.cpp`).

use mlir_sys::{MlirContext, MlirLocation, MlirStringRef, MlirType};

unsafe extern "C" {
    pub fn ocannlTypeIsTensor(ty: MlirType) -> bool;
    pub fn ocannlTensorTypeGetSpec(ty: MlirType) -> MlirStringRef;
    pub fn ocannlTensorTypeGetElementType(ty: MlirType) -> MlirType;
    pub fn ocannlTensorTypeGet(ctx: MlirContext, elem: MlirType, spec: MlirStringRef) -> MlirType;
    pub fn ocannlRelaxVariadicVerifier(
        ctx: MlirContext,
        name: MlirStringRef,
        min_operands: isize,
        num_string_attrs: isize,
        string_attrs: *const MlirStringRef,
    ) -> bool;
    pub fn ocannlEmitErrorWithNotes(
        loc: MlirLocation,
        message: MlirStringRef,
        num_notes: isize,
        note_locs: *const MlirLocation,
        note_msgs: *const MlirStringRef,
    );
}
