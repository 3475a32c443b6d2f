//! Running a tool as a process: its own process group (killed whole on
//! timeout), an address-space limit through `prlimit` (so a huge
//! allocation fails inside the tool instead of exhausting the machine),
//! output captured in files (no pipe can fill up and block it).

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

use crate::oracle::Exit;

/// What to run.
#[derive(Debug, Clone)]
pub struct Job {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// A file to read as stdin.
    pub stdin: Option<PathBuf>,
}

impl Job {
    /// The command line as a shell would read it (for reports).
    pub fn command_line(&self) -> String {
        let mut parts = vec![shell_quote(&self.program.to_string_lossy())];
        parts.extend(self.args.iter().map(|a| shell_quote(&a.to_string_lossy())));
        let mut s = parts.join(" ");
        if let Some(i) = &self.stdin {
            s.push_str(" < ");
            s.push_str(&shell_quote(&i.to_string_lossy()));
        }
        s
    }
}

/// Quotes `s` for a POSIX shell when needed.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=+:,@".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// How to run jobs.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Kill the process group after this long.
    pub timeout: Duration,
    /// The address-space limit in MiB (0: none).
    pub mem_mb: u64,
}

/// What a job did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// How it ended.
    pub exit: Exit,
    /// Its stdout.
    pub stdout: Vec<u8>,
    /// Its stderr.
    pub stderr: Vec<u8>,
    /// How long it ran.
    pub elapsed: Duration,
}

/// Runs `job`, capturing its output in files under `scratch` (named
/// `tag.out` / `tag.err`).
pub fn run(job: &Job, limits: &Limits, scratch: &Path, tag: &str) -> io::Result<Outcome> {
    let out_path = scratch.join(format!("{tag}.out"));
    let err_path = scratch.join(format!("{tag}.err"));
    let mut cmd = if limits.mem_mb > 0 {
        let mut c = Command::new("prlimit");
        c.arg(format!("--as={}", limits.mem_mb * 1024 * 1024))
            .arg("--core=0")
            .arg("--")
            .arg(&job.program);
        c
    } else {
        Command::new(&job.program)
    };
    cmd.args(&job.args)
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .stdout(File::create(&out_path)?)
        .stderr(File::create(&err_path)?)
        .process_group(0);
    match &job.stdin {
        Some(p) => cmd.stdin(File::open(p)?),
        None => cmd.stdin(Stdio::null()),
    };
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let status = match child.wait_timeout(limits.timeout)? {
        Some(s) => Some(s),
        None => {
            let pid = rustix::process::Pid::from_child(&child);
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            let _ = child.kill();
            child.wait()?;
            None
        }
    };
    let elapsed = start.elapsed();
    let exit = match status {
        None => Exit::Timeout,
        Some(s) => match (s.code(), s.signal()) {
            (Some(c), _) => Exit::Code(c),
            (None, Some(sig)) => Exit::Signal(sig),
            (None, None) => Exit::Code(-1),
        },
    };
    Ok(Outcome {
        exit,
        stdout: std::fs::read(&out_path)?,
        stderr: std::fs::read(&err_path)?,
        elapsed,
    })
}

/// The last `n` bytes of `bytes` as text.
pub fn tail(bytes: &[u8], n: usize) -> String {
    let start = bytes.len().saturating_sub(n);
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            timeout: Duration::from_secs(5),
            mem_mb: 0,
        }
    }

    fn sh(script: &str) -> Job {
        Job {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            stdin: None,
        }
    }

    #[test]
    fn exit_codes_signals_and_output() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let o = run(
            &sh("echo out; echo err >&2; exit 3"),
            &limits(),
            dir.path(),
            "a",
        )
        .expect("runs");
        assert_eq!(o.exit, Exit::Code(3));
        assert_eq!(o.stdout, b"out\n");
        assert_eq!(o.stderr, b"err\n");
        let o = run(&sh("kill -SEGV $$"), &limits(), dir.path(), "b").expect("runs");
        assert_eq!(o.exit, Exit::Signal(11));
    }

    #[test]
    fn a_hang_is_killed_with_its_children() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let l = Limits {
            timeout: Duration::from_millis(300),
            mem_mb: 0,
        };
        let o = run(&sh("sleep 30 & sleep 30"), &l, dir.path(), "c").expect("runs");
        assert_eq!(o.exit, Exit::Timeout);
        assert!(o.elapsed < Duration::from_secs(10));
    }

    #[test]
    fn the_memory_limit_applies() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let l = Limits {
            timeout: Duration::from_secs(5),
            mem_mb: 64,
        };
        let o = run(&sh("ulimit -v"), &l, dir.path(), "d").expect("runs");
        assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "65536");
    }

    #[test]
    fn command_lines_are_quoted() {
        let j = Job {
            program: "/bin/ocannl-opt".into(),
            args: vec![
                "a b.mlir".into(),
                "-p".into(),
                "builtin.module(x{close=false})".into(),
            ],
            stdin: None,
        };
        assert_eq!(
            j.command_line(),
            "/bin/ocannl-opt 'a b.mlir' -p 'builtin.module(x{close=false})'"
        );
    }
}
