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

/// The MLIR types and names a kernel's text uses.
struct Text<'t> {
    t: &'t Tiled,
    ta: &'t str,
    tb: &'t str,
    tc: &'t str,
    elem: &'t str,
    /// The tiles' type.
    shared: String,
}

impl Text<'_> {
    /// An operand's indices with the row, column and reduction positions
    /// named.
    fn index(roles: &[Role], row: &str, col: &str, red: &str) -> String {
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
    }

    /// The constants (`%z`, `%one`, `%T`, `%M`, `%N`, `%K`, `%zero`, the
    /// fixed indices).
    fn constants(&self) -> String {
        let (t, elem) = (self.t, self.elem);
        let mut w = format!(
            "%z = arith.constant 0 : index\n%one = arith.constant 1 : index\n%T = arith.constant {T} : index\n%M = arith.constant {} : index\n%N = arith.constant {} : index\n%K = arith.constant {} : index\n%zero = arith.constant 0.0 : {elem}\n",
            t.m, t.n, t.k
        );
        let mut fixed: Vec<u64> = vec![];
        for r in t.roles_a.iter().chain(&t.roles_b).chain(&t.roles_c) {
            if let Role::Fixed(v) = r
                && !fixed.contains(v)
            {
                fixed.push(*v);
                let _ = writeln!(w, "%f{v} = arith.constant {v} : index");
            }
        }
        w
    }

    /// A thread's position: `%i`, `%j` (its cell of C), the batch
    /// positions `%b<n>`, whether its cell exists (`%in`), from `%bx`,
    /// `%by`, `%bz`, `%tx`, `%ty`.
    fn position(&self) -> String {
        let mut w = String::from(
            "%by16 = arith.muli %by, %T : index\n%i = arith.addi %by16, %ty : index\n%bx16 = arith.muli %bx, %T : index\n%j = arith.addi %bx16, %tx : index\n",
        );
        let mut stride = 1u64;
        for (n, &size) in self.t.batch.iter().enumerate().rev() {
            let _ = writeln!(
                w,
                "%bs{n} = arith.constant {stride} : index\n%bn{n} = arith.constant {size} : index\n%bq{n} = arith.divui %bz, %bs{n} : index\n%b{n} = arith.remui %bq{n}, %bn{n} : index"
            );
            stride *= size;
        }
        w.push_str("%in_i = arith.cmpi ult, %i, %M : index\n%in_j = arith.cmpi ult, %j, %N : index\n%in = arith.andi %in_i, %in_j : i1\n");
        w
    }

    /// The sums' start in `%acc0`: the cell of C, or zero.
    fn start(&self, from_c: bool) -> String {
        let (elem, tc) = (self.elem, self.tc);
        if from_c {
            format!(
                "%acc0 = scf.if %in -> ({elem}) {{\n%c = memref.load %C[{}] : {tc}\nscf.yield %c : {elem}\n}} else {{\nscf.yield %zero : {elem}\n}}\n",
                Self::index(&self.t.roles_c, "%i", "%j", "%z")
            )
        } else {
            format!("%acc0 = arith.addf %zero, %zero : {elem}\n")
        }
    }

    /// The thread's cell of each tile for reduction step `%kt`, each tile
    /// read with threadIdx.x along the operand's contiguous (last) axis: a
    /// warp reads adjacent cells (coalesced), whichever of the tile's two
    /// axes that is (OCANNL's `"K->N"` weight is `[N, K]`); zero outside.
    fn load(&self) -> String {
        let (t, elem, shared) = (self.t, self.elem, &self.shared);
        let last = |roles: &[Role]| {
            roles
                .iter()
                .rev()
                .find(|r| !matches!(r, Role::Fixed(_) | Role::Batch(_)))
                .copied()
        };
        // A's tile: row r (a row of C), column c (a step of the reduction).
        let (ar, ak) = if last(&t.roles_a) == Some(Role::Row) {
            ("%tx", "%ty")
        } else {
            ("%ty", "%tx")
        };
        // B's tile: row r (a step of the reduction), column c (of C).
        let (bk, bc) = if last(&t.roles_b) == Some(Role::Red) {
            ("%tx", "%ty")
        } else {
            ("%ty", "%tx")
        };
        format!(
            "%ar = arith.addi %by16, {ar} : index\n%ak = arith.addi %kt, {ak} : index\n%ar_in = arith.cmpi ult, %ar, %M : index\n%ak_in = arith.cmpi ult, %ak, %K : index\n%oka = arith.andi %ar_in, %ak_in : i1\n%va = scf.if %oka -> ({elem}) {{\n%x = memref.load %A[{}] : {ta}\nscf.yield %x : {elem}\n}} else {{\nscf.yield %zero : {elem}\n}}\nmemref.store %va, %As[{ar}, {ak}] : {shared}\n\
%bk = arith.addi %kt, {bk} : index\n%bc = arith.addi %bx16, {bc} : index\n%bk_in = arith.cmpi ult, %bk, %K : index\n%bc_in = arith.cmpi ult, %bc, %N : index\n%okb = arith.andi %bk_in, %bc_in : i1\n%vb = scf.if %okb -> ({elem}) {{\n%y = memref.load %B[{}] : {tb}\nscf.yield %y : {elem}\n}} else {{\nscf.yield %zero : {elem}\n}}\nmemref.store %vb, %Bs[{bk}, {bc}] : {shared}\n",
            Self::index(&t.roles_a, "%ar", "%j", "%ak"),
            Self::index(&t.roles_b, "%i", "%bc", "%bk"),
            ta = self.ta,
            tb = self.tb,
        )
    }

    /// `%s`: `acc` plus the products of the thread's row of A's tile and
    /// column of B's tile.
    fn products(&self, acc: &str) -> String {
        let (elem, shared) = (self.elem, &self.shared);
        format!(
            "%s = scf.for %kk = %z to %T step %one iter_args(%s0 = {acc}) -> ({elem}) {{\n%p = memref.load %As[%ty, %kk] : {shared}\n%q = memref.load %Bs[%kk, %tx] : {shared}\n%f = math.fma %p, %q, %s0 : {elem}\nscf.yield %f : {elem}\n}}\n"
        )
    }

    /// Stores `acc` into the thread's cell of C, if it has one.
    fn store(&self, acc: &str) -> String {
        format!(
            "scf.if %in {{\nmemref.store {acc}, %C[{}] : {}\n}}\n",
            Self::index(&self.t.roles_c, "%i", "%j", "%z"),
            self.tc
        )
    }
}

/// The text of the helper function `name` holding the tiled kernel: a
/// `gpu.launch`, or (`emulate`) the same steps for the CPU, the threads of
/// a block looped between what would be its barriers and each thread's
/// accumulator in a block-sized buffer (`--target grid-on-cpu` checks the
/// kernel's indices and guards that way).
fn kernel_text(
    t: &Tiled,
    name: &str,
    (ta, tb, tc): (&str, &str, &str),
    elem: &str,
    start_from_c: bool,
    emulate: bool,
) -> String {
    let gz: u64 = t.batch.iter().product::<u64>().max(1);
    let (gx, gy) = (t.n.div_ceil(T), t.m.div_ceil(T));
    let tile = format!("memref<{T}x{T}x{elem}");
    let shared = if emulate {
        format!("{tile}>")
    } else {
        format!("{tile}, #gpu.address_space<workgroup>>")
    };
    let x = Text {
        t,
        ta,
        tb,
        tc,
        elem,
        shared,
    };
    let mut w = format!(
        "func.func private @{name}(%A: {ta}, %B: {tb}, %C: {tc}) {{\n%c1 = arith.constant 1 : index\n%cT = arith.constant {T} : index\n%gx = arith.constant {gx} : index\n%gy = arith.constant {gy} : index\n%gz = arith.constant {gz} : index\n"
    );
    if !emulate {
        let _ = writeln!(
            w,
            "gpu.launch blocks(%bx, %by, %bz) in (%sgx = %gx, %sgy = %gy, %sgz = %gz) threads(%tx, %ty, %tz) in (%sbx = %cT, %sby = %cT, %sbz = %c1) workgroup(%As : {s}, %Bs : {s}) {{",
            s = x.shared
        );
        w.push_str(&x.constants());
        w.push_str(&x.position());
        w.push_str(&x.start(start_from_c));
        let _ = writeln!(
            w,
            "%acc = scf.for %kt = %z to %K step %T iter_args(%a = %acc0) -> ({elem}) {{"
        );
        w.push_str(&x.load());
        w.push_str("gpu.barrier\n");
        w.push_str(&x.products("%a"));
        let _ = writeln!(w, "gpu.barrier\nscf.yield %s : {elem}\n}}");
        w.push_str(&x.store("%acc"));
        w.push_str("gpu.terminator\n}\nreturn\n}\n");
        return w;
    }
    w.push_str(&x.constants());
    let _ = writeln!(
        w,
        "%As = memref.alloca() : {s}\n%Bs = memref.alloca() : {s}\n%Acc = memref.alloca() : {s}",
        s = x.shared
    );
    // The block loops, then per phase a loop over the block's threads.
    w.push_str("scf.for %bz = %z to %gz step %one {\nscf.for %by = %z to %gy step %one {\nscf.for %bx = %z to %gx step %one {\n");
    let threads = |body: String| {
        format!(
            "scf.for %ty = %z to %T step %one {{\nscf.for %tx = %z to %T step %one {{\n{body}}}\n}}\n"
        )
    };
    let s = &x.shared;
    w.push_str(&threads(format!(
        "{}{}memref.store %acc0, %Acc[%ty, %tx] : {s}\n",
        x.position(),
        x.start(start_from_c)
    )));
    w.push_str("scf.for %kt = %z to %K step %T {\n");
    w.push_str(&threads(format!("{}{}", x.position(), x.load())));
    w.push_str(&threads(format!(
        "%a = memref.load %Acc[%ty, %tx] : {s}\n{}memref.store %s, %Acc[%ty, %tx] : {s}\n",
        x.products("%a")
    )));
    w.push_str("}\n");
    w.push_str(&threads(format!(
        "{}%acc = memref.load %Acc[%ty, %tx] : {s}\n{}",
        x.position(),
        x.store("%acc")
    )));
    w.push_str("}\n}\n}\nreturn\n}\n");
    w
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
        let (ta, tb, tc) = (memref(a), memref(b), memref(buf));
        let emulate = self.target.gpu_emulate;
        let text = kernel_text(t, &name, (&ta, &tb, &tc), &elem, start_from_c, emulate);
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
