//! Reading rows through the bindings of the variable tables:
//! substitution ([`Solver::resolve_row`], [`Solver::expand_row`] and its
//! marked form), and the questions asked of a row without building it
//! (its free variable, whether it is empty, its concrete axes).

use super::{Axes, Dim, Row, RowVar, Solver};

impl Solver {
    /// A row with every bound variable substituted (dims to representatives).
    pub fn resolve_row(&self, row: &Row) -> Row {
        let mut r = self.expand_row(row);
        for d in r.beg.iter_mut().chain(r.end.iter_mut()) {
            *d = self.find_dim(*d);
        }
        r
    }

    /// Appends the axes of `row` to `out` (each as its size and its label)
    /// when the row resolves to a closed row of sizes, without building
    /// the row; `false` when a variable is left (`out` is then partly
    /// written). The key of a concrete row for callers that meet the same
    /// solved rows many times (`resolve_row` allocates each time).
    pub(crate) fn concrete_axes(&self, row: &Row, out: &mut Vec<u64>) -> bool {
        // The rows of the binding chain whose `end` axes are still to come
        // (chains are short: solving ends with them compressed).
        let mut chain: [&Row; 8] = [row; 8];
        let mut n = 0;
        let mut cur = row;
        let start = out.len();
        let dim = |s: &Self, d: Dim, out: &mut Vec<u64>| match s.find_dim(d) {
            Dim::Size(size, label) => {
                out.extend([size, u64::from(label.0)]);
                true
            }
            Dim::Var(_) => false,
        };
        loop {
            if !cur.beg.iter().all(|&d| dim(self, d, out)) {
                return false;
            }
            let Some(v) = cur.var else { break };
            let Some((inner, _)) = &self.rows[v.0 as usize].binding else {
                return false;
            };
            if n == chain.len() {
                // A long chain: the general walk, from the start.
                out.truncate(start);
                let r = self.resolve_row(row);
                return r.var.is_none() && r.end.iter().all(|&d| dim(self, d, out));
            }
            chain[n] = cur;
            n += 1;
            cur = inner;
        }
        cur.end.iter().all(|&d| dim(self, d, out))
            && chain[..n]
                .iter()
                .rev()
                .all(|r| r.end.iter().all(|&d| dim(self, d, out)))
    }

    /// The row's variable if the row is a bare, unbound row variable.
    pub(crate) fn free_bare_var(&self, row: &Row) -> Option<RowVar> {
        let v = row.bare_var()?;
        self.rows[v.0 as usize].binding.is_none().then_some(v)
    }

    /// `self.resolve_row(row).bare_var()`, without building the row.
    pub(crate) fn resolved_bare_var(&self, row: &Row) -> Option<RowVar> {
        self.axis_free_end(row).flatten()
    }

    /// Whether `row` resolves to the closed row without axes, without
    /// building it (what closing leaves most rows as).
    pub(crate) fn resolves_empty(&self, row: &Row) -> bool {
        self.axis_free_end(row) == Some(None)
    }

    /// Where `row` ends when neither it nor any row its variable is bound
    /// through has axes: the free variable it resolves to, or `Some(None)`
    /// for the closed row without axes; `None` when there are axes.
    fn axis_free_end(&self, row: &Row) -> Option<Option<RowVar>> {
        if !row.beg.is_empty() || !row.end.is_empty() {
            return None;
        }
        let mut var = row.var;
        while let Some(v) = var {
            match &self.rows[v.0 as usize].binding {
                None => break,
                Some((inner, _)) if inner.beg.is_empty() && inner.end.is_empty() => {
                    var = inner.var;
                }
                Some(_) => return None,
            }
        }
        Some(var)
    }

    /// `self.resolve_row(row).var`, without building the row.
    pub(crate) fn resolved_var(&self, row: &Row) -> Option<RowVar> {
        let mut v = row.var?;
        while let Some((inner, _)) = &self.rows[v.0 as usize].binding {
            v = inner.var?;
        }
        Some(v)
    }

    /// A row with bound row variables substituted; dims are kept as written,
    /// so that their binding chains (provenance) stay reachable.
    pub(crate) fn expand_row(&self, row: &Row) -> Row {
        match self.link(row) {
            // (A marked row, leading axes without a variable, normalises.)
            Link::Unbound => row.clone().normalize(),
            Link::One(inner) if inner.var.is_some() => Row {
                beg: concat(&row.beg, &inner.beg),
                var: inner.var,
                end: concat(&inner.end, &row.end),
            },
            Link::One(inner) if inner.beg.is_empty() => Row {
                beg: Axes::new(),
                var: None,
                end: concat3(&row.beg, &inner.end, &row.end),
            },
            _ => self.expand_row_marked(row).normalize(),
        }
    }

    /// How far `row`'s variable is bound. Chains are short (compression), so
    /// [`Link::Unbound`] and [`Link::One`] are the usual cases, which the
    /// expansions build directly, each vector allocated once at its size.
    fn link<'s>(&'s self, row: &Row) -> Link<'s> {
        let Some(v) = row.var else {
            return Link::Unbound;
        };
        match &self.rows[v.0 as usize].binding {
            None => Link::Unbound,
            Some((inner, _))
                if !self.no_shortcuts
                    && inner
                        .var
                        .is_none_or(|u| self.rows[u.0 as usize].binding.is_none()) =>
            {
                Link::One(inner)
            }
            Some(_) => Link::Chain,
        }
    }

    /// [`Solver::expand_row`], keeping the marker: the leading axes of each
    /// row reached stay in `beg` even when the row ends closed (the result
    /// may then have `beg` without a variable; see `solver/marked.rs`).
    pub(crate) fn expand_row_marked(&self, row: &Row) -> Row {
        match self.link(row) {
            Link::Unbound => return row.clone(),
            Link::One(inner) => {
                return Row {
                    beg: concat(&row.beg, &inner.beg),
                    var: inner.var,
                    end: concat(&inner.end, &row.end),
                };
            }
            Link::Chain => {}
        }
        let mut beg: Axes = row.beg.clone();
        let mut end_rev: Axes = row.end.iter().rev().copied().collect();
        let mut var = row.var;
        while let Some(v) = var {
            match &self.rows[v.0 as usize].binding {
                Some((inner, _)) => {
                    beg.extend(inner.beg.iter().copied());
                    end_rev.extend(inner.end.iter().rev().copied());
                    var = inner.var;
                }
                None => break,
            }
        }
        end_rev.reverse();
        Row {
            beg,
            var,
            end: end_rev,
        }
    }
}

/// How far a row's variable is bound ([`Solver::link`]).
enum Link<'s> {
    /// No variable, or a free one: nothing to substitute.
    Unbound,
    /// Bound to this row, whose variable is free or absent.
    One(&'s Row),
    /// Bound through more than one link.
    Chain,
}

/// `a ++ b`, allocated once.
pub(super) fn concat(a: &[Dim], b: &[Dim]) -> Axes {
    let mut out = Axes::with_capacity(a.len() + b.len());
    out.extend_from_slice(a);
    out.extend_from_slice(b);
    out
}

/// `a ++ b ++ c`, allocated once.
fn concat3(a: &[Dim], b: &[Dim], c: &[Dim]) -> Axes {
    let mut out = Axes::with_capacity(a.len() + b.len() + c.len());
    out.extend_from_slice(a);
    out.extend_from_slice(b);
    out.extend_from_slice(c);
    out
}

#[cfg(test)]
mod tests {
    use crate::solver::{Dim, Label, OpId, Origin, Role, Row, Solver, axes};
    use crate::spec::RowKind;

    /// `Solver::concrete_axes` on binding chains shorter and longer than
    /// its walk keeps (8 links; solving compresses chains, so the longer
    /// ones are built here by hand): the key of the resolved row, or
    /// `false` while a variable is left.
    #[test]
    fn concrete_axes_on_long_chains() {
        let origin = Origin::new(
            OpId(0),
            (Role::Result, RowKind::Output),
            (Role::Result, RowKind::Output),
        );
        for links in [1, 7, 8, 9, 20] {
            let mut s = Solver::new();
            let vars: Vec<_> = (0..=links)
                .map(|_| s.fresh_row(RowKind::Output, false))
                .collect();
            let label = Label(0);
            for (i, w) in vars.windows(2).enumerate() {
                let i = i as u64;
                let row = Row {
                    beg: axes![Dim::Size(100 + i, label)],
                    var: Some(w[1]),
                    end: axes![Dim::Size(200 + i, label)],
                };
                s.bind_row(w[0], row, origin).unwrap();
            }
            let start = Row::of_var(vars[0]);
            let mut key = vec![];
            assert!(
                !s.concrete_axes(&start, &mut key),
                "{links} links, last free"
            );
            s.bind_row(
                *vars.last().unwrap(),
                Row::closed(vec![Dim::size(7)]),
                origin,
            )
            .unwrap();
            let mut key = vec![];
            assert!(s.concrete_axes(&start, &mut key), "{links} links");
            let expected: Vec<u64> = s
                .resolve_row(&start)
                .end
                .iter()
                .flat_map(|d| match d {
                    Dim::Size(n, l) => [*n, u64::from(l.0)],
                    Dim::Var(_) => unreachable!("the row is closed"),
                })
                .collect();
            assert_eq!(key, expected, "{links} links");
        }
    }
}
