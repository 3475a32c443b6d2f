//! GPU emission (schedules `grid` and `tiled`, from
//! `ocannl-plan-schedule{target=gpu}`): every loop nest of an op so
//! scheduled is a grid of threads, one result cell per thread (the grid
//! itself is built in `emit/loops.rs`); an op's nest as a grid with its
//! reductions in registers ([`grid`]); matrix products and convolutions as
//! tiled kernels in workgroup memory ([`tiled`]).
//!
//! Upstream maps the grids' two parallel loops to blocks and threads
//! (`gpu-map-parallel-loops`, `convert-parallel-loops-to-gpu`), outlines
//! the kernels and lowers them to NVVM (`ocannl-to-nvvm`,
//! [`crate::pipelines`]).

pub(super) mod grid;
pub(super) mod tiled;
