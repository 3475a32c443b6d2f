//! The GPU target's flags and output on any machine (issue 42): chips and
//! PTX versions checked against what LLVM knows, the same answer on every
//! run, a toolkit without libdevice refused, and `--emit ptx -o FILE` one
//! module holding every kernel.

use std::process::{Command, Output};

use super::{OCANNL_OPT, OCANNL_RUN, assert_user_error, root, scratch};

/// The MLP example: four kernels on the GPU.
const MLP: &str = "examples/mlp-run.mlir";

fn run(tool: &str, args: &[&str]) -> Output {
    Command::new(tool)
        .args(args)
        .current_dir(root())
        .output()
        .expect("the tool runs")
}

/// Chips LLVM does not know, PTX versions too old for the chip or unknown,
/// and a toolkit without libdevice: exit 1 with the reason, the same on
/// every run (LLVM used to abort, or to warn and go on with another
/// target, depending on the run).
#[test]
fn gpu_targets_are_checked() {
    let out = scratch("gpu-targets", "placeholder", "");
    let ptx = out.with_file_name("k.ptx");
    let ptx = ptx.to_str().expect("a UTF-8 path");
    let no_libdevice = root().join("examples");
    let no_libdevice = no_libdevice.to_str().expect("a UTF-8 path");
    let emit = |extra: &[&'static str]| {
        let mut args = vec![MLP, "--emit", "ptx", "-o", ptx];
        args.extend_from_slice(extra);
        args
    };
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            emit(&["--chip", "compute_80"]),
            "--chip: unknown chip 'compute_80'",
        ),
        (emit(&["--chip", "foo"]), "--chip: unknown chip 'foo'"),
        (emit(&["--chip", "ñ"]), r"--chip: unknown chip '\xC3\xB1'"),
        (
            emit(&["--chip", "sm_80\n"]),
            r"--chip: unknown chip 'sm_80\n'",
        ),
        (
            emit(&["--chip", "sm_100", "--ptx-version", "8.0"]),
            "PTX 8.0 does not support chip 'sm_100': it needs PTX 8.6 or later",
        ),
        (
            emit(&["--ptx-version", "9.9"]),
            "'+ptx99' is not a PTX version LLVM knows",
        ),
        (emit(&["--ptx-version", "8"]), "give MAJOR.MINOR"),
        (
            vec![MLP, "--ptx-version", "8.0"],
            "--ptx-version is for the GPU's kernels",
        ),
        (
            emit(&["--cuda-toolkit", "/nonexistent"]),
            "'/nonexistent' is not a directory",
        ),
        (
            [&emit(&[])[..], &["--cuda-toolkit", no_libdevice][..]].concat(),
            "has no nvvm/libdevice/libdevice.10.bc",
        ),
    ];
    for (args, needle) in &cases {
        for _ in 0..3 {
            let o = run(OCANNL_RUN, args);
            assert_user_error(&o, needle);
        }
    }
    for (options, needle) in [
        (
            "chip=sm_90 features=+ptx70",
            "PTX 7.0 does not support chip 'sm_90'",
        ),
        (
            "chip=sm_100 features=+ptx80",
            "PTX 8.0 does not support chip 'sm_100'",
        ),
        ("chip=compute_80", "unknown chip 'compute_80'"),
        ("features=ptx80", "'ptx80' is not a PTX version"),
        (
            "toolkit=/nonexistent",
            "has no nvvm/libdevice/libdevice.10.bc",
        ),
    ] {
        let pipeline = format!("builtin.module(ocannl-to-nvvm{{{options}}})");
        let o = run(OCANNL_OPT, &[MLP, "-p", &pipeline]);
        assert_user_error(&o, needle);
    }
}

/// A chip past sm_90 without a PTX version gets the lowest its back end
/// allows (sm_100: 8.6); one given is used; every kernel of the program is
/// in the one file `-o` names.
#[test]
fn gpu_emit_writes_one_module() {
    let out = scratch("gpu-emit", "placeholder", "");
    for (flags, version, target) in [
        (&[][..], ".version 8.0", ".target sm_80"),
        (&["--chip", "sm_100"][..], ".version 8.6", ".target sm_100"),
        (
            &["--chip", "sm_120", "--ptx-version", "8.8"][..],
            ".version 8.8",
            ".target sm_120",
        ),
    ] {
        let ptx = out.with_file_name(format!("k{}.ptx", flags.len()));
        std::fs::remove_file(&ptx).ok();
        let ptx_arg = ptx.to_str().expect("a UTF-8 path");
        let mut args = vec![MLP, "--emit", "ptx", "-o", ptx_arg];
        args.extend_from_slice(flags);
        let o = run(OCANNL_RUN, &args);
        assert!(o.status.success(), "{args:?}: {o:?}");
        assert!(ptx.is_file(), "{} is not one file", ptx.display());
        let text = std::fs::read_to_string(&ptx).expect("the PTX");
        assert!(text.contains(version) && text.contains(target), "{text}");
        let entries = text.matches(".visible .entry").count();
        assert_eq!(entries, 4, "the MLP's four kernels in one module: {text}");
    }
}
