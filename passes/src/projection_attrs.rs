//! The encoding of projections as builtin attributes, shared by
//! `ocannl-infer-projections` (which writes them) and
//! `ocannl-lower-to-affine` (which reads them back):
//!
//! - `ocannl.product_space = array<i64: ...>`: the size of each iterator;
//! - `ocannl.iterator_types = ["parallel", "reduction", ...]`;
//! - `ocannl.indexing_maps = [affine_map<(d0, ...) -> (...)>, ...]`: one
//!   map per operand, then one for the result, from the iterators to the
//!   tensor's axes in memory order; an axis index is an iterator `d<i>`, a
//!   constant, or `d<o> * stride + d<k> * dilation + offset`;
//! - for concatenations, `ocannl.components` and `ocannl.blocks` (per
//!   block: its iterators, the one operand that takes part, and that
//!   operand's and the result's maps).
//!
//! Reading back validates what it reads against the op's types: maps that
//! are not of the forms above, or that would store outside the result, are
//! errors (the attributes may be hand-written).

use crate::layout;
use melior::{
    Context,
    ir::{
        AffineExpr, AffineMap, Attribute, Identifier,
        attribute::{
            ArrayAttribute, DenseI64ArrayAttribute, DictionaryAttribute, IntegerAttribute,
            StringAttribute,
        },
        operation::{OperationLike, OperationRef},
        r#type::IntegerType,
    },
};
use ocannl_dialect::ir;
use ocannl_shape::{
    MAX_SIZE,
    projection::{AffineIndex, AxisIndex, Block, Projections},
};

#[cfg(test)]
mod tests;

/// The attribute names.
pub(crate) const PRODUCT_SPACE: &str = "ocannl.product_space";
/// See the module docs.
pub(crate) const ITERATOR_TYPES: &str = "ocannl.iterator_types";
/// See the module docs.
pub(crate) const INDEXING_MAPS: &str = "ocannl.indexing_maps";
/// See the module docs.
pub(crate) const COMPONENTS: &str = "ocannl.components";
/// See the module docs.
pub(crate) const BLOCKS: &str = "ocannl.blocks";

/// The affine expression of one axis index: `d<i>`, a constant, or
/// `d<o> * stride + d<k> * dilation + offset`.
pub(crate) fn index_expr<'c>(ctx: &'c Context, a: &AxisIndex) -> AffineExpr<'c> {
    match a {
        AxisIndex::Iter(i) => AffineExpr::dim(ctx, *i),
        AxisIndex::Fixed(f) => AffineExpr::constant(ctx, *f as i64),
        // Resolved per block (`Projections::blocks`) before reaching here;
        // the whole axis is never one expression.
        AxisIndex::Concat(_) => AffineExpr::constant(ctx, 0),
        AxisIndex::Affine(x) => {
            // over * stride + kernel * dilation + offset, in that order.
            let mut e: Option<AffineExpr<'c>> = None;
            for (i, c) in [x.over, x.kernel].into_iter().flatten() {
                let term = AffineExpr::dim(ctx, i) * AffineExpr::constant(ctx, c as i64);
                e = Some(e.map_or(term, |e| e + term));
            }
            let offset = AffineExpr::constant(ctx, x.offset);
            match e {
                Some(e) if x.offset == 0 => e,
                Some(e) => e + offset,
                None => offset,
            }
        }
    }
}

/// `affine_map<(d0, ..., d{dims-1}) -> (indices)>`.
pub(crate) fn index_map<'c>(ctx: &'c Context, dims: usize, indices: &[AxisIndex]) -> AffineMap<'c> {
    let exprs: Vec<AffineExpr<'c>> = indices.iter().map(|a| index_expr(ctx, a)).collect();
    AffineMap::new(ctx, dims, 0, &exprs)
}

/// The axis index an affine expression stands for, if it is one of the
/// forms [`index_expr`] builds (a linear combination of at most two
/// iterators with non-negative coefficients, plus a constant).
pub(crate) fn decode_index(e: AffineExpr<'_>) -> Option<AxisIndex> {
    // Sum of coefficient * dim, plus a constant; `None` on overflow.
    fn linear(
        e: AffineExpr<'_>,
        scale: i64,
        terms: &mut Vec<(usize, i64)>,
        constant: &mut i64,
    ) -> Option<()> {
        if e.is_dim() {
            let d = e.dim_position();
            match terms.iter_mut().find(|(x, _)| *x == d) {
                Some((_, c)) => *c = c.checked_add(scale)?,
                None => terms.push((d, scale)),
            }
            Some(())
        } else if e.is_constant() {
            *constant = constant.checked_add(scale.checked_mul(e.constant_value())?)?;
            Some(())
        } else if e.is_add() {
            linear(e.lhs(), scale, terms, constant)?;
            linear(e.rhs(), scale, terms, constant)
        } else if e.is_mul() {
            let (l, r) = (e.lhs(), e.rhs());
            if r.is_constant() {
                linear(l, scale.checked_mul(r.constant_value())?, terms, constant)
            } else if l.is_constant() {
                linear(r, scale.checked_mul(l.constant_value())?, terms, constant)
            } else {
                None
            }
        } else {
            None
        }
    }
    let (mut terms, mut constant) = (Vec::new(), 0i64);
    linear(e, 1, &mut terms, &mut constant)?;
    terms.retain(|(_, c)| *c != 0);
    if terms.iter().any(|(_, c)| *c < 0) || terms.len() > 2 {
        return None;
    }
    match (terms.as_slice(), constant) {
        ([], c) if c >= 0 => Some(AxisIndex::Fixed(c as u64)),
        // A negative constant: a cell of the padding (a convolution whose
        // iterators have size 1 reads `stride * 0 + 0 - pad`), guarded
        // like any index leaving its axis.
        ([], c) => Some(AxisIndex::Affine(AffineIndex {
            over: None,
            kernel: None,
            offset: c,
        })),
        ([(d, 1)], 0) => Some(AxisIndex::Iter(*d)),
        _ => {
            let mut t = terms.iter().map(|&(d, c)| (d, c as u64));
            Some(AxisIndex::Affine(AffineIndex {
                over: t.next(),
                kernel: t.next(),
                offset: constant,
            }))
        }
    }
}

/// A block's indices over its active iterators only: iterator `i` becomes
/// its position in `iterators`.
pub(crate) fn block_local(indices: &[AxisIndex], iterators: &[usize]) -> Vec<AxisIndex> {
    let pos = |i: usize| iterators.iter().position(|&x| x == i).unwrap_or(0);
    indices
        .iter()
        .map(|a| match a {
            AxisIndex::Iter(i) => AxisIndex::Iter(pos(*i)),
            AxisIndex::Affine(x) => AxisIndex::Affine(AffineIndex {
                over: x.over.map(|(i, c)| (pos(i), c)),
                kernel: x.kernel.map(|(i, c)| (pos(i), c)),
                offset: x.offset,
            }),
            other => other.clone(),
        })
        .collect()
}

fn i64s<'c>(ctx: &'c Context, v: &[usize]) -> Attribute<'c> {
    let v: Vec<i64> = v.iter().map(|&x| x as i64).collect();
    DenseI64ArrayAttribute::new(ctx, &v).into()
}

fn product_space<'c>(ctx: &'c Context, p: &Projections) -> Attribute<'c> {
    let space: Vec<i64> = p.product_space.iter().map(|&d| d as i64).collect();
    DenseI64ArrayAttribute::new(ctx, &space).into()
}

fn iterator_types<'c>(ctx: &'c Context, p: &Projections) -> Attribute<'c> {
    let reductions = p.reductions();
    let kinds: Vec<Attribute<'c>> = (0..p.product_space.len())
        .map(|i| {
            let k = if reductions.contains(&i) {
                "reduction"
            } else {
                "parallel"
            };
            StringAttribute::new(ctx, k).into()
        })
        .collect();
    ArrayAttribute::new(ctx, &kinds).into()
}

/// Sets the product space, iterator types and indexing maps on `op`.
pub(crate) fn attach_maps<'c>(ctx: &'c Context, op: OperationRef<'c, '_>, p: &Projections) {
    let dims = p.product_space.len();
    let maps: Vec<Attribute<'c>> = p
        .operands
        .iter()
        .chain(std::iter::once(&p.result))
        .map(|o| ir::affine_map_attr(index_map(ctx, dims, o)))
        .collect();
    ir::set_discardable_attribute(op, PRODUCT_SPACE, product_space(ctx, p));
    ir::set_discardable_attribute(op, ITERATOR_TYPES, iterator_types(ctx, p));
    ir::set_discardable_attribute(op, INDEXING_MAPS, ArrayAttribute::new(ctx, &maps).into());
}

/// Sets the attributes of an op with concatenated axes: product space,
/// iterator types, components, and per block its active iterators and maps.
pub(crate) fn attach_blocks<'c>(
    ctx: &'c Context,
    op: OperationRef<'c, '_>,
    p: &Projections,
    blocks: &[Block],
) {
    let components: Vec<Attribute<'c>> = p.components.iter().map(|c| i64s(ctx, c)).collect();
    let dicts: Vec<Attribute<'c>> = blocks
        .iter()
        .map(|b| {
            let n = b.iterators.len();
            let local = |indices: &[AxisIndex]| {
                ir::affine_map_attr(index_map(ctx, n, &block_local(indices, &b.iterators)))
            };
            let maps = [local(&b.indices), local(&b.result)];
            // An op has at most u32::MAX operands.
            let operand = i64::try_from(b.operand).unwrap_or(i64::MAX);
            DictionaryAttribute::new(
                ctx,
                &[
                    (Identifier::new(ctx, "iterators"), i64s(ctx, &b.iterators)),
                    (
                        Identifier::new(ctx, "operand"),
                        IntegerAttribute::new(IntegerType::new(ctx, 64).into(), operand).into(),
                    ),
                    (
                        Identifier::new(ctx, "maps"),
                        ArrayAttribute::new(ctx, &maps).into(),
                    ),
                ],
            )
            .into()
        })
        .collect();
    ir::set_discardable_attribute(op, PRODUCT_SPACE, product_space(ctx, p));
    ir::set_discardable_attribute(op, ITERATOR_TYPES, iterator_types(ctx, p));
    ir::set_discardable_attribute(op, COMPONENTS, ArrayAttribute::new(ctx, &components).into());
    ir::set_discardable_attribute(op, BLOCKS, ArrayAttribute::new(ctx, &dicts).into());
}

/// A concatenation's product space and blocks.
pub(crate) type SpaceBlocks = (Vec<u64>, Vec<Block>);

/// The projections `ocannl-infer-projections` attached to `op`, checked
/// against the memory-order dims of its operands and result; `Ok(None)`
/// when the op carries none.
///
/// # Errors
///
/// Malformed attributes, maps of other forms, maps whose ranks do not
/// match the tensors, and result indices that leave the result (operand
/// indices that leave their operand read padding, see the lowering).
pub(crate) fn read_projections(
    op: OperationRef<'_, '_>,
    operand_dims: &[Vec<u64>],
    result_dims: &[u64],
) -> Result<Option<Projections>, String> {
    let (Ok(space), Ok(maps)) = (op.attribute(PRODUCT_SPACE), op.attribute(INDEXING_MAPS)) else {
        return Ok(None);
    };
    let bad =
        |what: &str| format!("malformed {PRODUCT_SPACE} / {INDEXING_MAPS} attributes: {what}");
    let product_space = read_space(space).map_err(|m| bad(&m))?;
    let maps = ArrayAttribute::try_from(maps)
        .map_err(|_| bad(&format!("{INDEXING_MAPS} must be an array of affine maps")))?;
    if maps.len() != operand_dims.len() + 1 {
        return Err(bad(&format!(
            "{} maps for {} operands and a result",
            maps.len(),
            operand_dims.len()
        )));
    }
    let mut decoded = Vec::with_capacity(maps.len());
    let all: Vec<usize> = (0..product_space.len()).collect();
    // The maps are canonical; the dims and the indices returned follow the
    // operands' and the result's layouts (`crate::layout`).
    let layouts = operand_layouts(op, operand_dims, result_dims)?;
    for (k, dims) in operand_dims
        .iter()
        .map(Vec::as_slice)
        .chain([result_dims])
        .enumerate()
    {
        let what = if k == operand_dims.len() {
            "the result's map".to_owned()
        } else {
            format!("operand #{k}'s map")
        };
        let perm = layouts[k].as_deref();
        let canonical = perm.map_or_else(|| dims.to_vec(), |p| layout::unpermute(dims, p));
        let map = maps.element(k).ok().and_then(ir::affine_map_value);
        let indices =
            read_map(map, &all, &product_space, &canonical, &what).map_err(|m| bad(&m))?;
        let indices = match perm {
            Some(p) => layout::permute(&indices, p),
            None => indices,
        };
        let empty = product_space.contains(&0);
        if k == operand_dims.len() && !empty {
            // Stores must stay inside the result; reads outside an operand
            // read padding.
            check_inside(&indices, &product_space, dims, "the result's")?;
        }
        decoded.push(indices);
    }
    let result = decoded.pop().expect("one map per operand and the result");
    let components = (0..product_space.len()).map(|i| vec![i]).collect();
    Ok(Some(Projections {
        product_space,
        operands: decoded,
        result,
        components,
    }))
}

/// The layouts of `op`'s operands and result (`None`: canonical), the
/// operands' read from their producers.
fn operand_layouts(
    op: OperationRef<'_, '_>,
    operand_dims: &[Vec<u64>],
    result_dims: &[u64],
) -> Result<Vec<Option<Vec<usize>>>, String> {
    let mut out: Vec<Option<Vec<usize>>> = op
        .operands()
        .zip(operand_dims)
        .map(|(v, d)| layout::of_value(v, d.len()))
        .collect();
    out.resize(operand_dims.len(), None);
    out.push(layout::of_op(op, result_dims.len())?);
    Ok(out)
}

/// The product space and blocks `ocannl-infer-projections` attached to a
/// concatenation (`ocannl.blocks`), checked against the memory-order dims
/// of its operands and result: each block's iterators ascending and in the
/// product space, its operand one of the op's, its maps of the forms above
/// over its iterators, and every index inside its tensor (a block reads
/// and writes without guards). `Ok(None)` when the op carries none.
///
/// # Errors
///
/// Malformed attributes, and indices that leave their tensor.
pub(crate) fn read_blocks(
    op: OperationRef<'_, '_>,
    operand_dims: &[Vec<u64>],
    result_dims: &[u64],
) -> Result<Option<SpaceBlocks>, String> {
    let (Ok(space), Ok(blocks)) = (op.attribute(PRODUCT_SPACE), op.attribute(BLOCKS)) else {
        return Ok(None);
    };
    let bad = |what: &str| format!("malformed {PRODUCT_SPACE} / {BLOCKS} attributes: {what}");
    let space = read_space(space).map_err(|m| bad(&m))?;
    let blocks = ArrayAttribute::try_from(blocks)
        .map_err(|_| bad(&format!("{BLOCKS} must be an array of dictionaries")))?;
    let layouts = operand_layouts(op, operand_dims, result_dims)?;
    let mut out = Vec::with_capacity(blocks.len());
    for b in 0..blocks.len() {
        let what = format!("block #{b}");
        let dict = blocks
            .element(b)
            .ok()
            .and_then(|a| DictionaryAttribute::try_from(a).ok())
            .ok_or_else(|| bad(&format!("{what} is not a dictionary")))?;
        let field = |name: &str| {
            dict.element_by_name(name)
                .ok_or_else(|| bad(&format!("{what} has no '{name}'")))
        };
        let iterators = DenseI64ArrayAttribute::try_from(field("iterators")?)
            .map_err(|_| bad(&format!("{what}: 'iterators' must be an array<i64: ...>")))?;
        let iterators: Vec<usize> = (0..iterators.len())
            .map(|j| {
                iterators
                    .element(j)
                    .ok()
                    .and_then(|i| usize::try_from(i).ok())
            })
            .collect::<Option<_>>()
            .filter(|v: &Vec<usize>| {
                v.windows(2).all(|w| w[0] < w[1]) && v.iter().all(|&i| i < space.len())
            })
            .ok_or_else(|| {
                bad(&format!(
                    "{what}: 'iterators' must ascend and name iterators of the product space"
                ))
            })?;
        let operand = IntegerAttribute::try_from(field("operand")?)
            .ok()
            .and_then(|i| usize::try_from(i.value()).ok())
            .filter(|&k| k < operand_dims.len())
            .ok_or_else(|| {
                bad(&format!(
                    "{what}: 'operand' must be an integer naming one of the {} operands",
                    operand_dims.len()
                ))
            })?;
        let maps = ArrayAttribute::try_from(field("maps")?)
            .ok()
            .filter(|m| m.len() == 2)
            .ok_or_else(|| bad(&format!("{what}: 'maps' must be two affine maps")))?;
        let map = |j: usize| maps.element(j).ok().and_then(ir::affine_map_value);
        // Canonical maps, read against canonical dims, then laid out.
        let laid_out = |perm: Option<&[usize]>, dims: &[u64], j: usize, what: String| {
            let canonical = perm.map_or_else(|| dims.to_vec(), |p| layout::unpermute(dims, p));
            let indices =
                read_map(map(j), &iterators, &space, &canonical, &what).map_err(|m| bad(&m))?;
            Ok::<_, String>(match perm {
                Some(p) => layout::permute(&indices, p),
                None => indices,
            })
        };
        let indices = laid_out(
            layouts[operand].as_deref(),
            &operand_dims[operand],
            0,
            format!("{what}, operand #{operand}'s map"),
        )?;
        let result = laid_out(
            layouts[operand_dims.len()].as_deref(),
            result_dims,
            1,
            format!("{what}, the result's map"),
        )?;
        if !iterators.iter().any(|&i| space[i] == 0) {
            let reads = format!("{what}: operand #{operand}'s");
            check_inside(&indices, &space, &operand_dims[operand], &reads)?;
            check_inside(
                &result,
                &space,
                result_dims,
                &format!("{what}: the result's"),
            )?;
        }
        out.push(Block {
            iterators,
            operand,
            indices,
            result,
        });
    }
    Ok(Some((space, out)))
}

/// A product space attribute: sizes up to [`MAX_SIZE`].
fn read_space(space: Attribute<'_>) -> Result<Vec<u64>, String> {
    let space = DenseI64ArrayAttribute::try_from(space)
        .map_err(|_| format!("{PRODUCT_SPACE} must be an array<i64: ...>"))?;
    let mut product_space = Vec::with_capacity(space.len());
    for i in 0..space.len() {
        let size = space
            .element(i)
            .map_err(|_| "unreadable product space".to_owned())?;
        match u64::try_from(size) {
            Ok(s) if s <= MAX_SIZE => product_space.push(s),
            _ => return Err(format!("iterator {i} has size {size}")),
        }
    }
    Ok(product_space)
}

/// The indices of a tensor of `dims` that `map` (over `iterators`, in
/// order, of the product space `space`) gives, as indices over the whole
/// product space.
fn read_map(
    map: Option<AffineMap<'_>>,
    iterators: &[usize],
    space: &[u64],
    dims: &[u64],
    what: &str,
) -> Result<Vec<AxisIndex>, String> {
    let map = map.ok_or_else(|| format!("{what} is not an affine map"))?;
    if map.dim_count() != iterators.len() || map.symbol_count() != 0 {
        return Err(format!(
            "{what} has {} dims and {} symbols, but there are {} iterators",
            map.dim_count(),
            map.symbol_count(),
            iterators.len()
        ));
    }
    if map.result_count() != dims.len() {
        return Err(format!(
            "{what} has {} results but the tensor has {} axes",
            map.result_count(),
            dims.len()
        ));
    }
    let global = |(i, c): (usize, u64)| (iterators[i], c);
    let mut indices = Vec::with_capacity(dims.len());
    for j in 0..dims.len() {
        let e = map.result(j).map_err(|_| "unreadable map".to_owned())?;
        let index = decode_index(e).ok_or_else(|| {
            format!(
                "{what}, axis {j}: only iterators, constants and strided or convolution sums are lowered"
            )
        })?;
        let index = match index {
            AxisIndex::Iter(i) if i < iterators.len() => AxisIndex::Iter(iterators[i]),
            AxisIndex::Affine(x)
                if [x.over, x.kernel]
                    .iter()
                    .flatten()
                    .all(|(i, _)| *i < iterators.len()) =>
            {
                AxisIndex::Affine(AffineIndex {
                    over: x.over.map(global),
                    kernel: x.kernel.map(global),
                    offset: x.offset,
                })
            }
            AxisIndex::Fixed(f) => AxisIndex::Fixed(f),
            _ => return Err(format!("{what}, axis {j}: the index names no iterator")),
        };
        if index.checked_range(space).is_none() {
            return Err(format!(
                "{what}, axis {j}: the index range does not fit i64"
            ));
        }
        indices.push(index);
    }
    Ok(indices)
}

/// An error unless every index of `indices` stays inside its axis of
/// `dims` over the product space `space`.
fn check_inside(
    indices: &[AxisIndex],
    space: &[u64],
    dims: &[u64],
    whose: &str,
) -> Result<(), String> {
    for (j, (index, &size)) in indices.iter().zip(dims).enumerate() {
        let (lo, hi) = index.checked_range(space).unwrap_or((i64::MIN, i64::MAX));
        if lo < 0 || hi >= size as i64 {
            return Err(format!(
                "{INDEXING_MAPS} contradicts the types: {whose} axis {j} has size {size} but its index takes the values {lo}..={hi}"
            ));
        }
    }
    Ok(())
}
