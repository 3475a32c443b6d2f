//! The MLIR text of a tiled kernel ([`super`]): the `gpu.launch`, or the
//! same steps as CPU loops (the threads of a block looped between what
//! would be its barriers, each thread's accumulators in a block-sized
//! buffer), from one generator, so that running the second checks the
//! first's indices and guards.

use std::{
    cell::RefCell,
    collections::{BTreeSet, HashMap},
    fmt::Write,
};

use ocannl_shape::projection::AxisIndex;

use crate::schedule::tiled::{T, Tiled};

/// The generator: the kernel's types and the index constants it uses.
struct Gen<'t> {
    t: &'t Tiled,
    ta: &'t str,
    tb: &'t str,
    tc: &'t str,
    elem: &'t str,
    /// The type of A's tile (transposed and padded: `T × (block + 4)`)
    /// and of B's (`T × block`).
    tile_a: String,
    tile_b: String,
    /// Cells per 128-bit load from a tile: 4 `f32`, 2 `f64`.
    lanes: u64,
    consts: RefCell<BTreeSet<i64>>,
}

/// The cells of a thread's `r × r` block, `(a, b)` row-major.
fn cells(r: u64) -> impl Iterator<Item = (u64, u64)> {
    (0..r).flat_map(move |a| (0..r).map(move |b| (a, b)))
}

/// Adjacent cells of a thread along its rows and along its columns: the
/// threads of a block take groups of 4 in turn (thread `t` the cells `4t
/// .. 4t + 3` of every 64), so that a group is one 128-bit load from the
/// tiles and a warp's loads of a group read adjacent words.
const GROUP: u64 = 4;

/// The offset in the block's tile of a thread's cell `q` (of its `r` rows
/// or columns), past `GROUP × t` for thread `t`.
fn offset(q: u64) -> u64 {
    T * GROUP * (q / GROUP) + q % GROUP
}

/// The SSA name of the `index` constant `v`.
fn const_name(v: i64) -> String {
    if v < 0 {
        format!("%km{}", v.unsigned_abs())
    } else {
        format!("%k{v}")
    }
}

/// Iterator → the SSA name of its position.
type Env = HashMap<usize, String>;

impl Gen<'_> {
    /// The `index` constant `v` (declared by [`Gen::constants`]).
    fn c(&self, v: i64) -> String {
        self.consts.borrow_mut().insert(v);
        const_name(v)
    }

    /// Declarations of the constants used so far, and of `%zero`.
    fn constants(&self) -> String {
        let mut w = format!("%zero = arith.constant 0.0 : {}\n", self.elem);
        for &v in self.consts.borrow().iter() {
            let _ = writeln!(w, "{} = arith.constant {v} : index", const_name(v));
        }
        w
    }

    /// `lin` (a linear position over `its`, the last fastest) split into
    /// one position per iterator, named `%<prefix>_<iterator>`.
    fn delinearize(
        &self,
        w: &mut String,
        prefix: &str,
        lin: &str,
        its: &[(usize, u64)],
        env: &mut Env,
    ) {
        if let [(i, _)] = its {
            env.insert(*i, lin.to_owned());
            return;
        }
        let mut stride: u64 = its.iter().map(|(_, e)| *e).product();
        for (n, &(i, e)) in its.iter().enumerate() {
            stride /= e;
            let name = format!("%{prefix}_{i}");
            let q = if stride == 1 {
                lin.to_owned()
            } else {
                let q = format!("%{prefix}_q{i}");
                let _ = writeln!(
                    w,
                    "{q} = arith.divui {lin}, {} : index",
                    self.c(stride as i64)
                );
                q
            };
            if n == 0 {
                let _ = writeln!(w, "{name} = arith.addi {q}, {} : index", self.c(0));
            } else {
                let _ = writeln!(w, "{name} = arith.remui {q}, {} : index", self.c(e as i64));
            }
            env.insert(i, name);
        }
    }

    /// The indices `idx` at the positions `env` (iterators not in it have
    /// extent 1), joined for a load or store, and an `i1` that holds when
    /// every strided or padded index is inside `dims` (`None`: always).
    fn index(
        &self,
        w: &mut String,
        prefix: &str,
        idx: &[AxisIndex],
        dims: &[u64],
        env: &Env,
    ) -> (String, Option<String>) {
        let at = |i: &usize| env.get(i).cloned().unwrap_or_else(|| self.c(0));
        let mut names = vec![];
        let mut guard: Option<String> = None;
        for (ax, a) in idx.iter().enumerate() {
            let v = match a {
                AxisIndex::Iter(i) => at(i),
                AxisIndex::Fixed(v) => self.c(*v as i64),
                AxisIndex::Affine(x) => {
                    let mut terms = vec![];
                    for (part, term) in [("o", x.over), ("k", x.kernel)] {
                        if let Some((i, s)) = term {
                            let name = format!("%{prefix}_{part}{ax}");
                            let _ = writeln!(
                                w,
                                "{name} = arith.muli {}, {} : index",
                                at(&i),
                                self.c(s as i64)
                            );
                            terms.push(name);
                        }
                    }
                    let mut v = self.c(x.offset);
                    for (n, term) in terms.iter().enumerate() {
                        let name = format!("%{prefix}_s{ax}_{n}");
                        let _ = writeln!(w, "{name} = arith.addi {v}, {term} : index");
                        v = name;
                    }
                    v
                }
                AxisIndex::Concat(_) => self.c(0),
            };
            // Any index may leave its axis (a padded window collapsed to
            // an iterator, a diagonal): those reads are padding.
            if let Some(&dim) = dims.get(ax) {
                let (lo, hi) = a.range(&self.t.space);
                let dim = dim as i64;
                if lo < 0 || hi > dim - 1 {
                    let ok = format!("%{prefix}_in{ax}");
                    let _ = writeln!(
                        w,
                        "{ok}_lo = arith.cmpi sge, {v}, {} : index\n{ok}_hi = arith.cmpi slt, {v}, {} : index\n{ok} = arith.andi {ok}_lo, {ok}_hi : i1",
                        self.c(0),
                        self.c(dim)
                    );
                    guard = Some(match guard {
                        None => ok,
                        Some(g) => {
                            let both = format!("{ok}_and");
                            let _ = writeln!(w, "{both} = arith.andi {g}, {ok} : i1");
                            both
                        }
                    });
                }
            }
            names.push(v);
        }
        (names.join(", "), guard)
    }

    /// The batch positions `%b<n>` from the block's z index.
    fn batch(&self, w: &mut String, env: &mut Env) {
        let its = &self.t.batch;
        if its.is_empty() {
            return;
        }
        self.delinearize(w, "bat", "%bz", its, env);
    }

    /// A thread's position from `%bx`, `%by`, `%bz`, `%tx`, `%ty`: its
    /// rows `%i<a>` and columns `%j<b>` of C (linear positions), their
    /// offsets in the block's tile (`%ty<a>`, `%tx<b>`), whether they exist
    /// (`%in_i<a>`, `%in_j<b>`); and the environments of each row (the row
    /// iterators' positions) and of the batch.
    fn position(&self, w: &mut String) -> (Vec<Env>, Env) {
        let _ = writeln!(
            w,
            "%byB = arith.muli %by, {b} : index\n%bxB = arith.muli %bx, {b} : index",
            b = self.c(self.t.block() as i64)
        );
        let mut batch = Env::new();
        self.batch(w, &mut batch);
        let _ = writeln!(
            w,
            "%tyg = arith.muli %ty, {four} : index\n%txg = arith.muli %tx, {four} : index",
            four = self.c(GROUP as i64)
        );
        let mut rows = vec![];
        for q in 0..self.t.r {
            let o = self.c(offset(q) as i64);
            let _ = writeln!(
                w,
                "%ty{q} = arith.addi %tyg, {o} : index\n%i{q} = arith.addi %byB, %ty{q} : index\n%in_i{q} = arith.cmpi ult, %i{q}, {m} : index\n%tx{q} = arith.addi %txg, {o} : index\n%j{q} = arith.addi %bxB, %tx{q} : index\n%in_j{q} = arith.cmpi ult, %j{q}, {n} : index",
                m = self.c(self.t.m as i64),
                n = self.c(self.t.n as i64)
            );
            let mut env = batch.clone();
            self.delinearize(
                w,
                &format!("ri{q}"),
                &format!("%i{q}"),
                &self.t.rows,
                &mut env,
            );
            rows.push(env);
        }
        (rows, batch)
    }

    /// The index of C's cell `(a, b)` of the thread.
    fn c_index(&self, w: &mut String, rows: &[Env], a: u64, b: u64) -> String {
        let mut env = rows[a as usize].clone();
        env.insert(self.t.col.0, format!("%j{b}"));
        self.index(w, &format!("ci{a}_{b}"), &self.t.idx_c, &[], &env)
            .0
    }

    /// The sums' starts `%s0_<a>_<b>`: the cells of C, or zero.
    fn start(&self, w: &mut String, rows: &[Env], from_c: bool) {
        let (elem, tc) = (self.elem, self.tc);
        for (a, b) in cells(self.t.r) {
            if from_c {
                let index = self.c_index(w, rows, a, b);
                let _ = writeln!(
                    w,
                    "%in{a}_{b} = arith.andi %in_i{a}, %in_j{b} : i1\n%s0_{a}_{b} = scf.if %in{a}_{b} -> ({elem}) {{\n%c{a}_{b} = memref.load %C[{index}] : {tc}\nscf.yield %c{a}_{b} : {elem}\n}} else {{\nscf.yield %zero : {elem}\n}}"
                );
            } else {
                let _ = writeln!(w, "%s0_{a}_{b} = arith.addf %zero, %zero : {elem}");
            }
        }
    }

    /// Whether the last axis of `idx` reads one of `its` (threadIdx.x then
    /// walks them: adjacent cells for a warp).
    fn fast(idx: &[AxisIndex], its: &[(usize, u64)]) -> bool {
        idx.iter()
            .rev()
            .find(|a| !matches!(a, AxisIndex::Fixed(_)))
            .is_some_and(|a| {
                crate::schedule::tiled::iterators(a)
                    .iter()
                    .any(|i| its.iter().any(|(r, _)| r == i))
            })
    }

    /// Copies the cell `index` of `src` into the cell `at` of `tile` when
    /// `%ok<name>` (and the padding `guard`) hold, else zero.
    fn copy_cell(
        &self,
        w: &mut String,
        name: &str,
        guard: Option<String>,
        (src, src_ty, index): (&str, &str, &str),
        (tile, tile_ty, at): (&str, &str, &str),
    ) {
        let elem = self.elem;
        let ok = match guard {
            Some(g) => {
                let _ = writeln!(w, "%okp{name} = arith.andi %ok{name}, {g} : i1");
                format!("%okp{name}")
            }
            None => format!("%ok{name}"),
        };
        let _ = writeln!(
            w,
            "%v{name} = scf.if {ok} -> ({elem}) {{\n%x{name} = memref.load {src}[{index}] : {src_ty}\nscf.yield %x{name} : {elem}\n}} else {{\nscf.yield %zero : {elem}\n}}\nmemref.store %v{name}, {tile}[{at}] : {tile_ty}"
        );
    }

    /// The thread's `r` cells of each tile for reduction step `%kt`
    /// (threadIdx.x along each operand's contiguous axis: OCANNL's
    /// `"K->N"` weight is `[N, K]`); zero outside the operands and in the
    /// padding.
    fn load(&self, w: &mut String, batch: &Env) {
        let t = self.t;
        let rows_fast = Self::fast(&t.idx_a, &t.rows);
        let cols_fast = Self::fast(&t.idx_b, std::slice::from_ref(&t.col));
        let (m, n, k) = (self.c(t.m as i64), self.c(t.n as i64), self.c(t.k as i64));
        for q in 0..self.t.r {
            // The copy's own positions, 16 apart: a warp's 16 threadIdx.x
            // read adjacent cells.
            let o = self.c((q * T) as i64);
            let _ = writeln!(
                w,
                "%lty{q} = arith.addi %ty, {o} : index\n%ltx{q} = arith.addi %tx, {o} : index"
            );
            // A's tile (stored transposed): row r (of the block's 16r),
            // column kk (of the 16).
            let (r, kk) = if rows_fast {
                (format!("%ltx{q}"), "%ty")
            } else {
                (format!("%lty{q}"), "%tx")
            };
            let _ = writeln!(
                w,
                "%ar{q} = arith.addi %byB, {r} : index\n%ak{q} = arith.addi %kt, {kk} : index\n%ar_in{q} = arith.cmpi ult, %ar{q}, {m} : index\n%ak_in{q} = arith.cmpi ult, %ak{q}, {k} : index\n%oka{q} = arith.andi %ar_in{q}, %ak_in{q} : i1"
            );
            let mut env = batch.clone();
            self.delinearize(w, &format!("ra{q}"), &format!("%ar{q}"), &t.rows, &mut env);
            self.delinearize(w, &format!("ka{q}"), &format!("%ak{q}"), &t.reds, &mut env);
            let (index, guard) = self.index(w, &format!("xa{q}"), &t.idx_a, &t.dims_a, &env);
            let cell = format!("{kk}, {r}");
            self.copy_cell(
                w,
                &format!("a{q}"),
                guard,
                ("%A", self.ta, &index),
                ("%As", &self.tile_a, &cell),
            );
            // B's tile: row kk (of the 16), column c (of the block's 64).
            let (kk, c) = if cols_fast {
                ("%ty", format!("%ltx{q}"))
            } else {
                ("%tx", format!("%lty{q}"))
            };
            let _ = writeln!(
                w,
                "%bk{q} = arith.addi %kt, {kk} : index\n%bc{q} = arith.addi %bxB, {c} : index\n%bk_in{q} = arith.cmpi ult, %bk{q}, {k} : index\n%bc_in{q} = arith.cmpi ult, %bc{q}, {n} : index\n%okb{q} = arith.andi %bk_in{q}, %bc_in{q} : i1"
            );
            let mut env = batch.clone();
            env.insert(t.col.0, format!("%bc{q}"));
            self.delinearize(w, &format!("kb{q}"), &format!("%bk{q}"), &t.reds, &mut env);
            let (index, guard) = self.index(w, &format!("xb{q}"), &t.idx_b, &t.dims_b, &env);
            let cell = format!("{kk}, {c}");
            self.copy_cell(
                w,
                &format!("b{q}"),
                guard,
                ("%B", self.tb, &index),
                ("%Bs", &self.tile_b, &cell),
            );
        }
    }

    /// `%p:n`: the `r × r` sums `acc(n)` plus 16 products each from the tiles.
    fn products(&self, w: &mut String, acc: &dyn Fn(u64) -> String) {
        let (elem, ta, tb) = (self.elem, &self.tile_a, &self.tile_b);
        let n = self.t.r * self.t.r;
        let inits: Vec<String> = (0..n).map(|c| format!("%r{c} = {}", acc(c))).collect();
        let types = vec![elem; n as usize].join(", ");
        let (zero, one, t) = (self.c(0), self.c(1), self.c(T as i64));
        let _ = writeln!(
            w,
            "%p:{n} = scf.for %kk = {zero} to {t} step {one} iter_args({}) -> ({types}) {{",
            inits.join(", ")
        );
        // Each group of GROUP adjacent cells of a thread's rows (columns)
        // is read from the tile with 128-bit loads.
        let lanes = self.lanes;
        let vty = format!("vector<{lanes}x{elem}>");
        for q in (0..self.t.r).step_by(lanes as usize) {
            let _ = writeln!(
                w,
                "%sa{q} = vector.load %As[%kk, %ty{q}] {{alignment = 16}} : {ta}, {vty}\n%sb{q} = vector.load %Bs[%kk, %tx{q}] {{alignment = 16}} : {tb}, {vty}"
            );
            for l in 0..lanes {
                let _ = writeln!(
                    w,
                    "%pa{p} = vector.extract %sa{q}[{l}] : {elem} from {vty}\n%pb{p} = vector.extract %sb{q}[{l}] : {elem} from {vty}",
                    p = q + l
                );
            }
        }
        let mut outs = vec![];
        for (c, (a, b)) in cells(self.t.r).enumerate() {
            let _ = writeln!(w, "%f{a}_{b} = math.fma %pa{a}, %pb{b}, %r{c} : {elem}");
            outs.push(format!("%f{a}_{b}"));
        }
        let _ = writeln!(w, "scf.yield {} : {types}\n}}", outs.join(", "));
    }

    /// Stores the `r × r` sums `acc(n)` into the thread's cells of C that exist.
    fn store(&self, w: &mut String, rows: &[Env], acc: &dyn Fn(u64) -> String) {
        for (c, (a, b)) in cells(self.t.r).enumerate() {
            let index = self.c_index(w, rows, a, b);
            let _ = writeln!(
                w,
                "%out{a}_{b} = arith.andi %in_i{a}, %in_j{b} : i1\nscf.if %out{a}_{b} {{\nmemref.store {}, %C[{index}] : {}\n}}",
                acc(c as u64),
                self.tc
            );
        }
    }

    /// The kernel after its function's head: a `gpu.launch` whose threads
    /// carry their sums across the reduction's steps in registers, with
    /// the tiles in workgroup memory between barriers.
    fn launch(&self, start_from_c: bool) -> String {
        let n = self.t.r * self.t.r;
        let types = vec![self.elem; n as usize].join(", ");
        let (zero, kk) = (self.c(0), self.c(self.t.k as i64));
        let mut body = String::new();
        let (rows, batch) = self.position(&mut body);
        self.start(&mut body, &rows, start_from_c);
        let inits: Vec<String> = cells(self.t.r)
            .enumerate()
            .map(|(c, (a, b))| format!("%a{c} = %s0_{a}_{b}"))
            .collect();
        let _ = writeln!(
            body,
            "%acc:{n} = scf.for %kt = {zero} to {kk} step {} iter_args({}) -> ({types}) {{",
            self.c(T as i64),
            inits.join(", ")
        );
        self.load(&mut body, &batch);
        body.push_str("gpu.barrier\n");
        self.products(&mut body, &|c| format!("%a{c}"));
        let outs: Vec<String> = (0..n).map(|c| format!("%p#{c}")).collect();
        let _ = writeln!(
            body,
            "gpu.barrier\nscf.yield {} : {types}\n}}",
            outs.join(", ")
        );
        self.store(&mut body, &rows, &|c| format!("%acc#{c}"));
        format!(
            "gpu.launch blocks(%bx, %by, %bz) in (%sgx = %gx, %sgy = %gy, %sgz = %gz) threads(%tx, %ty, %tz) in (%sbx = %cT, %sby = %cT, %sbz = %c1) workgroup(%As : {}, %Bs : {}) {{\n{}{body}gpu.terminator\n}}\nreturn\n}}\n",
            self.tile_a,
            self.tile_b,
            self.constants()
        )
    }

    /// The kernel's steps as CPU loops, after its function's head: the
    /// grid's blocks looped, and in each the block's threads looped once
    /// per phase between what would be its barriers (the sums' starts;
    /// for each step of the reduction, the tiles' loads, then the
    /// products; the stores), each thread's sums in `%Acc`.
    fn emulated(&self, start_from_c: bool) -> String {
        let (zero, one, kk) = (self.c(0), self.c(1), self.c(self.t.k as i64));
        let mut body = String::new();
        // Phase: the sums' starts.
        let mut phase = String::new();
        let (rows, _) = self.position(&mut phase);
        self.start(&mut phase, &rows, start_from_c);
        phase.push_str(&self.saves(&|_, a, b| format!("%s0_{a}_{b}")));
        body.push_str(&self.threads(&phase));
        let _ = writeln!(
            body,
            "scf.for %kt = {zero} to {kk} step {} {{",
            self.c(T as i64)
        );
        // Phase: the tiles' loads.
        let mut phase = String::new();
        let (_, batch) = self.position(&mut phase);
        self.load(&mut phase, &batch);
        body.push_str(&self.threads(&phase));
        // Phase: the products.
        let mut phase = String::new();
        self.position(&mut phase);
        phase.push_str(&self.loads());
        self.products(&mut phase, &|c| format!("%l{c}"));
        phase.push_str(&self.saves(&|c, _, _| format!("%p#{c}")));
        body.push_str(&self.threads(&phase));
        body.push_str("}\n");
        // Phase: the stores.
        let mut phase = String::new();
        let (rows, _) = self.position(&mut phase);
        phase.push_str(&self.loads());
        self.store(&mut phase, &rows, &|c| format!("%l{c}"));
        body.push_str(&self.threads(&phase));
        format!(
            "{}%As = memref.alloca() {{alignment = 16 : i64}} : {}\n%Bs = memref.alloca() {{alignment = 16 : i64}} : {}\n%Acc = memref.alloca() : {}\nscf.for %bz = {zero} to %gz step {one} {{\nscf.for %by = {zero} to %gy step {one} {{\nscf.for %bx = {zero} to %gx step {one} {{\n{body}}}\n}}\n}}\nreturn\n}}\n",
            self.constants(),
            self.tile_a,
            self.tile_b,
            self.acc_type()
        )
    }

    /// The type of `%Acc`, the emulated threads' sums: `R × R` per thread.
    fn acc_type(&self) -> String {
        format!("memref<{T}x{T}x{}x{}>", self.t.r * self.t.r, self.elem)
    }

    /// `body` once per thread of the block (emulated).
    fn threads(&self, body: &str) -> String {
        let (zero, one) = (self.c(0), self.c(1));
        format!(
            "scf.for %ty = {zero} to %cT step {one} {{\nscf.for %tx = {zero} to %cT step {one} {{\n{body}}}\n}}\n"
        )
    }

    /// Stores the thread's sums `name(n, a, b)` (of its cell `n`, `(a, b)`)
    /// into `%Acc`.
    fn saves(&self, name: &dyn Fn(u64, u64, u64) -> String) -> String {
        let acc_ty = self.acc_type();
        cells(self.t.r)
            .enumerate()
            .map(|(c, (a, b))| {
                format!(
                    "memref.store {}, %Acc[%ty, %tx, {}] : {acc_ty}\n",
                    name(c as u64, a, b),
                    self.c(c as i64)
                )
            })
            .collect()
    }

    /// Loads the thread's sums from `%Acc` as `%l<n>`.
    fn loads(&self) -> String {
        let acc_ty = self.acc_type();
        (0..self.t.r * self.t.r)
            .map(|c| {
                format!(
                    "%l{c} = memref.load %Acc[%ty, %tx, {}] : {acc_ty}\n",
                    self.c(c as i64)
                )
            })
            .collect()
    }
}

/// The text of the helper function `name` holding the tiled kernel of
/// `t`: a `gpu.launch`, or (`emulate`) the same steps as CPU loops.
pub(super) fn kernel(
    t: &Tiled,
    name: &str,
    (ta, tb, tc): (&str, &str, &str),
    elem: &str,
    start_from_c: bool,
    emulate: bool,
) -> String {
    let gz: u64 = t.batch.iter().map(|(_, e)| *e).product::<u64>().max(1);
    let b = t.block();
    let (gx, gy) = (t.n.div_ceil(b), t.m.div_ceil(b));
    let space = if emulate {
        ""
    } else {
        ", #gpu.address_space<workgroup>"
    };
    let g = Gen {
        t,
        ta,
        tb,
        tc,
        elem,
        tile_a: format!("memref<{T}x{}x{elem}{space}>", b + GROUP),
        tile_b: format!("memref<{T}x{b}x{elem}{space}>"),
        consts: RefCell::new(BTreeSet::new()),
        lanes: if elem == "f64" { 2 } else { 4 },
    };
    let head = format!(
        "func.func private @{name}(%A: {ta}, %B: {tb}, %C: {tc}) {{\n%c1 = arith.constant 1 : index\n%cT = arith.constant {T} : index\n%gx = arith.constant {gx} : index\n%gy = arith.constant {gy} : index\n%gz = arith.constant {gz} : index\n"
    );
    let kernel = if emulate {
        g.emulated(start_from_c)
    } else {
        g.launch(start_from_c)
    };
    head + &kernel
}
