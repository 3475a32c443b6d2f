//! `ocannl-opt`: an `mlir-opt` with the ocannl dialect and passes.
//!
//! Every `mlir-opt` flag works (`-p`/`--pass-pipeline`, `--split-input-file`,
//! `--verify-diagnostics`, `--mlir-print-ir-after-all`, ...); `--help` lists
//! the ocannl passes beside the upstream ones.
//!
//! Before MLIR's driver gets the command line, the input files are checked
//! as `ocannl-run` checks its own: at most a quarter of the available
//! memory (at least 1 GiB), a pipe (a FIFO, standard input) read up to 1 GiB and a device (`/dev/zero`) up to 1 MiB
//! ([`ocannl_tools::cli::Input`]); and `--help` and `--version`, which LLVM
//! prints and then exits, run in a child process whose output is copied,
//! so that a closed or full standard output is an error.

use std::{
    io::{self, IsTerminal, Write},
    path::Path,
    process::ExitCode,
};

use ocannl_tools::cli::{Input, MAX_INPUT_BYTES, max_file_bytes};

/// mimalloc for Rust's allocations (MLIR's C++ keeps the system allocator):
/// the solver and the IR translation allocate many small, short-lived
/// vectors, and mimalloc's thread-local free lists make `ocannl-infer-shapes`
/// about 30% faster than glibc's malloc (`tools/bench/infer_vs_onnx.py`).
/// Version 2 of mimalloc (see `tools/Cargo.toml` for why not 3), called
/// directly for the blocks it aligns anyway (`tools/src/ffi.rs`).
/// Loaded as a plugin, the passes use the host's allocator.
#[global_allocator]
static GLOBAL: ocannl_tools::MiMalloc = ocannl_tools::MiMalloc;

/// Set in the child that prints `--help` or `--version` for its parent.
const PRINTING_FOR_PARENT: &str = "OCANNL_OPT_PRINTING_FOR_PARENT";

/// LLVM's options that print to standard output and exit.
const PRINT_AND_EXIT: &[&str] = &[
    "h",
    "help",
    "help-hidden",
    "help-list",
    "help-list-hidden",
    "version",
];

/// Options whose value is a separate argument naming an input file.
const INPUT_OPTIONS: &[&str] = &["irdl-file"];

/// Options that take their value as the next argument (the inputs guard
/// must not take that value for the input file).
const VALUE_OPTIONS: &[&str] = &[
    "o",
    "p",
    "pass-pipeline",
    "irdl-file",
    "log-actions-to",
    "log-mlir-actions-filter",
    "mlir-pass-pipeline-crash-reproducer",
    "mlir-print-ir-tree-dir",
    "mlir-timing-display",
    "mlir-output-format",
    "mlir-pass-statistics-display",
];

fn main() -> ExitCode {
    let fail = |m: String| {
        let _ = writeln!(io::stderr(), "ocannl-opt: error: {m}");
        ExitCode::from(1)
    };
    let mut args = Vec::new();
    for (i, a) in std::env::args_os().enumerate() {
        match a.into_string() {
            Ok(a) => args.push(a),
            Err(a) => {
                return fail(format!(
                    "argument {i} ('{}') is not valid UTF-8",
                    a.to_string_lossy()
                ));
            }
        }
    }
    if std::env::var_os(PRINTING_FOR_PARENT).is_none()
        && args.iter().skip(1).any(|a| {
            let name = option_name(a);
            a.starts_with('-') && PRINT_AND_EXIT.contains(&name)
        })
    {
        return print_through_child(&args);
    }
    // The inputs, bounded; kept open while the driver runs.
    let inputs = match guard_inputs(&mut args) {
        Ok(inputs) => inputs,
        Err(m) => return fail(m),
    };
    let code = ocannl_passes::driver::opt_main(args);
    drop(inputs);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// `--name=value`, `-name` -> `name`.
fn option_name(arg: &str) -> &str {
    let a = arg.trim_start_matches('-');
    a.split_once('=').map_or(a, |(n, _)| n)
}

/// Checks each input file (the positional arguments, `--irdl-file`,
/// `@` response files, and standard input when the input is `-` or absent) with [`Input::open`],
/// and points `args` at the bounded copy where one was made.
fn guard_inputs(args: &mut [String]) -> Result<Vec<Input>, String> {
    let mut kept = Vec::new();
    let mut positional = 0;
    let mut options_end = false;
    let mut response_files = false;
    let mut i = 1;
    while i < args.len() {
        let arg = args[i].clone();
        let input_at = if !options_end && arg.starts_with('@') {
            // A response file (LLVM reads its arguments from it): bounded
            // too; what it names is not seen here.
            response_files = true;
            Some((i, Some(1)))
        } else if options_end || !arg.starts_with('-') || arg == "-" {
            positional += 1;
            (arg != "-").then_some((i, None))
        } else if arg == "--" {
            options_end = true;
            None
        } else {
            let name = option_name(&arg);
            match arg.split_once('=') {
                Some((_, value)) if INPUT_OPTIONS.contains(&name) => {
                    Some((i, Some(arg.len() - value.len())))
                }
                Some(_) => None,
                None if VALUE_OPTIONS.contains(&name) => {
                    i += 1;
                    INPUT_OPTIONS
                        .contains(&name)
                        .then_some(i)
                        .filter(|&v| v < args.len())
                        .map(|v| (v, None))
                }
                None => None,
            }
        };
        if let Some((at, value_start)) = input_at {
            let start = value_start.unwrap_or(0);
            let path = args[at][start..].to_owned();
            // What is missing (or the value of an option not listed above)
            // is left to the driver, which reports a missing input itself.
            if std::fs::metadata(&path).is_ok_and(|m| !m.is_dir()) {
                let input = Input::open(Path::new(&path), Some(max_file_bytes()))?;
                let opened = input.path().display().to_string();
                if opened != path {
                    args[at].replace_range(start.., &opened);
                }
                kept.push(input);
            }
        }
        i += 1;
    }
    if (positional == 0 && !response_files) || args.iter().skip(1).any(|a| a == "-") {
        // MLIR's driver reads standard input to its end (a terminal
        // interactively).
        if !io::stdin().is_terminal() && Path::new("/dev/stdin").exists() {
            let input = Input::open(Path::new("/dev/stdin"), Some(MAX_INPUT_BYTES))
                .map_err(|e| e.replace("'/dev/stdin'", "standard input"))?;
            kept.push(input);
        }
    }
    Ok(kept)
}

/// Runs this command line in a child process with its standard output
/// captured (LLVM prints `--help` and exits, and an output it could not
/// write would be reported as `LLVM ERROR` at exit), then copies that
/// output, checking the write.
fn print_through_child(args: &[String]) -> ExitCode {
    let fail = |m: String| {
        let _ = writeln!(
            io::stderr(),
            "ocannl-opt: error: cannot write the output: {m}"
        );
        ExitCode::from(1)
    };
    if ocannl_passes::driver::stdout_closed_at_start() {
        return fail("standard output is closed".into());
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return fail(format!("cannot find this program: {e}")),
    };
    let child = std::process::Command::new(exe)
        .args(&args[1..])
        .env(PRINTING_FOR_PARENT, "1")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .output();
    let out = match child {
        Ok(out) => out,
        Err(e) => return fail(format!("cannot run this program again: {e}")),
    };
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout.write_all(&out.stdout).and_then(|()| stdout.flush()) {
        return fail(e.to_string());
    }
    ExitCode::from(
        out.status
            .code()
            .map_or(1, |c| u8::try_from(c).unwrap_or(1)),
    )
}
