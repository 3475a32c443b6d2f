//! The table of ocannl passes and their registration in MLIR's registry.

use std::{
    collections::HashMap,
    ffi::{CStr, CString, c_void},
    panic::{AssertUnwindSafe, catch_unwind},
    sync::Once,
};

use melior::{
    StringRef,
    dialect::DialectRegistry,
    ir::operation::{OperationLike, OperationRef},
    pass::Pass,
};
use mlir_sys::{MlirOperation, MlirStringRef};

use crate::ffi;

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

/// The body of a pass.
pub type RunPass = fn(OperationRef<'_, '_>, &PassOptions) -> Result<(), PassFailed>;

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
    root.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if let Err(message) = check(op) {
            ocannl_dialect::diagnostics::emit_error(op.location(), &message, &[]);
            failed = true;
        }
        melior::ir::operation::WalkResult::Advance
    });
    if failed { Err(PassFailed) } else { Ok(()) }
}

/// Every ocannl pass.
pub static PASSES: &[PassDef] = &[
    crate::verify::PASS,
    crate::infer_shapes::PASS,
    crate::check_shapes::PASS,
    crate::infer_projections::PASS,
    crate::lower_to_affine::PASS,
];

unsafe extern "C" fn trampoline(
    op: MlirOperation,
    values: *const MlirStringRef,
    num_values: isize,
    user_data: *const c_void,
) -> bool {
    // SAFETY: `user_data` is the `&'static PassDef` given at registration.
    let def = unsafe { &*(user_data as *const PassDef) };
    let raw_values = if values.is_null() || num_values <= 0 {
        &[][..]
    } else {
        // SAFETY: the shim passes `num_values` valid string refs.
        unsafe { std::slice::from_raw_parts(values, num_values as usize) }
    };
    let mut options = PassOptions::default();
    for (opt, value) in def.options.iter().zip(raw_values) {
        // SAFETY: each ref points at a live std::string for this call.
        let value = unsafe { StringRef::from_raw(*value) }
            .as_str()
            .unwrap_or_default()
            .to_owned();
        options
            .values
            .insert(opt.name.to_string_lossy().into_owned(), value);
    }
    // SAFETY: `op` is the live operation the pass runs on.
    let op = unsafe { OperationRef::from_raw(op) };
    // A panic must never unwind into C++: turn it into a located error.
    match catch_unwind(AssertUnwindSafe(|| (def.run)(op, &options))) {
        Ok(Ok(())) => true,
        Ok(Err(PassFailed)) => false,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            ocannl_dialect::diagnostics::emit_error(
                op.location(),
                &format!("internal error in pass '{}': {what}", def.name()),
                &[],
            );
            false
        }
    }
}

/// Registers every ocannl pass in MLIR's global pass registry (once per
/// process; later calls do nothing).
pub fn register_all() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for p in crate::pipelines::PIPELINES {
            let c = |s: &str| CString::new(s).expect("pipeline strings have no NUL");
            let (argument, description, passes) = (c(p.argument), c(p.description), c(p.passes));
            // SAFETY: NUL-terminated strings alive for the call; the shim
            // copies them.
            unsafe {
                ffi::ocannlRegisterPipeline(
                    argument.as_ptr(),
                    description.as_ptr(),
                    passes.as_ptr(),
                )
            };
        }
        for def in PASSES {
            let options: Vec<ffi::OptionDefRaw> = def
                .options
                .iter()
                .map(|o| ffi::OptionDefRaw {
                    name: o.name.as_ptr(),
                    description: o.description.as_ptr(),
                    is_bool: o.kind == OptionKind::Bool,
                    default_value: o.default.as_ptr(),
                })
                .collect();
            // SAFETY: all strings are 'static and NUL-terminated; the shim
            // copies them; `def` lives for the whole process.
            unsafe {
                ffi::ocannlRegisterPass(
                    def.argument.as_ptr(),
                    def.description.as_ptr(),
                    def.anchor.map_or(std::ptr::null(), CStr::as_ptr),
                    options.as_ptr(),
                    options.len() as isize,
                    trampoline,
                    def as *const PassDef as *const c_void,
                );
            }
        }
    });
}

/// Registers every upstream dialect and extension in `registry`, and every
/// upstream pass in the global registry.
pub fn register_upstream(registry: &DialectRegistry) {
    // SAFETY: `registry` is a live registry.
    unsafe { ffi::ocannlRegisterAllUpstream(registry.to_raw()) }
}

/// A new instance of the registered pass `argument` (after
/// [`register_all`]), for pass managers built from Rust.
pub fn create_pass(argument: &str) -> Option<Pass> {
    register_all();
    let argument = CString::new(argument).ok()?;
    // SAFETY: the shim returns null for unknown names.
    let raw = unsafe { ffi::ocannlCreateRegisteredPass(argument.as_ptr()) };
    (!raw.ptr.is_null()).then(|| unsafe { Pass::from_raw(raw) })
}
