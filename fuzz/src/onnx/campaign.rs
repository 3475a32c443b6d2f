//! The ONNX campaign: worker threads generate models, run
//! `ocannl-import-onnx` on each (with `--erase-shapes` on every other
//! one), `ocannl-run` on a spread-out subset of those that import (on
//! `.npy` inputs written here), and onnxruntime on the same inputs (one
//! long-lived helper per worker); every process is judged and every
//! failure saved with a reproducer.
//!
//! One model's steps are in `check`, the verdicts on onnxruntime's replies
//! in `differential`; the worker pool is `crate::pool`'s.

mod check;
mod differential;

use check::check_model;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::Context as _;

use super::ort::{Ort, OrtConfig};
use super::{GenConfig, Generated, generate};
use crate::campaign::{is_selected, print_new_failure};
use crate::exec::{self, Outcome};
use crate::oracle::Judgement;
use crate::pool::{self, Pool};
use crate::report::{FailureInfo, Report};

/// Models with more nodes only go through the importer: `ocannl-run`
/// compiles about 6 ms per node (release; an 8000-node chain runs past 30
/// s), linear, which the onnx-big chains would report as hangs.
pub const MAX_RUN_NODES: usize = 1500;

/// Everything an ONNX campaign needs.
#[derive(Debug, Clone)]
pub struct Config {
    /// `ocannl-import-onnx`.
    pub import: PathBuf,
    /// `ocannl-run`.
    pub run: PathBuf,
    /// How many models.
    pub models: u64,
    /// How many of them (spread evenly) go on to `ocannl-run` and
    /// onnxruntime.
    pub run_models: u64,
    /// The campaign's seed.
    pub seed: u64,
    /// Worker threads.
    pub jobs: usize,
    /// Per-process limits.
    pub limits: exec::Limits,
    /// Where failures are saved.
    pub out: PathBuf,
    /// What to generate.
    pub generator: GenConfig,
    /// Seconds between progress lines.
    pub progress: Duration,
    /// The onnxruntime helper (None: no differential oracle).
    pub ort: Option<OrtConfig>,
}

/// One judged step of a model.
pub struct Check {
    /// `ocannl-import-onnx`, `ocannl-run` or `onnxruntime`.
    pub target: &'static str,
    /// The commands that reproduce it (`SAVED` stands for the saved
    /// files' common stem).
    pub command: String,
    /// What the process did (for onnxruntime: its reply as stderr).
    pub outcome: Outcome,
    /// The judgement.
    pub judgement: Judgement,
}

/// What one model's checks leave.
pub struct ModelRun {
    /// The judged steps.
    pub checks: Vec<Check>,
    /// The inputs written (`inN.npy` suffix, bytes).
    pub inputs: Vec<(String, Vec<u8>)>,
    /// The imported MLIR, when the import passed.
    pub mlir: Option<Vec<u8>>,
    /// Counts for the report's notes.
    pub notes: Vec<String>,
}

/// Runs the campaign.
pub fn run(cfg: &Config) -> anyhow::Result<(Report, Duration)> {
    let pool = Pool {
        jobs: cfg.jobs,
        items: cfg.models,
        noun: "models",
        progress: cfg.progress,
    };
    pool::run(
        &pool,
        |w| {
            let scratch = tempfile::Builder::new()
                .prefix(&format!("ocannl-fuzz-onnx-w{w}-"))
                .tempdir()
                .context("creating a scratch directory")?;
            Ok((scratch, cfg.ort.clone().map(Ort::new)))
        },
        |(scratch, ort), i, report| model(cfg, scratch.path(), ort.as_mut(), i, report),
    )
}

/// Generates model `i`, checks it and records the result.
fn model(
    cfg: &Config,
    scratch: &Path,
    ort: Option<&mut Ort>,
    i: u64,
    report: &Mutex<Report>,
) -> anyhow::Result<()> {
    let file = scratch.join("model.onnx");
    let g = generate(cfg.seed, i, &cfg.generator);
    std::fs::write(&file, &g.bytes)?;
    let run_it = is_selected(i, cfg.models, cfg.run_models);
    let m = check_model(
        cfg,
        ort,
        &file,
        i,
        g.class != super::WF,
        run_it,
        None,
        scratch,
    )?;
    record(cfg, &mut pool::lock(report), &g, i, &m)
}

/// Tallies model `i`'s checks and notes, saving each failure with the
/// inputs and the imported MLIR.
fn record(cfg: &Config, r: &mut Report, g: &Generated, i: u64, m: &ModelRun) -> anyhow::Result<()> {
    r.record_program(g.class);
    for n in &m.notes {
        *r.notes.entry(n.clone()).or_default() += 1;
    }
    for c in &m.checks {
        r.record(c.target, g.class, &c.judgement, c.outcome.elapsed);
        if c.judgement.verdict.is_failure() {
            let mut attachments = m.inputs.clone();
            if let Some(t) = &m.mlir {
                attachments.push(("mlir".into(), t.clone()));
            }
            let info = FailureInfo {
                class: g.class,
                index: i,
                program: &g.bytes,
                command: c.command.clone(),
                exit: c.outcome.exit.to_string(),
                stdout_tail: exec::tail(&c.outcome.stdout, 2000),
                stderr_tail: exec::tail(&c.outcome.stderr, 4000),
                ext: "onnx",
                attachments,
            };
            let new = r.save_failure(&cfg.out, c.target, &c.judgement, &info)?;
            if new {
                print_new_failure(c.target, &c.judgement, g.class, i);
            }
        }
    }
    Ok(())
}

/// Reruns the tools (and onnxruntime) on a saved model, with the inputs
/// saved next to it (`STEM.inN.npy`) when there are any and
/// `--erase-shapes` as its `.txt` says; prints what each did. Ok(true)
/// when nothing failed.
pub fn reproduce(cfg: &Config, file: &Path, index: u64) -> anyhow::Result<bool> {
    // Saved failures are named CLASS-TARGET-KIND-HASH.onnx.
    let hostile = !file
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("onnx-wf-"));
    let scratch = tempfile::tempdir().context("creating a scratch directory")?;
    let stem = file.with_extension("");
    let mut saved = Vec::new();
    for k in 0.. {
        let p = PathBuf::from(format!("{}.in{k}.npy", stem.display()));
        if !p.is_file() {
            break;
        }
        saved.push(p);
    }
    // The saved commands say whether the import erased shapes (it does on
    // odd indices); without them, --seed's parity decides.
    let index = match std::fs::read_to_string(file.with_extension("txt")) {
        Ok(t) if t.contains("index: ") => u64::from(t.contains(" --erase-shapes")),
        _ => index,
    };
    let model = scratch.path().join("model.onnx");
    std::fs::copy(file, &model).with_context(|| format!("reading {}", file.display()))?;
    let mut ort = cfg.ort.clone().map(Ort::new);
    let m = check_model(
        cfg,
        ort.as_mut(),
        &model,
        index,
        hostile,
        true,
        (!saved.is_empty()).then_some(saved),
        scratch.path(),
    )?;
    let ok = crate::campaign::print_checks(
        m.checks
            .iter()
            .map(|c| (c.target, c.command.as_str(), &c.outcome, &c.judgement)),
        20,
        None,
    );
    for n in &m.notes {
        println!("note: {n}");
    }
    Ok(ok)
}
