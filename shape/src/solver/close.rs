//! The closing stages (reference: "Stage overview" and "Stage details").
//!
//! | stage | dims | rows |
//! |---|---|---|
//! | 3 | — | terminal → LUB; `Total_elems` → one axis where required |
//! | 4 | terminal → LUB | terminal → no further axes |
//! | 5 | terminal → lower bound or 1 | — |
//! | 6 | — | all remaining → no further axes |
//! | 7 | all remaining → lower bound or 1 | — |
//!
//! Stage 2 (precision coefficients) has no counterpart here. Every stage
//! first decides for all candidates from the same snapshot of the solver,
//! then binds, then propagates to a fixpoint.

use std::collections::HashMap;

use super::{Constraint, Dim, DimVar, Label, OpId, Origin, Role, Row, RowVar, ShapeError, Solver};
use crate::spec::RowKind;

/// The origin recorded for bindings made by closing.
fn closing_origin() -> Origin {
    Origin::new(
        OpId(u32::MAX),
        (Role::Result, RowKind::Output),
        (Role::Result, RowKind::Output),
    )
}

impl Solver {
    /// Runs closing stages 3 to 7 (after [`Solver::propagate`]).
    ///
    /// # Errors
    ///
    /// A constraint that the closing decisions make unsatisfiable.
    pub fn close(&mut self) -> Result<(), ShapeError> {
        // Stage 3: terminal row variables take their least upper bound.
        let lubs = self.row_lubs();
        let decisions: Vec<(RowVar, Row)> = self
            .free_rows()
            .filter(|v| self.rows[v.0 as usize].terminal)
            .filter_map(|v| lubs.get(&v).map(|lub| (v, lub.clone())))
            .collect();
        self.bind_rows(decisions)?;
        self.propagate()?;
        self.resolve_total_elems()?;
        self.propagate()?;

        // Stage 4: terminal dims take their LUB; terminal rows close.
        let dim_lubs = self.dim_lubs();
        let decisions: Vec<(DimVar, Dim)> = self
            .free_dims()
            .filter(|v| self.dims[v.0 as usize].terminal)
            .filter_map(|v| dim_lubs.get(&v).map(|(d, l)| (v, Dim::Size(*d, *l))))
            .collect();
        self.bind_dims(decisions)?;
        let decisions: Vec<(RowVar, Row)> = self
            .free_rows()
            .filter(|v| self.rows[v.0 as usize].terminal)
            .map(|v| (v, Row::closed(vec![])))
            .collect();
        self.bind_rows(decisions)?;
        self.propagate()?;

        // Stage 5: remaining terminal dims take their lower bound or 1.
        let decisions: Vec<(DimVar, Dim)> = self
            .free_dims()
            .filter(|v| self.dims[v.0 as usize].terminal)
            .map(|v| (v, Dim::size(self.dims[v.0 as usize].at_least)))
            .collect();
        self.bind_dims(decisions)?;
        self.propagate()?;
        self.resolve_total_elems()?;
        self.propagate()?;

        // Stage 6: every remaining row variable closes.
        let decisions: Vec<(RowVar, Row)> =
            self.free_rows().map(|v| (v, Row::closed(vec![]))).collect();
        self.bind_rows(decisions)?;
        self.propagate()?;

        // Stage 7: every remaining dim takes its lower bound or 1.
        let decisions: Vec<(DimVar, Dim)> = self
            .free_dims()
            .map(|v| (v, Dim::size(self.dims[v.0 as usize].at_least)))
            .collect();
        self.bind_dims(decisions)?;
        self.propagate()
    }

    fn bind_rows(&mut self, decisions: Vec<(RowVar, Row)>) -> Result<(), ShapeError> {
        for (v, row) in decisions {
            if self.rows[v.0 as usize].binding.is_some() {
                continue;
            }
            let row = self.resolve_row(&row);
            if row.var == Some(v) {
                continue;
            }
            self.bind_row(v, row, closing_origin())?;
        }
        Ok(())
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

    /// The effective least upper bound of every free row variable that has
    /// one: the `cur` sides of the stuck inequalities `cur >= var`, followed
    /// through variable-to-variable bounds, combined by [`meet_rows`].
    fn row_lubs(&mut self) -> HashMap<RowVar, Row> {
        // Direct candidates: resolved `cur` of stuck `cur >= bare var`.
        let mut direct: HashMap<RowVar, Vec<Row>> = HashMap::new();
        for t in self.stuck() {
            if let Constraint::RowIneq { cur, subr } = &t.constraint {
                let subr = self.resolve_row(subr);
                if let Some(w) = subr.bare_var() {
                    let cur = self.resolve_row(cur);
                    if cur.var != Some(w) {
                        direct.entry(w).or_default().push(cur);
                    }
                }
            }
        }
        // Follow bare-variable candidates through the bound graph.
        let mut keys: Vec<RowVar> = direct.keys().copied().collect();
        keys.sort();
        let succ = |v: RowVar| -> Vec<RowVar> {
            direct
                .get(&v)
                .map(|cs| cs.iter().filter_map(Row::bare_var).collect())
                .unwrap_or_default()
        };
        let order = post_order(&keys, succ);
        let mut done: HashMap<RowVar, Option<Row>> = HashMap::new();
        for v in order {
            let mut effective: Vec<Row> = vec![];
            for c in direct.get(&v).cloned().unwrap_or_default() {
                match c.bare_var() {
                    Some(a) => {
                        if let Some(Some(lub)) = done.get(&a) {
                            effective.push(lub.clone());
                        }
                    }
                    None => effective.push(c),
                }
            }
            let lub = self.meet_rows(v, effective);
            done.insert(v, lub);
        }
        done.into_iter()
            .filter_map(|(v, l)| l.map(|l| (v, l)))
            .collect()
    }

    /// The greatest row below all of `rows` (for a LUB of `v`): equal rows
    /// give themselves; otherwise the common suffix, axis-wise met, after a
    /// fresh row variable.
    fn meet_rows(&mut self, v: RowVar, mut rows: Vec<Row>) -> Option<Row> {
        rows.retain(|r| r.var != Some(v));
        rows.sort_by_key(|r| format!("{r:?}"));
        rows.dedup();
        match rows.len() {
            0 => None,
            1 => rows.pop(),
            _ => {
                let n = rows.iter().map(|r| r.end.len()).min().unwrap_or(0);
                let mut end = Vec::with_capacity(n);
                for i in 0..n {
                    let mut acc: Option<Dim> = None;
                    for r in &rows {
                        let d = r.end[r.end.len() - n + i];
                        acc = Some(match acc {
                            None => d,
                            Some(a) => meet_dim(a, d),
                        });
                    }
                    end.push(acc.expect("at least two rows"));
                }
                let all_closed = rows.iter().all(|r| r.var.is_none());
                let same_len = rows.iter().all(|r| r.end.len() == n);
                if all_closed && same_len {
                    return Some(Row::closed(end));
                }
                let info = &self.rows[v.0 as usize];
                let (kind, terminal) = (info.kind, info.terminal);
                let rest = self.fresh_row(kind, terminal);
                Some(Row {
                    beg: vec![],
                    var: Some(rest),
                    end,
                })
            }
        }
    }

    /// The effective LUB of every free dim variable that has one: its own,
    /// or through stuck `u >= v` bounds the LUB of `u`.
    fn dim_lubs(&self) -> HashMap<DimVar, (u64, Label)> {
        let mut upper: HashMap<DimVar, Vec<DimVar>> = HashMap::new();
        for t in self.stuck() {
            if let Constraint::DimIneq { cur, subr } = &t.constraint
                && let (Dim::Var(u), Dim::Var(v)) = (self.find_dim(*cur), self.find_dim(*subr))
                && u != v
            {
                upper.entry(v).or_default().push(u);
            }
        }
        let mut free: Vec<DimVar> = self.free_dims().collect();
        free.sort();
        let order = post_order(&free, |v| upper.get(&v).cloned().unwrap_or_default());
        let mut out: HashMap<DimVar, (u64, Label)> = HashMap::new();
        for v in order {
            let mut found: Vec<(u64, Label)> = vec![];
            if let Some((d, l, _)) = self.dims[v.0 as usize].lub {
                found.push((d, l));
            }
            for u in upper.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
                if let Some(&b) = out.get(u) {
                    found.push(b);
                }
            }
            found.sort();
            found.dedup();
            match found.as_slice() {
                [] => {}
                [one] => {
                    out.insert(v, *one);
                }
                // Different upper bounds: only 1 broadcasts to all.
                _ => {
                    out.insert(v, (1, Label::NONE));
                }
            }
        }
        out
    }

    /// `Total_elems` with row variables left (reference, stage 5): one row
    /// variable takes what is missing (one axis) or nothing; with several,
    /// the output-kind one does and the others get no further axes.
    fn resolve_total_elems(&mut self) -> Result<(), ShapeError> {
        let mut decisions: Vec<(RowVar, Row)> = vec![];
        for t in self.stuck() {
            let Constraint::TotalElems(rows, n) = &t.constraint else {
                continue;
            };
            let rows: Vec<Row> = rows.iter().map(|r| self.resolve_row(r)).collect();
            let vars: Vec<RowVar> = rows.iter().filter_map(|r| r.var).collect();
            if vars.is_empty() {
                continue;
            }
            let mut known: u64 = 1;
            let mut has_dim_vars = false;
            for r in &rows {
                for d in r.beg.iter().chain(&r.end) {
                    match d {
                        Dim::Size(s, _) => known = known.saturating_mul(*s),
                        Dim::Var(_) => has_dim_vars = true,
                    }
                }
            }
            let receiver = vars
                .iter()
                .copied()
                .find(|v| self.rows[v.0 as usize].kind == RowKind::Output)
                .unwrap_or(vars[vars.len() - 1]);
            for &v in &vars {
                if v != receiver {
                    decisions.push((v, Row::closed(vec![])));
                }
            }
            if has_dim_vars || known == 0 {
                continue;
            }
            if known == *n {
                decisions.push((receiver, Row::closed(vec![])));
            } else if n % known == 0 {
                decisions.push((receiver, Row::closed(vec![Dim::size(n / known)])));
            }
        }
        decisions.sort_by_key(|(v, _)| *v);
        decisions.dedup_by_key(|(v, _)| *v);
        self.bind_rows(decisions)
    }
}

/// The meet of two axes: equal axes give themselves; a size > 1 against a
/// variable gives the size; anything else only 1 fits under both.
fn meet_dim(a: Dim, b: Dim) -> Dim {
    match (a, b) {
        (x, y) if x == y => x,
        (Dim::Size(d, l), Dim::Var(_)) | (Dim::Var(_), Dim::Size(d, l)) if d > 1 => Dim::Size(d, l),
        (Dim::Var(_), Dim::Var(_)) => a,
        _ => Dim::size(1),
    }
}

/// The nodes reachable from `roots` in post-order (successors first), each
/// once; back edges of cycles are ignored. Iterative: chains can be long.
fn post_order<K: Copy + Eq + std::hash::Hash>(roots: &[K], succ: impl Fn(K) -> Vec<K>) -> Vec<K> {
    let mut state: HashMap<K, bool> = HashMap::new(); // false: on the stack, true: done
    let mut order = Vec::new();
    for &root in roots {
        if state.contains_key(&root) {
            continue;
        }
        state.insert(root, false);
        let mut stack = vec![(root, succ(root), 0usize)];
        while let Some((node, children, next)) = stack.last_mut() {
            if let Some(&child) = children.get(*next) {
                *next += 1;
                if let std::collections::hash_map::Entry::Vacant(e) = state.entry(child) {
                    e.insert(false);
                    let grandchildren = succ(child);
                    stack.push((child, grandchildren, 0));
                }
            } else {
                let node = *node;
                state.insert(node, true);
                order.push(node);
                stack.pop();
            }
        }
    }
    order
}
