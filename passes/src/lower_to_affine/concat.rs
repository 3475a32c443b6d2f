//! `ocannl.concat`'s lowering: one loop nest per block of the
//! concatenation ([`Projections::blocks`](ocannl_shape::projection::Projections::blocks)),
//! or, on the CPU, one `memref.copy` per contiguous run of a block that
//! copies its operand in order (an `llvm.memcpy`; see [`copy_plan`]).
//!
//! Linear in the number of blocks: each nest ends a block of the function
//! body of its own (upstream `scf-to-cf` splits the block at every loop and
//! moves the ops after it, which over one block of n nests is quadratic: a
//! concatenation of 4,000 parts took 9 s in `scf-to-cf` alone), and the
//! check whether blocks overlap sweeps over the blocks sorted along one
//! axis instead of comparing every pair. The copies keep LLVM's share
//! small: a loop nest per part cost LLVM's loop passes and scheduler about
//! 2 ms each (a concatenation of 8,000 `[1,4]` inputs took 23 s in
//! `ocannl-run`, 8 s with the copies; `docs/performance.md`).

use melior::{
    dialect::ods,
    ir::{
        AffineExpr, Attribute, Location, Type, Value, ValueLike,
        attribute::DenseI64ArrayAttribute,
        operation::{OperationLike, OperationRef},
        r#type::MemRefType,
    },
};
use ocannl_dialect::ir;
use ocannl_shape::projection::{AxisIndex, Block, any_overlap};

use super::{
    emit::{At, Emitter},
    projections::op_blocks,
};
use crate::{
    buffers::{check_elements, element_of},
    compute::BinaryFn,
    projection_attrs::block_local,
    schedule::memory::plain_box,
};

impl<'c> Emitter<'c> {
    /// `ocannl.concat` (OCANNL's Block with `concat_sum`'s `Identity` and
    /// `Add`): one loop nest per block, in sequence, each in a block of its
    /// own, over the block's active iterators; each copies its one operand
    /// into its part of the result. Cells no block writes are 0; cells
    /// several blocks (or several iterations of one) reach are summed into
    /// a 0-filled result. `at` moves to the end of the last block.
    pub(super) fn lower_block<'a>(
        &self,
        at: &mut At<'c, 'a>,
        op: OperationRef<'c, 'a>,
        operands: &[Value<'c, 'a>],
        buf: Value<'c, 'a>,
        dims: &[u64],
    ) -> Result<(), String> {
        let loc = op.location();
        let elem = element_of(buf);
        check_elements(operands, elem, &crate::compute::Compute::Identity)?;
        // The blocks `ocannl-infer-projections` wrote (`ocannl.blocks`).
        let (space, blocks) = op_blocks(op, operands, dims)?;
        let space = &space;
        // Each block writes a box of the result; where boxes overlap, or a
        // block iterates over a size > 1 the result does not see, cells are
        // reached more than once and the values add up.
        let boxes: Vec<Vec<(i64, i64)>> = blocks
            .iter()
            .map(|b| b.result.iter().map(|a| a.range(space)).collect())
            .collect();
        let reduces = blocks.iter().any(|b| {
            b.iterators
                .iter()
                .any(|&i| space[i] > 1 && !b.result.iter().any(|a| a.uses(i)))
        });
        let accumulate = reduces || any_overlap(&boxes);
        // Without accumulation the boxes are disjoint: they cover the result
        // when each is a plain box and their volumes add up to its size.
        let volume: u128 = boxes
            .iter()
            .map(|bx| {
                bx.iter()
                    .map(|(lo, hi)| (i128::from(*hi) - i128::from(*lo) + 1).max(0) as u128)
                    .fold(1u128, u128::saturating_mul)
            })
            .fold(0u128, u128::saturating_add);
        let cells: u128 = dims.iter().map(|&d| u128::from(d)).product();
        let covered =
            !accumulate && blocks.iter().all(|b| plain_box(&b.result, dims)) && volume == cells;
        if !covered {
            self.fill(*at, buf, dims, self.scalar_attr(elem, 0.0), loc);
        }
        // Without accumulation the blocks' cells are distinct: each one's
        // outermost loop in parallel (schedule `loops`, `parallel`).
        let parallel = self.target.parallel && !accumulate;
        // A loop nest ends its block of the function body (copies without
        // loops share one).
        let mut after_nest = false;
        for b in &blocks {
            let plan = (!accumulate && self.target.gpu_block.is_none())
                .then(|| operand_dims(operands[b.operand]))
                .flatten()
                .and_then(|d| copy_plan(b, space, &d, dims, elem));
            if after_nest {
                *at = self.next_block(*at, loc);
            }
            if let Some(plan) = plan {
                self.copy_runs(*at, &plan, operands[b.operand], buf, parallel, loc);
                after_nest = !plan.outer.is_empty();
                continue;
            }
            after_nest = true;
            let sizes: Vec<u64> = b.iterators.iter().map(|&i| space[i]).collect();
            let (inner, ivs) = self.nest_with(*at, &sizes, parallel, loc);
            let n = b.iterators.len();
            let local = |indices: &[AxisIndex]| block_local(indices, &b.iterators);
            let map = self.map(n, &local(&b.indices));
            let mut value = self.load(inner, operands[b.operand], map, &ivs, loc);
            let result_map = self.map(n, &local(&b.result));
            if accumulate {
                let old = self.load(inner, buf, result_map, &ivs, loc);
                value = self.binary(inner, BinaryFn::Add, elem, old, value, loc)?;
            }
            self.store(inner, value, buf, result_map, &ivs, loc);
        }
        Ok(())
    }
}

/// Runs of cells a block copies with `memcpy` (`memref.copy` of flat
/// views): the block reads its operand and writes the result in the same
/// order, `run` cells at a time contiguous in both, once per point of the
/// `outer` loops.
struct CopyPlan {
    /// The sizes of the loops around the copies, outermost first.
    outer: Vec<u64>,
    /// Cells per copy.
    run: u64,
    /// Where the copies read (the operand) and write (the result).
    sides: [Side; 2],
}

/// One buffer of a [`CopyPlan`]: the first cell copied and the step of
/// each outer loop, in cells.
struct Side {
    first: i64,
    steps: Vec<i64>,
}

/// A buffer's cells as `offset + Σ coeff · iterator` over the block's
/// iterators of size > 1; `None` when an index is not of that form inside
/// the buffer (a padding read, a concatenated axis).
fn linear(
    indices: &[AxisIndex],
    dims: &[u64],
    space: &[u64],
) -> Option<(i128, Vec<(usize, i128)>)> {
    if indices.len() != dims.len() {
        return None;
    }
    let mut offset = 0i128;
    let mut coeffs: Vec<(usize, i128)> = Vec::new();
    let mut add = |i: usize, c: i128| {
        if space[i] > 1 {
            match coeffs.iter_mut().find(|(j, _)| *j == i) {
                Some((_, x)) => *x += c,
                None => coeffs.push((i, c)),
            }
        }
    };
    let mut stride = 1i128;
    for (a, &d) in indices.iter().zip(dims).rev() {
        let (lo, hi) = a.checked_range(space)?;
        if lo < 0 || i128::from(hi) >= i128::from(d) {
            return None;
        }
        match a {
            AxisIndex::Iter(i) => add(*i, stride),
            AxisIndex::Fixed(c) => offset += i128::from(*c) * stride,
            AxisIndex::Affine(x) => {
                if let Some((i, s)) = x.over {
                    add(i, i128::from(s) * stride);
                }
                if let Some((k, s)) = x.kernel {
                    add(k, i128::from(s) * stride);
                }
                offset += i128::from(x.offset) * stride;
            }
            AxisIndex::Concat(_) => return None,
        }
        stride *= i128::from(d);
    }
    Some((offset, coeffs))
}

/// The block as runs of contiguous copies: every iterator steps through
/// both buffers, and the innermost ones, by their step in the result, have
/// the same steps in the operand and form one contiguous run of each. The
/// others are loops around the copies. `None` when they do not, when a run
/// would be shorter than 4 cells inside loops (a loop nest vectorises as
/// well), or for sub-byte element types (a `memcpy` counts bytes).
fn copy_plan(
    b: &Block,
    space: &[u64],
    operand_dims: &[u64],
    dims: &[u64],
    elem: Type<'_>,
) -> Option<CopyPlan> {
    if ir::bit_width(elem).is_none_or(|w| w % 8 != 0) {
        return None;
    }
    let (op_start, op_coeffs) = linear(&b.indices, operand_dims, space)?;
    let (res_start, res_coeffs) = linear(&b.result, dims, space)?;
    if op_coeffs.len() != res_coeffs.len() {
        return None;
    }
    // (size, step in the operand, step in the result), outermost first.
    let mut steps = res_coeffs
        .iter()
        .map(|&(i, c)| {
            let o = op_coeffs.iter().find(|(j, _)| *j == i)?.1;
            (o > 0 && c > 0).then_some((space[i], o, c))
        })
        .collect::<Option<Vec<(u64, i128, i128)>>>()?;
    steps.sort_by_key(|&(_, _, c)| std::cmp::Reverse(c));
    let mut run = 1i128;
    while let Some(&(size, o, c)) = steps.last()
        && o == run
        && c == run
    {
        run *= i128::from(size);
        steps.pop();
    }
    if run < 4 && !steps.is_empty() {
        return None;
    }
    let side = |first: i128, step: fn(&(u64, i128, i128)) -> i128| -> Option<Side> {
        Some(Side {
            first: i64::try_from(first).ok()?,
            steps: steps
                .iter()
                .map(|s| i64::try_from(step(s)).ok())
                .collect::<Option<_>>()?,
        })
    };
    Some(CopyPlan {
        outer: steps.iter().map(|s| s.0).collect(),
        run: u64::try_from(run).ok()?,
        sides: [side(op_start, |s| s.1)?, side(res_start, |s| s.2)?],
    })
}

/// The static dims of a plain (identity-layout) buffer.
fn operand_dims(v: Value<'_, '_>) -> Option<Vec<u64>> {
    if !ir::is_plain_memref(v.r#type()) {
        return None;
    }
    ir::shaped_dims(v.r#type())?
        .into_iter()
        .map(|d| u64::try_from(d?).ok())
        .collect()
}

impl<'c> Emitter<'c> {
    /// `plan`'s copies from `src` to `dst`: a loop nest over its outer
    /// iterators (none: one copy) around one `memref.copy` of a flat view
    /// of `run` cells of each, which becomes an `llvm.memcpy`.
    fn copy_runs<'a>(
        &self,
        at: At<'c, 'a>,
        plan: &CopyPlan,
        src: Value<'c, 'a>,
        dst: Value<'c, 'a>,
        parallel: bool,
        loc: Location<'c>,
    ) {
        let (inner, ivs) = self.nest_with(at, &plan.outer, parallel, loc);
        let [from, to] = [(src, &plan.sides[0]), (dst, &plan.sides[1])].map(|(buf, side)| {
            // With loops, the first cell moves with them.
            let dynamic = (!ivs.is_empty()).then(|| {
                let e = side.steps.iter().enumerate().fold(
                    AffineExpr::constant(self.ctx, side.first),
                    |e, (k, &step)| {
                        e + AffineExpr::dim(self.ctx, k) * AffineExpr::constant(self.ctx, step)
                    },
                );
                self.apply(inner, e, &ivs, loc)
            });
            self.flat_view(inner, buf, side.first, dynamic, plan.run, loc)
        });
        self.put(inner, ods::memref::copy(self.ctx, from, to, loc));
    }

    /// `memref.reinterpret_cast` of `buf` to the `run` cells from `first`
    /// (or from `dynamic`, when given).
    fn flat_view<'a>(
        &self,
        at: At<'c, 'a>,
        buf: Value<'c, 'a>,
        first: i64,
        dynamic: Option<Value<'c, 'a>>,
        run: u64,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let offset = if dynamic.is_some() {
            "?".to_owned()
        } else {
            first.to_string()
        };
        let layout = Attribute::parse(self.ctx, &format!("strided<[1], offset: {offset}>"))
            .expect("a valid strided layout");
        let ty = MemRefType::new(element_of(buf), &[run as i64], Some(layout), None);
        let static_offset = if dynamic.is_some() { i64::MIN } else { first };
        let offsets: Vec<Value<'c, 'a>> = dynamic.into_iter().collect();
        let i64s = |v: &[i64]| -> Attribute<'c> { DenseI64ArrayAttribute::new(self.ctx, v).into() };
        let op = ods::memref::reinterpret_cast(
            self.ctx,
            ty.into(),
            buf,
            &offsets,
            &[],
            &[],
            i64s(&[static_offset]),
            i64s(&[run as i64]),
            i64s(&[1]),
            loc,
        );
        let segments = [1, offsets.len() as i32, 0, 0];
        self.put_value(at, self.with_segments(op, &segments))
    }
}
