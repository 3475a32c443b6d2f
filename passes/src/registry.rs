//! The table of ocannl passes and their registration in MLIR's registry.

use std::sync::Once;

use melior::{dialect::DialectRegistry, pass::Pass};

use crate::{ffi, pass::PassDef};

/// Every ocannl pass.
pub static PASSES: &[PassDef] = &[
    crate::verify::PASS,
    crate::infer_shapes::PASS,
    crate::check_shapes::PASS,
    crate::infer_projections::PASS,
    crate::dead_ops::PASS,
    crate::plan_schedule::PASS,
    crate::lower_to_affine::PASS,
    crate::profile_ops::MARK_PASS,
    crate::profile_ops::PASS,
    crate::loop_hints::PASS,
];

/// Registers every ocannl pass and named pipeline in MLIR's global pass
/// registry (once per process; later calls do nothing).
pub fn register_all() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        ffi::pass::register_shim_passes();
        for p in crate::pipelines::PIPELINES {
            let options: Vec<String> = p.options.iter().map(|(n, d)| format!("{n}={d}")).collect();
            ffi::pass::register_pipeline(
                p.argument,
                p.description,
                p.passes,
                &options.join(";"),
                p.nvptx_target,
            );
        }
        for def in PASSES {
            ffi::pass::register_pass(def);
        }
    });
}

/// Registers every upstream dialect and extension in `registry`, and every
/// upstream pass in the global registry.
pub fn register_upstream(registry: &DialectRegistry) {
    ffi::pass::register_upstream(registry);
}

/// A new instance of the registered pass `argument` (after
/// [`register_all`]), for pass managers built from Rust.
pub fn create_pass(argument: &str) -> Option<Pass> {
    register_all();
    ffi::pass::create_registered_pass(argument)
}
