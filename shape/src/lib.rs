//! `ocannl-shape`: the pure-Rust engine of ocannl-mlir (no MLIR dependency).
//!
//! Sizes are bounded by [`MAX_SIZE`] (`i64::MAX`, MLIR's dimension type)
//! throughout: the parser, the solver, projection inference and the checker
//! report a size past it as an error, never a wrapped or saturated value.
#![warn(missing_docs)]

pub mod check;
pub mod logic;
pub mod problem;
pub mod projection;
pub mod solver;
pub mod spec;

pub use spec::MAX_SIZE;
