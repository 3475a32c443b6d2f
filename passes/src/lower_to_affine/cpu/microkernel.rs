//! The micro-kernel of a [`Plan`]: the register block at one point of the
//! block iterators, its accumulators carried through the reduction loops
//! (`iter_args`), each step's loads (vector, or scalar broadcast) and
//! combines, the epilogue and the stores.

use std::collections::HashMap;

use melior::{
    dialect::ods,
    ir::{Type, Value, ValueLike},
};
use ocannl_dialect::catalog::Accumulator;

use super::view::{Mode, Op};
use crate::lower_to_affine::emit::{At, Cell, Emitter, loops::Bound};
use crate::{
    buffers::{buffer_dims, element_of},
    compute::{Accum, BinaryFn, Compute},
    schedule::memory::reads_along,
    schedule::plan::{Lanes, Plan, Segment},
};

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
        k_tile: Option<(usize, u64, Value<'c, 'a>)>,
    ) -> Result<(), String> {
        let loc = op.loc;
        let p = op.p;
        let space = &p.product_space;
        let elem = element_of(op.buf);
        let vector_ty = self.vector_type(elem, plan.width);
        let lanes_on = match plan.lanes {
            Lanes::Result => combo.iter().any(|s| s.vector),
            Lanes::Reduction => true,
        };
        let mode = Mode {
            ty: if lanes_on { vector_ty } else { elem },
            vector: lanes_on,
        };
        // The cells of the block: an offset per block iterator.
        let mut cells: Vec<Vec<(usize, i64)>> = vec![vec![]];
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
        let mut shifted: HashMap<(usize, i64), Value<'c, 'a>> = HashMap::new();
        let cell_ivs: Vec<Vec<Value<'c, 'a>>> = cells
            .iter()
            .map(|c| {
                let mut v = ivs.clone();
                for &(i, off) in c {
                    v[i] = *shifted
                        .entry((i, off))
                        .or_insert_with(|| self.offset(at, ivs[i], off, loc));
                }
                v
            })
            .collect();
        let n = space.len();
        let result_map = self.map(n, &p.result);
        let accum = op.accum;
        // The packed panels' micro-panels of this block.
        let mut op = *op;
        for packed in op.packed.iter_mut().flatten() {
            packed.block = Some(self.panel_block(at, *packed, ivs[packed.iter], loc));
        }
        let op = &op;
        // Accumulators: the result cells ([`Lanes::Result`]) or the neutral
        // element in every lane ([`Lanes::Reduction`]).
        let mut accs: Vec<Value<'c, 'a>> = match (plan.lanes, accum) {
            (Lanes::Result, Some(_)) => cell_ivs
                .iter()
                .map(|v| self.load_as(at, op.buf, result_map, v, mode.lanes(), loc))
                .collect(),
            (Lanes::Result, None) => vec![],
            (Lanes::Reduction, a) => {
                let a = a.ok_or("a reduction without an accumulation operator")?;
                let neutral = self.constant(at, self.scalar_attr(mode.ty, a.neutral()), loc);
                vec![neutral; cells.len()]
            }
        };
        // Reduction loops, outermost first, carrying the accumulators.
        let mut enclosing = vec![];
        let mut inner = at;
        let mut ivs = ivs;
        let reductions: Vec<usize> = plan
            .reductions
            .iter()
            .copied()
            .filter(|&r| !(plan.lanes == Lanes::Reduction && r == plan.vector))
            .collect();
        for &r in &reductions {
            if space[r] == 1 {
                continue;
            }
            let range = match k_tile {
                Some((k, kc, t)) if k == r => self.tile(t, kc, space[k]),
                _ => self.range(0, space[r]),
            };
            let l = self.for_loop(inner, range, 1, &accs, false, loc);
            ivs[r] = l.iv;
            accs.clone_from(&l.args);
            enclosing.push(l);
            inner = enclosing.last().expect("pushed").body;
        }
        let body = |at: At<'c, 'a>, ivs: &[Value<'c, 'a>], accs: &[Value<'c, 'a>], mode| {
            self.block_step(at, plan, op, &cells, &shifted, ivs, accs, mode)
        };
        let new_accs = if plan.lanes == Lanes::Reduction {
            // The vector iterator: whole vectors, then a scalar tail into
            // lane 0.
            let r = plan.vector;
            let main = space[r] / plan.width * plan.width;
            // Within a reduction tile when tiled: [kt, min(kt + kc, main)),
            // then the tail [max(kt, main), min(kt + kc, extent)).
            let tile = k_tile.filter(|(k, _, _)| *k == r);
            let range = match tile {
                Some((_, kc, t)) => self.tile(t, kc, main),
                None => self.range(0, main),
            };
            let l = self.for_loop(inner, range, plan.width, &accs, false, loc);
            ivs[r] = l.iv;
            let next = body(l.body, &ivs, &l.args, mode)?;
            self.affine_yield(l.body, &next, loc);
            let mut accs = l.results;
            if main < space[r] {
                let range = match tile {
                    // [max(kt, main), min(kt + kc, extent)).
                    Some((_, kc, t)) => (
                        Bound::from(self, t, 0, Some(main as i64)),
                        Bound::from(self, t, kc as i64, Some(space[r] as i64)),
                    ),
                    None => self.range(main, space[r]),
                };
                let t = self.for_loop(inner, range, 1, &accs, false, loc);
                ivs[r] = t.iv;
                let scalar = Mode {
                    ty: elem,
                    vector: false,
                };
                let next = body(t.body, &ivs, &t.args, scalar)?;
                self.affine_yield(t.body, &next, loc);
                accs = t.results;
            }
            accs
        } else {
            body(inner, &ivs, &accs, mode)?
        };
        // Close the reduction loops from the inside out.
        let mut values = new_accs;
        for l in enclosing.iter().rev() {
            self.affine_yield(l.body, &values, loc);
            values.clone_from(&l.results);
        }
        match (plan.lanes, accum) {
            (Lanes::Result, Some(_)) => {
                for (v, cell) in values.iter().zip(&cell_ivs) {
                    self.store_result(at, op, *v, mode.ty, cell, k_tile)?;
                }
            }
            (Lanes::Result, None) => {}
            (Lanes::Reduction, a) => {
                let a = a.expect("checked above");
                // The block's first iterator runs along the result's
                // contiguous axis: its cells, adjacent, are reduced together
                // and read and written as one vector.
                let f0 = combo.first().map_or(1, |s| s.factor) as usize;
                let per = cells.len() / f0.max(1);
                let grouped = f0 > 1
                    && f0.is_power_of_two()
                    && f0 as u64 <= plan.width
                    && plan.block_contiguous;
                if grouped {
                    let ty = self.vector_type(elem, f0 as u64);
                    for i1 in 0..per {
                        let group: Vec<Value<'c, 'a>> =
                            (0..f0).map(|i0| values[i0 * per + i1]).collect();
                        let s = self.reduce_group(
                            at,
                            &group,
                            plan.width as usize,
                            a.function(),
                            elem,
                            loc,
                        )?;
                        let cell = &cell_ivs[i1];
                        let old = self.load_as(at, op.buf, result_map, cell, Some(ty), loc);
                        let new = self.binary(at, a.function(), ty, old, s, loc)?;
                        self.store_result(at, op, new, ty, cell, k_tile)?;
                    }
                    return Ok(());
                }
                for (v, cell) in values.iter().zip(&cell_ivs) {
                    let s = self.reduce_lanes(at, lanes_kind(a), *v, elem, loc);
                    let old = self.load(at, op.buf, result_map, cell, loc);
                    let new = self.binary(at, a.function(), elem, old, s, loc)?;
                    self.store_result(at, op, new, elem, cell, k_tile)?;
                }
            }
        }
        Ok(())
    }

    /// One step of the block at `ivs` (every iterator placed; `shifted`:
    /// each block iterator's position per offset): the op's
    /// value at each cell, combined into its accumulator (returned, in cell
    /// order) or stored. A scalar `mode` under vector accumulators
    /// ([`Lanes::Reduction`]'s tail) works on lane 0.
    #[allow(clippy::too_many_arguments)]
    fn block_step<'a>(
        &self,
        at: At<'c, 'a>,
        plan: &Plan,
        op: &Op<'_, 'c, 'a>,
        cells: &[Vec<(usize, i64)>],
        shifted: &HashMap<(usize, i64), Value<'c, 'a>>,
        ivs: &[Value<'c, 'a>],
        accs: &[Value<'c, 'a>],
        mode: Mode<'c>,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let loc = op.loc;
        let p = op.p;
        let n = p.product_space.len();
        let mut loaded: HashMap<(usize, Vec<(usize, i64)>), Value<'c, 'a>> = HashMap::new();
        let mut out: Vec<Option<Value<'c, 'a>>> = vec![None; cells.len()];
        // The vector iterator's cells innermost: a broadcast row value is
        // used by its cells at once and dies (held for the whole block,
        // 6 broadcasts + 2 loaded vectors + 12 accumulators spill AVX2's 16
        // registers).
        let mut order: Vec<usize> = (0..cells.len()).collect();
        let lanes_last = |c: &Vec<(usize, i64)>| -> Vec<(bool, i64)> {
            let mut key: Vec<(bool, usize, i64)> = c
                .iter()
                .map(|&(i, off)| (i == plan.vector && plan.lanes == Lanes::Result, i, off))
                .collect();
            key.sort_by_key(|k| k.0);
            key.into_iter().map(|(l, _, off)| (l, off)).collect()
        };
        order.sort_by_key(|&c| lanes_last(&cells[c]));
        for c in order {
            let cell = &cells[c];
            // The block iterators' positions, computed once outside the
            // reduction loops (they do not change inside them).
            let mut cell_ivs = ivs.to_vec();
            for &(i, off) in cell {
                cell_ivs[i] = shifted[&(i, off)];
            }
            let mut args = vec![];
            for (k, o) in op.operands.iter().enumerate() {
                if Some(k) == op.init {
                    continue;
                }
                let indices = &p.operands[k];
                let key: Vec<(usize, i64)> = cell
                    .iter()
                    .copied()
                    .filter(|(i, _)| indices.iter().any(|a| a.uses(*i)))
                    .collect();
                let value = match loaded.get(&(k, key.clone())) {
                    Some(v) => *v,
                    None => {
                        let v = self.operand_value(at, plan, op, k, *o, &cell_ivs, cell, mode)?;
                        loaded.insert((k, key), v);
                        v
                    }
                };
                args.push(value);
            }
            let ty = mode.ty;
            match op.accum {
                None => {
                    let v = self.compute(at, op.compute, ty, &args, loc)?;
                    let v = self.finish(at, op, v, ty, &cell_ivs)?;
                    let map = self.map(n, &p.result);
                    self.store(at, v, op.buf, map, &cell_ivs, loc);
                }
                Some(a) => {
                    let acc = accs[c];
                    let lane_tail = acc.r#type() != ty;
                    let old = if lane_tail {
                        self.lane0(at, acc, loc)
                    } else {
                        acc
                    };
                    let new = if *op.compute == Compute::Binary(BinaryFn::Mul)
                        && a.function() == BinaryFn::Add
                    {
                        self.put_value(at, ods::math::fma(self.ctx, args[0], args[1], old, loc))
                    } else {
                        let v = self.compute(at, op.compute, ty, &args, loc)?;
                        self.binary(at, a.function(), ty, old, v, loc)?
                    };
                    out[c] = Some(if lane_tail {
                        self.set_lane0(at, new, acc, loc)
                    } else {
                        new
                    });
                }
            }
        }
        // In cell order (none without accumulators).
        Ok(out.into_iter().flatten().collect())
    }

    /// Operand `k` at `ivs`: a vector load when the mode has lanes and the
    /// operand reads the vector iterator (on its contiguous axis: the plan
    /// checked), else a scalar load, broadcast when the mode has lanes.
    /// Reads that can leave the operand (padding) are guarded. A packed
    /// operand is read from its panel, at the `cell`'s offset into the
    /// block.
    #[allow(clippy::too_many_arguments)]
    fn operand_value<'a>(
        &self,
        at: At<'c, 'a>,
        plan: &Plan,
        op: &Op<'_, 'c, 'a>,
        k: usize,
        buf: Value<'c, 'a>,
        ivs: &[Value<'c, 'a>],
        cell: &[(usize, i64)],
        mode: Mode<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        let indices = &op.p.operands[k];
        let space = &op.p.product_space;
        let read = Cell {
            indices,
            space,
            ivs,
        };
        let accum = op.accum.unwrap_or_else(Accum::add);
        let elem = element_of(buf);
        let along = indices.iter().any(|a| a.uses(plan.vector));
        let panel = op.packed.iter().flatten().find(|p| p.operand == k);
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
    #[allow(clippy::too_many_arguments)]
    fn store_result<'a>(
        &self,
        at: At<'c, 'a>,
        op: &Op<'_, 'c, 'a>,
        v: Value<'c, 'a>,
        ty: Type<'c>,
        ivs: &[Value<'c, 'a>],
        k_tile: Option<(usize, u64, Value<'c, 'a>)>,
    ) -> Result<(), String> {
        let map = self.map(op.p.product_space.len(), &op.p.result);
        match k_tile {
            Some((k, kc, t)) if !op.epilogue.is_empty() => {
                let last = (op.p.product_space[k] - 1) / kc * kc;
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
