//! The micro-kernel of a [`Plan`]: the register block at one point of the
//! block iterators ([`Kernel`]), its accumulators carried through the
//! reduction loops (`iter_args`), each step's loads (vector, or scalar
//! broadcast) and combines, the epilogue and the stores.

use std::collections::HashMap;

use melior::{
    dialect::ods,
    ir::{AffineExpr, Attribute, Location, Type, Value, ValueLike},
};
use ocannl_dialect::{catalog::Accumulator, ir};

use super::view::{Mode, Op};
use crate::lower_to_affine::emit::{At, Cell, Emitter, first_block, loops::Bound};
use crate::{
    buffers::{buffer_dims, element_of},
    compute::{Accum, BinaryFn, Compute},
    schedule::memory::reads_along,
    schedule::plan::{Lanes, MAX_UNROLLED_TAPS, Plan, Segment},
};

/// A cell of the register block: an offset per block iterator.
type Offsets = Vec<(usize, i64)>;

/// Each block iterator's position per offset.
type Shifted<'c, 'a> = HashMap<(usize, i64), Value<'c, 'a>>;

/// The reduction tile around the block (its iterator, size and first
/// position), when the plan tiles the reduction.
type KTile<'c, 'a> = Option<(usize, u64, Value<'c, 'a>)>;

/// The register block at one point of the block iterators: what each step
/// of the micro-kernel reads.
struct Kernel<'k, 'o, 'c, 'a> {
    plan: &'k Plan,
    /// The op, with the micro-panels of this block in its packed panels.
    op: Op<'o, 'c, 'a>,
    combo: &'k [Segment],
    /// The block's cells, and each block iterator's position per offset
    /// (computed once, outside the reduction loops).
    cells: Vec<Offsets>,
    shifted: Shifted<'c, 'a>,
    /// Each cell's position outside the reduction loops (where its result
    /// is loaded and stored).
    cell_ivs: Vec<Vec<Value<'c, 'a>>>,
    /// The map of the result's cell.
    result_map: Attribute<'c>,
    /// The whole vectors' mode (lanes on or off).
    mode: Mode<'c>,
    k_tile: KTile<'c, 'a>,
}

/// The cells of the register block of `combo`'s segments, in order (the
/// last block iterator fastest).
fn block_cells(plan: &Plan, combo: &[Segment]) -> Vec<Offsets> {
    let mut cells: Vec<Offsets> = vec![vec![]];
    for (u, s) in plan.unrolled.iter().zip(combo) {
        let unit = if s.vector { plan.width } else { 1 };
        cells = cells
            .into_iter()
            .flat_map(|c| {
                (0..s.factor).map(move |f| {
                    let mut c = c.clone();
                    c.push((u.iter, (f * unit) as i64));
                    c
                })
            })
            .collect();
    }
    cells
}

impl<'c> Emitter<'c> {
    /// The register block at the point `ivs` (block iterators at their
    /// base), with the reductions inside.
    pub(super) fn micro_kernel<'a>(
        &self,
        at: At<'c, 'a>,
        plan: &Plan,
        op: &Op<'_, 'c, 'a>,
        combo: &[Segment],
        ivs: Vec<Value<'c, 'a>>,
        k_tile: KTile<'c, 'a>,
    ) -> Result<(), String> {
        let loc = op.loc;
        let elem = element_of(op.buf);
        let lanes_on = match plan.lanes {
            Lanes::Result => combo.iter().any(|s| s.vector),
            Lanes::Reduction => true,
        };
        let mode = Mode {
            ty: if lanes_on {
                self.vector_type(elem, plan.width)
            } else {
                elem
            },
            vector: lanes_on,
        };
        let cells = block_cells(plan, combo);
        let (shifted, cell_ivs) = self.shift_cells(at, &ivs, &cells, loc);
        // The packed panels' micro-panels of this block.
        let mut op = *op;
        for packed in op.packed.iter_mut().flatten() {
            packed.block = Some(self.panel_block(at, *packed, ivs[packed.iter], loc));
        }
        let k = Kernel {
            plan,
            op,
            combo,
            cells,
            shifted,
            cell_ivs,
            result_map: self.map(op.p.product_space.len(), &op.p.result),
            mode,
            k_tile,
        };
        let accs = self.start_accumulators(at, &k)?;
        let values = self.reductions(at, &k, ivs, accs)?;
        self.store_block(at, &k, &values)
    }

    /// Each block iterator's position per offset of `cells` at `at`
    /// (computed once per position), and each cell's position.
    fn shift_cells<'a>(
        &self,
        at: At<'c, 'a>,
        ivs: &[Value<'c, 'a>],
        cells: &[Offsets],
        loc: Location<'c>,
    ) -> (Shifted<'c, 'a>, Vec<Vec<Value<'c, 'a>>>) {
        let mut shifted = HashMap::new();
        let cell_ivs = cells
            .iter()
            .map(|c| {
                let mut v = ivs.to_vec();
                for &(i, off) in c {
                    v[i] = *shifted
                        .entry((i, off))
                        .or_insert_with(|| self.offset(at, ivs[i], off, loc));
                }
                v
            })
            .collect();
        (shifted, cell_ivs)
    }

    /// The accumulators before the reductions: the result cells
    /// ([`Lanes::Result`]) or the neutral element in every lane
    /// ([`Lanes::Reduction`]); none where the op stores its values.
    fn start_accumulators<'a>(
        &self,
        at: At<'c, 'a>,
        k: &Kernel<'_, '_, 'c, 'a>,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let op = &k.op;
        let load = |at: At<'c, 'a>| -> Vec<Value<'c, 'a>> {
            k.cell_ivs
                .iter()
                .map(|v| self.load_as(at, op.buf, k.result_map, v, k.mode.lanes(), op.loc))
                .collect()
        };
        Ok(match (k.plan.lanes, op.accum) {
            (Lanes::Result, Some(a)) if op.fresh => {
                let neutral = self.constant(at, self.scalar_attr(k.mode.ty, a.neutral()), op.loc);
                let fresh = vec![neutral; k.cells.len()];
                let Some((_, _, t)) = k.k_tile else {
                    return Ok(fresh);
                };
                // Past the first reduction tile: the sums so far.
                let later = AffineExpr::dim(self.ctx, 0) + AffineExpr::constant(self.ctx, -1);
                let condition =
                    ir::integer_set_attr(self.ctx, 1, &[later]).expect("one constraint");
                let types = vec![k.mode.ty; k.cells.len()];
                let if_op = self.affine_if(at, condition, &[t], &types, true, op.loc);
                let [then, other] = [0, 1].map(|i| At::end(first_block(if_op, i)));
                let sums = load(then);
                self.affine_yield(then, &sums, op.loc);
                self.affine_yield(other, &fresh, op.loc);
                (0..k.cells.len())
                    .map(|i| if_op.result(i).expect("a result").into())
                    .collect()
            }
            (Lanes::Result, Some(_)) => load(at),
            (Lanes::Result, None) => vec![],
            (Lanes::Reduction, a) => {
                let a = a.ok_or("a reduction without an accumulation operator")?;
                let neutral = self.constant(at, self.scalar_attr(k.mode.ty, a.neutral()), op.loc);
                vec![neutral; k.cells.len()]
            }
        })
    }

    /// The reduction loops at `at`, outermost first, carrying the
    /// accumulators `accs`, with the block's steps inside: the
    /// accumulators' final values, in cell order (none where the op stores
    /// its values).
    fn reductions<'a>(
        &self,
        at: At<'c, 'a>,
        k: &Kernel<'_, '_, 'c, 'a>,
        mut ivs: Vec<Value<'c, 'a>>,
        mut accs: Vec<Value<'c, 'a>>,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let (plan, space, loc) = (k.plan, &k.op.p.product_space, k.op.loc);
        let mut enclosing = vec![];
        let mut inner = at;
        let lane_iter = |r: usize| plan.lanes == Lanes::Reduction && r == plan.vector;
        let looped: Vec<usize> = plan
            .reductions
            .iter()
            .copied()
            .filter(|&r| !lane_iter(r) && space[r] > 1)
            .collect();
        // The innermost reduction, when it is a few taps (a 3×3
        // convolution's kernel column) and not the one tiled for the
        // caches, is unrolled here: the block's steps one after the other
        // (LLVM does not unroll the lowering's loops: `crate::loop_hints`).
        let unrolled = looped
            .last()
            .copied()
            .filter(|&r| space[r] <= MAX_UNROLLED_TAPS && k.k_tile.is_none_or(|(kt, ..)| kt != r))
            .filter(|_| plan.lanes == Lanes::Result);
        for &r in looped.iter().filter(|&&r| Some(r) != unrolled) {
            let range = match k.k_tile {
                Some((kt, kc, t)) if kt == r => self.tile(t, kc, space[r]),
                _ => self.range(0, space[r]),
            };
            let l = self.for_loop(inner, range, 1, &accs, false, loc);
            ivs[r] = l.iv;
            accs.clone_from(&l.args);
            inner = l.body;
            enclosing.push(l);
        }
        let mut values = if plan.lanes == Lanes::Reduction {
            self.lane_loops(inner, k, &mut ivs, accs)?
        } else if let Some(r) = unrolled {
            for tap in 0..space[r] {
                ivs[r] = self.index_constant(inner, tap as i64, loc);
                accs = self.block_step(inner, k, &ivs, &accs, k.mode)?;
            }
            accs
        } else {
            self.block_step(inner, k, &ivs, &accs, k.mode)?
        };
        // Close the reduction loops from the inside out.
        for l in enclosing.iter().rev() {
            self.affine_yield(l.body, &values, loc);
            values.clone_from(&l.results);
        }
        Ok(values)
    }

    /// [`Lanes::Reduction`]'s vector iterator at `inner`, carrying `accs`:
    /// whole vectors, then a scalar tail into lane 0; the accumulators
    /// after both.
    fn lane_loops<'a>(
        &self,
        inner: At<'c, 'a>,
        k: &Kernel<'_, '_, 'c, 'a>,
        ivs: &mut [Value<'c, 'a>],
        accs: Vec<Value<'c, 'a>>,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let (plan, space, loc) = (k.plan, &k.op.p.product_space, k.op.loc);
        let r = plan.vector;
        let main = space[r] / plan.width * plan.width;
        // Within a reduction tile when tiled: [kt, min(kt + kc, main)),
        // then the tail [max(kt, main), min(kt + kc, extent)).
        let tile = k.k_tile.filter(|(kt, _, _)| *kt == r);
        let range = match tile {
            Some((_, kc, t)) => self.tile(t, kc, main),
            None => self.range(0, main),
        };
        let l = self.for_loop(inner, range, plan.width, &accs, false, loc);
        ivs[r] = l.iv;
        let next = self.block_step(l.body, k, ivs, &l.args, k.mode)?;
        self.affine_yield(l.body, &next, loc);
        if main == space[r] {
            return Ok(l.results);
        }
        let range = match tile {
            Some((_, kc, t)) => (
                Bound::from(self, t, 0, Some(main as i64)),
                Bound::from(self, t, kc as i64, Some(space[r] as i64)),
            ),
            None => self.range(main, space[r]),
        };
        let t = self.for_loop(inner, range, 1, &l.results, false, loc);
        ivs[r] = t.iv;
        let scalar = Mode {
            ty: element_of(k.op.buf),
            vector: false,
        };
        let next = self.block_step(t.body, k, ivs, &t.args, scalar)?;
        self.affine_yield(t.body, &next, loc);
        Ok(t.results)
    }

    /// Stores the block's final values `values` (in cell order, one per
    /// accumulator): each into its cell ([`Lanes::Result`]); or each
    /// vector of partial results reduced, combined with its cell and
    /// stored ([`Lanes::Reduction`]).
    fn store_block<'a>(
        &self,
        at: At<'c, 'a>,
        k: &Kernel<'_, '_, 'c, 'a>,
        values: &[Value<'c, 'a>],
    ) -> Result<(), String> {
        let (op, plan) = (&k.op, k.plan);
        let elem = element_of(op.buf);
        let Some(a) = op.accum else {
            return Ok(());
        };
        if plan.lanes == Lanes::Result {
            for (v, cell) in values.iter().zip(&k.cell_ivs) {
                self.store_result(at, k, *v, k.mode.ty, cell)?;
            }
            return Ok(());
        }
        // The block's first iterator runs along the result's contiguous
        // axis: its cells, adjacent, are reduced together and read and
        // written as one vector.
        let f0 = k.combo.first().map_or(1, |s| s.factor) as usize;
        if f0 > 1 && f0.is_power_of_two() && f0 as u64 <= plan.width && plan.block_contiguous {
            return self.store_grouped(at, k, a, f0, values);
        }
        for (v, cell) in values.iter().zip(&k.cell_ivs) {
            let s = self.reduce_lanes(at, lanes_kind(a), *v, elem, op.loc);
            let old = self.load(at, op.buf, k.result_map, cell, op.loc);
            let new = self.binary(at, a.function(), elem, old, s, op.loc)?;
            self.store_result(at, k, new, elem, cell)?;
        }
        Ok(())
    }

    /// [`Lanes::Reduction`]'s final values `values` when the block's first
    /// iterator (`f0` cells, a power of two up to the vector's width) runs
    /// along the result's contiguous axis: its `f0` adjacent cells reduced
    /// at once ([`Emitter::reduce_group`]) into one vector, combined with
    /// the cells and stored.
    fn store_grouped<'a>(
        &self,
        at: At<'c, 'a>,
        k: &Kernel<'_, '_, 'c, 'a>,
        a: Accum,
        f0: usize,
        values: &[Value<'c, 'a>],
    ) -> Result<(), String> {
        let (op, loc) = (&k.op, k.op.loc);
        let elem = element_of(op.buf);
        let per = k.cells.len() / f0;
        let ty = self.vector_type(elem, f0 as u64);
        for i1 in 0..per {
            let group: Vec<Value<'c, 'a>> = (0..f0).map(|i0| values[i0 * per + i1]).collect();
            let width = k.plan.width as usize;
            let s = self.reduce_group(at, &group, width, a.function(), elem, loc)?;
            let cell = &k.cell_ivs[i1];
            let old = self.load_as(at, op.buf, k.result_map, cell, Some(ty), loc);
            let new = self.binary(at, a.function(), ty, old, s, loc)?;
            self.store_result(at, k, new, ty, cell)?;
        }
        Ok(())
    }

    /// One step of the block at `ivs` (every iterator placed): the op's
    /// value at each cell, combined into its accumulator (returned, in cell
    /// order) or stored. A scalar `mode` under vector accumulators
    /// ([`Lanes::Reduction`]'s tail) works on lane 0.
    fn block_step<'a>(
        &self,
        at: At<'c, 'a>,
        k: &Kernel<'_, '_, 'c, 'a>,
        ivs: &[Value<'c, 'a>],
        accs: &[Value<'c, 'a>],
        mode: Mode<'c>,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let (plan, op) = (k.plan, &k.op);
        let mut loaded: HashMap<(usize, Offsets), Value<'c, 'a>> = HashMap::new();
        let mut out: Vec<Option<Value<'c, 'a>>> = vec![None; k.cells.len()];
        // The vector iterator's cells innermost: a broadcast row value is
        // used by its cells at once and dies (held for the whole block,
        // 6 broadcasts + 2 loaded vectors + 12 accumulators spill AVX2's 16
        // registers).
        let mut order: Vec<usize> = (0..k.cells.len()).collect();
        let lanes_last = |c: &Offsets| -> Vec<(bool, i64)> {
            let mut key: Vec<(bool, usize, i64)> = c
                .iter()
                .map(|&(i, off)| (i == plan.vector && plan.lanes == Lanes::Result, i, off))
                .collect();
            key.sort_by_key(|k| k.0);
            key.into_iter().map(|(l, _, off)| (l, off)).collect()
        };
        order.sort_by_key(|&c| lanes_last(&k.cells[c]));
        for c in order {
            let cell = &k.cells[c];
            // The block iterators' positions, computed once outside the
            // reduction loops (they do not change inside them).
            let mut cell_ivs = ivs.to_vec();
            for &(i, off) in cell {
                cell_ivs[i] = k.shifted[&(i, off)];
            }
            let mut args = vec![];
            for n in (0..op.operands.len()).filter(|&n| Some(n) != op.init) {
                let indices = &op.p.operands[n];
                let key: Offsets = cell
                    .iter()
                    .copied()
                    .filter(|(i, _)| indices.iter().any(|a| a.uses(*i)))
                    .collect();
                let value = match loaded.get(&(n, key.clone())) {
                    Some(v) => *v,
                    None => {
                        let v = self.operand_value(at, k, n, &cell_ivs, cell, mode)?;
                        loaded.insert((n, key), v);
                        v
                    }
                };
                args.push(value);
            }
            match op.accum {
                None => {
                    let v = self.compute(at, op.compute, mode.ty, &args, op.loc)?;
                    let v = self.finish(at, op, v, mode.ty, &cell_ivs)?;
                    self.store(at, v, op.buf, k.result_map, &cell_ivs, op.loc);
                }
                Some(a) => out[c] = Some(self.accumulate(at, op, a, accs[c], &args, mode.ty)?),
            }
        }
        // In cell order (none without accumulators).
        Ok(out.into_iter().flatten().collect())
    }

    /// The accumulator `acc` combined with the op's value on `args` (of
    /// type `ty`; `ty` a scalar under vector accumulators works on lane 0).
    fn accumulate<'a>(
        &self,
        at: At<'c, 'a>,
        op: &Op<'_, 'c, 'a>,
        a: Accum,
        acc: Value<'c, 'a>,
        args: &[Value<'c, 'a>],
        ty: Type<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        let loc = op.loc;
        let lane_tail = acc.r#type() != ty;
        let old = if lane_tail {
            self.lane0(at, acc, loc)
        } else {
            acc
        };
        let new = if *op.compute == Compute::Binary(BinaryFn::Mul) && a.function() == BinaryFn::Add
        {
            self.put_value(at, ods::math::fma(self.ctx, args[0], args[1], old, loc))
        } else {
            let v = self.compute(at, op.compute, ty, args, loc)?;
            self.binary(at, a.function(), ty, old, v, loc)?
        };
        Ok(if lane_tail {
            self.set_lane0(at, new, acc, loc)
        } else {
            new
        })
    }

    /// Operand `n` at `ivs`: a vector load when the mode has lanes and the
    /// operand reads the vector iterator (on its contiguous axis: the plan
    /// checked), else a scalar load, broadcast when the mode has lanes.
    /// Reads that can leave the operand (padding) are guarded. A packed
    /// operand is read from its panel, at the `cell`'s offset into the
    /// block.
    fn operand_value<'a>(
        &self,
        at: At<'c, 'a>,
        k: &Kernel<'_, '_, 'c, 'a>,
        n: usize,
        ivs: &[Value<'c, 'a>],
        cell: &[(usize, i64)],
        mode: Mode<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        let (plan, op) = (k.plan, &k.op);
        let buf = op.operands[n];
        let indices = &op.p.operands[n];
        let read = Cell {
            indices,
            space: &op.p.product_space,
            ivs,
        };
        let accum = op.accum.unwrap_or_else(Accum::add);
        let elem = element_of(buf);
        let along = indices.iter().any(|a| a.uses(plan.vector));
        if let Some(b) = op.blocked.filter(|b| b.operand == n) {
            // Laid out in micro-panels when compiling: plain indices, no
            // guard; a vector of lanes stays within one micro-panel.
            let map = self.blocked_map(&b, op.p.product_space.len(), indices);
            let lanes = (mode.vector && along).then_some(mode.ty);
            let v = self.load_as(at, b.buf, map, ivs, lanes, op.loc);
            return Ok(if mode.vector && !along {
                self.broadcast(at, v, mode.ty, op.loc)
            } else {
                v
            });
        }
        let panel = op.packed.iter().flatten().find(|p| p.operand == n);
        if let Some(packed) = panel.filter(|_| mode.vector) {
            let c = cell
                .iter()
                .find(|(i, _)| *i == packed.iter)
                .map_or(0, |c| c.1);
            return self.load_panel(at, *packed, ivs[packed.k], c as u64, mode.ty, op.loc);
        }
        if mode.vector && along {
            if reads_along(indices, &buffer_dims(buf), plan.vector) != Some(true) {
                // Off its contiguous axis (a transposed operand outside its
                // packed tiles): a cell per lane.
                let pad = self.scalar_attr(elem, accum.neutral());
                let mut lanes = Vec::new();
                for l in 0..plan.width {
                    let mut at_lane = ivs.to_vec();
                    at_lane[plan.vector] = self.offset(at, ivs[plan.vector], l as i64, op.loc);
                    let read = Cell {
                        ivs: &at_lane,
                        ..read
                    };
                    lanes.push(self.operand_load(at, buf, read, pad, None, op.loc));
                }
                let op = ods::vector::from_elements(self.ctx, mode.ty, &lanes, op.loc);
                return Ok(self.put_value(at, op));
            }
            let pad = self.scalar_attr(mode.ty, accum.neutral());
            return Ok(self.operand_load(at, buf, read, pad, Some(mode.ty), op.loc));
        }
        let pad = self.scalar_attr(elem, accum.neutral());
        let s = self.operand_load(at, buf, read, pad, None, op.loc);
        Ok(if mode.vector {
            self.broadcast(at, s, mode.ty, op.loc)
        } else {
            s
        })
    }

    /// `v`, the value of the result cell at `ivs`, through the op's
    /// epilogue.
    fn finish<'a>(
        &self,
        at: At<'c, 'a>,
        op: &Op<'_, 'c, 'a>,
        v: Value<'c, 'a>,
        ty: Type<'c>,
        ivs: &[Value<'c, 'a>],
    ) -> Result<Value<'c, 'a>, String> {
        let cell = Cell {
            indices: &op.p.result,
            space: &op.p.product_space,
            ivs,
        };
        self.epilogue(at, op.epilogue, cell, v, ty, op.loc)
    }

    /// Stores `v` (of type `ty`), the block's value of the result cell at
    /// `ivs` after the reductions: through the epilogue when it is final;
    /// under a reduction tile, only the last tile's is (an `affine.if` on
    /// the tile's position).
    fn store_result<'a>(
        &self,
        at: At<'c, 'a>,
        k: &Kernel<'_, '_, 'c, 'a>,
        v: Value<'c, 'a>,
        ty: Type<'c>,
        ivs: &[Value<'c, 'a>],
    ) -> Result<(), String> {
        let (op, map) = (&k.op, k.result_map);
        match k.k_tile {
            Some((kt, kc, t)) if !op.epilogue.is_empty() => {
                let last = (op.p.product_space[kt] - 1) / kc * kc;
                let (then, other) = self.if_at_least(at, t, last as i64, op.loc);
                let f = self.finish(then, op, v, ty, ivs)?;
                self.store(then, f, op.buf, map, ivs, op.loc);
                self.store(other, v, op.buf, map, ivs, op.loc);
            }
            _ => {
                let f = self.finish(at, op, v, ty, ivs)?;
                self.store(at, f, op.buf, map, ivs, op.loc);
            }
        }
        Ok(())
    }
}

/// The `vector.reduction` kind of an accumulation operator on floats (by
/// its scalar function: `max` and `min` are `arith.maximumf`/`minimumf`).
fn lanes_kind(a: Accum) -> &'static str {
    match a.accumulator() {
        Accumulator::Add => "add",
        Accumulator::Mul => "mul",
        Accumulator::Max => "maximumf",
        Accumulator::Min => "minimumf",
    }
}
