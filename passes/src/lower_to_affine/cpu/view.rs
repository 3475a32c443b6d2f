//! An op as the CPU emitters see it ([`Op`]: its projections, operands,
//! function, accumulation, epilogue and result buffer, and the panels
//! packed for the nest being emitted), a packed panel ([`Packed`]), and
//! the micro-kernel's [`Mode`]. [`super::kernel`] emits a plan for it, with
//! [`super::microkernel`] and [`super::pack`].

use melior::ir::{Location, Type, Value};
use ocannl_shape::projection::Projections;

use crate::{
    compute::{Accum, Compute},
    schedule::epilogue::Step,
};

/// What the micro-kernel needs besides the plan.
#[derive(Clone, Copy)]
pub(in crate::lower_to_affine) struct Op<'o, 'c, 'a> {
    pub p: &'o Projections,
    pub operands: &'o [Value<'c, 'a>],
    /// The operand the result starts from (`fma`'s addend): not read here.
    pub init: Option<usize>,
    pub compute: &'o Compute,
    /// How values reach the result: accumulated (`Some`) or stored.
    pub accum: Option<Accum>,
    /// Pointwise steps applied to each final value before it is stored
    /// (fused consumers, [`crate::lower_to_affine::fusion`]).
    pub epilogue: &'o [Step<'c, 'a>],
    pub buf: Value<'c, 'a>,
    pub loc: Location<'c>,
    /// The operand panels packed for this nest ([`super::pack`]): the one
    /// read along the vector iterator, the one read along the rows.
    pub packed: [Option<Packed<'c, 'a>>; 2],
    /// A constant operand read along the vector iterator, copied when
    /// compiling into micro-panels of the block's width ([`super::blocked`]).
    pub blocked: Option<Blocked<'c, 'a>>,
    /// The result was not filled before the nest: every cell is computed
    /// by one block of a [`Lanes::Result`](crate::schedule::plan::Lanes)
    /// plan, whose accumulators start from the neutral element (under a
    /// reduction tile, in its first tile) instead of from the result.
    pub fresh: bool,
}

/// The micro-kernel's mode: its element type and whether the lanes are on.
#[derive(Clone, Copy)]
pub(super) struct Mode<'c> {
    /// `vector<width x elem>` or `elem`.
    pub ty: Type<'c>,
    pub vector: bool,
}

impl<'c> Mode<'c> {
    /// The vector type when the lanes are on (for [`Emitter::load_as`](crate::lower_to_affine::emit::Emitter::load_as)).
    pub(super) fn lanes(self) -> Option<Type<'c>> {
        self.vector.then_some(self.ty)
    }
}

/// A packed panel: which operand, its buffer (`memref<nc/nr x kc x nr x
/// elem>`), and the tiles' first positions.
#[derive(Clone, Copy)]
pub(in crate::lower_to_affine) struct Packed<'c, 'a> {
    pub operand: usize,
    pub buf: Value<'c, 'a>,
    /// The block iterator the panel is cut along (the vector iterator for
    /// the operand read along it, the rows' iterator for the other).
    pub iter: usize,
    /// The micro-panels' width: the block's cells along `iter`.
    pub nr: u64,
    /// Whether the block's cells along `iter` are vectors of lanes: copied
    /// and read a vector at a time, else a cell at a time.
    pub lanes: bool,
    /// The reduction iterator and its tile's first position.
    pub k: usize,
    pub kt: Value<'c, 'a>,
    /// `iter`'s tile's first position.
    pub jt: Value<'c, 'a>,
    /// The micro-panel of the block being computed ([`Emitter::panel_block`](crate::lower_to_affine::emit::Emitter::panel_block)
    /// of its first cell, computed outside the reduction loops).
    pub block: Option<Value<'c, 'a>>,
}

/// A constant operand laid out in micro-panels when compiling
/// ([`super::blocked`]): the op's
/// operand `operand`, the `get_global` of the copy (`memref<nb x … x
/// nr>`), the micro-panels' width `nr`.
#[derive(Clone, Copy)]
pub(in crate::lower_to_affine) struct Blocked<'c, 'a> {
    pub operand: usize,
    pub buf: Value<'c, 'a>,
    pub nr: u64,
    /// The copy's order of the other axes ([`super::blocked`]).
    pub order: super::blocked::Order,
}
