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
};

use clap::{Parser, ValueEnum};
use ocannl_runtime::{
    Emit, Error, InputShape, Lowering, Program,
    array::{Array, SplitMix64},
};
use ocannl_tools::cli::{Input, MAX_INPUT_BYTES, check_readable, check_writable};

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

/// `writeln!` to standard output, a write error (a closed pipe, a full
/// disk) becoming a user error instead of `println!`'s panic.
macro_rules! say {
    ($out:expr, $($arg:tt)*) => {
        writeln!($out, $($arg)*)
            .map_err(|e| Error::new(format!("cannot write to standard output: {e}")))?
    };
}

fn run(cli: &Cli, out: &mut impl Write) -> Result<(), Error> {
    let gpu_emit = matches!(cli.emit, Some(EmitKind::Ptx | EmitKind::Cubin));
    let threads = check_flags(cli)?;
    // What a CUDA run needs, before compiling: the answers do not depend
    // on the program. The device stays open (its context retained) until
    // the run opens it again.
    let _device = if cli.target == Target::Cuda && cli.emit.is_none() {
        if !ocannl_runtime::cuda::driver_present() {
            return Err(Error::new(
                "--target cuda: no CUDA driver: libcuda.so was not found (install the NVIDIA driver, or run on the CPU; --emit ptx|cubin works without one)",
            ));
        }
        let device = cli.device.unwrap_or(0);
        Some(
            ocannl_runtime::cuda::Gpu::open(device).map_err(|e| match cli.device {
                Some(k) => Error::new(format!("--device {k}: {e}")),
                None => e,
            })?,
        )
    } else {
        None
    };
    // The files: all there (a pipe may block until written) before any is
    // read, then read with a bound.
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
    // Read the data first: its dimensions settle what inference leaves open
    // in the arguments.
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
    let context = ocannl_runtime::context()?;
    let started = std::time::Instant::now();
    let lowering = if gpu_emit || cli.target == Target::Cuda {
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
        Lowering::Cuda { passes }
    } else {
        match cli.target {
            Target::GridOnCpu => Lowering::GridOnCpu,
            _ => Lowering::Cpu,
        }
    };
    let program = Program::compile_lowered(
        &context,
        file.path(),
        cli.entry.as_deref(),
        (!cli.inputs.is_empty()).then_some(shapes.as_slice()),
        threads,
        lowering,
    )
    .map_err(|e| Error::new(file.rename(e.to_string())))?;
    if let (Some(kind), Some(file)) = (cli.emit, &cli.output) {
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
        return Ok(());
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
    if threads > 1 {
        // Counted again with what compiling and the data took.
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        if let Some(room) = ocannl_tools::cli::omp_thread_room(RUN_RESERVE, cores)
            && threads > room.threads
        {
            return Err(too_many_threads(threads, &room));
        }
        if let Some((room, limit)) = ocannl_tools::cli::task_room(RUN_TASK_RESERVE)
            && threads > room
        {
            return Err(too_many_tasks(threads, room, limit));
        }
    }
    let outputs = jit.run(&mut inputs)?;
    print_results(out, &outputs, &signature.outputs, &cli.outputs)?;
    if let Some(n) = cli.bench {
        let mut times = jit.bench(&mut inputs, n)?;
        times.sort();
        let median = times[times.len() / 2];
        say!(
            out,
            "bench: {n} runs of '@{}', median {:.3} ms (min {:.3} ms, max {:.3} ms), {threads} thread(s); compiled in {:.1} ms",
            program.entry(),
            median.as_secs_f64() * 1e3,
            times[0].as_secs_f64() * 1e3,
            times[times.len() - 1].as_secs_f64() * 1e3,
            compile_time.as_secs_f64() * 1e3
        );
    }
    Ok(())
}

/// Every check of the flags alone, before any file is read or anything
/// compiled: counts out of range, flags that would have no effect with the
/// others, and paths that cannot be written. Returns the thread count.
fn check_flags(cli: &Cli) -> Result<usize, Error> {
    let fail = |m: String| Err(Error::new(m));
    let cuda = cli.target == Target::Cuda;
    let gpu_emit = matches!(cli.emit, Some(EmitKind::Ptx | EmitKind::Cubin));
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
    match cli.bench {
        Some(0) => return fail("--bench needs at least 1 run".into()),
        Some(n) if n > MAX_BENCH => {
            return fail(format!("--bench takes at most {MAX_BENCH} runs (got {n})"));
        }
        _ => {}
    }
    if cli.entry.as_deref() == Some("") {
        return fail("--entry needs a function name".into());
    }
    if cli.threads.is_some() && (cli.target != Target::Cpu || gpu_emit) {
        return fail(
            "--threads sets the OpenMP threads of the CPU's loops: not with --target cuda|grid-on-cpu or --emit ptx|cubin".into(),
        );
    }
    let threads = match cli.threads {
        Some(0) => return fail("--threads needs at least 1 thread".into()),
        Some(n) if n > MAX_THREADS => {
            return fail(format!(
                "--threads takes at most {MAX_THREADS} threads (got {n})"
            ));
        }
        Some(n) => n,
        None => std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(MAX_THREADS),
    };
    // Only a run starts threads (--emit writes code for them).
    let threads = if cli.emit.is_none() && cli.target == Target::Cpu {
        check_threads(threads, cli.threads.is_some())?
    } else {
        threads
    };
    for (i, path) in cli.outputs.iter().enumerate() {
        if cli.outputs[..i].contains(path) {
            return fail(format!(
                "--outputs names '{}' twice: one result would overwrite another",
                path.display()
            ));
        }
        check_writable(path).map_err(|e| Error::new(format!("--outputs: {e}")))?;
    }
    if let Some(path) = &cli.output {
        // PTX or cubin of several kernel modules go into a directory.
        if path.as_os_str().is_empty() || !(gpu_emit && (path.is_dir() || !path.exists())) {
            check_writable(path).map_err(|e| Error::new(format!("-o: {e}")))?;
        }
    }
    Ok(threads)
}

/// Address space kept for what comes after the flags are checked (the
/// MLIR context, compiling, the JIT's code, the data) when the threads are
/// counted against a limited address space before any of it.
const COMPILE_RESERVE: u64 = 512 << 20;

/// Address space kept for the run itself (the results, the OpenMP
/// runtime) when the threads are counted again just before it starts.
const RUN_RESERVE: u64 = 256 << 20;

/// `threads` OpenMP threads, checked against a limited address space
/// (`ulimit -v`, `prlimit --as`): libomp aborts the process when it cannot
/// make a thread, so too many asked for (`explicit`) is an error naming
/// the most that fit; the default (every core) is lowered to that instead.
/// glibc's malloc arenas are capped at the core count first, since each
/// thread would otherwise reserve 64 MiB for one.
fn check_threads(threads: usize, explicit: bool) -> Result<usize, Error> {
    if threads <= 1 {
        return Ok(threads);
    }
    let stack = ocannl_tools::cli::omp_stack_bytes();
    let memory = ocannl_tools::cli::memory_and_swap();
    if memory > 0 && stack > memory {
        return Err(Error::new(format!(
            "--threads {threads}: each OpenMP thread would reserve a stack of {} (OMP_STACKSIZE or KMP_STACKSIZE), more than the machine's memory ({}): set a smaller one, or use --threads 1",
            ocannl_tools::cli::gib(stack),
            ocannl_tools::cli::gib(memory)
        )));
    }
    // The user's threads (`ulimit -u`): MLIR's and libomp's own helpers
    // count too.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut threads = threads;
    if let Some((room, limit)) = ocannl_tools::cli::task_room(task_reserve(cores))
        && threads > room
    {
        if explicit {
            return Err(too_many_tasks(threads, room, limit));
        }
        threads = room.max(1);
    }
    if threads <= 1 || ocannl_tools::cli::omp_thread_room(0, 0).is_none() {
        return Ok(threads);
    }
    ocannl_tools::cli::limit_malloc_arenas(cores);
    let Some(room) = ocannl_tools::cli::omp_thread_room(COMPILE_RESERVE, cores) else {
        return Ok(threads);
    };
    if threads <= room.threads {
        Ok(threads)
    } else if explicit {
        Err(too_many_threads(threads, &room))
    } else {
        Ok(room.threads.max(1))
    }
}

/// Threads and processes of the user kept for others when counting again
/// just before the run (MLIR's threads exist then and are counted).
const RUN_TASK_RESERVE: u64 = 8;

/// Threads and processes of the user kept for others when counting
/// against `ulimit -u`: MLIR's thread pool (one per core), libomp's hidden
/// helpers, and a few more.
fn task_reserve(cores: usize) -> u64 {
    2 * cores as u64 + 16
}

/// The error for `threads` threads beyond the user's `limit` on threads
/// and processes, which leaves `room`.
fn too_many_tasks(threads: usize, room: usize, limit: u64) -> Error {
    Error::new(format!(
        "--threads {threads}: this user may run {limit} threads and processes in all (ulimit -u), which leaves room for {} more thread(s) here: ask for fewer",
        room.max(1)
    ))
}

/// The error for `threads` threads that do not fit in `room`.
fn too_many_threads(threads: usize, room: &ocannl_tools::cli::ThreadRoom) -> Error {
    use ocannl_tools::cli::gib;
    Error::new(format!(
        "--threads {threads}: each OpenMP thread reserves a {} stack (OMP_STACKSIZE, else ulimit -s), and the address-space limit of {} (ulimit -v) with {} in use leaves room for {} thread(s): ask for fewer, or set a smaller OMP_STACKSIZE",
        if room.stack >= 1 << 20 {
            format!("{:.1} MiB", room.stack as f64 / f64::from(1u32 << 20))
        } else {
            format!("{} KiB", room.stack >> 10)
        },
        gib(room.limit),
        gib(room.in_use),
        room.threads.max(1)
    ))
}

/// `--target cuda`: runs on the device, prints and writes the results as
/// on the CPU; `--bench N` times N runs with CUDA events (the kernels, and
/// end to end with the copies).
fn run_cuda(
    cli: &Cli,
    out: &mut impl Write,
    program: &Program<'_>,
    inputs: &[Array],
    compile_time: std::time::Duration,
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

/// Prints each result's spec and summary, and writes it where `paths`
/// says.
fn print_results(
    out: &mut impl Write,
    outputs: &[Array],
    sigs: &[ocannl_runtime::TensorSig],
    paths: &[PathBuf],
) -> Result<(), Error> {
    for (i, (result, sig)) in outputs.iter().zip(sigs).enumerate() {
        say!(out, "result #{i}: {sig}");
        say!(out, "  {}", summary(result));
        if let Some(path) = paths.get(i) {
            result.write_npy(path)?;
            say!(out, "  written to {}", path.display());
        }
    }
    Ok(())
}

/// `min .. max, mean, first cells`.
fn summary(a: &Array) -> String {
    // One pass, nothing allocated per cell: a result may take most of the
    // memory the process has (a copy as f64 of a 5 GiB f32 result aborted
    // on a failed 10 GiB allocation).
    let (mut min, mut max, mut sum, mut n) = (f64::INFINITY, f64::NEG_INFINITY, 0.0, 0u64);
    let mut first: Vec<String> = Vec::new();
    for x in a.iter_f64() {
        min = min.min(x);
        max = max.max(x);
        sum += x;
        n += 1;
        if first.len() < 6 {
            first.push(format!("{x:.6}"));
        }
    }
    if n == 0 {
        return "no cells".into();
    }
    let mean = sum / n as f64;
    let more = if n > 6 { ", ..." } else { "" };
    format!(
        "min {min:.6} max {max:.6} mean {mean:.6} cells [{}{more}]",
        first.join(", ")
    )
}

/// Writes each kernel module of `plan` (PTX text or a cubin): to `path`
/// when there is one, else into the directory `path` as `<module>.ptx` or
/// `<module>.cubin`. Returns the files written.
fn write_kernels(
    plan: &ocannl_runtime::gpu::Plan,
    path: &std::path::Path,
) -> Result<Vec<PathBuf>, Error> {
    use ocannl_runtime::gpu::Image;
    let write = |file: &std::path::Path, image: &Image| {
        let bytes: &[u8] = match image {
            Image::Ptx(text) => text.as_bytes(),
            Image::Binary(b) => b,
        };
        std::fs::write(file, bytes)
            .map_err(|e| Error::new(format!("cannot write '{}': {e}", file.display())))
    };
    match plan.modules.as_slice() {
        [] => Err(Error::new("the function has no kernels to write")),
        [(_, image)] => {
            write(path, image)?;
            Ok(vec![path.to_owned()])
        }
        modules => {
            std::fs::create_dir_all(path).map_err(|e| {
                Error::new(format!(
                    "{} kernel modules go into a directory, and '{}' cannot be one: {e}",
                    modules.len(),
                    path.display()
                ))
            })?;
            modules
                .iter()
                .map(|(name, image)| {
                    let ext = if matches!(image, Image::Ptx(_)) {
                        "ptx"
                    } else {
                        "cubin"
                    };
                    let file = path.join(format!("{name}.{ext}"));
                    write(&file, image).map(|()| file)
                })
                .collect()
        }
    }
}
