//! The projection equations of einsum and block slots (reference,
//! "Projections inference"): labels, fixed indices and row variables join
//! or fix projection ids; strided and convolution axes and concatenations
//! are collected for [`super::infer_projections`] to index once every label
//! has its iterator. Sizes, strides, dilations, offsets and fixed indices
//! above [`crate::MAX_SIZE`] are [`ProjectionError::Overflow`] errors.

use std::collections::HashMap;

use super::{Equations, Ids, ProjectionError, bounded, kind_index};
use crate::spec::{EinsumAxis, EinsumSpec, IntOrIdent, Padding, RowKind, RowVar, SlotSpec};

/// The error for a strided or convolution index of operand `t` (axis `pos`
/// in memory order) that reaches `bound`, outside `i64`.
pub(super) fn affine_out_of_range(t: usize, pos: usize, bound: i128) -> ProjectionError {
    ProjectionError::Overflow(format!(
        "the strided or convolution index of operand #{t} (axis {pos} in memory order) reaches {bound}, outside the 64-bit index range"
    ))
}

/// A concatenated axis seen in a block slot: its node and its parts' labels.
pub(super) struct ConcatAxis<'s> {
    pub(super) node: usize,
    pub(super) parts: &'s [String],
}

/// The projection nodes of the parts of every concatenated axis. A part
/// whose label indexes no other axis gets a node of its own, sized by what
/// its concatenation leaves when it is the only unknown part; otherwise
/// (as shape inference closes them) discardable parts are 0 first, then
/// others 1. Every concatenation must then be the sum of its parts.
pub(super) fn concat_parts<'s>(
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
                let whole = u128::from(ids.size[c.node]);
                let mut known = 0u128;
                let mut unknown = vec![];
                for p in c.parts {
                    match labels.get(p.as_str()) {
                        Some(&x) => known += u128::from(ids.size[x]),
                        None => unknown.push(p.as_str()),
                    }
                }
                if let [p] = unknown.as_slice()
                    && let Ok(rest) = u64::try_from(whole.saturating_sub(known))
                    && known <= whole
                {
                    let node = ids.fresh(rest);
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
        // Exact: sizes are at most `MAX_SIZE`.
        let sum: u128 = parts.iter().map(|&x| u128::from(ids.size[x])).sum();
        if sum != u128::from(whole) {
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
pub(super) struct PendingAffine {
    pub(super) node: usize,
    pub(super) over: usize,
    pub(super) stride: u64,
    pub(super) kernel: Option<(usize, u64)>,
    /// The stride offset minus the left padding (exact).
    pub(super) offset: i128,
}

/// A strided or convolution axis seen in an einsum slot.
pub(super) struct AffineAxis<'s> {
    pub(super) node: usize,
    pub(super) node_tensor: usize,
    pub(super) stride: u64,
    pub(super) over: &'s str,
    pub(super) offset: u64,
    pub(super) kernel: Option<(&'s str, u64)>,
    pub(super) padding: Padding,
}

/// Rejects a slot that uses a part of one of its concatenations again (as
/// an axis of its own, in a strided or convolution axis, or in another
/// concatenation): the part's iterator is active only in its own block,
/// where the concatenation reads it, so the other axis would never be
/// indexed and the tensor would take part in no block (reference,
/// "Concatenation": the blocks choose one active part per component).
fn check_concat_parts(slot: &SlotSpec) -> Result<(), ProjectionError> {
    let axes: Vec<&EinsumAxis> = [RowKind::Batch, RowKind::Input, RowKind::Output]
        .into_iter()
        .flat_map(|kind| {
            let row = slot.row(kind);
            row.beg.iter().chain(row.end.iter())
        })
        .collect();
    for (i, a) in axes.iter().enumerate() {
        let EinsumAxis::Concat(parts) = a else {
            continue;
        };
        for p in parts {
            let elsewhere = axes.iter().enumerate().any(|(j, b)| {
                j != i
                    && match b {
                        EinsumAxis::Label(l) => l == p,
                        EinsumAxis::Concat(others) => others.contains(p),
                        EinsumAxis::Affine { over, conv, .. } => {
                            over == p || conv.as_ref().is_some_and(|c| &c.kernel == p)
                        }
                        EinsumAxis::Fresh | EinsumAxis::Fixed(_) => false,
                    }
            });
            if elsewhere {
                return Err(ProjectionError::Unsupported(format!(
                    "the label '{p}' is a part of the concatenation '{}' and also indexes another axis of the same tensor",
                    parts.join("^")
                )));
            }
        }
    }
    Ok(())
}

/// Projection equations of one einsum slot against its tensor `t`.
pub(super) fn einsum_slot<'s>(
    ids: &mut Ids,
    t: usize,
    slot: &'s SlotSpec,
    labels: &mut HashMap<&'s str, usize>,
    rows: &mut HashMap<String, Vec<usize>>,
    (affine, concats): (&mut Vec<AffineAxis<'s>>, &mut Vec<ConcatAxis<'s>>),
) -> Result<(), ProjectionError> {
    check_concat_parts(slot)?;
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
                    EinsumAxis::Fixed(i) => ids.fix(node, bounded(*i, "the fixed index")?),
                    EinsumAxis::Affine {
                        stride,
                        over,
                        offset,
                        conv,
                    } => {
                        let int = |v: &IntOrIdent, what: &str| match v {
                            IntOrIdent::Int(n) => bounded(*n, what),
                            IntOrIdent::Ident(name) => Err(ProjectionError::Unsupported(format!(
                                "symbolic strides and dilations ('{name}')"
                            ))),
                        };
                        let kernel = match conv {
                            Some(c) => Some((c.kernel.as_str(), int(&c.dilation, "the dilation")?)),
                            None => None,
                        };
                        affine.push(AffineAxis {
                            node,
                            node_tensor: t,
                            stride: int(stride, "the stride")?,
                            over: over.as_str(),
                            offset: bounded(*offset, "the offset")?,
                            kernel,
                            padding: conv.as_ref().map_or(Padding::Unspecified, |c| c.padding),
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

/// The projection equations of an einsum or `block` spec over `n` operands:
/// every slot against its tensor, then the concatenations' parts and the
/// affine axes left for the numbering.
pub(super) fn einsum_equations(
    ids: &mut Ids,
    spec: &EinsumSpec,
    block: bool,
    n: usize,
) -> Result<Equations, ProjectionError> {
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
            ids,
            t,
            slot,
            &mut labels,
            &mut rows,
            (&mut affine, &mut concats),
        )?;
    }
    let mut equations = Equations::default();
    if !concats.is_empty() {
        if !block {
            return Err(ProjectionError::Unsupported(
                "concatenated axes are only allowed in block specs".into(),
            ));
        }
        equations.concat_nodes = concat_parts(ids, &mut labels, &concats, spec)?;
    }
    if affine.iter().any(|a| a.node_tensor == n) {
        return Err(ProjectionError::Unsupported(
            "strided or convolution axes in the result have no projections".into(),
        ));
    }
    for a in affine {
        equations.affine.push(pending_affine(ids, &labels, &a)?);
    }
    Ok(equations)
}

/// An affine axis with the classes of its labels and its padding applied.
fn pending_affine(
    ids: &mut Ids,
    labels: &HashMap<&str, usize>,
    a: &AffineAxis<'_>,
) -> Result<PendingAffine, ProjectionError> {
    let class = |ids: &mut Ids, label: &str| {
        labels
            .get(label)
            .map(|&node| ids.find(node))
            .ok_or_else(|| {
                ProjectionError::Unsupported(format!(
                    "the label '{label}' of a strided or convolution axis indexes no axis"
                ))
            })
    };
    let over = class(ids, a.over)?;
    let kernel = match a.kernel {
        Some((k, dilation)) => Some((class(ids, k)?, dilation)),
        None => None,
    };
    // A padded convolution centres the dilated kernel: the left padding is
    // half its extent (reference: padding is keyed by the projection and is
    // the dilated kernel's extent); explicit padding states it. Sizes,
    // dilations, paddings and offsets are at most `MAX_SIZE`: exact in i128.
    let pad = match (a.padding, kernel) {
        (Padding::Pad, Some((k, dilation))) => {
            i128::from(ids.size[k].saturating_sub(1)) * i128::from(dilation) / 2
        }
        (Padding::Explicit { lo, .. }, Some(_)) => i128::from(lo),
        _ => 0,
    };
    Ok(PendingAffine {
        node: a.node,
        over,
        stride: a.stride,
        kernel,
        offset: i128::from(a.offset) - pad,
    })
}
