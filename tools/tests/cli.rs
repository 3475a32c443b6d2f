//! The tools as users run them: the whole lit suite, exit codes and
//! crash-freedom on bad input. (One test binary for the crate.)

#[path = "cli/onnx_hostile.rs"]
mod onnx_hostile;

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

const OCANNL_OPT: &str = env!("CARGO_BIN_EXE_ocannl-opt");
const OCANNL_RUN: &str = env!("CARGO_BIN_EXE_ocannl-run");
const OCANNL_IMPORT_ONNX: &str = env!("CARGO_BIN_EXE_ocannl-import-onnx");

#[path = "cli/flags.rs"]
mod flags;
#[path = "cli/gpu.rs"]
mod gpu;
#[path = "cli/profile.rs"]
mod profile;
#[path = "cli/schedules.rs"]
mod schedules;
#[path = "cli/types.rs"]
mod types;

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

/// Writing back shapes that keep many named variables is linear in them:
/// 40,000 named dims in one function, with 20,000 open results
/// (`close=false`) whose variables get fresh names that none of them uses.
/// (Indexing the names per written type made this quadratic: 80 s for
/// 8,000 names.)
#[test]
fn many_named_variables_write_back_in_linear_time() {
    const N: usize = 20_000;
    let ty = |i: usize| format!("!ocannl.tensor<f32, \"n{i}, m{i}\">");
    let args: Vec<String> = (0..N).map(|i| format!("%a{i}: {}", ty(i))).collect();
    let body: String = (0..N)
        .map(|i| {
            format!(
                "  %r{i} = \"ocannl.relu\"(%a{i}) : ({}) -> !ocannl.tensor<f32, \"...|...->...\">\n",
                ty(i)
            )
        })
        .collect();
    let input = format!("func.func @f({}) {{\n{body}  return\n}}\n", args.join(", "));
    let out = opt(
        &["-p", "builtin.module(ocannl-infer-shapes{close=false})"],
        &input,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = N - 1;
    assert!(
        stdout.contains(&format!(
            "(%arg{last}) : (!ocannl.tensor<f32, \"n{last},m{last}\">) -> !ocannl.tensor<f32, \"..r"
        )),
        "{}",
        &stdout[stdout.len().saturating_sub(2000)..]
    );
}

/// An error at an operand past #255 names it (origins kept operand and
/// spec-slot numbers in 8 bits and named every later one #255), and the
/// note points at its producer: a concatenation of 300 parts whose last
/// has another batch size.
#[test]
fn errors_name_operands_past_255() {
    const N: usize = 300;
    let ty = |i: usize| {
        let batch = if i == N - 1 { 3 } else { 2 };
        format!("!ocannl.tensor<f32, \"{batch}|4\">")
    };
    let body: String = (0..N)
        .map(|i| {
            format!(
                "  %q{i} = \"ocannl.relu\"(%a{i}) : ({t}) -> {t}\n",
                t = ty(i)
            )
        })
        .collect();
    let args: Vec<String> = (0..N).map(|i| format!("%a{i}: {}", ty(i))).collect();
    let parts: Vec<String> = (0..N).map(|i| format!("%q{i}")).collect();
    let types: Vec<String> = (0..N).map(ty).collect();
    let spec = format!(
        "{} => b|{}",
        (0..N)
            .map(|i| format!("b|a{i}"))
            .collect::<Vec<_>>()
            .join(";"),
        (0..N)
            .map(|i| format!("a{i}"))
            .collect::<Vec<_>>()
            .join("^")
    );
    let open = "!ocannl.tensor<f32, \"...|...->...\">";
    let input = format!(
        "func.func @f({}) {{\n{body}  %r = \"ocannl.concat\"({}) {{spec = \"{spec}\"}} : ({}) -> {open}\n  return\n}}\n",
        args.join(", "),
        parts.join(", "),
        types.join(", ")
    );
    let out = opt(&["-p", "builtin.module(ocannl-infer-shapes)"], &input);
    assert_user_error(&out, "of operand #299 vs batch axis 1 of spec slot #299");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("note: operand #299 is produced here"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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

/// The Python interpreter with NumPy (Debian's `python3-numpy`, installed by
/// `scripts/setup.sh`); `OCANNL_PYTHON` overrides it.
fn python() -> PathBuf {
    std::env::var_os("OCANNL_PYTHON")
        .map_or_else(|| PathBuf::from("/usr/bin/python3"), PathBuf::from)
}

fn run_python_check(script: &str, extra: &[&str]) {
    let bin_dir = Path::new(OCANNL_RUN).parent().expect("binary directory");
    let script = root().join("tools/tests/run").join(script);
    let out = Command::new(python())
        .arg(&script)
        .arg("--bin-dir")
        .arg(bin_dir)
        .args(extra)
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} with {}: {e}",
                script.display(),
                python().display()
            )
        });
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "{} failed:\n{stdout}\n{stderr}",
        script.display()
    );
}

/// Every op kind (pointwise with broadcast, matmul, fma, transpose, einsum
/// permute/reduce/outer/diagonal/fixed index, batch_slice, terminals, ...)
/// compiled and run on random shapes and values, against NumPy; then the
/// bad-input checks (wrong shape, missing entry, non-numeric dtype, ...).
#[test]
fn differential_against_numpy() {
    // Every core (ocannl-run's default: OpenMP), then one thread (no
    // OpenMP): the scheduled code must agree with NumPy both ways; then
    // the GPU target's nests.
    run_python_check("differential.py", &["--seed", "0", "--cases", "6"]);
    run_python_check(
        "differential.py",
        &[
            "--seed",
            "1",
            "--cases",
            "4",
            "--threads",
            "1",
            "--no-bad-inputs",
        ],
    );
    // The GPU lowering's grids (one thread per cell, reductions in
    // registers), run one thread after another on the CPU.
    run_python_check(
        "differential.py",
        &[
            "--seed",
            "2",
            "--cases",
            "3",
            "--target",
            "grid-on-cpu",
            "--no-bad-inputs",
        ],
    );
}

/// The MLP of `examples/mlp-run.mlir` (parameter shapes inferred) run by
/// ocannl-run on .npy inputs, against NumPy.
#[test]
fn mlp_against_numpy() {
    run_python_check("mlp_check.py", &["--seed", "0"]);
}

/// The small CNN of `examples/cnn-run.mlir` (conv → relu → max-pool →
/// dense, parameter shapes inferred) run on .npy inputs, against NumPy.
#[test]
fn cnn_against_numpy() {
    run_python_check("cnn_check.py", &["--seed", "0"]);
}

/// Each cell is computed by one thread, in the same order as with one
/// thread: the results of `--threads 1` and `--threads 3` (OpenMP) are the
/// same bytes, for contractions tiled past their register blocks, a
/// padded convolution and a fused chain.
#[test]
fn threads_give_identical_results() {
    let t = |s: &str| format!("!ocannl.tensor<f32, \"{s}\">");
    let open = t("...|...->...");
    let program = format!(
        r#"func.func @f(%w: {w}, %x: {x}, %img: {img}, %k: {k}) -> ({open}, {open}) {{
  %h = "ocannl.matmul"(%w, %x) : ({w}, {x}) -> {open}
  %r = "ocannl.relu"(%h) : ({open}) -> {open}
  %c = "ocannl.einsum"(%img, %k) {{spec = "oh=+kh,ow=+kw,ci; kh,kw,ci->co => oh,ow,co"}} : ({img}, {k}) -> {open}
  return %r, %c : {open}, {open}
}}"#,
        w = t("300->37"),
        x = t("203|300"),
        img = t("13,11,20"),
        k = t("3,3,20->7"),
    );
    let file = scratch("threads", "f.mlir", program);
    let outputs = |threads: &str| -> Vec<Vec<u8>> {
        let dir = file.parent().expect("scratch dir");
        let outs = [
            dir.join(format!("r{threads}.npy")),
            dir.join(format!("c{threads}.npy")),
        ];
        run_ok(&[
            file.to_str().expect("utf-8 path"),
            "--seed",
            "3",
            "--threads",
            threads,
            "--outputs",
            outs[0].to_str().expect("utf-8 path"),
            outs[1].to_str().expect("utf-8 path"),
        ]);
        outs.iter()
            .map(|p| std::fs::read(p).expect("written"))
            .collect()
    };
    assert_eq!(outputs("1"), outputs("3"));
}

fn run_tool(args: &[&str]) -> Output {
    Command::new(OCANNL_RUN)
        .args(args)
        .current_dir(root())
        .output()
        .expect("ocannl-run runs")
}

/// ocannl-run's stdout, after checking it succeeded.
fn run_ok(args: &[&str]) -> String {
    let out = run_tool(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A `.npy` file written byte by byte (format 1.0), independent of the
/// runtime's reader.
fn npy_bytes(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

/// ocannl-run's user errors (without NumPy): exit code 1, a message naming
/// the problem, no crash.
#[test]
fn run_bad_inputs_are_errors_with_exit_code_1() {
    let dir = std::env::temp_dir().join(format!("ocannl-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let module = dir.join("f.mlir");
    std::fs::write(
        &module,
        r#"func.func @f(%a: !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}"#,
    )
    .expect("write module");
    let f32s: Vec<u8> = (0..6).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let good = dir.join("good.npy");
    std::fs::write(&good, npy_bytes("<f4", "(2, 3)", &f32s)).expect("write");
    let wrong_shape = dir.join("wrong_shape.npy");
    std::fs::write(&wrong_shape, npy_bytes("<f4", "(3, 2)", &f32s)).expect("write");
    let text = dir.join("text.npy");
    std::fs::write(&text, npy_bytes("<U1", "(6,)", &[0u8; 24])).expect("write");
    let path = |p: &Path| p.display().to_string();
    let m = path(&module);

    let stdout = run_ok(&[&m, "--inputs", &path(&good)]);
    assert!(
        stdout.contains("cells [-0.000000, -1.000000, -2.000000, -3.000000, -4.000000, -5.000000]"),
        "{stdout}"
    );

    let cases: [(&[&str], &str); 9] = [
        (
            &["--inputs", &path(&wrong_shape)],
            "wrong_shape.npy' has shape [3, 2]",
        ),
        (
            &["--inputs", &path(&text)],
            "has dtype '<U1': expected a numeric dtype",
        ),
        (&["--entry", "nope"], "no function '@nope'"),
        (
            &["--inputs", &path(&good), &path(&good)],
            "takes 1 argument(s) but 2 input(s)",
        ),
        (
            &["--inputs", "/nonexistent.npy"],
            "cannot read '/nonexistent.npy'",
        ),
        (&["--device", "1"], "--device selects a CUDA device"),
        (&["--bench", "0"], "--bench needs at least 1 run"),
        (&["--threads", "0"], "--threads needs at least 1 thread"),
        (
            &["--threads", "100000"],
            "--threads takes at most 1024 threads",
        ),
    ];
    for (args, needle) in cases {
        let mut all = vec![m.as_str()];
        all.extend_from_slice(args);
        assert_user_error(&run_tool(&all), needle);
    }
    cuda_target(&m, &path(&good), &dir);
    // Multi-threaded code without the OpenMP runtime: a user error naming
    // what to install (one thread needs none).
    let no_omp = Command::new(OCANNL_RUN)
        .args([m.as_str(), "--threads", "2"])
        .env("OCANNL_LIBOMP", "/nonexistent/libomp.so")
        .current_dir(root())
        .output()
        .expect("ocannl-run runs");
    assert_user_error(&no_omp, "install libomp-22-dev");
    let one = Command::new(OCANNL_RUN)
        .args([m.as_str(), "--threads", "1"])
        .env("OCANNL_LIBOMP", "/nonexistent/libomp.so")
        .current_dir(root())
        .output()
        .expect("ocannl-run runs");
    assert!(one.status.success(), "{one:?}");
    // Open argument shapes take their sizes from the data.
    let open = dir.join("open.mlir");
    std::fs::write(
        &open,
        r#"func.func @f(%a: !ocannl.tensor<f32, "..b..|3">, %w: !ocannl.tensor<f32, "3->h">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.matmul"(%w, %a) : (!ocannl.tensor<f32, "3->h">, !ocannl.tensor<f32, "..b..|3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}"#,
    )
    .expect("write module");
    let o = path(&open);
    let stdout = run_ok(&[&o, "--inputs", &path(&good), &path(&good)]);
    // a = [[0, 1, 2], [3, 4, 5]] (batch 2), w = the same as "3->2":
    // row b of the result is w a_b.
    assert!(
        stdout.contains("result #0: float32[2, 2] (spec \"2|2\")"),
        "{stdout}"
    );
    assert!(
        stdout.contains("cells [5.000000, 14.000000, 14.000000, 50.000000]"),
        "{stdout}"
    );
    let short = dir.join("short.npy");
    std::fs::write(&short, npy_bytes("<f4", "(3,)", &f32s[..12])).expect("write");
    assert_user_error(
        &run_tool(&[&o, "--inputs", &path(&good), &path(&short)]),
        "short.npy' of shape [3] does not fit: the data has 1 axes but the shape has exactly 2",
    );

    // An entry in a nested module: located at that function.
    let nested = scratch(
        "run-bad-inputs",
        "nested.mlir",
        "module @outer {\n  func.func @inner() {\n    return\n  }\n}\nfunc.func @top() {\n  return\n}\n",
    );
    assert_user_error(
        &run_tool(&[&path(&nested), "--entry", "inner"]),
        "nested.mlir:2:3: error: '@inner' is in a nested module: ocannl-run runs a function of the top-level module (its functions: @top)",
    );

    // A declaration as the entry: located at it.
    let declaration = scratch(
        "run-bad-inputs",
        "declaration.mlir",
        "func.func private @ext(!ocannl.tensor<f32, \"3\">) -> !ocannl.tensor<f32, \"3\">\n",
    );
    assert_user_error(
        &run_tool(&[&path(&declaration)]),
        "declaration.mlir:1:1: error: '@ext' is a declaration: ocannl-run runs a function with a body",
    );

    // A call to a declaration: the JIT could not resolve it.
    let external = scratch(
        "run-bad-inputs",
        "external.mlir",
        "func.func private @ext() -> !ocannl.tensor<f32, \"3\">\nfunc.func @f() -> !ocannl.tensor<f32, \"3\"> {\n  %0 = func.call @ext() : () -> !ocannl.tensor<f32, \"3\">\n  return %0 : !ocannl.tensor<f32, \"3\">\n}\n",
    );
    assert_user_error(
        &run_tool(&[&path(&external), "--entry", "f"]),
        "external.mlir:1:1: error: '@ext' is called but has no body: ocannl-run links no external functions",
    );

    let missing = run_tool(&["/nonexistent/input.mlir"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("cannot read '/nonexistent/input.mlir'")
    );
    let bad_flag = run_tool(&[&m, "--no-such-flag"]);
    assert_eq!(bad_flag.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).ok();
}

/// Writes `text` to a fresh file in a per-test temporary directory.
fn scratch(test: &str, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ocannl-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write scratch file");
    path
}

/// Runs `tool` with its standard output closed (the read end of a pipe
/// dropped before it writes) or on a full device: a one-line error and exit
/// code 1, never a panic or a signal.
fn assert_output_errors_are_user_errors(tool: &str, args: &[&str]) {
    use std::process::Stdio;
    let mut child = Command::new(tool)
        .args(args)
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tool runs");
    drop(child.stdout.take());
    let closed = child.wait_with_output().expect("the tool finishes");
    assert_user_error(&closed, "cannot write");
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full exists");
    let out = Command::new(tool)
        .args(args)
        .current_dir(root())
        .stdout(full)
        .output()
        .expect("the tool runs");
    assert_user_error(&out, "cannot write");
    // Descriptor 1 not open at all (`tool >&-`): Rust's runtime and
    // `InitLLVM` would reopen it on /dev/null and the output would vanish.
    let script = r#"exec "$0" "$@" >&-"#;
    let out = Command::new("sh")
        .args(["-c", script, tool])
        .args(args)
        .current_dir(root())
        .output()
        .expect("sh runs the tool");
    assert_user_error(&out, "standard output is closed");
    // With -o, standard output is not needed.
    if tool == OCANNL_OPT {
        let file = scratch("closed-stdout", "out.mlir", "");
        let out = Command::new("sh")
            .args(["-c", script, tool])
            .args(args)
            .args(["-o", &file.display().to_string()])
            .current_dir(root())
            .output()
            .expect("sh runs the tool");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let text = std::fs::read_to_string(&file).expect("the output file");
        assert!(text.contains("llvm.func"), "{text}");
    }
}

/// Closed and full standard output (`| head -1`, `> /dev/full`).
#[test]
fn closed_or_full_stdout_is_a_user_error() {
    assert_output_errors_are_user_errors(OCANNL_RUN, &["examples/mlp-run.mlir", "--seed", "1"]);
    assert_output_errors_are_user_errors(
        OCANNL_OPT,
        &[
            "examples/mlp-run.mlir",
            "-p",
            "builtin.module(ocannl-to-llvm)",
        ],
    );
    assert_output_errors_are_user_errors(
        OCANNL_IMPORT_ONNX,
        &["lit-tests/Import/Inputs/rosette.onnx"],
    );
}

/// ocannl-run renames every function before the JIT links against the
/// process: a function named like a libm or C library function runs as
/// itself (`expf` here, which the generated code also calls for `exp`).
#[test]
fn functions_named_like_libc_symbols_run() {
    for name in ["expf", "memset", "exp"] {
        let module = scratch(
            "libc-names",
            &format!("{name}.mlir"),
            format!(
                r#"func.func @{name}(%a: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2"> {{
  %0 = "ocannl.exp"(%a) : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  %1 = "ocannl.constant"() {{value = 0.0 : f32}} : () -> !ocannl.tensor<f32, "2">
  %2 = "ocannl.add"(%0, %1) : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return %2 : !ocannl.tensor<f32, "2">
}}"#
            ),
        );
        let data: Vec<u8> = [0.0f32, 1.0].iter().flat_map(|x| x.to_le_bytes()).collect();
        let input = scratch("libc-names", "x.npy", npy_bytes("<f4", "(2,)", &data));
        let stdout = run_ok(&[
            &module.display().to_string(),
            "--inputs",
            &input.display().to_string(),
        ]);
        assert!(
            stdout.contains("cells [1.000000, 2.718282]"),
            "@{name}: {stdout}"
        );
    }
}

/// Buffers the machine cannot hold (a 1 TB argument drawn at random, a
/// 4 TB intermediate) are refused before anything is allocated.
#[test]
fn buffers_larger_than_memory_are_user_errors() {
    let weight = scratch(
        "huge",
        "weight.mlir",
        r#"func.func @f(%w: !ocannl.tensor<f32, "250000000000">) -> !ocannl.tensor<f32, ""> {
  %0 = "ocannl.einsum"(%w) {spec = "i => "} : (!ocannl.tensor<f32, "250000000000">) -> !ocannl.tensor<f32, "">
  return %0 : !ocannl.tensor<f32, "">
}"#,
    );
    assert_user_error(
        &run_tool(&[&weight.display().to_string(), "--seed", "1"]),
        "of memory are available",
    );
    let intermediate = scratch(
        "huge",
        "intermediate.mlir",
        r#"func.func @f(%a: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2"> {
  %big = "ocannl.range"() {spec = "1000000,1000000"} : () -> !ocannl.tensor<f32, "1000000,1000000">
  %s = "ocannl.einsum"(%big) {spec = "i,j => "} : (!ocannl.tensor<f32, "1000000,1000000">) -> !ocannl.tensor<f32, "">
  %r = "ocannl.add"(%a, %s) : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "">) -> !ocannl.tensor<f32, "2">
  return %r : !ocannl.tensor<f32, "2">
}"#,
    );
    assert_user_error(
        &run_tool(&[&intermediate.display().to_string(), "--seed", "1"]),
        "results and intermediates of '@f' need 3.6 TiB",
    );
    // The machine has the memory but the process may not use it (an
    // address-space limit): the compiled code's allocation would fail.
    let limited = scratch(
        "huge",
        "limited.mlir",
        r#"func.func @f(%a: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2"> {
  %big = "ocannl.range"() {spec = "2147483647"} : () -> !ocannl.tensor<f32, "2147483647">
  %s = "ocannl.einsum"(%big) {spec = "i => "} : (!ocannl.tensor<f32, "2147483647">) -> !ocannl.tensor<f32, "">
  %r = "ocannl.add"(%a, %s) : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "">) -> !ocannl.tensor<f32, "2">
  return %r : !ocannl.tensor<f32, "2">
}"#,
    );
    let out = Command::new("prlimit")
        .arg(format!("--as={}", 4u64 << 30))
        .arg(OCANNL_RUN)
        .args([&limited.display().to_string(), "--seed", "1"])
        .output()
        .expect("prlimit (util-linux) runs");
    assert_user_error(
        &out,
        "cannot allocate 8.0 GiB for the intermediates of '@f'",
    );
}

/// `.npy` headers are checked before they are trusted: a shape whose cell
/// count overflows, data shorter than the header promises.
#[test]
fn malformed_npy_headers_are_user_errors() {
    let module = scratch(
        "npy",
        "f.mlir",
        r#"func.func @f(%a: !ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "..."> {
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "...">
  return %0 : !ocannl.tensor<f32, "...">
}"#,
    );
    let m = module.display().to_string();
    let overflow = scratch(
        "npy",
        "overflow.npy",
        npy_bytes("<f4", "(4294967296, 4294967296, 2)", &[0u8; 8]),
    );
    assert_user_error(
        &run_tool(&[&m, "--inputs", &overflow.display().to_string()]),
        "whose number of cells does not fit 64 bits",
    );
    let truncated = scratch(
        "npy",
        "truncated.npy",
        npy_bytes("<f4", "(1000000,)", &[0u8; 8]),
    );
    assert_user_error(
        &run_tool(&[&m, "--inputs", &truncated.display().to_string()]),
        "is truncated: its header promises 1000000 cells (4000000 bytes of data) but the file holds 8 bytes of data",
    );
}

/// Element types LLVM cannot generate code for are errors, not an abort in
/// instruction selection; integer division by zero is 0, not SIGFPE.
#[test]
fn codegen_hazards_are_errors_or_defined() {
    let f80 = scratch(
        "codegen",
        "f80.mlir",
        // Read (a cast to f32): ocannl-run erases unread ops before the
        // lowering (ocannl-erase-dead-ops).
        r#"func.func @f() -> !ocannl.tensor<f32, "2"> {
  %0 = "ocannl.range"() {spec = "2"} : () -> !ocannl.tensor<f80, "2">
  %1 = "ocannl.cast"(%0) : (!ocannl.tensor<f80, "2">) -> !ocannl.tensor<f32, "2">
  return %1 : !ocannl.tensor<f32, "2">
}"#,
    );
    assert_user_error(
        &run_tool(&[&f80.display().to_string()]),
        "element type f80 is not supported by the lowering",
    );
    let div = scratch(
        "codegen",
        "div.mlir",
        r#"func.func @f(%a: !ocannl.tensor<i32, "3">, %b: !ocannl.tensor<i32, "3">) -> !ocannl.tensor<i32, "3"> {
  %0 = "ocannl.div"(%a, %b) : (!ocannl.tensor<i32, "3">, !ocannl.tensor<i32, "3">) -> !ocannl.tensor<i32, "3">
  return %0 : !ocannl.tensor<i32, "3">
}"#,
    );
    let a: Vec<u8> = [7i32, i32::MIN, -9]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let b: Vec<u8> = [0i32, -1, 2].iter().flat_map(|x| x.to_le_bytes()).collect();
    let (a, b) = (
        scratch("codegen", "a.npy", npy_bytes("<i4", "(3,)", &a)),
        scratch("codegen", "b.npy", npy_bytes("<i4", "(3,)", &b)),
    );
    let stdout = run_ok(&[
        &div.display().to_string(),
        "--inputs",
        &a.display().to_string(),
        &b.display().to_string(),
    ]);
    assert!(
        stdout.contains("cells [0.000000, -2147483648.000000, -4.000000]"),
        "{stdout}"
    );
    // bf16 arithmetic needs no compiler-rt routine (`__truncsfbf2` is in
    // neither the JIT nor Debian 12's libgcc): a module holding it loads.
    let bf16 = scratch(
        "codegen",
        "bf16.mlir",
        r#"func.func @g(%a: !ocannl.tensor<bf16, "3">) -> !ocannl.tensor<bf16, "3"> {
  %0 = "ocannl.add"(%a, %a) : (!ocannl.tensor<bf16, "3">, !ocannl.tensor<bf16, "3">) -> !ocannl.tensor<bf16, "3">
  %1 = "ocannl.exp"(%0) : (!ocannl.tensor<bf16, "3">) -> !ocannl.tensor<bf16, "3">
  return %1 : !ocannl.tensor<bf16, "3">
}
func.func @f() -> !ocannl.tensor<f32, "3"> {
  %0 = "ocannl.range"() {spec = "3"} : () -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}"#,
    );
    let stdout = run_ok(&[&bf16.display().to_string(), "--entry", "f"]);
    assert!(
        stdout.contains("cells [0.000000, 1.000000, 2.000000]"),
        "{stdout}"
    );
}

/// The CUDA target: the kernels as PTX (no GPU needed), and a run that
/// either works (a GPU) or says why not (no driver, no device: exit 1).
fn cuda_target(module: &str, input: &str, dir: &Path) {
    let ptx = dir.join("k.ptx");
    let ptx_s = ptx.display().to_string();
    let stdout = run_ok(&[module, "--emit", "ptx", "-o", &ptx_s, "--chip", "sm_90"]);
    assert!(stdout.contains("wrote"), "{stdout}");
    let text = std::fs::read_to_string(&ptx).expect("the PTX was written");
    assert!(
        text.contains(".target sm_90") && text.contains(".visible .entry f_kernel("),
        "{text}"
    );
    assert_user_error(
        &run_tool(&[module, "--emit", "ptx", "-o", &ptx_s, "--chip", "sm 90"]),
        "unknown chip 'sm 90'",
    );
    // Several kernels (the MLP, with views of its arena) go into one
    // module, one file.
    let kernels = dir.join("mlp-kernels.ptx");
    let kernels_s = kernels.display().to_string();
    let mlp = root().join("examples/mlp-run.mlir").display().to_string();
    let stdout = run_ok(&[&mlp, "--emit", "ptx", "-o", &kernels_s]);
    let text = std::fs::read_to_string(&kernels).expect("one PTX file");
    assert!(text.matches(".visible .entry").count() >= 3, "{stdout}");
    let run = run_tool(&[module, "--target", "cuda", "--inputs", input]);
    if run.status.success() {
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            stdout.contains(
                "cells [-0.000000, -1.000000, -2.000000, -3.000000, -4.000000, -5.000000]"
            ),
            "{stdout}"
        );
    } else {
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(
            stderr.contains("no CUDA driver") || stderr.contains("no CUDA device"),
            "{stderr}"
        );
        assert_user_error(&run, "CUDA");
        eprintln!("cli: --target cuda skipped its run: {}", stderr.trim());
    }
}
