//! `ocannl-import-onnx`: an ONNX model as one `func.func @main` of the
//! ocannl dialect (the translation is `ocannl_onnx::translate`).
//!
//! ```text
//! ocannl-import-onnx MODEL.onnx [-o OUT.mlir] [--erase-shapes] [--erase-input-shapes A,B]
//! ```
//!
//! Exit codes: 0 success, 1 a file that cannot be read or imported (the
//! message names the file and the node), never a panic.

use std::{
    io::{self, Write},
    path::PathBuf,
    process::ExitCode,
};

use clap::Parser;
use ocannl_onnx::{Model, Options, translate};

/// Translate an ONNX model to the ocannl dialect: graph inputs become the
/// arguments of `@main`, graph outputs its results, initializers and
/// constants `ocannl.constant`.
#[derive(Debug, Parser)]
#[command(name = "ocannl-import-onnx", version)]
struct Cli {
    /// The .onnx file.
    model: PathBuf,
    /// Where to write the MLIR (default: standard output).
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Drop the shapes ONNX records for intermediates and outputs; keep
    /// only the graph inputs' and the constants' (for `ocannl-infer-shapes`
    /// to infer the rest).
    #[arg(long)]
    erase_shapes: bool,
    /// Graph inputs whose shapes are dropped too, to be inferred from
    /// their uses (comma-separated names).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    erase_input_shapes: Vec<String>,
}

/// mimalloc: the solver and the IR translation allocate many small,
/// short-lived vectors (see `ocannl-opt.rs`).
#[global_allocator]
static GLOBAL: ocannl_tools::MiMalloc = ocannl_tools::MiMalloc;

fn main() -> ExitCode {
    let cli: Cli = match ocannl_tools::cli::parse("ocannl-import-onnx") {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let shown = cli.model.display().to_string();
    let fail = |msg: String| {
        // A closed stderr leaves nothing to report to: exit 1 regardless.
        let _ = writeln!(io::stderr(), "{msg}");
        ExitCode::from(1)
    };
    let bytes = match std::fs::read(&cli.model) {
        Ok(b) => b,
        Err(e) => return fail(format!("{shown}: error: cannot read the model: {e}")),
    };
    let model = match Model::from_bytes(&bytes) {
        Ok(m) => m,
        Err(e) => return fail(format!("{shown}: error: {e}")),
    };
    let source = cli
        .model
        .file_name()
        .map_or_else(|| shown.clone(), |n| n.to_string_lossy().into_owned());
    let opts = Options {
        erase_shapes: cli.erase_shapes,
        erase_inputs: cli.erase_input_shapes,
        source,
    };
    let text = match translate(&model, &opts) {
        Ok(t) => t,
        Err(e) => return fail(format!("{shown}: error: {e}")),
    };
    let written = match &cli.output {
        Some(path) => std::fs::write(path, text.as_bytes())
            .map_err(|e| format!("{}: error: cannot write: {e}", path.display())),
        None if ocannl_passes::driver::stdout_closed_at_start() => {
            Err("error: cannot write the output: standard output is closed".to_string())
        }
        None => io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .map_err(|e| format!("error: cannot write the output: {e}")),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(m) => fail(m),
    }
}
