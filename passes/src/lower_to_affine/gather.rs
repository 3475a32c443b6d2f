//! `ocannl.gather`: a nest over the result; each cell reads the data
//! operand at the result's iterators and, on the gathered axis (the one
//! iterator of the projections the result does not have), at the integer
//! the indices operand holds there (`memref.load`: the index is data, not
//! an affine function of the loops). ONNX Gather's semantics
//! (onnx.ai/onnx/operators/onnx__Gather.html): a negative index counts
//! from the end; one still out of range gives 0 instead of reading out of
//! bounds.

use melior::{
    dialect::{
        arith::{CmpiPredicate, cmpi},
        ods,
    },
    ir::{
        AffineExpr, Type, Value,
        attribute::IntegerAttribute,
        operation::{OperationLike, OperationRef},
    },
};
use ocannl_shape::projection::{AxisIndex, Projections};

use super::{
    emit::{At, Emitter},
    projections::op_projections,
};
use crate::buffers::{Scalar, buffer_dims, element_of, scalar};

/// Where the gathered axis is, and each operand's axes as result axes.
struct Layout {
    /// The data axis the indices select.
    gathered: usize,
    /// The data's axes over the result's (the gathered one unused).
    data: Vec<AxisIndex>,
    /// The indices' axes over the result's.
    indices: Vec<AxisIndex>,
}

/// The projections of a gather as indices over the result's axes: the
/// result must be a plain box of iterators; exactly one iterator, read
/// by the data alone at one axis, is missing from it.
fn layout(p: &Projections, data_dims: &[u64]) -> Result<Layout, String> {
    let reductions = p.reductions();
    let v = match reductions.as_slice() {
        [v] => Some(*v),
        // A gathered axis of size 1 has no iterator (its index is fixed
        // at 0): any data axis of size 1 read at 0 reads the same cell and
        // bounds the index the same way.
        [] => None,
        _ => {
            return Err(format!(
                "its spec must leave exactly one data axis out of the result (the gathered axis); it leaves {}",
                reductions.len()
            ));
        }
    };
    let at_result = |it: usize| p.result.iter().position(|a| *a == AxisIndex::Iter(it));
    let remap = |axes: &[AxisIndex], what: &str| -> Result<Vec<AxisIndex>, String> {
        axes.iter()
            .map(|a| match a {
                AxisIndex::Iter(it) if Some(*it) == v => Ok(AxisIndex::Fixed(0)),
                AxisIndex::Iter(it) => at_result(*it).map(AxisIndex::Iter).ok_or_else(|| {
                    format!("the {what} reads an iterator the result does not have")
                }),
                AxisIndex::Fixed(c) => Ok(AxisIndex::Fixed(*c)),
                _ => Err(format!(
                    "the {what}'s strided, convolution or concatenated axes are not lowered"
                )),
            })
            .collect()
    };
    if p.result
        .iter()
        .any(|a| !matches!(a, AxisIndex::Iter(_) | AxisIndex::Fixed(0)))
    {
        return Err("the result's axes must be plain labels".into());
    }
    let (Some(data), Some(indices)) = (p.operands.first(), p.operands.get(1)) else {
        return Err("it needs a data and an indices operand".into());
    };
    let gathered: Vec<usize> = match v {
        Some(v) => (0..data.len())
            .filter(|&k| data[k] == AxisIndex::Iter(v))
            .collect(),
        None => (0..data.len())
            .filter(|&k| data[k] == AxisIndex::Fixed(0) && data_dims.get(k) == Some(&1))
            .take(1)
            .collect(),
    };
    if gathered.len() != 1 || v.is_some_and(|v| indices.contains(&AxisIndex::Iter(v))) {
        return Err(
            "the gathered label must be one axis of the data, and not of the indices".into(),
        );
    }
    Ok(Layout {
        gathered: gathered[0],
        data: remap(data, "data")?,
        indices: remap(indices, "indices")?,
    })
}

impl<'c> Emitter<'c> {
    /// `ocannl.gather` into `buf` (dims `dims`) from `operands` = (data,
    /// indices).
    pub(super) fn lower_gather<'a>(
        &self,
        at: At<'c, 'a>,
        op: OperationRef<'c, 'a>,
        operands: &[Value<'c, 'a>],
        buf: Value<'c, 'a>,
        dims: &[u64],
    ) -> Result<(), String> {
        let loc = op.location();
        let p = op_projections(op, operands, dims)?;
        let lay = layout(&p, &buffer_dims(operands[0]))?;
        let (data, indices) = (operands[0], operands[1]);
        let elem = element_of(buf);
        if element_of(data) != elem {
            return Err(format!(
                "the data has element type {} but the result has {elem}",
                element_of(data)
            ));
        }
        let index_elem = element_of(indices);
        if !matches!(scalar(index_elem), Ok(Scalar::Int(_))) {
            return Err(format!("the indices must be integers, not {index_elem}"));
        }
        let n = buffer_dims(data)[lay.gathered] as i64;
        let (inner, ivs) = self.nest(at, dims, loc);
        let raw = self.load(
            inner,
            indices,
            self.map(dims.len(), &lay.indices),
            &ivs,
            loc,
        );
        let ctx = self.ctx;
        let put = |op| self.put_value(inner, op);
        let c = |v: i64| self.constant(inner, IntegerAttribute::new(index_elem, v).into(), loc);
        let (zero, size) = (c(0), c(n));
        // A negative index counts from the end.
        let negative = put(cmpi(ctx, CmpiPredicate::Slt, raw, zero, loc));
        let shifted = put(ods::arith::addi(ctx, raw, size, loc).into());
        let k = put(ods::arith::select(ctx, index_elem, negative, shifted, raw, loc).into());
        let low = put(cmpi(ctx, CmpiPredicate::Sge, k, zero, loc));
        let high = put(cmpi(ctx, CmpiPredicate::Slt, k, size, loc));
        let inside = put(ods::arith::andi(ctx, low, high, loc).into());
        let safe = put(ods::arith::select(ctx, index_elem, inside, k, zero, loc).into());
        let at_axis = put(ods::arith::index_cast(ctx, Type::index(ctx), safe, loc).into());
        let mut coords = Vec::with_capacity(lay.data.len());
        for (axis, a) in lay.data.iter().enumerate() {
            coords.push(match a {
                _ if axis == lay.gathered => at_axis,
                AxisIndex::Iter(k) => ivs[*k],
                AxisIndex::Fixed(c) => {
                    self.apply(inner, AffineExpr::constant(ctx, *c as i64), &[], loc)
                }
                _ => unreachable!("layout keeps plain and fixed axes"),
            });
        }
        let value = put(ods::memref::load(ctx, elem, data, &coords, loc).into());
        let zero_value = self.constant(inner, self.scalar_attr(elem, 0.0), loc);
        let out = put(ods::arith::select(ctx, elem, inside, value, zero_value, loc).into());
        self.store(inner, out, buf, self.identity(dims.len()), &ivs, loc);
        Ok(())
    }
}
