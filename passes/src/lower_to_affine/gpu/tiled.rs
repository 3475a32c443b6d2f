//! Contractions on the GPU with shared-memory tiles (`target=gpu`): an op
//! whose projections are a (batched) matrix product `C[.., m, n] += A[..,
//! m, k] · B[.., k, n]`, where `m` may be several iterators (a convolution's
//! batch and output positions), `k` several reductions (its window and
//! input channels, read through strided and padded indices), `n` is the
//! result's contiguous iterator, and the operands' axes come in any order
//! (OCANNL's transposed weights included), becomes an explicit
//! `gpu.launch` (an implicit GEMM for convolutions). Each block of 16 × 16
//! threads computes a 64 × 64 tile of C, each thread a 4 × 4 block of it
//! (rows `ty + 16a`, columns `tx + 16b`: a warp's stores are adjacent).
//! For each step of 16 along the reduction, the threads copy a 64 × 16
//! tile of A and a 16 × 64 tile of B into workgroup memory (four cells
//! each, threadIdx.x along each operand's contiguous axis, so a warp's
//! loads are adjacent; zero outside the operands and in the padding),
//! synchronise, accumulate 16 products into each of their 16 registers
//! (4 + 4 loads from workgroup memory per 16 FMAs), and synchronise again.
//!
//! The kernel is written as MLIR text ([`text`]) in a private helper
//! function (the `gpu.launch` with its workgroup buffers and barriers),
//! parsed, and called from the lowered function; `gpu-kernel-outlining`
//! outlines it like the grids. Upstream's parallel-loop mapping cannot
//! express workgroup memory and barriers, hence the explicit launch. The
//! same generator writes the kernel's steps as CPU loops
//! (`shared-tiles=emulate`), which the differential tests run.

mod text;

use melior::ir::{BlockLike, Location, Type, Value, ValueLike};
use ocannl_dialect::ir;
use ocannl_shape::projection::{AxisIndex, Projections};

use crate::lower_to_affine::{
    Module,
    buffers::element_of,
    compute::{Accum, BinaryFn, Compute},
    emit::{At, Emitter},
};

/// Threads per block along x and y; the reduction step.
const T: u64 = 16;
/// Cells per thread along rows and columns.
const R: u64 = 4;
/// The block's tile of C: `B × B` cells.
const B: u64 = T * R;

/// A contraction in matrix-product form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::lower_to_affine) struct Tiled {
    a: usize,
    b: usize,
    /// The operands' and the result's indices (over the product space) and
    /// the operands' dims (padding guards).
    idx_a: Vec<AxisIndex>,
    idx_b: Vec<AxisIndex>,
    idx_c: Vec<AxisIndex>,
    dims_a: Vec<u64>,
    dims_b: Vec<u64>,
    space: Vec<u64>,
    /// The row iterators (outermost first), the column iterator, the
    /// reductions, the batch iterators (read by both operands: the grid's
    /// z), each with its extent.
    rows: Vec<(usize, u64)>,
    col: (usize, u64),
    reds: Vec<(usize, u64)>,
    batch: Vec<(usize, u64)>,
    m: u64,
    n: u64,
    k: u64,
}

/// The iterators an index reads.
fn iterators(a: &AxisIndex) -> Vec<usize> {
    match a {
        AxisIndex::Iter(i) => vec![*i],
        AxisIndex::Affine(x) => x.over.iter().chain(&x.kernel).map(|(i, _)| *i).collect(),
        _ => vec![],
    }
}

/// The matrix-product form of an op, if it has one: `f32`/`f64` products
/// summed over two operands (besides the initial value); the result's
/// contiguous iterator `n` read by one of them (B) only; the result's other
/// iterators read by the other (A) only (rows), by both (batch) or by
/// neither (rows); B reads no row; indices plain, fixed or affine (strides,
/// dilations, padding), not concatenated; the products small enough for
/// the grid.
pub(in crate::lower_to_affine) fn tiled(
    p: &Projections,
    operand_dims: &[Vec<u64>],
    init: Option<usize>,
    compute: &Compute,
    accum: Option<Accum>,
    elem: Type<'_>,
) -> Option<Tiled> {
    if *compute != Compute::Binary(BinaryFn::Mul)
        || accum.map(|a| a.function()) != Some(BinaryFn::Add)
        || !matches!(ir::bit_width(elem), Some(32 | 64))
        || !elem.to_string().starts_with('f')
    {
        return None;
    }
    let space = &p.product_space;
    let operands: Vec<usize> = (0..p.operands.len()).filter(|&n| Some(n) != init).collect();
    let [x, y] = operands[..] else { return None };
    let mut cells = vec![];
    for a in &p.result {
        match a {
            AxisIndex::Iter(i) if !cells.contains(i) => cells.push(*i),
            AxisIndex::Iter(_) | AxisIndex::Fixed(_) => {}
            _ => return None,
        }
    }
    let col = *cells.iter().rev().find(|&&i| space[i] > 1)?;
    let uses = |n: usize, i: usize| p.operands[n].iter().any(|a| iterators(a).contains(&i));
    let (a, b) = if uses(y, col) && !uses(x, col) {
        (x, y)
    } else {
        (y, x)
    };
    if !uses(b, col) || uses(a, col) {
        return None;
    }
    let mut rows = vec![];
    let mut batch = vec![];
    for &i in cells.iter().filter(|&&i| i != col && space[i] > 1) {
        match (uses(a, i), uses(b, i)) {
            (true, true) => batch.push((i, space[i])),
            (false, true) => return None,
            _ => rows.push((i, space[i])),
        }
    }
    let reds: Vec<(usize, u64)> = p
        .reductions()
        .into_iter()
        .filter(|&r| space[r] > 1)
        .map(|r| (r, space[r]))
        .collect();
    if rows.is_empty() || reds.is_empty() {
        return None;
    }
    // Indices the kernel can compute: no concatenation; every iterator one
    // of the roles' (or of extent 1).
    let known = |i: usize| {
        space[i] == 1 || i == col || rows.iter().chain(&reds).chain(&batch).any(|(r, _)| *r == i)
    };
    let fits = |idx: &[AxisIndex]| {
        idx.iter()
            .all(|a| !matches!(a, AxisIndex::Concat(_)) && iterators(a).into_iter().all(known))
    };
    if !fits(&p.operands[a]) || !fits(&p.operands[b]) {
        return None;
    }
    let product = |v: &[(usize, u64)]| v.iter().try_fold(1u64, |acc, (_, e)| acc.checked_mul(*e));
    let (m, k, gz) = (product(&rows)?, product(&reds)?, product(&batch)?);
    let n = space[col];
    // The grid's limits: x up to 2^31 - 1 blocks, y and z up to 65535;
    // linear row and reduction positions in `index` (i64).
    if n.div_ceil(B) >= 1 << 31 || m.div_ceil(B) > 65535 || gz > 65535 || m > 1 << 62 || k > 1 << 62
    {
        return None;
    }
    Some(Tiled {
        a,
        b,
        idx_a: p.operands[a].clone(),
        idx_b: p.operands[b].clone(),
        idx_c: p.result.clone(),
        dims_a: operand_dims[a].clone(),
        dims_b: operand_dims[b].clone(),
        space: space.clone(),
        rows,
        col: (col, n),
        reds,
        batch,
        m,
        n,
        k,
    })
}

fn memref(v: Value<'_, '_>) -> String {
    v.r#type().to_string()
}

impl<'c> Emitter<'c> {
    /// The tiled kernel of `t` for operands `operands` into `buf`, as a
    /// helper function in `module` called at `at`; `start_from_c`: the
    /// result already holds its initial value (an addend), else the sums
    /// start at zero.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::lower_to_affine) fn lower_tiled<'a>(
        &self,
        module: &mut Module<'c, 'a>,
        at: At<'c, 'a>,
        t: &Tiled,
        operands: &[Value<'c, 'a>],
        buf: Value<'c, 'a>,
        start_from_c: bool,
        loc: Location<'c>,
    ) -> Result<(), String> {
        let (a, b) = (operands[t.a], operands[t.b]);
        let elem = element_of(buf).to_string();
        let name = module.fresh_symbol("__ocannl_tiled");
        let (ta, tb, tc) = (memref(a), memref(b), memref(buf));
        let emulate = self.target.gpu_emulate;
        let text = text::kernel(t, &name, (&ta, &tb, &tc), &elem, start_from_c, emulate);
        let parsed = melior::ir::Module::parse(self.ctx, &text)
            .ok_or_else(|| format!("the tiled kernel does not parse:\n{text}"))?;
        let func = parsed
            .body()
            .first_operation()
            .ok_or("the tiled kernel's module is empty")?;
        module.insert(ir::clone_op(func));
        let callee = melior::ir::attribute::FlatSymbolRefAttribute::new(self.ctx, &name);
        self.emit(
            at,
            "func.call",
            &[a, b, buf],
            &[],
            &[("callee", callee.into())],
            loc,
        );
        Ok(())
    }
}
