//! Path compression of row bindings.
//!
//! A row variable is bound to a row that may itself end in a bound variable,
//! so expanding a row ([`Solver::expand_row_marked`]) walks a chain of
//! bindings. Such chains are as long as the program when tensors are passed
//! along it: a chain of 8,000 functions each forwarding its argument made
//! reading back every shape walk every chain, quadratic in the program
//! (1.9 s; linear after compression).
//!
//! [`Solver::compress_rows`] rebinds bound variables to their expansions,
//! so that no chain has more than two links to open rows (and one more to
//! a closed row, where it ends). It looks at every row, so it
//! runs at the end of [`Solver::solve`] and after a propagation that bound
//! at least an eighth as many rows as there are (amortised linear). Only
//! bindings to open rows (ending in a variable) count: a binding to a
//! closed row ends every chain through its variable for good, adding one
//! link at most to each, and a compression leaves that link (at a million
//! ops, the closing stages bind millions of rows to closed ones, and a
//! compression after them rebuilt a million chains for one link each:
//! 290 ms). The expansion is what every
//! reader of the binding computes anyway (the axes of the links
//! concatenated, the leading ones kept before the variable as
//! `expand_row_marked` keeps them), and bindings never change once made, so
//! no reader sees a difference. The origins of the links, which errors
//! report as provenance, stay reachable through [`RowInfo::via`], the
//! variable the binding was written with.
//!
//! [`RowInfo::via`]: super::tables::RowInfo::via

use super::{Row, RowVar, Solver};

impl Solver {
    /// Rebinds every bound row variable at the start of a chain of three or
    /// more links to open rows (and every variable on the way) to its full
    /// expansion, so that no chain has more than two such links; linear in
    /// the rows' axes.
    pub(crate) fn compress_rows(&mut self) {
        self.bound_since_compression = 0;
        let mut path: Vec<RowVar> = vec![];
        for start in 0..self.rows.len() {
            let mut v = RowVar(start as u32);
            // Walk to the first variable whose binding is already one link.
            while let Some(next) = self.needs_compression(v) {
                path.push(v);
                v = next;
            }
            // Two links cost a reader little: only longer chains are
            // rebuilt (fewer copies of rows that were nearly flat).
            if path.len() < 2 {
                path.clear();
                continue;
            }
            // From the end of the chain back: each binding takes the
            // expansion of the (already compressed) variable it ends in.
            while let Some(v) = path.pop() {
                let Some((row, origin)) = self.rows[v.0 as usize].binding.take() else {
                    unreachable!("every variable on the path is bound");
                };
                let inner = row
                    .var
                    .expect("every binding on the path ends in a variable");
                let (tail, _) = self.rows[inner.0 as usize]
                    .binding
                    .as_ref()
                    .expect("the variable a path binding ends in is bound");
                let mut beg = row.beg;
                beg.extend_from_slice(&tail.beg);
                let mut end = tail.end.clone();
                end.extend_from_slice(&row.end);
                let flat = Row {
                    beg,
                    var: tail.var,
                    end,
                };
                self.rows[v.0 as usize].binding = Some((flat, origin));
            }
        }
    }

    /// The variable `v`'s binding ends in, if that variable is bound to an
    /// open row too (a link to a closed row ends the chain for good: it is
    /// left, see the module documentation).
    fn needs_compression(&self, v: RowVar) -> Option<RowVar> {
        let (row, _) = self.rows[v.0 as usize].binding.as_ref()?;
        let inner = row.var?;
        let (tail, _) = self.rows[inner.0 as usize].binding.as_ref()?;
        tail.var.map(|_| inner)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Constraint, Dim, OpId, Origin, Role, Row, RowVar, Solver, axes};
    use crate::spec::RowKind;

    fn origin(op: u32) -> Origin {
        let side = (Role::Result, RowKind::Output);
        Origin::new(OpId(op), side, side)
    }

    /// Compression keeps every expansion, leading axes in place, and the
    /// chain error provenance walks.
    #[test]
    fn compressed_bindings_expand_as_before() {
        let mut s = Solver::new();
        let v: Vec<_> = (0..4)
            .map(|_| s.fresh_row(RowKind::Output, false))
            .collect();
        let (two, four, five) = (Dim::size(2), Dim::size(4), Dim::size(5));
        // v0 = 2 ++ v1;  v1 = v2 ++ 4;  v2 = v3 ++ 5 (v3 open).
        s.bind_row(
            v[0],
            Row {
                beg: axes![two],
                var: Some(v[1]),
                end: axes![],
            },
            origin(0),
        )
        .expect("binds");
        s.bind_row(
            v[1],
            Row {
                beg: axes![],
                var: Some(v[2]),
                end: axes![four],
            },
            origin(1),
        )
        .expect("binds");
        s.bind_row(
            v[2],
            Row {
                beg: axes![],
                var: Some(v[3]),
                end: axes![five],
            },
            origin(2),
        )
        .expect("binds");
        let before: Vec<Row> = v
            .iter()
            .map(|&x| s.expand_row_marked(&Row::of_var(x)))
            .collect();
        s.compress_rows();
        let after: Vec<Row> = v
            .iter()
            .map(|&x| s.expand_row_marked(&Row::of_var(x)))
            .collect();
        assert_eq!(before, after);
        assert_eq!(
            after[0],
            Row {
                beg: axes![two],
                var: Some(v[3]),
                end: axes![five, four]
            }
        );
        // The three-link chain from v0 is one link now.
        let (bound, _) = s.rows[v[0].0 as usize].binding.as_ref().expect("bound");
        assert_eq!(bound.var, Some(v[3]));
        // Provenance still names every binding on the way.
        let mut notes = vec![];
        s.row_provenance(v[0], &mut notes);
        assert_eq!(notes, vec![origin(0), origin(1), origin(2)]);
    }

    /// A chain of 200,000 row variables, each equal to the next, resolves
    /// every variable in linear time (at most two links each after propagation).
    #[test]
    fn long_equality_chains_resolve_linearly() {
        const N: usize = 200_000;
        let mut s = Solver::new();
        let v: Vec<_> = (0..=N)
            .map(|_| s.fresh_row(RowKind::Output, false))
            .collect();
        for i in 0..N {
            s.add(
                Constraint::RowEq(Row::of_var(v[i]), Row::of_var(v[i + 1])),
                origin(i as u32),
            );
        }
        s.add(
            Constraint::RowEq(Row::of_var(v[N]), Row::closed(vec![Dim::size(3)])),
            origin(N as u32),
        );
        s.propagate().expect("consistent");
        for &x in &v {
            assert_eq!(
                s.resolve_row(&Row::of_var(x)),
                Row::closed(vec![Dim::size(3)])
            );
        }
    }

    /// A binding to a closed row does not call for compression, and a
    /// compression leaves a chain's last link to a closed row: `v0 -> v1 ->
    /// v2 -> [3]` keeps its links, `v0 -> ... -> v4 -> [3]` becomes at most
    /// three links from every variable; expansions are unchanged.
    #[test]
    fn links_to_closed_rows_are_left() {
        let mut s = Solver::new();
        let v: Vec<_> = (0..5)
            .map(|_| s.fresh_row(RowKind::Output, false))
            .collect();
        let three = Dim::size(3);
        for i in 0..4 {
            let row = Row {
                beg: axes![],
                var: Some(v[i + 1]),
                end: axes![Dim::size(i as u64 + 10)],
            };
            s.bind_row(v[i], row, origin(i as u32)).expect("binds");
        }
        let open_bindings = s.bound_since_compression;
        s.bind_row(v[4], Row::closed(vec![three]), origin(4))
            .expect("binds");
        assert_eq!(s.bound_since_compression, open_bindings);
        let links = |s: &Solver, mut x: RowVar| {
            let mut n = 0;
            while let Some((row, _)) = &s.rows[x.0 as usize].binding {
                n += 1;
                match row.var {
                    Some(next) => x = next,
                    None => break,
                }
            }
            n
        };
        let before: Vec<Row> = v.iter().map(|&x| s.expand_row(&Row::of_var(x))).collect();
        assert_eq!(links(&s, v[0]), 5);
        s.compress_rows();
        let after: Vec<Row> = v.iter().map(|&x| s.expand_row(&Row::of_var(x))).collect();
        assert_eq!(before, after);
        assert_eq!(
            after[0],
            Row::closed(vec![
                three,
                Dim::size(13),
                Dim::size(12),
                Dim::size(11),
                Dim::size(10)
            ])
        );
        for &x in &v {
            assert!(links(&s, x) <= 3, "{x:?}: {} links", links(&s, x));
        }
        // Every variable before v3 now links to v4 directly; v3's link to
        // v4 (then [3]) is left.
        for &x in &v[..4] {
            let (bound, _) = s.rows[x.0 as usize].binding.as_ref().expect("bound");
            assert_eq!(bound.var, Some(v[4]));
        }
    }
}
