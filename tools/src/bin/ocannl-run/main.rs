//! `ocannl-run`: compile a function on ocannl tensors and run it on `.npy`
//! data (DESIGN.md, "ocannl-run").
//!
//! ```text
//! ocannl-run FILE.mlir [--entry NAME] [--inputs A.npy B.npy ...] [--seed N]
//!            [--outputs OUT.npy ...] [--bench N] [--profile] [--threads N]
//!            [--emit llvm|asm|obj -o FILE]
//! ```
//!
//! `--inputs` may be given several times, one set of arguments each (with
//! `--outputs` once per set, or not at all): the function runs on each set
//! in turn, and is compiled once per distinct binding of the input shapes
//! (a model with symbolic dims runs at several sizes in one process).
//!
//! Exit codes: 0 success, 1 user error (bad file, bad input, failed
//! inference, flags out of range or without effect), never a panic. Every
//! flag is checked before any file is read or anything compiled; the
//! program file holds at most a quarter of the available memory (at least
//! 1 GiB, [`max_file_bytes`]), and a pipe (as the program or an
//! input) is read up to 1 GiB
//! ([`MAX_INPUT_BYTES`](ocannl_tools::cli::MAX_INPUT_BYTES)), a device up to 1 MiB.

use std::{
    io::{self, Write},
    path::PathBuf,
    process::ExitCode,
    time::{Duration, Instant},
};

use clap::{Parser, ValueEnum};
use ocannl_runtime::{
    Emit, Error, InputShape, Lowering, Program,
    array::{Array, SplitMix64},
};
use ocannl_tools::{
    cli::{Input, check_readable, max_file_bytes},
    run::{
        profile::{DEFAULT_RUNS, print_profile},
        report::{print_bench, print_results, write_kernels},
        threads::recheck_threads,
    },
    say,
};

/// Compile a function of the ocannl dialect (shapes inferred) to host code
/// and run it on .npy inputs, or write the generated code.
mod flags;

use flags::{check_flags, occurrences};

#[derive(Debug, Parser)]
#[command(name = "ocannl-run", version)]
struct Cli {
    /// The .mlir file.
    file: PathBuf,
    /// The function to run (default: the file's only function).
    #[arg(long)]
    entry: Option<String>,
    /// One .npy file per argument, in order (C order; the dtype must match
    /// the element type, the shape the inferred shape in memory order
    /// batch, output, input). Given several times: one run per set, the
    /// function compiled once per distinct set of input shapes.
    #[arg(long = "inputs", num_args = 1.., action = clap::ArgAction::Append)]
    inputs_given: Vec<PathBuf>,
    /// `--inputs`, one set per occurrence.
    #[arg(skip)]
    inputs: Vec<Vec<PathBuf>>,
    /// Seed of the random inputs used when --inputs is absent (default 0).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Where to write the results (.npy), one per result in order (once
    /// per `--inputs` set when there are several).
    #[arg(long = "outputs", num_args = 1.., action = clap::ArgAction::Append)]
    outputs_given: Vec<PathBuf>,
    /// `--outputs`, one set per occurrence.
    #[arg(skip)]
    outputs: Vec<Vec<PathBuf>>,
    /// Run N times and print the median time.
    #[arg(long, value_name = "N")]
    bench: Option<usize>,
    /// Time each op's loop nests over 10 runs (--bench N: N runs) after a
    /// warm-up, and print a table, largest first: time per run, share,
    /// calls, the op and its location (an ONNX node). An op fused into its
    /// producer's nest (an epilogue) is on the producer's line, after '+'.
    /// CPU only.
    #[arg(long)]
    profile: bool,
    /// Threads for the parallel loops (default: every core; 1: no OpenMP).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Threads LLVM compiles the code on (default: every core): a function
    /// of more than 64 loop nests, whose nests are outlined into helpers,
    /// is compiled in up to N parts at once. The code is the same.
    #[arg(long, value_name = "N")]
    compile_threads: Option<usize>,
    /// Write generated code (optimised for the host at O3) instead of
    /// running.
    #[arg(long, value_enum, requires = "output")]
    emit: Option<EmitKind>,
    /// The file --emit writes.
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Where to run.
    #[arg(long, value_enum, default_value_t = Target::Cpu)]
    target: Target,
    /// The GPU architecture the kernels are compiled for (--target cuda,
    /// --emit ptx|cubin; default sm_80): a processor LLVM's NVPTX back end
    /// knows (sm_20 ... sm_121f).
    #[arg(long)]
    chip: Option<String>,
    /// The PTX ISA version of the kernels, as MAJOR.MINOR (e.g. 8.6;
    /// default: the lowest the chip allows, at least 8.0).
    #[arg(long, value_name = "X.Y")]
    ptx_version: Option<String>,
    /// The CUDA device to run on (--target cuda; default 0).
    #[arg(long, value_name = "K")]
    device: Option<usize>,
    /// A CUDA toolkit (or PyPI's nvidia-cuda-nvcc-cu12 `nvidia/cuda_nvcc`):
    /// its libdevice is linked for sin, cos, pow and f64 exp; `--emit
    /// cubin` needs its ptxas (else ptxas from the PATH).
    #[arg(long, value_name = "DIR")]
    cuda_toolkit: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EmitKind {
    /// LLVM IR text.
    Llvm,
    /// Host assembly.
    Asm,
    /// Host object file.
    Obj,
    /// PTX text (NVPTX): one file per kernel module (a directory when
    /// there are several).
    Ptx,
    /// cubin (needs ptxas): one file per kernel module, as for PTX.
    Cubin,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Target {
    /// The host CPU.
    Cpu,
    /// An NVIDIA GPU.
    Cuda,
    /// The GPU's kernels as grids run one thread after another on the
    /// host CPU: a check of the GPU lowering that needs no GPU.
    GridOnCpu,
}

/// mimalloc: the solver and the IR translation allocate many small,
/// short-lived vectors (see `ocannl-opt.rs`).
#[global_allocator]
static GLOBAL: ocannl_tools::MiMalloc = ocannl_tools::MiMalloc;

fn main() -> ExitCode {
    let mut cli: Cli = match ocannl_tools::cli::parse("ocannl-run") {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    cli.inputs = occurrences("inputs_given");
    cli.outputs = occurrences("outputs_given");
    if ocannl_passes::driver::stdout_closed_at_start() {
        // It prints the results (or what --emit wrote) there.
        let _ = writeln!(
            io::stderr(),
            "ocannl-run: error: cannot write the output: standard output is closed"
        );
        return ExitCode::from(1);
    }
    let mut out = io::stdout().lock();
    let result = run(&cli, &mut out).and_then(|()| {
        out.flush()
            .map_err(|e| Error::new(format!("cannot write to standard output: {e}")))
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Standard error may be closed too: nothing more to do then.
            let _ = writeln!(io::stderr(), "ocannl-run: error: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: &Cli, out: &mut impl Write) -> Result<(), Error> {
    let threads = check_flags(cli)?;
    // What a CUDA run needs, before compiling: the answers do not depend
    // on the program. The device stays open (its context retained) until
    // the run opens it again.
    let _device = open_device(cli)?;
    let (file, sets) = open_files(cli)?;
    // Read the data first: its dimensions settle what inference leaves open
    // in the arguments.
    let data = sets
        .iter()
        .map(|set| read_data(set))
        .collect::<Result<Vec<_>, _>>()?;
    let context = ocannl_runtime::context()?;
    if data.is_empty() {
        return run_binding(cli, out, &context, &file, threads, &mut []);
    }
    // One compilation per distinct binding of the input shapes, each run
    // on every set that has it; what a run prints is kept and printed in
    // the order of the sets.
    let mut runs: Vec<Run> = data
        .into_iter()
        .enumerate()
        .map(|(k, (arrays, shapes))| Run {
            index: k,
            compiled_for: k,
            arrays,
            shapes,
            printed: Vec::new(),
        })
        .collect();
    let several = runs.len() > 1;
    let mut done = vec![false; runs.len()];
    let mut result = Ok(());
    for first in 0..runs.len() {
        if done[first] {
            continue;
        }
        let key = runs[first].key();
        let mut group: Vec<Run> = Vec::new();
        for (k, run) in runs.iter_mut().enumerate() {
            if !done[k] && run.key() == key {
                done[k] = true;
                run.compiled_for = first;
                group.push(std::mem::take(run));
            }
        }
        result = run_binding(cli, out, &context, &file, threads, &mut group);
        for run in group {
            let k = run.index;
            runs[k] = run;
        }
        if result.is_err() {
            break;
        }
    }
    for run in &runs {
        if run.printed.is_empty() {
            break;
        }
        match (several, run.compiled_for) {
            (false, _) => {}
            (true, f) if f == run.index => say!(out, "inputs set {}:", run.index + 1),
            (true, f) => say!(
                out,
                "inputs set {} (the shapes of set {}: its code, not compiled again):",
                run.index + 1,
                f + 1
            ),
        }
        out.write_all(&run.printed)
            .map_err(|e| Error::new(format!("cannot write to standard output: {e}")))?;
    }
    result
}

/// One `--inputs` set: its arrays and their shapes, and what its run
/// printed.
#[derive(Default)]
struct Run {
    index: usize,
    /// The set whose compilation it runs (the first with its shapes).
    compiled_for: usize,
    arrays: Vec<Array>,
    shapes: Vec<InputShape>,
    printed: Vec<u8>,
}

impl Run {
    /// What a compilation depends on: the inputs' dims and dtypes.
    fn key(&self) -> Vec<(Vec<u64>, String)> {
        self.arrays
            .iter()
            .map(|a| (a.shape.clone(), format!("{:?}", a.elem())))
            .collect()
    }
}

/// Compiles the program for the shapes of `runs` (all the same; none:
/// random inputs of the inferred shapes) and runs it on each, or writes
/// the generated code (`--emit`).
fn run_binding(
    cli: &Cli,
    out: &mut impl Write,
    context: &ocannl_runtime::Context,
    file: &Input,
    threads: usize,
    runs: &mut [Run],
) -> Result<(), Error> {
    let started = Instant::now();
    let mut program = Program::compile_lowered(
        context,
        file.path(),
        cli.entry.as_deref(),
        runs.first().map(|r| r.shapes.as_slice()),
        threads,
        lowering(cli)?,
    )
    .map_err(|e| Error::new(file.rename(e.to_string())))?;
    if let Some(n) = cli.compile_threads {
        program.set_compile_threads(n);
    }
    if let (Some(kind), Some(file)) = (cli.emit, &cli.output) {
        return emit(out, &program, kind, file);
    }
    let signature = program.signature().clone();
    for paths in &cli.outputs {
        if paths.len() != signature.outputs.len() {
            return Err(Error::new(format!(
                "'@{}' has {} result(s) but {} --outputs file(s) were given",
                program.entry(),
                signature.outputs.len(),
                paths.len()
            )));
        }
    }
    let no_paths = Vec::new();
    let paths = |k: usize| cli.outputs.get(k).unwrap_or(&no_paths);
    if runs.is_empty() {
        program.check_memory(true)?;
        let mut rng = SplitMix64::new(cli.seed.unwrap_or(0));
        let mut inputs = signature
            .inputs
            .iter()
            .map(|s| Array::random(s.elem, &s.dims, &mut rng))
            .collect::<Result<Vec<_>, _>>()?;
        return run_set(
            cli,
            out,
            &program,
            &mut inputs,
            paths(0),
            (threads, started),
        );
    }
    let compile_time = started.elapsed();
    if cli.target == Target::Cuda {
        for run in runs.iter_mut() {
            let paths = paths(run.index);
            run_cuda(
                cli,
                &mut run.printed,
                &program,
                &run.arrays,
                paths,
                compile_time,
            )?;
        }
        return Ok(());
    }
    let jit = program.jit()?;
    let compile_time = started.elapsed();
    recheck_threads(threads)?;
    for run in runs.iter_mut() {
        let outputs = jit.run(&mut run.arrays)?;
        print_results(
            &mut run.printed,
            &outputs,
            &signature.outputs,
            paths(run.index),
        )?;
        time_runs(
            cli,
            &mut run.printed,
            &jit,
            &mut run.arrays,
            program.entry(),
            (threads, compile_time),
        )?;
    }
    Ok(())
}

/// `--bench N` (the median of N runs) or `--profile` (each op's nests
/// timed over N runs, 10 without `--bench`), when given.
fn time_runs(
    cli: &Cli,
    out: &mut impl Write,
    jit: &ocannl_runtime::Jit<'_, '_>,
    inputs: &mut [Array],
    entry: &str,
    (threads, compile_time): (usize, Duration),
) -> Result<(), Error> {
    if cli.profile {
        let profile = jit.profile(inputs, cli.bench.unwrap_or(DEFAULT_RUNS))?;
        print_profile(out, entry, &profile, threads)?;
    } else if let Some(n) = cli.bench {
        let times = jit.bench(inputs, n)?;
        print_bench(out, entry, times, threads, (compile_time, jit.code_parts()))?;
    }
    Ok(())
}

/// A run on one set of inputs made up for the inferred shapes.
fn run_set(
    cli: &Cli,
    out: &mut impl Write,
    program: &Program<'_>,
    inputs: &mut [Array],
    paths: &[PathBuf],
    (threads, started): (usize, Instant),
) -> Result<(), Error> {
    if cli.target == Target::Cuda {
        return run_cuda(cli, out, program, inputs, paths, started.elapsed());
    }
    let jit = program.jit()?;
    let compile_time = started.elapsed();
    recheck_threads(threads)?;
    let outputs = jit.run(inputs)?;
    print_results(out, &outputs, &program.signature().outputs, paths)?;
    time_runs(
        cli,
        out,
        &jit,
        inputs,
        program.entry(),
        (threads, compile_time),
    )
}

/// The CUDA device of a run on `--target cuda` (`None` otherwise), opened
/// before anything is compiled.
fn open_device(cli: &Cli) -> Result<Option<ocannl_runtime::cuda::Gpu>, Error> {
    if cli.target != Target::Cuda || cli.emit.is_some() {
        return Ok(None);
    }
    if !ocannl_runtime::cuda::driver_present() {
        return Err(Error::new(
            "--target cuda: no CUDA driver: libcuda.so was not found (install the NVIDIA driver, or run on the CPU; --emit ptx|cubin works without one)",
        ));
    }
    let device = cli.device.unwrap_or(0);
    Ok(Some(ocannl_runtime::cuda::Gpu::open(device).map_err(
        |e| match cli.device {
            Some(k) => Error::new(format!("--device {k}: {e}")),
            None => e,
        },
    )?))
}

/// The program file and the `--inputs` files: all there (a pipe may block
/// until written) before any is read, then opened to be read with a bound.
fn open_files(cli: &Cli) -> Result<(Input, Vec<Vec<Input>>), Error> {
    check_readable(&cli.file).map_err(Error::new)?;
    for path in cli.inputs.iter().flatten() {
        check_readable(path).map_err(|e| Error::new(format!("--inputs: {e}")))?;
    }
    let file = Input::open(&cli.file, Some(max_file_bytes())).map_err(Error::new)?;
    let open = |p: &PathBuf| Input::open(p, None).map_err(|e| Error::new(format!("--inputs: {e}")));
    let sets = cli
        .inputs
        .iter()
        .map(|set| set.iter().map(open).collect::<Result<Vec<_>, _>>())
        .collect::<Result<Vec<_>, _>>()?;
    Ok((file, sets))
}

/// The arrays of the `--inputs` files (opened as `inputs`), and their
/// shapes named by the paths the user gave.
fn read_data(inputs: &[Input]) -> Result<(Vec<Array>, Vec<InputShape>), Error> {
    let data: Vec<Array> = inputs
        .iter()
        .map(|i| Array::read_npy(i.path()).map_err(|e| Error::new(i.rename(e.to_string()))))
        .collect::<Result<_, _>>()?;
    let shapes: Vec<InputShape> = inputs
        .iter()
        .zip(&data)
        .map(|(i, a)| InputShape {
            name: format!("'{}'", i.given().display()),
            dims: a.shape.clone(),
        })
        .collect();
    Ok((data, shapes))
}

/// How the program is lowered: for the host CPU, as grids on the CPU, or
/// for CUDA (`--target cuda`, `--emit ptx|cubin`) with the chip, format
/// and toolkit the flags give.
fn lowering(cli: &Cli) -> Result<Lowering, Error> {
    let gpu_emit = matches!(cli.emit, Some(EmitKind::Ptx | EmitKind::Cubin));
    if !(gpu_emit || cli.target == Target::Cuda) {
        return Ok(match cli.target {
            Target::GridOnCpu => Lowering::GridOnCpu,
            _ if cli.profile => Lowering::CpuProfiled,
            _ => Lowering::Cpu,
        });
    }
    let format = if cli.emit == Some(EmitKind::Cubin) {
        "bin"
    } else {
        "isa"
    };
    let toolkit = cli.cuda_toolkit.as_ref().map(|p| p.display().to_string());
    let chip = cli.chip.as_deref().unwrap_or("sm_80");
    // Checked already (`check_flags`).
    let features = flags::nvptx_features(cli)?;
    let mut options = vec![
        ("chip", chip),
        ("format", format),
        ("features", features.as_str()),
    ];
    if let Some(t) = &toolkit {
        options.push(("toolkit", t.as_str()));
    }
    let passes = ocannl_passes::pipelines::inferred_to_nvvm(&options)
        .map_err(|e| Error::new(format!("--chip/--cuda-toolkit: {e}")))?;
    Ok(Lowering::Cuda { passes })
}

/// `--emit KIND -o FILE`: writes the generated code instead of running.
fn emit(
    out: &mut impl Write,
    program: &Program<'_>,
    kind: EmitKind,
    file: &std::path::Path,
) -> Result<(), Error> {
    let what = match kind {
        EmitKind::Llvm => Emit::Llvm,
        EmitKind::Asm => Emit::Asm,
        EmitKind::Obj => Emit::Obj,
        EmitKind::Ptx | EmitKind::Cubin => {
            let plan = program.gpu_plan()?;
            for written in write_kernels(&plan, file)? {
                say!(out, "wrote {}", written.display());
            }
            return Ok(());
        }
    };
    program.emit(what, file)?;
    say!(out, "wrote {}", file.display());
    Ok(())
}

/// `--target cuda`: runs on the device, prints and writes the results as
/// on the CPU; `--bench N` times N runs with CUDA events (the kernels, and
/// end to end with the copies).
fn run_cuda(
    cli: &Cli,
    out: &mut impl Write,
    program: &Program<'_>,
    inputs: &[Array],
    paths: &[PathBuf],
    compile_time: Duration,
) -> Result<(), Error> {
    let times = cli.bench.unwrap_or(0);
    let device = cli.device.unwrap_or(0);
    let (outputs, timings, name) = ocannl_runtime::gpu::run(program, device, inputs, times)?;
    let signature = program.signature();
    print_results(out, &outputs, &signature.outputs, paths)?;
    if !timings.is_empty() {
        let median = |f: fn(&ocannl_runtime::gpu::Timing) -> f32| {
            let mut v: Vec<f32> = timings.iter().map(f).collect();
            v.sort_by(f32::total_cmp);
            (v[v.len() / 2], v[0], v[v.len() - 1])
        };
        let (k, kmin, kmax) = median(|t| t.kernels_ms);
        let (e, _, _) = median(|t| t.end_to_end_ms);
        say!(
            out,
            "bench: {times} runs of '@{}' on CUDA device {device} ({name}), kernels median {k:.3} ms (min {kmin:.3} ms, max {kmax:.3} ms), end to end with copies median {e:.3} ms; compiled in {:.1} ms",
            program.entry(),
            compile_time.as_secs_f64() * 1e3
        );
    }
    Ok(())
}
