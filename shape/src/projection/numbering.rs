//! From classes of projection ids to indices: each class is fixed, of size
//! 1 (indexed at 0), or an iterator of the op's product space, numbered by
//! first appearance (result first, then the operands); affine axes index
//! through their labels' iterators, concatenated axes through their parts';
//! the parts of each concatenation make one component.

use std::collections::HashMap;

use super::einsum::{PendingAffine, affine_out_of_range};
use super::{
    AffineIndex, AxisIndex, Equations, Ids, KINDS_MEMORY, ProjectionError, Projections, kind_index,
};

/// The indices of every tensor's axes (`n` operands, then the result) from
/// the classes the equations left.
pub(super) fn number(
    mut ids: Ids,
    n: usize,
    equations: Equations,
) -> Result<Projections, ProjectionError> {
    let mut numbering = Numbering::new(&mut ids, equations.concat_nodes);
    // Affine nodes index through their iterators; the iterators of their
    // labels are numbered when the labels' own axes are (result first), so
    // resolve them after the plain axes.
    let affine_nodes: HashMap<usize, PendingAffine> =
        equations.affine.into_iter().map(|a| (a.node, a)).collect();
    let result_index: Vec<AxisIndex> = memory_order(&ids, n)
        .into_iter()
        .map(|x| numbering.index(&mut ids, x))
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
                indices.push(numbering.index(&mut ids, x));
            }
        }
        operand_index.push(indices);
    }
    for (t, indices) in operand_index.iter_mut().enumerate() {
        let nodes = memory_order(&ids, t);
        for (pos, x) in nodes.into_iter().enumerate() {
            if let Some(a) = affine_nodes.get(&x) {
                indices[pos] = numbering.affine(&mut ids, a, (t, pos))?;
            }
        }
    }
    let product_space = numbering.product_space;
    check_affine_ranges(&operand_index, &product_space)?;
    let components = components(&result_index, &operand_index, product_space.len());
    Ok(Projections {
        product_space,
        operands: operand_index,
        result: result_index,
        components,
    })
}

/// A tensor's projection nodes in memory order.
fn memory_order(ids: &Ids, t: usize) -> Vec<usize> {
    KINDS_MEMORY
        .iter()
        .flat_map(|k| ids.node[t][kind_index(*k)].clone())
        .collect()
}

/// The iterators numbered so far.
struct Numbering {
    /// Concatenated axes: node -> the projection nodes of their parts.
    concat_nodes: HashMap<usize, Vec<usize>>,
    /// The classes of the parts of concatenations.
    members: Vec<usize>,
    /// The iterator of each class that has one.
    iter_of: HashMap<usize, usize>,
    /// The size of each iterator.
    product_space: Vec<u64>,
}

impl Numbering {
    fn new(ids: &mut Ids, concat_nodes: HashMap<usize, Vec<usize>>) -> Self {
        // Parts of concatenations always get an iterator, whatever their
        // size (the reference: "dim-1 projections that participate in
        // Concat axes are not converted to Fixed_idx 0").
        let members = concat_nodes
            .values()
            .flatten()
            .map(|&x| ids.find(x))
            .collect();
        Numbering {
            concat_nodes,
            members,
            iter_of: HashMap::new(),
            product_space: vec![],
        }
    }

    /// The iterator of class `r`, numbered on first use.
    fn iter_of_class(&mut self, ids: &Ids, r: usize) -> usize {
        let next = self.product_space.len();
        let it = *self.iter_of.entry(r).or_insert(next);
        if it == next {
            self.product_space.push(ids.size[r]);
        }
        it
    }

    /// The index of a plain or concatenated axis: fixed, 0 for size 1, or
    /// its class's iterator.
    fn index(&mut self, ids: &mut Ids, node: usize) -> AxisIndex {
        if let Some(parts) = self.concat_nodes.get(&node) {
            let its = parts
                .clone()
                .into_iter()
                .map(|x| {
                    let r = ids.find(x);
                    self.iter_of_class(ids, r)
                })
                .collect();
            return AxisIndex::Concat(its);
        }
        let r = ids.find(node);
        if let Some(at) = ids.fixed[r] {
            return AxisIndex::Fixed(at);
        }
        if ids.size[r] == 1 && !self.members.contains(&r) {
            return AxisIndex::Fixed(0);
        }
        AxisIndex::Iter(self.iter_of_class(ids, r))
    }

    /// The index of affine axis `a` (axis `pos` in memory order of operand
    /// `t`): its labels' iterators, fixed ones folded into the offset.
    fn affine(
        &mut self,
        ids: &mut Ids,
        a: &PendingAffine,
        (t, pos): (usize, usize),
    ) -> Result<AxisIndex, ProjectionError> {
        // Fixed positions and coefficients are at most `MAX_SIZE`, and
        // `offset` is within ±2^126: the sum is exact in i128.
        let mut constant = a.offset;
        let mut term = |ids: &mut Ids, class: usize, coeff: u64| match self.index(ids, class) {
            AxisIndex::Iter(i) => Some((i, coeff)),
            AxisIndex::Fixed(f) => {
                constant += i128::from(f) * i128::from(coeff);
                None
            }
            AxisIndex::Affine(_) | AxisIndex::Concat(_) => None,
        };
        let over = term(ids, a.over, a.stride);
        let kernel = a.kernel.and_then(|(k, dilation)| term(ids, k, dilation));
        let offset = i64::try_from(constant).map_err(|_| affine_out_of_range(t, pos, constant))?;
        Ok(AxisIndex::Affine(AffineIndex {
            over,
            kernel,
            offset,
        }))
    }
}

/// Every index range must fit `i64` (MLIR's index arithmetic): plain, fixed
/// and concatenated indices do (sizes and fixed positions are at most
/// `MAX_SIZE`, concatenated axes are sums checked against theirs); strided
/// and convolution indices are checked here.
fn check_affine_ranges(
    operand_index: &[Vec<AxisIndex>],
    product_space: &[u64],
) -> Result<(), ProjectionError> {
    for (t, indices) in operand_index.iter().enumerate() {
        for (pos, a) in indices.iter().enumerate() {
            if let AxisIndex::Affine(x) = a
                && x.checked_range(product_space).is_none()
            {
                let (_, hi) = x.wide_range(product_space);
                return Err(affine_out_of_range(t, pos, hi));
            }
        }
    }
    Ok(())
}

/// The components of the product space's `iterators`: the parts of each
/// concatenation are one.
fn components(
    result_index: &[AxisIndex],
    operand_index: &[Vec<AxisIndex>],
    iterators: usize,
) -> Vec<Vec<usize>> {
    let mut comp: Vec<usize> = (0..iterators).collect();
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
    for i in 0..iterators {
        let r = root(&mut comp, i);
        let k = *slot.entry(r).or_insert_with(|| {
            components.push(vec![]);
            components.len() - 1
        });
        components[k].push(i);
    }
    components
}
