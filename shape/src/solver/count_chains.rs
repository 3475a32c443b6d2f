//! How far a guess of an element count's dims reaches (reference,
//! "Preventing Premature Guessing with Total_elems Constraints"): the
//! sides of the pending counts, and the check that guessing some dims
//! leaves every count possible, along a chain of reshapes too (see
//! [`super::count_guesses`], which decides from it which guesses wait).

use std::collections::HashMap;

use super::{DimVar, Origin, Solver};

/// One side of a pending count: `product(rows) = coeff * n / denom`.
pub(super) struct Side {
    /// The product of the known sizes.
    pub known: u64,
    /// Distinct unknown dims, with how often each occurs.
    pub dims: Vec<(DimVar, u32)>,
    /// Whether a row variable is left.
    pub open_rows: bool,
    pub coeff: u64,
    pub denom: u64,
}

impl Side {
    pub(super) fn has(&self, v: DimVar) -> bool {
        self.dims.iter().any(|(u, _)| *u == v)
    }

    /// Whether a factor may be 0 (a known size, or a discardable dim's
    /// lower bound): such counts are left to the guesses as they come.
    pub(super) fn may_be_empty(&self, s: &Solver) -> bool {
        self.known == 0 || self.dims.iter().any(|(v, _)| s.lower(*v) == 0)
    }
}

/// A pending count's variable, the least origin of its constraints, and
/// its sides.
pub(super) type Group = (DimVar, (Origin, Vec<Side>));

/// The pending counts of a closing round, and which of them each dim
/// occurs in.
pub(super) struct Counts {
    pub groups: Vec<Group>,
    pub by_dim: HashMap<DimVar, Vec<usize>>,
    /// Products of dims that a count bounds from below: a side's dims
    /// (no row variable) and the least product they can have, from the
    /// least its count can be (the least any of its sides can have).
    pub bounds: Vec<(Vec<(DimVar, u32)>, u128)>,
    /// The bounds each dim occurs in.
    pub bounds_by_dim: HashMap<DimVar, Vec<usize>>,
}

/// Whether multiset `small` is contained in `big`.
fn contains(big: &[(DimVar, u32)], small: &[(DimVar, u32)]) -> bool {
    small
        .iter()
        .all(|(v, k)| big.iter().any(|(u, j)| u == v && j >= k))
}

impl Counts {
    /// The least product `dims` (with multiplicity) can have: their lower
    /// bounds, or a bound on some of them times the lower bounds of the
    /// rest.
    pub(super) fn least(&self, s: &Solver, dims: &[(DimVar, u32)]) -> Option<u128> {
        let mut least = s.guessed_product(1, dims, |_| true)?;
        let candidates = dims
            .iter()
            .flat_map(|(v, _)| self.bounds_by_dim.get(v).into_iter().flatten());
        for &b in candidates {
            let (m, bound) = &self.bounds[b];
            if contains(dims, m) {
                let rest: Vec<(DimVar, u32)> = dims
                    .iter()
                    .map(|&(v, k)| (v, k - m.iter().find(|(u, _)| *u == v).map_or(0, |x| x.1)))
                    .collect();
                let more = s.guessed_product(1, &rest, |_| true)?;
                least = least.max(bounded(bound.checked_mul(more)?)?);
            }
        }
        Some(least)
    }

    /// Computes [`Counts::bounds`]: a count is at least what each of its
    /// sides' dims are at least, which bounds the dims of its other sides,
    /// and so on along a chain of reshapes (a few rounds: the bounds only
    /// sharpen the checks).
    pub(super) fn bound(&mut self, s: &Solver) {
        for (_, (_, sides)) in &self.groups {
            for side in sides.iter().filter(|d| !d.open_rows && !d.dims.is_empty()) {
                let at = self.bounds.len();
                for (v, _) in &side.dims {
                    self.bounds_by_dim.entry(*v).or_default().push(at);
                }
                self.bounds.push((side.dims.clone(), 0));
            }
        }
        for _ in 0..REACH {
            let mut next: Vec<u128> = vec![];
            for (n, (_, sides)) in &self.groups {
                // The least count: `product * denom / coeff`, rounded up.
                let least_n = sides
                    .iter()
                    .filter_map(|d| {
                        let p = self.least(s, &d.dims)?.saturating_mul(u128::from(d.known));
                        let p = p.saturating_mul(u128::from(d.denom));
                        Some(p.div_ceil(u128::from(d.coeff.max(1))))
                    })
                    .max()
                    .unwrap_or(0)
                    .max(u128::from(s.lower(*n)));
                for d in sides.iter().filter(|d| !d.open_rows && !d.dims.is_empty()) {
                    let total = least_n
                        .saturating_mul(u128::from(d.coeff))
                        .div_ceil(u128::from(d.denom.max(1)));
                    next.push(
                        total
                            .div_ceil(u128::from(d.known.max(1)))
                            .min(u128::from(crate::MAX_SIZE)),
                    );
                }
            }
            if next.iter().zip(&self.bounds).all(|(a, (_, b))| a == b) {
                break;
            }
            for (b, x) in self.bounds.iter_mut().zip(next) {
                b.1 = b.1.max(x);
            }
        }
    }
}

/// How many counts away from a guess [`Solver::consistent`] looks: a
/// chain of reshapes is checked that far, past that a guess goes ahead (as
/// it did before such chains were checked), which keeps a round over a
/// long chain linear.
pub(super) const REACH: usize = 16;

/// `known` times the values `dims` gives (with multiplicity) of the dims
/// of `ds` it has; `None` past [`crate::MAX_SIZE`].
fn valued_product(known: u64, ds: &[(DimVar, u32)], dims: &HashMap<DimVar, u128>) -> Option<u128> {
    let mut p = u128::from(known);
    for (v, k) in ds {
        let Some(&x) = dims.get(v) else { continue };
        for _ in 0..*k {
            p = bounded(p.checked_mul(x)?)?;
        }
    }
    Some(p)
}

/// At most [`crate::MAX_SIZE`], else `None`.
pub(super) fn bounded(v: u128) -> Option<u128> {
    (v <= u128::from(crate::MAX_SIZE)).then_some(v)
}

impl Solver {
    /// The lower bound of a free dim (a representative): what a guess gives.
    pub(super) fn lower(&self, v: DimVar) -> u64 {
        self.dims[v.0 as usize].at_least
    }

    /// `known` times the lower bounds of `dims` (with multiplicity) for
    /// which `take` holds; `None` past [`crate::MAX_SIZE`].
    pub(super) fn guessed_product(
        &self,
        known: u64,
        dims: &[(DimVar, u32)],
        take: impl Fn(DimVar) -> bool,
    ) -> Option<u128> {
        let mut p = u128::from(known);
        for &(v, k) in dims.iter().filter(|(v, _)| take(*v)) {
            for _ in 0..k {
                p = bounded(p * u128::from(self.lower(v)))?;
            }
        }
        Some(p)
    }

    /// Whether the values `dims` and `values` (of count variables) leave
    /// every count possible, with what they force: a count whose side they
    /// fix, and the last unknown dim of a side (no row variable, no repeat)
    /// whose count is fixed. A chain of reshapes passes a guess on from
    /// count to count (`a -> b -> c`: guessing `c` fixes `b`, and `b` the
    /// count of `a`), so a guess is checked against the counts it reaches,
    /// not only its own, up to [`REACH`] steps away. Each step decides from
    /// the values the one before left, and every value is forced, so the
    /// outcome does not depend on the order the counts are visited in.
    pub(super) fn consistent(
        &self,
        counts: &Counts,
        mut dims: HashMap<DimVar, u128>,
        mut values: HashMap<DimVar, u128>,
    ) -> bool {
        let mut frontier: Vec<usize> = dims
            .keys()
            .flat_map(|v| counts.by_dim.get(v).into_iter().flatten().copied())
            .chain((0..counts.groups.len()).filter(|&g| values.contains_key(&counts.groups[g].0)))
            .collect();
        for _ in 0..REACH {
            frontier.sort_unstable();
            frontier.dedup();
            if frontier.is_empty() {
                break;
            }
            let mut derived: HashMap<DimVar, u128> = HashMap::new();
            let mut next: Vec<usize> = vec![];
            for &g in &frontier {
                let (n, (_, sides)) = &counts.groups[g];
                let value = match values.get(n) {
                    Some(&value) => value,
                    None => {
                        let full = sides.iter().find(|s| {
                            !s.open_rows && s.dims.iter().all(|(v, _)| dims.contains_key(v))
                        });
                        let Some(s) = full else { continue };
                        let Some(value) = valued_product(s.known, &s.dims, &dims)
                            .map(|p| p * u128::from(s.denom))
                            .filter(|p| *p != 0 && p.is_multiple_of(u128::from(s.coeff)))
                            .map(|p| p / u128::from(s.coeff))
                            .filter(|c| *c >= u128::from(self.lower(*n)))
                        else {
                            return false;
                        };
                        values.insert(*n, value);
                        value
                    }
                };
                for s in sides {
                    let Some(total) = u128::from(s.coeff).checked_mul(value).and_then(bounded)
                    else {
                        return false;
                    };
                    let count = total / u128::from(s.denom);
                    let open: Vec<(DimVar, u32)> = s
                        .dims
                        .iter()
                        .copied()
                        .filter(|(v, _)| !dims.contains_key(v))
                        .collect();
                    let (Some(fixed), Some(least)) = (
                        valued_product(s.known, &s.dims, &dims),
                        counts.least(self, &open),
                    ) else {
                        return false;
                    };
                    let ok = if open.is_empty() && !s.open_rows {
                        count == fixed
                    } else {
                        fixed != 0 && count.is_multiple_of(fixed) && count >= fixed * least
                    };
                    if !ok || !total.is_multiple_of(u128::from(s.denom)) {
                        return false;
                    }
                    if let [(x, 1)] = open.as_slice()
                        && !s.open_rows
                    {
                        let x_value = count / fixed;
                        if derived.insert(*x, x_value).is_some_and(|y| y != x_value) {
                            return false;
                        }
                        next.extend(counts.by_dim.get(x).into_iter().flatten().copied());
                    }
                }
            }
            dims.extend(derived);
            frontier = next;
        }
        true
    }
}
