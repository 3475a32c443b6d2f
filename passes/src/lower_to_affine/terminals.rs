//! Terminals: `ocannl.constant` (fill, splat, or a private constant
//! `memref.global`, read in place or copied, permuted to its layout), `ocannl.range` (each cell's linear index) and
//! `ocannl.reshape` (a copy in memory order).

use melior::{
    dialect::ods,
    ir::{
        AffineExpr, Attribute, Location, Type, TypeLike, Value, ValueLike,
        attribute::{
            FlatSymbolRefAttribute, FloatAttribute, IntegerAttribute, StringAttribute,
            TypeAttribute,
        },
        operation::{OperationLike, OperationRef},
        r#type::IntegerType,
    },
};
use ocannl_dialect::ir;
use ocannl_shape::projection::AxisIndex;

use super::{
    Module,
    emit::{At, Emitter},
};
use crate::{
    buffers::{Scalar, buffer_type, element_of, scalar},
    layout,
};

/// The largest finite value of a float type.
fn float_max(elem: Type<'_>) -> f64 {
    if elem.is_f16() {
        65504.0
    } else if elem.is_bf16() {
        3.389_531_389_251_535_5e38
    } else if elem.is_f32() {
        f64::from(f32::MAX)
    } else {
        f64::MAX
    }
}

/// The attribute of type `elem` for a scalar constant `value` (a float or
/// integer attribute), or why the value does not fit `elem`: integers take
/// integral values from the signed minimum to the unsigned maximum of their
/// width (`255 : i8` is the bit pattern of -1), floats any finite value up
/// to the type's largest, infinities and NaN.
fn scalar_constant<'c>(
    em: &Emitter<'c>,
    elem: Type<'c>,
    value: Attribute<'c>,
) -> Result<Attribute<'c>, String> {
    let (as_int, as_float) = (ir::integer_value(value), ir::float_value(value));
    if as_int.is_none() && as_float.is_none() {
        return Err(format!(
            "'value' {value} is not a scalar of at most 64 bits"
        ));
    }
    let misfit = || format!("'value' {value} does not fit the element type {elem}");
    match scalar(elem)? {
        Scalar::Float => {
            let v = as_float.unwrap_or_else(|| as_int.unwrap_or(0) as f64);
            if v.is_finite() && v.abs() > float_max(elem) {
                return Err(misfit());
            }
            Ok(FloatAttribute::new(em.ctx, elem, v).into())
        }
        Scalar::Int(width) => {
            let v: i128 = match (as_int, as_float) {
                (Some(i), _) => i128::from(i),
                (None, Some(f)) if f.is_finite() && f.fract() == 0.0 && f.abs() < 2f64.powi(64) => {
                    f as i128
                }
                _ => return Err(misfit()),
            };
            let (lo, hi) = (-(1i128 << (width - 1)), (1i128 << width) - 1);
            if v < lo || v > hi {
                return Err(misfit());
            }
            // The bit pattern of `v` in `width` bits, sign-extended to i64.
            let bits = v as i64;
            Ok(IntegerAttribute::new(elem, bits).into())
        }
    }
}

/// A constant's `value` attribute.
fn value_of<'c>(op: OperationRef<'c, '_>) -> Result<Attribute<'c>, String> {
    op.attribute("value")
        .map_err(|_| "requires attribute 'value'".to_owned())
}

impl<'c> Emitter<'c> {
    /// `ocannl.constant`: a scalar (or a splat) fills the buffer; dense
    /// data becomes a private constant `memref.global` copied into it.
    pub(super) fn lower_constant<'a>(
        &self,
        module: &mut Module<'c, 'a>,
        at: At<'c, 'a>,
        op: OperationRef<'c, 'a>,
        buf: Value<'c, 'a>,
        dims: &[u64],
    ) -> Result<(), String> {
        let loc = op.location();
        let elem = element_of(buf);
        let value = value_of(op)?;
        let elements = ir::elements(value);
        let scalar_value = match elements {
            None => Some(value),
            Some(e) => e.splat,
        };
        if let Some(v) = scalar_value {
            let attr = scalar_constant(self, elem, v)?;
            let c = self.constant(at, attr, loc);
            let (inner, ivs) = self.nest(at, dims, loc);
            self.store(inner, c, buf, self.identity(dims.len()), &ivs, loc);
            return Ok(());
        }
        let src = self.dense_global(module, at, op, buf.r#type(), dims)?;
        self.put(at, ods::memref::copy(self.ctx, src, buf, op.location()));
        Ok(())
    }

    /// The dense data of constant `op` as a private constant `memref.global`
    /// of type `mty` (memory dims `dims`, in the op's layout: the data is
    /// permuted here, at compile time), and its `memref.get_global` at
    /// `at`.
    pub(super) fn dense_global<'a>(
        &self,
        module: &mut Module<'c, 'a>,
        at: At<'c, 'a>,
        op: OperationRef<'c, 'a>,
        mty: Type<'c>,
        dims: &[u64],
    ) -> Result<Value<'c, 'a>, String> {
        let loc = op.location();
        let elem = ir::shaped_element(mty).expect("a memref");
        let value = value_of(op)?;
        let elements = ir::elements(value)
            .filter(|e| e.splat.is_none() && ir::is_dense_elements(value))
            .ok_or_else(|| "'value' must be a scalar or a dense elements attribute".to_owned())?;
        if ir::signless(elements.elem) != elem {
            return Err(format!(
                "'value' has element type {} but the result has {elem}",
                elements.elem
            ));
        }
        let shape: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let wrong_count = || {
            format!(
                "'value' has {} elements but the result has {}",
                elements.count,
                dims.iter().product::<u64>()
            )
        };
        let data = match layout::of_op(op, dims.len())? {
            None => ir::reshape_dense(value, &shape, elem).ok_or_else(wrong_count)?,
            Some(perm) => {
                let canonical = layout::unpermute(dims, &perm);
                let cell = ir::bit_width(elem).unwrap_or(0).div_ceil(8) as usize;
                if elements.count != dims.iter().product::<u64>() {
                    return Err(wrong_count());
                }
                let bytes = ir::dense_raw_bytes(value, cell).ok_or_else(|| {
                    format!(
                        "a constant of {elem} cells cannot take a {}",
                        layout::LAYOUT
                    )
                })?;
                let permuted = layout::permute_cells(&bytes, cell, &canonical, &perm);
                ir::dense_from_bytes(&shape, elem, &permuted).ok_or_else(wrong_count)?
            }
        };
        Ok(self.constant_global(module, at, ("__ocannl_constant", mty), data, loc))
    }

    /// A private constant `memref.global` of type `mty` holding `data`
    /// (64-byte aligned), named after `base` (a fresh symbol), and its
    /// `memref.get_global` at `at`.
    pub(super) fn constant_global<'a>(
        &self,
        module: &mut Module<'c, 'a>,
        at: At<'c, 'a>,
        (base, mty): (&str, Type<'c>),
        data: Attribute<'c>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let name = module.fresh_symbol(base);
        let global = ods::memref::GlobalOperation::builder(self.ctx, loc)
            .sym_name(StringAttribute::new(self.ctx, &name))
            .sym_visibility(StringAttribute::new(self.ctx, "private"))
            .r#type(TypeAttribute::new(mty))
            .initial_value(data)
            .constant(Attribute::unit(self.ctx))
            .alignment(IntegerAttribute::new(
                IntegerType::new(self.ctx, 64).into(),
                64,
            ))
            .build();
        module.insert(global.into());
        let symbol = FlatSymbolRefAttribute::new(self.ctx, &name);
        self.put_value(at, ods::memref::get_global(self.ctx, mty, symbol, loc))
    }

    /// The linear (row-major) index of a cell of `dims` as an affine expr.
    fn linear(&self, dims: &[u64]) -> AffineExpr<'c> {
        let mut e = AffineExpr::constant(self.ctx, 0);
        for (i, &d) in dims.iter().enumerate() {
            e = e * AffineExpr::constant(self.ctx, d as i64) + AffineExpr::dim(self.ctx, i);
        }
        e
    }

    /// `ocannl.range`: each cell holds its linear index.
    pub(super) fn lower_range<'a>(
        &self,
        at: At<'c, 'a>,
        buf: Value<'c, 'a>,
        dims: &[u64],
        loc: Location<'c>,
    ) -> Result<(), String> {
        let elem = element_of(buf);
        let (inner, ivs) = self.nest(at, dims, loc);
        let i = self.apply(inner, self.linear(dims), &ivs, loc);
        let cast = |ty| ods::arith::index_cast(self.ctx, ty, i, loc);
        let value = match scalar(elem)? {
            Scalar::Float => {
                let n = self.put_value(inner, cast(self.int_type(64)));
                self.put_value(inner, ods::arith::sitofp(self.ctx, elem, n, loc))
            }
            Scalar::Int(_) => self.put_value(inner, cast(elem)),
        };
        let identity: Vec<AxisIndex> = (0..dims.len()).map(AxisIndex::Iter).collect();
        self.store(
            inner,
            value,
            buf,
            self.map(dims.len(), &identity),
            &ivs,
            loc,
        );
        Ok(())
    }

    /// `ocannl.reshape`: a copy in memory order through a delinearising map.
    pub(super) fn lower_reshape<'a>(
        &self,
        at: At<'c, 'a>,
        op: OperationRef<'c, 'a>,
        src: Value<'c, 'a>,
        buf: Value<'c, 'a>,
        dims: &[u64],
    ) -> Result<(), String> {
        let loc = op.location();
        let operand = op.operand(0).map_err(|_| "missing operand".to_owned())?;
        let (_, src_dims, _) = buffer_type(operand.r#type(), "operand")?;
        let (a, b) = (
            src_dims.iter().product::<u64>(),
            dims.iter().product::<u64>(),
        );
        if a != b {
            return Err(format!("operand has {a} elements but the result has {b}"));
        }
        let (inner, ivs) = self.nest(at, dims, loc);
        let lin = self.linear(dims);
        let mut stride = 1u64;
        let mut exprs = Vec::with_capacity(src_dims.len());
        for &d in src_dims.iter().rev() {
            let q = AffineExpr::floor_div(lin, AffineExpr::constant(self.ctx, stride as i64));
            exprs.push(AffineExpr::modulo(
                q,
                AffineExpr::constant(self.ctx, d.max(1) as i64),
            ));
            stride = stride.saturating_mul(d.max(1));
        }
        exprs.reverse();
        let v = self.load(inner, src, self.map_of(dims.len(), &exprs), &ivs, loc);
        self.store(inner, v, buf, self.identity(dims.len()), &ivs, loc);
        Ok(())
    }
}
