//! The rules of row equations and inequalities: unification, and
//! broadcasting aligned from the end (rows with leading axes are aligned
//! by [`super::marked`]). Each rule is preceded by the identity it
//! implements; `cur >= subr` reads "subr broadcasts to cur".

use super::simplify::{Step, describe_len, pairs, stuck_on_rows, tag};
use super::{
    Axes, Constraint, Dim, Origin, Row, RowVar, ShapeError, ShapeErrorKind, Solver, Tagged,
};

impl Solver {
    /// `r1 = r2` (unification), by which rows have a variable.
    pub(super) fn row_eq(
        &mut self,
        a: Row,
        b: Row,
        origin: Origin,
        out: &mut Vec<Tagged>,
    ) -> Result<Step, ShapeError> {
        match (a.var, b.var) {
            (None, None) => self.closed_rows_eq(&a, &b, origin, out),
            (None, Some(v)) | (Some(v), None) => self.closed_open_eq(&a, &b, v, origin, out),
            (Some(u), Some(v)) if u == v => self.same_var_eq(&a, &b, u, origin, out),
            (Some(u), Some(v)) => self.two_vars_eq(&a, &b, (u, v), origin, out),
        }
    }

    /// The error of `a = b` failing: `kind`, or an einsum mismatch when the
    /// right side is a spec slot (unless a rank cycle).
    fn row_eq_mismatch(
        &self,
        a: &Row,
        b: &Row,
        kind: ShapeErrorKind,
        origin: Origin,
    ) -> ShapeError {
        let kind = if matches!(origin.rhs().0, super::Role::SpecSlot(_))
            && kind != ShapeErrorKind::RankCycle
        {
            ShapeErrorKind::EinsumMismatch
        } else {
            kind
        };
        self.row_error(
            kind,
            format!(
                "a row of {} cannot equal a row of {}",
                describe_len(a),
                describe_len(b)
            ),
            origin,
            &[a, b],
        )
    }

    /// `[a1..an] = [b1..bm]`: n = m and ai = bi.
    fn closed_rows_eq(
        &mut self,
        a: &Row,
        b: &Row,
        origin: Origin,
        out: &mut Vec<Tagged>,
    ) -> Result<Step, ShapeError> {
        if a.end.len() != b.end.len() {
            return Err(self.row_eq_mismatch(a, b, ShapeErrorKind::RankMismatch, origin));
        }
        pairs(out, &a.end, &b.end, true, origin, Some(1));
        Ok(Step::Replace)
    }

    /// `[c] = beg ++ v ++ end` (either way round): v is the middle of c.
    fn closed_open_eq(
        &mut self,
        a: &Row,
        b: &Row,
        v: RowVar,
        origin: Origin,
        out: &mut Vec<Tagged>,
    ) -> Result<Step, ShapeError> {
        let (closed, open) = if a.var.is_none() { (a, b) } else { (b, a) };
        let c = &closed.end;
        if c.len() < open.known_len() {
            return Err(self.row_eq_mismatch(a, b, ShapeErrorKind::RankMismatch, origin));
        }
        let mid_end = c.len() - open.end.len();
        pairs(
            out,
            &c[..open.beg.len()],
            &open.beg,
            true,
            origin,
            Some(c.len() - open.beg.len() + 1),
        );
        pairs(out, &c[mid_end..], &open.end, true, origin, Some(1));
        self.bind_row(v, Row::closed(&c[open.beg.len()..mid_end]), origin)?;
        Ok(Step::Replace)
    }

    /// `b1 ++ u ++ e1 = b2 ++ u ++ e2`: the same known length, and equal
    /// sides when aligned alike; `x ++ v = v ++ y` depends on v's length.
    fn same_var_eq(
        &mut self,
        a: &Row,
        b: &Row,
        u: RowVar,
        origin: Origin,
        out: &mut Vec<Tagged>,
    ) -> Result<Step, ShapeError> {
        if a.known_len() != b.known_len() {
            return Err(self.row_eq_mismatch(a, b, ShapeErrorKind::RankCycle, origin));
        }
        if a.beg.len() == b.beg.len() {
            pairs(out, &a.beg, &b.beg, true, origin, None);
            pairs(out, &a.end, &b.end, true, origin, Some(1));
            return Ok(Step::Replace);
        }
        Ok(stuck_on_rows([Some(u)]))
    }

    /// `b1 ++ u ++ e1 = b2 ++ v ++ e2`: match the common prefix and suffix;
    /// then, if the leftovers are on one side at each end,
    /// `u = b2' ++ X ++ e2'` and `v = b1' ++ X ++ e1'` is the most general
    /// unifier. Leftovers crossing (`u ++ e1' = b2' ++ v`) have several
    /// incomparable solutions (u may be shorter than b2'): wait.
    fn two_vars_eq(
        &mut self,
        a: &Row,
        b: &Row,
        (u, v): (RowVar, RowVar),
        origin: Origin,
        out: &mut Vec<Tagged>,
    ) -> Result<Step, ShapeError> {
        let nb = a.beg.len().min(b.beg.len());
        let ne = a.end.len().min(b.end.len());
        let mark = out.len();
        pairs(out, &a.beg[..nb], &b.beg[..nb], true, origin, None);
        pairs(
            out,
            &a.end[a.end.len() - ne..],
            &b.end[b.end.len() - ne..],
            true,
            origin,
            Some(1),
        );
        let (b1, e1) = (&a.beg[nb..], &a.end[..a.end.len() - ne]);
        let (b2, e2) = (&b.beg[nb..], &b.end[..b.end.len() - ne]);
        let crossing = (!b1.is_empty() && !e2.is_empty()) || (!b2.is_empty() && !e1.is_empty());
        if crossing {
            if out.len() == mark {
                return Ok(stuck_on_rows([Some(u), Some(v)]));
            }
            let side = |beg, var, end| Row {
                beg: Axes::from(beg),
                var: Some(var),
                end: Axes::from(end),
            };
            out.push(tag(
                Constraint::RowEq(side(b1, u, e1), side(b2, v, e2)),
                origin.after_pairs(ne),
            ));
            return Ok(Step::Replace);
        }
        if b1.is_empty() && e1.is_empty() && b2.is_empty() && e2.is_empty() {
            self.bind_row(u, Row::of_var(v), origin)?;
        } else {
            let kind = self.rows[u.0 as usize].kind;
            let terminal = self.rows[u.0 as usize].terminal || self.rows[v.0 as usize].terminal;
            let x = self.fresh_row(kind, terminal);
            let around = |beg, end| Row {
                beg: Axes::from(beg),
                var: Some(x),
                end: Axes::from(end),
            };
            self.bind_row(u, around(b2, e2), origin)?;
            self.bind_row(v, around(b1, e1), origin)?;
        }
        Ok(Step::Replace)
    }

    /// Expands row variable `v` by fresh axes: `v = B ++ v' ++ E` with
    /// `|B| = at_beg`, `|E| = at_end`.
    pub(super) fn expand_both(
        &mut self,
        v: RowVar,
        at_beg: usize,
        at_end: usize,
        origin: Origin,
    ) -> Result<(), ShapeError> {
        self.grow(v, at_beg, at_end, None, origin).map(drop)
    }

    /// [`Solver::expand_both`], returning `v'` and, given a `tail`, the
    /// axes `E ++ tail` (built at their size: the caller's next round works
    /// on them; `None` without a tail).
    fn grow(
        &mut self,
        v: RowVar,
        at_beg: usize,
        at_end: usize,
        tail: Option<&[Dim]>,
        origin: Origin,
    ) -> Result<(RowVar, Option<Axes>), ShapeError> {
        let info = &self.rows[v.0 as usize];
        let (kind, terminal) = (info.kind, info.terminal);
        let fresh = |s: &mut Self, n: usize| -> Axes {
            // (Allocates nothing for `n = 0`.)
            let mut axes = Axes::with_capacity(n);
            for _ in 0..n {
                axes.push(Dim::Var(s.fresh_dim(terminal)));
            }
            axes
        };
        let beg = fresh(self, at_beg);
        let end = fresh(self, at_end);
        let joined = tail.map(|tail| super::resolve::concat(&end, tail));
        let rest = self.fresh_row(kind, terminal);
        self.bind_row(
            v,
            Row {
                beg,
                var: Some(rest),
                end,
            },
            origin,
        )?;
        Ok((rest, joined))
    }

    /// `cur >= subr` for rows. An operand row with leading axes aligns
    /// them from the left ([`super::marked`]); otherwise from the end.
    pub(super) fn row_ineq(
        &mut self,
        cur: Row,
        subr: Row,
        marked: bool,
        origin: Origin,
        out: &mut Vec<Tagged>,
    ) -> Result<Step, ShapeError> {
        if marked || !subr.beg.is_empty() {
            return self.marked_ineq(cur, subr, origin, out);
        }
        match (cur.var, subr.var) {
            // [c] >= [s]: |c| >= |s|, and the last |s| axes of c are >= s.
            (None, None) => {
                let (c, s) = (&cur.end, &subr.end);
                if c.len() < s.len() {
                    return Err(self.too_few_axes(&cur, &subr, origin));
                }
                pairs(out, &c[c.len() - s.len()..], s, false, origin, Some(1));
                Ok(Step::Replace)
            }
            // cb ++ a ++ ce >= [s].
            (Some(a), None) => self.open_cur_ineq(cur, subr, a, origin, out),
            // [c] >= sb ++ w ++ se: broadcasting aligns from the end, so se
            // pairs with the end of c; then c' >= sb ++ w, where sb's place
            // depends on |w| (unless sb is empty: a least-upper-bound record).
            (None, Some(w)) => {
                let c = &cur.end;
                if c.len() < subr.known_len() {
                    return Err(self.too_few_axes(&cur, &subr, origin));
                }
                let mid_end = c.len() - subr.end.len();
                if subr.end.is_empty() {
                    // Nothing pairs before |w| is known.
                    return Ok(stuck_on_rows([Some(w)]));
                }
                pairs(out, &c[mid_end..], &subr.end, false, origin, Some(1));
                out.push(tag(
                    Constraint::RowIneq {
                        cur: Row::closed(&c[..mid_end]),
                        subr: Row {
                            beg: subr.beg.clone(),
                            var: Some(w),
                            end: Axes::new(),
                        },
                        marked: false,
                    },
                    origin.after_pairs(subr.end.len()),
                ));
                Ok(Step::Replace)
            }
            (Some(a), Some(w)) if a == w => {
                // cb ++ a ++ ce >= sb ++ a ++ se needs |cb|+|ce| >= |sb|+|se|.
                if cur.known_len() < subr.known_len() {
                    return Err(self.row_error(
                        ShapeErrorKind::RankCycle,
                        format!(
                            "a row would have to be longer than itself: {} >= {}",
                            describe_len(&cur),
                            describe_len(&subr)
                        ),
                        origin,
                        &[&cur, &subr],
                    ));
                }
                // Aligned from the end: a ++ ce and a ++ se line up when
                // |ce| = |se|, and then sb lines up with the end of cb.
                if cur.end.len() == subr.end.len() {
                    pairs(out, &cur.end, &subr.end, false, origin, Some(1));
                    let (cb, sb) = (&cur.beg, &subr.beg);
                    pairs(out, &cb[cb.len() - sb.len()..], sb, false, origin, None);
                    return Ok(Step::Replace);
                }
                Ok(stuck_on_rows([Some(a)]))
            }
            // cb ++ a ++ ce >= sb ++ w ++ se.
            (Some(a), Some(_)) => self.open_cur_ineq(cur, subr, a, origin, out),
        }
    }

    /// `f_i >= s_i` for fresh axes `f` (just made by growing a row
    /// variable: no constraint mentions them yet) and aligned axes `s`.
    /// Where `s_i` is a size, the conclusion is drawn now (`f_i = s_i`, or
    /// nothing for an unlabelled 1): a fresh variable takes any size, and
    /// no other constraint can see it, so drawing it before the derived
    /// constraints queued ahead of it changes nothing. The others are
    /// pushed on `out` (`s_i` may still be bound by those).
    fn pair_fresh(
        &mut self,
        f: &[Dim],
        s: &[Dim],
        origin: Origin,
        axis: usize,
        out: &mut Vec<Tagged>,
    ) -> Result<(), ShapeError> {
        let n = f.len();
        for (i, (&f, &s)) in f.iter().zip(s).enumerate() {
            let o = origin.at_axis(axis + n - 1 - i);
            if matches!(self.find_dim(s), Dim::Size(size, _) if size >= 1) {
                let step = self.dim_ineq(f, s, o)?;
                debug_assert!(matches!(step, Step::Done), "a fresh axis takes a size");
            } else {
                out.push(tag(Constraint::DimIneq { cur: f, subr: s }, o));
            }
        }
        Ok(())
    }

    /// `cb ++ a ++ ce >= sb ++ w ++ se` (`w` may be absent; `a != w`).
    /// Broadcasting aligns rows from the end (NumPy).
    ///
    /// 1. The last `min(|ce|, |se|)` axes pair up.
    /// 2. If axes of `se` are left (`ce` is used up), they align with the end
    ///    of `cb ++ a`. `|cur| >= |subr|` forces
    ///    `|a| >= |sb| + |se| - |cb| - |ce|`: `a` grows by that many fresh
    ///    axes at its end (whose alignment with `se` is then forced), and
    ///    step 1 runs again on the rest.
    /// 3. What remains is `cb ++ a ++ ce >= w` (a least-upper-bound record,
    ///    kept stuck for the closing stages), or `... >= sb ++ w` whose
    ///    alignment depends on `|w|` (stuck until it is known).
    fn open_cur_ineq(
        &mut self,
        cur: Row,
        subr: Row,
        a: RowVar,
        origin: Origin,
        out: &mut Vec<Tagged>,
    ) -> Result<Step, ShapeError> {
        let w = subr.var;
        let (cb, mut a, mut ce, sb, mut se) = (cur.beg, a, cur.end, subr.beg, subr.end);
        // The position of the last axes of `ce` and `se` in the rows as the
        // constraint wrote them (counted from the end, 1 = last).
        let mut axis = 1;
        let mark = out.len();
        let mut grown = false;
        loop {
            let n = ce.len().min(se.len());
            let (c, s) = (&ce[ce.len() - n..], &se[se.len() - n..]);
            if grown {
                self.pair_fresh(c, s, origin, axis, out)?;
            } else {
                // The first round.
                pairs(out, c, s, false, origin, Some(axis));
            }
            ce.truncate(ce.len() - n);
            se.truncate(se.len() - n);
            axis += n;
            let deficit = (sb.len() + se.len()).saturating_sub(cb.len() + ce.len());
            if deficit == 0 {
                break;
            }
            if self.no_shortcuts {
                // Grow, and leave the rest to the next step.
                self.expand_both(a, 0, deficit, origin)?;
                grown = true;
                break;
            }
            // `a` becomes `a' ++ fresh`; the fresh axes pair with the end of
            // `se` in the next round (what another step on the rest would
            // conclude).
            let (rest, joined) = self.grow(a, 0, deficit, Some(&ce[..]), origin)?;
            (a, ce) = (rest, joined.unwrap_or_default());
            grown = true;
        }
        let progressed = grown || out.len() > mark;
        if se.is_empty() && sb.is_empty() {
            let Some(w) = w else {
                return Ok(Step::Replace);
            };
            if !progressed {
                // Already `cur >= w`: a least-upper-bound record for w.
                return Ok(stuck_on_rows([Some(a), Some(w)]));
            }
        } else if !progressed {
            // The alignment of what is left depends on |a| or |w|.
            return Ok(stuck_on_rows([Some(a), w]));
        }
        out.push(tag(
            Constraint::RowIneq {
                cur: Row {
                    beg: cb,
                    var: Some(a),
                    end: ce,
                },
                subr: Row {
                    beg: sb,
                    var: w,
                    end: se,
                },
                marked: false,
            },
            origin.after_pairs(axis - 1),
        ));
        Ok(Step::Replace)
    }
}
