//! `ocannl-run`: compile a function on ocannl tensors and run it on `.npy`
//! data (DESIGN.md, "ocannl-run").
//!
//! ```text
//! ocannl-run FILE.mlir [--entry NAME] [--inputs A.npy B.npy ...] [--seed N]
//!            [--outputs OUT.npy ...] [--bench N] [--threads N] [--emit llvm|asm|obj -o FILE]
//! ```
//!
//! Exit codes: 0 success, 1 user error (bad file, bad input, failed
//! inference, flags out of range or without effect), never a panic. Every
//! flag is checked before any file is read or anything compiled; the
//! program file holds at most 1 GiB, and a pipe (as the program or an
//! input) is read up to 1 GiB ([`MAX_INPUT_BYTES`]), a device up to 1 MiB.

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
    cli::{Input, MAX_INPUT_BYTES, check_readable, check_writable},
    run::{
        report::{print_bench, print_results, write_kernels},
        threads::{check_threads, recheck_threads},
    },
    say,
};

/// The most OpenMP threads `--threads` asks for (libomp's own limit is
/// higher, but each thread reserves a stack: a typo like `--threads
/// 100000` would exhaust the address space instead of failing; see
/// [`check_threads`] for what a limited address space allows).
const MAX_THREADS: usize = 1024;

/// The most runs `--bench` times (each time is kept to take the median).
const MAX_BENCH: usize = 1_000_000;

/// Compile a function of the ocannl dialect (shapes inferred) to host code
/// and run it on .npy inputs, or write the generated code.

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
    /// batch, output, input).
    #[arg(long, num_args = 1..)]
    inputs: Vec<PathBuf>,
    /// Seed of the random inputs used when --inputs is absent (default 0).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Where to write the results (.npy), one per result in order.
    #[arg(long, num_args = 1..)]
    outputs: Vec<PathBuf>,
    /// Run N times and print the median time.
    #[arg(long, value_name = "N")]
    bench: Option<usize>,
    /// Threads for the parallel loops (default: every core; 1: no OpenMP).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
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
    /// --emit ptx|cubin; default sm_80).
    #[arg(long)]
    chip: Option<String>,
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
    let cli: Cli = match ocannl_tools::cli::parse("ocannl-run") {
        Ok(cli) => cli,
        Err(code) => return code,
    };
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
    let (file, inputs) = open_files(cli)?;
    // Read the data first: its dimensions settle what inference leaves open
    // in the arguments.
    let (data, shapes) = read_data(cli, &inputs)?;
    let context = ocannl_runtime::context()?;
    let started = Instant::now();
    let program = Program::compile_lowered(
        &context,
        file.path(),
        cli.entry.as_deref(),
        (!cli.inputs.is_empty()).then_some(shapes.as_slice()),
        threads,
        lowering(cli)?,
    )
    .map_err(|e| Error::new(file.rename(e.to_string())))?;
    if let (Some(kind), Some(file)) = (cli.emit, &cli.output) {
        return emit(out, &program, kind, file);
    }
    let signature = program.signature().clone();
    if !cli.outputs.is_empty() && cli.outputs.len() != signature.outputs.len() {
        return Err(Error::new(format!(
            "'@{}' has {} result(s) but {} --outputs file(s) were given",
            program.entry(),
            signature.outputs.len(),
            cli.outputs.len()
        )));
    }
    let mut inputs: Vec<Array> = if cli.inputs.is_empty() {
        program.check_memory(true)?;
        let mut rng = SplitMix64::new(cli.seed.unwrap_or(0));
        signature
            .inputs
            .iter()
            .map(|s| Array::random(s.elem, &s.dims, &mut rng))
            .collect::<Result<_, _>>()?
    } else {
        data
    };
    if cli.target == Target::Cuda {
        return run_cuda(cli, out, &program, &inputs, started.elapsed());
    }
    let jit = program.jit()?;
    let compile_time = started.elapsed();
    recheck_threads(threads)?;
    let outputs = jit.run(&mut inputs)?;
    print_results(out, &outputs, &signature.outputs, &cli.outputs)?;
    if let Some(n) = cli.bench {
        let times = jit.bench(&mut inputs, n)?;
        print_bench(out, program.entry(), times, threads, compile_time)?;
    }
    Ok(())
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
fn open_files(cli: &Cli) -> Result<(Input, Vec<Input>), Error> {
    check_readable(&cli.file).map_err(Error::new)?;
    for path in &cli.inputs {
        check_readable(path).map_err(|e| Error::new(format!("--inputs: {e}")))?;
    }
    let file = Input::open(&cli.file, Some(MAX_INPUT_BYTES)).map_err(Error::new)?;
    let inputs = cli
        .inputs
        .iter()
        .map(|p| Input::open(p, None).map_err(|e| Error::new(format!("--inputs: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((file, inputs))
}

/// The arrays of the `--inputs` files (opened as `inputs`), and their
/// shapes named by the paths the user gave.
fn read_data(cli: &Cli, inputs: &[Input]) -> Result<(Vec<Array>, Vec<InputShape>), Error> {
    let data: Vec<Array> = inputs
        .iter()
        .map(|i| Array::read_npy(i.path()).map_err(|e| Error::new(i.rename(e.to_string()))))
        .collect::<Result<_, _>>()?;
    let shapes: Vec<InputShape> = cli
        .inputs
        .iter()
        .zip(&data)
        .map(|(p, a)| InputShape {
            name: format!("'{}'", p.display()),
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
    let mut options = vec![("chip", chip), ("format", format)];
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

/// Every check of the flags alone, before any file is read or anything
/// compiled: counts out of range, flags that would have no effect with the
/// others, and paths that cannot be written. Returns the thread count.
fn check_flags(cli: &Cli) -> Result<usize, Error> {
    let gpu_emit = matches!(cli.emit, Some(EmitKind::Ptx | EmitKind::Cubin));
    check_combinations(cli, gpu_emit)?;
    match cli.bench {
        Some(0) => return Err(Error::new("--bench needs at least 1 run")),
        Some(n) if n > MAX_BENCH => {
            return Err(Error::new(format!(
                "--bench takes at most {MAX_BENCH} runs (got {n})"
            )));
        }
        _ => {}
    }
    if cli.entry.as_deref() == Some("") {
        return Err(Error::new("--entry needs a function name"));
    }
    let threads = thread_count(cli, gpu_emit)?;
    check_outputs(cli, gpu_emit)?;
    Ok(threads)
}

/// The flags that would have no effect with the others (`gpu_emit`:
/// `--emit ptx|cubin`), and `--cuda-toolkit` a directory.
fn check_combinations(cli: &Cli, gpu_emit: bool) -> Result<(), Error> {
    let fail = |m: String| Err(Error::new(m));
    let cuda = cli.target == Target::Cuda;
    if cli.output.is_some() && cli.emit.is_none() {
        return fail("-o names the file --emit writes: give --emit too".into());
    }
    if cli.emit.is_some() {
        // Nothing runs: these would be ignored.
        for (given, flag) in [
            (cli.bench.is_some(), "--bench"),
            (!cli.outputs.is_empty(), "--outputs"),
            (cli.seed.is_some(), "--seed"),
            (cli.device.is_some(), "--device"),
        ] {
            if given {
                return fail(format!(
                    "{flag} is for a run, and --emit writes code instead of running: give one or the other"
                ));
            }
        }
    }
    if cli.device.is_some() && !cuda {
        return fail("--device selects a CUDA device: give --target cuda too".into());
    }
    if !cuda && !gpu_emit {
        for (given, flag) in [
            (cli.chip.is_some(), "--chip"),
            (cli.cuda_toolkit.is_some(), "--cuda-toolkit"),
        ] {
            if given {
                return fail(format!(
                    "{flag} is for the GPU's kernels: give --target cuda or --emit ptx|cubin too"
                ));
            }
        }
    }
    if let Some(dir) = &cli.cuda_toolkit
        && !dir.is_dir()
    {
        return fail(format!(
            "--cuda-toolkit: '{}' is not a directory",
            dir.display()
        ));
    }
    if cli.seed.is_some() && !cli.inputs.is_empty() {
        return fail(
            "--seed picks the random inputs used without --inputs: give one or the other".into(),
        );
    }
    Ok(())
}

/// The OpenMP threads of the CPU's loops: `--threads` in range (and only
/// for them), else every core; checked against the process's limits
/// ([`check_threads`]) when they will run.
fn thread_count(cli: &Cli, gpu_emit: bool) -> Result<usize, Error> {
    if cli.threads.is_some() && (cli.target != Target::Cpu || gpu_emit) {
        return Err(Error::new(
            "--threads sets the OpenMP threads of the CPU's loops: not with --target cuda|grid-on-cpu or --emit ptx|cubin",
        ));
    }
    let threads = match cli.threads {
        Some(0) => return Err(Error::new("--threads needs at least 1 thread")),
        Some(n) if n > MAX_THREADS => {
            return Err(Error::new(format!(
                "--threads takes at most {MAX_THREADS} threads (got {n})"
            )));
        }
        Some(n) => n,
        None => std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(MAX_THREADS),
    };
    // Only a run starts threads (--emit writes code for them).
    if cli.emit.is_none() && cli.target == Target::Cpu {
        check_threads(threads, cli.threads.is_some())
    } else {
        Ok(threads)
    }
}

/// The `--outputs` files and the file of `-o`: distinct and writable
/// (`gpu_emit`: `-o` may be a directory for PTX or cubin).
fn check_outputs(cli: &Cli, gpu_emit: bool) -> Result<(), Error> {
    for (i, path) in cli.outputs.iter().enumerate() {
        if cli.outputs[..i].contains(path) {
            return Err(Error::new(format!(
                "--outputs names '{}' twice: one result would overwrite another",
                path.display()
            )));
        }
        check_writable(path).map_err(|e| Error::new(format!("--outputs: {e}")))?;
    }
    if let Some(path) = &cli.output {
        // PTX or cubin of several kernel modules go into a directory.
        if path.as_os_str().is_empty() || !(gpu_emit && (path.is_dir() || !path.exists())) {
            check_writable(path).map_err(|e| Error::new(format!("-o: {e}")))?;
        }
    }
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
    compile_time: Duration,
) -> Result<(), Error> {
    let times = cli.bench.unwrap_or(0);
    let device = cli.device.unwrap_or(0);
    let (outputs, timings, name) = ocannl_runtime::gpu::run(program, device, inputs, times)?;
    let signature = program.signature();
    print_results(out, &outputs, &signature.outputs, &cli.outputs)?;
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
