//! The parts of `ocannl-run` (`src/bin/ocannl-run/`) beyond its command
//! line: how many OpenMP threads a run may start ([`threads`]), and what
//! it prints and writes ([`report`], and the table of `--profile`:
//! [`profile`]).

pub mod profile;
pub mod report;
pub mod threads;

/// `writeln!` to standard output, a write error (a closed pipe, a full
/// disk) becoming a user error (`ocannl_runtime::Error`, returned with
/// `?`) instead of `println!`'s panic.
#[macro_export]
macro_rules! say {
    ($out:expr, $($arg:tt)*) => {
        writeln!($out, $($arg)*).map_err(|e| {
            ::ocannl_runtime::Error::new(format!("cannot write to standard output: {e}"))
        })?
    };
}
