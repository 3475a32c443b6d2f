//! Tallies per tool/pipeline and per generator class, the final table, and
//! the saved failures (deduplicated by tool, pipeline, kind and the
//! normalised first error line; the smallest program of each is kept).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::oracle::{Judgement, Verdict};

/// Counts for one tool/pipeline (or one class).
#[derive(Debug, Clone, Default)]
pub struct Counts {
    /// Processes judged.
    pub programs: u64,
    /// Per verdict.
    pub verdicts: BTreeMap<Verdict, u64>,
    /// Crashes per signal or marker.
    pub crash_details: BTreeMap<String, u64>,
    /// Total running time.
    pub time: Duration,
}

impl Counts {
    fn add(&mut self, j: &Judgement, time: Duration) {
        self.programs += 1;
        *self.verdicts.entry(j.verdict).or_default() += 1;
        if matches!(j.verdict, Verdict::Crash | Verdict::Panic) {
            *self.crash_details.entry(j.detail.clone()).or_default() += 1;
        }
        self.time += time;
    }

    /// The count of verdict `v`.
    pub fn get(&self, v: Verdict) -> u64 {
        self.verdicts.get(&v).copied().unwrap_or(0)
    }

    /// The number of failures.
    pub fn failures(&self) -> u64 {
        self.verdicts
            .iter()
            .filter(|(v, _)| v.is_failure())
            .map(|(_, n)| n)
            .sum()
    }
}

/// One distinct failure.
#[derive(Debug, Clone)]
pub struct FailureRecord {
    /// How many programs hit it.
    pub count: u64,
    /// The class of the program kept.
    pub class: String,
    /// The size of the program kept.
    pub size: usize,
    /// Where the program is saved.
    pub path: PathBuf,
    /// The judgement's detail (signal, marker).
    pub detail: String,
    /// The files saved next to the program.
    pub attachments: Vec<PathBuf>,
}

/// The key failures are deduplicated by.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FailureKey {
    /// `ocannl-opt:PIPELINE`, `ocannl-run` or `mlir-translate`.
    pub target: String,
    /// The verdict.
    pub verdict: Verdict,
    /// The normalised first error line.
    pub signature: String,
}

/// Everything one failing process leaves for the report.
pub struct FailureInfo<'a> {
    /// The program's class.
    pub class: &'a str,
    /// The program's index in the campaign.
    pub index: u64,
    /// The program text.
    pub program: &'a [u8],
    /// The command line (with the program's path in the failures folder).
    pub command: String,
    /// How it ended, in words.
    pub exit: String,
    /// The tail of stdout.
    pub stdout_tail: String,
    /// The tail of stderr.
    pub stderr_tail: String,
    /// The saved program's extension (`mlir`, `onnx`).
    pub ext: &'a str,
    /// Files saved next to it, `NAME.SUFFIX` (inputs, the imported MLIR).
    pub attachments: Vec<(String, Vec<u8>)>,
}

/// The campaign's tallies.
#[derive(Debug, Default)]
pub struct Report {
    /// Per `target` (tool and pipeline).
    pub targets: BTreeMap<String, Counts>,
    /// Per generator class: the verdicts of all its processes.
    pub classes: BTreeMap<String, Counts>,
    /// Per generator class: how many programs.
    pub class_programs: BTreeMap<String, u64>,
    /// Distinct failures.
    pub failures: BTreeMap<FailureKey, FailureRecord>,
    /// Programs generated.
    pub programs: u64,
    /// Other counts worth printing (what onnxruntime said, ...).
    pub notes: BTreeMap<String, u64>,
}

/// A stable 64-bit FNV-1a hash (for file names).
pub fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// `s` with every character outside `[A-Za-z0-9-]` made `-`.
fn slug(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    while out.contains("--") {
        out = out.replace("--", "-");
    }
    out.trim_matches('-').to_string()
}

impl Report {
    /// Records one generated program of `class`.
    pub fn record_program(&mut self, class: &str) {
        self.programs += 1;
        *self.class_programs.entry(class.to_string()).or_default() += 1;
    }

    /// Records one judged process.
    pub fn record(&mut self, target: &str, class: &str, j: &Judgement, time: Duration) {
        self.targets
            .entry(target.to_string())
            .or_default()
            .add(j, time);
        self.classes
            .entry(class.to_string())
            .or_default()
            .add(j, time);
    }

    /// Records a failure, saving the program and its details under `out`
    /// if it is new or smaller than the one kept. Returns whether it is a
    /// new distinct failure.
    pub fn save_failure(
        &mut self,
        out: &Path,
        target: &str,
        j: &Judgement,
        info: &FailureInfo<'_>,
    ) -> io::Result<bool> {
        let key = FailureKey {
            target: target.to_string(),
            verdict: j.verdict,
            signature: j.signature.clone(),
        };
        let hash =
            fnv(format!("{}\0{}\0{}", key.target, key.verdict.name(), key.signature).as_bytes());
        let name = format!(
            "{}-{}-{}-{:08x}",
            slug(info.class),
            slug(target.trim_start_matches("ocannl-opt:")),
            j.verdict.name(),
            hash as u32
        );
        let path = out.join(format!("{name}.{}", info.ext));
        let stem = out.join(&name);
        let attachments: Vec<PathBuf> = info
            .attachments
            .iter()
            .map(|(suffix, _)| out.join(format!("{name}.{suffix}")))
            .collect();
        let (new, write) = match self.failures.get_mut(&key) {
            Some(r) => {
                r.count += 1;
                let smaller = info.program.len() < r.size;
                if smaller {
                    // Same key, another class possibly: keep one file.
                    let _ = std::fs::remove_file(&r.path);
                    let _ = std::fs::remove_file(r.path.with_extension("txt"));
                    for a in &r.attachments {
                        let _ = std::fs::remove_file(a);
                    }
                    r.attachments = attachments.clone();
                    r.size = info.program.len();
                    r.class = info.class.to_string();
                    r.path = path.clone();
                }
                (false, smaller)
            }
            None => {
                self.failures.insert(
                    key.clone(),
                    FailureRecord {
                        count: 1,
                        class: info.class.to_string(),
                        size: info.program.len(),
                        path: path.clone(),
                        detail: j.detail.clone(),
                        attachments: attachments.clone(),
                    },
                );
                (true, true)
            }
        };
        if write {
            std::fs::create_dir_all(out)?;
            std::fs::write(&path, info.program)?;
            for ((_, bytes), p) in info.attachments.iter().zip(&attachments) {
                std::fs::write(p, bytes)?;
            }
            let command = info
                .command
                .replace("PROGRAM", &path.to_string_lossy())
                .replace("SAVED", &stem.to_string_lossy());
            let text = format!(
                "target: {target}\nverdict: {} ({})\nsignature: {}\nclass: {}\nindex: {}\nexit: {}\ncommand: {command}\n\n--- stderr (tail) ---\n{}\n--- stdout (tail) ---\n{}\n",
                j.verdict.name(),
                j.detail,
                j.signature,
                info.class,
                info.index,
                info.exit,
                info.stderr_tail,
                info.stdout_tail
            );
            std::fs::write(path.with_extension("txt"), text)?;
        }
        Ok(new)
    }

    /// The distinct failures grouped by (verdict, signature), whatever the
    /// target.
    pub fn failure_groups(&self) -> BTreeMap<(Verdict, &str), Vec<(&str, &FailureRecord)>> {
        let mut groups: BTreeMap<(Verdict, &str), Vec<(&str, &FailureRecord)>> = BTreeMap::new();
        for (k, r) in &self.failures {
            groups
                .entry((k.verdict, k.signature.as_str()))
                .or_default()
                .push((k.target.as_str(), r));
        }
        groups
    }

    /// The number of failing processes.
    pub fn failure_count(&self) -> u64 {
        self.targets.values().map(Counts::failures).sum()
    }

    /// The final table.
    pub fn table(&self, wall: Duration) -> String {
        let mut s = String::new();
        let cols = [
            Verdict::Pass,
            Verdict::Rejected,
            Verdict::RunnerRejected,
            Verdict::Unlocated,
            Verdict::Crash,
            Verdict::Panic,
            Verdict::Hang,
            Verdict::Silent,
            Verdict::BadLlvm,
            Verdict::Mismatch,
            Verdict::RejectsValid,
        ];
        let header = |s: &mut String, first: &str, count: &str| {
            let _ = write!(s, "{first:<56} {count:>9}");
            for v in cols {
                let _ = write!(s, " {:>9}", short(v));
            }
            let _ = writeln!(s, " {:>9}", "ms/proc");
        };
        let row = |s: &mut String, name: &str, n: u64, c: &Counts| {
            let _ = write!(s, "{name:<56} {n:>9}");
            for v in cols {
                let _ = write!(s, " {:>9}", c.get(v));
            }
            let ms = c.time.as_secs_f64() * 1000.0 / c.programs.max(1) as f64;
            let _ = writeln!(s, " {ms:>9.1}");
        };
        header(&mut s, "tool / pipeline", "programs");
        for (t, c) in &self.targets {
            row(&mut s, t, c.programs, c);
        }
        s.push('\n');
        header(
            &mut s,
            "generator class (verdicts of all its processes)",
            "programs",
        );
        for (t, c) in &self.classes {
            let n = self.class_programs.get(t).copied().unwrap_or(0);
            row(&mut s, t, n, c);
        }
        let crashes: BTreeMap<&str, u64> = self
            .targets
            .values()
            .flat_map(|c| c.crash_details.iter())
            .fold(BTreeMap::new(), |mut m, (d, n)| {
                *m.entry(d.as_str()).or_default() += n;
                m
            });
        if !crashes.is_empty() {
            let _ = writeln!(s, "\ncrashes and panics by signal or marker:");
            for (d, n) in crashes {
                let _ = writeln!(s, "  {d:<28} {n}");
            }
        }
        if !self.failures.is_empty() {
            let _ = writeln!(
                s,
                "\ndistinct failures: {} by (target, kind, first error line), {} by (kind, first error line):",
                self.failures.len(),
                self.failure_groups().len()
            );
            for ((verdict, sig), group) in self.failure_groups() {
                let count: u64 = group.iter().map(|(_, r)| r.count).sum();
                let details: Vec<&str> = group.iter().map(|(_, r)| r.detail.as_str()).collect();
                let _ = writeln!(s, "  [{}] x{count} ({}): {sig}", verdict.name(), details[0]);
                for (target, r) in group {
                    let _ = writeln!(s, "      {target} x{}: {}", r.count, r.path.display());
                }
            }
        }
        if !self.notes.is_empty() {
            let _ = writeln!(s, "\nnotes:");
            for (k, n) in &self.notes {
                let _ = writeln!(s, "  {k:<60} {n}");
            }
        }
        let secs = wall.as_secs_f64().max(1e-9);
        let _ = writeln!(
            s,
            "\n{} programs, {} processes, {} failing processes, {} distinct failures; wall {:.1} s, {:.1} programs/s",
            self.programs,
            self.targets.values().map(|c| c.programs).sum::<u64>(),
            self.failure_count(),
            self.failures.len(),
            secs,
            self.programs as f64 / secs
        );
        s
    }
}

fn short(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "pass",
        Verdict::Rejected => "located",
        Verdict::RunnerRejected => "runner",
        Verdict::Unlocated => "unlocated",
        Verdict::Crash => "crash",
        Verdict::Panic => "panic",
        Verdict::Hang => "hang",
        Verdict::Silent => "silent",
        Verdict::BadLlvm => "bad-llvm",
        Verdict::Mismatch => "mismatch",
        Verdict::RejectsValid => "rej-valid",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(v: Verdict, sig: &str) -> Judgement {
        Judgement {
            verdict: v,
            detail: "SIGSEGV".into(),
            signature: sig.into(),
        }
    }

    fn info<'a>(program: &'a [u8]) -> FailureInfo<'a> {
        FailureInfo {
            class: "huge-tensor",
            index: 3,
            program,
            command: "ocannl-opt PROGRAM".into(),
            exit: "killed by SIGSEGV".into(),
            stdout_tail: String::new(),
            stderr_tail: "Stack dump:".into(),
            ext: "mlir",
            attachments: Vec::new(),
        }
    }

    #[test]
    fn failures_are_deduplicated_keeping_the_smallest() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut r = Report::default();
        let t = "ocannl-opt:ocannl-to-llvm";
        let crash = j(Verdict::Crash, "Stack dump:");
        assert!(
            r.save_failure(dir.path(), t, &crash, &info(b"long program"))
                .expect("saved")
        );
        assert!(
            !r.save_failure(dir.path(), t, &crash, &info(b"short"))
                .expect("saved")
        );
        assert!(
            r.save_failure(dir.path(), t, &j(Verdict::Hang, "timeout"), &info(b"x"))
                .expect("saved")
        );
        assert_eq!(r.failures.len(), 2);
        let rec = r
            .failures
            .values()
            .find(|f| f.count == 2)
            .expect("the crash, twice");
        assert_eq!(std::fs::read(&rec.path).expect("saved program"), b"short");
        let txt = std::fs::read_to_string(rec.path.with_extension("txt")).expect("details");
        assert!(txt.contains("verdict: crash (SIGSEGV)"));
        assert!(txt.contains(&format!("ocannl-opt {}", rec.path.display())));
        assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 4);
    }

    #[test]
    fn the_table_counts_per_target_and_class() {
        let mut r = Report::default();
        r.record_program("wf");
        r.record_program("int-div");
        r.record(
            "ocannl-run",
            "wf",
            &j(Verdict::Pass, ""),
            Duration::from_millis(10),
        );
        r.record(
            "ocannl-run",
            "int-div",
            &j(Verdict::Crash, "x"),
            Duration::from_millis(30),
        );
        assert_eq!(r.failure_count(), 1);
        let t = r.table(Duration::from_secs(1));
        assert!(t.contains("ocannl-run"));
        assert!(t.contains("int-div"));
        assert!(t.contains("SIGSEGV"));
        assert!(t.contains("2 programs, 2 processes, 1 failing processes"));
    }
}
