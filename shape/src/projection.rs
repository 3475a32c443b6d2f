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

mod blocks;
mod einsum;
mod index;

use std::collections::HashMap;

use crate::{
    MAX_SIZE,
    logic::Logic,
    problem::broadcast_pairs,
    solver::Role,
    spec::{EinsumSpec, Row, RowKind, ShapeAxis, ShapeSpec},
};
pub use blocks::any_overlap;
use einsum::{PendingAffine, affine_out_of_range, concat_parts, einsum_slot};
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

/// The projections of an op with shape logic `logic` on solved shapes.
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
    // Affine axes, indexed after the classes get iterators.
    let mut pending_affine: Vec<PendingAffine> = Vec::new();
    let tensor = |role: Role| match role {
        Role::Operand(i) => i as usize,
        _ => n,
    };
    // Concatenated axes: node -> the projection nodes of their parts.
    let mut concat_nodes: HashMap<usize, Vec<usize>> = HashMap::new();
    match logic {
        Logic::Einsum(spec) | Logic::Block(spec) => {
            let mut labels: HashMap<&str, usize> = HashMap::new();
            let mut rows: HashMap<String, Vec<usize>> = HashMap::new();
            let mut affine = Vec::new();
            let mut concats = Vec::new();
            for (t, slot) in spec
                .rhs
                .iter()
                .chain(std::iter::once(&spec.lhs))
                .enumerate()
            {
                einsum_slot(
                    &mut ids,
                    t,
                    slot,
                    &mut labels,
                    &mut rows,
                    (&mut affine, &mut concats),
                )?;
            }
            if !concats.is_empty() {
                if matches!(logic, Logic::Einsum(_)) {
                    return Err(ProjectionError::Unsupported(
                        "concatenated axes are only allowed in block specs".into(),
                    ));
                }
                concat_nodes = concat_parts(&mut ids, &mut labels, &concats, spec)?;
            }
            if affine.iter().any(|a| a.node_tensor == n) {
                return Err(ProjectionError::Unsupported(
                    "strided or convolution axes in the result have no projections".into(),
                ));
            }
            for a in affine {
                let class = |ids: &mut Ids, label: &str| {
                    labels.get(label).map(|&node| ids.find(node)).ok_or_else(|| {
                        ProjectionError::Unsupported(format!(
                            "the label '{label}' of a strided or convolution axis indexes no axis"
                        ))
                    })
                };
                let over = class(&mut ids, a.over)?;
                let kernel = match a.kernel {
                    Some((k, dilation)) => Some((class(&mut ids, k)?, dilation)),
                    None => None,
                };
                // A padded convolution centres the dilated kernel: the left
                // padding is half its extent (reference: padding is keyed by
                // the projection and is the dilated kernel's extent); explicit
                // padding states it. Sizes, dilations, paddings and offsets
                // are at most `MAX_SIZE`: exact in i128.
                let pad = match (a.padding, kernel) {
                    (crate::spec::Padding::Pad, Some((k, dilation))) => {
                        i128::from(ids.size[k].saturating_sub(1)) * i128::from(dilation) / 2
                    }
                    (crate::spec::Padding::Explicit { lo, .. }, Some(_)) => i128::from(lo),
                    _ => 0,
                };
                pending_affine.push(PendingAffine {
                    node: a.node,
                    over,
                    stride: a.stride,
                    kernel,
                    offset: i128::from(a.offset) - pad,
                });
            }
        }
        Logic::BatchSlice { index } => {
            let (op, res) = (&ids.node[0], &ids.node[1]);
            let (ob, rb) = (op[0].clone(), res[0].clone());
            let pairs: Vec<(usize, usize)> = [1, 2]
                .iter()
                .flat_map(|&k| op[k].iter().copied().zip(res[k].iter().copied()))
                .collect();
            if ob.len() != rb.len() + 1
                || op[1].len() != res[1].len()
                || op[2].len() != res[2].len()
            {
                return Err(ProjectionError::Mismatch(
                    "batch_slice: the operand must be the result plus one leading batch axis"
                        .into(),
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
        }
        Logic::Terminal { .. } => {}
        Logic::Reshape => {
            return Err(ProjectionError::Unsupported(
                "reshape has no projections: it copies in memory order".into(),
            ));
        }
        _ => {
            for (cr, ck, sr, sk) in broadcast_pairs(logic.kind(), n) {
                ids.broadcast((tensor(cr), ck), (tensor(sr), sk))?;
            }
        }
    }
    // Classes: fixed, size 1 (indexed at 0), or an iterator numbered by first
    // appearance (result first). Parts of concatenations always get an
    // iterator, whatever their size (the reference: "dim-1 projections that
    // participate in Concat axes are not converted to Fixed_idx 0").
    let members: Vec<usize> = concat_nodes
        .values()
        .flatten()
        .map(|&x| ids.find(x))
        .collect();
    let mut iter_of: HashMap<usize, usize> = HashMap::new();
    let mut product_space = vec![];
    // The iterator of class `r`, numbered on first use.
    let mut iter_of_class = |ids: &Ids, r: usize| -> usize {
        let next = product_space.len();
        let it = *iter_of.entry(r).or_insert(next);
        if it == next {
            product_space.push(ids.size[r]);
        }
        it
    };
    let mut index = |ids: &mut Ids, node: usize| -> AxisIndex {
        if let Some(parts) = concat_nodes.get(&node) {
            let its = parts
                .iter()
                .map(|&x| {
                    let r = ids.find(x);
                    iter_of_class(ids, r)
                })
                .collect();
            return AxisIndex::Concat(its);
        }
        let r = ids.find(node);
        if let Some(at) = ids.fixed[r] {
            return AxisIndex::Fixed(at);
        }
        if ids.size[r] == 1 && !members.contains(&r) {
            return AxisIndex::Fixed(0);
        }
        AxisIndex::Iter(iter_of_class(ids, r))
    };
    let memory_order = |ids: &Ids, t: usize| -> Vec<usize> {
        KINDS_MEMORY
            .iter()
            .flat_map(|k| ids.node[t][kind_index(*k)].clone())
            .collect()
    };
    // Affine nodes index through their iterators; the iterators of their
    // labels are numbered when the labels' own axes are (result first), so
    // resolve them after the plain axes.
    let affine_nodes: HashMap<usize, PendingAffine> =
        pending_affine.into_iter().map(|a| (a.node, a)).collect();
    let result_nodes = memory_order(&ids, n);
    let result_index: Vec<AxisIndex> = result_nodes
        .into_iter()
        .map(|x| index(&mut ids, x))
        .collect();
    let mut operand_index: Vec<Vec<AxisIndex>> = Vec::with_capacity(n);
    for t in 0..n {
        let nodes = memory_order(&ids, t);
        let mut indices = Vec::with_capacity(nodes.len());
        for x in nodes {
            if affine_nodes.contains_key(&x) {
                // Placeholder, replaced below once every label is numbered.
                indices.push(AxisIndex::Fixed(0));
            } else {
                indices.push(index(&mut ids, x));
            }
        }
        operand_index.push(indices);
    }
    for (t, indices) in operand_index.iter_mut().enumerate() {
        let nodes = memory_order(&ids, t);
        for (pos, x) in nodes.into_iter().enumerate() {
            let Some(&PendingAffine {
                over,
                stride,
                kernel,
                offset,
                ..
            }) = affine_nodes.get(&x)
            else {
                continue;
            };
            // Fixed positions and coefficients are at most `MAX_SIZE`, and
            // `offset` is within ±2^126: the sum is exact in i128.
            let mut constant = offset;
            let mut term = |ids: &mut Ids, class: usize, coeff: u64| match index(ids, class) {
                AxisIndex::Iter(i) => Some((i, coeff)),
                AxisIndex::Fixed(f) => {
                    constant += i128::from(f) * i128::from(coeff);
                    None
                }
                AxisIndex::Affine(_) | AxisIndex::Concat(_) => None,
            };
            let over = term(&mut ids, over, stride);
            let kernel = kernel.and_then(|(k, dilation)| term(&mut ids, k, dilation));
            let offset =
                i64::try_from(constant).map_err(|_| affine_out_of_range(t, pos, constant))?;
            indices[pos] = AxisIndex::Affine(AffineIndex {
                over,
                kernel,
                offset,
            });
        }
    }
    // Every index range must fit `i64` (MLIR's index arithmetic): plain,
    // fixed and concatenated indices do (sizes and fixed positions are at
    // most `MAX_SIZE`, concatenated axes are sums checked against theirs);
    // strided and convolution indices are checked here.
    for (t, indices) in operand_index.iter().enumerate() {
        for (pos, a) in indices.iter().enumerate() {
            if let AxisIndex::Affine(x) = a
                && x.checked_range(&product_space).is_none()
            {
                let (_, hi) = x.wide_range(&product_space);
                return Err(affine_out_of_range(t, pos, hi));
            }
        }
    }
    // Components: the parts of each concatenation are one.
    let mut comp: Vec<usize> = (0..product_space.len()).collect();
    fn root(comp: &mut [usize], mut x: usize) -> usize {
        while comp[x] != x {
            comp[x] = comp[comp[x]];
            x = comp[x];
        }
        x
    }
    for a in result_index.iter().chain(operand_index.iter().flatten()) {
        if let AxisIndex::Concat(parts) = a {
            for w in parts.windows(2) {
                let (x, y) = (root(&mut comp, w[0]), root(&mut comp, w[1]));
                comp[x.max(y)] = x.min(y);
            }
        }
    }
    let mut components: Vec<Vec<usize>> = vec![];
    let mut slot: HashMap<usize, usize> = HashMap::new();
    for i in 0..product_space.len() {
        let r = root(&mut comp, i);
        let k = *slot.entry(r).or_insert_with(|| {
            components.push(vec![]);
            components.len() - 1
        });
        components[k].push(i);
    }
    Ok(Projections {
        product_space,
        operands: operand_index,
        result: result_index,
        components,
    })
}

#[cfg(test)]
mod tests;
