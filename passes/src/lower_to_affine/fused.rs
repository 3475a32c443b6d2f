//! Fusion groups as data: a producer and the pointwise ops folded into it
//! ([`Chain`]), and the epilogue its nest applies to each final value
//! before storing it ([`Step`], [`Other`]). [`super::fusion`] finds the
//! groups; the body gives their values buffers, and the emitters apply the
//! epilogues.

use melior::ir::{Value, operation::OperationRef};
use ocannl_shape::projection::AxisIndex;

use super::compute::Compute;

/// One fused consumer: its function and, for a binary op, its other
/// operand.
#[derive(Clone)]
pub(super) struct Step<'c, 'a> {
    pub f: Compute,
    pub other: Option<Other<'c, 'a>>,
}

/// The other operand of a fused binary op.
#[derive(Clone)]
pub(super) struct Other<'c, 'a> {
    /// The operand: the old SSA value in a [`Chain`], its buffer once the
    /// function's values have buffers.
    pub value: Value<'c, 'a>,
    /// Its indices over the fused value's axes (`Iter(j)` is axis `j`).
    pub indices: Vec<AxisIndex>,
    /// It is the op's first operand (`sub(b, x)`).
    pub first: bool,
    /// It reads the fused value's contiguous axis (on its own contiguous
    /// axis): vector lanes along that axis load a vector of it.
    pub along: bool,
}

/// A producer and the pointwise ops folded into it.
pub(super) struct Chain<'c, 'a> {
    pub producer: OperationRef<'c, 'a>,
    /// The folded ops' functions, in order.
    pub epilogue: Vec<Step<'c, 'a>>,
    /// The chain's last value: what the producer's nest now computes.
    pub last: Value<'c, 'a>,
    /// The values in between (the producer's result included): no buffer.
    pub hidden: Vec<Value<'c, 'a>>,
    pub folded: Vec<OperationRef<'c, 'a>>,
}
