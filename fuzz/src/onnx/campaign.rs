//! The ONNX campaign: worker threads generate models, run
//! `ocannl-import-onnx` on each (with `--erase-shapes` on every other
//! one), `ocannl-run` on a spread-out subset of those that import (on
//! `.npy` inputs written here), and onnxruntime on the same inputs (one
//! long-lived helper per worker); every process is judged and every
//! failure saved with a reproducer.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use ocannl_onnx::proto::{ModelProto, type_proto};
use prost::Message as _;

use super::npy::{self, NpyElem};
use super::ort::{Ort, OrtConfig, Reply};
use super::{GenConfig, generate};
use crate::campaign::is_selected;
use crate::exec::{self, Job, Outcome};
use crate::oracle::{self, Exit, Judgement, Tool, Verdict};
use crate::report::{FailureInfo, Report};
use crate::rng::Rng;

/// Error texts of a clean "not supported" rejection (as
/// `tools/tests/onnx/node_tests.py` counts them).
pub const UNSUPPORTED: &[&str] = &[
    "not supported",
    "are supported",
    "must be a constant",
    "needs its",
    "needs the input",
    "no opset of the default domain",
    "unknown opset",
];

/// Rejections that are not failures even where onnxruntime runs the model:
/// ocannl checks the shapes a model declares, onnxruntime may not.
pub const EXCUSED: &[&str] = &["declared shape"];

/// Models with more nodes only go through the importer: `ocannl-run`
/// compiles about 6 ms per node (release; an 8000-node chain runs past 30
/// s), linear, which the onnx-big chains would report as hangs.
pub const MAX_RUN_NODES: usize = 1500;

/// The most inputs the fuzzer writes for one model.
const MAX_ARGUMENTS: usize = 64;

/// The largest input the fuzzer writes (cells).
const MAX_INPUT_CELLS: u64 = 1 << 20;

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

/// The graph inputs that become `@main`'s arguments (not initializers):
/// name, element type, dims (symbolic ones made 2); None when one cannot
/// be written as `.npy` data.
fn arguments(m: &ModelProto) -> Option<Vec<(String, NpyElem, Vec<u64>)>> {
    use ocannl_onnx::proto::tensor_shape_proto::dimension::Value as D;
    let g = m.graph.as_ref()?;
    let inits: std::collections::HashSet<&str> = g
        .initializer
        .iter()
        .filter_map(|t| t.name.as_deref())
        .collect();
    let mut out = Vec::new();
    for v in &g.input {
        let name = v.name.clone()?;
        if inits.contains(name.as_str()) {
            continue;
        }
        let Some(type_proto::Value::TensorType(t)) = v.r#type.as_ref()?.value.as_ref() else {
            return None;
        };
        let elem = NpyElem::of_onnx(t.elem_type?)?;
        let dims: Vec<u64> = t
            .shape
            .as_ref()?
            .dim
            .iter()
            .map(|d| match &d.value {
                Some(D::DimValue(n)) if *n >= 1 => Some(*n as u64),
                Some(D::DimParam(_)) => Some(2),
                _ => None,
            })
            .collect::<Option<_>>()?;
        dims.iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d))
            .filter(|&c| c <= MAX_INPUT_CELLS)?;
        out.push((name, elem, dims));
    }
    // Thousands of inputs (onnx-wiring): ocannl-run makes up its own.
    (out.len() <= MAX_ARGUMENTS).then_some(out)
}

/// The op type of the node producing graph output `k`.
/// Whether the model takes a maximum or minimum (where NaN handling is
/// the implementation's).
fn reduces_by_max(m: Option<&ModelProto>) -> bool {
    m.and_then(|m| m.graph.as_ref()).is_some_and(|g| {
        g.node.iter().any(|n| {
            matches!(
                n.op_type.as_deref(),
                Some(
                    "MaxPool"
                        | "GlobalMaxPool"
                        | "ReduceMax"
                        | "ReduceMin"
                        | "Max"
                        | "Min"
                        | "Clip"
                        | "Relu"
                        | "Softmax"
                        | "LogSoftmax"
                )
            )
        })
    })
}

/// The model has an AveragePool that leaves padding out of its counts
/// (`count_include_pad` 0, the default) and pads: a window that holds only
/// padding averages no cell. ONNX leaves 0 / 0 unspecified; its reference
/// implementation and ocannl give NaN, onnxruntime 0.
fn averages_padding_only(m: Option<&ModelProto>) -> bool {
    m.and_then(|m| m.graph.as_ref()).is_some_and(|g| {
        g.node.iter().any(|n| {
            let attr = |name: &str| n.attribute.iter().find(|a| a.name.as_deref() == Some(name));
            n.op_type.as_deref() == Some("AveragePool")
                && attr("count_include_pad").and_then(|a| a.i).unwrap_or(0) == 0
                && (attr("pads").is_some_and(|a| a.ints.iter().any(|&p| p != 0))
                    || attr("auto_pad")
                        .and_then(|a| a.s.as_deref())
                        .is_some_and(|s| s.starts_with(b"SAME")))
        })
    })
}

fn producer(m: Option<&ModelProto>, k: usize) -> String {
    let Some(g) = m.and_then(|m| m.graph.as_ref()) else {
        return "?".into();
    };
    let Some(name) = g.output.get(k).and_then(|o| o.name.as_deref()) else {
        return "?".into();
    };
    g.node
        .iter()
        .find(|n| n.output.iter().any(|o| o == name))
        .and_then(|n| n.op_type.clone())
        .unwrap_or_else(|| "input".into())
}

fn first_error_line(err: &[u8]) -> String {
    let e = String::from_utf8_lossy(err);
    e.lines()
        .find(|l| l.contains("error:"))
        .or_else(|| e.lines().next())
        .unwrap_or("")
        .trim()
        .to_string()
}

fn pseudo_outcome(text: String, elapsed: Duration) -> Outcome {
    Outcome {
        exit: Exit::Code(0),
        stdout: Vec::new(),
        stderr: text.into_bytes(),
        elapsed,
    }
}

/// Runs the tools (and onnxruntime) on the model at `model` in `scratch`.
/// `inputs_from`: saved `.npy` inputs to use instead of fresh ones.
#[allow(clippy::too_many_lines, clippy::too_many_arguments)]
pub fn check_model(
    cfg: &Config,
    ort: Option<&mut Ort>,
    model: &Path,
    index: u64,
    hostile: bool,
    run_it: bool,
    inputs_from: Option<Vec<PathBuf>>,
    scratch: &Path,
) -> anyhow::Result<ModelRun> {
    let bytes = std::fs::read(model).context("reading the model")?;
    let decoded = ModelProto::decode(bytes.as_slice()).ok();
    let model_s = model.to_string_lossy().into_owned();
    let mlir = scratch.join("model.mlir");
    let _ = std::fs::remove_file(&mlir);
    let mut checks = Vec::new();
    let mut notes = Vec::new();
    let erase = index % 2 == 1;
    let mut args: Vec<OsString> = vec![model.into(), "-o".into(), mlir.clone().into()];
    if erase {
        args.push("--erase-shapes".into());
    }
    let job = Job {
        program: cfg.import.clone(),
        args: args.clone(),
        stdin: None,
    };
    let outcome = exec::run(&job, &cfg.limits, scratch, "import")
        .with_context(|| format!("running {}", job.command_line()))?;
    let mut judgement = oracle::judge(
        Tool::Import,
        &model_s,
        outcome.exit,
        &outcome.stdout,
        &outcome.stderr,
    );
    let written = std::fs::read(&mlir).ok().filter(|t| !t.is_empty());
    if judgement.verdict == Verdict::Pass && written.is_none() {
        judgement = Judgement {
            verdict: Verdict::Silent,
            detail: "no output".into(),
            signature: "exit 0 without writing -o".into(),
        };
    }
    let import_cmd = format!(
        "{} SAVED.onnx -o SAVED.mlir{}",
        exec::shell_quote(&cfg.import.to_string_lossy()),
        if erase { " --erase-shapes" } else { "" }
    );
    let import_verdict = judgement.verdict;
    let import_err = first_error_line(&outcome.stderr);
    checks.push(Check {
        target: "ocannl-import-onnx",
        command: import_cmd.clone(),
        outcome,
        judgement,
    });
    let mut run = ModelRun {
        checks,
        inputs: Vec::new(),
        mlir: written.clone(),
        notes: Vec::new(),
    };
    if !run_it {
        return Ok(run);
    }
    let nodes = decoded
        .as_ref()
        .and_then(|m| m.graph.as_ref())
        .map_or(0, |g| g.node.len());
    if nodes > MAX_RUN_NODES {
        run.notes
            .push(format!("not run: more than {MAX_RUN_NODES} nodes"));
        return Ok(run);
    }
    // The inputs, written for both runners.
    let feeds: Option<Vec<(String, PathBuf)>> = match (&inputs_from, decoded.as_ref()) {
        (Some(saved), Some(m)) => arguments(m).and_then(|a| {
            (a.len() == saved.len())
                .then(|| a.into_iter().map(|x| x.0).zip(saved.clone()).collect())
        }),
        (None, Some(m)) => arguments(m).map(|args| {
            let mut rng = Rng::for_item(cfg.seed ^ 0x1a2b_3c4d_5e6f_7081, index);
            args.into_iter()
                .enumerate()
                .map(|(k, (name, elem, dims))| {
                    let data = npy::random(elem, &dims, &mut rng);
                    let p = scratch.join(format!("in{k}.npy"));
                    let _ = std::fs::write(&p, &data);
                    run.inputs.push((format!("in{k}.npy"), data));
                    (name, p)
                })
                .collect()
        }),
        _ => None,
    };
    let n_outputs = decoded
        .as_ref()
        .and_then(|m| m.graph.as_ref())
        .map_or(0, |g| g.output.len());
    let mut run_verdict = None;
    let mut run_err = String::new();
    let mut out_paths = Vec::new();
    let mut run_cmd = String::new();
    if import_verdict == Verdict::Pass {
        let mut args: Vec<OsString> = vec![mlir.clone().into()];
        let mut shown_args: Vec<String> = vec!["SAVED.mlir".into()];
        if let Some(f) = &feeds {
            if !f.is_empty() {
                args.push("--inputs".into());
                shown_args.push("--inputs".into());
                for (k, (_, p)) in f.iter().enumerate() {
                    args.push(p.into());
                    shown_args.push(format!("SAVED.in{k}.npy"));
                }
            }
            if n_outputs > 0 {
                args.push("--outputs".into());
                shown_args.push("--outputs".into());
                for k in 0..n_outputs {
                    let p = scratch.join(format!("out{k}.npy"));
                    let _ = std::fs::remove_file(&p);
                    args.push(p.clone().into());
                    shown_args.push(format!("/tmp/ocannl-out{k}.npy"));
                    out_paths.push(p);
                }
            }
        } else {
            args.push("--seed".into());
            args.push(index.to_string().into());
            shown_args.push("--seed".into());
            shown_args.push(index.to_string());
        }
        let job = Job {
            program: cfg.run.clone(),
            args,
            stdin: None,
        };
        let outcome = exec::run(&job, &cfg.limits, scratch, "run")?;
        let judgement = oracle::judge(
            Tool::RunOnnx,
            &mlir.to_string_lossy(),
            outcome.exit,
            &outcome.stdout,
            &outcome.stderr,
        );
        run_verdict = Some(judgement.verdict);
        run_err = first_error_line(&outcome.stderr);
        run_cmd = format!(
            "{}\n{} {}",
            import_cmd,
            exec::shell_quote(&cfg.run.to_string_lossy()),
            shown_args.join(" ")
        );
        run.checks.push(Check {
            target: "ocannl-run",
            command: run_cmd.clone(),
            outcome,
            judgement,
        });
    }
    // onnxruntime: on models that ran, compare; on models ocannl rejected
    // cleanly, ask whether onnxruntime runs them.
    let (Some(ort), Some(feeds)) = (ort, feeds) else {
        notes.push("onnxruntime not consulted (no oracle, or inputs not writable)".into());
        run.notes = notes;
        return Ok(run);
    };
    let clean = |v: Verdict| matches!(v, Verdict::Rejected | Verdict::RunnerRejected);
    let (compare, rejection) = match run_verdict {
        Some(Verdict::Pass) => (true, None),
        Some(v) if clean(v) => (false, Some(run_err.clone())),
        None if clean(import_verdict) => (false, Some(import_err.clone())),
        _ => {
            run.notes = notes;
            return Ok(run);
        }
    };
    let start = Instant::now();
    let reply = ort.query(model, &feeds, compare.then_some(&out_paths[..]));
    let elapsed = start.elapsed();
    let ort_inputs: Vec<String> = feeds
        .iter()
        .enumerate()
        .map(|(k, (n, _))| {
            format!(
                "--input {}",
                exec::shell_quote(&format!("{n}=SAVED.in{k}.npy"))
            )
        })
        .collect();
    let ocannl_outs: Vec<String> = (0..out_paths.len())
        .map(|k| format!("--ocannl /tmp/ocannl-out{k}.npy"))
        .collect();
    let ort_cmd = format!(
        "{}\n{} fuzz/ort_oracle.py --check SAVED.onnx {} {}",
        if run_verdict.is_some() {
            run_cmd.as_str()
        } else {
            import_cmd.as_str()
        },
        cfg.ort.as_ref().map_or("python3".into(), |o| o
            .python
            .to_string_lossy()
            .into_owned()),
        ort_inputs.join(" "),
        if compare {
            ocannl_outs.join(" ")
        } else {
            String::new()
        }
    );
    let judgement = match (&reply, &rejection) {
        (Reply::NoAnswer(why), _) => {
            notes.push(format!("onnxruntime gave no answer ({why})"));
            None
        }
        (Reply::Rejected(_), _) => {
            notes.push(if compare {
                "onnxruntime rejects a model ocannl runs".into()
            } else {
                "onnxruntime rejects it too".into()
            });
            Some(Judgement {
                verdict: Verdict::Rejected,
                detail: String::new(),
                signature: String::new(),
            })
        }
        (Reply::Match, _) => Some(Judgement {
            verdict: Verdict::Pass,
            detail: String::new(),
            signature: String::new(),
        }),
        // NaN through a max or a min: ONNX leaves it unspecified;
        // onnxruntime's comparisons skip a NaN, ocannl propagates it as
        // NumPy's `maximum` does. Counted apart, not a failure.
        (Reply::Mismatch { what, .. }, _)
            if what.starts_with("nan") && reduces_by_max(decoded.as_ref()) =>
        {
            notes.push(
                "NaN through max/min: onnxruntime skips it, ocannl propagates it (unspecified)"
                    .into(),
            );
            Some(Judgement {
                verdict: Verdict::Pass,
                detail: String::new(),
                signature: String::new(),
            })
        }
        // An average over a window of padding only: 0 / 0.
        (Reply::Mismatch { what, .. }, _)
            if what.starts_with("nan") && averages_padding_only(decoded.as_ref()) =>
        {
            notes.push(
                "NaN from an average over padding only: onnxruntime gives 0 (unspecified)".into(),
            );
            Some(Judgement {
                verdict: Verdict::Pass,
                detail: String::new(),
                signature: String::new(),
            })
        }
        (Reply::Mismatch { index: k, what }, _) => {
            let kind = what
                .split(':')
                .next()
                .unwrap_or("values")
                .split(' ')
                .next()
                .unwrap_or("");
            Some(Judgement {
                verdict: Verdict::Mismatch,
                detail: format!("output {k} of {}", producer(decoded.as_ref(), *k)),
                signature: format!(
                    "{kind} differ from onnxruntime's (output of {})",
                    producer(decoded.as_ref(), *k)
                ),
            })
        }
        (Reply::Ok, Some(err)) => {
            // Hostile models: the importer may be stricter than
            // onnxruntime (unused initializers, attributes it ignores);
            // what the importer accepted, ocannl-run must run.
            let strict_ok = hostile && run_verdict.is_none();
            if strict_ok || EXCUSED.iter().any(|u| err.contains(u)) {
                notes.push("onnxruntime runs it; ocannl rejects a hostile model (stricter)".into());
                Some(Judgement {
                    verdict: Verdict::Rejected,
                    detail: "stricter".into(),
                    signature: String::new(),
                })
            } else if UNSUPPORTED.iter().any(|u| err.contains(u)) {
                notes.push("onnxruntime runs it; ocannl: not supported".into());
                Some(Judgement {
                    verdict: Verdict::Rejected,
                    detail: "unsupported".into(),
                    signature: String::new(),
                })
            } else {
                let file = if run_verdict.is_some() {
                    mlir.to_string_lossy().into_owned()
                } else {
                    model_s.clone()
                };
                Some(Judgement {
                    verdict: Verdict::RejectsValid,
                    detail: if run_verdict.is_some() {
                        "ocannl-run".into()
                    } else {
                        "ocannl-import-onnx".into()
                    },
                    signature: oracle::normalise(err, &file),
                })
            }
        }
        (Reply::Ok, None) => None,
    };
    if let Some(judgement) = judgement {
        let text = match &reply {
            Reply::Mismatch { index, what } => format!("output {index}: {what}\n"),
            Reply::Rejected(e) => format!("onnxruntime rejects it: {e}\n"),
            Reply::Ok => format!(
                "onnxruntime runs it; ocannl rejects it: {}\n",
                rejection.clone().unwrap_or_default()
            ),
            _ => "match\n".into(),
        };
        run.checks.push(Check {
            target: "onnxruntime",
            command: ort_cmd,
            outcome: pseudo_outcome(text, elapsed),
            judgement,
        });
    }
    run.notes = notes;
    Ok(run)
}

fn lock(r: &Mutex<Report>) -> std::sync::MutexGuard<'_, Report> {
    r.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs the campaign.
pub fn run(cfg: &Config) -> anyhow::Result<(Report, Duration)> {
    let report = Mutex::new(Report::default());
    let next = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let start = Instant::now();
    std::thread::scope(|s| -> anyhow::Result<()> {
        let mut workers = Vec::new();
        for w in 0..cfg.jobs.max(1) {
            let (report, next) = (&report, &next);
            workers.push(s.spawn(move || -> anyhow::Result<()> {
                let scratch = tempfile::Builder::new()
                    .prefix(&format!("ocannl-fuzz-onnx-w{w}-"))
                    .tempdir()
                    .context("creating a scratch directory")?;
                let file = scratch.path().join("model.onnx");
                let mut ort = cfg.ort.clone().map(Ort::new);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= cfg.models {
                        return Ok(());
                    }
                    let g = generate(cfg.seed, i, &cfg.generator);
                    std::fs::write(&file, &g.bytes)?;
                    let run_it = is_selected(i, cfg.models, cfg.run_models);
                    let m = check_model(
                        cfg,
                        ort.as_mut(),
                        &file,
                        i,
                        g.class != super::WF,
                        run_it,
                        None,
                        scratch.path(),
                    )?;
                    let mut r = lock(report);
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
                                eprintln!(
                                    "new failure: [{}] {} ({}) class {} index {}: {}",
                                    c.judgement.verdict.name(),
                                    c.target,
                                    c.judgement.detail,
                                    g.class,
                                    i,
                                    c.judgement.signature
                                );
                            }
                        }
                    }
                }
            }));
        }
        let progress = s.spawn(|| {
            let mut last = Instant::now();
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if last.elapsed() >= cfg.progress {
                    last = Instant::now();
                    let r = lock(&report);
                    let secs = start.elapsed().as_secs_f64();
                    eprintln!(
                        "[{secs:7.1}s] models {}/{} ({:.1}/s), processes {}, failing {}, distinct failures {}",
                        r.programs,
                        cfg.models,
                        r.programs as f64 / secs.max(1e-9),
                        r.targets.values().map(|c| c.programs).sum::<u64>(),
                        r.failure_count(),
                        r.failures.len()
                    );
                }
            }
        });
        let mut result = Ok(());
        for w in workers {
            match w.join() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => result = Err(e),
                Err(_) => result = Err(anyhow::anyhow!("a worker thread panicked")),
            }
        }
        done.store(true, Ordering::Relaxed);
        let _ = progress.join();
        result
    })?;
    let wall = start.elapsed();
    Ok((
        report.into_inner().unwrap_or_else(PoisonError::into_inner),
        wall,
    ))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_skip_initializers_and_unwritable_inputs() {
        let mut rng = Rng::new(4);
        let m = super::super::model_gen::well_formed(&mut rng);
        let a = arguments(&m).expect("generated inputs are writable");
        let g = m.graph.as_ref().expect("a graph");
        assert_eq!(a.len(), g.input.len());
        let mut m2 = m.clone();
        if let Some(type_proto::Value::TensorType(t)) = m2
            .graph
            .as_mut()
            .and_then(|g| g.input[0].r#type.as_mut())
            .and_then(|t| t.value.as_mut())
        {
            t.elem_type = Some(10);
        }
        assert!(arguments(&m2).is_none());
    }
}
