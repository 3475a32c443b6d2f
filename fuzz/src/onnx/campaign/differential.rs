//! The differential oracle's verdicts: what onnxruntime's reply on a
//! model makes of ocannl's result (a match, a mismatch, a model both
//! reject, a model only ocannl rejects: not supported, stricter on a
//! hostile model, or a rejects-valid), with the unspecified cases (NaN
//! through a max or a min, an average over padding only) excused.

use std::time::Duration;

use ocannl_onnx::proto::ModelProto;

use crate::exec::Outcome;
use crate::onnx::ort::Reply;
use crate::oracle::{self, Exit, Judgement, Verdict};

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

/// What ocannl did with a model, as the verdict on onnxruntime's reply
/// reads it.
pub struct Ocannl<'a> {
    /// The model, when its bytes decode.
    pub model: Option<&'a ModelProto>,
    /// Whether ocannl ran the model and its outputs were compared.
    pub compare: bool,
    /// Otherwise the first error line of ocannl's clean rejection.
    pub rejection: Option<&'a str>,
    /// Whether the model is a hostile one.
    pub hostile: bool,
    /// Whether `ocannl-run` ran (else only the import did).
    pub ran: bool,
    /// The file the last of ocannl's tools read (the MLIR or the model).
    pub file: String,
}

/// The verdict on onnxruntime's `reply` (None: nothing to record); notes
/// for the report join `notes`.
pub fn judge(reply: &Reply, ocannl: &Ocannl<'_>, notes: &mut Vec<String>) -> Option<Judgement> {
    let pass = || Judgement {
        verdict: Verdict::Pass,
        detail: String::new(),
        signature: String::new(),
    };
    match (reply, ocannl.rejection) {
        (Reply::NoAnswer(why), _) => {
            notes.push(format!("onnxruntime gave no answer ({why})"));
            None
        }
        (Reply::Rejected(_), _) => {
            notes.push(if ocannl.compare {
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
        (Reply::Match, _) => Some(pass()),
        // NaN through a max or a min: ONNX leaves it unspecified;
        // onnxruntime's comparisons skip a NaN, ocannl propagates it as
        // NumPy's `maximum` does. Counted apart, not a failure.
        (Reply::Mismatch { what, .. }, _)
            if what.starts_with("nan") && reduces_by_max(ocannl.model) =>
        {
            notes.push(
                "NaN through max/min: onnxruntime skips it, ocannl propagates it (unspecified)"
                    .into(),
            );
            Some(pass())
        }
        // An average over a window of padding only: 0 / 0.
        (Reply::Mismatch { what, .. }, _)
            if what.starts_with("nan") && averages_padding_only(ocannl.model) =>
        {
            notes.push(
                "NaN from an average over padding only: onnxruntime gives 0 (unspecified)".into(),
            );
            Some(pass())
        }
        // MeanVarianceNormalization of constant cells: ONNX's function
        // divides 0 by sqrt(0) + 1e-9, onnxruntime's kernel by sqrt(0).
        (Reply::Mismatch { what, .. }, _)
            if what.starts_with("nan") && has_op(ocannl.model, "MeanVarianceNormalization") =>
        {
            notes.push(
                "NaN from MeanVarianceNormalization of constant cells: onnxruntime adds no epsilon"
                    .into(),
            );
            Some(pass())
        }
        // onnxruntime differs from ONNX's reference evaluator, which
        // agrees with ocannl (fuzz/ort_oracle.py): counted apart.
        (Reply::Mismatch { what, .. }, _) if what.starts_with("reference:") => {
            notes.push(
                "onnxruntime differs from ONNX's reference evaluator, which ocannl matches".into(),
            );
            Some(pass())
        }
        (Reply::Mismatch { index: k, what }, _) => Some(mismatch(ocannl.model, *k, what)),
        (Reply::Ok, Some(err)) => Some(rejected_runnable(ocannl, err, notes)),
        (Reply::Ok, None) => None,
    }
}

/// Output `k` differs from onnxruntime's (`what`: its kind, then the first
/// differing element).
fn mismatch(model: Option<&ModelProto>, k: usize, what: &str) -> Judgement {
    let kind = what
        .split(':')
        .next()
        .unwrap_or("values")
        .split(' ')
        .next()
        .unwrap_or("");
    Judgement {
        verdict: Verdict::Mismatch,
        detail: format!("output {k} of {}", producer(model, k)),
        signature: format!(
            "{kind} differ from onnxruntime's (output of {})",
            producer(model, k)
        ),
    }
}

/// onnxruntime runs a model ocannl rejected with `err`.
fn rejected_runnable(ocannl: &Ocannl<'_>, err: &str, notes: &mut Vec<String>) -> Judgement {
    // Hostile models: the importer may be stricter than
    // onnxruntime (unused initializers, attributes it ignores);
    // what the importer accepted, ocannl-run must run.
    let strict_ok = ocannl.hostile && !ocannl.ran;
    if strict_ok || EXCUSED.iter().any(|u| err.contains(u)) {
        notes.push("onnxruntime runs it; ocannl rejects a hostile model (stricter)".into());
        Judgement {
            verdict: Verdict::Rejected,
            detail: "stricter".into(),
            signature: String::new(),
        }
    } else if UNSUPPORTED.iter().any(|u| err.contains(u)) {
        notes.push("onnxruntime runs it; ocannl: not supported".into());
        Judgement {
            verdict: Verdict::Rejected,
            detail: "unsupported".into(),
            signature: String::new(),
        }
    } else {
        Judgement {
            verdict: Verdict::RejectsValid,
            detail: if ocannl.ran {
                "ocannl-run".into()
            } else {
                "ocannl-import-onnx".into()
            },
            signature: oracle::normalise(err, &ocannl.file),
        }
    }
}

/// The text standing for onnxruntime's stderr in its check.
pub fn reply_text(reply: &Reply, rejection: Option<&str>) -> String {
    match reply {
        Reply::Mismatch { index, what } => format!("output {index}: {what}\n"),
        Reply::Rejected(e) => format!("onnxruntime rejects it: {e}\n"),
        Reply::Ok => format!(
            "onnxruntime runs it; ocannl rejects it: {}\n",
            rejection.unwrap_or_default()
        ),
        _ => "match\n".into(),
    }
}

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

/// Whether the model has a node of type `op`.
fn has_op(m: Option<&ModelProto>, op: &str) -> bool {
    m.and_then(|m| m.graph.as_ref())
        .is_some_and(|g| g.node.iter().any(|n| n.op_type.as_deref() == Some(op)))
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

/// The op type of the node producing graph output `k`.
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

/// onnxruntime's reply as the outcome of a process (exit 0, `text` as its
/// stderr).
pub fn pseudo_outcome(text: String, elapsed: Duration) -> Outcome {
    Outcome {
        exit: Exit::Code(0),
        stdout: Vec::new(),
        stderr: text.into_bytes(),
        elapsed,
    }
}
