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
    pub order: Order,
}

/// How the copy orders an operand's cells: `order` the operand's axes
/// other than the last, outermost first, the tiled one (`tile`: its axis
/// and tile size) split into its tile number (before the micro-panel
/// number) and its place in the tile (at its place in `order`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::lower_to_affine) struct Order {
    axes: [u8; MAX_AXES],
    len: u8,
    pub tile: Option<(usize, u64)>,
}

/// The most axes a blocked operand has besides its last.
const MAX_AXES: usize = 8;

impl Order {
    /// `order` (axis numbers, fewer than [`MAX_AXES`] + 1) and `tile`.
    pub fn new(order: &[usize], tile: Option<(usize, u64)>) -> Option<Self> {
        if order.len() > MAX_AXES {
            return None;
        }
        let mut axes = [0u8; MAX_AXES];
        for (slot, &a) in axes.iter_mut().zip(order) {
            *slot = u8::try_from(a).ok()?;
        }
        Some(Self {
            axes,
            len: order.len() as u8,
            tile,
        })
    }

    /// The axes other than the last, outermost first.
    pub fn order(&self) -> impl Iterator<Item = usize> + '_ {
        self.axes[..self.len as usize].iter().map(|&a| a as usize)
    }

    /// The copy's dims for an operand of memory dims `dims`: `[tiles] ++
    /// [nb] ++ dims in order (the tiled one a tile) ++ [nr]`.
    pub fn shape(&self, dims: &[u64], nr: u64) -> Option<Vec<u64>> {
        let (&last, _) = dims.split_last()?;
        let mut shape = Vec::with_capacity(dims.len() + 2);
        if let Some((a, t)) = self.tile {
            shape.push(dims.get(a)?.div_ceil(t));
        }
        shape.push(last.div_ceil(nr));
        for a in self.order() {
            shape.push(match self.tile {
                Some((ta, t)) if ta == a => t,
                _ => *dims.get(a)?,
            });
        }
        shape.push(nr);
        Some(shape)
    }
}
