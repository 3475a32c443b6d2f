//! Conversions between element types (`ocannl.cast`, ONNX's Cast:
//! onnx.ai/onnx/operators/onnx__Cast.html) and comparisons with `i1`
//! results, as `arith` ops. No conversion traps or yields LLVM poison:
//! float-to-integer conversions saturate to 64 bits (NaN gives 0) and
//! narrower integers take the low bits, as NumPy's casts do on x86.

use melior::{
    dialect::{
        arith::{CmpfPredicate, CmpiPredicate, cmpf},
        ods,
    },
    ir::{
        Location, Operation, Type, Value, ValueLike,
        attribute::{FloatAttribute, IntegerAttribute},
    },
};
use ocannl_dialect::ir;

use super::{At, Emitter};
use crate::{
    buffers::{Scalar, scalar},
    compute::Cmp,
};

impl<'c> Emitter<'c> {
    /// `x` converted to `to`; `unsigned` says whether the source's and the
    /// target's integers are unsigned (`i1` converts as unsigned: true is
    /// 1).
    pub(in crate::lower_to_affine) fn cast<'a>(
        &self,
        at: At<'c, 'a>,
        x: Value<'c, 'a>,
        to: Type<'c>,
        unsigned: (bool, bool),
        loc: Location<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        let from = x.r#type();
        if from == to {
            return Ok(x);
        }
        let (ctx, put) = (self.ctx, |op: Operation<'c>| self.put_value(at, op));
        let bits = |t| ir::bit_width(t).unwrap_or(64);
        let (wf, wt) = (bits(from), bits(to));
        let from_unsigned = unsigned.0 || wf == 1;
        Ok(match (scalar(from)?, scalar(to)?) {
            (Scalar::Float, Scalar::Float) if wf < wt || (wf == wt && wf == 16) => {
                // f16 <-> bf16 through f32 (exact).
                let x = if wf == wt {
                    put(ods::arith::extf(ctx, self.float_type(32), x, loc).into())
                } else {
                    x
                };
                let op = if bits(x.r#type()) < wt {
                    ods::arith::extf(ctx, to, x, loc).into()
                } else {
                    ods::arith::truncf(ctx, to, x, loc).into()
                };
                put(op)
            }
            (Scalar::Float, Scalar::Float) => put(ods::arith::truncf(ctx, to, x, loc).into()),
            (Scalar::Float, Scalar::Int(1)) => self.nonzero(at, x, loc),
            (Scalar::Float, Scalar::Int(_)) => self.float_to_int(at, x, to, unsigned.1, loc),
            (Scalar::Int(_), Scalar::Float) if from_unsigned => {
                put(ods::arith::uitofp(ctx, to, x, loc).into())
            }
            (Scalar::Int(_), Scalar::Float) => put(ods::arith::sitofp(ctx, to, x, loc).into()),
            (Scalar::Int(_), Scalar::Int(1)) => self.nonzero(at, x, loc),
            (Scalar::Int(_), Scalar::Int(_)) if wf > wt => {
                put(ods::arith::trunci(ctx, to, x, loc).into())
            }
            (Scalar::Int(_), Scalar::Int(_)) if wf == wt => x,
            (Scalar::Int(_), Scalar::Int(_)) if from_unsigned => {
                put(ods::arith::extui(ctx, to, x, loc).into())
            }
            (Scalar::Int(_), Scalar::Int(_)) => put(ods::arith::extsi(ctx, to, x, loc).into()),
        })
    }

    /// The float type of `width` bits.
    fn float_type(&self, width: u32) -> Type<'c> {
        match width {
            16 => Type::float16(self.ctx),
            32 => Type::float32(self.ctx),
            _ => Type::float64(self.ctx),
        }
    }

    /// A float `x` as the integer type `to`, truncated toward zero: through
    /// 64 bits, saturating (NaN gives 0), then the low bits. A `u64` target
    /// converts values from 2^63 up unsigned.
    fn float_to_int<'a>(
        &self,
        at: At<'c, 'a>,
        x: Value<'c, 'a>,
        to: Type<'c>,
        unsigned: bool,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let (ctx, put) = (self.ctx, |op: Operation<'c>| self.put_value(at, op));
        let ft = x.r#type();
        let f = |v: f64| self.constant(at, FloatAttribute::new(ctx, ft, v).into(), loc);
        let i64t = self.int_type(64);
        let i = |v: i64| self.constant(at, IntegerAttribute::new(i64t, v).into(), loc);
        let cmp = |p, a, b| put(cmpf(ctx, p, a, b, loc));
        let select = |c, a, b, t| put(ods::arith::select(ctx, t, c, a, b, loc).into());
        // 2^63, exact in every float type of 32 bits or more.
        let two63 = 2f64.powi(63);
        let high = cmp(CmpfPredicate::Oge, x, f(two63));
        // (`<=`: in f16, -2^63 rounds to -inf.)
        let low = cmp(CmpfPredicate::Ole, x, f(-two63));
        let nan = cmp(CmpfPredicate::Uno, x, x);
        let out = put(ods::arith::ori(ctx, high, low, loc).into());
        let out = put(ods::arith::ori(ctx, out, nan, loc).into());
        let safe = select(out, f(0.0), x, ft);
        let v = put(ods::arith::fptosi(ctx, i64t, safe, loc).into());
        let v = select(high, i(i64::MAX), v, i64t);
        let mut v = select(low, i(i64::MIN), v, i64t);
        if unsigned && ir::bit_width(to) == Some(64) {
            // [2^63, 2^64) unsigned; from 2^64 all ones.
            let above = cmp(CmpfPredicate::Oge, x, f(2.0 * two63));
            let in_range = select(above, f(0.0), x, ft);
            let u = put(ods::arith::fptoui(ctx, i64t, in_range, loc).into());
            let u = select(above, i(-1), u, i64t);
            v = select(high, u, v, i64t);
        }
        if ir::bit_width(to) == Some(64) {
            v
        } else {
            put(ods::arith::trunci(ctx, to, v, loc).into())
        }
    }

    /// The comparison `c` of two cells (floats ordered but for `ne`;
    /// integers unsigned when `unsigned`, and `i1` always).
    pub(super) fn compare_cells<'a>(
        &self,
        at: At<'c, 'a>,
        c: Cmp,
        unsigned: bool,
        args: &[Value<'c, 'a>],
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let (x, y) = (args[0], args[1]);
        if scalar(x.r#type()) == Ok(Scalar::Float) {
            let p = match c {
                Cmp::Eq => CmpfPredicate::Oeq,
                Cmp::Ne => CmpfPredicate::Une,
                Cmp::Lt => CmpfPredicate::Olt,
                Cmp::Le => CmpfPredicate::Ole,
                Cmp::Gt => CmpfPredicate::Ogt,
                Cmp::Ge => CmpfPredicate::Oge,
            };
            return self.put_value(at, cmpf(self.ctx, p, x, y, loc));
        }
        let unsigned = unsigned || scalar(x.r#type()) == Ok(Scalar::Int(1));
        let p = match (c, unsigned) {
            (Cmp::Eq, _) => CmpiPredicate::Eq,
            (Cmp::Ne, _) => CmpiPredicate::Ne,
            (Cmp::Lt, false) => CmpiPredicate::Slt,
            (Cmp::Le, false) => CmpiPredicate::Sle,
            (Cmp::Gt, false) => CmpiPredicate::Sgt,
            (Cmp::Ge, false) => CmpiPredicate::Sge,
            (Cmp::Lt, true) => CmpiPredicate::Ult,
            (Cmp::Le, true) => CmpiPredicate::Ule,
            (Cmp::Gt, true) => CmpiPredicate::Ugt,
            (Cmp::Ge, true) => CmpiPredicate::Uge,
        };
        self.compare(at, p, x, y, loc)
    }
}
