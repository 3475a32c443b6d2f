//! The `ocannl-opt` driver: MLIR's `MlirOptMain` with every upstream
//! dialect and pass, the ocannl passes, and the ocannl dialect loaded from
//! its IRDL definition.
//!
//! `MlirOptMain` loads IRDL only from a file (`--irdl-file`). The driver
//! hands it the IRDL text embedded in the binary through an anonymous
//! in-memory file (`memfd_create`, read back as `/proc/self/fd/N`), so the
//! tool works from any directory and leaves nothing on disk. A user's own
//! `--irdl-file` is loaded too: its text is appended to the ocannl dialect's.

use std::ffi::CString;

use crate::{ffi::driver, registry::register_all};

/// Runs `ocannl-opt` with the command-line arguments `args` (including the
/// program name); returns the process exit code.
pub fn opt_main(args: Vec<String>) -> i32 {
    register_all();
    let args = match with_irdl(args) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("ocannl-opt: error: {message}");
            return 1;
        }
    };
    let Ok(c_args) = args
        .into_iter()
        .map(CString::new)
        .collect::<Result<Vec<_>, _>>()
    else {
        eprintln!("ocannl-opt: error: an argument contains a NUL byte");
        return 1;
    };
    driver::opt_main(
        &c_args,
        c"ocannl-opt: the ocannl dialect and passes on MLIR's opt driver\n",
    )
}

/// Replaces (or adds) `--irdl-file` with an in-memory file holding the
/// ocannl dialect's IRDL plus the user's IRDL file, if any.
fn with_irdl(args: Vec<String>) -> Result<Vec<String>, String> {
    let mut out = Vec::with_capacity(args.len() + 1);
    let mut user_files = Vec::new();
    let mut iter = args.into_iter();
    let mut seen_double_dash = false;
    while let Some(arg) = iter.next() {
        if seen_double_dash {
            out.push(arg);
            continue;
        }
        if arg == "--" {
            seen_double_dash = true;
            out.push(arg);
        } else if let Some(path) = arg
            .strip_prefix("--irdl-file=")
            .or_else(|| arg.strip_prefix("-irdl-file="))
        {
            user_files.push(path.to_owned());
        } else if arg == "--irdl-file" || arg == "-irdl-file" {
            let path = iter
                .next()
                .ok_or_else(|| "--irdl-file needs a file name".to_owned())?;
            user_files.push(path);
        } else {
            out.push(arg);
        }
    }
    let mut text = ocannl_dialect::IRDL.to_owned();
    for path in &user_files {
        let user = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read IRDL file '{path}': {e}"))?;
        text.push('\n');
        text.push_str(&user);
    }
    let path = driver::memfd_with(&text)
        .map_err(|e| format!("cannot create the in-memory IRDL file: {e}"))?;
    // Insert right after the program name so that `--` handling is unaffected.
    out.insert(1.min(out.len()), format!("--irdl-file={path}"));
    Ok(out)
}
