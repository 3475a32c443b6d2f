//! The fuzzer against the real tools: generated well-formed programs parse,
//! a short campaign reports and saves its failures, `--reproduce` reruns a
//! program. Skipped, with the reason printed, when the tools are not built
//! (`OCANNL_BIN_DIR`, else the workspace's `target/debug`); under CI (`CI`
//! set) a missing tool fails the test instead.

use std::path::{Path, PathBuf};
use std::process::Command;

const FUZZ: &str = env!("CARGO_BIN_EXE_ocannl-fuzz");

/// The folder holding ocannl-opt and ocannl-run, if they are built.
fn bin_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("OCANNL_BIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/debug"));
    let ok = dir.join("ocannl-opt").is_file() && dir.join("ocannl-run").is_file();
    if !ok {
        skip(&format!(
            "no ocannl-opt/ocannl-run in {} (build ocannl-tools or set OCANNL_BIN_DIR)",
            dir.display()
        ));
    }
    ok.then_some(dir)
}

/// Reports a missing prerequisite: skipped with the reason, except under
/// CI, where it fails the test.
fn skip(why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "a prerequisite is missing under CI: {why}"
    );
    eprintln!("skipped: {why}");
}

#[test]
fn well_formed_programs_parse() {
    let Some(bin) = bin_dir() else {
        return;
    };
    let out = tempfile::tempdir().expect("a temporary directory");
    let status = Command::new(FUZZ)
        .args([
            "--emit-only",
            "60",
            "--hostile-ratio",
            "0",
            "--ctrl-ratio",
            "0.5",
            "--seed",
            "9",
        ])
        .arg("--out")
        .arg(out.path())
        .status()
        .expect("ocannl-fuzz runs");
    assert!(status.success());
    let mut n = 0;
    for entry in std::fs::read_dir(out.path()).expect("the programs") {
        let path = entry.expect("an entry").path();
        let o = Command::new(bin.join("ocannl-opt"))
            .arg(&path)
            .output()
            .expect("ocannl-opt runs");
        assert!(
            o.status.success(),
            "{} does not parse:\n{}",
            path.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        n += 1;
    }
    assert_eq!(n, 60);
}

#[test]
fn a_short_campaign_reports_and_saves_failures() {
    let Some(bin) = bin_dir() else {
        return;
    };
    let out = tempfile::tempdir().expect("a temporary directory");
    let o = Command::new(FUZZ)
        .arg("--bin-dir")
        .arg(&bin)
        .args([
            "--programs",
            "16",
            "--run-programs",
            "4",
            "--jobs",
            "1",
            "--seed",
            "3",
        ])
        .args(["--pipeline", "ocannl-verify", "--progress-secs", "1"])
        .arg("--out")
        .arg(out.path())
        .output()
        .expect("ocannl-fuzz runs");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let code = o.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "exit {code:?}:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout.contains("ocannl-opt:ocannl-verify"), "{stdout}");
    assert!(stdout.contains("ocannl-opt:ocannl-to-llvm"), "{stdout}");
    assert!(stdout.contains("16 programs"), "{stdout}");
    let saved: Vec<PathBuf> = std::fs::read_dir(out.path())
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    if code == Some(1) {
        let program = saved
            .iter()
            .find(|p| p.extension().is_some_and(|e| e == "mlir"))
            .expect("a saved failing program");
        assert!(program.with_extension("txt").is_file());
        let r = Command::new(FUZZ)
            .arg("--bin-dir")
            .arg(&bin)
            .arg("--reproduce")
            .arg(program)
            .output()
            .expect("ocannl-fuzz --reproduce runs");
        assert!(matches!(r.status.code(), Some(0 | 1)));
        assert!(String::from_utf8_lossy(&r.stdout).contains("ocannl-run"));
    } else {
        assert!(saved.is_empty());
    }
}

#[test]
fn reproduce_passes_on_a_good_program() {
    let Some(bin) = bin_dir() else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("good.mlir");
    std::fs::write(
        &file,
        r#"func.func @matmul_ranges() -> !ocannl.tensor<f32, "...|...->..."> {
  %w = "ocannl.range"() {spec = "3->2"} : () -> !ocannl.tensor<f32, "3->2">
  %x = "ocannl.range"() {spec = "3"} : () -> !ocannl.tensor<f32, "3">
  %y = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "3->2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  return %y : !ocannl.tensor<f32, "...|...->...">
}
"#,
    )
    .expect("written");
    let o = Command::new(FUZZ)
        .arg("--bin-dir")
        .arg(&bin)
        .arg("--reproduce")
        .arg(&file)
        .output()
        .expect("ocannl-fuzz --reproduce runs");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}");
    assert!(stdout.contains("ocannl-opt:ocannl-to-llvm"), "{stdout}");
    assert!(stdout.contains("ocannl-run"), "{stdout}");
}

#[test]
fn unknown_classes_are_refused() {
    let o = Command::new(FUZZ)
        .args(["--emit-only", "1", "--class", "nope"])
        .output()
        .expect("ocannl-fuzz runs");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown class 'nope'"));
}

#[test]
fn a_short_onnx_campaign_reports_and_saves_failures() {
    let Some(bin) = bin_dir() else {
        return;
    };
    if !bin.join("ocannl-import-onnx").is_file() {
        skip(&format!("no ocannl-import-onnx in {}", bin.display()));
        return;
    }
    let out = tempfile::tempdir().expect("a temporary directory");
    let o = Command::new(FUZZ)
        .arg("--bin-dir")
        .arg(&bin)
        .args([
            "--onnx",
            "--programs",
            "12",
            "--run-programs",
            "3",
            "--jobs",
            "1",
            "--seed",
            "3",
            "--progress-secs",
            "1",
        ])
        .arg("--out")
        .arg(out.path())
        .output()
        .expect("ocannl-fuzz runs");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let code = o.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "exit {code:?}:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout.contains("ocannl-import-onnx"), "{stdout}");
    assert!(stdout.contains("12 programs"), "{stdout}");
    let saved: Vec<PathBuf> = std::fs::read_dir(out.path())
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    if code == Some(1) {
        let model = saved
            .iter()
            .find(|p| p.extension().is_some_and(|e| e == "onnx"))
            .expect("a saved failing model");
        assert!(model.with_extension("txt").is_file());
        let r = Command::new(FUZZ)
            .arg("--bin-dir")
            .arg(&bin)
            .arg("--onnx")
            .arg("--reproduce")
            .arg(model)
            .output()
            .expect("ocannl-fuzz --onnx --reproduce runs");
        assert!(matches!(r.status.code(), Some(0 | 1)));
        assert!(String::from_utf8_lossy(&r.stdout).contains("ocannl-import-onnx"));
    } else {
        assert!(saved.is_empty());
    }
}

#[test]
fn onnx_emit_only_writes_models_and_lists_classes() {
    let out = tempfile::tempdir().expect("a temporary directory");
    let o = Command::new(FUZZ)
        .args(["--onnx", "--emit-only", "5", "--seed", "2"])
        .arg("--out")
        .arg(out.path())
        .output()
        .expect("ocannl-fuzz runs");
    assert!(o.status.success());
    let n = std::fs::read_dir(out.path())
        .expect("the models")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "onnx"))
        })
        .count();
    assert_eq!(n, 5);
    let l = Command::new(FUZZ)
        .args(["--onnx", "--list-classes"])
        .output()
        .expect("ocannl-fuzz runs");
    assert!(String::from_utf8_lossy(&l.stdout).contains("onnx-wf"));
    let bad = Command::new(FUZZ)
        .args(["--onnx", "--emit-only", "1", "--class", "wf"])
        .output()
        .expect("ocannl-fuzz runs");
    assert_eq!(bad.status.code(), Some(2));
}
