//! Ambiguous alignments in the closing stages: stuck constraints whose
//! alignment depends on a row variable's length take the solution of least
//! rank ([`Solver::resolve_ambiguous_alignments`] before the stages,
//! [`Solver::close_ambiguous_equations`] before rows close).

use super::{Constraint, Row, RowVar, ShapeError, Solver};

impl Solver {
    /// A stuck equation `u ++ e1 = b2 ++ v` (leftovers crossing) has
    /// several solutions; the one of least rank closes one side: `u = []`
    /// when `|e1| >= |b2|` (then `v` is the rest of `e1`), else `v = []`.
    /// Closing both sides at once (stage 6) would break the equation. A
    /// stuck `x ++ v = v ++ y` takes `v = []`.
    ///
    /// Which equations `which` selects: same-variable ones, crossing ones
    /// between two terminal variables (before terminal rows close together),
    /// or all crossing ones (before all rows close).
    pub(super) fn close_ambiguous_equations(&mut self, which: Ambiguous) -> Result<(), ShapeError> {
        let mut decisions: Vec<(RowVar, Row)> = vec![];
        for t in self.stuck() {
            let Constraint::RowEq(a, b) = &t.constraint else {
                continue;
            };
            let (a, b) = (self.resolve_row(a), self.resolve_row(b));
            let (Some(u), Some(v)) = (a.var, b.var) else {
                continue;
            };
            if decisions.iter().any(|(x, _)| *x == u || *x == v) {
                continue;
            }
            if u == v {
                if which == Ambiguous::SameVariable {
                    // `x ++ v = v ++ y`: v = [] (then x = y).
                    decisions.push((u, Row::closed(vec![])));
                }
                continue;
            }
            let terminal = |s: &Self, r: RowVar| s.rows[r.0 as usize].terminal;
            match which {
                Ambiguous::SameVariable => continue,
                Ambiguous::CrossingTerminal if !(terminal(self, u) && terminal(self, v)) => {
                    continue;
                }
                _ => {}
            }
            if let Some(close) = crossing_side(&a, &b, u, v) {
                decisions.push((close, Row::closed(vec![])));
            }
        }
        self.bind_rows(decisions)?;
        self.propagate()
    }

    /// Stuck constraints whose alignment depends on a row variable's length
    /// (a row with leading axes before its variable, an equation whose
    /// leftovers cross, a row against itself) hold information that some
    /// representations of the same rows show and others hide. Each such
    /// variable takes the least rank, `[]` (for a crossing equation, the side
    /// that keeps it solvable), all decided from one snapshot; repeated until
    /// no ambiguity is left.
    pub(super) fn resolve_ambiguous_alignments(&mut self) -> Result<(), ShapeError> {
        loop {
            let mut decisions: Vec<RowVar> = vec![];
            for t in self.stuck() {
                let pick = match &t.constraint {
                    Constraint::RowEq(a, b) => {
                        let (a, b) = (self.resolve_row(a), self.resolve_row(b));
                        match (a.var, b.var) {
                            (Some(u), Some(v)) if u == v => Some(u),
                            (Some(u), Some(v)) => crossing_side(&a, &b, u, v),
                            _ => None,
                        }
                    }
                    // A `cur >= w` record (most stuck inequalities), told
                    // apart without building rows.
                    Constraint::RowIneq { cur, subr, .. }
                        if self
                            .resolved_bare_var(subr)
                            .is_some_and(|w| self.resolved_var(cur) != Some(w)) =>
                    {
                        None
                    }
                    Constraint::RowIneq { cur, subr, .. } => {
                        let (cur, subr) = (self.resolve_row(cur), self.resolve_row(subr));
                        match (cur.var, subr.var) {
                            (Some(a), Some(w)) if a == w => Some(a),
                            (_, Some(w)) if !subr.beg.is_empty() => Some(w),
                            (Some(a), _) if !cur.beg.is_empty() => Some(a),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                if let Some(v) = pick {
                    decisions.push(v);
                }
            }
            if decisions.is_empty() {
                return Ok(());
            }
            decisions.sort_unstable();
            decisions.dedup();
            self.bind_rows(
                decisions
                    .into_iter()
                    .map(|v| (v, Row::closed(vec![])))
                    .collect(),
            )?;
            self.propagate()?;
        }
    }
}

/// For a stuck equation `a = b` between rows with variables `u` and `v`
/// whose leftovers cross (`u ++ e1 = b2 ++ v` or `b1 ++ u = v ++ e2`), the
/// variable whose closing keeps the equation solvable with least rank.
fn crossing_side(a: &Row, b: &Row, u: RowVar, v: RowVar) -> Option<RowVar> {
    let nb = a.beg.len().min(b.beg.len());
    let ne = a.end.len().min(b.end.len());
    let (b1, e1) = (a.beg.len() - nb, a.end.len() - ne);
    let (b2, e2) = (b.beg.len() - nb, b.end.len() - ne);
    if b1 == 0 && e2 == 0 && e1 > 0 && b2 > 0 {
        Some(if e1 >= b2 { u } else { v })
    } else if b2 == 0 && e1 == 0 && e2 > 0 && b1 > 0 {
        Some(if e2 >= b1 { v } else { u })
    } else {
        None
    }
}

/// The ambiguous equations a closing step resolves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ambiguous {
    SameVariable,
    CrossingTerminal,
    Crossing,
}
