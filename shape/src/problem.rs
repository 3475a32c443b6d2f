//! Shape-inference problems: shapes from specs, ops from their shape logic
//! (reference: "Deriving the constraints", OCANNL's `Shape.get_inequalities`),
//! solving, and solved shapes as specs.
//!
//! One [`Problem`] is one variable scope (in MLIR: one `func.func`): the same
//! dimension or row variable name in two specs is one variable.

use std::collections::HashMap;

mod naming;
pub use naming::Namer;

use crate::{
    solver::{
        AffineDims, Axes, Closing, Constraint, Dim, DimVar, OpId, Origin, Role, Row, RowVar, Shape,
        ShapeError, Solver,
    },
    spec::{self, EinsumAxis, EinsumSpec, RowKind, ShapeAxis, ShapeSpec, SlotSpec},
};

/// A shape registered in a [`Problem`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShapeId(pub u32);

/// The shape logic of one op, with what it needs from the op's attributes.
#[derive(Debug, Clone, Copy)]
pub enum OpLogic<'a> {
    /// Operand broadcasts to the result.
    PointwiseUn,
    /// Both operands broadcast to the result.
    PointwiseBin,
    /// All three operands broadcast to the result.
    PointwiseTern,
    /// Outputs of operand 1 feed the inputs of operand 0.
    Compose,
    /// `Compose` of operands 0 and 1, plus operand 2 broadcast.
    ComposeAccumulate,
    /// Input and output rows swap.
    Transpose,
    /// OCANNL's Permute/Einsum/Einsum_tern: rows equal the spec's slots.
    Einsum(&'a EinsumSpec),
    /// OCANNL's Block: like `Einsum` (rows equal the spec's slots), with
    /// concatenated axes `a^b` (reference, "Concatenation") and any number
    /// of operands; discardable parts may be 0.
    Block(&'a EinsumSpec),
    /// The leftmost batch axis of the operand is sliced away at `index`.
    BatchSlice {
        /// The position taken.
        index: u64,
    },
    /// A terminal: optionally a given shape and a known element count.
    Terminal {
        /// A shape the result must equal (e.g. the `spec` attribute).
        spec: Option<ShapeId>,
        /// The number of elements, when the data fixes it.
        elems: Option<u64>,
        /// The axes in memory order, when the data has a shape of its own
        /// (OCANNL's `Exact`).
        exact: Option<&'a [u64]>,
    },
    /// A terminal with as many elements as its operand.
    Reshape,
    /// The result is the operand: a value that control flow passes on as
    /// another (a block argument, a region op's result, a call's argument
    /// and the callee's parameter). Every row is equal; no broadcasting.
    Equal,
}

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

    /// Adds the constraints of op `op` with shape logic `logic`.
    ///
    /// # Errors
    ///
    /// When the operand count does not fit the logic, or the einsum spec
    /// uses axes shape inference does not support yet.
    pub fn add_op(
        &mut self,
        op: OpId,
        logic: OpLogic<'_>,
        operands: &[ShapeId],
        result: ShapeId,
    ) -> Result<(), LogicError> {
        let arity = |expected: usize| {
            if operands.len() == expected {
                Ok(())
            } else {
                Err(LogicError::Arity {
                    expected: expected.to_string(),
                    got: operands.len(),
                })
            }
        };
        // Whole shapes are copied only by the ops that need them; a
        // broadcast copies just the two rows it relates.
        let res = |p: &Self| p.shapes[result.0 as usize].clone();
        let opnd = |p: &Self, i: usize| p.shapes[operands[i].0 as usize].clone();
        let ineq = |p: &mut Self, (cr, ck): (Role, RowKind), (sr, sk): (Role, RowKind)| {
            let row = |p: &Self, role: Role, kind: RowKind| {
                let id = match role {
                    Role::Operand(i) => operands[i as usize],
                    _ => result,
                };
                p.shapes[id.0 as usize].row(kind).clone()
            };
            let constraint = Constraint::RowIneq {
                cur: row(p, cr, ck),
                subr: row(p, sr, sk),
                marked: false,
            };
            p.push(constraint, Origin::new(op, (cr, ck), (sr, sk)));
        };
        match logic {
            OpLogic::PointwiseUn | OpLogic::PointwiseBin | OpLogic::PointwiseTern => {
                arity(match logic {
                    OpLogic::PointwiseUn => 1,
                    OpLogic::PointwiseBin => 2,
                    _ => 3,
                })?;
                for (cr, ck, sr, sk) in broadcast_pairs(logic, operands.len()) {
                    if let Role::Operand(_) = sr {
                        ineq(self, (cr, ck), (sr, sk));
                    }
                }
            }
            OpLogic::Compose | OpLogic::ComposeAccumulate | OpLogic::Transpose => {
                arity(match logic {
                    OpLogic::Compose => 2,
                    OpLogic::ComposeAccumulate => 3,
                    _ => 1,
                })?;
                for (cr, ck, sr, sk) in broadcast_pairs(logic, operands.len()) {
                    ineq(self, (cr, ck), (sr, sk));
                }
            }
            OpLogic::Einsum(spec) | OpLogic::Block(spec) => {
                let block = matches!(logic, OpLogic::Block(_));
                if operands.len() != spec.rhs.len() {
                    return Err(LogicError::Arity {
                        expected: spec.rhs.len().to_string(),
                        got: operands.len(),
                    });
                }
                // Keyed by the spec's own names (no copies), with foldhash's
                // randomly seeded hasher: fast, and the names come from the
                // input (a fixed-seed hash could be flooded with collisions).
                let mut labels: foldhash::HashMap<&str, Dim> = foldhash::HashMap::default();
                let mut rows: foldhash::HashMap<&str, RowVar> = foldhash::HashMap::default();
                let n = operands.len();
                for (i, slot) in spec
                    .rhs
                    .iter()
                    .chain(std::iter::once(&spec.lhs))
                    .enumerate()
                {
                    let (target, role) = if i < n {
                        (operands[i], operand_role(i))
                    } else {
                        (result, Role::Result)
                    };
                    let slot_role = Role::spec_slot(i);
                    let mut slot_shape = self.slot_shape(
                        op,
                        slot,
                        (role, slot_role),
                        block,
                        &mut labels,
                        &mut rows,
                    )?;
                    for k in KINDS {
                        let origin = Origin::new(op, (role, k), (slot_role, k));
                        let target = self.shapes[target.0 as usize].row(k).clone();
                        let slot = std::mem::take(slot_shape.row_mut(k));
                        self.push(Constraint::RowEq(target, slot), origin);
                    }
                }
                if block {
                    for l in spec.discardable_labels() {
                        if let Some(Dim::Var(v)) = labels.get(l.as_str()) {
                            self.solver.mark_dim_discardable(*v);
                        }
                    }
                }
            }
            OpLogic::BatchSlice { index } => {
                arity(1)?;
                let (a, res) = (opnd(self, 0), res(self));
                let slice = Dim::Var(self.solver.fresh_dim(false));
                let mut expanded = res.batch.clone();
                if expanded.var.is_some() {
                    expanded.beg.insert(0, slice);
                } else {
                    expanded.end.insert(0, slice);
                }
                let origin = |k| Origin::new(op, (Role::Operand(0), k), (Role::Result, k));
                self.push(
                    Constraint::RowEq(a.batch.clone(), expanded),
                    origin(RowKind::Batch),
                );
                self.push(
                    Constraint::RowEq(a.input.clone(), res.input.clone()),
                    origin(RowKind::Input),
                );
                self.push(
                    Constraint::RowEq(a.output.clone(), res.output.clone()),
                    origin(RowKind::Output),
                );
                // An index of `MAX_SIZE` or more needs an axis past the
                // limit: the solver reports an overflow (for `u64::MAX`,
                // whose successor does not fit, at `u64::MAX`).
                self.push(
                    Constraint::AtLeast(slice, index.saturating_add(1)),
                    origin(RowKind::Batch),
                );
            }
            OpLogic::Terminal { spec, elems, exact } => {
                arity(0)?;
                self.mark_terminal(result);
                let res = res(self);
                if let Some(spec) = spec {
                    let s = self.shapes[spec.0 as usize].clone();
                    for k in KINDS {
                        let origin = Origin::new(op, (Role::Result, k), (Role::Attribute, k));
                        self.push(
                            Constraint::RowEq(res.row(k).clone(), s.row(k).clone()),
                            origin,
                        );
                    }
                }
                // `Exact` implies the count (and must decide the rows alone:
                // a count would give its missing axes to one row at once).
                if let Some(n) = elems
                    && exact.is_none()
                {
                    let origin = Origin::new(
                        op,
                        (Role::Result, RowKind::Batch),
                        (Role::Attribute, RowKind::Output),
                    );
                    self.push(Constraint::TotalElems(all_rows(&res), n), origin);
                }
                if let Some(dims) = exact {
                    let origin = Origin::new(
                        op,
                        (Role::Result, RowKind::Batch),
                        (Role::Attribute, RowKind::Output),
                    );
                    let dims = dims.iter().map(|&d| Dim::size(d)).collect();
                    self.push(Constraint::Exact(all_rows(&res), dims), origin);
                }
            }
            OpLogic::Equal => {
                arity(1)?;
                let (a, res) = (opnd(self, 0), res(self));
                for k in KINDS {
                    let origin = Origin::new(op, (Role::Result, k), (Role::Operand(0), k));
                    self.push(
                        Constraint::RowEq(res.row(k).clone(), a.row(k).clone()),
                        origin,
                    );
                }
            }
            OpLogic::Reshape => {
                arity(1)?;
                self.mark_terminal(result);
                let (a, res) = (opnd(self, 0), res(self));
                let origin = Origin::new(
                    op,
                    (Role::Result, RowKind::Batch),
                    (Role::Operand(0), RowKind::Batch),
                );
                // OCANNL's `Total_elems` with a `Strided_var` numerator on
                // both sides: one element count `n`, never guessed (reference,
                // "Preventing Premature Guessing with Total_elems
                // Constraints").
                let n = Dim::Var(self.solver.fresh_dim(false));
                for rows in [all_rows(&res), all_rows(&a)] {
                    self.push(
                        Constraint::StridedElems {
                            rows: rows.into(),
                            coeff: 1,
                            var: n,
                            denom: 1,
                        },
                        origin,
                    );
                }
            }
        }
        Ok(())
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

    /// The shape of one einsum slot: labels are local to the spec and shared
    /// between its slots; `...` of a row kind is that kind's row variable of
    /// the spec (OCANNL names it `batch`/`input`/`output`).
    fn slot_shape<'s>(
        &mut self,
        op: OpId,
        slot: &'s SlotSpec,
        (role, slot_role): (Role, Role),
        block: bool,
        labels: &mut foldhash::HashMap<&'s str, Dim>,
        rows: &mut foldhash::HashMap<&'s str, RowVar>,
    ) -> Result<Shape, LogicError> {
        let mut shape = Shape::default();
        for kind in KINDS {
            let row = slot.row(kind);
            let mut axes = |p: &mut Self, list: &'s [EinsumAxis]| -> Result<Axes, LogicError> {
                list.iter()
                    .map(|a| match a {
                        EinsumAxis::Label(l) => Ok(match labels.get(l.as_str()) {
                            Some(d) => *d,
                            None => {
                                let d = Dim::Var(p.solver.fresh_dim(false));
                                labels.insert(l.as_str(), d);
                                d
                            }
                        }),
                        EinsumAxis::Fresh => Ok(Dim::Var(p.solver.fresh_dim(false))),
                        EinsumAxis::Fixed(i) => {
                            let d = Dim::Var(p.solver.fresh_dim(false));
                            let origin = Origin::new(
                                op,
                                (Role::SpecSlot(0), kind),
                                (Role::SpecSlot(0), kind),
                            );
                            // Past `MAX_SIZE`: an overflow error (see above).
                            p.push(Constraint::AtLeast(d, i.saturating_add(1)), origin);
                            Ok(d)
                        }
                        EinsumAxis::Affine {
                            stride,
                            over,
                            offset,
                            conv,
                        } => {
                            // A padded convolution's dilation is in no
                            // constraint: strides and dilations past
                            // `MAX_SIZE` (which the parser never gives) are
                            // rejected here, like those below 1.
                            let int = |v: &spec::IntOrIdent, what: &str| match v {
                                spec::IntOrIdent::Int(n) if (1..=crate::MAX_SIZE).contains(n) => {
                                    Ok(*n)
                                }
                                spec::IntOrIdent::Int(0) => Err(LogicError::Unsupported(format!(
                                    "the {what} of '{over}' must be at least 1"
                                ))),
                                spec::IntOrIdent::Int(n) => Err(LogicError::Unsupported(format!(
                                    "the {what} {n} of '{over}' is more than the largest size {}",
                                    crate::MAX_SIZE
                                ))),
                                spec::IntOrIdent::Ident(name) => Err(LogicError::Unsupported(
                                    format!("symbolic {what}s ('{name}') are not supported"),
                                )),
                            };
                            let stride = int(stride, "stride")?;
                            if *offset >= stride {
                                return Err(LogicError::Unsupported(format!(
                                    "the offset {offset} of '{over}' must be less than its stride {stride}"
                                )));
                            }
                            let mut label = |p: &mut Self, l: &'s str| {
                                *labels
                                    .entry(l)
                                    .or_insert_with(|| Dim::Var(p.solver.fresh_dim(false)))
                            };
                            let output = label(p, over);
                            let (kernel, pads) = match conv {
                                Some(c) => {
                                    let dilation = int(&c.dilation, "dilation")?;
                                    let k = label(p, &c.kernel);
                                    // Padding keeps the input `stride * output`
                                    // wide; a valid convolution (also the
                                    // default) shrinks the output by the span;
                                    // explicit padding widens the input first.
                                    let pads = match c.padding {
                                        spec::Padding::Explicit { lo, hi } => Some((lo, hi)),
                                        _ => None,
                                    };
                                    ((c.padding != spec::Padding::Pad).then_some((k, dilation)), pads)
                                }
                                None => (None, None),
                            };
                            let input = Dim::Var(p.solver.fresh_dim(false));
                            let origin = Origin::new(op, (role, kind), (slot_role, kind));
                            p.push(
                                Constraint::Affine(Box::new(AffineDims {
                                    input,
                                    output,
                                    stride,
                                    kernel,
                                    pads,
                                })),
                                origin,
                            );
                            Ok(input)
                        }
                        EinsumAxis::Concat(parts) if block => {
                            let parts: Vec<Dim> = parts
                                .iter()
                                .map(|l| {
                                    *labels
                                        .entry(l.as_str())
                                        .or_insert_with(|| Dim::Var(p.solver.fresh_dim(false)))
                                })
                                .collect();
                            let whole = Dim::Var(p.solver.fresh_dim(false));
                            let origin = Origin::new(op, (role, kind), (slot_role, kind));
                            p.push(Constraint::Concat { whole, parts }, origin);
                            Ok(whole)
                        }
                        EinsumAxis::Concat(_) => Err(LogicError::Unsupported(
                            "concatenated axes (`a^b`) are only allowed in block specs (ocannl.concat)"
                                .into(),
                        )),
                    })
                    .collect()
            };
            let beg = axes(self, &row.beg)?;
            let end = axes(self, &row.end)?;
            let var = row.var.as_ref().map(|v| {
                let name = match v {
                    spec::RowVar::Anonymous => crate::solver::kind_name(kind),
                    spec::RowVar::Named(n) => n.as_str(),
                };
                match rows.get(name) {
                    Some(v) => *v,
                    None => {
                        let v = self.solver.fresh_row(kind, false);
                        rows.insert(name, v);
                        v
                    }
                }
            });
            *shape.row_mut(kind) = Row { beg, var, end };
        }
        Ok(shape)
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

/// The broadcasting inequalities `cur >= subr` of a logic, as pairs of
/// (tensor, row kind): OCANNL's `Shape.get_inequalities`. Shared by the
/// solver's constraints and projection inference. Empty for logics that use
/// equations (einsum, batch slice) or none (terminals).
pub(crate) fn broadcast_pairs(
    logic: OpLogic<'_>,
    operands: usize,
) -> Vec<(Role, RowKind, Role, RowKind)> {
    use Role::{Operand, Result};
    use RowKind::{Batch, Input, Output};
    const COMPOSE: [(Role, RowKind, Role, RowKind); 5] = [
        (Operand(0), Input, Operand(1), Output),
        (Result, Batch, Operand(0), Batch),
        (Result, Batch, Operand(1), Batch),
        (Result, Input, Operand(1), Input),
        (Result, Output, Operand(0), Output),
    ];
    const ACCUMULATE: [(Role, RowKind, Role, RowKind); 3] = [
        (Result, Batch, Operand(2), Batch),
        (Result, Input, Operand(2), Input),
        (Result, Output, Operand(2), Output),
    ];
    const TRANSPOSE: [(Role, RowKind, Role, RowKind); 3] = [
        (Result, Batch, Operand(0), Batch),
        (Result, Input, Operand(0), Output),
        (Result, Output, Operand(0), Input),
    ];
    match logic {
        // Row kind first: the order of the constraints' origins, which the
        // solver sorts them by (`Solver::enqueue_deferred`), so that the
        // sort has nothing to move.
        OpLogic::PointwiseUn | OpLogic::PointwiseBin | OpLogic::PointwiseTern | OpLogic::Equal => {
            let mut pairs = Vec::with_capacity(KINDS.len() * operands);
            for k in KINDS {
                pairs.extend((0..operands).map(|i| (Result, k, operand_role(i), k)));
            }
            pairs
        }
        OpLogic::Compose => COMPOSE.to_vec(),
        OpLogic::ComposeAccumulate => [&COMPOSE[..], &ACCUMULATE[..]].concat(),
        OpLogic::Transpose => TRANSPOSE.to_vec(),
        _ => vec![],
    }
}

fn operand_role(i: usize) -> Role {
    Role::operand(i)
}

/// Rows in memory order: batch, output, input.
fn all_rows(s: &Shape) -> Vec<Row> {
    vec![s.batch.clone(), s.output.clone(), s.input.clone()]
}
