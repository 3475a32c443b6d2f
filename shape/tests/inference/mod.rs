//! Shape inference on small op graphs: `check(program, expected)`.
//!
//! A program is one op per line, `%name = logic(operands) : SPEC` or an
//! argument `%name : SPEC`; the expectation lists the solved spec of every
//! named tensor, or the error kind. Every solution `check` sees is also
//! confirmed op by op by the independent checker ([`ocannl_shape::check`]).
//!
//! * `cases`: hand-written cases;
//! * `props`: property tests on random op graphs (declarative, sound,
//!   complete on concrete graphs);
//! * `regressions`: minimal programs the property tests found;
//! * `limits`: sizes at and past `MAX_SIZE` (overflow errors, never a
//!   panic or a wrapped size) and rows of many axes (no false rank cycle),
//!   with a property test over sizes near the limits (`limits_props`).

mod cases;
pub mod harness;
mod limits;
mod limits_props;
mod props;
mod regressions;
