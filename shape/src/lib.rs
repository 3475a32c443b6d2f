//! `ocannl-shape`: the pure-Rust engine of ocannl-mlir (no MLIR dependency).
#![warn(missing_docs)]

pub mod check;
pub mod problem;
pub mod projection;
pub mod solver;
pub mod spec;
