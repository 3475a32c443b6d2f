//! The crate's FFI layer: every raw MLIR C API call and every `unsafe`
//! block of `ocannl-dialect` lives here and in its modules, behind safe
//! functions.
//!
//! Two kinds of entry points: the C++ shim ([`shim`], over
//! `cpp/dialect_shim.cpp`: the IRDL-defined `!ocannl.tensor`, errors with
//! notes, per-operand verifiers, the dialect's registration) and the few C
//! API pieces melior has no safe wrapper for (string references that may
//! be empty, [`attributes`] and [`types`] queries, [`ops`]: setting an
//! attribute through an
//! [`OperationRef`](melior::ir::operation::OperationRef), walking, erasing
//! and cloning ops). The safe functions are re-exported to the other
//! crates as [`crate::ir`].
//!
//! Invariants every function here keeps:
//! - a handle passed in is a live MLIR object (melior's safe types
//!   guarantee it); results borrow from the context (`'c`), never from a
//!   temporary;
//! - every getter is guarded by the matching kind check, so a wrong input
//!   gives `None`, never UB;
//! - MLIR string references are read with [`str_of`], which accepts the
//!   null, empty references MLIR hands out for `""` (melior's
//!   `StringRef::as_str` panics on them, aborting across the FFI boundary).

use std::borrow::Cow;

use melior::StringRef;

mod attributes;
mod ops;
mod shim;
mod types;

pub use attributes::{
    Elements, affine_map_attr, affine_map_value, dense_from_bytes, dense_raw_bytes, elements,
    float_value, integer_set_attr, integer_value, is_dense_elements, reshape_dense, string_value,
    symbol_ref_value,
};
pub use ops::{
    Select, clone_op, collect_ops, erase_op, has_uses, op_name, remove_attribute,
    replace_uses_of_with, set_attribute, set_discardable_attribute, string_attr,
};
pub use shim::register_raw;
pub(crate) use shim::{
    emit_error_with_notes, ocannl_tensor_parts, ocannl_tensor_type, register_dialect,
    reject_custom_syntax, relax_variadic_verifier,
};
pub use types::{
    bit_width, function_type, is_plain_memref, is_signless_integer, is_unsigned_integer,
    ranked_tensor_type, shaped_dims, shaped_element, signless,
};

/// The text of an MLIR string reference: `""` for an empty one (which MLIR
/// may represent with a null pointer), invalid UTF-8 replaced by U+FFFD.
pub fn str_of(s: StringRef<'_>) -> Cow<'_, str> {
    let raw = s.to_raw();
    if raw.length == 0 || raw.data.is_null() {
        return Cow::Borrowed("");
    }
    // SAFETY: a non-empty MLIR string reference points at `length` readable
    // bytes that live as long as the reference's owner ('_).
    let bytes = unsafe { std::slice::from_raw_parts(raw.data.cast::<u8>(), raw.length) };
    String::from_utf8_lossy(bytes)
}
