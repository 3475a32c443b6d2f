//! `ocannl-passes`: the ocannl passes and their registration in MLIR.
//!
//! Passes are written in Rust against melior's IR API and registered in
//! MLIR's *global* pass registry through a small C++ shim
//! (`cpp/rust_pass.cpp`), so they are named in pipelines like upstream
//! passes (`-p 'builtin.module(ocannl-verify,canonicalize)'`), listed by
//! `--help`, and take MLIR pass options.
//!
//! | pass | what it does |
//! |---|---|
//! | `ocannl-verify` | every spec string parses; every ocannl op has the operands and attributes its shape logic needs; pointwise ops on builtin tensors follow MLIR's `Broadcastable` trait ([`broadcast`]) |
//! | `ocannl-infer-shapes` | OCANNL's shape inference per function ([`infer_shapes`]) |
//! | `ocannl-check-shapes` | the independent checker on fully known types ([`check_shapes`]) |
//! | `ocannl-infer-projections` | each op's loop nest as affine-map attributes ([`infer_projections`]) |
//! | `ocannl-plan-schedule` | each op's schedule as an attribute ([`plan_schedule`]) |
//! | `ocannl-lower-to-affine` | memrefs and affine loop nests, as the schedules say ([`lower_to_affine`]) |
//! | `ocannl-profile-mark`, `ocannl-profile-ops` | each op's nests timed at run time ([`profile_ops`]) |
//! | `ocannl-loop-hints` | `scf.for` loops marked not to be unrolled again by LLVM ([`loop_hints`]) |
//!
//! Named pipelines ([`pipelines`]): `ocannl-to-affine`, `ocannl-to-llvm`.
//!
//! Architecture invariant: passes translate IR to `ocannl-shape` values and
//! back; they never re-implement the spec grammar or the solver.
#![warn(missing_docs)]

pub mod broadcast;
mod buffers;
pub mod check_shapes;
mod compute;
pub mod dead_ops;
pub mod driver;
mod ffi;
pub mod infer_projections;
pub mod infer_shapes;
mod layout;
pub mod loop_hints;
pub mod lower_to_affine;
mod op_logic;
pub mod pass;
pub mod pipelines;
pub mod plan_schedule;
pub mod profile_ops;
mod projection_attrs;
pub mod registry;
mod schedule;
pub mod tensor_types;
pub mod verify;

pub use ffi::source;
pub use pass::PassDef;
pub use registry::{PASSES, register_all};
