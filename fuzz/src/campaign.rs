//! The campaign: worker threads generate programs, run every configured
//! `ocannl-opt` pipeline (and `ocannl-run` on a spread-out subset, and
//! optionally `mlir-translate` on a sample), judge each process and record
//! the results; a progress line every few seconds.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::exec::{self, Job, Outcome};
use crate::generator::{self, GenConfig};
use crate::oracle::{self, Judgement, Tool};
use crate::report::{FailureInfo, Report};

/// The pipelines run when none is given (`ocannl-to-llvm` always runs).
pub const DEFAULT_PIPELINES: &[&str] = &[
    "ocannl-verify",
    "ocannl-infer-shapes",
    "ocannl-infer-shapes{close=false}",
    "ocannl-infer-shapes,ocannl-check-shapes",
    "ocannl-infer-shapes,ocannl-infer-projections",
    "ocannl-plan-schedule,ocannl-lower-to-affine",
    "ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule,ocannl-lower-to-affine",
    "ocannl-to-affine",
    "ocannl-to-llvm",
    "ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{target=gpu},ocannl-lower-to-affine",
    "ocannl-to-nvvm",
];

/// The pipeline every program goes through.
pub const TO_LLVM: &str = "ocannl-to-llvm";

/// Everything a campaign needs.
#[derive(Debug, Clone)]
pub struct Config {
    /// The `ocannl-opt` binary.
    pub opt: PathBuf,
    /// The `ocannl-run` binary.
    pub run: PathBuf,
    /// `mlir-translate`, when its check is on.
    pub translate: Option<PathBuf>,
    /// Check every N-th program's `ocannl-to-llvm` output with it.
    pub translate_every: u64,
    /// The `ocannl-opt` pipelines (inside `builtin.module(...)`).
    pub pipelines: Vec<String>,
    /// How many programs.
    pub programs: u64,
    /// How many of them also go through `ocannl-run`.
    pub run_programs: u64,
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
}

/// Whether a pipeline must remove every ocannl op.
pub fn is_lowering(pipeline: &str) -> bool {
    [
        "ocannl-to-affine",
        "ocannl-to-llvm",
        "ocannl-to-nvvm",
        "ocannl-lower-to-affine",
    ]
    .iter()
    .any(|p| pipeline.contains(p))
}

/// Whether program `i` of `total` is one of the `chosen` spread evenly.
pub fn is_selected(i: u64, total: u64, chosen: u64) -> bool {
    let t = u128::from(total.max(1));
    let c = u128::from(chosen.min(total));
    (u128::from(i) + 1) * c / t > u128::from(i) * c / t
}

/// One judged process of a program.
pub struct Check {
    /// `ocannl-opt:PIPELINE`, `ocannl-run` or `mlir-translate`.
    pub target: String,
    /// What ran, with the program's path written `PROGRAM`.
    pub command: String,
    /// What it did.
    pub outcome: Outcome,
    /// The judgement.
    pub judgement: Judgement,
}

/// Prints what each check of a reproduced program or model did (target in
/// a column `width` wide, the verdict in one of 16, or 14 beside a narrow
/// target; for a failure its signature, the command with
/// `PROGRAM` written `program` when given, and the stderr tail); true when
/// none failed.
/// Each check is `(target, command, outcome, judgement)` (the MLIR and
/// the ONNX campaigns' checks alike).
pub fn print_checks<'a>(
    checks: impl IntoIterator<Item = (&'a str, &'a str, &'a Outcome, &'a Judgement)>,
    width: usize,
    program: Option<&str>,
) -> bool {
    let mut ok = true;
    for (target, command, outcome, j) in checks {
        ok &= !j.verdict.is_failure();
        println!(
            "{:<width$} {:<w2$} {} {}",
            target,
            j.verdict.name(),
            outcome.exit,
            if j.detail.is_empty() {
                String::new()
            } else {
                format!("({})", j.detail)
            },
            w2 = if width > 20 { 16 } else { 14 },
        );
        if j.verdict.is_failure() {
            if let Some(program) = program {
                println!("  command: {}", command.replace("PROGRAM", program));
            }
            println!("  signature: {}", j.signature);
            for line in exec::tail(&outcome.stderr, 1500).lines() {
                println!("  | {line}");
            }
        }
    }
    ok
}

/// The first `func.func @name` of a program's text.
pub fn first_function(text: &[u8]) -> Option<String> {
    let t = String::from_utf8_lossy(text);
    let rest = &t[t.find("func.func @")? + "func.func @".len()..];
    let name: String = if let Some(q) = rest.strip_prefix('"') {
        q.chars().take_while(|&c| c != '"').collect()
    } else {
        rest.chars()
            .take_while(|&c| c.is_ascii_alphanumeric() || "_$.".contains(c))
            .collect()
    };
    Some(name)
}

/// Runs the configured tools on the program at `file` (in `scratch`).
pub fn check_file(
    cfg: &Config,
    file: &Path,
    entry: Option<&str>,
    seed: u64,
    run_it: bool,
    translate_it: bool,
    scratch: &Path,
) -> anyhow::Result<Vec<Check>> {
    let file_s = file.to_string_lossy().into_owned();
    let placeholder = |cmd: String| cmd.replace(&file_s, "PROGRAM");
    let mut checks = Vec::new();
    for (i, p) in cfg.pipelines.iter().enumerate() {
        let job = Job {
            program: cfg.opt.clone(),
            args: vec![
                file.into(),
                "-p".into(),
                format!("builtin.module({p})").into(),
            ],
            stdin: None,
        };
        let tag = format!("opt{i}");
        let outcome = exec::run(&job, &cfg.limits, scratch, &tag)
            .with_context(|| format!("running {}", job.command_line()))?;
        let tool = Tool::Opt {
            lowering: is_lowering(p),
            gpu: p.contains("ocannl-to-nvvm"),
        };
        let judgement = oracle::judge(
            tool,
            &file_s,
            outcome.exit,
            &outcome.stdout,
            &outcome.stderr,
        );
        let passed = judgement.verdict == oracle::Verdict::Pass;
        let command = placeholder(job.command_line());
        checks.push(Check {
            target: format!("ocannl-opt:{p}"),
            command: command.clone(),
            outcome,
            judgement,
        });
        if let Some(tr) = &cfg.translate
            && p == TO_LLVM
            && passed
            && translate_it
        {
            let job = Job {
                program: tr.clone(),
                args: vec![
                    "--mlir-to-llvmir".into(),
                    scratch.join(format!("{tag}.out")).into(),
                ],
                stdin: None,
            };
            let outcome = exec::run(&job, &cfg.limits, scratch, "translate")?;
            let judgement = oracle::judge(
                Tool::Translate,
                "",
                outcome.exit,
                &outcome.stdout,
                &outcome.stderr,
            );
            checks.push(Check {
                target: "mlir-translate".into(),
                command: format!("{command} | {} --mlir-to-llvmir", tr.display()),
                outcome,
                judgement,
            });
        }
    }
    if run_it {
        let entry = entry
            .map(str::to_string)
            .or_else(|| std::fs::read(file).ok().and_then(|t| first_function(&t)));
        let mut args: Vec<OsString> = vec![file.into()];
        if let Some(e) = entry {
            args.push("--entry".into());
            args.push(e.into());
        }
        args.push("--seed".into());
        args.push(seed.to_string().into());
        let job = Job {
            program: cfg.run.clone(),
            args,
            stdin: None,
        };
        let outcome = exec::run(&job, &cfg.limits, scratch, "run")?;
        let judgement = oracle::judge(
            Tool::Run,
            &file_s,
            outcome.exit,
            &outcome.stdout,
            &outcome.stderr,
        );
        checks.push(Check {
            target: "ocannl-run".into(),
            command: placeholder(job.command_line()),
            outcome,
            judgement,
        });
    }
    Ok(checks)
}

fn lock(r: &Mutex<Report>) -> std::sync::MutexGuard<'_, Report> {
    r.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs the campaign; the report holds every tally and failure.
pub fn run(cfg: &Config) -> anyhow::Result<(Report, Duration)> {
    let report = Mutex::new(Report::default());
    let next = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let start = Instant::now();
    let translate_every = cfg.translate_every.max(1);
    std::thread::scope(|s| -> anyhow::Result<()> {
        let mut workers = Vec::new();
        for w in 0..cfg.jobs.max(1) {
            let (report, next) = (&report, &next);
            workers.push(s.spawn(move || -> anyhow::Result<()> {
                let scratch = tempfile::Builder::new()
                    .prefix(&format!("ocannl-fuzz-w{w}-"))
                    .tempdir()
                    .context("creating a scratch directory")?;
                let file = scratch.path().join("prog.mlir");
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= cfg.programs {
                        return Ok(());
                    }
                    let g = generator::generate(cfg.seed, i, &cfg.generator);
                    std::fs::write(&file, &g.text)?;
                    let run_it = is_selected(i, cfg.programs, cfg.run_programs);
                    let translate_it = i % translate_every == 0;
                    let checks = check_file(
                        cfg,
                        &file,
                        g.entry.as_deref(),
                        i,
                        run_it,
                        translate_it,
                        scratch.path(),
                    )?;
                    let mut r = lock(report);
                    r.record_program(g.class);
                    for c in &checks {
                        r.record(&c.target, g.class, &c.judgement, c.outcome.elapsed);
                        if c.judgement.verdict.is_failure() {
                            let info = FailureInfo {
                                class: g.class,
                                index: i,
                                program: &g.text,
                                command: c.command.clone(),
                                exit: c.outcome.exit.to_string(),
                                stdout_tail: exec::tail(&c.outcome.stdout, 2000),
                                stderr_tail: exec::tail(&c.outcome.stderr, 4000),
                                ext: "mlir",
                                attachments: Vec::new(),
                            };
                            let new = r.save_failure(&cfg.out, &c.target, &c.judgement, &info)?;
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
                        "[{secs:7.1}s] programs {}/{} ({:.1}/s), processes {}, failing {}, distinct failures {}",
                        r.programs,
                        cfg.programs,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_spreads_exactly_the_requested_number() {
        for (total, chosen) in [
            (400, 60),
            (10, 10),
            (10, 0),
            (7, 3),
            (100_000, 10_000),
            (5, 9),
        ] {
            let n = (0..total)
                .filter(|&i| is_selected(i, total, chosen))
                .count() as u64;
            assert_eq!(n, chosen.min(total), "{total} {chosen}");
        }
    }

    #[test]
    fn lowering_pipelines_are_recognised() {
        assert!(is_lowering("ocannl-to-llvm"));
        assert!(is_lowering("ocannl-lower-to-affine"));
        assert!(!is_lowering("ocannl-infer-shapes,ocannl-infer-projections"));
    }

    #[test]
    fn the_first_function_is_found() {
        assert_eq!(first_function(b"// x\nfunc.func @f0(%a"), Some("f0".into()));
        assert_eq!(first_function(b"func.func @\"\"() {"), Some(String::new()));
        assert_eq!(first_function(b"module {}"), None);
    }
}
