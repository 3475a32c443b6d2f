//! The deduplication signature of a failure: its most telling stderr
//! line (a panic's message, a crash's marker or first own stack frame, the
//! first error) normalised: the file name, quoted strings, hex and decimal
//! numbers and toolchain or dependency paths replaced.

use super::{Exit, Verdict, signal_name};

/// The deduplication signature of a failure: its most telling stderr line,
/// normalised (file, numbers, hex and quoted strings replaced).
pub fn signature(v: Verdict, err: &str, file: &str, exit: Exit) -> String {
    let signal = match exit {
        Exit::Signal(s) => signal_name(s),
        other => other.to_string(),
    };
    let lines: Vec<&str> = err
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let find = |pat: &str| lines.iter().position(|l| l.contains(pat));
    let line = match v {
        Verdict::Panic => {
            if let Some(i) = find("panicked at") {
                let msg = lines.get(i + 1).copied().unwrap_or("");
                format!("{} {msg}", lines[i])
            } else if let Some(i) = find("internal error") {
                lines[i].to_string()
            } else {
                lines.first().copied().unwrap_or("").to_string()
            }
        }
        Verdict::Crash => [
            "LLVM ERROR",
            "Assertion",
            "fatal runtime error",
            "memory allocation of",
        ]
        .iter()
        .find_map(|p| find(p).map(|i| lines[i].to_string()))
        .or_else(|| crash_frame(&lines).map(|f| format!("{signal} in {f}")))
        .or_else(|| find("error:").map(|i| format!("{signal} after {}", lines[i])))
        .unwrap_or_else(|| {
            let first = lines
                .iter()
                .find(|l| !l.starts_with("PLEASE") && !l.starts_with("Stack dump"))
                .copied()
                .unwrap_or("no stderr");
            format!("{signal}: {first}")
        }),
        _ => find("error:")
            .map(|i| lines[i].to_string())
            .unwrap_or_else(|| lines.first().copied().unwrap_or("<no stderr>").to_string()),
    };
    normalise(&line, file)
}

/// The function of the first frame of an LLVM stack dump that is not the
/// signal machinery (`#4 0x... mlir::Foo::bar(...) file:line`).
fn crash_frame(lines: &[&str]) -> Option<String> {
    const MACHINERY: &[&str] = &[
        "llvm::sys::",
        "SignalHandler",
        "__restore_rt",
        "libc.so",
        "raise",
        "abort",
        "__pthread_kill",
        "pthread_kill",
        "killpg",
        "std::panicking",
        "std::sys::",
        "core::panicking",
        "__rustc::",
        "sysdeps/",
    ];
    lines
        .iter()
        .filter(|l| l.starts_with('#'))
        .filter_map(|l| {
            // `#N 0xADDR name...`
            let mut parts = l.splitn(3, ' ');
            let (_, addr, rest) = (parts.next()?, parts.next()?, parts.next()?);
            addr.starts_with("0x").then_some(rest)
        })
        .find(|f| !MACHINERY.iter().any(|m| f.contains(m)))
        .map(|f| {
            // Without the trailing location: ` /path:line:col` or ` (/bin+0x..)`.
            let cut = [" /", " ./", " ("]
                .iter()
                .filter_map(|p| f.rfind(p))
                .max()
                .unwrap_or(f.len());
            f[..cut].chars().take(120).collect()
        })
}

/// Replaces the file name, quoted strings, hex and decimal numbers.
pub fn normalise(line: &str, file: &str) -> String {
    let mut line = if file.is_empty() {
        line.to_string()
    } else {
        line.replace(file, "FILE")
    };
    // The standard library's path: `/rustc/HASH/library/...`.
    while let Some(p) = line.find("/rustc/") {
        let after = p + "/rustc/".len();
        let end = line[after..]
            .find('/')
            .map_or(line.len(), |e| after + e + 1);
        line.replace_range(p..end, "");
    }
    // A dependency's source path: keep `crate-version/src/...` only.
    while let Some(p) = line.find("/registry/src/") {
        let start = line[..p].rfind(' ').map_or(0, |s| s + 1);
        let after = p + "/registry/src/".len();
        let end = line[after..]
            .find('/')
            .map_or(line.len(), |e| after + e + 1);
        line.replace_range(start..end, "");
    }
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push_str("\"_\"");
                for d in chars.by_ref() {
                    if d == '"' {
                        break;
                    }
                }
            }
            '0' if chars.peek() == Some(&'x') => {
                chars.next();
                while chars.peek().is_some_and(char::is_ascii_hexdigit) {
                    chars.next();
                }
                out.push_str("0xH");
            }
            c if c.is_ascii_digit() => {
                while chars.peek().is_some_and(char::is_ascii_digit) {
                    chars.next();
                }
                out.push('N');
            }
            c => out.push(c),
        }
    }
    out.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: &str = "/tmp/w0/p.mlir";

    #[test]
    fn signatures_are_normalised() {
        let a = format!("{F}:12:3: error: size 4294967296 of \"abc\" at 0x7ffe12\n");
        let b = format!("{F}:7:9: error: size 3 of \"x\" at 0x1\n");
        let sa = signature(Verdict::Rejected, &a, F, Exit::Code(1));
        assert_eq!(sa, signature(Verdict::Rejected, &b, F, Exit::Code(1)));
        assert_eq!(sa, "FILE:N:N: error: size N of \"_\" at 0xH");
        let p =
            "thread 'main' panicked at shape/src/a.rs:10:5:\nattempt to multiply with overflow\n";
        assert_eq!(
            signature(Verdict::Panic, p, F, Exit::Signal(6)),
            "thread 'main' panicked at shape/src/a.rs:N:N: attempt to multiply with overflow"
        );
        let std = "thread 'main' panicked at /rustc/59807616e1fa/library/core/src/iter/traits/accum.rs:204:1:\nattempt to multiply with overflow\n";
        assert_eq!(
            signature(Verdict::Panic, std, F, Exit::Code(101)),
            "thread 'main' panicked at library/core/src/iter/traits/accum.rs:N:N: attempt to multiply with overflow"
        );
        let dep = "thread 'main' (77) panicked at /root/.cargo/registry/src/index.crates.io-1949cf8c/melior-0.27.8/src/string_ref.rs:40:25:\nboom\n";
        assert_eq!(
            signature(Verdict::Panic, dep, F, Exit::Signal(6)),
            "thread 'main' (N) panicked at melior-N.N.N/src/string_ref.rs:N:N: boom"
        );
    }
}
