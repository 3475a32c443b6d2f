//! The oracles: how one process's exit and output are judged. Pure
//! functions of (exit, stdout, stderr), tested without running anything.
//!
//! - exit 0: pass, except that a lowering pipeline must leave no ocannl op
//!   (or type) behind, and a GPU pipeline (`ocannl-to-nvvm`) no grid on the
//!   host (an `scf.parallel` or `affine.parallel` that no kernel took):
//!   "silent";
//! - exit 1: a rejection, which must carry a located error
//!   (`FILE:LINE:COL: error:`; for `ocannl-run` also `ocannl-run: error:`,
//!   counted apart) and no crash marker;
//! - `panicked` or `internal error` in stderr: a panic; otherwise any other
//!   exit code, death by a signal, or a crash marker (`RUST_BACKTRACE`,
//!   `Stack dump`, `LLVM ERROR`, ...): a crash;
//! - past the time limit: a hang.
//!
//! The deduplication signatures of failures are made in `signatures`.

mod signatures;

pub use signatures::{normalise, signature};

use std::fmt;

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// A signal killed it.
    Signal(i32),
    /// It ran past the time limit and was killed.
    Timeout,
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::Code(c) => write!(f, "exit {c}"),
            Exit::Signal(s) => write!(f, "killed by {}", signal_name(*s)),
            Exit::Timeout => f.write_str("timeout"),
        }
    }
}

/// The name of a signal number (Linux).
pub fn signal_name(s: i32) -> String {
    match s {
        4 => "SIGILL".into(),
        5 => "SIGTRAP".into(),
        6 => "SIGABRT".into(),
        7 => "SIGBUS".into(),
        8 => "SIGFPE".into(),
        9 => "SIGKILL".into(),
        11 => "SIGSEGV".into(),
        13 => "SIGPIPE".into(),
        15 => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
}

/// The judgement of one process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    /// Exit 0 (with nothing left unlowered).
    Pass,
    /// Exit 1 with a located error.
    Rejected,
    /// `ocannl-run` exit 1 with only its own `ocannl-run: error:` line.
    RunnerRejected,
    /// Exit 1 without any located error.
    Unlocated,
    /// Death by a signal, another exit code, or a crash marker.
    Crash,
    /// A Rust panic (or a caught one: `internal error`).
    Panic,
    /// Past the time limit.
    Hang,
    /// A lowering pipeline succeeded but left ocannl ops behind.
    Silent,
    /// `mlir-translate --mlir-to-llvmir` refused the `ocannl-to-llvm`
    /// output.
    BadLlvm,
    /// `ocannl-run` ran an imported ONNX model, and an output differs from
    /// onnxruntime's (shape, element type or values).
    Mismatch,
    /// onnxruntime runs an ONNX model that ocannl rejects without saying
    /// that something in it is unsupported.
    RejectsValid,
}

impl Verdict {
    /// Whether it is a failure of the tools.
    pub fn is_failure(self) -> bool {
        !matches!(
            self,
            Verdict::Pass | Verdict::Rejected | Verdict::RunnerRejected
        )
    }

    /// A short name for reports and file names.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Rejected => "rejected",
            Verdict::RunnerRejected => "runner-rejected",
            Verdict::Unlocated => "unlocated",
            Verdict::Crash => "crash",
            Verdict::Panic => "panic",
            Verdict::Hang => "hang",
            Verdict::Silent => "silent",
            Verdict::BadLlvm => "bad-llvm",
            Verdict::Mismatch => "mismatch",
            Verdict::RejectsValid => "rejects-valid",
        }
    }
}

/// Which tool produced the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// `ocannl-opt`; `lowering` when the pipeline lowers ocannl ops away.
    Opt {
        /// Whether the pipeline must remove every ocannl op.
        lowering: bool,
        /// Whether the pipeline maps every grid to a GPU kernel (no
        /// parallel loop may be left in the host code).
        gpu: bool,
    },
    /// `ocannl-run`.
    Run,
    /// `mlir-translate` on the `ocannl-to-llvm` output.
    Translate,
    /// `ocannl-import-onnx`: a rejection is a line `MODEL: error: ...`.
    Import,
    /// `ocannl-run` on an imported ONNX model: a located error may name
    /// the ONNX node's location (`"MODEL, node 'N' (OP)":LINE:1`) rather
    /// than the `.mlir` file.
    RunOnnx,
}

/// A verdict with what distinguishes failures of the same kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    /// The verdict.
    pub verdict: Verdict,
    /// The signal or marker that decided it, if any (`SIGSEGV`,
    /// `LLVM ERROR`, ...).
    pub detail: String,
    /// The normalised first error line: the deduplication key.
    pub signature: String,
}

/// Markers of a panic.
pub const PANIC_MARKERS: &[&str] = &["panicked", "internal error"];
/// Markers of other crashes.
pub const CRASH_MARKERS: &[&str] = &[
    "RUST_BACKTRACE",
    "Stack dump",
    "PLEASE submit",
    "LLVM ERROR",
    "fatal runtime error",
    "Aborted",
    "stack overflow",
    "memory allocation of",
];

/// Judges one process that ran on `file` (the path as passed to the tool).
pub fn judge(tool: Tool, file: &str, exit: Exit, stdout: &[u8], stderr: &[u8]) -> Judgement {
    let err = String::from_utf8_lossy(stderr);
    let located = match tool {
        Tool::Import => err.lines().any(|l| {
            l.strip_prefix(file)
                .is_some_and(|r| r.starts_with(": error:"))
        }),
        Tool::RunOnnx => has_any_located_error(&err),
        _ => has_located_error(&err, file),
    };
    let sig = |v: Verdict, detail: String| Judgement {
        verdict: v,
        signature: signature(v, &err, file, exit),
        detail,
    };
    if exit == Exit::Timeout {
        return Judgement {
            verdict: Verdict::Hang,
            detail: "timeout".into(),
            signature: "timeout".into(),
        };
    }
    if tool == Tool::Translate {
        return match exit {
            Exit::Code(0) => sig(Verdict::Pass, String::new()),
            other => sig(Verdict::BadLlvm, other.to_string()),
        };
    }
    let how = match exit {
        Exit::Signal(s) => format!(" ({})", signal_name(s)),
        Exit::Code(c) => format!(" (exit {c})"),
        Exit::Timeout => String::new(),
    };
    if let Some(m) = PANIC_MARKERS.iter().find(|m| err.contains(*m)) {
        return sig(Verdict::Panic, format!("{m}{how}"));
    }
    if let Exit::Signal(s) = exit {
        return sig(Verdict::Crash, signal_name(s));
    }
    if let Some(m) = CRASH_MARKERS.iter().find(|m| err.contains(*m)) {
        return sig(Verdict::Crash, format!("{m}{how}"));
    }
    match exit {
        Exit::Code(0) => {
            if let Tool::Opt { lowering: true, .. } = tool
                && let Some(left) = unlowered(stdout)
            {
                return Judgement {
                    verdict: Verdict::Silent,
                    signature: format!("left unlowered: {left}"),
                    detail: left,
                };
            }
            if let Tool::Opt { gpu: true, .. } = tool
                && let Some(left) = host_grid(stdout)
            {
                return Judgement {
                    verdict: Verdict::Silent,
                    signature: format!("grid left on the host: {left}"),
                    detail: left.to_owned(),
                };
            }
            sig(Verdict::Pass, String::new())
        }
        Exit::Code(1) if located => sig(Verdict::Rejected, String::new()),
        Exit::Code(1)
            if matches!(tool, Tool::Run | Tool::RunOnnx)
                && err.lines().any(|l| l.starts_with("ocannl-run: error:")) =>
        {
            sig(Verdict::RunnerRejected, String::new())
        }
        Exit::Code(1) => sig(Verdict::Unlocated, String::new()),
        Exit::Code(c) => sig(Verdict::Crash, format!("exit {c}")),
        Exit::Signal(_) | Exit::Timeout => unreachable!("handled above"),
    }
}

/// Whether a line of `err` is `FILE:LINE:COL: error:`.
pub fn has_located_error(err: &str, file: &str) -> bool {
    err.lines().any(|l| {
        l.strip_prefix(file)
            .and_then(|r| r.strip_prefix(':'))
            .is_some_and(|r| {
                let mut parts = r.splitn(3, ':');
                let line = parts.next().unwrap_or("");
                let col = parts.next().unwrap_or("");
                let rest = parts.next().unwrap_or("");
                !line.is_empty()
                    && line.bytes().all(|b| b.is_ascii_digit())
                    && !col.is_empty()
                    && col.bytes().all(|b| b.is_ascii_digit())
                    && rest.starts_with(" error:")
            })
    })
}

/// Whether a line of `err` is `SOMETHING:LINE:COL: error:` (any file or
/// location name).
pub fn has_any_located_error(err: &str) -> bool {
    err.lines().any(|l| {
        let Some(at) = l.find(": error:") else {
            return false;
        };
        let mut parts = l[..at].rsplitn(3, ':');
        let col = parts.next().unwrap_or("");
        let line = parts.next().unwrap_or("");
        let name = parts.next().unwrap_or("");
        !name.is_empty()
            && !line.is_empty()
            && line.bytes().all(|b| b.is_ascii_digit())
            && !col.is_empty()
            && col.bytes().all(|b| b.is_ascii_digit())
    })
}

/// The first ocannl op (or type) left in a lowering's output, or a
/// conversion cast that a failed (partial) upstream conversion left behind.
pub fn unlowered(stdout: &[u8]) -> Option<String> {
    let out = String::from_utf8_lossy(stdout);
    for marker in ["\"ocannl.", "!ocannl.tensor", "unrealized_conversion_cast"] {
        if let Some(pos) = out.find(marker) {
            let rest = &out[pos..];
            let body = &rest[1..];
            let end = body
                .find(|c: char| c == '"' || c == '<' || c == '(' || c.is_whitespace())
                .unwrap_or(body.len());
            let mut left = rest[..1 + end].to_string();
            if rest.starts_with('"') {
                left.push('"');
            }
            return Some(left);
        }
    }
    None
}

/// The first parallel loop left in a GPU pipeline's output: kernels are
/// serialised into `gpu.binary` strings, so such a loop is host code, a
/// grid that no kernel took.
pub fn host_grid(stdout: &[u8]) -> Option<&'static str> {
    let out = String::from_utf8_lossy(stdout);
    ["scf.parallel", "affine.parallel"]
        .into_iter()
        .find(|marker| out.contains(marker))
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: &str = "/tmp/w0/p.mlir";
    const OPT: Tool = Tool::Opt {
        lowering: true,
        gpu: false,
    };

    fn v(tool: Tool, exit: Exit, out: &str, err: &str) -> Verdict {
        judge(tool, F, exit, out.as_bytes(), err.as_bytes()).verdict
    }

    #[test]
    fn onnx_tools_reject_with_their_own_lines() {
        let m = "/tmp/w0/model.onnx";
        let imp = |exit, err: &str| judge(Tool::Import, m, exit, b"", err.as_bytes()).verdict;
        assert_eq!(
            imp(
                Exit::Code(1),
                "/tmp/w0/model.onnx: error: node 'a' (Conv): bad"
            ),
            Verdict::Rejected
        );
        assert_eq!(imp(Exit::Code(1), "error: something"), Verdict::Unlocated);
        assert_eq!(
            imp(
                Exit::Code(101),
                "thread 'main' panicked at onnx/src/x.rs:1:2:"
            ),
            Verdict::Panic
        );
        assert_eq!(imp(Exit::Signal(11), ""), Verdict::Crash);
        let run = |err: &str| judge(Tool::RunOnnx, F, Exit::Code(1), b"", err.as_bytes()).verdict;
        assert_eq!(
            run("model.onnx, node 'n3_Add' (Add):4:1: error: shapes differ"),
            Verdict::Rejected
        );
        assert_eq!(
            run("ocannl-run: error: no such file"),
            Verdict::RunnerRejected
        );
        assert_eq!(run("error: x:y: error: no"), Verdict::Unlocated);
    }

    #[test]
    fn exit_zero_passes_unless_ocannl_ops_remain() {
        assert_eq!(v(OPT, Exit::Code(0), "llvm.func @f()", ""), Verdict::Pass);
        let left = "%0 = \"ocannl.neg\"(%a) : ...";
        assert_eq!(v(OPT, Exit::Code(0), left, ""), Verdict::Silent);
        let j = judge(OPT, F, Exit::Code(0), left.as_bytes(), b"");
        assert_eq!(j.detail, "\"ocannl.neg\"");
        let inferred = Tool::Opt {
            lowering: false,
            gpu: false,
        };
        assert_eq!(v(inferred, Exit::Code(0), left, ""), Verdict::Pass);
        // A GPU pipeline that left a grid on the host (a function it did
        // not map to kernels); a CPU pipeline may leave parallel loops.
        let gpu = Tool::Opt {
            lowering: true,
            gpu: true,
        };
        let host = "func.func @f() {\n  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {";
        let j = judge(gpu, F, Exit::Code(0), host.as_bytes(), b"");
        assert_eq!(j.verdict, Verdict::Silent);
        assert_eq!(j.detail, "scf.parallel");
        assert_eq!(v(OPT, Exit::Code(0), host, ""), Verdict::Pass);
        let kernels = "gpu.launch_func @k::@k blocks in (%c1, %c1, %c1)";
        assert_eq!(v(gpu, Exit::Code(0), kernels, ""), Verdict::Pass);
        // A function upstream func-to-llvm failed to convert.
        let cast =
            "%0 = builtin.unrealized_conversion_cast %arg0 : memref<4x0xf32> to !llvm.struct";
        let j = judge(OPT, F, Exit::Code(0), cast.as_bytes(), b"");
        assert_eq!(j.verdict, Verdict::Silent);
        assert_eq!(j.detail, "unrealized_conversion_cast");
    }

    #[test]
    fn rejections_must_be_located() {
        let located =
            format!("{F}:2:8: error: 'ocannl.einsum' op bad spec\n  %1 = ...\n       ^\n");
        assert_eq!(v(OPT, Exit::Code(1), "", &located), Verdict::Rejected);
        assert_eq!(
            v(OPT, Exit::Code(1), "", "error: something\n"),
            Verdict::Unlocated
        );
        assert_eq!(
            v(OPT, Exit::Code(1), "", "other.mlir:2:8: error: x\n"),
            Verdict::Unlocated
        );
        let runner = "ocannl-run: error: no function '@g'\n";
        assert_eq!(
            v(Tool::Run, Exit::Code(1), "", runner),
            Verdict::RunnerRejected
        );
        assert_eq!(v(OPT, Exit::Code(1), "", runner), Verdict::Unlocated);
        let both = format!("{located}ocannl-run: error: shape inference failed\n");
        assert_eq!(v(Tool::Run, Exit::Code(1), "", &both), Verdict::Rejected);
    }

    #[test]
    fn crashes_panics_and_hangs() {
        assert_eq!(
            v(OPT, Exit::Signal(11), "", "Stack dump:\n"),
            Verdict::Crash
        );
        assert_eq!(v(OPT, Exit::Code(2), "", ""), Verdict::Crash);
        assert_eq!(
            v(OPT, Exit::Code(1), "", "LLVM ERROR: out of memory\n"),
            Verdict::Crash
        );
        let panic = "thread 'main' panicked at passes/src/x.rs:3:5:\nindex out of bounds\nnote: run with `RUST_BACKTRACE=1`\n";
        assert_eq!(v(OPT, Exit::Signal(6), "", panic), Verdict::Panic);
        let caught = format!("{F}:3:3: error: internal error: the pass panicked\n");
        assert_eq!(v(OPT, Exit::Code(1), "", &caught), Verdict::Panic);
        assert_eq!(v(Tool::Run, Exit::Timeout, "", ""), Verdict::Hang);
        assert_eq!(
            v(Tool::Translate, Exit::Code(1), "", "error: x"),
            Verdict::BadLlvm
        );
        assert_eq!(v(Tool::Translate, Exit::Code(0), "", ""), Verdict::Pass);
        let j = judge(OPT, F, Exit::Signal(8), b"", b"");
        assert_eq!((j.verdict, j.detail.as_str()), (Verdict::Crash, "SIGFPE"));
        assert_eq!(j.signature, "SIGFPE: no stderr");
        let dump = "PLEASE submit a bug report\nStack dump:\n0.\tProgram arguments: ocannl-opt x\n #0 0x0000560 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/bin/ocannl-opt+0x1)\n #1 0x0000561 SignalHandler(int, siginfo_t*, void*) Signals.cpp:0:0\n #2 0x00007f2 (/lib/x86_64-linux-gnu/libc.so.6+0x3c050)\n #3 0x0000563 mlir::DenseElementsAttr::getSplatValue() (/bin/ocannl-opt+0x2)\n #4 0x0000564 ocannl_passes::lower::run /work/main/passes/src/lower.rs:622:25\n";
        let j = judge(OPT, F, Exit::Signal(11), b"", dump.as_bytes());
        assert_eq!(
            j.signature,
            "SIGSEGV in mlir::DenseElementsAttr::getSplatValue()"
        );
        let oom = b"memory allocation of 100 bytes failed\nnote: run with `RUST_BACKTRACE=1`\n";
        let j = judge(Tool::Run, F, Exit::Signal(6), b"", oom);
        assert_eq!((j.verdict, j.detail.as_str()), (Verdict::Crash, "SIGABRT"));
        assert_eq!(j.signature, "memory allocation of N bytes failed");
        let j = judge(
            OPT,
            F,
            Exit::Signal(6),
            b"",
            b"thread 'main' panicked at a.rs:1:1:\nx\n",
        );
        assert_eq!(
            (j.verdict, j.detail.as_str()),
            (Verdict::Panic, "panicked (SIGABRT)")
        );
    }
}
