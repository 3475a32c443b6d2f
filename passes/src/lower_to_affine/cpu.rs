//! CPU emission of a [`Plan`](crate::schedule::plan::Plan): for every combination
//! of the block's main and remainder segments, the outer, tile and point
//! loops ([`kernel`]); the register block, its accumulators carried
//! through the reduction loops ([`microkernel`]); operand panels packed
//! for the caches per call ([`pack`]), or constant ones laid out in
//! micro-panels when compiling ([`blocked`]); several vectors of partial sums reduced at
//! once ([`lanes`]). They read the op through its view ([`view`]) and obey
//! the op's schedule ([`crate::schedule`]); their loop and vector builders are
//! `emit/loops.rs`.

mod blocked;
mod kernel;
mod lanes;
mod microkernel;
mod pack;
pub(super) mod view;
