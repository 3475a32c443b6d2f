//! Closing element counts (reference, stage 5, and `Total_elems`): a
//! `TotalElems`, `StridedElems` or `Exact` constraint still stuck on row
//! variables decides which of them takes the missing axes.
//!
//! Deciding one count can unlock another (a chain of reshapes, each result
//! known only once the one before is), so closing repeats rounds until one
//! decides nothing. A round only needs the constraints that changed since
//! the last: a stuck constraint watches every variable its decision reads,
//! so one that was not re-examined by propagation since the last round
//! decides what it decided then (nothing). Rounds after the first therefore
//! look only at the constraints propagation left stuck again
//! ([`Solver::restuck`]), which keeps a chain of N reshapes linear instead
//! of N rounds over every constraint. The exception is a pending
//! `StridedElems` count: it reads least upper bounds, which any binding can
//! change, so while one is pending every round looks at everything.

use super::{
    Constraint, Dim, Row, RowVar, ShapeError, Solver,
    counts::{Factors, factors},
};
use crate::spec::RowKind;

impl Solver {
    /// Runs element-count rounds, each followed by propagation, until a
    /// round decides nothing (see the module documentation).
    pub(super) fn close_element_counts(&mut self) -> Result<(), ShapeError> {
        if !self.has_counts {
            // Nothing to decide: no scan of the store.
            return Ok(());
        }
        let mut ids: Vec<u32> = self.stuck_ids().collect();
        loop {
            // Least upper bounds depend on every row: while a strided count
            // is pending, a round looks at everything (and so does the next,
            // since any binding may have changed them). A pending one outside
            // a partial `ids` was not pending then and has not changed since.
            let strided = self.strided_pending(&ids);
            if strided {
                ids = self.stuck_ids().collect();
            }
            let lubs = if strided {
                self.row_lubs()
            } else {
                super::lubs::RowLubs::none()
            };
            self.restuck = Some(Vec::new());
            let progress = match self.resolve_total_elems(&ids, &lubs) {
                Ok(true) => self.propagate().map(|()| true),
                other => other,
            };
            let restuck = self.restuck.take().unwrap_or_default();
            if !progress? {
                return Ok(());
            }
            if strided {
                ids = self.stuck_ids().collect();
            } else {
                ids = restuck;
                ids.sort_unstable();
                ids.dedup();
            }
        }
    }

    /// The slots of the constraints stuck now, in slot order.
    fn stuck_ids(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.store.len() as u32).filter(|&id| self.store[id as usize].is_some())
    }

    /// Whether a `StridedElems` among `ids` still has an unknown count and
    /// rows with one row variable: only such a constraint reads least upper
    /// bounds (with more row variables it decides nothing, and it can only
    /// come down to one through bindings that wake it).
    fn strided_pending(&self, ids: &[u32]) -> bool {
        ids.iter()
            .filter_map(|&id| self.store[id as usize].as_ref())
            .any(|t| match &t.constraint {
                Constraint::StridedElems { rows, var, .. } => {
                    matches!(self.find_dim(*var), Dim::Var(_))
                        && rows
                            .iter()
                            .filter(|r| self.expand_row_marked(r).var.is_some())
                            .count()
                            == 1
                }
                _ => false,
            })
    }

    /// Of several row variables, the one that takes missing axes: the
    /// output-kind one, else the last; the others get no further axes
    /// (pushed to `decisions`). Returns the receiver.
    pub(super) fn close_all_but_receiver(
        &self,
        vars: &[RowVar],
        decisions: &mut Vec<(RowVar, Row)>,
    ) -> RowVar {
        let receiver = vars
            .iter()
            .copied()
            .find(|v| self.rows[v.0 as usize].kind == RowKind::Output)
            .unwrap_or(vars[vars.len() - 1]);
        for &v in vars {
            if v != receiver {
                decisions.push((v, Row::closed(vec![])));
            }
        }
        receiver
    }

    /// `Total_elems` with row variables left (reference, stage 5): one row
    /// variable takes what is missing (one axis) or nothing; with several,
    /// the output-kind one does and the others get no further axes. A
    /// `StridedElems` whose count is unknown takes its single row
    /// variable's least upper bound when that is fully known (then the count
    /// follows). An `Exact` with several row variables gives the axes to the
    /// output-kind one (or the last) and no further axes to the others.
    fn resolve_total_elems(
        &mut self,
        ids: &[u32],
        lubs: &super::lubs::RowLubs,
    ) -> Result<bool, ShapeError> {
        let mut decisions: Vec<(RowVar, Row)> = vec![];
        for t in ids
            .iter()
            .filter_map(|&id| self.store[id as usize].as_ref())
        {
            match &t.constraint {
                Constraint::StridedElems { rows, var, .. } => {
                    if !matches!(self.find_dim(*var), Dim::Var(_)) {
                        continue;
                    }
                    let rows: Vec<Row> = rows.iter().map(|r| self.resolve_row(r)).collect();
                    let vars: Vec<RowVar> = rows.iter().filter_map(|r| r.var).collect();
                    if let [v] = vars.as_slice()
                        && let Some(lub) = lubs.get(v.0)
                        && lub.var.is_none()
                        && lub
                            .end
                            .iter()
                            .all(|d| matches!(self.find_dim(*d), Dim::Size(..)))
                    {
                        decisions.push((*v, lub.clone()));
                    }
                    continue;
                }
                Constraint::Exact(rows, _) => {
                    let rows: Vec<Row> = rows.iter().map(|r| self.resolve_row(r)).collect();
                    let vars: Vec<RowVar> = rows.iter().filter_map(|r| r.var).collect();
                    if vars.len() > 1 {
                        self.close_all_but_receiver(&vars, &mut decisions);
                    }
                    continue;
                }
                _ => {}
            }
            let Constraint::TotalElems(rows, n) = &t.constraint else {
                continue;
            };
            let rows: Vec<Row> = rows.iter().map(|r| self.resolve_row(r)).collect();
            let Factors {
                known,
                dims,
                rows: vars,
            } = factors(&rows);
            if vars.is_empty() {
                continue;
            }
            let known = match known {
                Ok(known) => known,
                Err(product) => return Err(self.count_overflow(&rows, &product, t.origin)),
            };
            let receiver = self.close_all_but_receiver(&vars, &mut decisions);
            if !dims.is_empty() || known == 0 {
                continue;
            }
            if known == *n {
                decisions.push((receiver, Row::closed(vec![])));
            } else if n.is_multiple_of(known) {
                decisions.push((receiver, Row::closed(vec![Dim::size(n / known)])));
            }
        }
        decisions.sort_by_key(|(v, _)| *v);
        decisions.dedup_by_key(|(v, _)| *v);
        let progress = decisions
            .iter()
            .any(|(v, _)| self.rows[v.0 as usize].binding.is_none());
        self.bind_rows(decisions)?;
        Ok(progress)
    }
}

#[cfg(test)]
mod tests {
    use crate::{
        problem::{OpLogic, Problem},
        solver::{Closing, OpId},
        spec::parse_shape_spec,
    };

    /// A chain of 20,000 reshapes of unknown results: each count is known
    /// only once the previous result is closed, one round each. Rounds look
    /// only at what changed, so this is linear (it was 20,000 rounds over
    /// every constraint).
    #[test]
    fn a_long_chain_of_reshapes_closes_round_by_round() {
        const N: u32 = 20_000;
        let mut p = Problem::new();
        let open = parse_shape_spec("...|...->...").expect("a spec");
        let mut prev = p.shape_from_spec(&parse_shape_spec("8|16->32").expect("a spec"), false);
        let first = prev;
        for i in 0..N {
            let next = p.shape_from_spec(&open, false);
            p.add_op(OpId(i), OpLogic::Reshape, &[prev], next)
                .expect("a valid op");
            prev = next;
        }
        p.solve(Closing::Full).expect("solvable");
        assert_eq!(p.to_spec(first).to_string(), "8|16->32");
        // Each result keeps the element count, all in its output row.
        assert_eq!(p.to_spec(prev).to_string(), "4096");
    }
}
