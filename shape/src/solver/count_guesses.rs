//! Which dims of element counts closing guesses first (reference,
//! "Preventing Premature Guessing with Total_elems Constraints", and
//! "Stage details", stages 5 and 7).
//!
//! The reference keeps a count's numerator variable from being guessed; the
//! dims of the rows it counts are guessed to their lower bound like any
//! other. A pending count `product(rows_i) = coeff_i * n / denom_i`
//! shared by several rows (a reshape: its operand and its result) decides
//! every side once one side is known. Guessing the dims of one side to
//! their lower bounds fixes `n`, and so can make another side impossible
//! before its own open variables are even closed: a reshape of
//! `d11,2,d8,7,4` (a fixed-index axis and a broadcast result, both to close
//! to 1 at stage 7) to a terminal `d1,2,2,7` guessed `d1 = 1` at stage 5,
//! `n = 28`, and the operand's 56 known elements do not divide 28.
//!
//! So a guess that the counts show to be impossible waits, and its dims
//! are derived instead:
//!
//! - A side of a pending count whose unknowns are all dims that this pass
//!   guesses (no row variable, no dim left for a later stage) is
//!   *possible* when guessing them to their lower bounds leaves every other
//!   side possible (below). The dims of an impossible side wait for the
//!   count, unless a possible side has them too. When every side is such a
//!   side and none is possible, the count takes the least value every side
//!   can have with its unknowns at their lower bounds (a deadlock break).
//! - A known count (`Total_elems` with a `Num_elems` numerator) over two or
//!   more unknown dims, all guessed by this pass, whose lower bounds do not
//!   give the count: its last unknown waits and takes what the others
//!   leave.
//!
//! Guessing a side leaves the others possible when it gives an integer
//! count `n`, at least `n`'s lower bound, and every other side can still
//! have `coeff * n / denom` elements: an integer that its known sizes (and
//! the dims the guess fixes) divide and that its unknowns' lower bounds do
//! not exceed (exactly their product when nothing else of it is open).
//! Counts with a factor that may be 0 (a discardable dim) are left alone.
//! Guesses only wait where guessing them would certainly fail, so a problem
//! that closed before closes the same way; and every decision is made from
//! sets of sides, never from the order the constraints are stored in, so the
//! solution does not depend on that order either.

use std::collections::{HashMap, HashSet};

use super::{Constraint, Dim, DimVar, Origin, Row, Solver, counts::factors};

/// What one closing round does about element counts.
#[derive(Debug, Default)]
pub(super) struct CountPlan {
    /// Dims of the round's candidates that are not guessed this round.
    pub deferred: HashSet<DimVar>,
    /// Deadlock breaks: a count variable and the value it takes (only
    /// when no candidate is left to guess).
    pub breaks: Vec<(DimVar, u64)>,
}

/// One side of a pending count: `product(rows) = coeff * n / denom`.
struct Side {
    /// The product of the known sizes.
    known: u64,
    /// Distinct unknown dims, with how often each occurs.
    dims: Vec<(DimVar, u32)>,
    /// Whether a row variable is left.
    open_rows: bool,
    coeff: u64,
    denom: u64,
}

impl Side {
    fn has(&self, v: DimVar) -> bool {
        self.dims.iter().any(|(u, _)| *u == v)
    }

    /// Whether a factor may be 0 (a known size, or a discardable dim's
    /// lower bound): such counts are left to the guesses as they come.
    fn may_be_empty(&self, s: &Solver) -> bool {
        self.known == 0 || self.dims.iter().any(|(v, _)| s.lower(*v) == 0)
    }
}

/// Distinct dims with multiplicities, in order of first occurrence.
fn counted(dims: Vec<DimVar>) -> Vec<(DimVar, u32)> {
    let mut out: Vec<(DimVar, u32)> = vec![];
    for v in dims {
        match out.iter_mut().find(|(u, _)| *u == v) {
            Some((_, k)) => *k += 1,
            None => out.push((v, 1)),
        }
    }
    out
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// At most [`crate::MAX_SIZE`], else `None`.
fn bounded(v: u128) -> Option<u128> {
    (v <= u128::from(crate::MAX_SIZE)).then_some(v)
}

impl Solver {
    /// The lower bound of a free dim (a representative): what a guess gives.
    fn lower(&self, v: DimVar) -> u64 {
        self.dims[v.0 as usize].at_least
    }

    /// `known` times the lower bounds of `dims` (with multiplicity) for
    /// which `take` holds; `None` past [`crate::MAX_SIZE`].
    fn guessed_product(
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

    /// The count variable's value if side `p` of a group is guessed to its
    /// lower bounds, when that leaves every other side possible (see the
    /// module documentation); `None` otherwise.
    fn possible_guess(&self, n: DimVar, sides: &[Side], p: usize) -> Option<u128> {
        let side = &sides[p];
        let g = self.guessed_product(side.known, &side.dims, |_| true)?;
        let scaled = g * u128::from(side.denom);
        let coeff = u128::from(side.coeff);
        if g == 0 || !scaled.is_multiple_of(coeff) {
            return None;
        }
        let value = bounded(scaled / coeff)?;
        if value < u128::from(self.lower(n)) {
            return None;
        }
        for (_, other) in sides.iter().enumerate().filter(|(j, _)| *j != p) {
            let total = u128::from(other.coeff) * value;
            if !total.is_multiple_of(u128::from(other.denom)) {
                return None;
            }
            let count = total / u128::from(other.denom);
            // Its dims that the guess fixes count as known.
            let fixed = self.guessed_product(other.known, &other.dims, |v| side.has(v))?;
            let least = self.guessed_product(1, &other.dims, |v| !side.has(v))?;
            let rest_open = other.open_rows || other.dims.iter().any(|(v, _)| !side.has(*v));
            let ok = if rest_open {
                fixed != 0 && count.is_multiple_of(fixed) && count >= fixed * least
            } else {
                count == fixed
            };
            if !ok {
                return None;
            }
        }
        Some(value)
    }

    /// The least count that every side of a deadlocked group can have with
    /// its unknowns at their lower bounds: a multiple of each side's
    /// `lower * denom / gcd(lower * denom, coeff)`, at least the count
    /// variable's lower bound.
    fn least_common_count(&self, n: DimVar, sides: &[Side]) -> Option<u64> {
        let mut l: u128 = 1;
        for s in sides {
            let g = self.guessed_product(s.known, &s.dims, |_| true)?;
            if g == 0 {
                return None;
            }
            let need = bounded(g * u128::from(s.denom))?;
            let q = need / gcd(need, u128::from(s.coeff));
            l = bounded(l / gcd(l, q) * q)?;
        }
        let min = u128::from(self.lower(n).max(1));
        let value = bounded(l * min.div_ceil(l))?;
        u64::try_from(value).ok()
    }

    /// Which of the candidate dims `pool` a closing round guesses now (see
    /// the module documentation).
    pub(super) fn count_plan(&self, pool: &[DimVar]) -> CountPlan {
        let mut plan = CountPlan::default();
        if !self.has_counts || pool.is_empty() {
            return plan;
        }
        // Known counts over two or more unknown dims, and the sides of
        // pending counts by count variable.
        let mut totals: Vec<(Side, u64)> = vec![];
        let mut groups: HashMap<DimVar, (Origin, Vec<Side>)> = HashMap::new();
        for t in self.stuck() {
            let (rows, count) = match &t.constraint {
                Constraint::StridedElems {
                    rows,
                    coeff,
                    var,
                    denom,
                } => match self.find_dim(*var) {
                    Dim::Var(n) => (&rows[..], Err((n, *coeff, *denom))),
                    Dim::Size(..) => continue,
                },
                Constraint::TotalElems(rows, c) => (&rows[..], Ok(*c)),
                _ => continue,
            };
            let rows: Vec<Row> = rows.iter().map(|r| self.resolve_row(r)).collect();
            let f = factors(&rows);
            let Ok(known) = f.known else { continue };
            let side = Side {
                known,
                dims: counted(f.dims),
                open_rows: !f.rows.is_empty(),
                coeff: 1,
                denom: 1,
            };
            match count {
                Ok(c) if side.dims.len() >= 2 && !side.open_rows => totals.push((side, c)),
                Ok(_) => {}
                Err((n, coeff, denom)) => {
                    let group = groups.entry(n).or_insert_with(|| (t.origin, vec![]));
                    group.0 = group.0.min(t.origin);
                    group.1.push(Side {
                        coeff,
                        denom,
                        ..side
                    });
                }
            }
        }
        groups.retain(|_, (_, sides)| sides.len() >= 2);
        if totals.is_empty() && groups.is_empty() {
            return plan;
        }
        // The candidates among the dims of these counts (not a set of the
        // whole pool: at stage 7 it holds nearly every dim).
        let counted_dims: HashSet<DimVar> = totals
            .iter()
            .map(|(s, _)| s)
            .chain(groups.values().flat_map(|(_, sides)| sides))
            .flat_map(|s| s.dims.iter().map(|(v, _)| *v))
            .collect();
        let in_pool: HashSet<DimVar> = pool
            .iter()
            .copied()
            .filter(|v| counted_dims.contains(v))
            .collect();
        for (side, c) in &totals {
            self.defer_receiver(side, *c, &in_pool, &mut plan);
        }
        // In content order: which deadlocks break together must not depend
        // on the order the constraints were stored in.
        let mut groups: Vec<(DimVar, (Origin, Vec<Side>))> = groups.into_iter().collect();
        groups.sort_by_key(|a| (a.1.0, a.0));
        let mut broken: HashSet<DimVar> = HashSet::new();
        for (n, (_, sides)) in &groups {
            self.plan_group(*n, sides, &in_pool, &mut broken, &mut plan);
        }
        plan.deferred.retain(|v| in_pool.contains(v));
        plan
    }

    /// A known count `c` over two or more unknown dims (no row variable),
    /// all in `pool`, whose lower bounds miss it: the last one waits, if the
    /// others' guess leaves a multiple of the count.
    fn defer_receiver(&self, side: &Side, c: u64, pool: &HashSet<DimVar>, plan: &mut CountPlan) {
        let [.., (receiver, _)] = side.dims.as_slice() else {
            return;
        };
        if side.may_be_empty(self) || !side.dims.iter().all(|(v, _)| pool.contains(v)) {
            return;
        }
        let all = self.guessed_product(side.known, &side.dims, |_| true);
        let others = self.guessed_product(side.known, &side.dims, |v| v != *receiver);
        if let (Some(all), Some(others)) = (all, others)
            && all != u128::from(c)
            && others != 0
            && u128::from(c).is_multiple_of(others)
        {
            plan.deferred.insert(*receiver);
        }
    }

    /// One pending count's sides (see the module documentation); `broken`
    /// holds the dims of the groups whose deadlock this round breaks, so
    /// that two breaks never decide one dim.
    fn plan_group(
        &self,
        n: DimVar,
        sides: &[Side],
        pool: &HashSet<DimVar>,
        broken: &mut HashSet<DimVar>,
        plan: &mut CountPlan,
    ) {
        if sides.iter().any(|s| s.has(n) || s.may_be_empty(self)) {
            return;
        }
        let guessable: Vec<usize> = (0..sides.len())
            .filter(|&i| !sides[i].open_rows && sides[i].dims.iter().all(|(v, _)| pool.contains(v)))
            .collect();
        // The dims of the impossible sides wait, unless a possible side
        // guesses them too (its guess accounts for them).
        let possible: Vec<usize> = guessable
            .iter()
            .copied()
            .filter(|&i| self.possible_guess(n, sides, i).is_some())
            .collect();
        for &i in &guessable {
            if !possible.contains(&i) {
                let waits = sides[i].dims.iter().map(|(v, _)| *v);
                let waits = waits.filter(|v| !possible.iter().any(|&p| sides[p].has(*v)));
                plan.deferred.extend(waits);
            }
        }
        // A deadlock: every side guessable, none possible.
        if !possible.is_empty() || guessable.len() < sides.len() {
            return;
        }
        let dims: Vec<DimVar> = sides
            .iter()
            .flat_map(|s| s.dims.iter().map(|(v, _)| *v))
            .collect();
        if dims.iter().any(|v| broken.contains(v)) {
            return;
        }
        if let Some(value) = self.least_common_count(n, sides) {
            broken.extend(dims);
            plan.breaks.push((n, value));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::solver::{Closing, Constraint, Dim, OpId, Origin, Role, Row, Solver};
    use crate::spec::RowKind;

    fn origin() -> Origin {
        Origin::new(
            OpId(0),
            (Role::Result, RowKind::Batch),
            (Role::Operand(0), RowKind::Batch),
        )
    }

    /// A reshape's two sides as the problem states them: one count `n`.
    fn reshape(s: &mut Solver, result: Vec<Dim>, operand: Vec<Dim>) {
        let n = Dim::Var(s.fresh_dim(false));
        for dims in [result, operand] {
            s.add_deferred(
                Constraint::StridedElems {
                    rows: thin_vec::thin_vec![Row::closed(dims)],
                    coeff: 1,
                    var: n,
                    denom: 1,
                },
                origin(),
            );
        }
    }

    /// The result's terminal `d` (stage 5) waits for the operand's open
    /// axis (stage 7), whose guess gives the count: `d = 1` would make it
    /// 2, which the operand's 4 known elements do not divide.
    #[test]
    fn a_terminal_dim_waits_for_the_count_of_the_other_side() {
        let mut s = Solver::new();
        let d = s.fresh_dim(true);
        let o = s.fresh_dim(false);
        reshape(
            &mut s,
            vec![Dim::Var(d), Dim::size(2)],
            vec![Dim::size(4), Dim::Var(o)],
        );
        s.solve(Closing::Full).expect("solvable");
        assert_eq!(s.find_dim(Dim::Var(o)), Dim::size(1));
        assert_eq!(s.find_dim(Dim::Var(d)), Dim::size(2));
    }

    /// No side is possible at its lower bounds (4 and 6 elements): the
    /// count takes the least both can have, 12.
    #[test]
    fn a_deadlocked_count_takes_the_least_common_count() {
        let mut s = Solver::new();
        let (a, c) = (s.fresh_dim(true), s.fresh_dim(true));
        reshape(
            &mut s,
            vec![Dim::Var(c), Dim::size(6)],
            vec![Dim::Var(a), Dim::size(4)],
        );
        s.solve(Closing::Full).expect("solvable");
        assert_eq!(s.find_dim(Dim::Var(a)), Dim::size(3));
        assert_eq!(s.find_dim(Dim::Var(c)), Dim::size(2));
    }

    /// A known count over two unknown dims: the first is guessed, the last
    /// takes the rest (guessing both gave 1 element of 6).
    #[test]
    fn the_last_unknown_of_a_known_count_is_derived() {
        let mut s = Solver::new();
        let (a, b) = (s.fresh_dim(false), s.fresh_dim(false));
        s.add_deferred(
            Constraint::TotalElems(vec![Row::closed(vec![Dim::Var(a), Dim::Var(b)])], 6),
            origin(),
        );
        s.solve(Closing::Full).expect("solvable");
        assert_eq!(s.find_dim(Dim::Var(a)), Dim::size(1));
        assert_eq!(s.find_dim(Dim::Var(b)), Dim::size(6));
    }
}
