//! The rank-cycle guard on row growth.
//!
//! A positive cycle of row constraints (`..u.. >= ..v..,3` and
//! `..v.. >= ..u..,3`) makes the online stage expand rows by fresh axes
//! forever; it has no solution (reference, `ocannl-shape-inference.md`,
//! "Solving the constraints": a row cannot equal itself plus more axes).
//! Cycles through a single row are found directly; longer ones by a bound on
//! how many axes a row may get, which is relative to the problem: rows are
//! grouped in components (row variables related by a constraint or a
//! binding), and a component may grow rows to as many axes as its
//! constraints write ([`Solver::rank_bound`]), so that legitimate programs
//! with any number of axes solve and a small cycle in a large problem is
//! still caught after a few hundred expansions.

use super::{Constraint, Row, RowVar, Solver};

/// The least bound on row growth (see [`Solver::rank_bound`]): a row of
/// a small problem may get this many axes before its growth is reported as
/// a rank cycle.
pub(crate) const MIN_RANK_BOUND: usize = 256;

impl Solver {
    /// Joins the row variables of a given constraint into one component and
    /// adds the axes it writes to the component's bound.
    pub(super) fn note_rows(&mut self, c: &Constraint) {
        let (rows, extra): (&[Row], usize) = match c {
            Constraint::RowEq(a, b)
            | Constraint::RowIneq {
                cur: a, subr: b, ..
            } => {
                let mut vars = a.var.into_iter().chain(b.var);
                if let Some(first) = vars.next() {
                    for other in vars {
                        self.join_rows(first, other);
                    }
                    self.add_axes(first, a.known_len() + b.known_len());
                }
                return;
            }
            // An element count may give a row one more axis when it closes.
            Constraint::TotalElems(rows, _) => (&rows[..], 1),
            Constraint::StridedElems { rows, .. } => (&rows[..], 1),
            Constraint::Exact(rows, dims) => (&rows[..], dims.len()),
            _ => return,
        };
        let mut vars = rows.iter().filter_map(|r| r.var);
        if let Some(first) = vars.next() {
            for other in vars {
                self.join_rows(first, other);
            }
            let written: usize = rows.iter().map(Row::known_len).sum();
            self.add_axes(first, written + extra);
        }
    }

    /// The root of a row variable's component.
    fn row_root(&mut self, v: RowVar) -> u32 {
        let mut x = v.0;
        while self.rows[x as usize].parent != x {
            let grand = self.rows[self.rows[x as usize].parent as usize].parent;
            self.rows[x as usize].parent = grand;
            x = grand;
        }
        x
    }

    pub(super) fn join_rows(&mut self, a: RowVar, b: RowVar) {
        let (ra, rb) = (self.row_root(a), self.row_root(b));
        if ra != rb {
            let (from, to) = (ra.max(rb), ra.min(rb));
            self.rows[from as usize].parent = to;
            let moved = std::mem::take(&mut self.rows[from as usize].axes);
            self.rows[to as usize].axes = self.rows[to as usize].axes.saturating_add(moved);
        }
    }

    fn add_axes(&mut self, v: RowVar, n: usize) {
        let r = self.row_root(v) as usize;
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        self.rows[r].axes = self.rows[r].axes.saturating_add(n);
    }

    /// How many axes a row of `v`'s component may get before its growth is
    /// reported as a rank cycle: the axes written in the constraints of the
    /// component, plus one per element-count constraint, and at least
    /// [`MIN_RANK_BOUND`].
    ///
    /// Row lengths obey `|cur| >= |subr|` and `|r1| = |r2|`, where a row's
    /// length is its row variable's plus the axes written around it; so the
    /// least solution gives a row variable at most the axes written along
    /// one path of such constraints (and closing adds at most one axis per
    /// element count: reference, "Stage details", stage 3), unless a cycle
    /// of them adds axes every time around — a rank cycle, which has no
    /// solution. Rows of different components never constrain each other's
    /// lengths, so a small cycle in a large problem is still caught early.
    pub(crate) fn rank_bound(&mut self, v: RowVar) -> usize {
        let r = self.row_root(v) as usize;
        (self.rows[r].axes as usize).max(MIN_RANK_BOUND)
    }
}
