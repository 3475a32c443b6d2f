//! Shape-inference problems: shapes from specs, ops from their shape logic
//! (reference: "Deriving the constraints", OCANNL's `Shape.get_inequalities`),
//! solving, and solved shapes as specs.
//!
//! One [`Problem`] is one variable scope (in MLIR: one `func.func`): the same
//! dimension or row variable name in two specs is one variable.
//!
//! Submodules: `ops.rs` (an op's constraints, one step per family of
//! logics), `slots.rs` (the shape of one einsum or block slot), `naming.rs`
//! (names of unsolved variables).

use std::collections::HashMap;

mod naming;
mod ops;
mod slots;
pub use naming::Namer;
pub(crate) use ops::broadcast_pairs;

use crate::{
    logic::Logic,
    solver::{
        Axes, Closing, Constraint, Dim, DimVar, Origin, Row, RowVar, Shape, ShapeError, Solver,
    },
    spec::{self, EinsumSpec, RowKind, ShapeAxis, ShapeSpec},
};

/// A shape registered in a [`Problem`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShapeId(pub u32);

/// The shape logic of one op as the problem builder takes it: the shared
/// [`Logic`] with its data borrowed, a terminal's shape registered first
/// ([`Problem::shape_from_spec`]).
pub type OpLogic<'a> = Logic<ShapeId, &'a EinsumSpec, &'a [u64]>;

/// An op that the shape logic cannot express.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogicError {
    /// Wrong number of operands for the logic.
    #[error("shape logic needs {expected} operand(s), got {got}")]
    Arity {
        /// Expected count.
        expected: String,
        /// Actual count.
        got: usize,
    },
    /// An einsum axis kind that shape inference does not support yet.
    #[error("{0}")]
    Unsupported(String),
}

/// A shape-inference problem over one variable scope.
#[derive(Debug, Default)]
pub struct Problem {
    solver: Solver,
    shapes: Vec<Shape>,
    /// Named variables by (scope, name).
    dim_names: HashMap<(u32, String), DimVar>,
    row_names: HashMap<(u32, String), RowVar>,
    /// The scope names are looked up in (see [`Problem::set_scope`]).
    scope: u32,
    /// The scope each shape was registered in.
    shape_scopes: Vec<u32>,
}

const KINDS: [RowKind; 3] = [RowKind::Batch, RowKind::Input, RowKind::Output];

impl Problem {
    /// An empty problem.
    pub fn new() -> Self {
        Problem {
            solver: Solver::new(),
            ..Default::default()
        }
    }

    /// Names variables in `scope` from now on: a named variable is shared by
    /// the specs registered in one scope (a function), and the same name in
    /// another scope is another variable. Scope 0 is the default.
    pub fn set_scope(&mut self, scope: u32) {
        self.scope = scope;
    }

    /// Registers the shape of `spec`. Named variables are shared within the
    /// current scope; `_` and `...` are fresh. `terminal` shapes (function
    /// arguments, constants) close to their least upper bounds.
    ///
    /// A size above [`MAX_SIZE`](crate::MAX_SIZE) (which the parser never
    /// gives, but a spec built by hand may hold) is reported by
    /// [`Problem::solve`] as a
    /// [`ShapeErrorKind::Overflow`](crate::solver::ShapeErrorKind::Overflow)
    /// error at the first op whose constraints hold it.
    pub fn shape_from_spec(&mut self, spec: &ShapeSpec, terminal: bool) -> ShapeId {
        let mut shape = Shape::default();
        for kind in KINDS {
            let row = spec.row(kind);
            let conv = |p: &mut Self, a: &ShapeAxis| p.shape_axis(a, terminal);
            let beg: Axes = row.beg.iter().map(|a| conv(self, a)).collect();
            let end: Axes = row.end.iter().map(|a| conv(self, a)).collect();
            let var = row.var.as_ref().map(|v| match v {
                spec::RowVar::Anonymous => self.solver.fresh_row(kind, terminal),
                spec::RowVar::Named(name) => {
                    let key = (self.scope, name.clone());
                    let v = match self.row_names.get(&key) {
                        Some(&v) => v,
                        None => {
                            let v = self.solver.fresh_row(kind, terminal);
                            self.row_names.insert(key, v);
                            v
                        }
                    };
                    if terminal {
                        self.solver.mark_row_terminal(v);
                    }
                    v
                }
            });
            *shape.row_mut(kind) = Row { beg, var, end };
        }
        self.push_shape(shape)
    }

    fn shape_axis(&mut self, a: &ShapeAxis, terminal: bool) -> Dim {
        match a {
            ShapeAxis::Size(d) => Dim::size(*d),
            ShapeAxis::Labeled { label, size } => Dim::Size(*size, self.solver.label(label)),
            ShapeAxis::Fresh => Dim::Var(self.solver.fresh_dim(terminal)),
            ShapeAxis::Var(name) => {
                let key = (self.scope, name.clone());
                let v = match self.dim_names.get(&key) {
                    Some(&v) => v,
                    None => {
                        let v = self.solver.fresh_dim(terminal);
                        self.dim_names.insert(key, v);
                        v
                    }
                };
                if terminal {
                    self.solver.mark_dim_terminal(v);
                }
                Dim::Var(v)
            }
        }
    }

    fn push_shape(&mut self, shape: Shape) -> ShapeId {
        self.shapes.push(shape);
        self.shape_scopes.push(self.scope);
        ShapeId(u32::try_from(self.shapes.len() - 1).expect("fewer than 2^32 shapes"))
    }

    /// The shape as registered (before solving).
    pub fn raw_shape(&self, id: ShapeId) -> &Shape {
        &self.shapes[id.0 as usize]
    }

    fn push(&mut self, c: Constraint, origin: Origin) {
        self.solver.add_deferred(c, origin);
    }

    /// Marks every variable of a shape as terminal.
    pub fn mark_terminal(&mut self, id: ShapeId) {
        let shape = self.shapes[id.0 as usize].clone();
        for k in KINDS {
            let row = shape.row(k);
            for d in row.beg.iter().chain(&row.end) {
                if let Dim::Var(v) = d {
                    self.solver.mark_dim_terminal(*v);
                }
            }
            if let Some(v) = row.var {
                self.solver.mark_row_terminal(v);
            }
        }
    }

    /// Turns the solver's shortcuts off (`false`) or on (the default); the
    /// solution is the same either way (property-tested). See
    /// [`Solver::set_shortcuts`].
    pub fn set_shortcuts(&mut self, enabled: bool) {
        self.solver.set_shortcuts(enabled);
    }

    /// Reorders the constraints added so far (a deterministic shuffle by
    /// `seed`), as a caller adding them in another order would: the solution
    /// does not depend on it (property-tested).
    pub fn shuffle(&mut self, seed: u64) {
        self.solver.shuffle_deferred(seed);
    }

    /// Solves: the online stage, then the closing stages if `closing` is
    /// [`Closing::Full`]. The constraints are a set: the solver takes them in
    /// an order derived from their content, never from the order they were
    /// added in ([`Solver::enqueue_deferred`]).
    ///
    /// # Errors
    ///
    /// The first unsatisfiable constraint, with provenance.
    pub fn solve(&mut self, closing: Closing) -> Result<(), ShapeError> {
        self.solver.solve(closing)
    }

    /// Reserves room for a program of `ops` more ops: the variables and
    /// constraints a typical op adds (an estimate: element-wise ops add
    /// about 3 dims, 6 rows and 7 constraints, and one result shape). Only
    /// saves regrowing tables.
    pub fn reserve_ops(&mut self, ops: usize) {
        // One result shape per op.
        self.shapes.reserve(ops);
        self.shape_scopes.reserve(ops);
        self.solver.reserve(
            ops.saturating_mul(4),
            ops.saturating_mul(8),
            ops.saturating_mul(8),
        );
    }

    /// The solved (resolved) shape of `id`.
    pub fn shape(&self, id: ShapeId) -> Shape {
        let s = &self.shapes[id.0 as usize];
        Shape {
            batch: self.solver.resolve_row(&s.batch),
            input: self.solver.resolve_row(&s.input),
            output: self.solver.resolve_row(&s.output),
        }
    }

    /// Appends a key of the solved shape of `id` to `out` when it is
    /// concrete (every row closed, every axis a size): equal keys, equal
    /// shapes. `false` when a variable is left. No shape is built, so a
    /// caller meeting the same solved shapes many times can look them up
    /// by this key first ([`Problem::shape`] allocates its rows).
    pub fn concrete_key(&self, id: ShapeId, out: &mut Vec<u64>) -> bool {
        let s = &self.shapes[id.0 as usize];
        [&s.batch, &s.input, &s.output].into_iter().all(|row| {
            // Sizes are at most `i64::MAX`: the separator is no size.
            out.push(u64::MAX);
            self.solver.concrete_axes(row, out)
        })
    }

    /// The number of registered shapes.
    pub fn shape_count(&self) -> usize {
        self.shapes.len()
    }

    /// The solved shape of `id` as a spec. Variables left unsolved print as
    /// the name they were given, or a generated name (`d1`, `..r1..`) that
    /// no spec of the problem uses.
    pub fn to_spec(&self, id: ShapeId) -> ShapeSpec {
        self.solved_to_spec(id, self.shape(id))
    }

    /// [`Problem::to_spec`] for a caller that already holds
    /// `shape = self.shape(id)`. Each call indexes the problem's variable
    /// names: to name many shapes, build one [`Problem::namer`].
    pub fn solved_to_spec(&self, id: ShapeId, shape: Shape) -> ShapeSpec {
        self.namer().spec(id, &shape)
    }

    /// Names the unsolved variables of solved shapes (see [`Namer`]), in
    /// time linear in the number of names once built.
    pub fn namer(&self) -> Namer<'_> {
        Namer::new(self)
    }

    /// The solver, for inspection.
    pub fn solver(&self) -> &Solver {
        &self.solver
    }
}
