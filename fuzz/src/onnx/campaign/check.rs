//! One model's checks, step by step: `ocannl-import-onnx` (with
//! `--erase-shapes` on odd indices), the `.npy` inputs (drawn from the
//! index or read from a saved failure), `ocannl-run` on what imported, and
//! onnxruntime on the same inputs (judged in `differential`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context as _;
use ocannl_onnx::proto::{ModelProto, type_proto};
use prost::Message as _;

use super::differential::{self, Ocannl};
use super::{Check, Config, MAX_RUN_NODES, ModelRun};
use crate::exec::{self, Job};
use crate::onnx::npy::{self, NpyElem};
use crate::onnx::ort::Ort;
use crate::oracle::{self, Judgement, Tool, Verdict};
use crate::rng::Rng;

/// The most inputs the fuzzer writes for one model.
const MAX_ARGUMENTS: usize = 64;

/// The largest input the fuzzer writes (cells).
const MAX_INPUT_CELLS: u64 = 1 << 20;

/// The model under check, as every step reads it.
struct Subject<'a> {
    cfg: &'a Config,
    /// The model's file.
    model: &'a Path,
    /// Its path as text.
    model_s: String,
    /// The model, when its bytes decode.
    decoded: Option<ModelProto>,
    /// Where the import writes its MLIR.
    mlir: PathBuf,
    index: u64,
    scratch: &'a Path,
}

/// What the import left for the later steps.
struct Imported {
    verdict: Verdict,
    /// Its first error line.
    err: String,
    /// The command that reproduces it.
    command: String,
}

/// What `ocannl-run` left for onnxruntime (all empty when it did not
/// run).
#[derive(Default)]
struct Ran {
    verdict: Option<Verdict>,
    /// Its first error line.
    err: String,
    /// The `.npy` outputs it was asked to write.
    out_paths: Vec<PathBuf>,
    /// The commands that reproduce it (the import's, then its own).
    command: String,
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

fn first_error_line(err: &[u8]) -> String {
    let e = String::from_utf8_lossy(err);
    e.lines()
        .find(|l| l.contains("error:"))
        .or_else(|| e.lines().next())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// Runs the tools (and onnxruntime) on the model at `model` in `scratch`.
/// `inputs_from`: saved `.npy` inputs to use instead of fresh ones.
#[allow(clippy::too_many_arguments)]
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
    let s = Subject {
        cfg,
        model,
        model_s: model.to_string_lossy().into_owned(),
        decoded: ModelProto::decode(bytes.as_slice()).ok(),
        mlir: scratch.join("model.mlir"),
        index,
        scratch,
    };
    let (check, imported, written) = import(&s)?;
    let mut run = ModelRun {
        checks: vec![check],
        inputs: Vec::new(),
        mlir: written,
        notes: Vec::new(),
    };
    if !run_it {
        return Ok(run);
    }
    let nodes = s
        .decoded
        .as_ref()
        .and_then(|m| m.graph.as_ref())
        .map_or(0, |g| g.node.len());
    if nodes > MAX_RUN_NODES {
        run.notes
            .push(format!("not run: more than {MAX_RUN_NODES} nodes"));
        return Ok(run);
    }
    // The inputs, written for both runners.
    let feeds = feeds(&s, inputs_from, &mut run.inputs);
    let ran = if imported.verdict == Verdict::Pass {
        let (check, ran) = run_imported(&s, feeds.as_deref(), &imported.command)?;
        run.checks.push(check);
        ran
    } else {
        Ran::default()
    };
    run.notes = consult_ort(&s, ort, feeds, hostile, &imported, &ran, &mut run.checks);
    Ok(run)
}

/// `ocannl-import-onnx` on the model (the check, what later steps read,
/// and the MLIR written, if any).
fn import(s: &Subject<'_>) -> anyhow::Result<(Check, Imported, Option<Vec<u8>>)> {
    let _ = std::fs::remove_file(&s.mlir);
    let erase = s.index % 2 == 1;
    let mut args: Vec<OsString> = vec![s.model.into(), "-o".into(), s.mlir.clone().into()];
    if erase {
        args.push("--erase-shapes".into());
    }
    let job = Job {
        program: s.cfg.import.clone(),
        args: args.clone(),
        stdin: None,
    };
    let outcome = exec::run(&job, &s.cfg.limits, s.scratch, "import")
        .with_context(|| format!("running {}", job.command_line()))?;
    let mut judgement = oracle::judge(
        Tool::Import,
        &s.model_s,
        outcome.exit,
        &outcome.stdout,
        &outcome.stderr,
    );
    let written = std::fs::read(&s.mlir).ok().filter(|t| !t.is_empty());
    if judgement.verdict == Verdict::Pass && written.is_none() {
        judgement = Judgement {
            verdict: Verdict::Silent,
            detail: "no output".into(),
            signature: "exit 0 without writing -o".into(),
        };
    }
    let imported = Imported {
        verdict: judgement.verdict,
        err: first_error_line(&outcome.stderr),
        command: format!(
            "{} SAVED.onnx -o SAVED.mlir{}",
            exec::shell_quote(&s.cfg.import.to_string_lossy()),
            if erase { " --erase-shapes" } else { "" }
        ),
    };
    let check = Check {
        target: "ocannl-import-onnx",
        command: imported.command.clone(),
        outcome,
        judgement,
    };
    Ok((check, imported, written))
}

/// The model's inputs (graph input name, `.npy` file): the saved ones when
/// given (and as many as the model takes), else drawn from the campaign's
/// seed and the index and written to the scratch folder (and to `written`,
/// for a failure's attachments). None when they cannot be written.
fn feeds(
    s: &Subject<'_>,
    inputs_from: Option<Vec<PathBuf>>,
    written: &mut Vec<(String, Vec<u8>)>,
) -> Option<Vec<(String, PathBuf)>> {
    match (&inputs_from, s.decoded.as_ref()) {
        (Some(saved), Some(m)) => arguments(m).and_then(|a| {
            (a.len() == saved.len())
                .then(|| a.into_iter().map(|x| x.0).zip(saved.clone()).collect())
        }),
        (None, Some(m)) => arguments(m).map(|args| {
            let mut rng = Rng::for_item(s.cfg.seed ^ 0x1a2b_3c4d_5e6f_7081, s.index);
            args.into_iter()
                .enumerate()
                .map(|(k, (name, elem, dims))| {
                    let data = npy::random(elem, &dims, &mut rng);
                    let p = s.scratch.join(format!("in{k}.npy"));
                    let _ = std::fs::write(&p, &data);
                    written.push((format!("in{k}.npy"), data));
                    (name, p)
                })
                .collect()
        }),
        _ => None,
    }
}

/// `ocannl-run` on the imported MLIR: on `feeds` with every output
/// written as `.npy` for onnxruntime to compare, or, without inputs, on
/// inputs drawn from the index.
fn run_imported(
    s: &Subject<'_>,
    feeds: Option<&[(String, PathBuf)]>,
    import_cmd: &str,
) -> anyhow::Result<(Check, Ran)> {
    let n_outputs = s
        .decoded
        .as_ref()
        .and_then(|m| m.graph.as_ref())
        .map_or(0, |g| g.output.len());
    let mut out_paths = Vec::new();
    let mut args: Vec<OsString> = vec![s.mlir.clone().into()];
    let mut shown_args: Vec<String> = vec!["SAVED.mlir".into()];
    if let Some(f) = feeds {
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
                let p = s.scratch.join(format!("out{k}.npy"));
                let _ = std::fs::remove_file(&p);
                args.push(p.clone().into());
                shown_args.push(format!("/tmp/ocannl-out{k}.npy"));
                out_paths.push(p);
            }
        }
    } else {
        args.push("--seed".into());
        args.push(s.index.to_string().into());
        shown_args.push("--seed".into());
        shown_args.push(s.index.to_string());
    }
    let job = Job {
        program: s.cfg.run.clone(),
        args,
        stdin: None,
    };
    let outcome = exec::run(&job, &s.cfg.limits, s.scratch, "run")?;
    let judgement = oracle::judge(
        Tool::RunOnnx,
        &s.mlir.to_string_lossy(),
        outcome.exit,
        &outcome.stdout,
        &outcome.stderr,
    );
    let ran = Ran {
        verdict: Some(judgement.verdict),
        err: first_error_line(&outcome.stderr),
        out_paths,
        command: format!(
            "{}\n{} {}",
            import_cmd,
            exec::shell_quote(&s.cfg.run.to_string_lossy()),
            shown_args.join(" ")
        ),
    };
    let check = Check {
        target: "ocannl-run",
        command: ran.command.clone(),
        outcome,
        judgement,
    };
    Ok((check, ran))
}

/// onnxruntime: on models that ran, compare; on models ocannl rejected
/// cleanly, ask whether onnxruntime runs them. Its check joins `checks`;
/// returns the notes.
fn consult_ort(
    s: &Subject<'_>,
    ort: Option<&mut Ort>,
    feeds: Option<Vec<(String, PathBuf)>>,
    hostile: bool,
    imported: &Imported,
    ran: &Ran,
    checks: &mut Vec<Check>,
) -> Vec<String> {
    let mut notes = Vec::new();
    let (Some(ort), Some(feeds)) = (ort, feeds) else {
        notes.push("onnxruntime not consulted (no oracle, or inputs not writable)".into());
        return notes;
    };
    let clean = |v: Verdict| matches!(v, Verdict::Rejected | Verdict::RunnerRejected);
    let (compare, rejection) = match ran.verdict {
        Some(Verdict::Pass) => (true, None),
        Some(v) if clean(v) => (false, Some(ran.err.clone())),
        None if clean(imported.verdict) => (false, Some(imported.err.clone())),
        _ => return notes,
    };
    let start = Instant::now();
    let reply = ort.query(s.model, &feeds, compare.then_some(&ran.out_paths[..]));
    let elapsed = start.elapsed();
    let command = ort_command(s, &feeds, imported, ran, compare);
    let ocannl = Ocannl {
        model: s.decoded.as_ref(),
        compare,
        rejection: rejection.as_deref(),
        hostile,
        ran: ran.verdict.is_some(),
        file: if ran.verdict.is_some() {
            s.mlir.to_string_lossy().into_owned()
        } else {
            s.model_s.clone()
        },
    };
    if let Some(judgement) = differential::judge(&reply, &ocannl, &mut notes) {
        checks.push(Check {
            target: "onnxruntime",
            command,
            outcome: differential::pseudo_outcome(
                differential::reply_text(&reply, rejection.as_deref()),
                elapsed,
            ),
            judgement,
        });
    }
    notes
}

/// The commands that reproduce onnxruntime's check: ocannl's, then
/// `fuzz/ort_oracle.py` on the saved inputs (and ocannl's outputs when
/// they are compared).
fn ort_command(
    s: &Subject<'_>,
    feeds: &[(String, PathBuf)],
    imported: &Imported,
    ran: &Ran,
    compare: bool,
) -> String {
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
    let ocannl_outs: Vec<String> = (0..ran.out_paths.len())
        .map(|k| format!("--ocannl /tmp/ocannl-out{k}.npy"))
        .collect();
    format!(
        "{}\n{} fuzz/ort_oracle.py --check SAVED.onnx {} {}",
        if ran.verdict.is_some() {
            ran.command.as_str()
        } else {
            imported.command.as_str()
        },
        s.cfg.ort.as_ref().map_or("python3".into(), |o| o
            .python
            .to_string_lossy()
            .into_owned()),
        ort_inputs.join(" "),
        if compare {
            ocannl_outs.join(" ")
        } else {
            String::new()
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_skip_initializers_and_unwritable_inputs() {
        let mut rng = Rng::new(4);
        let m = crate::onnx::model_gen::well_formed(&mut rng);
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
