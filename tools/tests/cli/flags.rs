//! Hostile flags and inputs of the tools' command lines: one `error:` line
//! and exit code 1, never a panic, an abort, a signal, `LLVM ERROR` or a
//! silent exit 0; and every check of the flags before any work.

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    time::{Duration, Instant},
};

use super::{OCANNL_IMPORT_ONNX, OCANNL_OPT, OCANNL_RUN, assert_user_error, root, scratch};

/// The example every run test uses (one function, `@mlp`, random inputs).
const MLP: &str = "examples/mlp-run.mlir";

/// A small function on a 2x3 argument, and a matching `.npy` file.
fn neg_module(test: &str) -> (PathBuf, PathBuf) {
    let module = scratch(
        test,
        "neg.mlir",
        r#"func.func @f(%a: !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}
"#,
    );
    let data: Vec<u8> = (1..=6u8).flat_map(|i| f32::from(i).to_le_bytes()).collect();
    let npy = scratch(test, "a.npy", super::npy_bytes("<f4", "(2, 3)", &data));
    (module, npy)
}

/// Runs `tool` with `args` (in the workspace root, with `envs`), killing it
/// after `limit`: a tool that blocks (on a pipe no one writes) fails the
/// test instead of hanging it.
fn run_within(tool: &str, args: &[&str], envs: &[(&str, &str)], limit: Duration) -> Output {
    let mut child = Command::new(tool)
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tool runs");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > limit {
            child.kill().ok();
            let out = child.wait_with_output().expect("killed");
            panic!(
                "{tool} {args:?} still ran after {limit:?}; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().expect("the tool finishes")
}

/// `ocannl-run` with `args`, within 60 s.
fn run(args: &[&str]) -> Output {
    run_within(OCANNL_RUN, args, &[], Duration::from_secs(60))
}

/// A FIFO in a fresh scratch folder (no writer: opening it to read blocks).
fn fifo(test: &str, name: &str) -> PathBuf {
    let path = scratch(test, name, "");
    std::fs::remove_file(&path).expect("remove the placeholder");
    let status = Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    path
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// Every flag of `ocannl-run` is checked before any file is read or
/// anything compiled: the program here is a FIFO no one writes, so a check
/// made after reading it would never come (the test kills it after 20 s).
#[test]
fn run_flags_are_checked_before_any_work() {
    let test = "flags-before-work";
    let program = s(&fifo(test, "program.mlir"));
    let (_, npy) = neg_module(test);
    let npy = s(&npy);
    let dir = std::env::temp_dir().display().to_string();
    let missing_dir = format!("{dir}/ocannl-no-such-folder-{}/out.npy", std::process::id());
    let p = program.as_str();
    let cases: &[(&[&str], &str)] = &[
        (&[p, "--bench", "0"], "--bench needs at least 1 run"),
        (&[p, "--bench", "1000001"], "--bench takes at most"),
        (&[p, "--threads", "0"], "--threads needs at least 1"),
        (&[p, "--threads", "1025"], "--threads takes at most 1024"),
        (&[p, "--outputs", &dir], "it is a directory"),
        (&[p, "--outputs", &missing_dir], "No such file or directory"),
        (&[p, "--outputs", "y.npy", "y.npy"], "twice"),
        (&[p, "-o", "x.ll"], "give --emit too"),
        (&[p, "--emit", "llvm", "-o", &dir], "it is a directory"),
        (&[p, "--emit", "obj", "-o", &missing_dir], "cannot write"),
        (&[p, "--inputs", "no-such-input.npy"], "no-such-input.npy"),
        (&[p, "--inputs", &dir], "it is a directory"),
        (&[p, "--inputs", &npy, "--seed", "3"], "--seed"),
        (
            &[p, "--emit", "llvm", "-o", "x.ll", "--bench", "3"],
            "--bench",
        ),
        (
            &[p, "--emit", "llvm", "-o", "x.ll", "--seed", "3"],
            "--seed",
        ),
        (
            &[p, "--emit", "asm", "-o", "x.s", "--outputs", "y.npy"],
            "--outputs",
        ),
        (&[p, "--device", "0"], "--target cuda"),
        (&[p, "--chip", "sm_90"], "--chip"),
        (&[p, "--cuda-toolkit", &dir], "--cuda-toolkit"),
        (&[p, "--entry", ""], "--entry"),
        (
            &[p, "--target", "grid-on-cpu", "--threads", "2"],
            "--threads",
        ),
        (
            &[p, "--emit", "ptx", "-o", "x.ptx", "--threads", "2"],
            "--threads",
        ),
        (&[p, "--seed", "-1"], "error:"),
        (&[p, "--bench", "99999999999999999999"], "error:"),
    ];
    for (args, needle) in cases {
        let out = run_within(OCANNL_RUN, args, &[], Duration::from_secs(20));
        assert_user_error(&out, needle);
        assert!(out.stdout.is_empty(), "{args:?}: {out:?}");
    }
    assert!(!Path::new(&missing_dir).exists());
}

/// `--outputs` files that can be written are not left behind when the
/// check made them and the run then fails.
#[test]
fn run_output_checks_leave_no_files() {
    let test = "output-checks";
    let out_file = scratch(test, "placeholder", "");
    let out_file = out_file.with_file_name("y.npy");
    std::fs::remove_file(&out_file).ok();
    let o = run(&[MLP, "--entry", "nope", "--outputs", &s(&out_file)]);
    assert_user_error(&o, "nope");
    assert!(!out_file.exists(), "the check left {}", out_file.display());
}

/// A program or an input that never ends (`/dev/zero`, standard input fed
/// from it, an endless pipe) is read up to a bound (1 MiB from a device,
/// 1 GiB from a pipe) and refused, instead of filling the memory (`LLVM
/// ERROR: out of memory`); a regular file past a quarter of the memory is refused from its
/// size, and so are LLVM's `@` response files and `--irdl-file`.
#[test]
fn endless_or_huge_inputs_are_bounded() {
    let o = run(&["/dev/zero"]);
    assert_user_error(&o, "'/dev/zero'");
    assert_user_error(&o, "gives more than 1 MiB");
    let o = run(&[MLP, "--inputs", "/dev/zero"]);
    assert_user_error(&o, "--inputs: cannot read '/dev/zero'");
    let o = run_within(OCANNL_OPT, &["/dev/zero"], &[], Duration::from_secs(60));
    assert_user_error(&o, "cannot read '/dev/zero'");
    // Standard input from /dev/zero (`ocannl-opt < /dev/zero`).
    let o = Command::new(OCANNL_OPT)
        .stdin(std::fs::File::open("/dev/zero").expect("/dev/zero"))
        .output()
        .expect("ocannl-opt runs");
    assert_user_error(&o, "cannot read standard input");
    // An endless pipe (`yes | ocannl-run /dev/stdin`): read up to 1 GiB.
    let mut child = Command::new(OCANNL_RUN)
        .arg("/dev/stdin")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ocannl-run runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'\n'; 1 << 20];
        while stdin.write_all(&chunk).is_ok() {}
    });
    let o = child.wait_with_output().expect("finishes");
    writer.join().expect("writer");
    assert_user_error(&o, "cannot read '/dev/stdin': it is not a regular file");
    let huge = scratch("huge-input", "huge.mlir", "");
    std::fs::File::options()
        .write(true)
        .open(&huge)
        .and_then(|f| f.set_len(1 << 40))
        .expect("a sparse file of 1 TiB");
    // A regular file may hold a quarter of the available memory (at least
    // 1 GiB: an imported VGG-19 is 1.15 GB), not 1 TiB.
    let o = run(&[&s(&huge), "--seed", "1"]);
    assert_user_error(&o, "an input may have");
    let o = run_within(OCANNL_OPT, &[&s(&huge)], &[], Duration::from_secs(60));
    assert_user_error(&o, "an input may have");
    // ocannl-opt's other inputs: an IRDL file, a response file.
    let irdl = format!("--irdl-file={}", s(&huge));
    let response = format!("@{}", s(&huge));
    for args in [
        vec!["-p", "builtin.module(ocannl-verify)", &irdl, MLP],
        vec!["--irdl-file", &s(&huge), MLP],
        vec![&response],
    ] {
        let o = run_within(OCANNL_OPT, &args, &[], Duration::from_secs(60));
        assert_user_error(&o, "an input may have");
    }
    std::fs::remove_file(&huge).ok();
}

/// Programs and data from pipes and FIFOs still work through the bounded
/// copy, and messages name the path the user gave.
#[test]
fn piped_programs_and_inputs_run() {
    let test = "piped";
    let (module, npy) = neg_module(test);
    // The program on standard input, named /dev/stdin.
    let mut child = Command::new(OCANNL_RUN)
        .args(["/dev/stdin", "--inputs", &s(&npy)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ocannl-run runs");
    let text = std::fs::read(&module).expect("module");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&text)
        .expect("write");
    let out = child.wait_with_output().expect("finishes");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout.contains("-6.000000"), "{stdout}");
    // The data from a FIFO: a truncated file is refused naming the FIFO.
    let pipe = fifo(test, "data.npy");
    let writer = {
        let pipe = pipe.clone();
        let bytes = std::fs::read(&npy).expect("npy");
        std::thread::spawn(move || {
            let mut f = std::fs::File::options()
                .write(true)
                .open(&pipe)
                .expect("open the FIFO");
            f.write_all(&bytes[..100]).ok();
        })
    };
    let out = run(&[&s(&module), "--inputs", &s(&pipe)]);
    writer.join().expect("writer");
    assert_user_error(&out, &format!("'{}'", pipe.display()));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("/proc/self/fd"));
}

/// `--help` and `--version` to a full or closed standard output: an error
/// and exit code 1 (LLVM's `--help` exited 0, or reported `LLVM ERROR` at
/// exit); to a working one, exit code 0 and the text.
#[test]
fn help_and_version_to_a_full_or_closed_stdout_fail() {
    for tool in [OCANNL_RUN, OCANNL_IMPORT_ONNX, OCANNL_OPT] {
        for flag in ["--help", "--version"] {
            let full = std::fs::File::options()
                .write(true)
                .open("/dev/full")
                .expect("/dev/full");
            let out = Command::new(tool)
                .arg(flag)
                .stdout(full)
                .output()
                .expect("the tool runs");
            assert_user_error(&out, "cannot write");
            let out = Command::new("sh")
                .args(["-c", r#"exec "$0" "$1" >&-"#, tool, flag])
                .output()
                .expect("sh runs the tool");
            assert_user_error(&out, "standard output is closed");
            let out = Command::new(tool).arg(flag).output().expect("runs");
            assert_eq!(out.status.code(), Some(0), "{tool} {flag}: {out:?}");
            assert!(!out.stdout.is_empty());
        }
    }
    // LLVM's alias of --help.
    let out = Command::new(OCANNL_OPT)
        .arg("-h")
        .stdout(
            std::fs::File::options()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
        .output()
        .expect("runs");
    assert_user_error(&out, "cannot write");
}

/// Usage errors of every tool exit with 1 (clap's own code is 2), and an
/// argument that is not UTF-8 is an error rather than a panic.
#[test]
fn usage_errors_exit_1() {
    let out = Command::new(OCANNL_IMPORT_ONNX)
        .arg("--no-such-flag")
        .output()
        .expect("runs");
    assert_user_error(&out, "--no-such-flag");
    use std::os::unix::ffi::OsStrExt;
    let bad = std::ffi::OsStr::from_bytes(b"\xff.mlir");
    let out = Command::new(OCANNL_OPT).arg(bad).output().expect("runs");
    assert_user_error(&out, "not valid UTF-8");
    let out = Command::new(OCANNL_RUN).arg(bad).output().expect("runs");
    assert_user_error(&out, "error:");
}

/// Thread counts against a limited address space (`ulimit -v`): libomp
/// aborted (`OMP: Error #34`, SIGABRT) when 1024 threads' 8 MiB stacks did
/// not fit in 8 GiB; now that is refused before compiling, naming the most
/// that fit, and a count that fits (with a smaller `OMP_STACKSIZE`) runs.
/// A stack larger than the machine's memory is refused with no limit.
#[test]
fn threads_beyond_the_address_space_are_refused() {
    // libomp's stacks follow `ulimit -s` (set to the usual 8 MiB here).
    let under_8_gib = |threads: &str, stack: Option<&str>| {
        let script = format!(
            r#"ulimit -s 8192 && ulimit -v {} && exec "$0" {MLP} --seed 1 --threads {threads}"#,
            8u64 << 20
        );
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &script, OCANNL_RUN])
            .current_dir(root())
            .env_remove("OMP_STACKSIZE")
            .env_remove("KMP_STACKSIZE")
            .env_remove("GOMP_STACKSIZE");
        if let Some(stack) = stack {
            cmd.env("OMP_STACKSIZE", stack);
        }
        cmd.output().expect("sh runs ocannl-run")
    };
    let out = under_8_gib("1024", None);
    assert_user_error(&out, "--threads 1024");
    assert_user_error(&out, "leaves room for");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("OMP: Error"));
    // Smaller stacks: 1024 threads fit in 8 GiB and run.
    let out = under_8_gib("1024", Some("1M"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run_within(
        OCANNL_RUN,
        &[MLP, "--seed", "1", "--threads", "2"],
        &[("OMP_STACKSIZE", "2T")],
        Duration::from_secs(60),
    );
    assert_user_error(&out, "more than the machine's memory");
}

/// The process's own standard output on a pipe, given as an input
/// (`ocannl-run /dev/stdout | cat`), is refused: reading it waited for ever
/// on what the process itself had to write.
#[test]
fn own_output_is_not_an_input() {
    let o = run(&["/dev/stdout"]);
    assert_user_error(&o, "it is this process's standard output");
    let o = run(&[MLP, "--inputs", "/dev/fd/1"]);
    assert_user_error(&o, "--inputs: cannot read '/dev/fd/1'");
    let o = run_within(OCANNL_OPT, &["/dev/stderr"], &[], Duration::from_secs(20));
    assert_user_error(&o, "it is this process's standard error");
}
