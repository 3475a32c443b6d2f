//! Projection inference: how each op's loop nest indexes its tensors.
//!
//! Reference: ocannl-shape-inference.md, "Projections inference". Per op,
//! every axis of every tensor gets a fresh projection id (so projections of
//! different ops never contaminate each other); the op's own constraints,
//! regenerated on its solved shapes, become projection equations: aligned
//! axes of equal size share an id, an axis of size 1 broadcast to a larger
//! one is indexed at `Fixed 0`, einsum labels share an id across slots and
//! fixed indices are `Fixed i`. A union-find over the ids gives the classes;
//! each class that is not fixed (and not of size 1) is one iterator of the
//! op's product space.
//!
//! Axes are listed in memory order: batch, then output, then input (DESIGN,
//! "The dialect"). Iterators are numbered by first appearance in the result,
//! then in the operands, so iterators absent from the result (reductions)
//! come last.
//!
//! [`infer_projections`] in two steps: the equations (here for broadcasts
//! and batch slices, `einsum.rs` for einsum and block slots), then the
//! numbering of the classes (`numbering.rs`); `blocks.rs` splits a
//! concatenation's product space into blocks.

mod blocks;
mod einsum;
mod index;
mod numbering;

use std::collections::HashMap;

use crate::{
    MAX_SIZE,
    logic::Logic,
    problem::broadcast_pairs,
    solver::Role,
    spec::{EinsumSpec, Row, RowKind, ShapeAxis, ShapeSpec},
};
pub use blocks::any_overlap;
use einsum::{PendingAffine, einsum_equations};
pub use index::{AffineIndex, AxisIndex, Block, Projections};

/// Why projections cannot be derived.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProjectionError {
    /// A shape still has variables (run shape inference with closing first).
    #[error("the {0} shape is not concrete: projections need solved shapes")]
    NotConcrete(String),
    /// The shapes do not satisfy the op's logic.
    #[error("{0}")]
    Mismatch(String),
    /// An axis is constrained to two different fixed positions.
    #[error("an axis is indexed at both {0} and {1}")]
    ConflictingFixed(u64, u64),
    /// The logic has no projections of its own (e.g. reshape copies in
    /// memory order) or uses axes not supported yet.
    #[error("{0}")]
    Unsupported(String),
    /// A size, fixed index, stride, dilation or offset is above
    /// [`MAX_SIZE`], or an index ranges outside `i64` (MLIR's index
    /// arithmetic). Displays as `size overflow: {0}`, where the message
    /// names the values involved.
    #[error("size overflow: {0}")]
    Overflow(String),
}

const KINDS_MEMORY: [RowKind; 3] = [RowKind::Batch, RowKind::Output, RowKind::Input];

/// The sizes of a concrete shape's rows.
fn sizes(spec: &ShapeSpec, what: &str) -> Result<[Vec<u64>; 3], ProjectionError> {
    let row = |r: &Row<ShapeAxis>| -> Result<Vec<u64>, ProjectionError> {
        if r.var.is_some() {
            return Err(ProjectionError::NotConcrete(what.to_owned()));
        }
        r.axes()
            .map(|a| match a {
                ShapeAxis::Size(d) | ShapeAxis::Labeled { size: d, .. } if *d > MAX_SIZE => {
                    Err(ProjectionError::Overflow(format!(
                        "the {what} shape has an axis of size {d}, more than the largest size {MAX_SIZE}"
                    )))
                }
                ShapeAxis::Size(d) | ShapeAxis::Labeled { size: d, .. } => Ok(*d),
                _ => Err(ProjectionError::NotConcrete(what.to_owned())),
            })
            .collect()
    };
    Ok([row(&spec.batch)?, row(&spec.input)?, row(&spec.output)?])
}

fn kind_index(k: RowKind) -> usize {
    match k {
        RowKind::Batch => 0,
        RowKind::Input => 1,
        RowKind::Output => 2,
    }
}

/// Projection ids with union-find, sizes and fixed positions.
struct Ids {
    parent: Vec<usize>,
    size: Vec<u64>,
    fixed: Vec<Option<u64>>,
    /// `node[tensor][kind][position]`.
    node: Vec<[Vec<usize>; 3]>,
}

impl Ids {
    fn new(shapes: &[[Vec<u64>; 3]]) -> Self {
        let mut ids = Ids {
            parent: vec![],
            size: vec![],
            fixed: vec![],
            node: vec![],
        };
        for shape in shapes {
            let rows = shape
                .clone()
                .map(|row| row.into_iter().map(|d| ids.fresh(d)).collect());
            ids.node.push(rows);
        }
        ids
    }

    fn fresh(&mut self, size: u64) -> usize {
        self.parent.push(self.parent.len());
        self.size.push(size);
        self.fixed.push(None);
        self.parent.len() - 1
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    fn union(&mut self, a: usize, b: usize, what: &str) -> Result<(), ProjectionError> {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return Ok(());
        }
        if self.size[a] != self.size[b] {
            return Err(ProjectionError::Mismatch(format!(
                "{what}: axes of sizes {} and {} cannot share an index",
                self.size[a], self.size[b]
            )));
        }
        self.parent[b] = a;
        match (self.fixed[a], self.fixed[b]) {
            (Some(x), Some(y)) if x != y => return Err(ProjectionError::ConflictingFixed(x, y)),
            (None, f) => self.fixed[a] = f,
            _ => {}
        }
        Ok(())
    }

    fn fix(&mut self, a: usize, at: u64) -> Result<(), ProjectionError> {
        let r = self.find(a);
        match self.fixed[r] {
            Some(x) if x != at => Err(ProjectionError::ConflictingFixed(x, at)),
            _ => {
                self.fixed[r] = Some(at);
                Ok(())
            }
        }
    }

    /// `cur >= subr` aligned from the end: equal sizes share an index, a
    /// broadcast size-1 axis is indexed at 0.
    fn broadcast(
        &mut self,
        cur: (usize, RowKind),
        subr: (usize, RowKind),
    ) -> Result<(), ProjectionError> {
        let c = self.node[cur.0][kind_index(cur.1)].clone();
        let s = self.node[subr.0][kind_index(subr.1)].clone();
        if c.len() < s.len() {
            return Err(ProjectionError::Mismatch(format!(
                "a row of {} axes cannot take a broadcast of a row of {} axes",
                c.len(),
                s.len()
            )));
        }
        let off = c.len() - s.len();
        for (i, &sn) in s.iter().enumerate() {
            let cn = c[off + i];
            if self.size[sn] == self.size[cn] {
                self.union(cn, sn, "broadcast")?;
            } else if self.size[sn] == 1 {
                self.fix(sn, 0)?;
            } else {
                return Err(ProjectionError::Mismatch(format!(
                    "size {} does not broadcast to size {}",
                    self.size[sn], self.size[cn]
                )));
            }
        }
        Ok(())
    }
}

/// The sizes of a concrete shape's axes in memory order (batch, output,
/// input): the dimensions of the buffer that holds it.
///
/// # Errors
///
/// [`ProjectionError::NotConcrete`] when the shape still has variables;
/// [`ProjectionError::Overflow`] when a size is above [`MAX_SIZE`].
pub fn memory_dims(spec: &ShapeSpec) -> Result<Vec<u64>, ProjectionError> {
    let [batch, input, output] = sizes(spec, "tensor")?;
    Ok(batch.into_iter().chain(output).chain(input).collect())
}

/// The number of cells of a buffer with dimensions `dims` (e.g. from
/// [`memory_dims`]): their product, or `None` when a dimension or the
/// product is above [`MAX_SIZE`] (`i64::MAX`), so that a caller never
/// writes a wrapped count into an MLIR type or an allocation. A zero
/// dimension gives `Some(0)`, whatever the others (if each is at most
/// `MAX_SIZE`); no dimensions give `Some(1)` (a scalar).
///
/// ```
/// use ocannl_shape::projection::cell_count;
/// assert_eq!(cell_count(&[2, 3, 4]), Some(24));
/// assert_eq!(cell_count(&[100_000, 100_000, 100_000, 100_000]), None);
/// assert_eq!(cell_count(&[1 << 62, 1 << 62, 0]), Some(0));
/// ```
pub fn cell_count(dims: &[u64]) -> Option<u64> {
    if dims.iter().any(|&d| d > MAX_SIZE) {
        return None;
    }
    if dims.contains(&0) {
        return Some(0);
    }
    dims.iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= MAX_SIZE)
}

/// An overflow error unless `n` (a `what`) is at most [`MAX_SIZE`].
fn bounded(n: u64, what: &str) -> Result<u64, ProjectionError> {
    if n > MAX_SIZE {
        Err(ProjectionError::Overflow(format!(
            "{what} {n} is more than the largest size {MAX_SIZE}"
        )))
    } else {
        Ok(n)
    }
}

/// The projections of an op with shape logic `logic` on solved shapes. A
/// terminal's shape and data play no part (its result is iterated), so any
/// instantiation of [`Logic`] with a borrowed einsum spec will do.
///
/// # Errors
///
/// Shapes that are not concrete or do not fit the logic, conflicting fixed
/// indices, and logics without projections of their own (reshape) or with
/// axes not supported yet (strided, convolution, concatenated).
pub fn infer_projections<S, D>(
    logic: Logic<S, &EinsumSpec, D>,
    operands: &[&ShapeSpec],
    result: &ShapeSpec,
) -> Result<Projections, ProjectionError> {
    let n = operands.len();
    let mut shapes = Vec::with_capacity(n + 1);
    for (i, o) in operands.iter().enumerate() {
        shapes.push(sizes(o, &format!("operand #{i}"))?);
    }
    shapes.push(sizes(result, "result")?);
    let mut ids = Ids::new(&shapes);
    let equations = equations(&mut ids, logic, n)?;
    numbering::number(ids, n, equations)
}

/// What the equations leave to the numbering of iterators.
#[derive(Default)]
struct Equations {
    /// Affine axes, indexed after the classes get iterators.
    affine: Vec<PendingAffine>,
    /// Concatenated axes: node -> the projection nodes of their parts.
    concat_nodes: HashMap<usize, Vec<usize>>,
}

/// The projection equations of the op's constraints (`n` operands),
/// regenerated on its solved shapes.
fn equations<S, D>(
    ids: &mut Ids,
    logic: Logic<S, &EinsumSpec, D>,
    n: usize,
) -> Result<Equations, ProjectionError> {
    match logic {
        Logic::Einsum(spec) => einsum_equations(ids, spec, false, n),
        Logic::Block(spec) => einsum_equations(ids, spec, true, n),
        Logic::BatchSlice { index } => {
            batch_slice_equations(ids, index)?;
            Ok(Equations::default())
        }
        Logic::Terminal { .. } => Ok(Equations::default()),
        Logic::Reshape => Err(ProjectionError::Unsupported(
            "reshape has no projections: it copies in memory order".into(),
        )),
        Logic::PointwiseUn
        | Logic::PointwiseBin
        | Logic::PointwiseTern
        | Logic::Compose
        | Logic::ComposeAccumulate
        | Logic::Transpose => {
            let tensor = |role: Role| match role {
                Role::Operand(i) => i as usize,
                _ => n,
            };
            for (cr, ck, sr, sk) in broadcast_pairs(logic.kind(), n) {
                ids.broadcast((tensor(cr), ck), (tensor(sr), sk))?;
            }
            Ok(Equations::default())
        }
    }
}

/// The operand is the result plus one leading batch axis, fixed at
/// `index`.
fn batch_slice_equations(ids: &mut Ids, index: u64) -> Result<(), ProjectionError> {
    let (op, res) = (&ids.node[0], &ids.node[1]);
    let (ob, rb) = (op[0].clone(), res[0].clone());
    let pairs: Vec<(usize, usize)> = [1, 2]
        .iter()
        .flat_map(|&k| op[k].iter().copied().zip(res[k].iter().copied()))
        .collect();
    if ob.len() != rb.len() + 1 || op[1].len() != res[1].len() || op[2].len() != res[2].len() {
        return Err(ProjectionError::Mismatch(
            "batch_slice: the operand must be the result plus one leading batch axis".into(),
        ));
    }
    ids.fix(ob[0], bounded(index, "the batch slice index")?)?;
    for (a, b) in ob[1..]
        .iter()
        .zip(&rb)
        .chain(pairs.iter().map(|(a, b)| (a, b)))
    {
        ids.union(*a, *b, "batch_slice")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
