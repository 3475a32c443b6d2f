//! `ocannl-run --profile`: the time of each op's loop nests per run, its
//! share, largest first, as a table.

use std::{io::Write, time::Duration};

use ocannl_runtime::{Error, OpTime, Profile};

use crate::say;

/// The runs `--profile` times without `--bench`.
pub const DEFAULT_RUNS: usize = 10;

/// Prints the table of `profile` (runs of `'@entry'` on `threads`
/// threads): one line per op with a nest of its own, by time per run, its
/// share of the ops' sum, its calls per run, the op (and the ops fused into
/// its nest) and where it is; then the sum against the end-to-end time.
///
/// # Errors
///
/// Standard output cannot be written.
pub fn print_profile(
    out: &mut impl Write,
    entry: &str,
    profile: &Profile,
    threads: usize,
) -> Result<(), Error> {
    let runs = profile.runs.len().max(1) as f64;
    let end_to_end = profile.runs.iter().sum::<Duration>().as_secs_f64() / runs;
    let mut ops: Vec<&OpTime> = profile.ops.iter().filter(|o| o.calls > 0).collect();
    ops.sort_by_key(|o| std::cmp::Reverse(o.total));
    let sum: f64 = ops.iter().map(|o| o.total.as_secs_f64()).sum::<f64>() / runs;
    let calls: u64 = ops.iter().map(|o| o.calls).sum();
    say!(
        out,
        "profile: {} runs of '@{entry}' after a warm-up, {threads} thread(s); each op's loop nests, time per run (ops fused into a nest after '+')",
        profile.runs.len()
    );
    say!(
        out,
        "{:>5}  {:>11}  {:>6}  {:>6}  op",
        "rank",
        "time/run",
        "share",
        "calls"
    );
    for (rank, o) in ops.iter().enumerate() {
        let time = o.total.as_secs_f64() / runs;
        say!(
            out,
            "{:>5}  {:>11}  {:>5.1}%  {:>6}  {}",
            rank + 1,
            duration(time),
            share(time, sum),
            per_run(o.calls, runs),
            describe(o)
        );
    }
    say!(
        out,
        "{:>5}  {:>11}  {:>5.1}%  {:>6}  {} op nests, of {} per run end to end ({:.1}%; the rest: calls, copies, allocation, the timer)",
        "sum",
        duration(sum),
        if ops.is_empty() { 0.0 } else { 100.0 },
        per_run(calls, runs),
        ops.len(),
        duration(end_to_end).trim_start(),
        share(sum, end_to_end)
    );
    Ok(())
}

/// `part` as a percentage of `whole` (0 when `whole` is 0).
fn share(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        100.0 * part / whole
    } else {
        0.0
    }
}

/// Seconds as `1.234 ms`, or `12.34 us` below a millisecond.
fn duration(seconds: f64) -> String {
    if seconds >= 1e-3 {
        format!("{:.3} ms", seconds * 1e3)
    } else {
        format!("{:.2} us", seconds * 1e6)
    }
}

/// Calls per run: a whole number when every run made as many.
fn per_run(calls: u64, runs: f64) -> String {
    let n = calls as f64 / runs;
    if n.fract() == 0.0 {
        format!("{n}")
    } else {
        format!("{n:.1}")
    }
}

/// The op, the ops fused into its nest, and where it is: for an imported
/// ONNX model, its node (`node 'NAME' (OP)`), else `file:line:col`.
fn describe(o: &OpTime) -> String {
    let mut text = o.op.op.clone();
    if !o.op.fused.is_empty() {
        text.push_str(" + ");
        text.push_str(&o.op.fused.join(", "));
    }
    let location = &o.op.location;
    let place = match location.find(", node '") {
        // `FILE, node 'NAME' (OP):N:1`: the node.
        Some(at) => {
            let node = &location[at + 2..];
            node.rsplitn(3, ':').last().unwrap_or(node)
        }
        None => location.as_str(),
    };
    if !place.is_empty() {
        text.push_str("  ");
        text.push_str(place);
    }
    text
}
