//! `ocannl-run`: compile a function on ocannl tensors and run it on `.npy`
//! data (DESIGN.md, "ocannl-run").
//!
//! ```text
//! ocannl-run FILE.mlir [--entry NAME] [--inputs A.npy B.npy ...] [--seed N]
//!            [--outputs OUT.npy ...] [--bench N] [--threads N] [--emit llvm|asm|obj -o FILE]
//! ```
//!
//! Exit codes: 0 success, 1 user error (bad file, bad input, failed
//! inference), never a panic.

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

/// Compile a function of the ocannl dialect (shapes inferred) to host code
/// and run it on .npy inputs, or write the generated code.
/// The most OpenMP threads `--threads` asks for (libomp's own limit is
/// higher, but each thread reserves a stack: a typo like `--threads
/// 100000` would exhaust the address space instead of failing).
const MAX_THREADS: usize = 1024;

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
    /// Seed of the random inputs used when --inputs is absent.
    #[arg(long, default_value_t = 0)]
    seed: u64,
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
    /// --emit ptx|cubin).
    #[arg(long, default_value = "sm_80")]
    chip: String,
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
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
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
    if cli.target == Target::Cuda && cli.emit.is_none() && !ocannl_runtime::cuda::driver_present() {
        // Before compiling: the answer does not depend on the program.
        return Err(Error::new(
            "--target cuda: no CUDA driver: libcuda.so was not found (install the NVIDIA driver, or run on the CPU; --emit ptx|cubin works without one)",
        ));
    }
    if cli.device.is_some() && cli.target != Target::Cuda {
        return Err(Error::new(
            "--device selects a CUDA device: give --target cuda too",
        ));
    }
    if cli.output.is_some() && cli.emit.is_none() {
        return Err(Error::new(
            "-o names the file --emit writes: give --emit too",
        ));
    }
    // Read the data first: its dimensions settle what inference leaves open
    // in the arguments.
    let data: Vec<Array> = cli
        .inputs
        .iter()
        .map(|p| Array::read_npy(p))
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
    let threads = match cli.threads {
        Some(0) => return Err(Error::new("--threads needs at least 1 thread")),
        Some(n) if n > MAX_THREADS => {
            return Err(Error::new(format!(
                "--threads takes at most {MAX_THREADS} threads (got {n})"
            )));
        }
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, usize::from),
    };
    let context = ocannl_runtime::context()?;
    let started = std::time::Instant::now();
    let lowering = if gpu_emit || cli.target == Target::Cuda {
        let format = if cli.emit == Some(EmitKind::Cubin) {
            "bin"
        } else {
            "isa"
        };
        let toolkit = cli.cuda_toolkit.as_ref().map(|p| p.display().to_string());
        let mut options = vec![("chip", cli.chip.as_str()), ("format", format)];
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
        &cli.file,
        cli.entry.as_deref(),
        (!cli.inputs.is_empty()).then_some(shapes.as_slice()),
        threads,
        lowering,
    )?;
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
        let mut rng = SplitMix64::new(cli.seed);
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
    let outputs = jit.run(&mut inputs)?;
    print_results(out, &outputs, &signature.outputs, &cli.outputs)?;
    if let Some(n) = cli.bench {
        if n == 0 {
            return Err(Error::new("--bench needs at least 1 run"));
        }
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
    let times = match cli.bench {
        Some(0) => return Err(Error::new("--bench needs at least 1 run")),
        Some(n) => n,
        None => 0,
    };
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
    let v = a.to_f64();
    if v.is_empty() {
        return "no cells".into();
    }
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let first: Vec<String> = v.iter().take(6).map(|x| format!("{x:.6}")).collect();
    let more = if v.len() > 6 { ", ..." } else { "" };
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
