//! `ocannl-fuzz`: a process-based fuzzer of `ocannl-opt` and `ocannl-run`
//! (and, with `--onnx`, of `ocannl-import-onnx`: see the ONNX mode below).
//!
//! It generates random programs of the ocannl dialect from the op catalog
//! (`ocannl_dialect::catalog::OPS`), runs the tools on each as separate
//! processes, and judges every exit. It is deterministic: program `i` of a
//! campaign is a function of `--seed` and `i` alone.
//!
//! # Usage
//!
//! A short run against the debug binaries (a minute or two):
//!
//! ```text
//! cargo build -p ocannl-tools
//! cargo run -p ocannl-fuzz -- --bin-dir target/debug --programs 300 --run-programs 50
//! ```
//!
//! The long run of the reliability issue (100,000 programs through
//! `ocannl-to-llvm`, 10,000 through `ocannl-run`), on the release binaries:
//!
//! ```text
//! cargo build --release -p ocannl-tools
//! cargo run --release -p ocannl-fuzz -- --bin-dir target/release --programs 100000 --run-programs 10000
//! ```
//!
//! Other modes: `--reproduce FILE [--entry NAME]` reruns the tools on a
//! saved program and prints what each did; `--emit-only N --out DIR`
//! writes N generated programs (for regression tests) without running
//! anything; `--list-classes` prints the generator classes. Useful knobs:
//! `--jobs N` (default: the number of CPUs), `--timeout SECS` (30),
//! `--mem-limit-mb N` (8192; an address-space limit through `prlimit`, so a
//! huge allocation fails in the tool instead of exhausting the machine),
//! `--pipeline P` (repeatable; replaces the default set, `ocannl-to-llvm`
//! is always added), `--class C` (repeatable: only these classes),
//! `--hostile-ratio F` (0.5), `--translate` (check a sample of the
//! `ocannl-to-llvm` outputs with `mlir-translate --mlir-to-llvmir`).
//!
//! # What runs
//!
//! For every program: `ocannl-opt FILE -p 'builtin.module(P)'` for each
//! pipeline P of the set (default: `ocannl-verify`, `ocannl-infer-shapes`,
//! `ocannl-infer-shapes{close=false}`,
//! `ocannl-infer-shapes,ocannl-check-shapes`,
//! `ocannl-infer-shapes,ocannl-infer-projections`,
//! `ocannl-plan-schedule,ocannl-lower-to-affine` (the only reader of
//! hand-written projection attributes), the same after shape and
//! projection inference (the reader of hand-written schedules),
//! `ocannl-to-affine`, `ocannl-to-llvm`, and the GPU's); for `--run-programs` of them,
//! spread evenly, `ocannl-run FILE --entry NAME --seed INDEX`. Each process
//! runs in its own process group, killed whole at the timeout.
//!
//! # Oracles
//!
//! - exit 0: pass; but the output of a lowering pipeline (`ocannl-to-affine`,
//!   `ocannl-to-llvm`, `ocannl-lower-to-affine`) must hold no `"ocannl.` op
//!   and no `!ocannl.tensor` type, else the run is **silent**;
//! - exit 1: a rejection, which must carry a located error, a line
//!   `FILE:LINE:COL: error:` (for `ocannl-run` also `ocannl-run: error:`,
//!   counted apart as *runner* rejections), else it is **unlocated**;
//! - the markers `panicked` and `internal error` (a panic the pass
//!   trampoline caught) make it a **panic**; otherwise death by a signal,
//!   any other exit code, or the markers `RUST_BACKTRACE`, `Stack dump`,
//!   `PLEASE submit`, `LLVM ERROR`, `fatal runtime error`, `Aborted`,
//!   `stack overflow`, `memory allocation of` make it a **crash** (the
//!   signal or marker is recorded);
//! - past the timeout: a **hang**;
//! - with `--translate`: `mlir-translate` must exit 0 (else **bad-llvm**).
//!
//! Every failure is saved under `--out` (default `target/fuzz-failures`):
//! `CLASS-PIPELINE-KIND-HASH.mlir` (the smallest program seen) and `.txt`
//! (command line, exit, stdout/stderr tails), one per distinct (tool,
//! pipeline, kind, normalised first error line). The exit status is 0 when
//! nothing failed, 1 otherwise.
//!
//! # Classes
//!
//! - `wf`: well-formed programs: one to three functions of ocannl ops built
//!   by shape logic (pointwise with broadcasting, matmul, fma, transpose,
//!   einsum with contractions, diagonals, fixed indices, row variables,
//!   strided and convolution axes, `accum`/`combine`; concat, slicing and
//!   stacking; batch_slice; constant, range, reshape), types exact or
//!   loosened (dimension variables, `_`, row variables, builtin tensors
//!   with `?` or `*`), at most 4096 cells per tensor;
//! - `wf-ctrl`: the same with `func.call`, `scf.if`, `scf.for` and
//!   `cf.br`/`cf.cond_br` to blocks with tensor arguments;
//! - hostile, each a mutation of a well-formed program: `spec-garbage`,
//!   `spec-empty`, `spec-unbalanced`, `many-axes` (257 to 20000 axes),
//!   `huge-sizes` (2^31 to 10^20, strides and dilations 2^62),
//!   `empty-attr`, `wrong-attr` (wrong kinds, missing, unknown enum values,
//!   bad `index`), `elem-type` (f16, bf16, f80, i1, index, complex, ...),
//!   `symbol-name` (expf, memset, malloc, main, `_mlir_` twins, ...),
//!   `const-overflow`, `int-div` (division by zero at run time),
//!   `huge-tensor` (a 100 GB argument, TB intermediates, overflowing cell
//!   counts), `projection-attrs` (hand-written `ocannl.product_space` /
//!   `ocannl.indexing_maps`), `module-level` (ops at module level, nested
//!   modules, declarations, duplicates), `recursion`, `text-mutation`
//!   (byte ranges deleted, duplicated, swapped, inserted).
//!
//! # The ONNX mode (`--onnx`)
//!
//! `--onnx` fuzzes the ONNX importer instead: `--programs` models through
//! `ocannl-import-onnx MODEL -o OUT.mlir` (with `--erase-shapes` on every
//! other model), and `--run-programs` of them, spread evenly, through
//! `ocannl-run OUT.mlir --inputs ... --outputs ...` on `.npy` inputs the
//! fuzzer writes (seeded by the model's index) and through onnxruntime on
//! the same inputs. A short run (what `scripts/test.sh` runs, debug and
//! release) and the long one:
//!
//! ```text
//! cargo run --release -p ocannl-fuzz -- --onnx --bin-dir target/debug --programs 2000 --run-programs 100 --seed 1
//! cargo run --release -p ocannl-fuzz -- --onnx --bin-dir target/release --programs 20000 --run-programs 5000
//! ```
//!
//! Models are built with the prost types of `ocannl_onnx::proto`; model
//! `i` is a function of `--seed` and `i` alone. Classes (`--onnx
//! --list-classes`; `--class` and `--hostile-ratio` apply):
//!
//! - `onnx-wf`: well-formed models (opsets 13 to 21, every one accepted by
//!   onnxruntime): one or two f32 graph inputs of small random shapes
//!   (images NCHW/NCL 45% of the time), then one to six steps from the
//!   importer's op set, each built by ONNX's shape rules: unary ops
//!   (Relu, Sigmoid, Softplus, LeakyRelu, Elu, Clip, Gelu, ...),
//!   elementwise with broadcasting (Add ... Pow, variadic Sum/Mean/Max/Min),
//!   MatMul, Gemm (transA/transB, alpha, beta, C broadcast), Conv (pads,
//!   strides, dilations, groups, auto_pad), MaxPool/AveragePool (ceil_mode,
//!   count_include_pad), global pools, LRN, BatchNormalization,
//!   Softmax/LogSoftmax, LayerNormalization, Concat, Split (sizes,
//!   num_outputs, equal), Gather (i64/i32, scalar, negative indices),
//!   Reshape (0 and -1), Flatten, Transpose, Squeeze/Unsqueeze,
//!   ReduceSum/Mean/Max/Min (axes as attribute or input, keepdims),
//!   Constant (value, value_float(s)), ConstantOfShape; initializers as
//!   float/int data or raw bytes; output shapes declared, typed only, or
//!   untyped; value_info sometimes;
//! - hostile, each a mutation of a well-formed model: `onnx-bytes`
//!   (truncated, bit flips, splices from another model, inserted and
//!   deleted ranges, huge varints), `onnx-attr` (attributes missing, of the
//!   wrong type, huge or negative values such as 2^40 and i64::MIN, lists
//!   of the wrong length, unknown names, out-of-range axes, repeated perm
//!   entries, bad enum strings, broken tensor attributes, graph
//!   attributes), `onnx-ints` (one to three of the integers the model's
//!   meaning hangs on, in attributes, integer initializers (shapes, axes,
//!   split sizes, indices) or input dims, made an edge value: 0, -1, 2^31,
//!   2^40, i64::MAX, i64::MIN, ...), `onnx-dims` (input dims 0, -1, 2^40, symbolic, missing
//!   shapes, other ranks; initializer dims that no longer match their
//!   data; hostile shape/axes data), `onnx-elem` (every
//!   `TensorProto.DataType` and out-of-range codes on inputs, outputs and
//!   initializers), `onnx-wiring` (undefined inputs, cycles, duplicate
//!   producers, no outputs, outputs no node produces, empty node lists,
//!   thousands of inputs, empty names, unknown ops and domains),
//!   `onnx-declared` (value_info and output shapes or types that
//!   contradict the nodes), `onnx-opset` (no, duplicate, ancient or future
//!   opsets, foreign domains, IR versions, no graph), `onnx-data` (raw data
//!   of the wrong length, external data, 2^40-cell dims without data,
//!   string data, NaN and infinities), `onnx-big` (chains of 200 to 30000
//!   nodes (models of more than 1500 nodes only go through the importer:
//!   `ocannl-run` compiles about 6 ms per node), nodes with thousands of inputs, a 2^40-cell ConstantOfShape,
//!   deeply nested subgraphs).
//!
//! Oracles: `ocannl-import-onnx` must exit 0 (having written its output)
//! or exit 1 with a line `MODEL: error: ...`; `ocannl-run` must exit 0 or
//! exit 1 with `ocannl-run: error:` or a located `NAME:LINE:COL: error:`
//! (the ONNX node's location or the `.mlir` file's); a panic, a signal,
//! another exit code or a crash marker is a **crash**/**panic**, the time
//! limit a **hang**, as for MLIR programs. The differential oracle
//! (`fuzz/ort_oracle.py`, one long-lived onnxruntime process per worker
//! reading JSON requests; `--python` picks the interpreter, default
//! the workspace's `.onnx-venv/bin/python`; skipped with the reason printed when
//! onnxruntime cannot be imported, or with `--no-ort`): where `ocannl-run`
//! ran, every output must match onnxruntime's in shape and element type
//! exactly and in value within rtol 1e-3 / atol 1e-4 x the largest
//! magnitude (NaN equal to NaN, an infinity to itself), else a
//! **mismatch**; where ocannl rejected a well-formed model (or
//! `ocannl-run` rejected what the importer accepted) and onnxruntime runs
//! it, a **rejects-valid**, unless the error says the op, attribute or
//! type is not supported (the phrases `tools/tests/onnx/node_tests.py`
//! counts as unsupported) or is about the model's own declared shapes.
//! Failures are saved as `CLASS-TARGET-KIND-HASH.onnx` with the inputs
//! (`.inN.npy`), the imported `.mlir` and a `.txt` holding the commands
//! that reproduce it; `--onnx --reproduce FILE.onnx` reruns them all
//! (with the saved inputs).

#![warn(missing_docs)]

mod campaign;
mod exec;
mod generator;
mod ir;
mod mutate;
mod onnx;
mod oracle;
mod pool;
mod report;
mod rng;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, bail};
use clap::Parser;

/// A process-based fuzzer of ocannl-opt and ocannl-run.
#[derive(Debug, Parser)]
#[command(name = "ocannl-fuzz", version)]
struct Cli {
    /// The folder holding ocannl-opt and ocannl-run (target/debug or
    /// target/release).
    #[arg(long, default_value = "target/debug")]
    bin_dir: PathBuf,
    /// How many programs to generate (each goes through every pipeline).
    #[arg(long, default_value_t = 300)]
    programs: u64,
    /// How many of them also go through ocannl-run (spread evenly).
    #[arg(long, default_value_t = 50)]
    run_programs: u64,
    /// The campaign's seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads (default: the number of CPUs).
    #[arg(long)]
    jobs: Option<usize>,
    /// Per-process time limit in seconds.
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
    /// Address-space limit per process in MiB (0: none).
    #[arg(long, default_value_t = 8192)]
    mem_limit_mb: u64,
    /// Where failures are saved (or --emit-only writes programs).
    #[arg(long, default_value = "target/fuzz-failures")]
    out: PathBuf,
    /// The fraction of hostile (mutated) programs.
    #[arg(long, default_value_t = 0.5)]
    hostile_ratio: f64,
    /// The fraction of well-formed programs with calls and control flow.
    #[arg(long, default_value_t = 0.25)]
    ctrl_ratio: f64,
    /// Only generate this class (repeatable; see --list-classes).
    #[arg(long = "class", value_name = "CLASS")]
    classes: Vec<String>,
    /// An ocannl-opt pipeline, inside builtin.module(...) (repeatable;
    /// replaces the default set; ocannl-to-llvm always runs).
    #[arg(long = "pipeline", value_name = "P")]
    pipelines: Vec<String>,
    /// Check ocannl-to-llvm outputs with mlir-translate --mlir-to-llvmir.
    #[arg(long)]
    translate: bool,
    /// With --translate: check every N-th program's output.
    #[arg(long, default_value_t = 10)]
    translate_every: u64,
    /// The mlir-translate binary.
    #[arg(long, default_value = "/usr/lib/llvm-22/bin/mlir-translate")]
    mlir_translate: PathBuf,
    /// Seconds between progress lines.
    #[arg(long, default_value_t = 5.0)]
    progress_secs: f64,
    /// Rerun the tools on a saved program and print what each did.
    #[arg(long, value_name = "FILE")]
    reproduce: Option<PathBuf>,
    /// With --reproduce: the function ocannl-run runs (default: the
    /// first).
    #[arg(long)]
    entry: Option<String>,
    /// Write N generated programs to --out and stop.
    #[arg(long, value_name = "N")]
    emit_only: Option<u64>,
    /// Print the generator classes and stop.
    #[arg(long)]
    list_classes: bool,
    /// Fuzz the ONNX importer instead: --programs models through
    /// ocannl-import-onnx, --run-programs of them also through ocannl-run
    /// and onnxruntime (the differential oracle).
    #[arg(long)]
    onnx: bool,
    /// With --onnx: the Python with numpy and onnxruntime.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../.onnx-venv/bin/python"))]
    python: PathBuf,
    /// With --onnx: the onnxruntime helper script.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/ort_oracle.py"))]
    ort_script: PathBuf,
    /// With --onnx: no differential oracle (onnxruntime is not run).
    #[arg(long)]
    no_ort: bool,
}

fn main() -> ExitCode {
    match real_main() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("ocannl-fuzz: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Whether standard output was closed when the process started (`>&-`):
/// Rust's runtime then reopens descriptor 1 on `/dev/null` for reading and
/// writing before `main`, which a shell's `> /dev/null` never does (it opens
/// it write-only).
fn stdout_closed_at_start() -> bool {
    let null = std::fs::read_link("/proc/self/fd/1")
        .is_ok_and(|target| target == std::path::Path::new("/dev/null"));
    // `flags:` in octal; the access mode is its low two bits (2: O_RDWR).
    let read_write = std::fs::read_to_string("/proc/self/fdinfo/1").is_ok_and(|info| {
        info.lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
            .is_some_and(|f| f & 3 == 2)
    });
    null && read_write
}

/// The command line; `--help` and `--version` exit 0 only when their text
/// was written (a closed or full standard output: one error line and exit
/// code 1), usage errors exit 2 as other errors do.
fn parse_cli() -> Cli {
    use std::io::Write;
    let e = match Cli::try_parse() {
        Ok(cli) => return cli,
        Err(e) => e,
    };
    if e.use_stderr() {
        e.exit();
    }
    let written = if stdout_closed_at_start() {
        Err("standard output is closed".to_owned())
    } else {
        e.print()
            .and_then(|()| std::io::stdout().flush())
            .map_err(|e| e.to_string())
    };
    if let Err(why) = written {
        let _ = writeln!(
            std::io::stderr(),
            "ocannl-fuzz: error: cannot write the help: {why}"
        );
        std::process::exit(1);
    }
    std::process::exit(0);
}

/// Ok(true) when nothing failed.
fn real_main() -> anyhow::Result<bool> {
    let cli = parse_cli();
    if cli.onnx {
        return onnx::cli::main(&cli);
    }
    let gen_cfg = generator::GenConfig {
        hostile: cli.hostile_ratio.clamp(0.0, 1.0),
        ctrl: cli.ctrl_ratio.clamp(0.0, 1.0),
        only: cli.classes.clone(),
        ..generator::GenConfig::default()
    };
    let known = generator::all_classes();
    if let Some(bad) = cli.classes.iter().find(|c| !known.contains(&c.as_str())) {
        bail!("unknown class '{bad}' (known: {})", known.join(", "));
    }
    if cli.list_classes {
        for c in known {
            println!("{c}");
        }
        return Ok(true);
    }
    if let Some(n) = cli.emit_only {
        std::fs::create_dir_all(&cli.out)
            .with_context(|| format!("creating {}", cli.out.display()))?;
        for i in 0..n {
            let g = generator::generate(cli.seed, i, &gen_cfg);
            let path = cli.out.join(format!("{i:06}-{}.mlir", g.class));
            std::fs::write(&path, &g.text)
                .with_context(|| format!("writing {}", path.display()))?;
        }
        eprintln!("wrote {n} programs to {}", cli.out.display());
        return Ok(true);
    }
    let cfg = config(&cli, gen_cfg)?;
    if let Some(file) = &cli.reproduce {
        return reproduce(&cfg, file, cli.entry.as_deref(), cli.seed);
    }
    eprintln!(
        "ocannl-fuzz: {} programs ({} through ocannl-run), seed {}, {} jobs, pipelines: {}",
        cfg.programs,
        cfg.run_programs.min(cfg.programs),
        cfg.seed,
        cfg.jobs,
        cfg.pipelines.join(" | ")
    );
    let (report, wall) = campaign::run(&cfg)?;
    println!("{}", report.table(wall));
    if !report.failures.is_empty() {
        println!("failures saved under {}", cfg.out.display());
    }
    Ok(report.failure_count() == 0)
}

fn config(cli: &Cli, gen_cfg: generator::GenConfig) -> anyhow::Result<campaign::Config> {
    let opt = cli.bin_dir.join("ocannl-opt");
    let run = cli.bin_dir.join("ocannl-run");
    for b in [&opt, &run] {
        if !b.is_file() {
            bail!(
                "{} not found (build the tools, or give --bin-dir)",
                b.display()
            );
        }
    }
    let mut pipelines: Vec<String> = if cli.pipelines.is_empty() {
        campaign::DEFAULT_PIPELINES
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        cli.pipelines.clone()
    };
    if !pipelines.iter().any(|p| p == campaign::TO_LLVM) {
        pipelines.push(campaign::TO_LLVM.to_string());
    }
    if cli.translate && !cli.mlir_translate.is_file() {
        bail!(
            "{} not found (give --mlir-translate)",
            cli.mlir_translate.display()
        );
    }
    let jobs = cli
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    Ok(campaign::Config {
        opt: std::path::absolute(opt)?,
        run: std::path::absolute(run)?,
        translate: cli.translate.then(|| cli.mlir_translate.clone()),
        translate_every: cli.translate_every,
        pipelines,
        programs: cli.programs,
        run_programs: cli.run_programs,
        seed: cli.seed,
        jobs,
        limits: exec::Limits {
            timeout: Duration::from_secs_f64(cli.timeout.max(0.001)),
            mem_mb: cli.mem_limit_mb,
        },
        out: cli.out.clone(),
        generator: gen_cfg,
        progress: Duration::from_secs_f64(cli.progress_secs.max(0.1)),
    })
}

/// Reruns every tool on `file`; Ok(true) when nothing failed.
fn reproduce(
    cfg: &campaign::Config,
    file: &std::path::Path,
    entry: Option<&str>,
    seed: u64,
) -> anyhow::Result<bool> {
    let scratch = tempfile::tempdir().context("creating a scratch directory")?;
    let checks = campaign::check_file(
        cfg,
        file,
        entry,
        seed,
        true,
        cfg.translate.is_some(),
        scratch.path(),
    )?;
    let ok = campaign::print_checks(
        checks.iter().map(|c| {
            (
                c.target.as_str(),
                c.command.as_str(),
                &c.outcome,
                &c.judgement,
            )
        }),
        50,
        Some(&file.to_string_lossy()),
    );
    Ok(ok)
}
