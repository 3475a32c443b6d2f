//! Least upper bounds for the closing stages (reference, "Stage details",
//! stages 3 and 4): of a row variable, the meet of the `cur` sides of the
//! stuck inequalities `cur >= var`, followed through variable-to-variable
//! bounds; of a dim variable, its own bound or those of the variables
//! above it. Both are sized by the bounds they hold, not by the tables: at a
//! million ops, a vector per variable is hundreds of megabytes.

use std::collections::HashMap;

use super::{Axes, Constraint, Dim, Label, Row, RowVar, Solver};

impl Solver {
    /// The effective least upper bound of every free row variable that has
    /// one: the `cur` sides of the stuck inequalities `cur >= var`, followed
    /// through variable-to-variable bounds, combined by
    /// [`Solver::meet_rows`].
    ///
    /// The bounds are kept grouped by variable in one vector (not a vector
    /// per row variable): closing a program of a million ops must not
    /// allocate per variable.
    pub(super) fn row_lubs(&mut self) -> RowLubs {
        let n = self.rows.len();
        // Direct candidates: resolved `cur` of stuck `cur >= bare var`, in
        // the store's order. Most are bare variables themselves (a chain of
        // records), kept as one number; only the other rows are built.
        let mut direct: Vec<(u32, Bound)> = vec![];
        let mut built: Vec<Row> = vec![];
        for t in self.stuck() {
            if let Constraint::RowIneq { cur, subr, .. } = &t.constraint
                && let Some(w) = self.resolved_bare_var(subr)
            {
                if let Some(a) = self.resolved_bare_var(cur) {
                    if a != w {
                        direct.push((w.0, Bound::Var(a.0)));
                    }
                    continue;
                }
                let cur = self.expand_row(cur);
                if cur.var != Some(w) {
                    direct.push((w.0, Bound::Row(built.len() as u32)));
                    built.push(cur);
                }
            }
        }
        // Grouped by variable, in the store's order within a group: a
        // counting sort by variable, linear in the rows and the bounds (not
        // a comparison sort of (variable, position) pairs: at a million ops
        // there are millions). After placing, `ends[w]` is where the group
        // of `w` ends in `slots` and `ends[w - 1]` where it starts.
        let mut ends = vec![0u32; n + 1];
        for &(w, _) in &direct {
            ends[w as usize + 1] += 1;
        }
        for w in 0..n {
            ends[w + 1] += ends[w];
        }
        let mut slots = vec![0u32; direct.len()];
        for (i, &(w, _)) in direct.iter().enumerate() {
            let at = &mut ends[w as usize];
            slots[*at as usize] = i as u32;
            *at += 1;
        }
        let start = |w: u32| match w {
            0 => 0,
            w => ends[w as usize - 1] as usize,
        };
        let roots: Vec<u32> = (0..n as u32)
            .filter(|&w| start(w) < ends[w as usize] as usize)
            .collect();
        let group = |w: u32| {
            slots[start(w)..ends[w as usize] as usize]
                .iter()
                .map(|&i| direct[i as usize].1)
        };
        let order = post_order(&roots, n, |v| {
            group(v).filter_map(|b| match b {
                Bound::Var(a) => Some(a),
                Bound::Row(_) => None,
            })
        });
        // Only the bounds found take room (most variables have none).
        let mut lubs = RowLubs {
            index: vec![NONE; n],
            rows: vec![],
        };
        // The bounds of one variable, in a buffer reused for all of them.
        let mut effective: Vec<Row> = vec![];
        for v in order {
            // One bound, a variable (a link of a chain of records): its LUB,
            // shared rather than copied, unless it is `v` itself (then
            // none; what `meet_rows` concludes of one row).
            let mut bounds = group(v);
            if let (Some(Bound::Var(a)), None) = (bounds.next(), bounds.next()) {
                let i = lubs.index[a as usize];
                if i != NONE && lubs.rows[i as usize].var != Some(RowVar(v)) {
                    lubs.index[v as usize] = i;
                }
                continue;
            }
            for b in group(v) {
                match b {
                    Bound::Var(a) => effective.extend(lubs.get(a).cloned()),
                    // Each built row is one variable's bound: moved, not copied.
                    Bound::Row(i) => effective.push(std::mem::take(&mut built[i as usize])),
                }
            }
            if let Some(lub) = self.meet_rows(RowVar(v), &mut effective) {
                lubs.index[v as usize] = lubs.rows.len() as u32;
                lubs.rows.push(lub);
            }
        }
        lubs
    }

    /// The greatest row below all of `rows` (for a LUB of `v`): closed rows,
    /// if any, decide; equal rows give themselves; otherwise the common
    /// suffix, axis-wise met (after a fresh row variable unless all are
    /// closed and of one length).
    /// `rows` is left empty.
    fn meet_rows(&mut self, v: RowVar, rows: &mut Vec<Row>) -> Option<Row> {
        rows.retain(|r| r.var != Some(v));
        // Fully known bounds decide; an open bound's known axes depend on how
        // the row was reached (its representation), so it is only re-checked
        // by propagation afterwards.
        if rows.iter().any(|r| r.var.is_none()) {
            rows.retain(|r| r.var.is_none());
        }
        // In a fixed order (by the rows they resolve to, each resolved once,
        // compared as rows), one of each resolved row: the first given, as
        // the sort is stable. Sorting, not a scan per row: a variable can
        // have as many bounds as the program has ops.
        if rows.len() > 1 {
            let mut keyed: Vec<(Row, Row)> =
                rows.drain(..).map(|r| (self.resolve_row(&r), r)).collect();
            keyed.sort_by(|a, b| a.0.cmp(&b.0));
            keyed.dedup_by(|a, b| a.0 == b.0);
            rows.extend(keyed.into_iter().map(|(_, r)| r));
        }
        match rows.len() {
            0 => None,
            1 => rows.pop(),
            _ => {
                // (Rare: the buffer goes with them.)
                let rows = std::mem::take(rows);
                let n = rows.iter().map(|r| r.end.len()).min().unwrap_or(0);
                let mut end = Axes::with_capacity(n);
                for i in 0..n {
                    let mut acc: Option<Dim> = None;
                    for r in &rows {
                        let d = r.end[r.end.len() - n + i];
                        acc = Some(match acc {
                            None => d,
                            Some(a) if self.find_dim(a) == self.find_dim(d) => a,
                            Some(a) => meet_dim(self.find_dim(a), self.find_dim(d)),
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
                    beg: Axes::new(),
                    var: Some(rest),
                    end,
                })
            }
        }
    }

    /// The effective LUB of every free dim variable that has one (by
    /// variable): its own, or through stuck `u >= v` bounds the LUB of `u`.
    /// Sized by the free variables and the stuck bounds, not by the whole
    /// table (at a million ops most dims are bound long before closing).
    pub(super) fn dim_lubs(&self, free: &[u32]) -> HashMap<u32, (u64, Label)> {
        // `(v, u)` for each stuck `u >= v`, sorted: the bounds of `v` are
        // one run.
        let mut edges: Vec<u64> = self
            .stuck()
            .filter_map(|t| match &t.constraint {
                Constraint::DimIneq { cur, subr } => {
                    match (self.find_dim(*cur), self.find_dim(*subr)) {
                        (Dim::Var(u), Dim::Var(v)) if u != v => {
                            Some((u64::from(v.0) << 32) | u64::from(u.0))
                        }
                        _ => None,
                    }
                }
                _ => None,
            })
            .collect();
        edges.sort_unstable();
        let upper = |v: u32| {
            let start = edges.partition_point(|&e| (e >> 32) < u64::from(v));
            edges[start..]
                .iter()
                .take_while(move |&&e| (e >> 32) as u32 == v)
                .map(|&e| e as u32)
        };
        let mut out: HashMap<u32, (u64, Label)> = HashMap::new();
        for v in post_order(free, self.dims.len(), |v| upper(v)) {
            let mut found: Vec<(u64, Label)> = vec![];
            if let Some(&(d, l, _)) = self.lubs.get(&v) {
                found.push((d, l));
            }
            for u in upper(v) {
                found.extend(out.get(&u).copied());
            }
            found.sort_unstable();
            found.dedup();
            let lub = match found.as_slice() {
                [] => continue,
                [one] => *one,
                // Different upper bounds: only 1 broadcasts to all.
                _ => (1, Label::NONE),
            };
            out.insert(v, lub);
        }
        out
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

/// The nodes reachable from `roots` (over the adjacency lists `succ`, nodes
/// `0..n`) in post-order: successors first, each node once, back edges of
/// cycles ignored. Iterative: chains can be a million long.
fn post_order<I: Iterator<Item = u32>>(
    roots: &[u32],
    n: usize,
    succ: impl Fn(u32) -> I,
) -> Vec<u32> {
    // 0: unseen, 1: on the stack, 2: done.
    let mut state = vec![0u8; n];
    let mut order = Vec::new();
    let mut stack: Vec<(u32, I)> = vec![];
    for &root in roots {
        if state[root as usize] != 0 {
            continue;
        }
        state[root as usize] = 1;
        stack.push((root, succ(root)));
        while let Some((node, children)) = stack.last_mut() {
            if let Some(child) = children.next() {
                if state[child as usize] == 0 {
                    state[child as usize] = 1;
                    stack.push((child, succ(child)));
                }
            } else {
                state[*node as usize] = 2;
                order.push(*node);
                stack.pop();
            }
        }
    }
    order
}

/// No entry (in [`RowLubs`] and the grouping of [`Solver::row_lubs`]).
const NONE: u32 = u32::MAX;

/// The least upper bounds [`Solver::row_lubs`] computed, by row variable.
pub(super) struct RowLubs {
    /// Per row variable: its place in `rows`, or [`NONE`].
    index: Vec<u32>,
    /// The bounds found.
    rows: Vec<Row>,
}

/// A direct bound of [`Solver::row_lubs`]: a bare row variable, or the
/// place of a built row.
#[derive(Clone, Copy)]
enum Bound {
    Var(u32),
    Row(u32),
}

impl RowLubs {
    /// No bounds (nothing computed).
    pub(super) fn none() -> Self {
        RowLubs {
            index: vec![],
            rows: vec![],
        }
    }

    /// The least upper bound of `v`, if it has one.
    pub(super) fn get(&self, v: u32) -> Option<&Row> {
        match self.index.get(v as usize) {
            Some(&i) if i != NONE => Some(&self.rows[i as usize]),
            _ => None,
        }
    }
}
