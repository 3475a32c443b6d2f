//! Shape-inference throughput: chains of N ops, MLP- and
//! transformer-block-shaped, with row variables everywhere, timed for
//! N = 1k, 10k, 100k and 1M.
//!
//! ```text
//! cargo bench -p ocannl-shape --bench inference               # up to 1M ops
//! cargo bench -p ocannl-shape --bench inference -- --quick    # up to 100k
//! cargo bench -p ocannl-shape --bench inference -- mlp        # one workload
//! ```
//!
//! `OCANNL_BENCH_QUICK=1` is the same as `--quick`; `--sizes 1000,50000`
//! runs other sizes (`x1k` is then relative to the first); `--reps 1` runs
//! each size of 1M ops or more once instead of three times. Without the
//! `--bench` flag that `cargo bench` passes (under `cargo test --benches` or
//! `--all-targets`, or when the binary is run by hand without it) only the
//! 1k size runs, as a smoke test of the workloads and their checks.
//!
//! For each workload and size the table shows:
//!
//! * `ops`: the [`Problem::add_op`] calls actually made (whole layers or
//!   blocks, so close to `N`);
//! * `build ms`: reserving the tables for `N` ops
//!   ([`Problem::reserve_ops`], as the `ocannl-infer-shapes` pass does),
//!   registering shapes and adding ops (the specs are parsed once, outside
//!   the timing);
//! * `online ms`, `close ms`, `solve ms`: [`Problem::solve`] with
//!   [`Closing::Full`], split into the online stage (`solve(Closing::None)`)
//!   and the closing stages (a second `solve(Closing::Full)`, which finds no
//!   new constraints), and their sum;
//! * `ops/s`: `ops` over the solve time;
//! * `ns/op`: build plus solve time per op;
//! * `x1k`: that per-op cost divided by the per-op cost of the first
//!   (smallest) size. Near-linear cost keeps it roughly constant (within
//!   2–3x);
//! * `peak MiB`: peak resident memory (`VmHWM`) of the process since the
//!   start of the run, which resets it through `/proc/self/clear_refs` where
//!   Linux allows (memory the allocator kept from earlier runs counts).
//!
//! * `sys %`: the kernel's share of the CPU time of build and solve (page
//!   faults of fresh memory, mostly), from `/proc/self/stat`; coarse (10 ms
//!   ticks) for small sizes.
//!
//! Sizes below 1M are repeated (best of 3 to 10) to damp noise, sizes of 1M
//! and more best of 3 (`--reps N` sets that count): on a shared machine one
//! 1M-op run varies by a quarter from the next, and `x1k` compares best
//! times at both ends.
//! Every run checks a few solved shapes with [`Problem::to_spec`], so the
//! benchmark cannot silently time an error path.
//!
//! # Why not criterion
//!
//! A 1M-op run takes seconds; criterion's statistical repetition (and its
//! dependency tree) would make the benchmark take many minutes for no
//! extra insight: the question is how cost grows with N, not a 1% change.
//! A plain `main` with [`Instant`] answers it in one pass.
//!
//! # The workloads
//!
//! **mlp**: `x : ..batch..|784`, then layers `h = fma(w, h, b)` and
//! `relu(h)`. Odd layers have `w : ...->128` (input axes inferred forward),
//! even layers a fully unknown `w : ...->...` whose output is inferred
//! backward from the bias and the next layer. The last layer maps to 10
//! outputs, and a loss `sub(h, y)` with `y : 32|10` fixes the batch: the
//! batch row variable of `x` is inferred from the far end of the chain.
//!
//! **transformer**: `x : 8|128->512` (sequence in the input row, model
//! width in the output row), then blocks of 17 ops: Q, K, V projections
//! (`w : ...->8,64`), attention scores and weighted values as einsums over
//! row variables, exp / sum / div softmax, an output projection with a
//! fully unknown weight (inferred backward from the residual), residual
//! add, a layer-norm-like center and scale with an unknown gain and bias,
//! and a two-layer MLP whose second weight and bias are unknown.
//!
//! Every op result is `...|...->...`: all of its shape is inferred.

use std::error::Error;
use std::time::{Duration, Instant};

use ocannl_shape::{
    problem::{LogicError, OpLogic, Problem, ShapeId},
    solver::{Closing, OpId},
    spec::{EinsumSpec, ShapeSpec, parse_einsum_spec, parse_shape_spec},
};

/// The sizes benchmarked, in ops.
const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

/// The largest size of a `--quick` run.
const QUICK_MAX: usize = 100_000;

/// The largest size without `--bench` (a smoke test under `cargo test`).
const SMOKE_MAX: usize = 1_000;

/// Runs below this many ops are repeated (3 to 10 times, about this many
/// ops in all), best time kept.
const REPEAT_BELOW: usize = 1_000_000;

/// Repetitions of the runs of [`REPEAT_BELOW`] ops or more, unless
/// `--reps` says otherwise.
const BIG_REPS: usize = 3;

fn shape(s: &str) -> ShapeSpec {
    parse_shape_spec(s).expect("the benchmark's shape specs are valid")
}

fn einsum(s: &str) -> EinsumSpec {
    parse_einsum_spec(s).expect("the benchmark's einsum specs are valid")
}

/// Builds a problem op by op; every result is a fresh `...|...->...`.
struct Builder {
    problem: Problem,
    result: ShapeSpec,
    ops: u32,
}

impl Builder {
    /// For about `n` ops: the tables are reserved up front, as the
    /// `ocannl-infer-shapes` pass reserves them for the values it will add
    /// ([`Problem::reserve_ops`]).
    fn new(n: usize) -> Self {
        let mut problem = Problem::new();
        problem.reserve_ops(n);
        Builder {
            problem,
            result: shape("...|...->..."),
            ops: 0,
        }
    }

    /// A terminal shape (a function argument or parameter).
    fn arg(&mut self, spec: &ShapeSpec) -> ShapeId {
        self.problem.shape_from_spec(spec, true)
    }

    /// An op whose result shape is fully inferred.
    fn op(&mut self, logic: OpLogic<'_>, operands: &[ShapeId]) -> Result<ShapeId, LogicError> {
        let result = self.problem.shape_from_spec(&self.result, false);
        self.problem
            .add_op(OpId(self.ops), logic, operands, result)?;
        self.ops += 1;
        Ok(result)
    }
}

/// A built problem with the shapes to check after solving.
struct Built {
    problem: Problem,
    ops: usize,
    checks: Vec<(ShapeId, &'static str)>,
}

/// The parsed specs of both workloads.
struct Specs {
    mlp_x: ShapeSpec,
    mlp_w_known: ShapeSpec,
    mlp_w_out: ShapeSpec,
    mlp_w_unknown: ShapeSpec,
    mlp_b: ShapeSpec,
    mlp_b_out: ShapeSpec,
    mlp_y: ShapeSpec,
    tf_x: ShapeSpec,
    tf_w_qkv: ShapeSpec,
    tf_w_unknown: ShapeSpec,
    tf_unknown: ShapeSpec,
    tf_w_up: ShapeSpec,
    tf_b_up: ShapeSpec,
    tf_scores: EinsumSpec,
    tf_sum_keys: EinsumSpec,
    tf_attend: EinsumSpec,
    tf_mean: EinsumSpec,
}

impl Specs {
    fn new() -> Self {
        Specs {
            mlp_x: shape("..batch..|784,"),
            mlp_w_known: shape("...->128"),
            mlp_w_out: shape("...->10"),
            mlp_w_unknown: shape("...->..."),
            mlp_b: shape("128"),
            mlp_b_out: shape("10"),
            mlp_y: shape("32|10"),
            tf_x: shape("8|128->512"),
            tf_w_qkv: shape("...->8,64"),
            tf_w_unknown: shape("...->..."),
            tf_unknown: shape("..."),
            tf_w_up: shape("...->2048"),
            tf_b_up: shape("2048"),
            // Scores: batch `...`, queries `s`, keys `t`, heads `h`, head
            // width `e`. The query axis joins the batch row so that softmax
            // over the keys (the input row) broadcasts from the end.
            tf_scores: einsum("...|s->h,e; ...|t->h,e => ...,s|t->h"),
            tf_sum_keys: einsum("...|t->h => ...|h"),
            tf_attend: einsum("...,s|t->h; ...|t->h,e => ...|s->h,e"),
            tf_mean: einsum("...|s->d => ...|s->"),
        }
    }
}

/// The MLP chain: about `n` ops (two per hidden layer).
fn mlp(n: usize, s: &Specs) -> Result<Built, LogicError> {
    let mut b = Builder::new(n);
    let x = b.arg(&s.mlp_x);
    // Hidden layers (fma, relu), then the output layer (fma) and the loss.
    let hidden = n.saturating_sub(2) / 2;
    let mut h = x;
    let mut checks = vec![(x, "32|784")];
    for i in 0..hidden {
        let w_spec = if i % 2 == 0 {
            &s.mlp_w_known
        } else {
            &s.mlp_w_unknown
        };
        let w = b.arg(w_spec);
        let bias = b.arg(&s.mlp_b);
        let pre = b.op(OpLogic::ComposeAccumulate, &[w, h, bias])?;
        h = b.op(OpLogic::PointwiseUn, &[pre])?;
        match i {
            0 => checks.extend([(w, "784->128"), (h, "32|128")]),
            1 => checks.push((w, "128->128")),
            _ if i == hidden - 1 => checks.extend([(w, "128->128"), (pre, "32|128")]),
            _ => {}
        }
    }
    let w = b.arg(&s.mlp_w_out);
    let bias = b.arg(&s.mlp_b_out);
    let out = b.op(OpLogic::ComposeAccumulate, &[w, h, bias])?;
    let y = b.arg(&s.mlp_y);
    let loss = b.op(OpLogic::PointwiseBin, &[out, y])?;
    checks.extend([(out, "32|10"), (loss, "32|10")]);
    Ok(Built {
        ops: b.ops as usize,
        problem: b.problem,
        checks,
    })
}

/// The transformer chain: about `n` ops (17 per block).
fn transformer(n: usize, s: &Specs) -> Result<Built, LogicError> {
    const OPS_PER_BLOCK: usize = 17;
    let mut b = Builder::new(n);
    let x0 = b.arg(&s.tf_x);
    let blocks = (n / OPS_PER_BLOCK).max(1);
    let mut x = x0;
    let mut checks = vec![(x0, "8|128->512")];
    for i in 0..blocks {
        // Attention.
        let (wq, wk, wv) = (b.arg(&s.tf_w_qkv), b.arg(&s.tf_w_qkv), b.arg(&s.tf_w_qkv));
        let q = b.op(OpLogic::Compose, &[wq, x])?;
        let k = b.op(OpLogic::Compose, &[wk, x])?;
        let v = b.op(OpLogic::Compose, &[wv, x])?;
        let scores = b.op(OpLogic::Einsum(&s.tf_scores), &[q, k])?;
        let e = b.op(OpLogic::PointwiseUn, &[scores])?;
        let z = b.op(OpLogic::Einsum(&s.tf_sum_keys), &[e])?;
        let p = b.op(OpLogic::PointwiseBin, &[e, z])?;
        let attn = b.op(OpLogic::Einsum(&s.tf_attend), &[p, v])?;
        let wo = b.arg(&s.tf_w_unknown);
        let o = b.op(OpLogic::Compose, &[wo, attn])?;
        let r1 = b.op(OpLogic::PointwiseBin, &[x, o])?;
        // Layer norm (centering and an affine map with inferred params).
        let mean = b.op(OpLogic::Einsum(&s.tf_mean), &[r1])?;
        let centered = b.op(OpLogic::PointwiseBin, &[r1, mean])?;
        let (gain, shift) = (b.arg(&s.tf_unknown), b.arg(&s.tf_unknown));
        let normed = b.op(OpLogic::PointwiseTern, &[centered, gain, shift])?;
        // MLP.
        let (w1, b1) = (b.arg(&s.tf_w_up), b.arg(&s.tf_b_up));
        let up = b.op(OpLogic::ComposeAccumulate, &[w1, normed, b1])?;
        let act = b.op(OpLogic::PointwiseUn, &[up])?;
        let (w2, b2) = (b.arg(&s.tf_w_unknown), b.arg(&s.tf_unknown));
        let down = b.op(OpLogic::ComposeAccumulate, &[w2, act, b2])?;
        x = b.op(OpLogic::PointwiseBin, &[normed, down])?;
        if i == 0 || i == blocks - 1 {
            checks.extend([
                (wq, "512->8,64"),
                (q, "8|128->8,64"),
                (scores, "8,128|128->8"),
                (z, "8,128|8"),
                (attn, "8|128->8,64"),
                (wo, "8,64->512"),
                (mean, "8|128->"),
                (gain, "512"),
                (up, "8|128->2048"),
                (w2, "2048->512"),
                (b2, "512"),
                (x, "8|128->512"),
            ]);
        }
    }
    Ok(Built {
        ops: b.ops as usize,
        problem: b.problem,
        checks,
    })
}

type Workload = fn(usize, &Specs) -> Result<Built, LogicError>;

/// One timed run.
struct Run {
    ops: usize,
    build: Duration,
    online: Duration,
    close: Duration,
    peak_kib: Option<u64>,
    /// The kernel's share of the CPU time of build and solve, in percent.
    sys_percent: Option<f64>,
}

impl Run {
    fn solve(&self) -> Duration {
        self.online + self.close
    }

    fn total(&self) -> Duration {
        self.build + self.solve()
    }
}

fn run_once(workload: Workload, n: usize, specs: &Specs) -> Result<Run, Box<dyn Error>> {
    reset_peak_rss();
    let cpu_before = cpu_ticks();
    let start = Instant::now();
    let mut built = workload(n, specs)?;
    let build = start.elapsed();
    // `solve(None)` then `solve(Full)` is `solve(Full)` split in two: the
    // second call finds no new constraints and only runs the closing stages.
    let start = Instant::now();
    built.problem.solve(Closing::None)?;
    let online = start.elapsed();
    let start = Instant::now();
    built.problem.solve(Closing::Full)?;
    let close = start.elapsed();
    let peak_kib = peak_rss_kib();
    let sys_percent = cpu_before
        .zip(cpu_ticks())
        .and_then(|((u0, s0), (u1, s1))| {
            let (user, sys) = (u1.saturating_sub(u0), s1.saturating_sub(s0));
            (user + sys > 0).then(|| 100.0 * sys as f64 / (user + sys) as f64)
        });
    for (id, expected) in &built.checks {
        let got = built.problem.to_spec(*id).to_string();
        if got != *expected {
            return Err(format!("shape #{}: expected {expected:?}, got {got:?}", id.0).into());
        }
    }
    if built.problem.solver().has_free_variables() {
        return Err("variables left free after full closing".into());
    }
    Ok(Run {
        ops: built.ops,
        build,
        online,
        close,
        peak_kib,
        sys_percent,
    })
}

/// The best of several runs (by total time); `big_reps` runs for sizes of
/// [`REPEAT_BELOW`] ops or more.
fn run(
    workload: Workload,
    n: usize,
    specs: &Specs,
    big_reps: usize,
) -> Result<Run, Box<dyn Error>> {
    let reps = if n < REPEAT_BELOW {
        (REPEAT_BELOW / n).clamp(3, 10)
    } else {
        big_reps
    };
    let mut best: Option<Run> = None;
    for _ in 0..reps {
        let r = run_once(workload, n, specs)?;
        if best.as_ref().is_none_or(|b| r.total() < b.total()) {
            best = Some(r);
        }
    }
    Ok(best.expect("at least one repetition"))
}

/// Resets the peak-RSS counter (`VmHWM`); Linux only, best effort.
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The peak resident set size in KiB, where `/proc` reports it.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The user and system CPU time of the process so far, in clock ticks
/// (`utime` and `stime` of `/proc/self/stat`).
fn cpu_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name, in parentheses, may contain spaces: skip past it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    Some((fields.next()?.parse().ok()?, fields.next()?.parse().ok()?))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut max = usize::MAX;
    if std::env::var_os("OCANNL_BENCH_QUICK").is_some_and(|v| !v.is_empty() && v != "0") {
        max = QUICK_MAX;
    }
    let mut sizes: Vec<usize> = SIZES.to_vec();
    let mut filter: Option<String> = None;
    let mut bench = false;
    let mut big_reps = BIG_REPS;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => max = QUICK_MAX,
            "--sizes" => {
                let list = args.next().ok_or("--sizes needs a list of op counts")?;
                sizes = list
                    .split(',')
                    .map(|n| {
                        n.trim()
                            .parse()
                            .map_err(|_| format!("--sizes: not a number: {n}"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--reps" => {
                let n = args.next().ok_or("--reps needs a count")?;
                big_reps = n
                    .trim()
                    .parse()
                    .ok()
                    .filter(|&r| r > 0)
                    .ok_or_else(|| format!("--reps: not a positive count: {n}"))?;
            }
            // Passed by `cargo bench`, not by `cargo test`.
            "--bench" => bench = true,
            other if other.starts_with('-') => return Err(format!("unknown flag {other}").into()),
            other => filter = Some(other.to_owned()),
        }
    }
    if !bench {
        max = max.min(SMOKE_MAX);
        println!("smoke run (no --bench, e.g. under `cargo test`): sizes up to {SMOKE_MAX}");
    }
    let workloads: [(&str, Workload); 2] = [("mlp", mlp), ("transformer", transformer)];
    let specs = Specs::new();
    println!(
        "{:<12} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:>5} {:>8} {:>5}",
        "workload",
        "N",
        "ops",
        "build ms",
        "online ms",
        "close ms",
        "solve ms",
        "ops/s",
        "ns/op",
        "x1k",
        "peak MiB",
        "sys %"
    );
    for (name, workload) in workloads {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let mut base: Option<f64> = None;
        for n in sizes.iter().copied().filter(|&n| n <= max) {
            let r = run(workload, n, &specs, big_reps)?;
            let per_op = r.total().as_secs_f64() / r.ops as f64;
            let base = *base.get_or_insert(per_op);
            let peak = r
                .peak_kib
                .map_or_else(|| "?".to_owned(), |k| format!("{:.1}", k as f64 / 1024.0));
            println!(
                "{:<12} {:>8} {:>8} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.0} {:>7.0} {:>5.2} {:>8} {:>5}",
                name,
                n,
                r.ops,
                ms(r.build),
                ms(r.online),
                ms(r.close),
                ms(r.solve()),
                r.ops as f64 / r.solve().as_secs_f64(),
                per_op * 1e9,
                per_op / base,
                peak,
                r.sys_percent
                    .map_or_else(|| "?".to_owned(), |p| format!("{p:.0}"))
            );
        }
    }
    Ok(())
}
