//! Command-line checks the binaries share: parsing with `--help` and
//! `--version` written like any other output, input files read with a
//! bound, output paths checked before any work.

use std::{
    fs::File,
    io::{self, Read, Write},
    path::{Path, PathBuf},
    process::ExitCode,
};

/// The most bytes the tools keep of what a pipe (`/dev/stdin`, `<(...)`, a
/// FIFO) gives, within half the available memory; and the least a regular
/// program file may hold ([`max_file_bytes`]). (Regular `.npy` files are
/// bounded by the machine's memory instead; devices by
/// [`MAX_DEVICE_BYTES`].)
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// The most bytes a regular program file (`.mlir`, an IRDL or response
/// file) may hold: a quarter of the available memory, since parsing keeps
/// the text and its constants side by side and compiling binds the
/// constants again; at least [`MAX_INPUT_BYTES`]. An imported model's
/// weights are written as hex, two characters a byte: VGG-19's 575 MB make
/// a 1.15 GB module.
pub fn max_file_bytes() -> u64 {
    available_memory().map_or(MAX_INPUT_BYTES, |free| (free / 4).max(MAX_INPUT_BYTES))
}

/// The most bytes the tools read from a character device other than a
/// terminal: `/dev/null` gives none, `/dev/zero` and `/dev/urandom` never
/// end, and no device holds a program or data.
pub const MAX_DEVICE_BYTES: u64 = 1 << 20;

/// The memory the kernel says can be allocated (`MemAvailable`), within
/// the cgroup's (v2) limit when there is one; `None` when unknown.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let machine = info
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())?
        .saturating_mul(1024);
    let read = |f: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{f}")).ok();
    let cgroup = read("memory.max")
        .and_then(|m| m.trim().parse::<u64>().ok())
        .zip(read("memory.current").and_then(|c| c.trim().parse::<u64>().ok()))
        .map(|(max, current)| max.saturating_sub(current));
    Some(cgroup.map_or(machine, |c| c.min(machine)))
}

/// Parses the command line of `tool` with clap. `--help` and `--version`
/// print to standard output and give exit code 0 only when that worked: a
/// closed or full standard output is a one-line error and exit code 1, as
/// is any usage error (clap's message, exit code 1 instead of clap's 2).
///
/// # Errors
///
/// The exit code to return from `main` when the process should stop.
pub fn parse<C: clap::Parser>(tool: &str) -> Result<C, ExitCode> {
    let e = match C::try_parse() {
        Ok(cli) => return Ok(cli),
        Err(e) => e,
    };
    if e.use_stderr() {
        // Standard error may be closed too: nothing more to do then.
        let _ = e.print();
        return Err(ExitCode::from(1));
    }
    let what = match e.kind() {
        clap::error::ErrorKind::DisplayVersion => "the version",
        _ => "the help",
    };
    let written = if ocannl_passes::driver::stdout_closed_at_start() {
        Err("standard output is closed".to_owned())
    } else {
        e.print()
            .and_then(|()| io::stdout().flush())
            .map_err(|e| e.to_string())
    };
    match written {
        Ok(()) => Err(ExitCode::SUCCESS),
        Err(why) => {
            let _ = writeln!(io::stderr(), "{tool}: error: cannot write {what}: {why}");
            Err(ExitCode::from(1))
        }
    }
}

/// An input file, checked and bounded: a regular file is read where it is;
/// what a pipe or a device gives is read up to [`MAX_INPUT_BYTES`] into a
/// file in memory, which the reader then opens (as the same `/dev/fd/N` or
/// `/dev/stdin` path where the user gave one, so that messages name it).
#[derive(Debug)]
pub struct Input {
    /// The path the reader opens.
    path: PathBuf,
    /// The path as the user gave it.
    given: PathBuf,
    /// The file in memory `path` names, kept open while `self` lives.
    _memory: Option<File>,
}

impl Input {
    /// Checks `path`: it must exist and not be a directory; a regular file
    /// must hold at most `max_regular` bytes when that is given; a pipe or
    /// device is read (blocking until it has a writer, as any reader does)
    /// up to [`MAX_INPUT_BYTES`].
    ///
    /// # Errors
    ///
    /// A message naming the file: missing, a directory, too large, or
    /// unreadable.
    pub fn open(path: &Path, max_regular: Option<u64>) -> Result<Self, String> {
        let shown = path.display();
        let cannot = |e: io::Error| format!("cannot read '{shown}': {e}");
        check_readable(path)?;
        let meta = std::fs::metadata(path).map_err(cannot)?;
        if meta.is_file() {
            if let Some(max) = max_regular
                && meta.len() > max
            {
                let why = if max == max_file_bytes() && max > MAX_INPUT_BYTES {
                    " (a quarter of the memory available)"
                } else {
                    ""
                };
                return Err(format!(
                    "cannot read '{shown}': it holds {} bytes, more than the {} an input may have{why}",
                    meta.len(),
                    human(max)
                ));
            }
            return Ok(Self {
                path: path.to_owned(),
                given: path.to_owned(),
                _memory: None,
            });
        }
        // A pipe, a FIFO, a device: it may never end, and cannot be read
        // twice; keep what it gives, up to the bound. (A terminal is read by
        // the tool itself, interactively.)
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_block_device() {
            return Err(format!(
                "cannot read '{shown}': it is a block device, not a file"
            ));
        }
        // The process's own output on a pipe (`/dev/stdout`): reading it
        // would wait for ever on what the process itself has to write.
        use std::os::unix::fs::MetadataExt;
        for (fd, name) in [(1, "standard output"), (2, "standard error")] {
            if let Ok(out) = std::fs::metadata(format!("/proc/self/fd/{fd}"))
                && (out.file_type().is_fifo() || out.file_type().is_socket())
                && (out.dev(), out.ino()) == (meta.dev(), meta.ino())
            {
                return Err(format!(
                    "cannot read '{shown}': it is this process's {name}"
                ));
            }
        }
        let source = File::open(path).map_err(cannot)?;
        if io::IsTerminal::is_terminal(&source) {
            return Ok(Self {
                path: path.to_owned(),
                given: path.to_owned(),
                _memory: None,
            });
        }
        // What is kept lives in memory: at most half of what is available.
        let (limit, why) = if kind.is_char_device() {
            // `/dev/null` ends at once; `/dev/zero`, `/dev/urandom` never.
            (MAX_DEVICE_BYTES, "the most the tools read from a device")
        } else {
            match available_memory() {
                Some(free) if free / 2 < MAX_INPUT_BYTES => (
                    free / 2,
                    "half the memory available, the most the tools keep of a pipe",
                ),
                _ => (MAX_INPUT_BYTES, "the most the tools read from a pipe"),
            }
        };
        let mut memory = crate::ffi::memory_file().map_err(cannot)?;
        let got = io::copy(&mut source.take(limit + 1), &mut memory).map_err(cannot)?;
        if got > limit {
            return Err(format!(
                "cannot read '{shown}': it is not a regular file and gives more than {} ({why})",
                human(limit)
            ));
        }
        // Readers of a descriptor (standard input) start where it is.
        io::Seek::rewind(&mut memory).map_err(cannot)?;
        let reopened = match own_descriptor(path) {
            Some(fd) if crate::ffi::replace_descriptor(&memory, fd).is_ok() => path.to_owned(),
            _ => {
                use std::os::fd::AsRawFd;
                PathBuf::from(format!("/proc/self/fd/{}", memory.as_raw_fd()))
            }
        };
        Ok(Self {
            path: reopened,
            given: path.to_owned(),
            _memory: Some(memory),
        })
    }

    /// The path the reader opens.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path as the user gave it.
    pub fn given(&self) -> &Path {
        &self.given
    }

    /// `message` with the path the reader opened replaced by the user's.
    pub fn rename(&self, message: String) -> String {
        if self.path == self.given {
            return message;
        }
        message.replace(
            &self.path.display().to_string(),
            &self.given.display().to_string(),
        )
    }
}

/// The descriptor a `/dev/stdin`, `/dev/fd/N` or `/proc/self/fd/N` path
/// names.
fn own_descriptor(path: &Path) -> Option<i32> {
    let s = path.to_str()?;
    if s == "/dev/stdin" {
        return Some(0);
    }
    let n = s
        .strip_prefix("/dev/fd/")
        .or_else(|| s.strip_prefix("/proc/self/fd/"))?;
    n.parse().ok().filter(|&fd| fd >= 0)
}

/// `1 GiB`, `512 MiB`, or bytes.
fn human(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes.is_multiple_of(1 << 30) {
        format!("{} GiB", bytes >> 30)
    } else if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// Checks that `path` names something to read (a file, a pipe, a device)
/// without opening it, which could block on a pipe.
///
/// # Errors
///
/// `cannot read 'PATH': why` (missing, a directory, an empty name).
pub fn check_readable(path: &Path) -> Result<(), String> {
    if path.as_os_str().is_empty() {
        return Err("cannot read '': the file name is empty".to_owned());
    }
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(format!(
            "cannot read '{}': it is a directory",
            path.display()
        )),
        Ok(_) => Ok(()),
        Err(e) => Err(format!("cannot read '{}': {e}", path.display())),
    }
}

/// Checks that a file can be written at `path` before any work is done:
/// not a directory, in a folder that exists and may be written, and not a
/// read-only file. Writes nothing; a file that did not exist is created
/// and removed again. Pipes and devices (`/dev/null`, `/dev/stdout`, a
/// FIFO) are not opened, since opening one may block or have effects.
///
/// # Errors
///
/// `cannot write 'PATH': why`.
pub fn check_writable(path: &Path) -> Result<(), String> {
    let shown = path.display();
    let cannot = |e: io::Error| format!("cannot write '{shown}': {e}");
    if path.as_os_str().is_empty() {
        return Err("cannot write '': the file name is empty".to_owned());
    }
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(format!("cannot write '{shown}': it is a directory")),
        Ok(meta) if meta.is_file() => std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map(drop)
            .map_err(cannot),
        Ok(_) => Ok(()),
        // A dangling symbolic link: writing creates its target.
        Err(_) if std::fs::symlink_metadata(path).is_ok() => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
                .map_err(cannot)?;
            std::fs::remove_file(path).map_err(cannot)
        }
        Err(e) => Err(cannot(e)),
    }
}

/// The stack each libomp thread gets: `KMP_STACKSIZE` (bytes unless a
/// `k`, `m`, `g` or `t` follows), else `OMP_STACKSIZE` or `GOMP_STACKSIZE`
/// (kilobytes unless a suffix follows), at least 16 KiB; else the stack
/// limit (`ulimit -s`) up to 64 MiB, 64 MiB when unlimited. (libomp's rules,
/// measured with `OMP_DISPLAY_ENV=verbose` on LLVM 22's libomp.)
pub fn omp_stack_bytes() -> u64 {
    for (var, unit) in [
        ("KMP_STACKSIZE", 1),
        ("OMP_STACKSIZE", 1024),
        ("GOMP_STACKSIZE", 1024),
    ] {
        if let Some(bytes) = std::env::var(var).ok().and_then(|v| parse_size(&v, unit)) {
            return bytes.max(16 << 10);
        }
    }
    crate::ffi::stack_limit().map_or(64 << 20, |s| s.min(64 << 20))
}

/// `123`, `4k`, `8M`, `1g`, `2T` (a `b` suffix means bytes).
fn parse_size(text: &str, unit: u64) -> Option<u64> {
    let t = text.trim();
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let n: u64 = t[..digits].parse().ok()?;
    let scale = match t[digits..].trim().to_ascii_lowercase().as_str() {
        "" => unit,
        "b" => 1,
        "k" | "kb" => 1 << 10,
        "m" | "mb" => 1 << 20,
        "g" | "gb" => 1 << 30,
        "t" | "tb" => 1 << 40,
        _ => return None,
    };
    n.checked_mul(scale)
}

/// What one glibc malloc arena reserves (`HEAP_MAX_SIZE` on 64-bit
/// targets); making one briefly maps twice that, to align it.
pub const ARENA_BYTES: u64 = 64 << 20;

/// Address space of a thread beyond its stack: the guard page, its
/// thread-local data and libomp's per-thread state (measured: about 76 KiB
/// a thread for 1024 threads; this rounds up).
pub const THREAD_EXTRA_BYTES: u64 = 128 << 10;

/// The address space the process maps now (`VmSize`), 0 when unknown.
fn address_space_in_use() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmSize:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb.saturating_mul(1024))
}

/// What a limited address space (`ulimit -v`, `prlimit --as`) allows
/// OpenMP threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadRoom {
    /// The most threads that fit.
    pub threads: usize,
    /// The stack of each ([`omp_stack_bytes`]).
    pub stack: u64,
    /// The limit.
    pub limit: u64,
    /// What the process maps already.
    pub in_use: u64,
}

/// How many libomp threads fit in the address space the limit leaves once
/// `reserve` more bytes are mapped (for what the process has still to
/// do), each taking its stack and [`THREAD_EXTRA_BYTES`], with one malloc
/// arena for each of up to `arenas` threads (see
/// [`limit_malloc_arenas`]); `None` when the address space is unlimited.
/// (libomp aborts the process when a thread cannot be made.)
pub fn omp_thread_room(reserve: u64, arenas: usize) -> Option<ThreadRoom> {
    let limit = crate::ffi::address_space_limit()?;
    let in_use = address_space_in_use();
    let stack = omp_stack_bytes();
    let arenas = (arenas as u64 + 1).saturating_mul(ARENA_BYTES);
    let left = limit.saturating_sub(in_use.saturating_add(reserve).saturating_add(arenas));
    let threads = left / stack.saturating_add(THREAD_EXTRA_BYTES);
    Some(ThreadRoom {
        threads: usize::try_from(threads).unwrap_or(usize::MAX),
        stack,
        limit,
        in_use,
    })
}

/// How many more threads the process may start under the limit on the
/// user's threads and processes (`ulimit -u`: it counts every thread of
/// every process of the user, and libomp aborts when it is reached),
/// keeping `reserve` for others; `None` when unlimited. Counts the user's
/// threads in `/proc`.
pub fn task_room(reserve: u64) -> Option<(usize, u64)> {
    let (limit, uid) = crate::ffi::task_limit()?;
    let uid = uid.to_string();
    let mut tasks = 0u64;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        // Processes only (not `self`, `thread-self`: counted already).
        if !entry
            .file_name()
            .as_encoded_bytes()
            .iter()
            .all(u8::is_ascii_digit)
        {
            continue;
        }
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        let field = |key: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.split_whitespace().collect::<Vec<_>>())
        };
        if field("Uid:").is_some_and(|ids| ids.first() == Some(&uid.as_str())) {
            tasks += field("Threads:")
                .and_then(|v| v.first().and_then(|n| n.parse().ok()))
                .unwrap_or(1);
        }
    }
    let room = limit.saturating_sub(tasks.saturating_add(reserve));
    Some((usize::try_from(room).unwrap_or(usize::MAX), limit))
}

/// The machine's memory and swap (`MemTotal` + `SwapTotal`), 0 when
/// unknown: Linux refuses (by default) a single mapping larger than that,
/// such as a thread stack of `OMP_STACKSIZE=2T`.
pub fn memory_and_swap() -> u64 {
    let Ok(info) = std::fs::read_to_string("/proc/meminfo") else {
        return 0;
    };
    ["MemTotal:", "SwapTotal:"]
        .iter()
        .filter_map(|key| {
            info.lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .fold(0u64, |acc, kb| acc.saturating_add(kb.saturating_mul(1024)))
}

/// Caps glibc's malloc arenas at `n`: otherwise each thread that calls
/// `malloc` (libomp's do) makes its own, up to eight per core, each
/// reserving [`ARENA_BYTES`] of address space.
pub fn limit_malloc_arenas(n: usize) {
    crate::ffi::limit_malloc_arenas(n);
}

/// `1.5 GiB`.
pub fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30))
}
