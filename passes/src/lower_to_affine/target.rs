//! Where the op being emitted runs, as its schedule ([`Schedule`]) says:
//! on the CPU (its first loop parallel or not) or as GPU grids of so many
//! threads per block (its tiled kernel emulated on the CPU or not). The
//! emitters read it instead of pass options: the lowering has none.

use crate::schedule::Schedule;

/// The device facts the emitters need for one op.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Target {
    /// Each nest a grid of GPU threads ([`super::gpu`]), with this many
    /// threads per block; `None`: CPU loops.
    pub gpu_block: Option<u64>,
    /// The tiled kernel's steps as CPU loops instead of a `gpu.launch` (a
    /// check of their indices without a GPU).
    pub gpu_emulate: bool,
    /// The plan's first loop is an `affine.parallel` (a plain nest's
    /// outermost loop over distinct result cells, with `loops`).
    pub parallel: bool,
}

impl Target {
    /// The facts of an op with schedule `s`.
    pub(super) fn of(s: &Schedule) -> Self {
        match s {
            Schedule::Epilogue { .. } => Self::default(),
            Schedule::Loops { parallel } | Schedule::Cpu { parallel, .. } => Self {
                parallel: *parallel,
                ..Self::default()
            },
            Schedule::Grid { block } => Self {
                gpu_block: Some(*block),
                ..Self::default()
            },
            Schedule::Tiled { block, emulate } => Self {
                gpu_block: Some(*block),
                gpu_emulate: *emulate,
                parallel: false,
            },
        }
    }
}
