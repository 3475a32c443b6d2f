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

use std::collections::HashMap;

use crate::{
    problem::{OpLogic, broadcast_pairs},
    solver::Role,
    spec::{
        EinsumAxis, EinsumSpec, IntOrIdent, Padding, Row, RowKind, RowVar, ShapeAxis, ShapeSpec,
        SlotSpec,
    },
};

/// How one axis of a tensor is indexed in the op's loop nest.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AxisIndex {
    /// The iterator with this number (into [`Projections::product_space`]).
    Iter(usize),
    /// A constant position.
    Fixed(u64),
    /// A strided or convolution access (reference, "Affine indexing and
    /// convolutions"): `stride * over + dilation * kernel + offset`, where
    /// `offset` folds in the stride offset and, for padded convolutions,
    /// minus the left padding. Such an index may fall outside the axis
    /// (padding): a reader treats those cells as the neutral element.
    Affine(AffineIndex),
    /// A concatenated axis (reference, "Concatenation"): the iterators of
    /// its parts, in order. In each block of the loop nest (see
    /// [`Projections::blocks`]) one part is active and the axis is indexed
    /// by its iterator plus the sizes of the parts before it.
    Concat(Vec<usize>),
}

impl AxisIndex {
    /// The smallest and largest position this index takes over a product
    /// space (an index whose range leaves its axis reads padding).
    pub fn range(&self, product_space: &[u64]) -> (i64, i64) {
        match self {
            AxisIndex::Iter(i) => (0, product_space[*i] as i64 - 1),
            AxisIndex::Fixed(f) => (*f as i64, *f as i64),
            AxisIndex::Affine(x) => x.range(product_space),
            AxisIndex::Concat(parts) => (
                0,
                parts.iter().map(|&i| product_space[i] as i64).sum::<i64>() - 1,
            ),
        }
    }

    /// Whether the index reads iterator `i`.
    pub fn uses(&self, i: usize) -> bool {
        match self {
            AxisIndex::Iter(j) => *j == i,
            AxisIndex::Fixed(_) => false,
            AxisIndex::Affine(x) => [x.over, x.kernel].iter().flatten().any(|(j, _)| *j == i),
            AxisIndex::Concat(parts) => parts.contains(&i),
        }
    }
}

/// `over.1 * iter(over.0) + kernel.1 * iter(kernel.0) + offset`; a missing
/// term is an iterator of size 1 (always 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AffineIndex {
    /// The output iterator and the stride.
    pub over: Option<(usize, u64)>,
    /// The kernel iterator and the dilation.
    pub kernel: Option<(usize, u64)>,
    /// The constant part.
    pub offset: i64,
}

impl AffineIndex {
    /// The smallest and largest index over a product space.
    pub fn range(&self, product_space: &[u64]) -> (i64, i64) {
        let span = |t: Option<(usize, u64)>| {
            t.map_or(0, |(i, c)| {
                (c as i64) * (product_space[i].max(1) as i64 - 1)
            })
        };
        (
            self.offset,
            self.offset + span(self.over) + span(self.kernel),
        )
    }
}

/// The projections of one op.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projections {
    /// The size of each iterator: the op's loop nest.
    pub product_space: Vec<u64>,
    /// For each operand, the index of each axis in memory order.
    pub operands: Vec<Vec<AxisIndex>>,
    /// The index of each result axis in memory order.
    pub result: Vec<AxisIndex>,
    /// The connected components of the concatenation hypergraph over the
    /// iterators (reference, "Projections inference", "Concatenation"):
    /// the iterators of one concatenated axis are one component, looped in
    /// sequence; every other iterator is a component of its own. Sorted.
    pub components: Vec<Vec<usize>>,
}

/// One block of an op with concatenated axes: one iterator of each
/// component is active, and the indices are resolved for that choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The active iterators (one per component), ascending: the loops.
    pub iterators: Vec<usize>,
    /// For each operand, its indices, or `None` when the operand takes no
    /// part in this block.
    pub operands: Vec<Option<Vec<AxisIndex>>>,
    /// The result's indices.
    pub result: Vec<AxisIndex>,
}

impl Projections {
    /// Iterators that do not index the result: the op reduces over them.
    pub fn reductions(&self) -> Vec<usize> {
        (0..self.product_space.len())
            .filter(|i| !self.result.iter().any(|a| a.uses(*i)))
            .collect()
    }

    /// Whether some axis is a concatenation.
    pub fn has_concat(&self) -> bool {
        self.result
            .iter()
            .chain(self.operands.iter().flatten())
            .any(|a| matches!(a, AxisIndex::Concat(_)))
    }

    /// The blocks of the loop nest (OCANNL's Block lowering): for every
    /// choice of one active iterator per component, the concatenated axes
    /// resolve to the active part's iterator plus the sizes of the parts
    /// before it. A block is dropped when the result reads an inactive
    /// iterator (no cell of the result belongs to it), when an active
    /// iterator has size 0, or when no operand takes part; an operand takes
    /// part when it reads only active iterators and, if the result has one
    /// concatenated axis with a part per operand, its part is active.
    /// Without concatenation there is one block with everything.
    ///
    /// # Errors
    ///
    /// [`ProjectionError::Mismatch`] when two operands take part in one
    /// block (both would write the same cells).
    pub fn blocks(&self) -> Result<Vec<Block>, ProjectionError> {
        let n = self.operands.len();
        // The result's single concatenated axis, when it has a part per
        // operand (concatenation, stacking): operand `i` writes part `i`.
        let concats: Vec<&Vec<usize>> = self
            .result
            .iter()
            .filter_map(|a| match a {
                AxisIndex::Concat(parts) => Some(parts),
                _ => None,
            })
            .collect();
        let per_operand = match concats.as_slice() {
            [parts] if parts.len() == n => Some(*parts),
            _ => None,
        };
        let mut blocks = Vec::new();
        let mut choice = vec![0usize; self.components.len()];
        loop {
            let mut active = vec![false; self.product_space.len()];
            for (c, &k) in self.components.iter().zip(&choice) {
                active[c[k]] = true;
            }
            let empty = (0..active.len()).any(|i| active[i] && self.product_space[i] == 0);
            let resolve = |indices: &[AxisIndex]| -> Option<Vec<AxisIndex>> {
                indices.iter().map(|a| self.resolve(a, &active)).collect()
            };
            if !empty && let Some(result) = resolve(&self.result) {
                let operands: Vec<Option<Vec<AxisIndex>>> = (0..n)
                    .map(|i| {
                        if per_operand.is_some_and(|parts| !active[parts[i]]) {
                            return None;
                        }
                        resolve(&self.operands[i])
                    })
                    .collect();
                let taking: Vec<usize> = (0..n).filter(|&i| operands[i].is_some()).collect();
                if taking.len() > 1 {
                    return Err(ProjectionError::Mismatch(format!(
                        "operands #{} and #{} would both write the same cells of the result (ambiguous concatenation)",
                        taking[0], taking[1]
                    )));
                }
                if taking.len() == 1 {
                    blocks.push(Block {
                        iterators: (0..active.len()).filter(|&i| active[i]).collect(),
                        operands,
                        result,
                    });
                }
            }
            // The next choice, like an odometer.
            let mut c = 0;
            loop {
                if c == choice.len() {
                    return Ok(blocks);
                }
                choice[c] += 1;
                if choice[c] < self.components[c].len() {
                    break;
                }
                choice[c] = 0;
                c += 1;
            }
        }
    }

    /// One index with the `active` iterators: `None` when it reads an
    /// inactive one (a concatenation: when none of its parts is active).
    fn resolve(&self, a: &AxisIndex, active: &[bool]) -> Option<AxisIndex> {
        match a {
            AxisIndex::Concat(parts) => {
                let k = parts.iter().position(|&p| active[p])?;
                let offset: u64 = parts[..k].iter().map(|&p| self.product_space[p]).sum();
                Some(if offset == 0 {
                    AxisIndex::Iter(parts[k])
                } else {
                    AxisIndex::Affine(AffineIndex {
                        over: Some((parts[k], 1)),
                        kernel: None,
                        offset: offset as i64,
                    })
                })
            }
            other => (0..active.len())
                .all(|i| active[i] || !other.uses(i))
                .then(|| other.clone()),
        }
    }
}

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
/// [`ProjectionError::NotConcrete`] when the shape still has variables.
pub fn memory_dims(spec: &ShapeSpec) -> Result<Vec<u64>, ProjectionError> {
    let [batch, input, output] = sizes(spec, "tensor")?;
    Ok(batch.into_iter().chain(output).chain(input).collect())
}

/// The projections of an op with shape logic `logic` on solved shapes.
///
/// # Errors
///
/// Shapes that are not concrete or do not fit the logic, conflicting fixed
/// indices, and logics without projections of their own (reshape) or with
/// axes not supported yet (strided, convolution, concatenated).
pub fn infer_projections(
    logic: OpLogic<'_>,
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
        OpLogic::Einsum(spec) | OpLogic::Block(spec) => {
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
                if matches!(logic, OpLogic::Einsum(_)) {
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
                // the projection and is the dilated kernel's extent).
                let pad = match (a.padded, kernel) {
                    (true, Some((k, dilation))) => {
                        (ids.size[k].saturating_sub(1) * dilation / 2) as i64
                    }
                    _ => 0,
                };
                pending_affine.push(PendingAffine {
                    node: a.node,
                    over,
                    stride: a.stride,
                    kernel,
                    offset: a.offset as i64 - pad,
                });
            }
        }
        OpLogic::BatchSlice { index } => {
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
            ids.fix(ob[0], index)?;
            for (a, b) in ob[1..]
                .iter()
                .zip(&rb)
                .chain(pairs.iter().map(|(a, b)| (a, b)))
            {
                ids.union(*a, *b, "batch_slice")?;
            }
        }
        OpLogic::Terminal { .. } => {}
        OpLogic::Reshape => {
            return Err(ProjectionError::Unsupported(
                "reshape has no projections: it copies in memory order".into(),
            ));
        }
        _ => {
            for (cr, ck, sr, sk) in broadcast_pairs(logic, n) {
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
            let mut constant = offset;
            let mut term = |ids: &mut Ids, class: usize, coeff: u64| match index(ids, class) {
                AxisIndex::Iter(i) => Some((i, coeff)),
                AxisIndex::Fixed(f) => {
                    constant += (f * coeff) as i64;
                    None
                }
                AxisIndex::Affine(_) | AxisIndex::Concat(_) => None,
            };
            let over = term(&mut ids, over, stride);
            let kernel = kernel.and_then(|(k, dilation)| term(&mut ids, k, dilation));
            indices[pos] = AxisIndex::Affine(AffineIndex {
                over,
                kernel,
                offset: constant,
            });
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

/// A concatenated axis seen in a block slot: its node and its parts' labels.
struct ConcatAxis<'s> {
    node: usize,
    parts: &'s [String],
}

/// The projection nodes of the parts of every concatenated axis. A part
/// whose label indexes no other axis gets a node of its own, sized by what
/// its concatenation leaves when it is the only unknown part; otherwise
/// (as shape inference closes them) discardable parts are 0 first, then
/// others 1. Every concatenation must then be the sum of its parts.
fn concat_parts<'s>(
    ids: &mut Ids,
    labels: &mut HashMap<&'s str, usize>,
    concats: &[ConcatAxis<'s>],
    spec: &EinsumSpec,
) -> Result<HashMap<usize, Vec<usize>>, ProjectionError> {
    for c in concats {
        for (i, p) in c.parts.iter().enumerate() {
            if c.parts[..i].contains(p) {
                return Err(ProjectionError::Unsupported(format!(
                    "the label '{p}' appears twice in the concatenation '{}'",
                    c.parts.join("^")
                )));
            }
        }
    }
    let discardable = spec.discardable_labels();
    for guess in [None, Some(true), Some(false)] {
        if let Some(discardable_pass) = guess {
            for c in concats {
                for p in c.parts {
                    if !labels.contains_key(p.as_str())
                        && discardable.contains(p.as_str()) == discardable_pass
                    {
                        let node = ids.fresh(u64::from(!discardable_pass));
                        labels.insert(p.as_str(), node);
                    }
                }
            }
        }
        let mut progress = true;
        while progress {
            progress = false;
            for c in concats {
                let whole = ids.size[c.node];
                let mut known = 0u64;
                let mut unknown = vec![];
                for p in c.parts {
                    match labels.get(p.as_str()) {
                        Some(&x) => known += ids.size[x],
                        None => unknown.push(p.as_str()),
                    }
                }
                if let [p] = unknown.as_slice()
                    && known <= whole
                {
                    let node = ids.fresh(whole - known);
                    labels.insert(p, node);
                    progress = true;
                }
            }
        }
    }
    let mut out = HashMap::new();
    for c in concats {
        let whole = ids.size[c.node];
        let parts: Vec<usize> = c.parts.iter().map(|p| labels[p.as_str()]).collect();
        let sum: u64 = parts.iter().map(|&x| ids.size[x]).sum();
        if sum != whole {
            return Err(ProjectionError::Mismatch(format!(
                "block: the concatenated axis '{}' has size {whole}, but its parts sum to {sum}",
                c.parts.join("^")
            )));
        }
        out.insert(c.node, parts);
    }
    Ok(out)
}

/// An affine axis's node with the classes of its labels: `stride * over +
/// dilation * kernel + offset`.
#[derive(Debug, Clone, Copy)]
struct PendingAffine {
    node: usize,
    over: usize,
    stride: u64,
    kernel: Option<(usize, u64)>,
    offset: i64,
}

/// A strided or convolution axis seen in an einsum slot.
struct AffineAxis<'s> {
    node: usize,
    node_tensor: usize,
    stride: u64,
    over: &'s str,
    offset: u64,
    kernel: Option<(&'s str, u64)>,
    padded: bool,
}

/// Projection equations of one einsum slot against its tensor `t`.
fn einsum_slot<'s>(
    ids: &mut Ids,
    t: usize,
    slot: &'s SlotSpec,
    labels: &mut HashMap<&'s str, usize>,
    rows: &mut HashMap<String, Vec<usize>>,
    (affine, concats): (&mut Vec<AffineAxis<'s>>, &mut Vec<ConcatAxis<'s>>),
) -> Result<(), ProjectionError> {
    for kind in [RowKind::Batch, RowKind::Input, RowKind::Output] {
        let row = slot.row(kind);
        let nodes = ids.node[t][kind_index(kind)].clone();
        let known = row.beg.len() + row.end.len();
        if nodes.len() < known || (row.var.is_none() && nodes.len() != known) {
            return Err(ProjectionError::Mismatch(format!(
                "einsum: a spec row of {known} axes does not fit a row of {} axes",
                nodes.len()
            )));
        }
        let var_len = nodes.len() - known;
        let mut axis =
            |ids: &mut Ids, a: &'s EinsumAxis, node: usize| -> Result<(), ProjectionError> {
                match a {
                    EinsumAxis::Label(l) => match labels.get(l.as_str()) {
                        Some(&first) => ids.union(first, node, "einsum label"),
                        None => {
                            labels.insert(l.as_str(), node);
                            Ok(())
                        }
                    },
                    EinsumAxis::Fresh => Ok(()),
                    EinsumAxis::Fixed(i) => ids.fix(node, *i),
                    EinsumAxis::Affine {
                        stride,
                        over,
                        offset,
                        conv,
                    } => {
                        let int = |v: &IntOrIdent| match v {
                            IntOrIdent::Int(n) => Ok(*n),
                            IntOrIdent::Ident(name) => Err(ProjectionError::Unsupported(format!(
                                "symbolic strides and dilations ('{name}')"
                            ))),
                        };
                        let kernel = match conv {
                            Some(c) => Some((c.kernel.as_str(), int(&c.dilation)?)),
                            None => None,
                        };
                        affine.push(AffineAxis {
                            node,
                            node_tensor: t,
                            stride: int(stride)?,
                            over: over.as_str(),
                            offset: *offset,
                            kernel,
                            padded: conv.as_ref().is_some_and(|c| c.padding == Padding::Pad),
                        });
                        Ok(())
                    }
                    EinsumAxis::Concat(parts) => {
                        concats.push(ConcatAxis { node, parts });
                        Ok(())
                    }
                }
            };
        for (a, &node) in row.beg.iter().zip(&nodes) {
            axis(ids, a, node)?;
        }
        for (a, &node) in row.end.iter().zip(&nodes[nodes.len() - row.end.len()..]) {
            axis(ids, a, node)?;
        }
        if let Some(var) = &row.var {
            let name = match var {
                RowVar::Anonymous => crate::solver::kind_name(kind).to_owned(),
                RowVar::Named(name) => name.clone(),
            };
            let mine = nodes[row.beg.len()..row.beg.len() + var_len].to_vec();
            match rows.get(&name) {
                Some(first) if first.len() != mine.len() => {
                    return Err(ProjectionError::Mismatch(format!(
                        "einsum: row variable {name} stands for {} axes in one slot and {} in another",
                        first.len(),
                        mine.len()
                    )));
                }
                Some(first) => {
                    for (a, b) in first.clone().into_iter().zip(mine) {
                        ids.union(a, b, "einsum row variable")?;
                    }
                }
                None => {
                    rows.insert(name, mine);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
