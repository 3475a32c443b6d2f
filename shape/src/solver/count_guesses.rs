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
//! not exceed (exactly their product when nothing else of it is open). A
//! side with a row variable counts its known sizes only: the variable
//! closes later (to its least upper bound, or to no axes), so what it
//! leaves must be a multiple of them. What a count fixes goes on along a
//! chain of reshapes (`x -> r -> q`): a side left with one unknown dim (no
//! row variable) takes what its count leaves, and that dim's other counts
//! are checked in turn. So guessing `q`'s free axis to 1 waits when it
//! would give `r` one element, and so `x`, an open row plus 32 known cells,
//! too few; a deadlock is only broken where its count passes this check.
//! A side's unknowns are at least their lower bounds, or more where a
//! count bounds their product: a count is at least what each of its sides
//! is at least, so a Flatten of 288 known elements to `d8,d7` makes
//! `d8 * d7 >= 288`, and a later reshape of `d8,d7,d12` to `d13,d12` (all
//! guessed at stage 5) cannot have `d13 = d12 = 1` (see
//! [`super::count_chains`]).
//! Counts with a factor that may be 0 (a discardable dim) are left alone.
//! Guesses only wait where guessing them would certainly fail, so a problem
//! that closed before closes the same way; and every decision is made from
//! sets of sides, never from the order the constraints are stored in, so the
//! solution does not depend on that order either.

use std::collections::{HashMap, HashSet};

use super::count_chains::{Counts, Group, Side, bounded};
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

impl Solver {
    /// Whether guessing side `p` of group `g` to its lower bounds leaves
    /// every pending count possible (see the module documentation).
    fn possible_guess(&self, counts: &Counts, g: usize, p: usize) -> bool {
        let side = &counts.groups[g].1.1[p];
        let guess = side
            .dims
            .iter()
            .map(|&(v, _)| (v, u128::from(self.lower(v))));
        self.consistent(counts, guess.collect(), HashMap::new())
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
        groups.retain(|n, (_, sides)| {
            sides.len() >= 2 && !sides.iter().any(|s| s.has(*n) || s.may_be_empty(self))
        });
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
        let mut groups: Vec<Group> = groups.into_iter().collect();
        groups.sort_by_key(|a| (a.1.0, a.0));
        let mut by_dim: HashMap<DimVar, Vec<usize>> = HashMap::new();
        for (g, (_, (_, sides))) in groups.iter().enumerate() {
            for (v, _) in sides.iter().flat_map(|s| &s.dims) {
                by_dim.entry(*v).or_default().push(g);
            }
        }
        let mut counts = Counts {
            groups,
            by_dim,
            bounds: vec![],
            bounds_by_dim: HashMap::new(),
        };
        counts.bound(self);
        let mut broken: HashSet<DimVar> = HashSet::new();
        for g in 0..counts.groups.len() {
            self.plan_group(&counts, g, &in_pool, &mut broken, &mut plan);
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
        counts: &Counts,
        g: usize,
        pool: &HashSet<DimVar>,
        broken: &mut HashSet<DimVar>,
        plan: &mut CountPlan,
    ) {
        let (n, (_, sides)) = &counts.groups[g];
        let n = *n;
        let guessable: Vec<usize> = (0..sides.len())
            .filter(|&i| !sides[i].open_rows && sides[i].dims.iter().all(|(v, _)| pool.contains(v)))
            .collect();
        // The dims of the impossible sides wait, unless a possible side
        // guesses them too (its guess accounts for them).
        let possible: Vec<usize> = guessable
            .iter()
            .copied()
            .filter(|&i| self.possible_guess(counts, g, i))
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
        // A break that a count it reaches would contradict waits too.
        if let Some(value) = self.least_common_count(n, sides)
            && self.consistent(
                counts,
                HashMap::new(),
                HashMap::from([(n, u128::from(value))]),
            )
        {
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

    /// A chain of reshapes, `a,4 -> d3 -> d4` with terminal `d3` and `d4`
    /// (stage 5) and `a` left to stage 7: guessing `d4 = 1` fixes the second
    /// count, that fixes `d3 = 1`, and so the first count, 1, which the
    /// operand's 4 known elements do not divide. Both wait for `a`.
    #[test]
    fn a_guess_waits_for_a_count_it_reaches_through_another() {
        let mut s = Solver::new();
        let (d3, d4) = (s.fresh_dim(true), s.fresh_dim(true));
        let a = s.fresh_dim(false);
        reshape(&mut s, vec![Dim::Var(d3)], vec![Dim::Var(a), Dim::size(4)]);
        reshape(&mut s, vec![Dim::Var(d4)], vec![Dim::Var(d3)]);
        s.solve(Closing::Full).expect("solvable");
        assert_eq!(s.find_dim(Dim::Var(a)), Dim::size(1));
        assert_eq!(s.find_dim(Dim::Var(d3)), Dim::size(4));
        assert_eq!(s.find_dim(Dim::Var(d4)), Dim::size(4));
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
