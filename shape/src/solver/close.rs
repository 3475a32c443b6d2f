//! The closing stages (reference: "Stage overview" and "Stage details").
//!
//! | stage | dims | rows |
//! |---|---|---|
//! | 3 | — | terminal → LUB; `Total_elems` → one axis where required |
//! | 4 | terminal → LUB | terminal → no further axes |
//! | 5 | terminal → lower bound or 1 (discardable: 0, first) | — |
//! | 6 | — | all remaining → no further axes |
//! | 7 | all remaining → lower bound or 1 (discardable: 0, first) | — |
//!
//! Stage 2 (precision coefficients) has no counterpart here. Every stage
//! first decides for all candidates from the same snapshot of the solver,
//! then binds, then propagates to a fixpoint.

use std::collections::{HashMap, HashSet};

use super::close_ambiguous::Ambiguous;
use super::watch::NIL;
use super::{Constraint, Dim, DimVar, OpId, Origin, Role, Row, RowVar, ShapeError, Solver};
use crate::spec::RowKind;

/// The origin recorded for bindings made by closing.
fn closing_origin() -> Origin {
    Origin::new(
        OpId(u32::MAX),
        (Role::Result, RowKind::Output),
        (Role::Result, RowKind::Output),
    )
}

/// The free variables of one table (dims or rows) in index order, kept
/// current from stage to stage: variables are only ever bound, and new ones
/// only appended, so a refresh looks at the variables still listed and at
/// those made since, not at the whole table again (at a million ops, a scan
/// of a table reads hundreds of megabytes).
#[derive(Default)]
struct FreeVars {
    vars: Vec<u32>,
    /// The table's length at the last refresh.
    scanned: usize,
}

impl FreeVars {
    fn refresh(&mut self, len: usize, is_free: impl Fn(usize) -> bool) -> &[u32] {
        self.vars.retain(|&v| is_free(v as usize));
        self.vars.extend(
            (self.scanned..len)
                .filter(|&i| is_free(i))
                .map(|i| i as u32),
        );
        self.scanned = len;
        &self.vars
    }
}

impl Solver {
    /// Runs closing stages 3 to 7 (after [`Solver::propagate`]).
    ///
    /// # Errors
    ///
    /// A constraint that the closing decisions make unsatisfiable.
    pub fn close(&mut self) -> Result<(), ShapeError> {
        // Ambiguous alignments take their least-rank solution first, so that
        // the rows the later stages see do not depend on how (in which
        // order) they were reached.
        self.resolve_ambiguous_alignments()?;
        let mut free_rows = FreeVars::default();
        let mut free_dims = FreeVars::default();

        // Stage 3: terminal row variables take their least upper bound.
        let lubs = self.row_lubs();
        let decisions: Vec<(RowVar, Row)> = self
            .refresh_rows(&mut free_rows)
            .iter()
            .map(|&v| RowVar(v))
            .filter(|v| self.rows[v.0 as usize].terminal)
            .filter_map(|v| lubs.get(v.0).map(|lub| (v, lub.clone())))
            .collect();
        self.bind_rows(decisions)?;
        self.propagate()?;
        self.close_element_counts()?;

        self.close_ambiguous_equations(Ambiguous::CrossingTerminal)?;

        // Stage 4: terminal dims take their LUB; terminal rows close. So
        // does the axis a concatenation of unknown parts makes, when it is
        // broadcast to a size above 1 (OCANNL's test_block_tensor, Test 5e:
        // `2 ^ 3 ^ kk` added to a size-7 axis is 7, so `kk` is 2): it cannot
        // be 1 unless its parts sum to 1.
        self.refresh_dims(&mut free_dims);
        let dim_lubs = self.dim_lubs(&free_dims.vars);
        let wholes = self.concat_wholes();
        let decisions: Vec<(DimVar, Dim)> = free_dims
            .vars
            .iter()
            .map(|&v| DimVar(v))
            .filter_map(|v| {
                let lub = dim_lubs.get(&v.0).copied()?;
                let take = self.dims[v.0 as usize].terminal || (wholes.contains(&v) && lub.0 > 1);
                take.then_some((v, Dim::Size(lub.0, lub.1)))
            })
            .collect();
        self.bind_dims(decisions)?;
        let decisions: Vec<(RowVar, Row)> = self
            .refresh_rows(&mut free_rows)
            .iter()
            .map(|&v| RowVar(v))
            .filter(|v| self.rows[v.0 as usize].terminal)
            .map(|v| (v, Row::closed(vec![])))
            .collect();
        self.bind_rows(decisions)?;
        self.propagate()?;

        // Stage 5: remaining terminal dims take their lower bound or 1
        // (discardable ones 0, first).
        self.guess_dims(true, &mut free_dims)?;
        self.close_element_counts()?;

        // Stage 6: every remaining row variable closes.
        self.close_ambiguous_equations(Ambiguous::Crossing)?;
        let free = self.refresh_rows(&mut free_rows).to_vec();
        if self.no_shortcuts {
            let decisions = free.iter().map(|&v| (RowVar(v), Row::default())).collect();
            self.bind_rows(decisions)?;
        } else {
            self.close_rows_at_once(&free);
        }
        self.propagate()?;

        // Stage 7: every remaining dim takes its lower bound or 1
        // (discardable ones 0, first).
        self.guess_dims(false, &mut free_dims)
    }

    /// `free` brought up to date with the row table (see [`FreeVars`]).
    fn refresh_rows<'f>(&self, free: &'f mut FreeVars) -> &'f [u32] {
        free.refresh(self.rows.len(), |i| self.rows[i].binding.is_none())
    }

    /// `free` brought up to date with the dim table (see [`FreeVars`]).
    fn refresh_dims<'f>(&self, free: &'f mut FreeVars) -> &'f [u32] {
        free.refresh(self.dims.len(), |i| self.dims[i].binding.is_none())
    }

    /// Guesses free dims (only terminal ones if `terminal_only`) to their
    /// lower bound: discardable parts of concatenations first (to 0, unless
    /// bounded), propagated, so that the parts they leave over are deduced
    /// rather than guessed; then the others (1 unless bounded).
    /// The axis a concatenation makes of unknown parts is not guessed: the
    /// parts are, and it is their sum. Dims that [`Solver::count_plan`]
    /// defers past a pass are candidates of the later passes too.
    fn guess_dims(&mut self, terminal_only: bool, free: &mut FreeVars) -> Result<(), ShapeError> {
        let mut left: HashSet<DimVar> = HashSet::new();
        for discardable in [true, false] {
            // First the dims that no unknown sum bounds from below (a
            // consumer of a stack, `p >= a^b`, waits for `a + b`), then the
            // others.
            for wait_for_sums in [true, false] {
                self.refresh_dims(free);
                let wholes = self.concat_wholes();
                let waiting = if wait_for_sums {
                    let mut w = self.bounded_by(&wholes);
                    w.extend(self.padded_outputs());
                    w
                } else {
                    HashSet::new()
                };
                let pool: Vec<DimVar> = free
                    .vars
                    .iter()
                    .map(|&v| DimVar(v))
                    .filter(|v| {
                        let info = &self.dims[v.0 as usize];
                        (info.terminal || !terminal_only)
                            && (info.discardable == discardable || left.contains(v))
                            && !wholes.contains(v)
                            && !waiting.contains(v)
                            && self.can_guess(*v)
                    })
                    .collect();
                let last = !terminal_only && !discardable && !wait_for_sums;
                left.extend(self.guess_in_count_order(pool, last)?);
            }
        }
        Ok(())
    }

    /// Guesses the dims of `pool` to their lower bounds, propagated, in
    /// rounds: each round guesses those that [`Solver::count_plan`] does not
    /// defer, or else breaks the deadlocks it found, until the deferred ones
    /// are derived. Returns those still deferred; in the `last` pass they
    /// are guessed all the same.
    fn guess_in_count_order(
        &mut self,
        mut pool: Vec<DimVar>,
        last: bool,
    ) -> Result<HashSet<DimVar>, ShapeError> {
        while !pool.is_empty() {
            let plan = self.count_plan(&pool);
            let mut chosen = pool.clone();
            chosen.retain(|v| !plan.deferred.contains(v));
            if chosen.is_empty() && plan.breaks.is_empty() {
                if !last {
                    return Ok(pool.into_iter().collect());
                }
                chosen = std::mem::take(&mut pool);
            }
            let at_least = |v: DimVar| Dim::size(self.dims[v.0 as usize].at_least);
            let decisions: Vec<(DimVar, Dim)> = if chosen.is_empty() {
                plan.breaks
                    .iter()
                    .map(|&(n, c)| (n, Dim::size(c)))
                    .collect()
            } else {
                chosen.iter().map(|&v| (v, at_least(v))).collect()
            };
            self.bind_dims(decisions)?;
            self.propagate()?;
            pool.retain(|v| plan.deferred.contains(v) && self.dims[v.0 as usize].binding.is_none());
        }
        Ok(HashSet::new())
    }

    /// The free outputs of stuck padded convolutions (`@lo,hi`) whose
    /// input is free too: the input's guess decides them (any input size
    /// convolves, rounding down), and guessing both at once contradicts
    /// (a strided convolution over a size-1 axis whose size a broadcast
    /// left open: input 1, output guessed 1, but 1 padded by 2 and 2 with
    /// a kernel of 2 and stride 2 gives 2).
    fn padded_outputs(&self) -> Vec<DimVar> {
        self.stuck()
            .filter_map(|t| match &t.constraint {
                Constraint::Affine(a) if a.pads.is_some() => {
                    match (self.find_dim(a.input), self.find_dim(a.output)) {
                        (Dim::Var(_), Dim::Var(o)) => Some(o),
                        _ => None,
                    }
                }
                _ => None,
            })
            .collect()
    }

    /// The free axes that stuck concatenations make of their parts.
    fn concat_wholes(&self) -> Vec<DimVar> {
        if !self.has_concat {
            return vec![];
        }
        self.stuck()
            .filter_map(|t| match &t.constraint {
                Constraint::Concat { whole, .. } => match self.find_dim(*whole) {
                    Dim::Var(v) => Some(v),
                    Dim::Size(..) => None,
                },
                _ => None,
            })
            .collect()
    }

    /// The free dims that stuck inequalities `cur >= subr` bound from below
    /// by one of `roots`, directly or through other such dims.
    fn bounded_by(&self, roots: &[DimVar]) -> HashSet<DimVar> {
        if roots.is_empty() {
            return HashSet::new();
        }
        let mut above: HashMap<DimVar, Vec<DimVar>> = HashMap::new();
        for t in self.stuck() {
            if let Constraint::DimIneq { cur, subr } = &t.constraint
                && let (Dim::Var(c), Dim::Var(s)) = (self.find_dim(*cur), self.find_dim(*subr))
            {
                above.entry(s).or_default().push(c);
            }
        }
        let mut seen: HashSet<DimVar> = HashSet::new();
        let mut todo: Vec<DimVar> = roots.to_vec();
        while let Some(v) = todo.pop() {
            for &c in above.get(&v).into_iter().flatten() {
                if seen.insert(c) {
                    todo.push(c);
                }
            }
        }
        seen
    }

    pub(super) fn bind_rows(&mut self, decisions: Vec<(RowVar, Row)>) -> Result<(), ShapeError> {
        for (v, row) in decisions {
            if self.rows[v.0 as usize].binding.is_some() {
                continue;
            }
            // Dims as written: their variables stay linked (labels, provenance).
            let row = self.expand_row(&row);
            if row.var == Some(v) {
                continue;
            }
            self.bind_row(v, row, closing_origin())?;
        }
        Ok(())
    }

    /// Stage 6's binding of every free row variable to `[]`, as
    /// [`Solver::bind_rows`] would (a binding to `[]` cannot fail: it adds
    /// no axes and no dims), but without waking each variable's watchers:
    /// every stored constraint that mentions a row is queued instead, in
    /// content order (or, when both its rows are now `[]`, finished). At this stage most stored constraints are
    /// `a >= w` records between two of these variables; one pass along the
    /// store replaces a read of a watch list and a jump into the store per
    /// variable (at a million ops, a cache miss each). Queueing a
    /// constraint that was not watching one of them only re-examines it,
    /// which never changes the solution. The variables' watch lists are
    /// dropped, not returned to the pool's free list: walking them is the
    /// cost avoided, and the pool is freed with the solver.
    fn close_rows_at_once(&mut self, free: &[u32]) {
        for &v in free {
            let info = &mut self.rows[v as usize];
            if info.binding.is_some() {
                continue;
            }
            info.watchers = NIL;
            info.set_via(None);
            info.binding = Some((Row::default(), closing_origin()));
        }
        let mut queue: Vec<u32> = vec![];
        for id in 0..self.store.len() {
            let Some(t) = &self.store[id] else {
                continue;
            };
            match &t.constraint {
                // `[] >= []` or `[] = []` (what `step` concludes first, here
                // without the trip through the queue): done.
                Constraint::RowEq(a, b)
                | Constraint::RowIneq {
                    cur: a, subr: b, ..
                } if self.resolves_empty(a) && self.resolves_empty(b) => {
                    self.store[id] = None;
                    self.free.push(id as u32);
                }
                c if mentions_rows(c) => queue.push(id as u32),
                _ => {}
            }
        }
        // By content, not by slot: slots follow the order the constraints
        // were added in, and when two of them now conflict, which one is
        // reported must not depend on that order (property
        // `declarative_error_kinds`).
        self.sort_in_content_order(&mut queue);
        for id in queue {
            self.enqueue(id);
        }
    }

    fn bind_dims(&mut self, decisions: Vec<(DimVar, Dim)>) -> Result<(), ShapeError> {
        for (v, d) in decisions {
            if let Dim::Var(free) = self.find_dim(Dim::Var(v)) {
                let d = self.find_dim(d);
                self.bind_dim(free, d, closing_origin())?;
            }
        }
        Ok(())
    }

    /// The reference's `can_guess_dim_to_one`: a variable kept from
    /// guessing (the numerator of a pending `StridedElems`) may be guessed
    /// only if one of its "unless" variables, still free, is kept from
    /// guessing too (which breaks cycles of mutual prevention).
    fn can_guess(&self, v: DimVar) -> bool {
        match self.uniq_unless.get(&v.0) {
            None => true,
            Some(unless) => unless.iter().any(|u| match self.find_dim(Dim::Var(*u)) {
                Dim::Var(r) => r != v && self.uniq_unless.contains_key(&r.0),
                Dim::Size(..) => false,
            }),
        }
    }
}

/// Whether a constraint relates rows (and so may watch row variables).
fn mentions_rows(c: &Constraint) -> bool {
    matches!(
        c,
        Constraint::RowEq(..)
            | Constraint::RowIneq { .. }
            | Constraint::TotalElems(..)
            | Constraint::StridedElems { .. }
            | Constraint::Exact(..)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{Closing, ShapeErrorKind};

    fn origin() -> Origin {
        closing_origin()
    }

    /// Reference, "Preventing Premature Guessing with Total_elems
    /// Constraints": the numerator variable of a pending `Strided_var`
    /// count is not guessed together with the dims of its rows; they are
    /// guessed first and the count follows. Guessing all at once would make
    /// the count 1 and `2 * d = 1` unsatisfiable.
    #[test]
    fn strided_count_is_not_guessed_prematurely() {
        let mut s = Solver::new();
        let d = s.fresh_dim(false);
        let n = s.fresh_dim(false);
        s.add_deferred(
            Constraint::StridedElems {
                rows: thin_vec::thin_vec![Row::closed(vec![Dim::size(2), Dim::Var(d)])],
                coeff: 1,
                var: Dim::Var(n),
                denom: 1,
            },
            origin(),
        );
        s.solve(Closing::Full).expect("solvable");
        assert_eq!(s.find_dim(Dim::Var(d)), Dim::size(1));
        assert_eq!(s.find_dim(Dim::Var(n)), Dim::size(2));
    }

    /// "Cycle Breaking": two counts that each wait for the other may be
    /// guessed.
    #[test]
    fn mutual_prevention_is_broken() {
        let mut s = Solver::new();
        let (a, b) = (s.fresh_dim(false), s.fresh_dim(false));
        for (rows_var, count) in [(a, b), (b, a)] {
            s.add_deferred(
                Constraint::StridedElems {
                    rows: thin_vec::thin_vec![Row::closed(vec![Dim::Var(rows_var)])],
                    coeff: 1,
                    var: Dim::Var(count),
                    denom: 1,
                },
                origin(),
            );
        }
        s.solve(Closing::Full).expect("solvable");
        assert_eq!(s.find_dim(Dim::Var(a)), s.find_dim(Dim::Var(b)));
    }

    /// A count that does not divide: `3 * v / 2` elements for 5 cells.
    #[test]
    fn strided_count_must_divide() {
        let mut s = Solver::new();
        let n = s.fresh_dim(false);
        s.add_deferred(
            Constraint::StridedElems {
                rows: thin_vec::thin_vec![Row::closed(vec![Dim::size(5)])],
                coeff: 3,
                var: Dim::Var(n),
                denom: 2,
            },
            origin(),
        );
        let e = s
            .solve(Closing::Full)
            .expect_err("5 * 2 is not a multiple of 3");
        assert_eq!(e.kind, ShapeErrorKind::ElementCount);
    }
}
