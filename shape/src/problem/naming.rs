//! Names for the variables left in solved shapes ([`Namer`]).
//!
//! A solved shape prints its unsolved variables with a name the program gave
//! one of the variables of their class, preferring names from the shape's
//! own scope (function), or else a generated name (`d12`, `..r7..`) that no
//! spec of the problem uses. The index is built once, in time linear in the
//! number of names, so naming every shape of a large program stays linear
//! (a lookup per variable, not a scan of every name).

use std::collections::{HashMap, HashSet};

use super::{Problem, ShapeId};
use crate::{
    solver::{Dim, DimVar, Label, Row, RowVar, Shape},
    spec::{self, ShapeAxis, ShapeSpec},
};

/// The names of each class's variables, as `(scope, name)` sorted.
type Candidates<'p> = Vec<(u32, &'p str)>;

/// Names the variables of solved shapes; see the module documentation.
/// Build it after solving ([`Problem::namer`]): it records the classes the
/// variables are in at that time.
#[derive(Debug)]
pub struct Namer<'p> {
    problem: &'p Problem,
    dims: HashMap<DimVar, Candidates<'p>>,
    rows: HashMap<RowVar, Candidates<'p>>,
    dim_taken: HashSet<&'p str>,
    row_taken: HashSet<&'p str>,
}

impl<'p> Namer<'p> {
    pub(super) fn new(problem: &'p Problem) -> Self {
        let solver = &problem.solver;
        let mut dims: HashMap<DimVar, Candidates<'p>> = HashMap::new();
        for ((scope, name), v) in &problem.dim_names {
            if let Dim::Var(rep) = solver.find_dim(Dim::Var(*v)) {
                dims.entry(rep).or_default().push((*scope, name.as_str()));
            }
        }
        let mut rows: HashMap<RowVar, Candidates<'p>> = HashMap::new();
        for ((scope, name), v) in &problem.row_names {
            if let Some(rep) = solver.resolved_bare_var(&Row::of_var(*v)) {
                rows.entry(rep).or_default().push((*scope, name.as_str()));
            }
        }
        for candidates in dims.values_mut().chain(rows.values_mut()) {
            candidates.sort_unstable();
        }
        Namer {
            problem,
            dims,
            rows,
            dim_taken: problem.dim_names.keys().map(|(_, n)| n.as_str()).collect(),
            row_taken: problem.row_names.keys().map(|(_, n)| n.as_str()).collect(),
        }
    }

    /// `shape`, the solved shape of `id` (`problem.shape(id)`), as a spec.
    pub fn spec(&self, id: ShapeId, shape: &Shape) -> ShapeSpec {
        let scope = self.problem.shape_scopes[id.0 as usize];
        let row = |r: &Row| spec::Row {
            beg: r.beg.iter().map(|d| self.axis(scope, *d)).collect(),
            var: r.var.map(|v| {
                spec::RowVar::Named(
                    pick(self.rows.get(&v), scope)
                        .map_or_else(|| fresh("r", v.0, &self.row_taken), str::to_owned),
                )
            }),
            end: r.end.iter().map(|d| self.axis(scope, *d)).collect(),
        };
        ShapeSpec {
            batch: row(&shape.batch),
            input: row(&shape.input),
            output: row(&shape.output),
        }
    }

    fn axis(&self, scope: u32, d: Dim) -> ShapeAxis {
        match d {
            Dim::Size(s, l) if l == Label::NONE => ShapeAxis::Size(s),
            Dim::Size(s, l) => ShapeAxis::Labeled {
                label: self.problem.solver.label_name(l).to_owned(),
                size: s,
            },
            Dim::Var(v) => ShapeAxis::Var(
                pick(self.dims.get(&v), scope)
                    .map_or_else(|| fresh("d", v.0, &self.dim_taken), str::to_owned),
            ),
        }
    }
}

/// The first name from `scope`, else the first name of any scope.
fn pick<'p>(candidates: Option<&Candidates<'p>>, scope: u32) -> Option<&'p str> {
    let candidates = candidates?;
    candidates
        .iter()
        .find(|(s, _)| *s == scope)
        .or(candidates.first())
        .map(|(_, n)| *n)
}

/// `{prefix}{id}`, with `_` appended until no spec uses it.
fn fresh(prefix: &str, id: u32, taken: &HashSet<&str>) -> String {
    let mut name = format!("{prefix}{id}");
    while taken.contains(name.as_str()) {
        name.push('_');
    }
    name
}

#[cfg(test)]
mod tests {
    use crate::{
        problem::{OpLogic, Problem},
        solver::{Closing, OpId},
        spec::parse_shape_spec,
    };

    fn spec(text: &str) -> crate::spec::ShapeSpec {
        parse_shape_spec(text).expect("a valid spec")
    }

    /// A class named in two scopes prints with the name of the shape's own
    /// scope; an unnamed variable gets a generated name no spec uses.
    #[test]
    fn names_prefer_the_shape_scope_and_avoid_taken_names() {
        let mut p = Problem::new();
        p.set_scope(0);
        let a = p.shape_from_spec(&spec("a, d1"), false);
        p.set_scope(1);
        let b = p.shape_from_spec(&spec("b, e"), false);
        let c = p.shape_from_spec(&spec("..."), false);
        p.add_equal(OpId(0), a, b);
        p.add_op(OpId(1), OpLogic::PointwiseUn, &[b], c)
            .expect("a valid op");
        p.solve(Closing::None).expect("solvable");
        let namer = p.namer();
        assert_eq!(namer.spec(a, &p.shape(a)).to_string(), "a,d1");
        assert_eq!(namer.spec(b, &p.shape(b)).to_string(), "b,e");
        assert_eq!(p.to_spec(b).to_string(), "b,e");
        // `c` (scope 1) is still open: its row variable gets a fresh name.
        let open = namer.spec(c, &p.shape(c)).to_string();
        assert!(open.starts_with("..r"), "{open}");
    }

    /// Naming every shape of a program with many named variables is linear:
    /// 50,000 named variables (each shape's own) name in one pass. Built
    /// per shape, the index made this 2.5e9 name comparisons.
    #[test]
    fn naming_many_named_variables_is_linear() {
        const N: usize = 50_000;
        let mut p = Problem::new();
        let ids: Vec<_> = (0..N)
            .map(|i| p.shape_from_spec(&spec(&format!("n{i}, m{i}")), false))
            .collect();
        p.solve(Closing::None).expect("solvable");
        let namer = p.namer();
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(
                namer.spec(id, &p.shape(id)).to_string(),
                format!("n{i},m{i}")
            );
        }
    }
}
