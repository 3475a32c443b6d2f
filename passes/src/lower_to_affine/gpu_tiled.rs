//! Contractions on the GPU with shared-memory tiles (`target=gpu`): an op
//! whose projections are a (batched) matrix product `C[.., i, j] += A[..,
//! i, k] · B[.., k, j]` (any axis order in each operand, OCANNL's
//! transposed weights included) becomes an explicit `gpu.launch`. Each
//! block of 16 × 16 threads computes a 64 × 64 tile of C, each thread a
//! 4 × 4 block of it (rows `ty + 16a`, columns `tx + 16b`: a warp's stores
//! are adjacent). For each step of 16 along the reduction, the threads
//! copy a 64 × 16 tile of A and a 16 × 64 tile of B into workgroup memory
//! (four cells each, threadIdx.x along each operand's contiguous axis, so
//! a warp's loads are adjacent; zero outside the operands), synchronise,
//! accumulate 16 products into each of their 16 registers (4 + 4 loads
//! from workgroup memory per 16 FMAs), and synchronise again.
//!
//! The kernel is written as MLIR text in a private helper function (the
//! `gpu.launch` with its workgroup buffers and barriers), parsed, and
//! called from the lowered function; `gpu-kernel-outlining` outlines it
//! like the grids. Upstream's parallel-loop mapping cannot express
//! workgroup memory and barriers, hence the explicit launch. The same
//! text generator writes the kernel's steps as CPU loops
//! (`shared-tiles=emulate`), which the differential tests run.

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

/// Threads per block along x and y; the reduction step.
const T: u64 = 16;
/// Cells per thread along rows and columns.
const R: u64 = 4;
/// The block's tile of C: `B × B` cells.
const B: u64 = T * R;

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
    if tiled.n.div_ceil(B) >= 1 << 31 || tiled.m.div_ceil(B) > 65535 || gz > 65535 {
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
    /// The type of A's tile (`B × T`) and of B's (`T × B`).
    tile_a: String,
    tile_b: String,
}

/// The cells of a thread's block, `(a, b)` row-major.
fn cells() -> impl Iterator<Item = (u64, u64)> {
    (0..R).flat_map(|a| (0..R).map(move |b| (a, b)))
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

    /// The constants: `%z`, `%one`, `%T`, `%bside`, `%M`, `%N`, `%K`,
    /// `%zero`, the offsets `%o<n>` (`16n`), the fixed indices `%f<v>`.
    fn constants(&self) -> String {
        let (t, elem) = (self.t, self.elem);
        let mut w = format!(
            "%z = arith.constant 0 : index\n%one = arith.constant 1 : index\n%T = arith.constant {T} : index\n%bside = arith.constant {B} : index\n%M = arith.constant {} : index\n%N = arith.constant {} : index\n%K = arith.constant {} : index\n%zero = arith.constant 0.0 : {elem}\n",
            t.m, t.n, t.k
        );
        for q in 0..R {
            let _ = writeln!(w, "%o{q} = arith.constant {} : index", q * T);
        }
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

    /// A thread's position from `%bx`, `%by`, `%bz`, `%tx`, `%ty`: its rows
    /// `%i<a>` and columns `%j<b>` of C, their offsets in the block's tile
    /// (`%ty<a>`, `%tx<b>`), whether they exist (`%in_i<a>`, `%in_j<b>`),
    /// the batch positions `%b<n>`.
    fn position(&self) -> String {
        let mut w = String::from(
            "%byB = arith.muli %by, %bside : index\n%bxB = arith.muli %bx, %bside : index\n",
        );
        for q in 0..R {
            let _ = writeln!(
                w,
                "%ty{q} = arith.addi %ty, %o{q} : index\n%i{q} = arith.addi %byB, %ty{q} : index\n%in_i{q} = arith.cmpi ult, %i{q}, %M : index\n%tx{q} = arith.addi %tx, %o{q} : index\n%j{q} = arith.addi %bxB, %tx{q} : index\n%in_j{q} = arith.cmpi ult, %j{q}, %N : index"
            );
        }
        let mut stride = 1u64;
        for (n, &size) in self.t.batch.iter().enumerate().rev() {
            let _ = writeln!(
                w,
                "%bs{n} = arith.constant {stride} : index\n%bn{n} = arith.constant {size} : index\n%bq{n} = arith.divui %bz, %bs{n} : index\n%b{n} = arith.remui %bq{n}, %bn{n} : index"
            );
            stride *= size;
        }
        w
    }

    /// The sums' starts `%s0_<a>_<b>`: the cells of C, or zero.
    fn start(&self, from_c: bool) -> String {
        let (elem, tc) = (self.elem, self.tc);
        let mut w = String::new();
        for (a, b) in cells() {
            if from_c {
                let _ = writeln!(
                    w,
                    "%in{a}_{b} = arith.andi %in_i{a}, %in_j{b} : i1\n%s0_{a}_{b} = scf.if %in{a}_{b} -> ({elem}) {{\n%c{a}_{b} = memref.load %C[{}] : {tc}\nscf.yield %c{a}_{b} : {elem}\n}} else {{\nscf.yield %zero : {elem}\n}}",
                    Self::index(&self.t.roles_c, &format!("%i{a}"), &format!("%j{b}"), "%z")
                );
            } else {
                let _ = writeln!(w, "%s0_{a}_{b} = arith.addf %zero, %zero : {elem}");
            }
        }
        w
    }

    /// The thread's four cells of each tile for reduction step `%kt`,
    /// threadIdx.x along each operand's contiguous (last) axis (OCANNL's
    /// `"K->N"` weight is `[N, K]`); zero outside the operands.
    fn load(&self) -> String {
        let (t, elem) = (self.t, self.elem);
        let last = |roles: &[Role]| {
            roles
                .iter()
                .rev()
                .find(|r| !matches!(r, Role::Fixed(_) | Role::Batch(_)))
                .copied()
        };
        let a_rows_fast = last(&t.roles_a) == Some(Role::Row);
        let b_red_fast = last(&t.roles_b) == Some(Role::Red);
        let mut w = String::new();
        for q in 0..R {
            // A's tile: row r (of the block's 64), column kk (of the 16).
            let (r, kk) = if a_rows_fast {
                (format!("%tx{q}"), "%ty")
            } else {
                (format!("%ty{q}"), "%tx")
            };
            let _ = writeln!(
                w,
                "%ar{q} = arith.addi %byB, {r} : index\n%ak{q} = arith.addi %kt, {kk} : index\n%ar_in{q} = arith.cmpi ult, %ar{q}, %M : index\n%ak_in{q} = arith.cmpi ult, %ak{q}, %K : index\n%oka{q} = arith.andi %ar_in{q}, %ak_in{q} : i1\n%va{q} = scf.if %oka{q} -> ({elem}) {{\n%x{q} = memref.load %A[{}] : {ta}\nscf.yield %x{q} : {elem}\n}} else {{\nscf.yield %zero : {elem}\n}}\nmemref.store %va{q}, %As[{r}, {kk}] : {tile_a}",
                Self::index(&t.roles_a, &format!("%ar{q}"), "%z", &format!("%ak{q}")),
                ta = self.ta,
                tile_a = self.tile_a,
            );
            // B's tile: row kk (of the 16), column c (of the block's 64).
            let (kk, c) = if b_red_fast {
                ("%tx", format!("%ty{q}"))
            } else {
                ("%ty", format!("%tx{q}"))
            };
            let _ = writeln!(
                w,
                "%bk{q} = arith.addi %kt, {kk} : index\n%bc{q} = arith.addi %bxB, {c} : index\n%bk_in{q} = arith.cmpi ult, %bk{q}, %K : index\n%bc_in{q} = arith.cmpi ult, %bc{q}, %N : index\n%okb{q} = arith.andi %bk_in{q}, %bc_in{q} : i1\n%vb{q} = scf.if %okb{q} -> ({elem}) {{\n%y{q} = memref.load %B[{}] : {tb}\nscf.yield %y{q} : {elem}\n}} else {{\nscf.yield %zero : {elem}\n}}\nmemref.store %vb{q}, %Bs[{kk}, {c}] : {tile_b}",
                Self::index(&t.roles_b, "%z", &format!("%bc{q}"), &format!("%bk{q}")),
                tb = self.tb,
                tile_b = self.tile_b,
            );
        }
        w
    }

    /// `%p:16`: the 16 sums `acc` (names `{acc}<n>` or a result `{acc}#n`)
    /// plus 16 products each from the tiles.
    fn products(&self, acc: &dyn Fn(u64) -> String) -> String {
        let (elem, ta, tb) = (self.elem, &self.tile_a, &self.tile_b);
        let n = R * R;
        let inits: Vec<String> = (0..n).map(|c| format!("%r{c} = {}", acc(c))).collect();
        let types = vec![elem; n as usize].join(", ");
        let mut w = format!(
            "%p:{n} = scf.for %kk = %z to %T step %one iter_args({}) -> ({types}) {{\n",
            inits.join(", ")
        );
        for q in 0..R {
            let _ = writeln!(
                w,
                "%pa{q} = memref.load %As[%ty{q}, %kk] : {ta}\n%pb{q} = memref.load %Bs[%kk, %tx{q}] : {tb}"
            );
        }
        let mut outs = vec![];
        for (c, (a, b)) in cells().enumerate() {
            let _ = writeln!(w, "%f{a}_{b} = math.fma %pa{a}, %pb{b}, %r{c} : {elem}");
            outs.push(format!("%f{a}_{b}"));
        }
        let _ = writeln!(w, "scf.yield {} : {types}\n}}", outs.join(", "));
        w
    }

    /// Stores the 16 sums `acc(n)` into the thread's cells of C that exist.
    fn store(&self, acc: &dyn Fn(u64) -> String) -> String {
        let mut w = String::new();
        for (c, (a, b)) in cells().enumerate() {
            let _ = writeln!(
                w,
                "%out{a}_{b} = arith.andi %in_i{a}, %in_j{b} : i1\nscf.if %out{a}_{b} {{\nmemref.store {}, %C[{}] : {}\n}}",
                acc(c as u64),
                Self::index(&self.t.roles_c, &format!("%i{a}"), &format!("%j{b}"), "%z"),
                self.tc
            );
        }
        w
    }
}

/// The text of the helper function `name` holding the tiled kernel: a
/// `gpu.launch`, or (`emulate`) the same steps for the CPU, the threads of
/// a block looped between what would be its barriers and each thread's
/// accumulators in a block-sized buffer (`--target grid-on-cpu` checks the
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
    let (gx, gy) = (t.n.div_ceil(B), t.m.div_ceil(B));
    let space = if emulate {
        String::new()
    } else {
        ", #gpu.address_space<workgroup>".to_owned()
    };
    let x = Text {
        t,
        ta,
        tb,
        tc,
        elem,
        tile_a: format!("memref<{B}x{T}x{elem}{space}>"),
        tile_b: format!("memref<{T}x{B}x{elem}{space}>"),
    };
    let n = R * R;
    let types = vec![elem; n as usize].join(", ");
    let mut w = format!(
        "func.func private @{name}(%A: {ta}, %B: {tb}, %C: {tc}) {{\n%c1 = arith.constant 1 : index\n%cT = arith.constant {T} : index\n%gx = arith.constant {gx} : index\n%gy = arith.constant {gy} : index\n%gz = arith.constant {gz} : index\n"
    );
    if !emulate {
        let _ = writeln!(
            w,
            "gpu.launch blocks(%bx, %by, %bz) in (%sgx = %gx, %sgy = %gy, %sgz = %gz) threads(%tx, %ty, %tz) in (%sbx = %cT, %sby = %cT, %sbz = %c1) workgroup(%As : {}, %Bs : {}) {{",
            x.tile_a, x.tile_b
        );
        w.push_str(&x.constants());
        w.push_str(&x.position());
        w.push_str(&x.start(start_from_c));
        let inits: Vec<String> = cells()
            .enumerate()
            .map(|(c, (a, b))| format!("%a{c} = %s0_{a}_{b}"))
            .collect();
        let _ = writeln!(
            w,
            "%acc:{n} = scf.for %kt = %z to %K step %T iter_args({}) -> ({types}) {{",
            inits.join(", ")
        );
        w.push_str(&x.load());
        w.push_str("gpu.barrier\n");
        w.push_str(&x.products(&|c| format!("%a{c}")));
        let outs: Vec<String> = (0..n).map(|c| format!("%p#{c}")).collect();
        let _ = writeln!(
            w,
            "gpu.barrier\nscf.yield {} : {types}\n}}",
            outs.join(", ")
        );
        w.push_str(&x.store(&|c| format!("%acc#{c}")));
        w.push_str("gpu.terminator\n}\nreturn\n}\n");
        return w;
    }
    w.push_str(&x.constants());
    let acc_ty = format!("memref<{T}x{T}x{n}x{elem}>");
    let _ = writeln!(
        w,
        "%As = memref.alloca() : {}\n%Bs = memref.alloca() : {}\n%Acc = memref.alloca() : {acc_ty}",
        x.tile_a, x.tile_b
    );
    for c in 0..n {
        let _ = writeln!(w, "%e{c} = arith.constant {c} : index");
    }
    // The block loops, then per phase a loop over the block's threads.
    w.push_str("scf.for %bz = %z to %gz step %one {\nscf.for %by = %z to %gy step %one {\nscf.for %bx = %z to %gx step %one {\n");
    let threads = |body: String| {
        format!(
            "scf.for %ty = %z to %T step %one {{\nscf.for %tx = %z to %T step %one {{\n{body}}}\n}}\n"
        )
    };
    let saves = |name: &dyn Fn(u64, u64, u64) -> String| -> String {
        cells()
            .enumerate()
            .map(|(c, (a, b))| {
                format!(
                    "memref.store {}, %Acc[%ty, %tx, %e{c}] : {acc_ty}\n",
                    name(c as u64, a, b)
                )
            })
            .collect()
    };
    let loads: String = (0..n)
        .map(|c| format!("%l{c} = memref.load %Acc[%ty, %tx, %e{c}] : {acc_ty}\n"))
        .collect();
    w.push_str(&threads(format!(
        "{}{}{}",
        x.position(),
        x.start(start_from_c),
        saves(&|_, a, b| format!("%s0_{a}_{b}"))
    )));
    w.push_str("scf.for %kt = %z to %K step %T {\n");
    w.push_str(&threads(format!("{}{}", x.position(), x.load())));
    w.push_str(&threads(format!(
        "{}{loads}{}{}",
        x.position(),
        x.products(&|c| format!("%l{c}")),
        saves(&|c, _, _| format!("%p#{c}"))
    )));
    w.push_str("}\n");
    w.push_str(&threads(format!(
        "{}{loads}{}",
        x.position(),
        x.store(&|c| format!("%l{c}"))
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
