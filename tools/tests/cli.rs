//! The tools as users run them: the whole lit suite, exit codes and
//! crash-freedom on bad input. (One test binary for the crate.)

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

const OCANNL_OPT: &str = env!("CARGO_BIN_EXE_ocannl-opt");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn llvm_bin() -> PathBuf {
    std::env::var_os("OCANNL_LLVM_BIN")
        .map_or_else(|| PathBuf::from("/usr/lib/llvm-22/bin"), PathBuf::from)
}

fn opt(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(OCANNL_OPT)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("ocannl-opt runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("ocannl-opt finishes")
}

/// A user error: exit code 1, a located `error:`, no crash or panic report.
fn assert_user_error(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(stderr.contains(needle), "missing {needle:?} in: {stderr}");
    assert!(
        stderr.contains("<stdin>:") || stderr.contains("error:"),
        "no location in: {stderr}"
    );
    for crash in ["Stack dump", "panicked", "PLEASE submit", "LLVM ERROR"] {
        assert!(!stderr.contains(crash), "crash report in: {stderr}");
    }
}

/// The lit/FileCheck suite in `lit-tests/`, with Debian's LLVM 22 `lit`.
#[test]
fn lit_suite() {
    let bin_dir = Path::new(OCANNL_OPT).parent().expect("binary directory");
    let lit = llvm_bin().join("lit");
    let status = Command::new(&lit)
        .args(["-sv", "--order=lexical"])
        .arg(root().join("lit-tests"))
        .env("OCANNL_BIN_DIR", bin_dir)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", lit.display()));
    assert!(
        status.success(),
        "lit reported failures (see the output above)"
    );
}

#[test]
fn help_lists_the_ocannl_passes() {
    let out = opt(&["--help"], "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(stdout.contains("--ocannl-verify"), "{stdout}");
    assert!(stdout.contains("--split-input-file") && stdout.contains("--verify-diagnostics"));
}

#[test]
fn mixed_pipeline_runs() {
    let input = r#"func.func @f(%a: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2"> {
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return %0 : !ocannl.tensor<f32, "2">
}"#;
    let out = opt(
        &[
            "-p",
            "builtin.module(ocannl-verify,canonicalize,func.func(cse))",
            "--mlir-print-ir-after-all",
        ],
        input,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("IR Dump After ocannl-verify"), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"ocannl.neg\""));
}

#[test]
fn bad_inputs_are_located_errors_with_exit_code_1() {
    let bad_spec = r#"func.func @f(%a: !ocannl.tensor<f32, "2|3-4">) { return }"#;
    assert_user_error(
        &opt(&["-p", "builtin.module(ocannl-verify)"], bad_spec),
        "invalid shape spec",
    );
    let wrong_arity = r#"func.func @f(%a: !ocannl.tensor<f32, "2">) {
  %0 = "ocannl.add"(%a) : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}"#;
    assert_user_error(&opt(&[], wrong_arity), "expects exactly 2 operands");
    let unknown = r#"func.func @f(%a: !ocannl.tensor<f32, "2">) {
  %0 = "ocannl.nope"(%a) : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}"#;
    assert_user_error(&opt(&[], unknown), "unregistered operation 'ocannl.nope'");
    assert_user_error(&opt(&[], "func.func @f( {"), "error:");
    assert_user_error(
        &opt(&["-p", "builtin.module(ocannl-no-such-pass)"], ""),
        "ocannl-no-such-pass",
    );
    let missing = opt(&["/nonexistent/input.mlir"], "");
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/input.mlir"));
}

/// A user's own `--irdl-file` is loaded beside the ocannl dialect.
#[test]
fn user_irdl_file_is_merged() {
    let dir = std::env::temp_dir().join(format!("ocannl-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let irdl = dir.join("mine.irdl.mlir");
    std::fs::write(
        &irdl,
        "irdl.dialect @mine {\n  irdl.operation @op {\n    %0 = irdl.any\n    irdl.results(r: %0)\n  }\n}\n",
    )
    .expect("write irdl");
    let input = r#"func.func @f(%a: !ocannl.tensor<f32, "2">) {
  %0 = "mine.op"() : () -> i32
  %1 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}"#;
    let flag = format!("--irdl-file={}", irdl.display());
    let out = opt(&[&flag], input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let missing = opt(&["--irdl-file=/nonexistent.irdl.mlir"], input);
    assert_eq!(missing.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).ok();
}
