//! `ocannl-run --profile`: one line per op with a nest of its own, shares
//! that sum to 100%, the sum against the end-to-end time; and the flags it
//! cannot go with.

use super::{OCANNL_RUN, assert_user_error, root, run_ok, scratch};

/// The table's op lines (`rank time unit share% calls op...`) and its sum
/// line, from `ocannl-run --profile`'s output.
fn table(stdout: &str) -> (Vec<(f64, String)>, String) {
    let mut lines = stdout.lines().skip_while(|l| !l.starts_with("profile: "));
    assert!(lines.next().is_some(), "no profile in: {stdout}");
    let header = lines.next().expect("a header");
    assert!(header.contains("time/run") && header.contains("share"));
    let mut ops = Vec::new();
    for line in lines.by_ref() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() == Some(&"sum") {
            return (ops, line.to_owned());
        }
        assert!(words[0].parse::<usize>().is_ok(), "not a rank: {line}");
        assert!(matches!(words[2], "ms" | "us"), "no unit: {line}");
        let share: f64 = words[3]
            .strip_suffix('%')
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no share: {line}"));
        ops.push((share, words[5..].join(" ")));
    }
    panic!("no sum line in: {stdout}");
}

/// Shares that add up to 100% (each rounded to 0.1%).
fn assert_shares_sum_to_100(ops: &[(f64, String)]) {
    let total: f64 = ops.iter().map(|o| o.0).sum();
    let slack = 0.05 * ops.len() as f64 + 0.01;
    assert!((total - 100.0).abs() <= slack, "shares sum to {total}");
}

/// The CNN example: its four nests (the convolution with the relu fused
/// into it, the pooling window's fill, the pooling, the dense layer) and
/// their shares.
#[test]
fn profile_lists_each_op_nest() {
    let stdout = run_ok(&[
        "examples/cnn-run.mlir",
        "--profile",
        "--bench",
        "3",
        "--threads",
        "1",
    ]);
    assert!(stdout.contains("profile: 3 runs of '@cnn'"), "{stdout}");
    assert!(!stdout.contains("bench:"), "{stdout}");
    let (ops, sum) = table(&stdout);
    let names: Vec<&str> = ops.iter().map(|o| o.1.as_str()).collect();
    assert_eq!(ops.len(), 4, "{stdout}");
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("ocannl.einsum + ocannl.relu ")),
        "{stdout}"
    );
    assert!(
        names.iter().any(|n| n.starts_with("ocannl.fma ")),
        "{stdout}"
    );
    assert!(
        names.iter().all(|n| n.contains("examples/cnn-run.mlir:")),
        "{stdout}"
    );
    assert_shares_sum_to_100(&ops);
    assert!(sum.contains("4 op nests, of ") && sum.contains("end to end"));
}

/// More than 64 nests in one function: `ocannl-outline-nests` moves them
/// into helpers, the timer's calls with them; and a call between the ops
/// stays outside their lines (the callee's op has its own).
#[test]
fn profile_of_outlined_nests_and_calls() {
    let n = 70;
    let t = r#"!ocannl.tensor<f32, "4,8">"#;
    let mut body = format!(
        "func.func private @g(%a: {t}) -> {t} {{\n  %r = \"ocannl.neg\"(%a) : ({t}) -> {t}\n  return %r : {t}\n}}\n"
    );
    body += &format!("func.func @f(%x: {t}) -> {t} {{\n  %v0 = func.call @g(%x) : ({t}) -> {t}\n");
    for k in 1..=n {
        let p = k - 1;
        body += &format!("  %v{k} = \"ocannl.add\"(%v{p}, %v{p}) : ({t}, {t}) -> {t}\n");
    }
    body += &format!("  return %v{n} : {t}\n}}\n");
    let module = scratch("profile_outlined", "many.mlir", body);
    let stdout = run_ok(&[
        module.to_str().expect("utf-8"),
        "--entry",
        "f",
        "--profile",
        "--threads",
        "1",
    ]);
    assert!(stdout.contains("profile: 10 runs of '@f'"), "{stdout}");
    let (ops, sum) = table(&stdout);
    assert_eq!(ops.len(), n + 1, "{stdout}");
    let adds = ops
        .iter()
        .filter(|o| o.1.starts_with("ocannl.add "))
        .count();
    assert_eq!(adds, n, "{stdout}");
    assert!(ops.iter().any(|o| o.1.starts_with("ocannl.neg ")));
    assert_shares_sum_to_100(&ops);
    assert!(sum.contains(&format!("{} op nests", n + 1)), "{sum}");
}

/// `--profile` times a run on the CPU: with `--emit` or another target it
/// is a user error, before anything is compiled.
#[test]
fn profile_without_a_cpu_run_is_a_user_error() {
    let out_file = std::env::temp_dir().join(format!("ocannl-profile-{}.ll", std::process::id()));
    let out_path = out_file.to_str().expect("utf-8");
    for (args, needle) in [
        (
            vec!["--profile", "--emit", "llvm", "-o", out_path],
            "--profile is for a run, and --emit writes code instead of running",
        ),
        (
            vec!["--profile", "--target", "grid-on-cpu"],
            "--profile times the loop nests of a run on the CPU",
        ),
    ] {
        let out = std::process::Command::new(OCANNL_RUN)
            .arg("examples/cnn-run.mlir")
            .args(&args)
            .current_dir(root())
            .output()
            .expect("ocannl-run runs");
        assert_user_error(&out, needle);
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out_file.exists(), "{args:?} wrote {out_path}");
    }
}
