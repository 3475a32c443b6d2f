//! `ocannl-run`'s flags: each checked alone before any file is read or
//! anything compiled, and `--inputs`/`--outputs` grouped by occurrence.

use std::path::PathBuf;

use clap::CommandFactory;
use ocannl_runtime::Error;
use ocannl_tools::{cli::check_writable, run::threads::check_threads};

use super::{Cli, EmitKind, Target};

/// The most OpenMP threads `--threads` asks for (libomp's own limit is
/// higher, but each thread reserves a stack: a typo like `--threads
/// 100000` would exhaust the address space instead of failing; see
/// [`check_threads`] for what a limited address space allows).
const MAX_THREADS: usize = 1024;

/// The most runs `--bench` times (each time is kept to take the median).
const MAX_BENCH: usize = 1_000_000;

/// Every check of the flags alone, before any file is read or anything
/// compiled: counts out of range, flags that would have no effect with the
/// others, and paths that cannot be written. Returns the thread count.
pub(super) fn check_flags(cli: &Cli) -> Result<usize, Error> {
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
    if cli.target == Target::Cuda || gpu_emit {
        nvptx_features(cli)?;
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
            (cli.profile, "--profile"),
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
    if cli.compile_threads.is_some() && (cli.emit.is_some() || cuda) {
        return fail(
            "--compile-threads sets the threads the JIT compiles host code on: not with --emit or --target cuda"
                .into(),
        );
    }
    if cli.profile && cli.target != Target::Cpu {
        return fail(
            "--profile times the loop nests of a run on the CPU: not with --target cuda|grid-on-cpu"
                .into(),
        );
    }
    if cli.device.is_some() && !cuda {
        return fail("--device selects a CUDA device: give --target cuda too".into());
    }
    if !cuda && !gpu_emit {
        for (given, flag) in [
            (cli.chip.is_some(), "--chip"),
            (cli.cuda_toolkit.is_some(), "--cuda-toolkit"),
            (cli.ptx_version.is_some(), "--ptx-version"),
        ] {
            if given {
                return fail(format!(
                    "{flag} is for the GPU's kernels: give --target cuda or --emit ptx|cubin too"
                ));
            }
        }
    }
    if let Some(dir) = &cli.cuda_toolkit {
        if !dir.is_dir() {
            return fail(format!(
                "--cuda-toolkit: '{}' is not a directory",
                dir.display()
            ));
        }
        if !dir.join("nvvm/libdevice/libdevice.10.bc").is_file() {
            return fail(format!(
                "--cuda-toolkit: '{}' has no nvvm/libdevice/libdevice.10.bc (give a CUDA toolkit, or the nvidia/cuda_nvcc directory of PyPI's nvidia-cuda-nvcc-cu12)",
                dir.display()
            ));
        }
    }
    if cli.seed.is_some() && !cli.inputs.is_empty() {
        return fail(
            "--seed picks the random inputs used without --inputs: give one or the other".into(),
        );
    }
    if cli.inputs.len() > 1 && cli.emit.is_some() {
        return fail("--emit writes the code of one binding: give one --inputs set".into());
    }
    if cli.outputs.len() > 1.max(cli.inputs.len())
        || (cli.inputs.len() > 1
            && !cli.outputs.is_empty()
            && cli.outputs.len() != cli.inputs.len())
    {
        return fail(format!(
            "{} --outputs set(s) for {} --inputs set(s): give one per set, or none",
            cli.outputs.len(),
            cli.inputs.len().max(1)
        ));
    }
    Ok(())
}

/// The NVPTX features of `--chip` and `--ptx-version` (`+ptxNN`), checked
/// against the processors and PTX versions LLVM knows
/// ([`ocannl_passes::pipelines::resolve_nvptx_target`]).
pub(super) fn nvptx_features(cli: &Cli) -> Result<String, Error> {
    let chip = cli.chip.as_deref().unwrap_or("sm_80");
    let features = match cli.ptx_version.as_deref() {
        None => "auto".to_owned(),
        Some(v) => {
            let digits = v
                .split_once('.')
                .filter(|(major, minor)| {
                    !major.is_empty()
                        && minor.len() == 1
                        && major
                            .chars()
                            .chain(minor.chars())
                            .all(|c| c.is_ascii_digit())
                })
                .map(|(major, minor)| format!("{major}{minor}"));
            let Some(digits) = digits else {
                return Err(Error::new(format!(
                    "--ptx-version: {v:?} is not a PTX ISA version: give MAJOR.MINOR, e.g. 8.6"
                )));
            };
            format!("+ptx{digits}")
        }
    };
    ocannl_passes::pipelines::resolve_nvptx_target(chip, &features).map_err(|e| {
        let flags = match (cli.chip.is_some(), cli.ptx_version.is_some()) {
            (_, false) => "--chip",
            (false, true) => "--ptx-version",
            (true, true) => "--chip/--ptx-version",
        };
        Error::new(format!("{flags}: {e}"))
    })
}

/// The OpenMP threads of the CPU's loops: `--threads` in range (and only
/// for them), else every core; checked against the process's limits
/// ([`check_threads`]) when they will run.
fn thread_count(cli: &Cli, gpu_emit: bool) -> Result<usize, Error> {
    if let Some(n) = cli.compile_threads {
        count_in_range("--compile-threads", n)?;
    }
    if cli.threads.is_some() && (cli.target != Target::Cpu || gpu_emit) {
        return Err(Error::new(
            "--threads sets the OpenMP threads of the CPU's loops: not with --target cuda|grid-on-cpu or --emit ptx|cubin",
        ));
    }
    let threads = match cli.threads {
        Some(n) => count_in_range("--threads", n)?,
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

/// `n` threads for `flag`: at least 1, at most [`MAX_THREADS`].
fn count_in_range(flag: &str, n: usize) -> Result<usize, Error> {
    match n {
        0 => Err(Error::new(format!("{flag} needs at least 1 thread"))),
        n if n > MAX_THREADS => Err(Error::new(format!(
            "{flag} takes at most {MAX_THREADS} threads (got {n})"
        ))),
        n => Ok(n),
    }
}

/// The `--outputs` files and the file of `-o`: distinct and writable
/// (`gpu_emit`: `-o` may be a directory for PTX or cubin).
fn check_outputs(cli: &Cli, gpu_emit: bool) -> Result<(), Error> {
    let all: Vec<&PathBuf> = cli.outputs.iter().flatten().collect();
    for (i, path) in all.iter().enumerate() {
        if all[..i].contains(path) {
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

/// The values of the flag `id`, one list per occurrence (the command line
/// parsed again: it parsed once already).
pub(super) fn occurrences(id: &str) -> Vec<Vec<PathBuf>> {
    let Ok(matches) = Cli::command().try_get_matches_from(std::env::args_os()) else {
        return Vec::new();
    };
    let Ok(Some(sets)) = matches.try_get_occurrences::<PathBuf>(id) else {
        return Vec::new();
    };
    sets.map(|set| set.cloned().collect()).collect()
}
