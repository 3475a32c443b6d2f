//! Propagation, the online stage: constraints are taken off the store's
//! queue and simplified one step at a time ([`super::simplify`]) until none
//! is left; derived constraints are settled depth-first, before the next
//! queued one.

use super::simplify::Step;
use super::watch::NIL;
use super::{Closing, Origin, ShapeError, ShapeErrorKind, Solver, Tagged};

impl Solver {
    /// Runs the online stage to a fixpoint.
    ///
    /// # Errors
    ///
    /// The first constraint found unsatisfiable.
    pub fn propagate(&mut self) -> Result<(), ShapeError> {
        // A safety net, far above what propagation needs (each constraint is
        // simplified a bounded number of times per binding of its variables).
        let budget =
            1_000_000 + 256 * (self.store.len() + self.dims.len() + self.rows.len()) as u64;
        let mut steps = 0u64;
        // Derived constraints go first (depth-first, "simplify early"): an
        // op's consequences are settled before the next op's constraints are
        // looked at. They are processed from this stack, before the next
        // queued constraint, and take a slot in the store only if they get
        // stuck; waking pushes to the back of the queue, so this is the
        // order of queueing them at its front.
        // Empty: an error returns without putting it back.
        let mut stack = std::mem::take(&mut self.stack);
        while let Some((id, tagged, unchecked)) = self.dequeue() {
            if unchecked {
                self.check_literals(&tagged)?;
            }
            self.settle(tagged, id, &mut stack, &mut steps, budget)?;
            while let Some(tagged) = stack.pop() {
                self.settle(tagged, NIL, &mut stack, &mut steps, budget)?;
            }
        }
        self.stack = stack;
        // Readers after propagation (closing, reading back every shape)
        // expand rows many times: short chains keep that linear. A
        // compression pass looks at every row, so it runs once enough rows
        // were bound since the last (closing propagates once per round, and
        // a round may bind only a few).
        if self.bound_since_compression.saturating_mul(8) >= self.rows.len() {
            self.compress_rows();
        }
        Ok(())
    }

    /// One step of [`Solver::propagate`] on a constraint (in slot `id` of
    /// the store, or `NIL` for a derived one): done, replaced by constraints
    /// pushed on `stack` (first on top), or stored and watched if stuck.
    fn settle(
        &mut self,
        tagged: Tagged,
        id: u32,
        stack: &mut Vec<Tagged>,
        steps: &mut u64,
        budget: u64,
    ) -> Result<(), ShapeError> {
        *steps += 1;
        if *steps > budget {
            return Err(no_convergence(*steps, tagged.origin));
        }
        let mark = stack.len();
        let step = self.step(&tagged, stack)?;
        debug_assert!(
            matches!(step, Step::Replace) || stack.len() == mark,
            "only a replacing step pushes constraints"
        );
        match step {
            Step::Done => self.finish(id),
            Step::Replace => {
                self.finish(id);
                // Pushed first to last; the first is looked at first.
                stack[mark..].reverse();
            }
            Step::Stuck { dims, rows } => self.store_stuck(tagged, id, dims, rows),
        }
        Ok(())
    }

    /// Runs the online stage, then the closing stages (`Closing::Full`).
    ///
    /// # Errors
    ///
    /// The first constraint found unsatisfiable.
    pub fn solve(&mut self, closing: Closing) -> Result<(), ShapeError> {
        self.enqueue_deferred();
        self.propagate()?;
        if closing == Closing::Full {
            self.close()?;
        }
        if self.bound_since_compression > 0 {
            self.compress_rows();
        }
        Ok(())
    }
}

/// The error of a propagation that exceeded its step budget.
fn no_convergence(steps: u64, origin: Origin) -> ShapeError {
    ShapeError {
        kind: ShapeErrorKind::NoConvergence,
        message: format!("no progress after {steps} steps ({})", origin.describe()),
        origin,
        related: vec![],
    }
}
