//! One simplification step per constraint (the online stage).
//!
//! [`Solver::step`] dispatches a constraint to its rule; the rules of dim
//! equations and inequalities are here, each preceded by the identity it
//! implements (`cur >= subr` reads "subr broadcasts to cur"). The rules of
//! rows are in [`super::row_rules`] (rows with leading axes in
//! [`super::marked`]), of computed dims (strided, convolution,
//! concatenated) in [`super::dims`], of element counts in
//! [`super::counts`]; every constraint's given sizes are checked against
//! [`crate::MAX_SIZE`] first ([`super::arith`]). The rules read the
//! variables through [`super::resolve`] and bind them in
//! [`super::tables`]; [`super::propagate`] runs them.

use super::{
    AffineDims, Constraint, Dim, DimVar, Label, Origin, Row, RowVar, ShapeError, ShapeErrorKind,
    Solver, Tagged,
};

/// The outcome of one step.
pub(crate) enum Step {
    /// The constraint holds.
    Done,
    /// The constraint is equivalent to the constraints the step pushed on
    /// its `out` stack (in order: the first pushed is the first to look
    /// at). Pushing onto the caller's stack instead of returning a vector
    /// saves an allocation per step, and most steps replace.
    Replace,
    /// Nothing more can be concluded until one of these is bound.
    Stuck {
        dims: Vars<DimVar>,
        rows: Vars<RowVar>,
    },
}

/// The variables a stuck constraint waits for: almost always at most two,
/// kept inline (no allocation per stuck step).
pub(crate) type Vars<T> = smallvec::SmallVec<[T; 2]>;

pub(super) fn stuck_on_rows(rows: impl IntoIterator<Item = Option<RowVar>>) -> Step {
    Step::Stuck {
        dims: Vars::new(),
        rows: rows.into_iter().flatten().collect(),
    }
}

pub(super) fn tag(constraint: Constraint, origin: Origin) -> Tagged {
    Tagged { constraint, origin }
}

/// Pushes `c_i = s_i` (or `>=`) for aligned axis lists on `out`;
/// `from_end_base` is the position (counted from the end of the row, 1 =
/// last) of the last pair, `None` when unknown.
pub(super) fn pairs(
    out: &mut Vec<Tagged>,
    c: &[Dim],
    s: &[Dim],
    eq: bool,
    origin: Origin,
    from_end_base: Option<usize>,
) {
    let n = c.len().min(s.len());
    out.extend((0..n).map(|i| {
        let o = match from_end_base {
            Some(base) => origin.at_axis(base + n - 1 - i),
            None => origin,
        };
        let constraint = if eq {
            Constraint::DimEq(c[i], s[i])
        } else {
            Constraint::DimIneq {
                cur: c[i],
                subr: s[i],
            }
        };
        tag(constraint, o)
    }));
}

impl Solver {
    /// One simplification step on `t`; a [`Step::Replace`] pushes the
    /// replacement on `out`.
    pub(crate) fn step(&mut self, t: &Tagged, out: &mut Vec<Tagged>) -> Result<Step, ShapeError> {
        let origin = t.origin;
        match &t.constraint {
            Constraint::DimEq(a, b) => self.dim_eq(*a, *b, origin),
            Constraint::DimIneq { cur, subr } => self.dim_ineq(*cur, *subr, origin),
            // `[] = []` and `[] >= []`: what closing leaves of most row
            // constraints once it closes their variables.
            Constraint::RowEq(a, b)
            | Constraint::RowIneq {
                cur: a, subr: b, ..
            } if !self.no_shortcuts && self.resolves_empty(a) && self.resolves_empty(b) => {
                Ok(Step::Done)
            }
            Constraint::RowEq(a0, b0) => {
                let (a, b) = (self.expand_row(a0), self.expand_row(b0));
                self.row_eq(a, b, origin, out)
                    .map_err(|e| self.with_provenance(e, &[a0, b0]))
            }
            Constraint::RowIneq {
                cur: c0,
                subr: s0,
                marked,
            } => {
                // `a >= w` between two free variables, the most common
                // stuck constraint (a least-upper-bound record): what
                // `open_cur_ineq` concludes, without expanding the rows.
                if !*marked
                    && !self.no_shortcuts
                    && let (Some(a), Some(w)) = (self.free_bare_var(c0), self.free_bare_var(s0))
                    && a != w
                {
                    return Ok(stuck_on_rows([Some(a), Some(w)]));
                }
                let (cur, subr) = (self.expand_row(c0), self.expand_row_marked(s0));
                self.row_ineq(cur, subr, *marked, origin, out)
                    .map_err(|e| self.with_provenance(e, &[c0, s0]))
            }
            Constraint::AtLeast(d, n) => match self.find_dim(*d) {
                Dim::Size(size, _) if size >= *n => Ok(Step::Done),
                Dim::Size(size, _) => Err(self.dim_error(
                    ShapeErrorKind::SizeMismatch,
                    format!("size {size} is too small: the index needs at least {n}"),
                    origin,
                    &[*d],
                )),
                Dim::Var(v) => {
                    let info = &mut self.dims[v.0 as usize];
                    info.at_least = info.at_least.max(*n);
                    Ok(Step::Done)
                }
            },
            Constraint::TotalElems(rows, n) => self.total_elems(rows, *n, origin),
            Constraint::StridedElems {
                rows,
                coeff,
                var,
                denom,
            } => self.strided_elems(rows, *coeff, *var, *denom, origin, out),
            Constraint::Exact(rows, dims) => self.exact(rows, dims, origin, out),
            Constraint::Affine(a) => {
                let AffineDims {
                    input,
                    output,
                    stride,
                    kernel,
                    pads,
                } = **a;
                match pads {
                    Some(pads) => self.affine_padded(input, output, stride, kernel, pads, origin),
                    None => self.affine(input, output, stride, kernel, origin),
                }
            }
            Constraint::Concat { whole, parts } => self.concat(*whole, parts, origin),
        }
    }

    /// Adds the provenance of the variables of the rows as written (before
    /// substitution) to an error.
    fn with_provenance(&self, mut e: ShapeError, rows: &[&Row]) -> ShapeError {
        let mut related = std::mem::take(&mut e.related);
        for r in rows {
            if let Some(v) = r.var {
                self.row_provenance(v, &mut related);
            }
            for d in r.beg.iter().chain(&r.end) {
                self.dim_provenance(*d, &mut related);
            }
        }
        related.retain(|o| *o != e.origin);
        e.related = related;
        e
    }

    /// `a = b`: bind a variable side, or compare sizes and labels.
    pub(super) fn dim_eq(&mut self, a: Dim, b: Dim, origin: Origin) -> Result<Step, ShapeError> {
        match (self.find_dim(a), self.find_dim(b)) {
            (x, y) if x == y => Ok(Step::Done),
            (Dim::Var(u), Dim::Var(v)) => {
                // Union by size: the smaller class points at the bigger one.
                let (from, to) = if self.dims[u.0 as usize].size < self.dims[v.0 as usize].size {
                    (u, v)
                } else {
                    (v, u)
                };
                self.bind_dim(from, Dim::Var(to), origin)?;
                Ok(Step::Done)
            }
            // Bind to the variable holding the size when there is one, so
            // that the two classes stay joined (a later label reaches both).
            (Dim::Var(v), s @ Dim::Size(..)) => {
                let value = self.last_var(b).map_or(s, Dim::Var);
                self.bind_dim_from(v, value, origin, b)?;
                Ok(Step::Done)
            }
            (s @ Dim::Size(..), Dim::Var(v)) => {
                let value = self.last_var(a).map_or(s, Dim::Var);
                self.bind_dim_from(v, value, origin, a)?;
                Ok(Step::Done)
            }
            (Dim::Size(d1, l1), Dim::Size(d2, l2)) => {
                if d1 != d2 {
                    Err(self.dim_error(
                        ShapeErrorKind::SizeMismatch,
                        format!("size {d1} vs {d2}"),
                        origin,
                        &[a, b],
                    ))
                } else if l1 != l2 && l1 != Label::NONE && l2 != Label::NONE {
                    Err(self.dim_error(
                        ShapeErrorKind::LabelMismatch,
                        format!(
                            "label {} vs {} (both of size {d1})",
                            self.label_name(l1),
                            self.label_name(l2)
                        ),
                        origin,
                        &[a, b],
                    ))
                } else {
                    // An unlabelled axis equal to a labelled one takes its
                    // label (reference: "Representing shapes and constraints").
                    if l1 == Label::NONE && l2 != Label::NONE {
                        self.relabel(a, l2);
                    } else if l2 == Label::NONE && l1 != Label::NONE {
                        self.relabel(b, l1);
                    }
                    Ok(Step::Done)
                }
            }
        }
    }

    /// `cur >= subr` for dims.
    pub(super) fn dim_ineq(
        &mut self,
        cur: Dim,
        subr: Dim,
        origin: Origin,
    ) -> Result<Step, ShapeError> {
        match (self.find_dim(cur), self.find_dim(subr)) {
            (x, y) if x == y => Ok(Step::Done),
            // n >= 1 (unlabelled) for every n.
            (_, Dim::Size(1, Label::NONE)) => Ok(Step::Done),
            // n >= m with both known: m = n (labels agree) or m = 1.
            (Dim::Size(..), Dim::Size(..)) => self.dim_eq(cur, subr, origin).map_err(|mut e| {
                if e.kind == ShapeErrorKind::SizeMismatch
                    && let (Dim::Size(c, _), Dim::Size(s, _)) =
                        (self.find_dim(cur), self.find_dim(subr))
                {
                    e.message = format!(
                        "size {s} does not broadcast to size {c} at {}",
                        origin.describe()
                    );
                }
                e
            }),
            // v >= m with m > 1 (or labelled): v = m.
            (Dim::Var(_), Dim::Size(..)) => self.dim_eq(cur, subr, origin),
            // 1 >= v: v = 1.
            (Dim::Size(1, Label::NONE), Dim::Var(v)) => {
                self.bind_dim(v, Dim::size(1), origin)?;
                Ok(Step::Done)
            }
            // n >= v with n > 1: v's least upper bound is n.
            (Dim::Size(n, label), Dim::Var(v)) => {
                self.add_lub(v, n, label, origin)?;
                Ok(Step::Done)
            }
            // u >= v: wait for either.
            (Dim::Var(u), Dim::Var(v)) => Ok(Step::Stuck {
                dims: smallvec::smallvec![u, v],
                rows: Vars::new(),
            }),
        }
    }
}

/// `1 axis`, `2 axes`, `at least 2 axes`.
pub(super) fn describe_len(r: &Row) -> String {
    let n = r.known_len();
    let noun = if n == 1 { "axis" } else { "axes" };
    match r.var {
        None => format!("{n} {noun}"),
        Some(_) => format!("at least {n} {noun}"),
    }
}
