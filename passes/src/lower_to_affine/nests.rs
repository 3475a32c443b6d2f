//! One ocannl op as affine loop nests over its operands' and result's
//! buffers, built from its projections and emitted as its schedule says
//! (OCANNL's `arrayjit/lib/assignments.ml`: the loop nest of an assignment
//! and its initialisation).

use melior::ir::{
    BlockRef, Value,
    operation::{OperationLike, OperationRef},
};
use ocannl_dialect::{
    catalog::{self, Computes},
    ir,
};
use ocannl_shape::projection::AxisIndex;

use super::{
    Module,
    cpu::view,
    emit::{At, Cell, Emitter},
    gpu::grid::GpuOp,
    projections::op_projections,
};
use crate::{
    buffers::{Scalar, buffer_dims, check_elements, element_of, scalar},
    compute::{Accum, scalar_function},
    schedule::{
        SCHEDULE, Schedule,
        epilogue::Step,
        legal::{check_plan, plannable},
        memory::contiguous,
        memory::plain_box,
        plan::Lanes,
        tiled::tiled,
    },
};

/// Where an op's values go: its buffer (of memory dims `dims`), through
/// the epilogue of the consumers fused into it.
pub(super) struct Out<'o, 'c, 'a> {
    pub buf: Value<'c, 'a>,
    pub dims: &'o [u64],
    pub epilogue: &'o [Step<'c, 'a>],
}

impl<'c> Emitter<'c> {
    /// The loop nest(s) of `op` as `schedule` says, writing into `out`,
    /// reading `operands`.
    pub(super) fn lower_op<'a>(
        &self,
        module: &mut Module<'c, 'a>,
        at: At<'c, 'a>,
        op: OperationRef<'c, 'a>,
        schedule: &Schedule,
        operands: &[Value<'c, 'a>],
        out: &Out<'_, 'c, 'a>,
    ) -> Result<BlockRef<'c, 'a>, String> {
        let loc = op.location();
        let mut at = at;
        let lowered = self.lower_op_nests(module, &mut at, op, schedule, operands, out)?;
        if !lowered && !out.epilogue.is_empty() {
            // The nest stores partial values (a reduction's running sums):
            // the epilogue runs over the finished result, in place.
            let (buf, dims) = (out.buf, out.dims);
            let elem = element_of(buf);
            let (inner, ivs) = self.nest(at, dims, loc);
            let map = self.identity(dims.len());
            let v = self.load(inner, buf, map, &ivs, loc);
            let axes: Vec<AxisIndex> = (0..dims.len()).map(AxisIndex::Iter).collect();
            let cell = Cell {
                indices: &axes,
                space: dims,
                ivs: &ivs,
            };
            let v = self.epilogue(inner, out.epilogue, cell, v, elem, loc)?;
            self.store(inner, v, buf, map, &ivs, loc);
        }
        Ok(at.block)
    }

    /// [`Emitter::lower_op`]'s nests, by the op's family; `true` when they
    /// applied the epilogue to every value they stored last.
    fn lower_op_nests<'a>(
        &self,
        module: &mut Module<'c, 'a>,
        at: &mut At<'c, 'a>,
        op: OperationRef<'c, 'a>,
        schedule: &Schedule,
        operands: &[Value<'c, 'a>],
        out: &Out<'_, 'c, 'a>,
    ) -> Result<bool, String> {
        let loc = op.location();
        let name = ir::op_name(&op);
        let def = catalog::lookup(&name).ok_or_else(|| "unknown ocannl op".to_owned())?;
        let (buf, dims) = (out.buf, out.dims);
        if def.computes != Computes::Nest
            && matches!(schedule, Schedule::Cpu { .. } | Schedule::Tiled { .. })
        {
            return Err(format!(
                "its schedule ({SCHEDULE}) is for loop-nest ops: this op gets 'loops' or 'grid'"
            ));
        }
        match def.computes {
            Computes::Constant => self
                .lower_constant(module, *at, op, buf, dims)
                .map(|()| false),
            Computes::Range => self.lower_range(*at, buf, dims, loc).map(|()| false),
            Computes::Reshape => self
                .lower_reshape(*at, op, operands[0], buf, dims)
                .map(|()| false),
            Computes::Blocks => self
                .lower_block(at, op, operands, buf, dims)
                .map(|()| false),
            Computes::Gather => self
                .lower_gather(*at, op, operands, buf, dims)
                .map(|()| false),
            Computes::Nest => {
                let nest = Nest {
                    op,
                    def,
                    operands,
                    buf,
                    dims,
                    epilogue: out.epilogue,
                };
                self.lower_nest(module, *at, &nest, schedule)
            }
        }
    }

    /// An op computed by a loop nest over its product space: its result
    /// initialised, then its nest emitted as `schedule` says (checked
    /// against the projections): on the CPU a plan's kernel
    /// ([`super::cpu`]) or one scalar nest; on the GPU a tiled kernel or a
    /// grid ([`super::gpu`]). `true` when the nest applied the epilogue.
    fn lower_nest<'a>(
        &self,
        module: &mut Module<'c, 'a>,
        at: At<'c, 'a>,
        nest: &Nest<'_, 'c, 'a>,
        schedule: &Schedule,
    ) -> Result<bool, String> {
        let Nest {
            op,
            def,
            operands,
            buf,
            dims,
            epilogue,
        } = *nest;
        let loc = op.location();
        let elem = element_of(buf);
        let compute = scalar_function(op, def, operands.len())?;
        check_elements(operands, elem, &compute)?;
        let p = op_projections(op, operands, dims)?;
        let init = def.init_operand;
        if p.result.iter().any(|a| matches!(a, AxisIndex::Affine(_))) {
            return Err("strided or convolution indices of the result are not lowered".into());
        }
        let injective = p.reductions().is_empty();
        let surjective = plain_box(&p.result, dims);
        // The op's accumulation operator: its neutral element fills cells a
        // store does not cover, and it combines values a store reaches more
        // than once.
        let accum_kind = Accum::of(op, def)?;
        let accum = (!injective || init.is_some()).then_some(accum_kind);
        let view = view::Op {
            p: &p,
            operands,
            init,
            compute: &compute,
            accum,
            epilogue,
            buf,
            loc,
            packed: [None; 2],
            blocked: None,
            fresh: false,
        };
        let operand_dims: Vec<Vec<u64>> = operands.iter().map(|o| buffer_dims(*o)).collect();
        let bad = |m: String| format!("cannot obey its schedule ({SCHEDULE}): {m}");
        match schedule {
            Schedule::Cpu { plan, .. } => {
                let same_float = operands.iter().all(|o| element_of(*o) == elem)
                    && scalar(elem) == Ok(Scalar::Float);
                let bits = ir::bit_width(elem).unwrap_or(0);
                let mut plan = plan.clone();
                plannable(&p, bits, same_float)
                    .and_then(|()| check_plan(&mut plan, &p, dims, &operand_dims))
                    .map_err(bad)?;
                let result = (dims, surjective, accum_kind);
                self.lower_cpu_plan(module, at, &plan, view, result)
            }
            Schedule::Tiled { .. } => {
                let Some(t) = tiled(&p, &operand_dims, init, &compute, accum, elem) else {
                    return Err(bad(
                        "'tiled' is for f32/f64 matrix products and convolutions (a sum of products of two operands, the result's contiguous iterator read by one of them only)".into(),
                    ));
                };
                self.init_result(at, &view, dims, accum_kind)?;
                // The result holds its addend, or the neutral element where
                // not every cell is written; else the sums start at zero.
                // The epilogue then runs in place (a grid).
                let start_from_c = init.is_some() || !surjective;
                let abc = (operands[t.a], operands[t.b], buf);
                self.lower_tiled(module, at, &t, abc, start_from_c, loc)?;
                Ok(false)
            }
            Schedule::Grid { block } => {
                self.init_result(at, &view, dims, accum_kind)?;
                let op = GpuOp {
                    p: &p,
                    operands,
                    init,
                    compute: &compute,
                    accum,
                    neutral: accum_kind,
                    fresh: surjective && init.is_none(),
                    epilogue,
                    buf,
                    loc,
                };
                self.lower_gpu(at, &op, *block).map(|()| true)
            }
            Schedule::Loops { .. } => {
                self.init_result(at, &view, dims, accum_kind)?;
                self.scalar_nest(at, &view, accum_kind)
            }
            Schedule::Epilogue { .. } => Err("an op fused into its producer has no nest".into()),
        }
    }

    /// A CPU plan's nests (checked against the projections). Where each
    /// cell (`surjective`: every one) is computed by one block, from the neutral element in
    /// registers, nothing fills the result first (a pass over it, on one
    /// thread); otherwise it is initialised as [`Emitter::init_result`]
    /// says. `true`: the nests applied the epilogue.
    fn lower_cpu_plan<'a>(
        &self,
        module: &mut Module<'c, 'a>,
        at: At<'c, 'a>,
        plan: &crate::schedule::plan::Plan,
        view: view::Op<'_, 'c, 'a>,
        (dims, surjective, accum_kind): (&[u64], bool, Accum),
    ) -> Result<bool, String> {
        let fresh = plan.lanes == Lanes::Result
            && view.accum.is_some()
            && view.init.is_none()
            && surjective;
        if !fresh {
            self.init_result(at, &view, dims, accum_kind)?;
        }
        let view = view::Op { fresh, ..view };
        self.lower_planned(module, at, plan, &view).map(|()| true)
    }

    /// The result's cells before the nest accumulates into them (OCANNL's
    /// initialisation): the initial operand (`fma`'s addend) copied in, or
    /// the neutral element `neutral` where a store does not cover every
    /// cell or accumulates (on the CPU).
    fn init_result<'a>(
        &self,
        at: At<'c, 'a>,
        op: &view::Op<'_, 'c, 'a>,
        dims: &[u64],
        neutral: Accum,
    ) -> Result<(), String> {
        let (p, loc) = (op.p, op.loc);
        let reductions = p.reductions();
        let injective = reductions.is_empty();
        let surjective = plain_box(&p.result, dims);
        let n_dims = p.product_space.len();
        if let Some(k) = op.init {
            // The result starts as operand `k`, read on the parallel
            // iterators (numbered first) only.
            let parallel = n_dims - reductions.len();
            let in_range = |idx: &[AxisIndex]| {
                idx.iter()
                    .all(|a| !matches!(a, AxisIndex::Iter(i) if *i >= parallel))
            };
            if !surjective || !in_range(&p.operands[k]) || !in_range(&p.result) {
                return Err("the addend must be indexed by the result's iterators".into());
            }
            let (inner, ivs) = self.nest(at, &p.product_space[..parallel], loc);
            let v = self.load(
                inner,
                op.operands[k],
                self.map(parallel, &p.operands[k]),
                &ivs,
                loc,
            );
            self.store(inner, v, op.buf, self.map(parallel, &p.result), &ivs, loc);
        } else if !surjective || (!injective && self.target.gpu_block.is_none()) {
            // (A GPU thread owns its cell: where every cell has one, it
            // starts from the neutral element in a register instead.)
            let elem = element_of(op.buf);
            self.fill(
                at,
                op.buf,
                dims,
                self.scalar_attr(elem, neutral.neutral()),
                loc,
            );
        }
        Ok(())
    }

    /// `op` as one scalar nest over its product space (no schedule), the
    /// reductions inside, reading out-of-range cells as `neutral`'s neutral
    /// element; `true` when it applied the epilogue (no accumulation).
    fn scalar_nest<'a>(
        &self,
        at: At<'c, 'a>,
        op: &view::Op<'_, 'c, 'a>,
        neutral: Accum,
    ) -> Result<bool, String> {
        let (p, loc) = (op.p, op.loc);
        let elem = element_of(op.buf);
        let result_map = self.map(p.product_space.len(), &p.result);
        // The outermost loop in parallel (schedule `loops`, `parallel`)
        // when it runs over the result's cells, not a reduction.
        let first = p.product_space.iter().position(|&n| n > 1);
        let parallel = self.target.parallel && first.is_some_and(|i| !p.reductions().contains(&i));
        let transposed = transposing(op).filter(|_| self.target.gpu_block.is_none());
        let (inner, ivs) = match transposed {
            Some((r, c)) => {
                self.transposed_nest(at, &p.product_space, (r, c, TRANSPOSE_TILE), parallel, loc)
            }
            None => self.nest_with(at, &p.product_space, parallel, loc),
        };
        let cell = |indices| Cell {
            indices,
            space: &p.product_space,
            ivs: &ivs,
        };
        let mut args = Vec::new();
        for (k, o) in op.operands.iter().enumerate() {
            if Some(k) == op.init {
                continue;
            }
            let pad = self.scalar_attr(element_of(*o), neutral.neutral());
            args.push(self.operand_load(inner, *o, cell(&p.operands[k]), pad, None, loc));
        }
        let mut value = self.compute(inner, op.compute, elem, &args, loc)?;
        if let Some(acc) = op.accum {
            let old = self.load(inner, op.buf, result_map, &ivs, loc);
            value = self.binary(inner, acc.function(), elem, old, value, loc)?;
        } else {
            value = self.epilogue(inner, op.epilogue, cell(&p.result), value, elem, loc)?;
        }
        self.store(inner, value, op.buf, result_map, &ivs, loc);
        Ok(op.accum.is_none())
    }
}

/// The tile of a transposing nest's result-contiguous iterator: 16 cells,
/// a 64-byte line of `f32`.
const TRANSPOSE_TILE: u64 = 16;

/// A copy-like nest (no reduction, nothing accumulated) that some operand
/// reads off the result's contiguous iterator `r`, its own contiguous axis
/// holding another result iterator `c` (a layout's reorder: an NHWC result
/// stored as NCHW at a function's boundary): `(r, c)`. In plain order each
/// read is a cache line of its own, a whole row of `c` apart (about 6 ns a
/// cell on a 64 × 112² copy); [`Emitter::transposed_nest`] runs `c` inside
/// a tile of `r`, so that the lines a tile reads stay in L1 and every store
/// fills a line.
fn transposing(op: &view::Op<'_, '_, '_>) -> Option<(usize, usize)> {
    let p = op.p;
    if !p.reductions().is_empty() || op.accum.is_some() || op.init.is_some() {
        return None;
    }
    let space = &p.product_space;
    let r = contiguous(&p.result, &buffer_dims(op.buf))?;
    if space[r] < 2 * TRANSPOSE_TILE {
        return None;
    }
    op.operands.iter().enumerate().find_map(|(k, o)| {
        let c = contiguous(&p.operands[k], &buffer_dims(*o))?;
        (c != r && space[c] > 1 && p.result.contains(&AxisIndex::Iter(c))).then_some((r, c))
    })
}

/// An op of the `Nest` family as [`Emitter::lower_nest`] receives it.
#[derive(Clone, Copy)]
struct Nest<'n, 'c, 'a> {
    op: OperationRef<'c, 'a>,
    def: &'static catalog::OpDef,
    operands: &'n [Value<'c, 'a>],
    buf: Value<'c, 'a>,
    dims: &'n [u64],
    epilogue: &'n [Step<'c, 'a>],
}
