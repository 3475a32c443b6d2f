//! Shape inference on small op graphs: `check(program, expected)`.
//!
//! A program is one op per line, `%name = logic(operands) : SPEC` or an
//! argument `%name : SPEC`; the expectation lists the solved spec of every
//! named tensor, or the error kind.

mod cases;
pub mod harness;
