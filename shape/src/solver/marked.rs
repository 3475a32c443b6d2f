//! Broadcasting an operand row that has leading axes (OCANNL's `beg_dims`).
//!
//! The reference ("Representing shapes and constraints") describes a row
//! with axes before its row variable, `2,..rho..,4`, as broadcasting "in the
//! middle": its leading axes stay aligned with the *first* axes of the row
//! it broadcasts into, its trailing axes with the last ones, and the row
//! variable takes the middle (OCANNL `tensor/row.ml`, `solve_row_ineq`, and
//! `test/einsum/test_beg_dims_alignment.ml` at ahrefs/ocannl `c338ea3f`).
//! The leading axes stay leading through substitution: `2,..rho..,4` with
//! `rho = [3]` is `2 | 3,4`, the `|` (the *marker*) being where broadcasting
//! would insert axes. `Solver::expand_row_marked` keeps the marker of an
//! operand row; [`Solver::marked_ineq`] applies the alignment.
//!
//! **One departure**: OCANNL lets such a row broadcast into a *longer* row
//! by inserting axes at the marker. Here the row must be as long as the row
//! it broadcasts into (size-1 axes still broadcast): the pass writes solved
//! types back as concrete shapes, which carry no marker and broadcast the
//! NumPy way, and with equal lengths both alignments agree. A longer result
//! is an error saying so. Rows without leading axes keep NumPy's right
//! alignment.

use super::{
    Axes, Constraint, Dim, Origin, Row, RowVar, ShapeError, ShapeErrorKind, Solver, Tagged,
    simplify::{Step, describe_len, pairs, stuck_on_rows, tag},
};

impl Solver {
    /// Binds `v` to `n` fresh axes (a closed row).
    fn close_to_fresh(&mut self, v: RowVar, n: usize, origin: Origin) -> Result<(), ShapeError> {
        let terminal = self.rows[v.0 as usize].terminal;
        let dims: Axes = (0..n).map(|_| Dim::Var(self.fresh_dim(terminal))).collect();
        self.bind_row(v, Row::closed(dims), origin)
    }

    /// The error of a result row longer than a marked operand row.
    fn middle_broadcast(&self, cur: &Row, subr: &Row, origin: Origin) -> ShapeError {
        self.row_error(
            ShapeErrorKind::RankMismatch,
            format!(
                "an operand row with leading axes broadcasts only into a row as long as itself: its leading axes align with the first axes of the result and its trailing axes with the last, and inserting axes between them (OCANNL) is not supported; where they are not aligned, the result has {} and the operand {}",
                describe_len(cur),
                describe_len(subr)
            ),
            origin,
            &[cur, subr],
        )
    }

    /// The error of a row too short to take a broadcast of another.
    pub(super) fn too_few_axes(&self, cur: &Row, subr: &Row, origin: Origin) -> ShapeError {
        self.row_error(
            ShapeErrorKind::TooFewAxes,
            format!(
                "a row of {} cannot take a broadcast of a row of {}",
                describe_len(cur),
                describe_len(subr)
            ),
            origin,
            &[cur, subr],
        )
    }

    /// `cur >= subr` where `subr` has leading axes `sb` (`subr` as given by
    /// [`Solver::expand_row_marked`]; `cur` normalised), by which rows have
    /// a variable. A [`Step::Replace`] pushes the replacement on `out`.
    pub(super) fn marked_ineq(
        &mut self,
        cur: Row,
        subr: Row,
        origin: Origin,
        out: &mut Vec<Tagged>,
    ) -> Result<Step, ShapeError> {
        match (cur.var, subr.var) {
            (None, None) => self.marked_into_closed(&cur, &subr, origin, out),
            // cb ++ a ++ ce >= sb | se: a has exactly the axes left over.
            (Some(a), None) => {
                let Some(n) = subr.known_len().checked_sub(cur.known_len()) else {
                    return Err(self.middle_broadcast(&cur, &subr, origin));
                };
                self.close_to_fresh(a, n, origin)?;
                Ok(retry(cur, subr, origin, out))
            }
            // [c] >= sb ++ w ++ se: w takes the middle of c.
            (None, Some(w)) => {
                let c = &cur.end;
                if c.len() < subr.known_len() {
                    return Err(self.too_few_axes(&cur, &subr, origin));
                }
                self.close_to_fresh(w, c.len() - subr.known_len(), origin)?;
                Ok(retry(cur, subr, origin, out))
            }
            // cb ++ a ++ ce >= sb ++ a ++ se: as long only if the known
            // parts are; aligned when the splits agree.
            (Some(a), Some(w)) if a == w => {
                if cur.known_len() != subr.known_len() {
                    return Err(self.middle_broadcast(&cur, &subr, origin));
                }
                if cur.end.len() == subr.end.len() {
                    pairs(out, &cur.beg, &subr.beg, false, origin, None);
                    pairs(out, &cur.end, &subr.end, false, origin, Some(1));
                    return Ok(Step::Replace);
                }
                Ok(stuck_on_rows([Some(a)]))
            }
            (Some(a), Some(w)) => self.marked_two_vars(cur, subr, (a, w), origin, out),
        }
    }

    /// `[c] >= sb | se`: `sb` pairs with the first axes of `c`, `se` with
    /// the last, and nothing is left between them.
    fn marked_into_closed(
        &mut self,
        cur: &Row,
        subr: &Row,
        origin: Origin,
        out: &mut Vec<Tagged>,
    ) -> Result<Step, ShapeError> {
        let (c, sb, se) = (&cur.end, &subr.beg, &subr.end);
        let n = sb.len() + se.len();
        if c.len() < n {
            return Err(self.too_few_axes(cur, subr, origin));
        }
        let mark = out.len();
        pairs(
            out,
            &c[..sb.len()],
            sb,
            false,
            origin,
            Some(c.len() - sb.len() + 1),
        );
        pairs(out, &c[c.len() - se.len()..], se, false, origin, Some(1));
        if c.len() > n {
            // A size conflict of the aligned axes is the clearer error;
            // otherwise the lengths are.
            for t in &out[mark..] {
                if let Constraint::DimIneq { cur, subr } = t.constraint {
                    self.dim_ineq(cur, subr, t.origin)?;
                }
            }
            return Err(self.middle_broadcast(cur, subr, origin));
        }
        Ok(Step::Replace)
    }

    /// `cb ++ a ++ ce >= sb ++ w ++ se`: as OCANNL's template, `a` grows by
    /// the axes `subr` has beyond `cur` (at the end first, where `se` is
    /// longer than `ce`, then at the start); the common flanks pair up; what
    /// is left waits for |a| or |w|.
    fn marked_two_vars(
        &mut self,
        cur: Row,
        subr: Row,
        (a, w): (RowVar, RowVar),
        origin: Origin,
        out: &mut Vec<Tagged>,
    ) -> Result<Step, ShapeError> {
        let (cb, ce) = (&cur.beg, &cur.end);
        let (sb, se) = (&subr.beg, &subr.end);
        let mut budget = subr.known_len().saturating_sub(cur.known_len());
        let at_end = budget.min(se.len().saturating_sub(ce.len()));
        budget -= at_end;
        let at_beg = budget.min(sb.len().saturating_sub(cb.len()));
        if at_beg + at_end > 0 {
            self.expand_both(a, at_beg, at_end, origin)?;
            return Ok(retry(cur, subr, origin, out));
        }
        let (nb, ne) = (cb.len().min(sb.len()), ce.len().min(se.len()));
        if nb == 0 && ne == 0 {
            // E.g. `cur >= w`, as long as each other: a bound of `w` (its
            // least upper bound at closing).
            return Ok(stuck_on_rows([Some(a), Some(w)]));
        }
        pairs(out, &cb[..nb], &sb[..nb], false, origin, None);
        pairs(
            out,
            &ce[ce.len() - ne..],
            &se[se.len() - ne..],
            false,
            origin,
            Some(1),
        );
        out.push(tag(
            Constraint::RowIneq {
                cur: Row {
                    beg: Axes::from(&cb[nb..]),
                    var: Some(a),
                    end: Axes::from(&ce[..ce.len() - ne]),
                },
                subr: Row {
                    beg: Axes::from(&sb[nb..]),
                    var: Some(w),
                    end: Axes::from(&se[..se.len() - ne]),
                },
                marked: true,
            },
            origin.after_pairs(ne),
        ));
        Ok(Step::Replace)
    }
}

/// The same constraint, looked at again once a variable of it is bound.
fn retry(cur: Row, subr: Row, origin: Origin, out: &mut Vec<Tagged>) -> Step {
    out.push(tag(
        Constraint::RowIneq {
            cur,
            subr,
            marked: true,
        },
        origin,
    ));
    Step::Replace
}
