//! The onnxruntime oracle: `fuzz/ort_oracle.py` as one long-lived process
//! per worker (JSON requests on its stdin, one tab-separated reply line per
//! request). A helper that dies or runs past the time limit is killed
//! (its whole process group) and started again for the next request; that
//! request counts as unanswered.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// What onnxruntime made of a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// It refused the model or failed to run it (its first error line).
    Rejected(String),
    /// It ran the model (no ocannl outputs to compare).
    Ok,
    /// It ran, and every ocannl output matched.
    Match,
    /// It ran, and output `index` differs (`what`).
    Mismatch {
        /// The output's position.
        index: usize,
        /// Shape, dtype or values, with the first differing element.
        what: String,
    },
    /// The helper crashed or hung on this request.
    NoAnswer(String),
}

impl Reply {
    fn parse(line: &str) -> Reply {
        let mut parts = line.trim_end().splitn(3, '\t');
        let head = parts.next().unwrap_or("");
        let a = parts.next().unwrap_or("").to_string();
        let b = parts.next().unwrap_or("").to_string();
        match head {
            "REJECTED" => Reply::Rejected(a),
            "OK" => Reply::Ok,
            "MATCH" => Reply::Match,
            "MISMATCH" => Reply::Mismatch {
                index: a.parse().unwrap_or(0),
                what: b,
            },
            other => Reply::NoAnswer(format!("unexpected reply: {other}")),
        }
    }
}

/// How to start the helper.
#[derive(Debug, Clone)]
pub struct OrtConfig {
    /// The Python interpreter (with numpy and onnxruntime).
    pub python: PathBuf,
    /// `fuzz/ort_oracle.py`.
    pub script: PathBuf,
    /// Per-request time limit.
    pub timeout: Duration,
    /// Address-space limit in MiB (0: none).
    pub mem_mb: u64,
}

struct Live {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

/// One worker's helper.
pub struct Ort {
    cfg: OrtConfig,
    live: Option<Live>,
    /// How many times it was (re)started.
    pub starts: u64,
}

/// Checks that the helper starts; Ok(version) or Err(reason).
pub fn probe(cfg: &OrtConfig) -> Result<String, String> {
    let mut o = Ort::new(cfg.clone());
    let v = o.start()?;
    o.stop();
    Ok(v)
}

fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Ort {
    /// A helper, started at the first request.
    pub fn new(cfg: OrtConfig) -> Self {
        Ort {
            cfg,
            live: None,
            starts: 0,
        }
    }

    fn start(&mut self) -> Result<String, String> {
        self.stop();
        self.starts += 1;
        let mut cmd = if self.cfg.mem_mb > 0 {
            let mut c = Command::new("prlimit");
            c.arg(format!("--as={}", self.cfg.mem_mb * 1024 * 1024))
                .arg("--core=0")
                .arg("--")
                .arg(&self.cfg.python);
            c
        } else {
            Command::new(&self.cfg.python)
        };
        cmd.arg(&self.cfg.script)
            .env("OMP_NUM_THREADS", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0);
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.cfg.python.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let first = rx.recv_timeout(Duration::from_secs(60));
        let live = Live {
            child,
            stdin,
            lines: rx,
        };
        self.live = Some(live);
        match first {
            Ok(l) if l.starts_with("READY\t") => Ok(l["READY\t".len()..].to_string()),
            Ok(l) => {
                self.stop();
                Err(l.strip_prefix("UNAVAILABLE\t").unwrap_or(&l).to_string())
            }
            Err(_) => {
                self.stop();
                Err("the helper did not start".into())
            }
        }
    }

    fn stop(&mut self) {
        if let Some(mut l) = self.live.take() {
            let pid = rustix::process::Pid::from_child(&l.child);
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            let _ = l.child.kill();
            let _ = l.child.wait();
        }
    }

    /// Runs `model` on `inputs` (name, .npy) and compares with ocannl's
    /// outputs when given.
    pub fn query(
        &mut self,
        model: &Path,
        inputs: &[(String, PathBuf)],
        ocannl: Option<&[PathBuf]>,
    ) -> Reply {
        if self.live.is_none()
            && let Err(e) = self.start()
        {
            return Reply::NoAnswer(e);
        }
        let ins: Vec<String> = inputs
            .iter()
            .map(|(n, p)| format!("[{}, {}]", json_str(n), json_str(&p.to_string_lossy())))
            .collect();
        let outs = match ocannl {
            None => "null".to_string(),
            Some(o) => format!(
                "[{}]",
                o.iter()
                    .map(|p| json_str(&p.to_string_lossy()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let req = format!(
            "{{\"model\": {}, \"inputs\": [{}], \"ocannl\": {outs}}}\n",
            json_str(&model.to_string_lossy()),
            ins.join(", ")
        );
        let live = self.live.as_mut().expect("started");
        if live.stdin.write_all(req.as_bytes()).is_err() || live.stdin.flush().is_err() {
            self.stop();
            return Reply::NoAnswer("the helper's stdin closed".into());
        }
        match live.lines.recv_timeout(self.cfg.timeout) {
            Ok(line) => Reply::parse(&line),
            Err(RecvTimeoutError::Timeout) => {
                self.stop();
                Reply::NoAnswer("onnxruntime timed out".into())
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.stop();
                Reply::NoAnswer("onnxruntime died".into())
            }
        }
    }
}

impl Drop for Ort {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_parse() {
        assert_eq!(Reply::parse("MATCH\t2"), Reply::Match);
        assert_eq!(Reply::parse("REJECTED\tbad"), Reply::Rejected("bad".into()));
        assert_eq!(
            Reply::parse("MISMATCH\t1\tvalues: x\ty"),
            Reply::Mismatch {
                index: 1,
                what: "values: x\ty".into()
            }
        );
        assert_eq!(json_str("a\"b\\\n"), "\"a\\\"b\\\\\\u000a\"");
    }
}
