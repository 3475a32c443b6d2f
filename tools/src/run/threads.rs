//! How many OpenMP threads `ocannl-run` may start: checked against a
//! limited address space (`ulimit -v`) and the user's limit on threads and
//! processes (`ulimit -u`) once before compiling ([`check_threads`]) and
//! again just before the run ([`recheck_threads`]), since libomp aborts
//! the process when it cannot make a thread.

use ocannl_runtime::Error;

use crate::cli::{self, ThreadRoom, gib};

/// Address space kept for what comes after the flags are checked (the
/// MLIR context, compiling, the JIT's code, the data) when the threads are
/// counted against a limited address space before any of it.
const COMPILE_RESERVE: u64 = 512 << 20;

/// Address space kept for the run itself (the results, the OpenMP
/// runtime) when the threads are counted again just before it starts.
const RUN_RESERVE: u64 = 256 << 20;

/// `threads` OpenMP threads, checked against a limited address space
/// (`ulimit -v`, `prlimit --as`): libomp aborts the process when it cannot
/// make a thread, so too many asked for (`explicit`) is an error naming
/// the most that fit; the default (every core) is lowered to that instead.
/// glibc's malloc arenas are capped at the core count first, since each
/// thread would otherwise reserve 64 MiB for one.
///
/// # Errors
///
/// Too many threads asked for, or a stack larger than the machine's
/// memory.
pub fn check_threads(threads: usize, explicit: bool) -> Result<usize, Error> {
    if threads <= 1 {
        return Ok(threads);
    }
    let stack = cli::omp_stack_bytes();
    let memory = cli::memory_and_swap();
    if memory > 0 && stack > memory {
        return Err(Error::new(format!(
            "--threads {threads}: each OpenMP thread would reserve a stack of {} (OMP_STACKSIZE or KMP_STACKSIZE), more than the machine's memory ({}): set a smaller one, or use --threads 1",
            gib(stack),
            gib(memory)
        )));
    }
    // The user's threads (`ulimit -u`): MLIR's and libomp's own helpers
    // count too.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut threads = threads;
    if let Some((room, limit)) = cli::task_room(task_reserve(cores))
        && threads > room
    {
        if explicit {
            return Err(too_many_tasks(threads, room, limit));
        }
        threads = room.max(1);
    }
    if threads <= 1 || cli::omp_thread_room(0, 0).is_none() {
        return Ok(threads);
    }
    cli::limit_malloc_arenas(cores);
    let Some(room) = cli::omp_thread_room(COMPILE_RESERVE, cores) else {
        return Ok(threads);
    };
    if threads <= room.threads {
        Ok(threads)
    } else if explicit {
        Err(too_many_threads(threads, &room))
    } else {
        Ok(room.threads.max(1))
    }
}

/// `threads` counted again just before the run, with what compiling and
/// the data took.
///
/// # Errors
///
/// The threads no longer fit in the address space or under `ulimit -u`.
pub fn recheck_threads(threads: usize) -> Result<(), Error> {
    if threads > 1 {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        if let Some(room) = cli::omp_thread_room(RUN_RESERVE, cores)
            && threads > room.threads
        {
            return Err(too_many_threads(threads, &room));
        }
        if let Some((room, limit)) = cli::task_room(RUN_TASK_RESERVE)
            && threads > room
        {
            return Err(too_many_tasks(threads, room, limit));
        }
    }
    Ok(())
}

/// Threads and processes of the user kept for others when counting again
/// just before the run (MLIR's threads exist then and are counted).
const RUN_TASK_RESERVE: u64 = 8;

/// Threads and processes of the user kept for others when counting
/// against `ulimit -u`: MLIR's thread pool (one per core), libomp's hidden
/// helpers, and a few more.
fn task_reserve(cores: usize) -> u64 {
    2 * cores as u64 + 16
}

/// The error for `threads` threads beyond the user's `limit` on threads
/// and processes, which leaves `room`.
fn too_many_tasks(threads: usize, room: usize, limit: u64) -> Error {
    Error::new(format!(
        "--threads {threads}: this user may run {limit} threads and processes in all (ulimit -u), which leaves room for {} more thread(s) here: ask for fewer",
        room.max(1)
    ))
}

/// The error for `threads` threads that do not fit in `room`.
fn too_many_threads(threads: usize, room: &ThreadRoom) -> Error {
    Error::new(format!(
        "--threads {threads}: each OpenMP thread reserves a {} stack (OMP_STACKSIZE, else ulimit -s), and the address-space limit of {} (ulimit -v) with {} in use leaves room for {} thread(s): ask for fewer, or set a smaller OMP_STACKSIZE",
        if room.stack >= 1 << 20 {
            format!("{:.1} MiB", room.stack as f64 / f64::from(1u32 << 20))
        } else {
            format!("{} KiB", room.stack >> 10)
        },
        gib(room.limit),
        gib(room.in_use),
        room.threads.max(1)
    ))
}
