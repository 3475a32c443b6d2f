//! Checked arithmetic on sizes.
//!
//! Every size the solver works with is at most [`MAX_SIZE`] (`i64::MAX`):
//! the sizes, strides, dilations and element counts that a constraint
//! gives are checked when it is first simplified ([`Solver::check_literals`]),
//! and every size the solver computes from them — strided and convolution
//! dims (reference, `ocannl-shape-inference.md`, "Affine indexing and
//! convolutions": `stride * output`, `stride * (output - 1) + (kernel - 1) *
//! dilation + 1`), concatenations ("Concatenation": the sum of the parts)
//! and element counts ("Preventing Premature Guessing with Total_elems
//! Constraints": products of sizes, `coeff * var / denom`) — is computed
//! exactly (sums and two-factor products of sizes fit `u128`; longer
//! products stop as soon as they pass the bound) and checked. A size past
//! the bound is a [`ShapeErrorKind::Overflow`] error at the constraint that
//! needed it, whose message names the sizes involved and ends in
//! `more than the largest size 9223372036854775807`; never a wrapped or
//! saturated size that would look plausible downstream (MLIR's dimensions
//! are `i64`).

use super::{AffineDims, Constraint, Dim, Origin, Row, ShapeError, ShapeErrorKind, Solver, Tagged};
use crate::MAX_SIZE;

/// The end of every overflow message.
pub(crate) fn beyond() -> String {
    format!("more than the largest size {MAX_SIZE}")
}

/// `v` as a size, when it is at most [`MAX_SIZE`].
pub(crate) fn fit(v: u128) -> Option<u64> {
    u64::try_from(v).ok().filter(|v| *v <= MAX_SIZE)
}

/// The exact sum of sizes (exact for fewer than 2^64 parts).
pub(crate) fn sum(parts: &[u64]) -> u128 {
    parts
        .iter()
        .fold(0u128, |acc, &p| acc.saturating_add(u128::from(p)))
}

/// How many operands an expression shows before `...`.
const SHOWN: usize = 8;

/// `a + b + c = s` (the first few terms).
pub(crate) fn sum_expr(parts: &[u64]) -> String {
    let mut terms: Vec<String> = parts.iter().take(SHOWN).map(u64::to_string).collect();
    if parts.len() > SHOWN {
        terms.push("...".into());
    }
    format!("{} = {}", terms.join(" + "), sum(parts))
}

/// The product of sizes when it is at most [`MAX_SIZE`] (0 when a factor
/// is 0); otherwise `a * b * c = p`, naming the factors other than 1 (the
/// first few) and the product (or that it passes 2^128).
pub(crate) fn product(factors: &[u64]) -> Result<u64, String> {
    if factors.contains(&0) {
        return Ok(0);
    }
    let mut acc: u64 = 1;
    for &f in factors {
        match acc.checked_mul(f).filter(|p| *p <= MAX_SIZE) {
            Some(p) => acc = p,
            None => return Err(product_expr(factors)),
        }
    }
    Ok(acc)
}

fn product_expr(factors: &[u64]) -> String {
    let big: Vec<u64> = factors.iter().copied().filter(|f| *f != 1).collect();
    let mut terms: Vec<String> = big.iter().take(SHOWN).map(u64::to_string).collect();
    if big.len() > SHOWN {
        terms.push("...".into());
    }
    let exact = factors
        .iter()
        .try_fold(1u128, |acc, &f| acc.checked_mul(u128::from(f)));
    match exact {
        Some(p) => format!("{} = {p}", terms.join(" * ")),
        None => format!("{} (more than 2^128)", terms.join(" * ")),
    }
}

/// The first value of a constraint that is out of range, as a message and
/// the error kind: a size, element count, stride or dilation above
/// [`MAX_SIZE`] (an overflow), or a zero stride, dilation, coefficient or
/// denominator (which the constraints' invariants exclude; checked so that
/// a hand-built constraint cannot divide by zero).
pub(super) fn out_of_range(c: &Constraint) -> Option<(ShapeErrorKind, String)> {
    let over = |what: &str, n: u64| {
        (n > MAX_SIZE).then(|| {
            (
                ShapeErrorKind::Overflow,
                format!("{what} {n} is {}", beyond()),
            )
        })
    };
    let dim = |d: &Dim| match d {
        Dim::Size(n, _) => over("size", *n),
        Dim::Var(_) => None,
    };
    // The first size out of range is found by a plain test, and only then
    // turned into an error: row constraints, nearly all of them, come
    // through here once each.
    fn big(d: &&Dim) -> bool {
        matches!(d, Dim::Size(n, _) if *n > MAX_SIZE)
    }
    fn first_big<'r>(rows: impl IntoIterator<Item = &'r Row>) -> Option<&'r Dim> {
        rows.into_iter()
            .find_map(|r| r.beg.iter().chain(&r.end).find(big))
    }
    let rows = |rs: &[Row]| first_big(rs).and_then(dim);
    let zero = |kind: ShapeErrorKind, what: &str, n: u64| {
        (n == 0).then(|| (kind, format!("the {what} must be at least 1")))
    };
    match c {
        Constraint::DimEq(a, b) | Constraint::DimIneq { cur: a, subr: b } => {
            [a, b].into_iter().find(big).and_then(dim)
        }
        Constraint::RowEq(a, b)
        | Constraint::RowIneq {
            cur: a, subr: b, ..
        } => first_big([a, b]).and_then(dim),
        Constraint::AtLeast(d, n) => dim(d).or_else(|| {
            (*n > MAX_SIZE).then(|| {
                (
                    ShapeErrorKind::Overflow,
                    format!("an index needs an axis of size at least {n}, {}", beyond()),
                )
            })
        }),
        Constraint::TotalElems(rs, n) => rows(rs).or_else(|| over("element count", *n)),
        Constraint::StridedElems {
            rows: rs,
            coeff,
            var,
            denom,
        } => rows(rs)
            .or_else(|| dim(var))
            .or_else(|| over("element-count coefficient", *coeff))
            .or_else(|| over("element-count denominator", *denom))
            .or_else(|| zero(ShapeErrorKind::ElementCount, "coefficient", *coeff))
            .or_else(|| zero(ShapeErrorKind::ElementCount, "denominator", *denom)),
        Constraint::Exact(rs, ds) => rows(rs).or_else(|| ds.iter().find(big).and_then(dim)),
        Constraint::Affine(a) => {
            let AffineDims {
                input,
                output,
                stride,
                kernel,
                pads,
            } = &**a;
            [input, output]
                .into_iter()
                .chain(kernel.as_ref().map(|(k, _)| k))
                .find(big)
                .and_then(dim)
                .or_else(|| over("stride", *stride))
                .or_else(|| kernel.and_then(|(_, dil)| over("dilation", dil)))
                .or_else(|| pads.and_then(|(lo, _)| over("padding", lo)))
                .or_else(|| pads.and_then(|(_, hi)| over("padding", hi)))
                .or_else(|| zero(ShapeErrorKind::IncompatibleStride, "stride", *stride))
                .or_else(|| {
                    kernel.and_then(|(_, dil)| {
                        zero(ShapeErrorKind::IncompatibleStride, "dilation", dil)
                    })
                })
        }
        Constraint::Concat { whole, parts } => {
            std::iter::once(whole).chain(parts).find(big).and_then(dim)
        }
    }
}

impl Solver {
    /// Checks the values a constraint gives (see [`out_of_range`]); run
    /// once, before a constraint added from outside is first simplified, so that every size the solver
    /// binds or computes with is at most [`MAX_SIZE`].
    pub(crate) fn check_literals(&self, t: &Tagged) -> Result<(), ShapeError> {
        match out_of_range(&t.constraint) {
            None => Ok(()),
            Some((kind, message)) => Err(self.dim_error(kind, message, t.origin, &[])),
        }
    }

    /// An overflow error about dims: `{message}, more than the largest size
    /// 9223372036854775807 at {origin}`.
    pub(crate) fn dim_overflow(&self, message: String, origin: Origin, dims: &[Dim]) -> ShapeError {
        self.dim_error(
            ShapeErrorKind::Overflow,
            format!("{message}, {}", beyond()),
            origin,
            dims,
        )
    }

    /// An overflow error about an element count of rows: `the axes have
    /// {product} elements, more than the largest size 9223372036854775807
    /// ({origin})`.
    pub(crate) fn count_overflow(&self, rows: &[Row], product: &str, origin: Origin) -> ShapeError {
        let refs: Vec<&Row> = rows.iter().collect();
        self.row_error(
            ShapeErrorKind::Overflow,
            format!("the axes have {product} elements, {}", beyond()),
            origin,
            &refs,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{Closing, OpId, Role};
    use crate::spec::RowKind;

    fn origin() -> Origin {
        Origin::new(
            OpId(0),
            (Role::Result, RowKind::Output),
            (Role::Operand(0), RowKind::Output),
        )
    }

    /// Solves one hand-built constraint (over fresh variables `v0`, `v1`).
    fn solve_one(make: impl FnOnce(Dim, Dim) -> Constraint) -> (Solver, Result<(), ShapeError>) {
        let mut s = Solver::new();
        let (a, b) = (s.fresh_dim(false), s.fresh_dim(false));
        s.add(make(Dim::Var(a), Dim::Var(b)), origin());
        let r = s.solve(Closing::Full);
        (s, r)
    }

    /// Constraints built by hand (not by `Problem`) with values the
    /// invariants exclude are errors, never a panic or a division by zero.
    #[test]
    fn hand_built_constraints_out_of_range_are_errors() {
        let kind = |make: fn(Dim, Dim) -> Constraint| solve_one(make).1.map_err(|e| e.kind);
        assert_eq!(
            kind(|_, o| Constraint::Affine(Box::new(AffineDims {
                input: Dim::size(6),
                output: o,
                stride: 0,
                kernel: None,
                pads: None,
            }))),
            Err(ShapeErrorKind::IncompatibleStride)
        );
        assert_eq!(
            kind(|o, k| Constraint::Affine(Box::new(AffineDims {
                input: Dim::size(6),
                output: o,
                stride: 1,
                kernel: Some((k, 0)),
                pads: None,
            }))),
            Err(ShapeErrorKind::IncompatibleStride)
        );
        assert_eq!(
            kind(|n, _| Constraint::StridedElems {
                rows: thin_vec::thin_vec![Row::closed(vec![Dim::size(5)])],
                coeff: 1,
                var: n,
                denom: 0
            }),
            Err(ShapeErrorKind::ElementCount)
        );
        assert_eq!(
            kind(|n, _| Constraint::StridedElems {
                rows: thin_vec::thin_vec![Row::closed(vec![Dim::size(5)])],
                coeff: 0,
                var: n,
                denom: 1
            }),
            Err(ShapeErrorKind::ElementCount)
        );
        // Constraints that would hold whatever their variables are
        // (`cur >= []`, `cur >= 1`) are dropped only with sizes in range.
        assert_eq!(
            kind(|_, _| Constraint::RowIneq {
                cur: Row::closed(vec![Dim::size(u64::MAX)]),
                subr: Row::closed(vec![]),
                marked: false,
            }),
            Err(ShapeErrorKind::Overflow)
        );
        assert_eq!(
            kind(|_, _| Constraint::DimIneq {
                cur: Dim::size(u64::MAX),
                subr: Dim::size(1),
            }),
            Err(ShapeErrorKind::Overflow)
        );
        let (_, r) = solve_one(|a, _| Constraint::DimEq(a, Dim::size(u64::MAX)));
        let e = r.unwrap_err();
        assert_eq!(e.kind, ShapeErrorKind::Overflow);
        assert_eq!(
            e.to_string(),
            "size overflow: size 18446744073709551615 is more than the largest size 9223372036854775807 at output row of the result vs output row of operand #0"
        );
        let (_, r) = solve_one(|a, _| {
            Constraint::Affine(Box::new(AffineDims {
                input: a,
                output: Dim::size(2),
                stride: MAX_SIZE + 1,
                kernel: None,
                pads: None,
            }))
        });
        assert!(
            r.unwrap_err()
                .message
                .starts_with("stride 9223372036854775808 is more")
        );
    }

    /// `coeff * var / denom` is exact: past the limit only if the quotient is.
    #[test]
    fn strided_counts_are_exact() {
        let mut s = Solver::new();
        let (n, d) = (s.fresh_dim(false), s.fresh_dim(false));
        s.add(Constraint::DimEq(Dim::Var(n), Dim::size(1 << 62)), origin());
        s.add(
            Constraint::StridedElems {
                rows: thin_vec::thin_vec![Row::closed(vec![Dim::Var(d)])],
                coeff: 4,
                var: Dim::Var(n),
                denom: 4,
            },
            origin(),
        );
        s.solve(Closing::Full).expect("4 * 2^62 / 4 fits");
        assert_eq!(s.find_dim(Dim::Var(d)), Dim::size(1 << 62));
        let mut s = Solver::new();
        let (n, d) = (s.fresh_dim(false), s.fresh_dim(false));
        s.add(Constraint::DimEq(Dim::Var(n), Dim::size(1 << 62)), origin());
        s.add(
            Constraint::StridedElems {
                rows: thin_vec::thin_vec![Row::closed(vec![Dim::Var(d)])],
                coeff: 4,
                var: Dim::Var(n),
                denom: 1,
            },
            origin(),
        );
        let e = s.solve(Closing::Full).expect_err("4 * 2^62 does not fit");
        assert_eq!(e.kind, ShapeErrorKind::Overflow);
        assert!(
            e.message.starts_with(
                "the axes have 4 * 4611686018427387904 / 1 = 18446744073709551616 elements, more than the largest size"
            ),
            "{e}"
        );
    }

    #[test]
    fn fit_is_exact_at_the_bound() {
        assert_eq!(fit(u128::from(MAX_SIZE)), Some(MAX_SIZE));
        assert_eq!(fit(u128::from(MAX_SIZE) + 1), None);
        assert_eq!(fit(u128::from(u64::MAX) + 1), None);
    }

    #[test]
    fn products_stop_at_the_bound_and_name_their_factors() {
        assert_eq!(product(&[]), Ok(1));
        assert_eq!(product(&[3, 1, 5]), Ok(15));
        assert_eq!(product(&[u64::MAX, 0]), Ok(0), "a zero factor wins");
        assert_eq!(product(&[MAX_SIZE, 1]), Ok(MAX_SIZE));
        assert_eq!(
            product(&[100_000, 100_000, 100_000, 100_000]),
            Err("100000 * 100000 * 100000 * 100000 = 100000000000000000000".into())
        );
        assert_eq!(
            product(&[1 << 62, 1, 2]),
            Err("4611686018427387904 * 2 = 9223372036854775808".into())
        );
        let many = [u64::MAX; 10];
        assert!(
            product(&many)
                .unwrap_err()
                .ends_with("* ... (more than 2^128)")
        );
    }

    #[test]
    fn sums_are_exact() {
        assert_eq!(sum(&[MAX_SIZE, MAX_SIZE, u64::MAX]), (1u128 << 65) - 3);
        assert_eq!(
            sum_expr(&[MAX_SIZE, 1]),
            "9223372036854775807 + 1 = 9223372036854775808"
        );
    }
}
