//! The campaign: worker threads generate programs, run every configured
//! `ocannl-opt` pipeline (and `ocannl-run` on a spread-out subset, and
//! optionally `mlir-translate` on a sample), judge each process and record
//! the results; a progress line every few seconds (the worker pool is
//! `crate::pool`'s).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context as _;

use crate::exec::{self, Job, Outcome};
use crate::generator::{self, GenConfig};
use crate::oracle::{self, Judgement, Tool};
use crate::pool::{self, Pool};
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
    let mut checks = Vec::new();
    for (i, p) in cfg.pipelines.iter().enumerate() {
        let tag = format!("opt{i}");
        let check = opt_check(cfg, file, p, &tag, scratch)?;
        let passed = check.judgement.verdict == oracle::Verdict::Pass;
        let command = check.command.clone();
        checks.push(check);
        if let Some(tr) = &cfg.translate
            && p == TO_LLVM
            && passed
            && translate_it
        {
            checks.push(translate_check(cfg, tr, &command, &tag, scratch)?);
        }
    }
    if run_it {
        checks.push(run_check(cfg, file, entry, seed, scratch)?);
    }
    Ok(checks)
}

/// `ocannl-opt` on `file` through `pipeline` (its output saved in
/// `scratch` under `tag`).
fn opt_check(
    cfg: &Config,
    file: &Path,
    pipeline: &str,
    tag: &str,
    scratch: &Path,
) -> anyhow::Result<Check> {
    let file_s = file.to_string_lossy().into_owned();
    let job = Job {
        program: cfg.opt.clone(),
        args: vec![
            file.into(),
            "-p".into(),
            format!("builtin.module({pipeline})").into(),
        ],
        stdin: None,
    };
    let outcome = exec::run(&job, &cfg.limits, scratch, tag)
        .with_context(|| format!("running {}", job.command_line()))?;
    let tool = Tool::Opt {
        lowering: is_lowering(pipeline),
        gpu: pipeline.contains("ocannl-to-nvvm"),
    };
    let judgement = oracle::judge(
        tool,
        &file_s,
        outcome.exit,
        &outcome.stdout,
        &outcome.stderr,
    );
    Ok(Check {
        target: format!("ocannl-opt:{pipeline}"),
        command: job.command_line().replace(&file_s, "PROGRAM"),
        outcome,
        judgement,
    })
}

/// `mlir-translate --mlir-to-llvmir` on the `ocannl-to-llvm` output saved
/// under `tag` (`opt_command` made it).
fn translate_check(
    cfg: &Config,
    translate: &Path,
    opt_command: &str,
    tag: &str,
    scratch: &Path,
) -> anyhow::Result<Check> {
    let job = Job {
        program: translate.to_path_buf(),
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
    Ok(Check {
        target: "mlir-translate".into(),
        command: format!("{opt_command} | {} --mlir-to-llvmir", translate.display()),
        outcome,
        judgement,
    })
}

/// `ocannl-run` on `file`: function `entry` (default: the first), inputs
/// drawn from `seed`.
fn run_check(
    cfg: &Config,
    file: &Path,
    entry: Option<&str>,
    seed: u64,
    scratch: &Path,
) -> anyhow::Result<Check> {
    let file_s = file.to_string_lossy().into_owned();
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
    Ok(Check {
        target: "ocannl-run".into(),
        command: job.command_line().replace(&file_s, "PROGRAM"),
        outcome,
        judgement,
    })
}

/// Runs the campaign; the report holds every tally and failure.
pub fn run(cfg: &Config) -> anyhow::Result<(Report, Duration)> {
    let translate_every = cfg.translate_every.max(1);
    let pool = Pool {
        jobs: cfg.jobs,
        items: cfg.programs,
        noun: "programs",
        progress: cfg.progress,
    };
    pool::run(
        &pool,
        |w| {
            tempfile::Builder::new()
                .prefix(&format!("ocannl-fuzz-w{w}-"))
                .tempdir()
                .context("creating a scratch directory")
        },
        |scratch, i, report| {
            let file = scratch.path().join("prog.mlir");
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
            record(cfg, &mut pool::lock(report), &g, i, &checks)
        },
    )
}

/// Tallies program `i`'s checks, saving each failure.
fn record(
    cfg: &Config,
    r: &mut Report,
    g: &generator::Generated,
    i: u64,
    checks: &[Check],
) -> anyhow::Result<()> {
    r.record_program(g.class);
    for c in checks {
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
                print_new_failure(&c.target, &c.judgement, g.class, i);
            }
        }
    }
    Ok(())
}

/// The line a campaign prints for a new distinct failure.
pub fn print_new_failure(target: &str, j: &Judgement, class: &str, index: u64) {
    eprintln!(
        "new failure: [{}] {} ({}) class {} index {}: {}",
        j.verdict.name(),
        target,
        j.detail,
        class,
        index,
        j.signature
    );
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
