//! An op's constraints from its shape logic (reference: "Deriving the
//! constraints", OCANNL's `Shape.get_inequalities`): [`Problem::add_op`]
//! checks the operand count and dispatches to one step per family of
//! logics (broadcasting, einsum and block, batch slice, terminal, reshape);
//! [`Problem::add_equal`] relates values that control flow passes on.

use super::{KINDS, LogicError, OpLogic, Problem, ShapeId, slots::SlotNames};
use crate::{
    logic::{Logic, ShapeLogic},
    solver::{Constraint, Dim, OpId, Origin, Role, Row, Shape},
    spec::{EinsumSpec, RowKind},
};

/// The op whose constraints are being added, and the shapes it relates.
#[derive(Clone, Copy)]
struct At<'o> {
    op: OpId,
    operands: &'o [ShapeId],
    result: ShapeId,
}

impl At<'_> {
    /// The shape of the tensor in `role` (an operand, or else the result).
    fn id(self, role: Role) -> ShapeId {
        match role {
            Role::Operand(i) => self.operands[i as usize],
            _ => self.result,
        }
    }
}

impl Problem {
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
        let expected = logic.arity(|spec| spec.rhs.len());
        if operands.len() != expected {
            return Err(LogicError::Arity {
                expected: expected.to_string(),
                got: operands.len(),
            });
        }
        let at = At {
            op,
            operands,
            result,
        };
        match logic {
            Logic::PointwiseUn
            | Logic::PointwiseBin
            | Logic::PointwiseTern
            | Logic::Compose
            | Logic::ComposeAccumulate
            | Logic::Transpose => self.add_broadcasts(at, logic.kind()),
            Logic::Einsum(spec) => self.add_einsum(at, spec, false)?,
            Logic::Block(spec) => self.add_einsum(at, spec, true)?,
            Logic::BatchSlice { index } => self.add_batch_slice(at, index),
            Logic::Terminal { spec, elems, exact } => self.add_terminal(at, spec, elems, exact),
            Logic::Reshape => self.add_reshape(at),
        }
        Ok(())
    }

    /// `result` is `operand`: a value that control flow passes on as
    /// another (a block argument, a region op's result, a call's argument
    /// and the callee's parameter), at op `op`. Every row is equal; no
    /// broadcasting. No op's shape logic, so no [`Logic`] variant.
    pub fn add_equal(&mut self, op: OpId, operand: ShapeId, result: ShapeId) {
        let (a, res) = (
            self.shape_of(operand).clone(),
            self.shape_of(result).clone(),
        );
        for k in KINDS {
            let origin = Origin::new(op, (Role::Result, k), (Role::Operand(0), k));
            self.push(
                Constraint::RowEq(res.row(k).clone(), a.row(k).clone()),
                origin,
            );
        }
    }

    fn shape_of(&self, id: ShapeId) -> &Shape {
        &self.shapes[id.0 as usize]
    }

    /// Pointwise, compose and transpose: the inequalities
    /// [`broadcast_pairs`] lists.
    fn add_broadcasts(&mut self, at: At<'_>, kind: ShapeLogic) {
        for (cr, ck, sr, sk) in broadcast_pairs(kind, at.operands.len()) {
            // Whole shapes are copied only by the logics that need them; a
            // broadcast copies just the two rows it relates.
            let constraint = Constraint::RowIneq {
                cur: self.shape_of(at.id(cr)).row(ck).clone(),
                subr: self.shape_of(at.id(sr)).row(sk).clone(),
                marked: false,
            };
            self.push(constraint, Origin::new(at.op, (cr, ck), (sr, sk)));
        }
    }

    /// Einsum and block: each operand's rows, and the result's, equal its
    /// slot of the spec; a block's discardable labels may be 0.
    fn add_einsum(&mut self, at: At<'_>, spec: &EinsumSpec, block: bool) -> Result<(), LogicError> {
        let mut names = SlotNames::default();
        let n = at.operands.len();
        for (i, slot) in spec
            .rhs
            .iter()
            .chain(std::iter::once(&spec.lhs))
            .enumerate()
        {
            let (target, role) = if i < n {
                (at.operands[i], Role::operand(i))
            } else {
                (at.result, Role::Result)
            };
            let slot_role = Role::spec_slot(i);
            let mut slot_shape =
                self.slot_shape(at.op, slot, (role, slot_role), block, &mut names)?;
            for k in KINDS {
                let origin = Origin::new(at.op, (role, k), (slot_role, k));
                let target = self.shape_of(target).row(k).clone();
                let slot = std::mem::take(slot_shape.row_mut(k));
                self.push(Constraint::RowEq(target, slot), origin);
            }
        }
        if block {
            for l in spec.discardable_labels() {
                if let Some(Dim::Var(v)) = names.labels.get(l.as_str()) {
                    self.solver.mark_dim_discardable(*v);
                }
            }
        }
        Ok(())
    }

    /// The operand's batch row is a fresh axis (above `index`) followed by
    /// the result's; the other rows are equal.
    fn add_batch_slice(&mut self, at: At<'_>, index: u64) {
        let (a, res) = (
            self.shape_of(at.operands[0]).clone(),
            self.shape_of(at.result).clone(),
        );
        let slice = Dim::Var(self.solver.fresh_dim(false));
        let mut expanded = res.batch.clone();
        if expanded.var.is_some() {
            expanded.beg.insert(0, slice);
        } else {
            expanded.end.insert(0, slice);
        }
        let origin = |k| Origin::new(at.op, (Role::Operand(0), k), (Role::Result, k));
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
        // An index of `MAX_SIZE` or more needs an axis past the limit: the
        // solver reports an overflow (for `u64::MAX`, whose successor does
        // not fit, at `u64::MAX`).
        self.push(
            Constraint::AtLeast(slice, index.saturating_add(1)),
            origin(RowKind::Batch),
        );
    }

    /// A terminal's result: terminal variables, equal to `spec`, with
    /// `elems` elements or the axes `exact` in memory order.
    fn add_terminal(
        &mut self,
        at: At<'_>,
        spec: Option<ShapeId>,
        elems: Option<u64>,
        exact: Option<&[u64]>,
    ) {
        self.mark_terminal(at.result);
        let res = self.shape_of(at.result).clone();
        if let Some(spec) = spec {
            let s = self.shape_of(spec).clone();
            for k in KINDS {
                let origin = Origin::new(at.op, (Role::Result, k), (Role::Attribute, k));
                self.push(
                    Constraint::RowEq(res.row(k).clone(), s.row(k).clone()),
                    origin,
                );
            }
        }
        let origin = Origin::new(
            at.op,
            (Role::Result, RowKind::Batch),
            (Role::Attribute, RowKind::Output),
        );
        // `Exact` implies the count (and must decide the rows alone: a
        // count would give its missing axes to one row at once).
        if let Some(n) = elems
            && exact.is_none()
        {
            self.push(Constraint::TotalElems(all_rows(&res), n), origin);
        }
        if let Some(dims) = exact {
            let dims = dims.iter().map(|&d| Dim::size(d)).collect();
            self.push(Constraint::Exact(all_rows(&res), dims), origin);
        }
    }

    /// A reshape: terminal variables, as many elements as the operand.
    fn add_reshape(&mut self, at: At<'_>) {
        self.mark_terminal(at.result);
        let (a, res) = (
            self.shape_of(at.operands[0]).clone(),
            self.shape_of(at.result).clone(),
        );
        let origin = Origin::new(
            at.op,
            (Role::Result, RowKind::Batch),
            (Role::Operand(0), RowKind::Batch),
        );
        // OCANNL's `Total_elems` with a `Strided_var` numerator on both
        // sides: one element count `n`, never guessed (reference,
        // "Preventing Premature Guessing with Total_elems Constraints").
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

/// The broadcasting inequalities `cur >= subr` of a logic, as pairs of
/// (tensor, row kind): OCANNL's `Shape.get_inequalities`. Shared by the
/// solver's constraints and projection inference. Empty for logics that use
/// equations (einsum, batch slice) or none (terminals).
pub(crate) fn broadcast_pairs(
    logic: ShapeLogic,
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
        ShapeLogic::PointwiseUn | ShapeLogic::PointwiseBin | ShapeLogic::PointwiseTern => {
            let mut pairs = Vec::with_capacity(KINDS.len() * operands);
            for k in KINDS {
                pairs.extend((0..operands).map(|i| (Result, k, Role::operand(i), k)));
            }
            pairs
        }
        ShapeLogic::Compose => COMPOSE.to_vec(),
        ShapeLogic::ComposeAccumulate => [&COMPOSE[..], &ACCUMULATE[..]].concat(),
        ShapeLogic::Transpose => TRANSPOSE.to_vec(),
        ShapeLogic::Einsum | ShapeLogic::Block | ShapeLogic::BatchSlice | ShapeLogic::Terminal => {
            vec![]
        }
    }
}

/// Rows in memory order: batch, output, input.
fn all_rows(s: &Shape) -> Vec<Row> {
    vec![s.batch.clone(), s.output.clone(), s.input.clone()]
}
