//! One op as a grid of GPU threads over its result's cells
//! ([`Emitter::grid`]), one cell per thread: the op's reductions run inside
//! its thread as `affine.for` loops carrying the accumulator (`iter_args`,
//! a register), then the epilogue, with one store per cell. A pointwise op
//! takes [`CELLS_PER_THREAD`] cells per thread where they divide the grid,
//! all loaded before any is stored.

use melior::{
    dialect::ods,
    ir::{Location, Value},
};
use ocannl_shape::projection::{AxisIndex, Projections};

use crate::lower_to_affine::emit::{At, Cell, Emitter};
use crate::{
    buffers::{Scalar, element_of, scalar},
    compute::{Accum, BinaryFn, Compute},
    schedule::epilogue::Step,
};

/// What one op's GPU nest computes.
pub(in crate::lower_to_affine) struct GpuOp<'o, 'c, 'a> {
    pub p: &'o Projections,
    pub operands: &'o [Value<'c, 'a>],
    /// The operand the result starts from (already copied in): not read.
    pub init: Option<usize>,
    pub compute: &'o Compute,
    /// How values reach the result: accumulated into it, or stored.
    pub accum: Option<Accum>,
    /// The neutral element of the op's accumulation (padding reads).
    pub neutral: Accum,
    /// Every cell has its thread and the result starts empty: the
    /// accumulator starts at the neutral element (the result was not
    /// filled).
    pub fresh: bool,
    pub epilogue: &'o [Step<'c, 'a>],
    pub buf: Value<'c, 'a>,
    pub loc: Location<'c>,
}

impl<'c> Emitter<'c> {
    /// One op as a grid over its result's iterators, the reductions
    /// inside each thread with the accumulator in a register; the result
    /// already holds the neutral element or the initial operand where
    /// `op.accum` accumulates.
    pub(in crate::lower_to_affine) fn lower_gpu<'a>(
        &self,
        at: At<'c, 'a>,
        op: &GpuOp<'_, 'c, 'a>,
        block: u64,
    ) -> Result<(), String> {
        let loc = op.loc;
        let p = op.p;
        let space = &p.product_space;
        let elem = element_of(op.buf);
        let cells = result_iterators(p)?;
        let sizes: Vec<u64> = cells.iter().map(|&i| space[i]).collect();
        let n = space.len();
        let reductions: Vec<usize> = (0..n)
            .filter(|r| !cells.contains(r) && space[*r] != 1)
            .collect();
        let per_thread = if op.accum.is_none() && reductions.is_empty() {
            CELLS_PER_THREAD
        } else {
            1
        };
        let (body, mut grid) = self.grid_cells(at, &sizes, block, per_thread, loc);
        if grid.len() > 1 {
            return self.pointwise_cells(op, &cells, (body, grid));
        }
        let zero = self.index_constant(body, 0, loc);
        let mut ivs = cell_ivs(zero, n, &cells, grid.swap_remove(0));
        let result_map = self.map(n, &p.result);
        let start = op.accum.map(|a| {
            if op.fresh {
                self.constant(body, self.scalar_attr(elem, a.neutral()), loc)
            } else {
                self.load(body, op.buf, result_map, &ivs, loc)
            }
        });
        // The cell's position (the reductions' ivs exist inside their loops
        // only).
        let cell_ivs = ivs.clone();
        // The reductions, each an `affine.for` carrying the accumulator
        // (one of extent 0 never runs: the cell keeps the start).
        let mut loops = vec![];
        let mut inner = body;
        let mut acc = start;
        for r in reductions {
            let inits: Vec<Value<'c, 'a>> = acc.into_iter().collect();
            let l = self.for_loop(inner, self.range(0, space[r]), 1, &inits, false, loc);
            ivs[r] = l.iv;
            acc = l.args.first().copied();
            inner = l.body;
            loops.push(l);
        }
        let args = self.operand_loads(inner, op, &ivs);
        let mut value = self.compute(inner, op.compute, elem, &args, loc)?;
        if let (Some(a), Some(old)) = (op.accum, acc) {
            let float = scalar(elem) == Ok(Scalar::Float);
            value = if float
                && *op.compute == Compute::Binary(BinaryFn::Mul)
                && a.function() == BinaryFn::Add
            {
                self.put_value(inner, ods::math::fma(self.ctx, args[0], args[1], old, loc))
            } else {
                self.binary(inner, a.function(), elem, old, value, loc)?
            };
        }
        // Close the reductions from the inside out.
        for l in loops.iter().rev() {
            self.affine_yield(l.body, &[value], loc);
            value = l.results[0];
        }
        let cell = Cell {
            indices: &p.result,
            space,
            ivs: &cell_ivs,
        };
        let value = self.epilogue(body, op.epilogue, cell, value, elem, loc)?;
        self.store(body, value, op.buf, result_map, &cell_ivs, loc);
        Ok(())
    }

    /// A pointwise op (no reduction, nothing accumulated) with several
    /// cells per thread (`grid`: the body and each cell's positions of the
    /// iterators `cells`): every cell's operands loaded and its value
    /// computed (with the epilogue) before the first store, so that the
    /// loads of all of them are in flight together; stores may alias the
    /// operands' buffers, which keeps a compiler from moving a load past
    /// them.
    fn pointwise_cells<'a>(
        &self,
        op: &GpuOp<'_, 'c, 'a>,
        cells: &[usize],
        (body, grid): (At<'c, 'a>, Vec<Vec<Value<'c, 'a>>>),
    ) -> Result<(), String> {
        let (p, loc) = (op.p, op.loc);
        let space = &p.product_space;
        let elem = element_of(op.buf);
        let result_map = self.map(space.len(), &p.result);
        let zero = self.index_constant(body, 0, loc);
        let mut values = vec![];
        for positions in grid {
            let ivs = cell_ivs(zero, space.len(), cells, positions);
            let args = self.operand_loads(body, op, &ivs);
            let value = self.compute(body, op.compute, elem, &args, loc)?;
            let cell = Cell {
                indices: &p.result,
                space,
                ivs: &ivs,
            };
            let value = self.epilogue(body, op.epilogue, cell, value, elem, loc)?;
            values.push((value, ivs));
        }
        for (value, ivs) in values {
            self.store(body, value, op.buf, result_map, &ivs, loc);
        }
        Ok(())
    }
}

impl<'c> Emitter<'c> {
    /// The op's operands (all but the one the result starts from) loaded
    /// at `ivs`, reads outside an operand giving the neutral element of
    /// the op's accumulation.
    fn operand_loads<'a>(
        &self,
        at: At<'c, 'a>,
        op: &GpuOp<'_, 'c, 'a>,
        ivs: &[Value<'c, 'a>],
    ) -> Vec<Value<'c, 'a>> {
        let p = op.p;
        op.operands
            .iter()
            .enumerate()
            .filter(|&(k, _)| Some(k) != op.init)
            .map(|(k, o)| {
                let pad = self.scalar_attr(element_of(*o), op.neutral.neutral());
                let cell = Cell {
                    indices: &p.operands[k],
                    space: &p.product_space,
                    ivs,
                };
                self.operand_load(at, *o, cell, pad, None, op.loc)
            })
            .collect()
    }
}

/// The position of every iterator of a product space of `n`: `positions`
/// for the result's iterators `cells`, `zero` for the others.
fn cell_ivs<'c, 'a>(
    zero: Value<'c, 'a>,
    n: usize,
    cells: &[usize],
    positions: Vec<Value<'c, 'a>>,
) -> Vec<Value<'c, 'a>> {
    let mut ivs = vec![zero; n];
    for (&i, v) in cells.iter().zip(positions) {
        ivs[i] = v;
    }
    ivs
}

/// The result's iterators, in its axis order (the last fastest).
fn result_iterators(p: &Projections) -> Result<Vec<usize>, String> {
    let mut cells: Vec<usize> = vec![];
    for a in &p.result {
        match a {
            AxisIndex::Iter(i) if !cells.contains(i) => cells.push(*i),
            AxisIndex::Iter(_) | AxisIndex::Fixed(_) => {}
            _ => return Err("strided or convolution indices of the result are not lowered".into()),
        }
    }
    Ok(cells)
}

/// Cells per thread of a pointwise grid (where they divide it evenly):
/// four loads in flight per operand and thread instead of one. An
/// elementwise chain over 4096 × 8192 `f32` on an H200 moved 67% of the
/// copy bandwidth with one cell per thread.
const CELLS_PER_THREAD: u64 = 4;
