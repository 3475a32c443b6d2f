//! Provenance: which constraints made a dim or row what it is, for the
//! notes of an error (`related`), and the error constructors that collect it.

use super::{Dim, Origin, Row, RowVar, ShapeError, ShapeErrorKind, Solver};

impl Solver {
    /// The origins of the bindings on the way from `d` to its representative,
    /// and, at each binding, of the chain its value was read from (`via`),
    /// depth first. Iterative: derivation chains can be as long as the
    /// program, and this runs only when an error is reported. Every `via`
    /// reaches only bindings made before its own, so the walk ends; shared
    /// chains are walked again, so it stops after [`PROVENANCE_WALK`] links.
    pub(crate) fn dim_provenance(&self, d: Dim, out: &mut Vec<Origin>) {
        let mut pending = vec![d];
        let mut links = 0;
        while let Some(mut d) = pending.pop() {
            while let Dim::Var(v) = d {
                links += 1;
                if out.len() >= PROVENANCE || links > PROVENANCE_WALK {
                    return;
                }
                let info = &self.dims[v.0 as usize];
                match &info.binding {
                    Some((next, origin)) => {
                        push_unique(out, *origin);
                        match info.via() {
                            Some(source) => {
                                pending.push(*next);
                                d = Dim::Var(source);
                            }
                            None => d = *next,
                        }
                    }
                    None => break,
                }
            }
        }
    }

    /// The origins of the bindings that shaped a row variable.
    pub(crate) fn row_provenance(&self, v: RowVar, out: &mut Vec<Origin>) {
        let mut v = v;
        while let Some((_, origin)) = &self.rows[v.0 as usize].binding {
            push_unique(out, *origin);
            match self.rows[v.0 as usize].via() {
                Some(next) if out.len() < PROVENANCE => v = next,
                _ => break,
            }
        }
    }

    /// A rank-cycle error about row variable `v`, with its provenance.
    pub(crate) fn rank_cycle(&self, v: RowVar, message: String, origin: Origin) -> ShapeError {
        let mut related = vec![];
        self.row_provenance(v, &mut related);
        let message = format!("{message} ({})", origin.describe());
        with_notes(ShapeErrorKind::RankCycle, message, origin, related)
    }

    /// An error about dims, with the provenance of their bindings.
    pub(crate) fn dim_error(
        &self,
        kind: ShapeErrorKind,
        message: String,
        origin: Origin,
        dims: &[Dim],
    ) -> ShapeError {
        let mut related = vec![];
        for d in dims {
            self.dim_provenance(*d, &mut related);
        }
        let message = format!("{message} at {}", origin.describe());
        with_notes(kind, message, origin, related)
    }

    /// An error about rows, with the provenance of their variables' bindings.
    pub(crate) fn row_error(
        &self,
        kind: ShapeErrorKind,
        message: String,
        origin: Origin,
        rows: &[&Row],
    ) -> ShapeError {
        let mut related = vec![];
        for r in rows {
            for d in r.beg.iter().chain(&r.end) {
                self.dim_provenance(*d, &mut related);
            }
            if let Some(v) = r.var {
                self.row_provenance(v, &mut related);
            }
        }
        let message = format!("{message} ({})", origin.describe());
        with_notes(kind, message, origin, related)
    }
}

/// The most origins an error lists as related.
const PROVENANCE: usize = 8;

/// The most binding links [`Solver::dim_provenance`] follows for one dim.
const PROVENANCE_WALK: usize = 1 << 16;

/// An error at `origin` whose notes are `related`, less `origin` itself.
fn with_notes(
    kind: ShapeErrorKind,
    message: String,
    origin: Origin,
    mut related: Vec<Origin>,
) -> ShapeError {
    related.retain(|o| *o != origin);
    ShapeError {
        kind,
        message,
        origin,
        related,
    }
}

pub(crate) fn push_unique(out: &mut Vec<Origin>, o: Origin) {
    if !out.contains(&o) && out.len() < PROVENANCE {
        out.push(o);
    }
}

#[cfg(test)]
mod tests {
    use crate::solver::{Closing, Constraint, Dim, OpId, Origin, Role, ShapeErrorKind, Solver};
    use crate::spec::RowKind;

    fn at(op: u32) -> Origin {
        Origin::new(
            OpId(op),
            (Role::Result, RowKind::Output),
            (Role::Operand(0), RowKind::Output),
        )
    }

    /// `d0 = 3`, `d1 = d0`, …, `dN = d(N-1)`, `dN = 4`: each binding reads
    /// its size through the previous one, so the error's notes are the
    /// latest bindings first, as many as an error lists, and the walk is
    /// stack-safe however long the derivation is.
    #[test]
    fn provenance_of_a_long_derivation() {
        const N: u32 = 200_000;
        let mut s = Solver::new();
        let dims: Vec<Dim> = (0..=N).map(|_| Dim::Var(s.fresh_dim(false))).collect();
        s.add(Constraint::DimEq(dims[0], Dim::size(3)), at(0));
        for i in 1..=N {
            s.add(
                Constraint::DimEq(dims[i as usize], dims[i as usize - 1]),
                at(i),
            );
        }
        s.add(Constraint::DimEq(dims[N as usize], Dim::size(4)), at(N + 1));
        let err = s.solve(Closing::Full).unwrap_err();
        assert_eq!(err.kind, ShapeErrorKind::SizeMismatch);
        assert_eq!(err.origin, at(N + 1));
        let ops: Vec<u32> = err.related.iter().map(|o| o.op.0).collect();
        assert_eq!(ops, (N - 7..=N).rev().collect::<Vec<_>>());
    }
}
