//! One ocannl op as affine loop nests over its operands' and result's
//! buffers, built from its projections (OCANNL's
//! `arrayjit/lib/assignments.ml`: the loop nest of an assignment and its
//! initialisation).

use melior::ir::{
    BlockRef, Type, Value, ValueLike,
    operation::{OperationLike, OperationRef},
};
use ocannl_dialect::{
    catalog::{self, Computes},
    ir,
};
use ocannl_shape::projection::{AffineIndex, AxisIndex, Projections};

use super::{
    Module,
    buffers::{Scalar, element_of, scalar},
    compute::{Accum, Compute},
    emit::{At, Emitter},
    fusion::Step,
    gpu, gpu_tiled, kernel, schedule,
};
use crate::{
    infer_projections::projections, op_logic::string_attr, projection_attrs::read_projections,
};

/// Whether `indices` write each cell of an axis box once and cover it: per
/// axis its own iterator (possibly shifted by a constant), or a fixed 0 on a
/// size-1 axis.
pub(super) fn plain_box(indices: &[AxisIndex], dims: &[u64]) -> bool {
    let mut seen = vec![];
    indices.iter().zip(dims).all(|(a, &d)| match a {
        AxisIndex::Iter(i)
        | AxisIndex::Affine(AffineIndex {
            over: Some((i, 1)),
            kernel: None,
            ..
        }) if !seen.contains(i) => {
            seen.push(*i);
            true
        }
        AxisIndex::Fixed(0) => d == 1,
        _ => false,
    })
}

impl<'c> Emitter<'c> {
    /// The loop nest(s) of `op` writing into `buf` (of dims `dims`), reading
    /// `operands`, then `epilogue` on each value (fused consumers).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lower_op<'a>(
        &self,
        module: &mut Module<'c, 'a>,
        at: At<'c, 'a>,
        op: OperationRef<'c, 'a>,
        operands: &[Value<'c, 'a>],
        buf: Value<'c, 'a>,
        dims: &[u64],
        epilogue: &[Step<'c, 'a>],
    ) -> Result<BlockRef<'c, 'a>, String> {
        let loc = op.location();
        let mut at = at;
        let lowered = self.lower_op_nests(module, &mut at, op, operands, buf, dims, epilogue)?;
        if !lowered && !epilogue.is_empty() {
            // The nest stores partial values (a reduction's running sums):
            // the epilogue runs over the finished result, in place.
            let elem = element_of(buf);
            let (inner, ivs) = self.nest(at, dims, loc);
            let map = self.identity(dims.len());
            let v = self.load(inner, buf, map, &ivs, loc);
            let axes: Vec<AxisIndex> = (0..dims.len()).map(AxisIndex::Iter).collect();
            let v = self.epilogue(inner, epilogue, &axes, dims, &ivs, v, elem, loc)?;
            self.store(inner, v, buf, map, &ivs, loc);
        }
        Ok(at.block)
    }

    /// [`Emitter::lower_op`]'s nests; `true` when they applied `epilogue`
    /// to every value they stored last.
    #[allow(clippy::too_many_arguments)]
    fn lower_op_nests<'a>(
        &self,
        module: &mut Module<'c, 'a>,
        at: &mut At<'c, 'a>,
        op: OperationRef<'c, 'a>,
        operands: &[Value<'c, 'a>],
        buf: Value<'c, 'a>,
        dims: &[u64],
        epilogue: &[Step<'c, 'a>],
    ) -> Result<bool, String> {
        let loc = op.location();
        let elem = element_of(buf);
        let name = ir::op_name(&op);
        let at_block = at;
        let at = *at_block;
        let def = catalog::lookup(&name).ok_or_else(|| "unknown ocannl op".to_owned())?;
        match def.computes {
            Computes::Constant => {
                return self
                    .lower_constant(module, at, op, buf, dims)
                    .map(|()| false);
            }
            Computes::Range => return self.lower_range(at, buf, dims, loc).map(|()| false),
            Computes::Reshape => {
                return self
                    .lower_reshape(at, op, operands[0], buf, dims)
                    .map(|()| false);
            }
            Computes::Blocks => {
                return self
                    .lower_block(at_block, op, operands, buf, dims)
                    .map(|()| false);
            }
            Computes::Nest => {}
        }
        let compute = scalar_function(op, def, operands.len())?;
        // A `where` condition may have another element type.
        check_elements(operands, elem, compute == Compute::Where)?;
        let p = op_projections(op, operands, dims)?;
        let init = def.init_operand;
        if p.result.iter().any(|a| matches!(a, AxisIndex::Affine(_))) {
            return Err("strided or convolution indices of the result are not lowered".into());
        }
        let reductions = p.reductions();
        let injective = reductions.is_empty();
        let surjective = plain_box(&p.result, dims);
        // The op's accumulation operator: its neutral element fills cells a
        // store does not cover, and it combines values a store reaches more
        // than once.
        let accum_kind = match def.accum {
            "attr" => Accum::parse(string_attr(&op, "accum").as_deref())?,
            name => Accum::parse(Some(name))?,
        };
        let accum = (!injective || init.is_some()).then_some(accum_kind);
        let n_dims = p.product_space.len();
        let result_map = self.map(n_dims, &p.result);
        if let Some(k) = init {
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
                operands[k],
                self.map(parallel, &p.operands[k]),
                &ivs,
                loc,
            );
            self.store(inner, v, buf, self.map(parallel, &p.result), &ivs, loc);
        } else if !surjective || (!injective && self.target.gpu_block.is_none()) {
            // (A GPU thread owns its cell: where every cell has one, it
            // starts from the neutral element in a register instead.)
            self.fill(
                at,
                buf,
                dims,
                self.scalar_attr(elem, accum_kind.neutral()),
                loc,
            );
        }
        let operand_dims: Vec<Vec<u64>> = operands.iter().map(|o| buffer_dims(*o)).collect();
        let same_elements = operands.iter().all(|o| element_of(*o) == elem);
        let bits = ir::bit_width(elem).unwrap_or(0);
        let float = scalar(elem) == Ok(Scalar::Float);
        if let Some(plan) = schedule::plan(&self.target, &p, dims, &operand_dims, bits)
            .filter(|_| same_elements && float)
        {
            let op = kernel::Op {
                p: &p,
                operands,
                init,
                compute: &compute,
                accum,
                epilogue,
                buf,
                loc,
                packed: [None; 2],
            };
            return self.lower_planned(at, &plan, &op).map(|()| true);
        }
        if let Some(block) = self.target.gpu_block {
            if self.target.shared_tiles
                && let Some(t) = gpu_tiled::tiled(&p, &operand_dims, init, &compute, accum, elem)
            {
                // The result holds its addend, or the neutral element where
                // not every cell is written; else the sums start at zero.
                // The epilogue then runs in place (a grid).
                let start_from_c = init.is_some() || !surjective;
                self.lower_tiled(module, at, &t, operands, buf, start_from_c, loc)?;
                return Ok(false);
            }
            let op = gpu::GpuOp {
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
            return self.lower_gpu(at, &op, block).map(|()| true);
        }
        let (inner, ivs) = self.nest(at, &p.product_space, loc);
        let mut args = Vec::new();
        for (k, o) in operands.iter().enumerate() {
            if Some(k) == init {
                continue;
            }
            let pad = self.scalar_attr(element_of(*o), accum_kind.neutral());
            args.push(self.operand_load(
                inner,
                *o,
                &p.operands[k],
                &p.product_space,
                &ivs,
                pad,
                None,
                loc,
            ));
        }
        let mut value = self.compute(inner, &compute, elem, &args, loc)?;
        if let Some(acc) = accum {
            let old = self.load(inner, buf, result_map, &ivs, loc);
            value = self.binary(inner, acc.function(), elem, old, value, loc)?;
        } else {
            value = self.epilogue(
                inner,
                epilogue,
                &p.result,
                &p.product_space,
                &ivs,
                value,
                elem,
                loc,
            )?;
        }
        self.store(inner, value, buf, result_map, &ivs, loc);
        Ok(accum.is_none())
    }
}

/// What `op` (catalog entry `def`, `n` operands) computes at each point:
/// its ODS `scalarFn`, for `combine` read from the op's `combine`
/// attribute.
pub(super) fn scalar_function(
    op: OperationRef<'_, '_>,
    def: &catalog::OpDef,
    n: usize,
) -> Result<Compute, String> {
    // The operand the result starts from is not an argument.
    let n = n - usize::from(def.init_operand.is_some());
    let function = |f: &str| -> Result<Compute, String> {
        Ok(match (f, n) {
            ("identity", 1) => Compute::Identity,
            ("where", 3) => Compute::Where,
            ("fma", 3) => Compute::Fma,
            ("identity" | "where" | "fma", n) => {
                return Err(format!("'{f}' does not take {n} operands"));
            }
            (f, 1) => Compute::Unary(f.into()),
            (f, 2) => Compute::Binary(f.into()),
            (f, n) => return Err(format!("'{f}' does not take {n} operands")),
        })
    };
    if def.scalar_fn != "combine" {
        return function(def.scalar_fn);
    }
    let combine = string_attr(&op, "combine");
    match (n, combine.as_deref()) {
        (1, _) => Ok(Compute::Identity),
        (2, None) => function("mul"),
        (3, None) => function("fma"),
        (_, Some(c)) => {
            function(c).map_err(|_| format!("combine '{c}' does not take {n} operands"))
        }
        _ => Err(format!("{n} operands")),
    }
}

/// Every operand has the result's element type `elem` (but operand #0 when
/// it is a `where` condition).
pub(super) fn check_elements(
    operands: &[Value<'_, '_>],
    elem: Type<'_>,
    condition: bool,
) -> Result<(), String> {
    for (i, o) in operands.iter().enumerate() {
        if !(condition && i == 0) && element_of(*o) != elem {
            return Err(format!(
                "operand #{i} has element type {} but the result has {elem}",
                element_of(*o)
            ));
        }
    }
    Ok(())
}

/// The static sizes of a buffer.
pub(super) fn buffer_dims(buf: Value<'_, '_>) -> Vec<u64> {
    ir::shaped_dims(buf.r#type())
        .expect("buffers are ranked memrefs")
        .into_iter()
        .map(|d| d.unwrap_or(0).max(0) as u64)
        .collect()
}

/// The op's projections: from the attributes of `ocannl-infer-projections`
/// when present (checked against the buffers), else computed.
fn op_projections(
    op: OperationRef<'_, '_>,
    operands: &[Value<'_, '_>],
    dims: &[u64],
) -> Result<Projections, String> {
    let operand_dims: Vec<Vec<u64>> = operands.iter().map(|o| buffer_dims(*o)).collect();
    projections_for(op, &operand_dims, dims)
}

/// The op's projections for operands and a result of these memory dims.
pub(super) fn projections_for(
    op: OperationRef<'_, '_>,
    operand_dims: &[Vec<u64>],
    dims: &[u64],
) -> Result<Projections, String> {
    match read_projections(op, operand_dims, dims)? {
        Some(p) => Ok(p),
        None => projections(op)?.ok_or_else(|| "has no projections".to_owned()),
    }
}
