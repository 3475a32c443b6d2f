//! Operations through the C API: their names and string attributes read
//! safely, attributes set through an [`OperationRef`], nested ops
//! collected, ops erased and cloned.

use melior::{
    StringRef,
    ir::{
        Attribute, AttributeLike, Value, ValueLike,
        operation::{OperationLike, OperationRef},
    },
};

use super::{attributes::string_value, str_of};

/// The name of `op` (`func.func`, `ocannl.add`, ...).
pub fn op_name<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> String {
    str_of(op.name().as_string_ref()).into_owned()
}

/// The value of the string attribute `name` of `op`, if it has one.
pub fn string_attr<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, name: &str) -> Option<String> {
    op.attribute(name).ok().and_then(string_value)
}

/// Sets the attribute `name` of `op` (inherent or discardable, as MLIR
/// decides by the name).
pub fn set_attribute<'c>(op: OperationRef<'c, '_>, name: &str, attr: Attribute<'c>) {
    // SAFETY: live op and attribute of one context; the name is copied.
    unsafe {
        mlir_sys::mlirOperationSetAttributeByName(
            op.to_raw(),
            StringRef::new(name).to_raw(),
            attr.to_raw(),
        )
    }
}

/// Removes the attribute `name` of `op`; `true` when it had one.
pub fn remove_attribute(op: OperationRef<'_, '_>, name: &str) -> bool {
    // SAFETY: live op; the name is only read.
    unsafe {
        mlir_sys::mlirOperationRemoveAttributeByName(op.to_raw(), StringRef::new(name).to_raw())
    }
}

/// Sets the discardable attribute `name` of `op`.
pub fn set_discardable_attribute<'c>(op: OperationRef<'c, '_>, name: &str, attr: Attribute<'c>) {
    // SAFETY: live op and attribute of one context; the name is copied.
    unsafe {
        mlir_sys::mlirOperationSetDiscardableAttributeByName(
            op.to_raw(),
            StringRef::new(name).to_raw(),
            attr.to_raw(),
        )
    }
}

/// Every op nested in `root` (not `root` itself), pre-order, that `select`
/// keeps; `select` also says whether to look inside the op.
///
/// The refs stay valid as long as the ops are not erased: callers collect
/// before they rewrite.
pub fn collect_ops<'c, 'a>(
    root: OperationRef<'c, 'a>,
    mut select: impl FnMut(OperationRef<'_, '_>) -> Select,
) -> Vec<OperationRef<'c, 'a>> {
    let mut raws = Vec::new();
    let root_raw = root.to_raw();
    root.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if op.to_raw().ptr == root_raw.ptr {
            return melior::ir::operation::WalkResult::Advance;
        }
        let choice = select(op);
        if choice.keep {
            raws.push(op.to_raw());
        }
        if choice.descend {
            melior::ir::operation::WalkResult::Advance
        } else {
            melior::ir::operation::WalkResult::Skip
        }
    });
    // SAFETY: each raw op is nested in `root` and lives as long as root's
    // regions ('a); nothing was erased during the walk.
    raws.into_iter()
        .map(|raw| unsafe { OperationRef::from_raw(raw) })
        .collect()
}

/// What [`collect_ops`] does with an op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Select {
    /// Put it in the result.
    pub keep: bool,
    /// Visit the ops nested in it.
    pub descend: bool,
}

/// Erases `op` (and everything nested in it) from its block.
///
/// The caller must hold no other reference to `op` or its nested ops and
/// values afterwards (the same rule as melior's `OperationRef`s of erased
/// ops); every use of its results must be gone.
pub fn erase_op(op: OperationRef<'_, '_>) {
    // SAFETY: a live op; MLIR unlinks it from its block and frees it. Its
    // results have no uses left (caller's contract, checked by MLIR's
    // assertions in debug builds of MLIR).
    unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) }
}

/// Whether any op reads `value`.
pub fn has_uses(value: Value<'_, '_>) -> bool {
    // SAFETY: a live value; MLIR returns its first use (an op operand
    // handle, null when there is none), which is only tested for null and
    // not kept.
    unsafe { !mlir_sys::mlirOpOperandIsNull(mlir_sys::mlirValueGetFirstUse(value.to_raw())) }
}

/// Makes `user` read `with` wherever it read `of`.
pub fn replace_uses_of_with<'c, 'a>(
    user: OperationRef<'c, 'a>,
    of: Value<'c, 'a>,
    with: Value<'c, 'a>,
) {
    // SAFETY: a live op and two live values of the same context; MLIR
    // rewrites the op's operand list in place (no other reference to the
    // operands is held across the call).
    unsafe { mlir_sys::mlirOperationReplaceUsesOfWith(user.to_raw(), of.to_raw(), with.to_raw()) }
}

/// An owned copy of `op` (with its regions), detached from any block.
pub fn clone_op<'c>(op: OperationRef<'c, '_>) -> melior::ir::Operation<'c> {
    // SAFETY: a live op; `mlirOperationClone` returns a new, unlinked op
    // that the returned `Operation` owns (and destroys when dropped).
    unsafe { melior::ir::Operation::from_raw(mlir_sys::mlirOperationClone(op.to_raw())) }
}
