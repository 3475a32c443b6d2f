//! Whether the machine has the memory a run needs, asked before anything
//! is allocated: a buffer that cannot be allocated would abort the process
//! (Rust's allocation failure) or crash the compiled code (a null `malloc`),
//! and Linux's overcommit would let it start and be killed later.

use crate::Error;

/// The bytes the kernel says can be allocated without swapping out
/// (`MemAvailable`), plus free swap, within the process's cgroup limit
/// when it has one; `None` where `/proc/meminfo` cannot be read (the check
/// is then skipped).
fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
            .map(|kb| kb.saturating_mul(1024))
    };
    let machine = field("MemAvailable:")?.saturating_add(field("SwapFree:").unwrap_or(0));
    Some(match cgroup_headroom() {
        Some(cgroup) => machine.min(cgroup),
        None => machine,
    })
}

/// What the process's cgroup (v2) still lets it use, when it is limited.
fn cgroup_headroom() -> Option<u64> {
    let read = |f: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{f}")).ok();
    let max: u64 = read("memory.max")?.trim().parse().ok()?;
    let current: u64 = read("memory.current")?.trim().parse().ok()?;
    Some(max.saturating_sub(current))
}

/// Allocates and frees `bytes` once: the compiled code `malloc`s its
/// intermediates, and a null result there would be a crash, so the runtime
/// first makes sure the process can get that much (an address-space limit,
/// `ulimit -v`, refuses where the machine would not).
pub(crate) fn probe(bytes: u64, what: &str) -> Result<(), Error> {
    let mut v: Vec<u8> = Vec::new();
    usize::try_from(bytes)
        .ok()
        .and_then(|n| v.try_reserve_exact(n).ok())
        .ok_or_else(|| {
            Error::new(format!(
                "cannot allocate {} for {what}: the process may not use that much memory",
                self::bytes(bytes)
            ))
        })
}

/// An error when `needed` bytes (for `what`) are more than the machine has.
pub(crate) fn check(needed: u64, what: &str) -> Result<(), Error> {
    match available_bytes() {
        Some(available) if needed > available => Err(Error::new(format!(
            "{what} need {} but only {} of memory are available",
            bytes(needed),
            bytes(available)
        ))),
        _ => Ok(()),
    }
}

/// `123 bytes`, `1.5 GiB`, ...
pub(crate) fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}
