//! `ocannl-plan-schedule`: writes each ocannl op's schedule
//! (`ocannl.schedule`, `schedule.rs`) from its projections and the
//! target machine (the pass options): on the CPU the plan of its loop nest
//! (vector lanes, register block, cache tiles, packing, the parallel loop:
//! `choose.rs`) or plain loops; on the GPU a grid or a tiled matrix
//! product; and the fusion groups (pointwise consumers computed as the
//! epilogue of their producer's nest: `fusion.rs`). Before any of these,
//! the layouts of the intermediates (`ocannl.layout`, `layouts.rs`).
//! `ocannl-lower-to-affine` obeys what it writes.
//!
//! Runs after `ocannl-infer-projections` (it reads `ocannl.indexing_maps`:
//! a loop-nest op without them gets plain loops, which the lowering then
//! rejects, asking for the projections). An op that already carries a
//! schedule keeps it (hand-written: the lowering checks it against the
//! projections), and is folded into a producer only when it says
//! `epilogue`. The pass never fails on the IR; bad options are errors.

mod choose;
mod fusion;
mod layouts;
mod target;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};

use melior::{
    Context,
    ir::{
        BlockLike, RegionLike, Type, Value,
        operation::{OperationLike, OperationRef},
    },
};
use ocannl_dialect::{
    catalog::{self, Computes},
    diagnostics::emit_error,
    ir,
};
use ocannl_shape::projection::Projections;

use self::target::Target;
use crate::{
    buffers::{Scalar, scalar},
    compute::{Accum, scalar_function},
    pass::{PassDef, PassFailed, PassOptions},
    projection_attrs::read_projections,
    schedule::{SCHEDULE, Schedule, attach, epilogue::layout, tiled::tiled},
    tensor_types::is_ocannl_function,
};

/// The registry entry of `ocannl-plan-schedule`.
pub const PASS: PassDef = PassDef {
    argument: c"ocannl-plan-schedule",
    description: c"Write each ocannl op's schedule (ocannl.schedule: vector lanes, register block, cache tiles, the parallel loop, GPU grids or tiled kernels, fusion groups) from its projections and the target; ops that carry one keep it",
    anchor: Some(c"builtin.module"),
    options: target::OPTIONS,
    run,
};

fn run<'c>(
    ctx: &'c Context,
    root: OperationRef<'c, '_>,
    options: &PassOptions,
) -> Result<(), PassFailed> {
    let target = match Target::from_options(options) {
        Ok(t) => t,
        Err(e) => {
            emit_error(root.location(), &e, &[]);
            return Err(PassFailed);
        }
    };
    let funcs = ir::collect_ops(root, |op| ir::Select {
        keep: ir::op_name(&op) == "func.func",
        descend: ir::op_name(&op) != "func.func",
    });
    for func in funcs {
        if is_ocannl_function(func) {
            plan_function(ctx, &target, func);
        }
    }
    Ok(())
}

/// Schedules the ops of `func`'s body.
fn plan_function<'c>(ctx: &'c Context, target: &Target, func: OperationRef<'c, '_>) {
    let Some(block) = func.region(0).ok().and_then(|r| r.first_block()) else {
        return;
    };
    let body_ops = || {
        let mut ops = Vec::new();
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            ops.push(op);
        }
        ops
    };
    layouts::choose_layouts(ctx, target, block, &body_ops());
    // Again: the layouts may have inserted copies.
    let ops = body_ops();
    let returned: Vec<Value<'c, '_>> = block
        .terminator()
        .map(|t| t.operands().collect())
        .unwrap_or_default();
    // Schedules written before planning, kept as they are (a malformed one
    // as `loops` here: the lowering reports it).
    let given: HashMap<usize, Schedule> = ops
        .iter()
        .filter(|op| op.attribute(SCHEDULE).is_ok())
        .map(|op| {
            let s = Schedule::of(*op).ok().flatten();
            (
                op.to_raw().ptr as usize,
                s.unwrap_or(Schedule::Loops { parallel: false }),
            )
        })
        .collect();
    let given_of = |op: &OperationRef<'c, '_>| given.get(&(op.to_raw().ptr as usize)).cloned();
    let mut folded = HashSet::new();
    for chain in fusion::chains(&ops, &returned, given_of) {
        for (op, step) in chain.folded.iter().zip(&chain.epilogue) {
            folded.insert(op.to_raw().ptr as usize);
            // The fused value is the operand that is not the other one.
            let operand = usize::from(step.other.as_ref().is_some_and(|o| o.first));
            if given_of(op).is_none() {
                attach(ctx, *op, &Schedule::Epilogue { operand });
            }
        }
    }
    for op in ops {
        let key = op.to_raw().ptr as usize;
        if given.contains_key(&key) || folded.contains(&key) {
            continue;
        }
        if let Some(def) = catalog::lookup(&ir::op_name(&op)) {
            attach(ctx, op, &choose_for(target, op, def));
        }
    }
}

/// The schedule of one op that is not folded into another.
fn choose_for(target: &Target, op: OperationRef<'_, '_>, def: &catalog::OpDef) -> Schedule {
    let gpu = target.gpu_block.map(|block| Schedule::Grid { block });
    let nest = (def.computes == Computes::Nest)
        .then(|| NestFacts::of(op))
        .flatten();
    let Some(nest) = nest else {
        // A concatenation's copies (disjoint blocks of the result) in
        // parallel when there are enough of them.
        let cells = (def.computes == Computes::Blocks)
            .then(|| op.result(0).ok())
            .flatten()
            .and_then(|r| layout(r.into()))
            .map_or(0, |(dims, _)| cells(&dims));
        return gpu.unwrap_or(Schedule::Loops {
            parallel: target.parallel && cells >= MIN_PARALLEL_WORK,
        });
    };
    if let Some(block) = target.gpu_block {
        let compute = scalar_function(op, def, nest.operand_dims.len());
        let accum = Accum::of(op, def);
        if let (true, Ok(compute), Ok(accum)) = (target.shared_tiles, compute, accum) {
            let init = def.init_operand;
            let accum = (!nest.p.reductions().is_empty() || init.is_some()).then_some(accum);
            if tiled(
                &nest.p,
                &nest.operand_dims,
                init,
                &compute,
                accum,
                nest.elem,
            )
            .is_some()
            {
                return Schedule::Tiled {
                    block,
                    emulate: target.gpu_emulate,
                };
            }
        }
        return Schedule::Grid { block };
    }
    let same_float = nest.same_elements && scalar(nest.elem) == Ok(Scalar::Float);
    match choose::plan(target, &nest.p, &nest.dims, &nest.operand_dims, nest.bits)
        .filter(|_| same_float)
    {
        Some(plan) => Schedule::Cpu {
            plan,
            // A small nest runs on one thread: a parallel region costs
            // microseconds to open, more than such a nest's work.
            parallel: target.parallel && work(&nest.p) >= MIN_PARALLEL_WORK,
        },
        None => Schedule::Loops {
            parallel: target.parallel && work(&nest.p) >= MIN_PARALLEL_WORK,
        },
    }
}

/// The fewest iterations of a nest's product space that run in parallel.
const MIN_PARALLEL_WORK: u64 = 1 << 15;

/// The iterations of a nest's product space.
fn work(p: &Projections) -> u64 {
    cells(&p.product_space)
}

/// The product of `sizes` (saturating).
fn cells(sizes: &[u64]) -> u64 {
    sizes.iter().fold(1u64, |acc, &d| acc.saturating_mul(d))
}

/// What the planner reads of a loop-nest op: its projections (from the
/// attributes), its result's and operands' memory dims and element types.
struct NestFacts<'c> {
    p: Projections,
    dims: Vec<u64>,
    operand_dims: Vec<Vec<u64>>,
    elem: Type<'c>,
    bits: u32,
    same_elements: bool,
}

impl<'c> NestFacts<'c> {
    /// `None` when the types are not lowerable or the projections absent
    /// or malformed (the lowering reports those).
    fn of(op: OperationRef<'c, '_>) -> Option<Self> {
        let (dims, elem) = layout(op.result(0).ok()?.into())?;
        let operands: Vec<(Vec<u64>, Type<'c>)> =
            op.operands().map(layout).collect::<Option<_>>()?;
        let same_elements = operands.iter().all(|(_, e)| *e == elem);
        let operand_dims: Vec<Vec<u64>> = operands.into_iter().map(|(d, _)| d).collect();
        let p = read_projections(op, &operand_dims, &dims).ok()??;
        Some(Self {
            p,
            dims,
            operand_dims,
            elem,
            bits: ir::bit_width(elem).unwrap_or(0),
            same_elements,
        })
    }
}
