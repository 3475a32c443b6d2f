//! Each op's loop nests timed: the table `ocannl-profile-ops` left in the
//! module ([`read_table`]), the timer its calls reach ([`begin`], [`end`],
//! bound to `__ocannl_profile_begin`/`_end` by the execution engine), and
//! [`Jit::profile`].
//!
//! The timer keeps its sums per thread: the calls run on the thread that
//! calls the entry (each op's parallel loops are joined before its block
//! ends), so two programs profiled on two threads do not mix.

use std::cell::RefCell;

use melior::ir::{
    attribute::ArrayAttribute,
    operation::{OperationLike, OperationRef},
};
use ocannl_passes::profile_ops::TABLE;

use super::*;
use crate::jit::check_inputs;

/// One line of the table: an op with a nest of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfiledOp {
    /// The op, e.g. `ocannl.einsum`.
    pub op: String,
    /// Its location (`file:line:col`; for an imported ONNX model
    /// `model.onnx, node 'NAME' (OP):N:1`).
    pub location: String,
    /// The ops computed in its nest as epilogues, in order.
    pub fused: Vec<String>,
}

/// The time one op's nests took over the profiled runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpTime {
    /// The op.
    pub op: ProfiledOp,
    /// The time its nests ran, over every run.
    pub total: Duration,
    /// How many times they ran, over every run.
    pub calls: u64,
}

/// What [`Jit::profile`] measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The end-to-end time of each run.
    pub runs: Vec<Duration>,
    /// Each op's time, in the order of the table (the program's order).
    pub ops: Vec<OpTime>,
}

/// The table of a module lowered with `ocannl-profile-ops` (empty when it
/// has no timed op).
pub(crate) fn read_table(module: OperationRef<'_, '_>) -> Vec<ProfiledOp> {
    let Some(table) = module
        .attribute(TABLE)
        .ok()
        .and_then(|a| ArrayAttribute::try_from(a).ok())
    else {
        return Vec::new();
    };
    (0..table.len())
        .map(|i| {
            let strings: Vec<String> = table
                .element(i)
                .ok()
                .and_then(|e| ArrayAttribute::try_from(e).ok())
                .map(|e| {
                    (0..e.len())
                        .filter_map(|j| e.element(j).ok().and_then(ir::string_value))
                        .collect()
                })
                .unwrap_or_default();
            let mut parts = strings.into_iter();
            ProfiledOp {
                op: parts.next().unwrap_or_else(|| "?".into()),
                location: parts.next().unwrap_or_default(),
                fused: parts.collect(),
            }
        })
        .collect()
}

/// The sums of one thread: the id and start of the open region, and per
/// id the time and number of calls.
#[derive(Default)]
struct Timer {
    open: Option<(i64, Instant)>,
    sums: Vec<(Duration, u64)>,
}

thread_local! {
    static TIMER: RefCell<Timer> = RefCell::new(Timer::default());
}

/// `__ocannl_profile_begin(id)`: op `id`'s nests start. (Called from
/// compiled code: it never panics.)
pub(crate) extern "C" fn begin(id: i64) {
    let _ = TIMER.try_with(|t| {
        if let Ok(mut t) = t.try_borrow_mut() {
            t.open = Some((id, Instant::now()));
        }
    });
}

/// `__ocannl_profile_end(id)`: op `id`'s nests are done. (Called from
/// compiled code: it never panics.)
pub(crate) extern "C" fn end(id: i64) {
    let now = Instant::now();
    let _ = TIMER.try_with(|t| {
        let Ok(mut t) = t.try_borrow_mut() else {
            return;
        };
        let Some((open, start)) = t.open.take() else {
            return;
        };
        let slot = usize::try_from(id).ok().filter(|_| open == id);
        if let Some(sum) = slot.and_then(|i| t.sums.get_mut(i)) {
            sum.0 += now.saturating_duration_since(start);
            sum.1 += 1;
        }
    });
}

/// Clears this thread's sums for a table of `n` ops.
fn reset(n: usize) {
    TIMER.with_borrow_mut(|t| {
        t.open = None;
        t.sums = vec![(Duration::ZERO, 0); n];
    });
}

/// This thread's sums, cleared.
fn take() -> Vec<(Duration, u64)> {
    TIMER.with_borrow_mut(|t| std::mem::take(&mut t.sums))
}

impl Jit<'_, '_> {
    /// Runs the function once to warm up, then `times` times with each
    /// op's nests timed; the program must have been lowered with
    /// [`Lowering::CpuProfiled`].
    ///
    /// # Errors
    ///
    /// Another lowering, or as [`Jit::run`].
    pub fn profile(&self, inputs: &mut [Array], times: usize) -> Result<Profile, Error> {
        let Some(table) = &self.program.profile else {
            return Err(Error::new(
                "the program was not lowered for profiling (Lowering::CpuProfiled)",
            ));
        };
        check_inputs(&self.program.signature, inputs)?;
        self.program.check_memory(false)?;
        let mut outputs = self.outputs()?;
        self.call(inputs, &mut outputs)?;
        reset(table.len());
        let runs = (0..times)
            .map(|_| {
                let start = Instant::now();
                self.call(inputs, &mut outputs)?;
                Ok(start.elapsed())
            })
            .collect::<Result<Vec<_>, Error>>();
        let sums = take();
        Ok(Profile {
            runs: runs?,
            ops: table
                .iter()
                .zip(sums)
                .map(|(op, (total, calls))| OpTime {
                    op: op.clone(),
                    total,
                    calls,
                })
                .collect(),
        })
    }
}
