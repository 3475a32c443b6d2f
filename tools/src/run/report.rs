//! What `ocannl-run` prints and writes: each result's spec and summary
//! (and its `.npy` file), the `--bench` line, and the kernel modules of
//! `--emit ptx|cubin`.

use std::{
    io::Write,
    path::{Path, PathBuf},
    time::Duration,
};

use ocannl_runtime::{
    Error, TensorSig,
    array::Array,
    gpu::{Image, Plan},
};

use crate::say;

/// Prints each result's spec and summary, and writes it where `paths`
/// says.
///
/// # Errors
///
/// Standard output or a result's file cannot be written.
pub fn print_results(
    out: &mut impl Write,
    outputs: &[Array],
    sigs: &[TensorSig],
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

/// Prints the `--bench` line of a run on the CPU: the median, least and
/// most of `times` (one per run of `'@entry'`, at least one), the time to
/// compile, and the parts LLVM compiled the code in when more than one
/// (each on its own thread: `Program::set_compile_threads`).
///
/// # Errors
///
/// Standard output cannot be written.
pub fn print_bench(
    out: &mut impl Write,
    entry: &str,
    mut times: Vec<Duration>,
    threads: usize,
    (compile_time, parts): (Duration, usize),
) -> Result<(), Error> {
    let n = times.len();
    times.sort();
    let median = times[times.len() / 2];
    say!(
        out,
        "bench: {n} runs of '@{}', median {:.3} ms (min {:.3} ms, max {:.3} ms), {threads} thread(s); compiled in {:.1} ms{}",
        entry,
        median.as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3,
        compile_time.as_secs_f64() * 1e3,
        if parts > 1 {
            format!(" (the code in {parts} parts, one thread each)")
        } else {
            String::new()
        }
    );
    Ok(())
}

/// Writes each kernel module of `plan` (PTX text or a cubin): to `path`
/// when there is one, else into the directory `path` as `<module>.ptx` or
/// `<module>.cubin`. Returns the files written.
///
/// # Errors
///
/// No kernels, or a file or the directory cannot be written.
pub fn write_kernels(plan: &Plan, path: &Path) -> Result<Vec<PathBuf>, Error> {
    let write = |file: &Path, image: &Image| {
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
