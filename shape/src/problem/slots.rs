//! The shape of one einsum or block slot: labels are local to the spec and
//! shared between its slots; `...` of a row kind is that kind's row variable
//! of the spec (OCANNL names it `batch`/`input`/`output`). Fixed indices,
//! strided and convolution axes, and concatenations add their constraints
//! on the way.

use super::{KINDS, LogicError, Problem};
use crate::{
    MAX_SIZE,
    solver::{AffineDims, Axes, Constraint, Dim, OpId, Origin, Role, Row, RowVar, Shape},
    spec::{self, Conv, EinsumAxis, IntOrIdent, Padding, RowKind, SlotSpec},
};

/// The names of one spec, by the spec's own text (no copies), with
/// foldhash's randomly seeded hasher: fast, and the names come from the
/// input (a fixed-seed hash could be flooded with collisions).
#[derive(Default)]
pub(super) struct SlotNames<'s> {
    /// The dimension of each label.
    pub(super) labels: foldhash::HashMap<&'s str, Dim>,
    /// The row variable of each row-variable name.
    rows: foldhash::HashMap<&'s str, RowVar>,
}

/// Where an axis of a slot is: the op, the row kind, and the roles of the
/// tensor and of the slot.
#[derive(Clone, Copy)]
struct AxisAt {
    op: OpId,
    kind: RowKind,
    role: Role,
    slot_role: Role,
}

impl AxisAt {
    /// The origin of a constraint between the tensor's row and the slot's.
    fn origin(self) -> Origin {
        Origin::new(self.op, (self.role, self.kind), (self.slot_role, self.kind))
    }
}

impl Problem {
    /// The shape of one einsum slot (see the [module docs](self)), for the
    /// tensor in `role` at spec slot `slot_role`.
    pub(super) fn slot_shape<'s>(
        &mut self,
        op: OpId,
        slot: &'s SlotSpec,
        (role, slot_role): (Role, Role),
        block: bool,
        names: &mut SlotNames<'s>,
    ) -> Result<Shape, LogicError> {
        let mut shape = Shape::default();
        for kind in KINDS {
            let row = slot.row(kind);
            let at = AxisAt {
                op,
                kind,
                role,
                slot_role,
            };
            let beg = self.slot_axes(at, &row.beg, block, names)?;
            let end = self.slot_axes(at, &row.end, block, names)?;
            let var = row.var.as_ref().map(|v| {
                let name = match v {
                    spec::RowVar::Anonymous => crate::solver::kind_name(kind),
                    spec::RowVar::Named(n) => n.as_str(),
                };
                *names
                    .rows
                    .entry(name)
                    .or_insert_with(|| self.solver.fresh_row(kind, false))
            });
            *shape.row_mut(kind) = Row { beg, var, end };
        }
        Ok(shape)
    }

    fn slot_axes<'s>(
        &mut self,
        at: AxisAt,
        axes: &'s [EinsumAxis],
        block: bool,
        names: &mut SlotNames<'s>,
    ) -> Result<Axes, LogicError> {
        axes.iter()
            .map(|a| self.slot_axis(at, a, block, names))
            .collect()
    }

    fn slot_axis<'s>(
        &mut self,
        at: AxisAt,
        axis: &'s EinsumAxis,
        block: bool,
        names: &mut SlotNames<'s>,
    ) -> Result<Dim, LogicError> {
        match axis {
            EinsumAxis::Label(l) => Ok(self.label(names, l)),
            EinsumAxis::Fresh => Ok(Dim::Var(self.solver.fresh_dim(false))),
            EinsumAxis::Fixed(i) => {
                let d = Dim::Var(self.solver.fresh_dim(false));
                let origin = Origin::new(
                    at.op,
                    (Role::SpecSlot(0), at.kind),
                    (Role::SpecSlot(0), at.kind),
                );
                // Past `MAX_SIZE`: an overflow error (see `add_batch_slice`).
                self.push(Constraint::AtLeast(d, i.saturating_add(1)), origin);
                Ok(d)
            }
            EinsumAxis::Affine {
                stride,
                over,
                offset,
                conv,
            } => self.affine_axis(at, (stride, over, *offset), conv.as_ref(), names),
            EinsumAxis::Concat(parts) if block => {
                let parts: Vec<Dim> = parts.iter().map(|l| self.label(names, l)).collect();
                let whole = Dim::Var(self.solver.fresh_dim(false));
                self.push(Constraint::Concat { whole, parts }, at.origin());
                Ok(whole)
            }
            EinsumAxis::Concat(_) => Err(LogicError::Unsupported(
                "concatenated axes (`a^b`) are only allowed in block specs (ocannl.concat)".into(),
            )),
        }
    }

    /// The dimension of label `l`, fresh on its first use in the spec.
    fn label<'s>(&mut self, names: &mut SlotNames<'s>, l: &'s str) -> Dim {
        *names
            .labels
            .entry(l)
            .or_insert_with(|| Dim::Var(self.solver.fresh_dim(false)))
    }

    /// A strided or convolution axis `stride*over+offset` (with `conv`'s
    /// kernel): a fresh input dimension related to its labels' by an
    /// affine constraint.
    fn affine_axis<'s>(
        &mut self,
        at: AxisAt,
        (stride, over, offset): (&IntOrIdent, &'s str, u64),
        conv: Option<&'s Conv>,
        names: &mut SlotNames<'s>,
    ) -> Result<Dim, LogicError> {
        let stride = spec_int(stride, "stride", over)?;
        if offset >= stride {
            return Err(LogicError::Unsupported(format!(
                "the offset {offset} of '{over}' must be less than its stride {stride}"
            )));
        }
        let output = self.label(names, over);
        let (kernel, pads) = match conv {
            Some(c) => {
                let dilation = spec_int(&c.dilation, "dilation", over)?;
                let k = self.label(names, &c.kernel);
                // Padding keeps the input `stride * output` wide; a valid
                // convolution (also the default) shrinks the output by the
                // span; explicit padding widens the input first.
                let pads = match c.padding {
                    Padding::Explicit { lo, hi } => Some((lo, hi)),
                    _ => None,
                };
                ((c.padding != Padding::Pad).then_some((k, dilation)), pads)
            }
            None => (None, None),
        };
        let input = Dim::Var(self.solver.fresh_dim(false));
        self.push(
            Constraint::Affine(Box::new(AffineDims {
                input,
                output,
                stride,
                kernel,
                pads,
            })),
            at.origin(),
        );
        Ok(input)
    }
}

/// A stride or dilation of the axis over `over`. A padded convolution's
/// dilation is in no constraint: strides and dilations past `MAX_SIZE`
/// (which the parser never gives) are rejected here, like those below 1.
fn spec_int(v: &IntOrIdent, what: &str, over: &str) -> Result<u64, LogicError> {
    match v {
        IntOrIdent::Int(n) if (1..=MAX_SIZE).contains(n) => Ok(*n),
        IntOrIdent::Int(0) => Err(LogicError::Unsupported(format!(
            "the {what} of '{over}' must be at least 1"
        ))),
        IntOrIdent::Int(n) => Err(LogicError::Unsupported(format!(
            "the {what} {n} of '{over}' is more than the largest size {MAX_SIZE}"
        ))),
        IntOrIdent::Ident(name) => Err(LogicError::Unsupported(format!(
            "symbolic {what}s ('{name}') are not supported"
        ))),
    }
}
