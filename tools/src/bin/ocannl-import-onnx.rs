//! `ocannl-import-onnx`: an ONNX model as one `func.func @main` of the
//! ocannl dialect (the translation is `ocannl_onnx::translate`).
//!
//! ```text
//! ocannl-import-onnx MODEL.onnx [-o OUT.mlir] [--erase-shapes] [--erase-input-shapes A,B] [--no-fold]
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
use ocannl_onnx::{Model, Options, translate_model};

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
    /// Keep BatchNormalization and per-channel Mul and Add after a
    /// convolution or matrix product as ops of their own, instead of
    /// folding them into its constant weights and bias.
    #[arg(long)]
    no_fold: bool,
}

/// mimalloc: the solver and the IR translation allocate many small,
/// short-lived vectors (see `ocannl-opt.rs`).
#[global_allocator]
static GLOBAL: ocannl_tools::MiMalloc = ocannl_tools::MiMalloc;

fn main() -> ExitCode {
    // The model's bytes, its weights and their hex: hundreds of megabytes
    // filled at once, in large pages.
    ocannl_tools::use_large_os_pages();
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
    let bytes = match read_bounded(&cli.model) {
        Ok(b) => b,
        Err(e) => return fail(format!("{shown}: error: cannot read the model: {e}")),
    };
    let model = match Model::from_bytes_in(&bytes, cli.model.parent()) {
        Ok(m) => m,
        Err(e) => return fail(format!("{shown}: error: {e}")),
    };
    drop(bytes);
    let source = cli
        .model
        .file_name()
        .map_or_else(|| shown.clone(), |n| n.to_string_lossy().into_owned());
    let opts = Options {
        erase_shapes: cli.erase_shapes,
        erase_inputs: cli.erase_input_shapes,
        source,
        no_fold: cli.no_fold,
    };
    let text = match translate_model(model, &opts) {
        Ok(t) => t,
        Err(e) => return fail(format!("{shown}: error: {e}")),
    };
    // The pieces are written as they are, not joined first (see
    // `ModuleText`).
    let write = |w: &mut dyn Write| -> io::Result<()> {
        let mut w = io::BufWriter::with_capacity(1 << 20, w);
        text.write_to(&mut w)?;
        w.flush()
    };
    let written = match &cli.output {
        Some(path) => std::fs::File::create(path)
            .and_then(|mut f| write(&mut f))
            .map_err(|e| format!("{}: error: cannot write: {e}", path.display())),
        None if ocannl_passes::driver::stdout_closed_at_start() => {
            Err("error: cannot write the output: standard output is closed".to_string())
        }
        None => write(&mut io::stdout().lock())
            .map_err(|e| format!("error: cannot write the output: {e}")),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(m) => fail(m),
    }
}

/// The file's bytes, at most [`ocannl_onnx::MAX_MODEL_BYTES`] of them: a
/// larger file, or an endless one (`/dev/zero`, a pipe), is an error after
/// reading one byte more, never an exhausted memory.
fn read_bounded(path: &std::path::Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let limit = ocannl_onnx::MAX_MODEL_BYTES;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    if let Ok(m) = file.metadata() {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_dir() {
            return Err("it is a directory".into());
        }
        // A device (`/dev/zero`, `/dev/urandom`) is no model file; a pipe
        // is read up to the limit.
        if t.is_char_device() || t.is_block_device() || t.is_socket() {
            return Err("it is a device, not a model file".into());
        }
        if m.len() > limit {
            return Err(format!(
                "it is {} bytes, past protobuf's limit on a model (2 GiB; larger models keep their weights in external data)",
                m.len()
            ));
        }
    }
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "it holds more than {limit} bytes, protobuf's limit on a model (2 GiB; larger models keep their weights in external data)"
        ));
    }
    Ok(bytes)
}
