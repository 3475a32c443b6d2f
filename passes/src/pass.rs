//! The pass machinery every ocannl pass is written against: its registry
//! entry ([`PassDef`]), its options ([`PassOptions`]), and its failure
//! ([`PassFailed`]). Registration in MLIR is [`crate::registry`]; the C++
//! side of a pass run is the FFI layer (`ffi/pass.rs`).

use std::{collections::HashMap, ffi::CStr};

use melior::{
    Context,
    ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult},
};

/// The kind of a pass option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    /// `name=true|false`.
    Bool,
    /// `name=text`.
    String,
}

/// One option of a pass, e.g. `close` of `ocannl-infer-shapes`.
#[derive(Debug)]
pub struct PassOptionDef {
    /// The option name as written in a pipeline.
    pub name: &'static CStr,
    /// One line for `--help`.
    pub description: &'static CStr,
    /// Bool or string.
    pub kind: OptionKind,
    /// The default value (`true`/`false` for bools).
    pub default: &'static CStr,
}

/// The option values a pass run sees.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PassOptions {
    values: HashMap<String, String>,
}

impl PassOptions {
    /// Options with these values (name → value text).
    pub fn from_values(values: impl IntoIterator<Item = (String, String)>) -> Self {
        Self {
            values: values.into_iter().collect(),
        }
    }

    /// The value of the bool option `name` (false when absent).
    pub fn get_bool(&self, name: &str) -> bool {
        self.values.get(name).is_some_and(|v| v == "true")
    }

    /// The value of the string option `name`.
    pub fn get_str(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }
}

/// The pass failed; its diagnostics have been emitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassFailed;

/// The body of a pass: the context (valid for the whole run), the op the
/// pass runs on, and its options.
pub type RunPass =
    for<'c, 'a> fn(&'c Context, OperationRef<'c, 'a>, &PassOptions) -> Result<(), PassFailed>;

/// A pass: its registry entry and its body.
#[derive(Debug)]
pub struct PassDef {
    /// The pipeline name, e.g. `ocannl-verify`.
    pub argument: &'static CStr,
    /// One line for `--help`.
    pub description: &'static CStr,
    /// The op the pass anchors on (e.g. `builtin.module`); `None` for any op.
    pub anchor: Option<&'static CStr>,
    /// The options.
    pub options: &'static [PassOptionDef],
    /// The body.
    pub run: RunPass,
}

impl PassDef {
    /// The pass argument as a `&str`.
    pub fn name(&self) -> &'static str {
        self.argument.to_str().expect("pass arguments are ASCII")
    }
}

/// Runs `check` on every op under `root` (pre-order), emitting each error
/// at its op; fails the pass if any op had one.
pub(crate) fn check_each_op(
    root: OperationRef<'_, '_>,
    mut check: impl FnMut(OperationRef<'_, '_>) -> Result<(), String>,
) -> Result<(), PassFailed> {
    let mut failed = false;
    root.walk(WalkOrder::PreOrder, |op| {
        if let Err(message) = check(op) {
            ocannl_dialect::diagnostics::emit_error(op.location(), &message, &[]);
            failed = true;
        }
        WalkResult::Advance
    });
    if failed { Err(PassFailed) } else { Ok(()) }
}
