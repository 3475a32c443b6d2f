//! The simplification rules of element counts (reference,
//! `ocannl-shape-inference.md`, "Preventing Premature Guessing with
//! Total_elems Constraints"): `Total_elems` with a `Num_elems` numerator
//! (`Constraint::TotalElems`) or a `Strided_var` one
//! (`Constraint::StridedElems`), and `Exact`. Products of sizes stop at
//! [`crate::MAX_SIZE`] (see [`super::arith`]): a tensor whose element count
//! is constrained has at most that many elements.

use super::{
    Constraint, Dim, DimVar, Origin, Row, RowVar, ShapeError, ShapeErrorKind, Solver, Tagged,
    arith::{self, fit},
    simplify::{Step, Vars, pairs, tag},
};

impl Solver {
    /// The rows together have `n` elements.
    pub(super) fn total_elems(
        &mut self,
        rows: &[Row],
        n: u64,
        origin: Origin,
    ) -> Result<Step, ShapeError> {
        let rows: Vec<Row> = rows.iter().map(|r| self.resolve_row(r)).collect();
        let Factors {
            known,
            dims,
            rows: row_vars,
        } = factors(&rows);
        let known = known.map_err(|product| self.count_overflow(&rows, &product, origin))?;
        // Unknown dims with their multiplicity (`n,n` has n twice).
        let mut unknown: Vec<(DimVar, u32)> = vec![];
        for v in dims {
            match unknown.iter_mut().find(|(u, _)| *u == v) {
                Some((_, k)) => *k += 1,
                None => unknown.push((v, 1)),
            }
        }
        let fail = |s: &Self, msg: String| {
            let refs: Vec<&Row> = rows.iter().collect();
            s.row_error(ShapeErrorKind::ElementCount, msg, origin, &refs)
        };
        if known == 0 || !n.is_multiple_of(known) {
            return Err(fail(
                self,
                format!("the axes have {known} elements, which does not divide {n}"),
            ));
        }
        if !row_vars.is_empty() || unknown.len() > 1 {
            return Ok(Step::Stuck {
                dims: unknown.into_iter().map(|(v, _)| v).collect(),
                rows: row_vars.into(),
            });
        }
        match unknown.first() {
            None if known == n => Ok(Step::Done),
            None => Err(fail(
                self,
                format!("the axes have {known} elements, expected {n}"),
            )),
            // v^k = n / known: v is the integer k-th root, if there is one.
            Some(&(v, k)) => match integer_root(n / known, k) {
                Some(size) => {
                    self.bind_dim(v, Dim::size(size), origin)?;
                    Ok(Step::Done)
                }
                None => Err(fail(
                    self,
                    format!(
                        "{} is not the {k}th power of a size (the other axes have {known} of {n} elements)",
                        n / known
                    ),
                )),
            },
        }
    }

    /// `product(rows) = coeff * var / denom`: a known `var` gives a plain
    /// element count; fully known rows give `var`. While neither is known,
    /// `var` is kept from premature guessing (`uniq_unless`). A
    /// [`Step::Replace`] pushes the replacement on `out`.
    pub(super) fn strided_elems(
        &mut self,
        rows: &[Row],
        coeff: u64,
        var: Dim,
        denom: u64,
        origin: Origin,
        out: &mut Vec<Tagged>,
    ) -> Result<Step, ShapeError> {
        let resolved: Vec<Row> = rows.iter().map(|r| self.resolve_row(r)).collect();
        let fail = |s: &Self, msg: String| {
            let refs: Vec<&Row> = resolved.iter().collect();
            s.row_error(ShapeErrorKind::ElementCount, msg, origin, &refs)
        };
        // Counts, coefficients and denominators are at most `MAX_SIZE`
        // (checked when the constraint is first simplified, with
        // `coeff, denom >= 1`): products of two are exact in `u128`.
        if let Dim::Size(v, _) = self.find_dim(var) {
            let total = u128::from(coeff) * u128::from(v);
            if !total.is_multiple_of(u128::from(denom)) {
                return Err(fail(
                    self,
                    format!("{coeff} * {v} elements cannot be divided by {denom}"),
                ));
            }
            let Some(count) = fit(total / u128::from(denom)) else {
                let product = format!("{coeff} * {v} / {denom} = {}", total / u128::from(denom));
                return Err(self.count_overflow(&resolved, &product, origin));
            };
            out.push(tag(Constraint::TotalElems(rows.to_vec(), count), origin));
            return Ok(Step::Replace);
        }
        let Factors {
            known,
            mut dims,
            rows: row_vars,
        } = factors(&resolved);
        // The known axes alone are too many: so is the count.
        let known = known.map_err(|product| self.count_overflow(&resolved, &product, origin))?;
        let Dim::Var(v) = self.find_dim(var) else {
            unreachable!("handled above")
        };
        if dims.is_empty() && row_vars.is_empty() {
            let scaled = u128::from(known) * u128::from(denom);
            if !scaled.is_multiple_of(u128::from(coeff)) {
                return Err(fail(
                    self,
                    format!(
                        "the axes have {known} elements, which is not a multiple of {coeff}{}",
                        if denom > 1 {
                            format!(" / {denom}")
                        } else {
                            String::new()
                        }
                    ),
                ));
            }
            let Some(count) = fit(scaled / u128::from(coeff)) else {
                let product = format!(
                    "{known} * {denom} / {coeff} = {}",
                    scaled / u128::from(coeff)
                );
                return Err(self.count_overflow(&resolved, &product, origin));
            };
            return self.dim_eq(Dim::Var(v), Dim::size(count), origin);
        }
        // Mark the numerator variable (reference: `mark_total_elems_vars`).
        let unless = self.uniq_unless.entry(v.0).or_default();
        for d in &dims {
            if !unless.contains(d) {
                unless.push(*d);
            }
        }
        dims.push(v);
        Ok(Step::Stuck {
            dims: dims.into(),
            rows: row_vars.into(),
        })
    }

    /// `Exact`: the rows, concatenated, are `exact`. Without row variables
    /// the axes pair up; with one, the axes before and after it pair up with
    /// the ends of `exact` and it takes the middle. With more, it waits
    /// (closing decides which row variable takes the axes). A
    /// [`Step::Replace`] pushes the replacement on `out`.
    pub(super) fn exact(
        &mut self,
        rows: &[Row],
        exact: &[Dim],
        origin: Origin,
        out: &mut Vec<Tagged>,
    ) -> Result<Step, ShapeError> {
        let resolved: Vec<Row> = rows.iter().map(|r| self.resolve_row(r)).collect();
        let vars: Vec<RowVar> = resolved.iter().filter_map(|r| r.var).collect();
        let fail = |s: &Self, msg: String| {
            let refs: Vec<&Row> = resolved.iter().collect();
            s.row_error(ShapeErrorKind::RankMismatch, msg, origin, &refs)
        };
        let known: usize = resolved.iter().map(Row::known_len).sum();
        match vars.as_slice() {
            [] | [_] if known > exact.len() || (vars.is_empty() && known != exact.len()) => {
                Err(fail(
                    self,
                    format!(
                        "the rows have {}{known} axes, but the data has {} axes",
                        if vars.is_empty() { "" } else { "at least " },
                        exact.len()
                    ),
                ))
            }
            [] => {
                let flat: Vec<Dim> = resolved.iter().flat_map(|r| r.end.clone()).collect();
                pairs(out, &flat, exact, true, origin, None);
                Ok(Step::Replace)
            }
            &[v] => {
                // The axes before the row variable, and after it.
                let mut before: Vec<Dim> = vec![];
                let mut after: Vec<Dim> = vec![];
                let mut seen = false;
                for r in &resolved {
                    let (b, e) = (r.beg.clone(), r.end.clone());
                    if r.var.is_some() {
                        before.extend(b);
                        after.extend(e);
                        seen = true;
                    } else if seen {
                        after.extend(b.into_iter().chain(e));
                    } else {
                        before.extend(b.into_iter().chain(e));
                    }
                }
                let mid = exact[before.len()..exact.len() - after.len()].to_vec();
                pairs(out, &before, &exact[..before.len()], true, origin, None);
                pairs(
                    out,
                    &after,
                    &exact[exact.len() - after.len()..],
                    true,
                    origin,
                    None,
                );
                out.push(tag(
                    Constraint::RowEq(Row::of_var(v), Row::closed(mid)),
                    origin,
                ));
                Ok(Step::Replace)
            }
            _ => Ok(Step::Stuck {
                dims: Vars::new(),
                rows: vars.into(),
            }),
        }
    }
}

/// What resolved rows are made of: the product of their known sizes, their
/// unknown dims (repeated as often as they occur) and their row variables.
pub(crate) struct Factors {
    /// The product of the known sizes, or (past [`crate::MAX_SIZE`]) the
    /// product written out for an overflow error ([`arith::product`]).
    pub known: Result<u64, String>,
    pub dims: Vec<DimVar>,
    pub rows: Vec<RowVar>,
}

pub(crate) fn factors(rows: &[Row]) -> Factors {
    let mut sizes = vec![];
    let mut f = Factors {
        known: Ok(1),
        dims: vec![],
        rows: vec![],
    };
    for r in rows {
        for d in r.beg.iter().chain(&r.end) {
            match d {
                Dim::Size(s, _) => sizes.push(*s),
                Dim::Var(v) => f.dims.push(*v),
            }
        }
        f.rows.extend(r.var);
    }
    f.known = arith::product(&sizes);
    f
}

/// The `x` with `x^k = r`, if it is an integer (`k >= 1`).
fn integer_root(r: u64, k: u32) -> Option<u64> {
    if k == 1 {
        return Some(r);
    }
    let approx = (r as f64).powf(1.0 / f64::from(k)).round() as u64;
    (approx.saturating_sub(1)..=approx.saturating_add(1)).find(|x| x.checked_pow(k) == Some(r))
}
