//! Contractions on the GPU with shared-memory tiles (`target=gpu`): an op
//! whose projections are a (batched) matrix product `C[.., i, j] += A[..,
//! i, k] · B[.., k, j]` (any axis order in each operand, OCANNL's
//! transposed weights included) becomes an explicit `gpu.launch`. Each
//! block computes a `T × T` tile of C, one cell per thread; for each step
//! of `T` along the reduction, the block's threads copy a `T × T` tile of
//! A and one of B into workgroup memory (each thread one cell of each,
//! zero outside the operands), synchronise, accumulate `T` products from
//! there in a register, and synchronise again. Every operand cell is read
//! from global memory once per tile instead of once per product.
//!
//! The kernel is written as MLIR text in a private helper function (the
//! `gpu.launch` with its workgroup buffers and barriers), parsed, and
//! called from the lowered function; `gpu-kernel-outlining` outlines it
//! like the grids. Upstream's parallel-loop mapping cannot express
//! workgroup memory and barriers, hence the explicit launch.

use std::fmt::Write;

use melior::ir::{BlockLike, Location, Type, Value, ValueLike};
use ocannl_dialect::ir;
use ocannl_shape::projection::{AxisIndex, Projections};

use super::{
    Module,
    buffers::element_of,
    compute::{Accum, Compute},
    emit::{At, Emitter},
};

/// The tile side (threads per block: `T × T`).
const T: u64 = 16;

/// What an axis of an operand or of the result is indexed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Row,
    Col,
    Red,
    /// The batch iterator with this position in the batch list.
    Batch(usize),
    Fixed(u64),
}

/// A contraction in matrix-product form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Tiled {
    a: usize,
    b: usize,
    roles_a: Vec<Role>,
    roles_b: Vec<Role>,
    roles_c: Vec<Role>,
    m: u64,
    n: u64,
    k: u64,
    batch: Vec<u64>,
}

/// The roles of `indices`: every axis one of the given iterators or fixed.
fn roles(
    indices: &[AxisIndex],
    space: &[u64],
    row: usize,
    col: usize,
    red: usize,
    batch: &[usize],
) -> Option<Vec<Role>> {
    indices
        .iter()
        .map(|a| match a {
            AxisIndex::Iter(i) if *i == row => Some(Role::Row),
            AxisIndex::Iter(i) if *i == col => Some(Role::Col),
            AxisIndex::Iter(i) if *i == red => Some(Role::Red),
            AxisIndex::Iter(i) => match batch.iter().position(|b| b == i) {
                Some(n) => Some(Role::Batch(n)),
                None if space[*i] == 1 => Some(Role::Fixed(0)),
                None => None,
            },
            AxisIndex::Fixed(c) => Some(Role::Fixed(*c)),
            _ => None,
        })
        .collect()
}

/// The matrix-product form of an op, if it has one: two operands (besides
/// the initial value), one reduction longer than 1, a result row iterator
/// read with the reduction by one operand only and a column iterator (the
/// result's contiguous one) read with it by the other only; every other
/// iterator of the result is a batch iterator; `f32`/`f64` products
/// summed.
pub(super) fn tiled(
    p: &Projections,
    init: Option<usize>,
    compute: &Compute,
    accum: Option<Accum>,
    elem: Type<'_>,
) -> Option<Tiled> {
    if *compute != Compute::Binary("mul".into())
        || accum.map(|a| a.function()) != Some("add")
        || !matches!(ir::bit_width(elem), Some(32 | 64))
        || !elem.to_string().starts_with('f')
    {
        return None;
    }
    let space = &p.product_space;
    let operands: Vec<usize> = (0..p.operands.len()).filter(|&n| Some(n) != init).collect();
    let [x, y] = operands[..] else { return None };
    let reductions: Vec<usize> = p
        .reductions()
        .into_iter()
        .filter(|&r| space[r] > 1)
        .collect();
    let [red] = reductions[..] else { return None };
    let mut cells = vec![];
    for a in &p.result {
        match a {
            AxisIndex::Iter(i) if !cells.contains(i) => cells.push(*i),
            AxisIndex::Iter(_) | AxisIndex::Fixed(_) => {}
            _ => return None,
        }
    }
    let col = *cells.iter().rev().find(|&&i| space[i] > 1)?;
    let uses = |n: usize, i: usize| p.operands[n].iter().any(|a| a.uses(i));
    // B reads the column with the reduction; A the row with it.
    let (a, b) = if uses(y, col) && !uses(x, col) {
        (x, y)
    } else {
        (y, x)
    };
    if !(uses(b, col) && !uses(a, col) && uses(a, red) && uses(b, red)) {
        return None;
    }
    let row = *cells
        .iter()
        .find(|&&i| i != col && space[i] > 1 && uses(a, i) && !uses(b, i))?;
    let batch: Vec<usize> = cells
        .iter()
        .copied()
        .filter(|&i| i != row && i != col)
        .collect();
    let tiled = Tiled {
        a,
        b,
        roles_a: roles(&p.operands[a], space, row, col, red, &batch)?,
        roles_b: roles(&p.operands[b], space, row, col, red, &batch)?,
        roles_c: roles(&p.result, space, row, col, red, &batch)?,
        m: space[row],
        n: space[col],
        k: space[red],
        batch: batch.iter().map(|&i| space[i]).collect(),
    };
    // The grid's limits: x up to 2^31 - 1 blocks, y and z up to 65535.
    let gz: u64 = tiled.batch.iter().product();
    if tiled.n.div_ceil(T) >= 1 << 31 || tiled.m.div_ceil(T) > 65535 || gz > 65535 {
        return None;
    }
    // The operands read the row (A), the column (B) and the reduction
    // exactly once each; the result reads no reduction.
    let once = |r: &[Role], role: Role| r.iter().filter(|&&x| x == role).count() == 1;
    (once(&tiled.roles_a, Role::Row)
        && once(&tiled.roles_a, Role::Red)
        && once(&tiled.roles_b, Role::Col)
        && once(&tiled.roles_b, Role::Red)
        && !tiled.roles_c.contains(&Role::Red))
    .then_some(tiled)
}

fn memref(v: Value<'_, '_>) -> String {
    v.r#type().to_string()
}

/// The text of the helper function `name` holding the tiled kernel.
fn kernel_text(
    t: &Tiled,
    name: &str,
    ta: &str,
    tb: &str,
    tc: &str,
    elem: &str,
    start_from_c: bool,
) -> String {
    let gz: u64 = t.batch.iter().product::<u64>().max(1);
    let (gx, gy) = (t.n.div_ceil(T), t.m.div_ceil(T));
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(
        w,
        "func.func private @{name}(%A: {ta}, %B: {tb}, %C: {tc}) {{"
    );
    let _ = writeln!(
        w,
        "  %c1 = arith.constant 1 : index\n  %cT = arith.constant {T} : index\n  %gx = arith.constant {gx} : index\n  %gy = arith.constant {gy} : index\n  %gz = arith.constant {gz} : index"
    );
    let shared = format!("memref<{T}x{T}x{elem}, #gpu.address_space<workgroup>>");
    let _ = writeln!(
        w,
        "  gpu.launch blocks(%bx, %by, %bz) in (%sgx = %gx, %sgy = %gy, %sgz = %gz) threads(%tx, %ty, %tz) in (%sbx = %cT, %sby = %cT, %sbz = %c1) workgroup(%As : {shared}, %Bs : {shared}) {{"
    );
    let _ = writeln!(
        w,
        "    %z = arith.constant 0 : index\n    %one = arith.constant 1 : index\n    %T = arith.constant {T} : index\n    %M = arith.constant {} : index\n    %N = arith.constant {} : index\n    %K = arith.constant {} : index\n    %zero = arith.constant 0.0 : {elem}",
        t.m, t.n, t.k
    );
    let _ = writeln!(
        w,
        "    %by16 = arith.muli %by, %T : index\n    %i = arith.addi %by16, %ty : index\n    %bx16 = arith.muli %bx, %T : index\n    %j = arith.addi %bx16, %tx : index"
    );
    // The batch positions: the block's z index delinearised.
    let mut stride = 1u64;
    for (n, &size) in t.batch.iter().enumerate().rev() {
        let _ = writeln!(
            w,
            "    %bs{n} = arith.constant {stride} : index\n    %bn{n} = arith.constant {size} : index\n    %bq{n} = arith.divui %bz, %bs{n} : index\n    %b{n} = arith.remui %bq{n}, %bn{n} : index"
        );
        stride *= size;
    }
    let fixed = |w: &mut String, v: u64| -> String {
        let name = format!("%f{v}");
        if !w.contains(&format!("{name} = ")) {
            let _ = writeln!(w, "    {name} = arith.constant {v} : index");
        }
        name
    };
    // The constants the indices use, declared before the loops.
    for r in t.roles_a.iter().chain(&t.roles_b).chain(&t.roles_c) {
        if let Role::Fixed(v) = r {
            fixed(w, *v);
        }
    }
    // An operand's indices with the row, column and reduction positions
    // named.
    let index = |roles: &[Role], row: &str, col: &str, red: &str| -> String {
        roles
            .iter()
            .map(|r| match r {
                Role::Row => row.to_owned(),
                Role::Col => col.to_owned(),
                Role::Red => red.to_owned(),
                Role::Batch(n) => format!("%b{n}"),
                Role::Fixed(v) => format!("%f{v}"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        w,
        "    %in_i = arith.cmpi ult, %i, %M : index\n    %in_j = arith.cmpi ult, %j, %N : index\n    %in = arith.andi %in_i, %in_j : i1"
    );
    let start = if start_from_c {
        let _ = writeln!(
            w,
            "    %acc0 = scf.if %in -> ({elem}) {{\n      %c = memref.load %C[{}] : {tc}\n      scf.yield %c : {elem}\n    }} else {{\n      scf.yield %zero : {elem}\n    }}",
            index(&t.roles_c, "%i", "%j", "%z")
        );
        "%acc0"
    } else {
        "%zero"
    };
    let _ = writeln!(
        w,
        "    %acc = scf.for %kt = %z to %K step %T iter_args(%a = {start}) -> ({elem}) {{"
    );
    // Each tile is loaded with threadIdx.x along the operand's contiguous
    // (last) axis: a warp reads adjacent cells (coalesced), whichever of
    // its two axes that is (OCANNL's `"K->N"` weight is `[N, K]`).
    let last = |roles: &[Role]| {
        roles
            .iter()
            .rev()
            .find(|r| !matches!(r, Role::Fixed(_) | Role::Batch(_)))
            .copied()
    };
    // A: tile row r (a row of C), tile column c (a step of the reduction).
    let (ar, ak) = if last(&t.roles_a) == Some(Role::Row) {
        ("%tx", "%ty")
    } else {
        ("%ty", "%tx")
    };
    let _ = writeln!(
        w,
        "      %ar = arith.addi %by16, {ar} : index\n      %ak = arith.addi %kt, {ak} : index\n      %ar_in = arith.cmpi ult, %ar, %M : index\n      %ak_in = arith.cmpi ult, %ak, %K : index\n      %oka = arith.andi %ar_in, %ak_in : i1\n      %va = scf.if %oka -> ({elem}) {{\n        %x = memref.load %A[{}] : {ta}\n        scf.yield %x : {elem}\n      }} else {{\n        scf.yield %zero : {elem}\n      }}\n      memref.store %va, %As[{ar}, {ak}] : {shared}",
        index(&t.roles_a, "%ar", "%j", "%ak")
    );
    // B: tile row r (a step of the reduction), tile column c (a column of C).
    let (bk, bc) = if last(&t.roles_b) == Some(Role::Red) {
        ("%tx", "%ty")
    } else {
        ("%ty", "%tx")
    };
    let _ = writeln!(
        w,
        "      %bk = arith.addi %kt, {bk} : index\n      %bc = arith.addi %bx16, {bc} : index\n      %bk_in = arith.cmpi ult, %bk, %K : index\n      %bc_in = arith.cmpi ult, %bc, %N : index\n      %okb = arith.andi %bk_in, %bc_in : i1\n      %vb = scf.if %okb -> ({elem}) {{\n        %y = memref.load %B[{}] : {tb}\n        scf.yield %y : {elem}\n      }} else {{\n        scf.yield %zero : {elem}\n      }}\n      memref.store %vb, %Bs[{bk}, {bc}] : {shared}",
        index(&t.roles_b, "%i", "%bc", "%bk")
    );
    let _ = writeln!(
        w,
        "      gpu.barrier\n      %s = scf.for %kk = %z to %T step %one iter_args(%s0 = %a) -> ({elem}) {{\n        %p = memref.load %As[%ty, %kk] : {shared}\n        %q = memref.load %Bs[%kk, %tx] : {shared}\n        %f = math.fma %p, %q, %s0 : {elem}\n        scf.yield %f : {elem}\n      }}\n      gpu.barrier\n      scf.yield %s : {elem}\n    }}"
    );
    let _ = writeln!(
        w,
        "    scf.if %in {{\n      memref.store %acc, %C[{}] : {tc}\n    }}\n    gpu.terminator\n  }}\n  return\n}}",
        index(&t.roles_c, "%i", "%j", "%z")
    );
    s
}

impl<'c> Emitter<'c> {
    /// The tiled kernel of `t` for operands `operands` into `buf`, as a
    /// helper function in `module` called at `at`; `start_from_c`: the
    /// result already holds its initial value (an addend), else the sums
    /// start at zero.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lower_tiled<'a>(
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
        let text = kernel_text(
            t,
            &name,
            &memref(a),
            &memref(b),
            &memref(buf),
            &elem,
            start_from_c,
        );
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
