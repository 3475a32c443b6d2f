//! The worker pool both campaigns (MLIR programs and ONNX models) run on:
//! worker threads take item indices in turn until the campaign's count is
//! reached, a progress line is printed every few seconds from the shared
//! report, and the report comes back with the campaign's wall time.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::report::Report;

/// How a campaign's items are spread over the workers.
pub struct Pool {
    /// Worker threads (at least one runs).
    pub jobs: usize,
    /// How many items (indices `0..items`).
    pub items: u64,
    /// What the progress line calls the items (`programs`, `models`).
    pub noun: &'static str,
    /// Time between progress lines.
    pub progress: Duration,
}

/// The shared report, locked (a worker that panicked holding it leaves it
/// usable).
pub fn lock(r: &Mutex<Report>) -> MutexGuard<'_, Report> {
    r.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs the campaign: each worker `w` makes its state with `start(w)`,
/// then calls `item(&mut state, i, &report)` for every index `i` it takes.
/// The first worker error (or panic) is the campaign's error, once every
/// worker has stopped.
pub fn run<S>(
    pool: &Pool,
    start: impl Fn(usize) -> anyhow::Result<S> + Sync,
    item: impl Fn(&mut S, u64, &Mutex<Report>) -> anyhow::Result<()> + Sync,
) -> anyhow::Result<(Report, Duration)> {
    let report = Mutex::new(Report::default());
    let next = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let begun = Instant::now();
    std::thread::scope(|s| -> anyhow::Result<()> {
        let mut workers = Vec::new();
        for w in 0..pool.jobs.max(1) {
            let (report, next, start, item) = (&report, &next, &start, &item);
            workers.push(s.spawn(move || -> anyhow::Result<()> {
                let mut state = start(w)?;
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= pool.items {
                        return Ok(());
                    }
                    item(&mut state, i, report)?;
                }
            }));
        }
        let progress = s.spawn(|| progress_lines(pool, &report, &done, begun));
        let mut result = Ok(());
        for w in workers {
            match w.join() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => result = Err(e),
                Err(_) => result = Err(anyhow::anyhow!("a worker thread panicked")),
            }
        }
        done.store(true, Ordering::Relaxed);
        let _ = progress.join();
        result
    })?;
    let wall = begun.elapsed();
    Ok((
        report.into_inner().unwrap_or_else(PoisonError::into_inner),
        wall,
    ))
}

/// Prints a progress line every `pool.progress` until `done`.
fn progress_lines(pool: &Pool, report: &Mutex<Report>, done: &AtomicBool, begun: Instant) {
    let mut last = Instant::now();
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        if last.elapsed() >= pool.progress {
            last = Instant::now();
            let r = lock(report);
            let secs = begun.elapsed().as_secs_f64();
            eprintln!(
                "[{secs:7.1}s] {} {}/{} ({:.1}/s), processes {}, failing {}, distinct failures {}",
                pool.noun,
                r.programs,
                pool.items,
                r.programs as f64 / secs.max(1e-9),
                r.targets.values().map(|c| c.programs).sum::<u64>(),
                r.failure_count(),
                r.failures.len()
            );
        }
    }
}
