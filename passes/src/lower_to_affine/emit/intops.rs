//! The scalar functions that take more than one `arith`/`math` op:
//! remainders and unsigned division that never trap, shifts by any amount,
//! the sign, and the inverse hyperbolic functions (no `math` op lowers them
//! to LLVM).

use melior::{
    dialect::{
        arith::{CmpfPredicate, CmpiPredicate, cmpf},
        ods,
    },
    ir::{Location, Operation, Type, Value, attribute::IntegerAttribute},
};

use super::{At, Emitter};
use crate::{
    buffers::{Scalar, scalar},
    compute::{BinaryFn, UnaryFn},
};

impl<'c> Emitter<'c> {
    /// Integer `DivU`, `Rem`, `RemU` and `Mod` (floored: the divisor's
    /// sign, as Python's `%`) that never trap: by 0 they give 0, and
    /// `MIN rem -1` is 0 (x86's `idiv` traps on both, so the divisor is made
    /// 1 there).
    pub(super) fn int_rem<'a>(
        &self,
        at: At<'c, 'a>,
        f: BinaryFn,
        elem: Type<'c>,
        x: Value<'c, 'a>,
        y: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let (ctx, put) = (self.ctx, |op: Operation<'c>| self.put_value(at, op));
        let c = |v: i64| self.constant(at, IntegerAttribute::new(elem, v).into(), loc);
        let (zero, one) = (c(0), c(1));
        let select = |cond, a, b| put(ods::arith::select(ctx, elem, cond, a, b, loc).into());
        let by_zero = self.compare(at, CmpiPredicate::Eq, y, zero, loc);
        let signed = matches!(f, BinaryFn::Rem | BinaryFn::Mod);
        let trap = if signed {
            // `MIN rem -1` traps too; its remainder is 0 as `x rem 1`.
            let minus_one = c(-1);
            let y_minus_one = self.compare(at, CmpiPredicate::Eq, y, minus_one, loc);
            put(ods::arith::ori(ctx, by_zero, y_minus_one, loc).into())
        } else {
            by_zero
        };
        let divisor = select(trap, one, y);
        let r = match f {
            BinaryFn::DivU => put(ods::arith::divui(ctx, x, divisor, loc).into()),
            BinaryFn::RemU => put(ods::arith::remui(ctx, x, divisor, loc).into()),
            _ => put(ods::arith::remsi(ctx, x, divisor, loc).into()),
        };
        let r = select(by_zero, zero, r);
        if f != BinaryFn::Mod {
            return r;
        }
        // Floored: a nonzero remainder whose sign differs from the
        // divisor's moves by the divisor.
        let nonzero = self.compare(at, CmpiPredicate::Ne, r, zero, loc);
        let signs = put(ods::arith::xori(ctx, r, y, loc).into());
        let differ = self.compare(at, CmpiPredicate::Slt, signs, zero, loc);
        let adjust = put(ods::arith::andi(ctx, nonzero, differ, loc).into());
        let moved = put(ods::arith::addi(ctx, r, y, loc).into());
        select(adjust, moved, r)
    }

    /// Float `Mod` (floored): `remf`, moved by the divisor where a nonzero
    /// remainder's sign differs from the divisor's.
    pub(super) fn float_mod<'a>(
        &self,
        at: At<'c, 'a>,
        elem: Type<'c>,
        x: Value<'c, 'a>,
        y: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let (ctx, put) = (self.ctx, |op: Operation<'c>| self.put_value(at, op));
        let zero = self.constant(at, self.scalar_attr(elem, 0.0), loc);
        let r = put(ods::arith::remf(ctx, x, y, loc).into());
        let cmp = |p, a, b| put(cmpf(ctx, p, a, b, loc));
        let nonzero = cmp(CmpfPredicate::One, r, zero);
        let r_neg = cmp(CmpfPredicate::Olt, r, zero);
        let y_neg = cmp(CmpfPredicate::Olt, y, zero);
        let differ = put(ods::arith::xori(ctx, r_neg, y_neg, loc).into());
        let adjust = put(ods::arith::andi(ctx, nonzero, differ, loc).into());
        let moved = put(ods::arith::addf(ctx, r, y, loc).into());
        put(ods::arith::select(ctx, elem, adjust, moved, r, loc).into())
    }

    /// `Shl`, `Shr` (arithmetic) and `ShrU` (logical) of a `width`-bit
    /// integer by any amount: from `width` bits on (or a negative amount),
    /// what shifting one bit at a time gives (0, or the sign for `Shr`),
    /// never LLVM's poison.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn shift<'a>(
        &self,
        at: At<'c, 'a>,
        f: BinaryFn,
        elem: Type<'c>,
        width: u32,
        x: Value<'c, 'a>,
        n: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let (ctx, put) = (self.ctx, |op: Operation<'c>| self.put_value(at, op));
        let c = |v: i64| self.constant(at, IntegerAttribute::new(elem, v).into(), loc);
        let last = c(i64::from(width) - 1);
        if f == BinaryFn::Shr {
            let amount = put(ods::arith::minui(ctx, n, last, loc).into());
            return put(ods::arith::shrsi(ctx, x, amount, loc).into());
        }
        let zero = c(0);
        let too_far = self.compare(at, CmpiPredicate::Ugt, n, last, loc);
        let select = |cond, a, b| put(ods::arith::select(ctx, elem, cond, a, b, loc).into());
        let amount = select(too_far, zero, n);
        let shifted = if f == BinaryFn::Shl {
            put(ods::arith::shli(ctx, x, amount, loc).into())
        } else {
            put(ods::arith::shrui(ctx, x, amount, loc).into())
        };
        select(too_far, zero, shifted)
    }

    /// The sign of `x`: -1, 0 or 1 (floats keep NaN and the sign of zero;
    /// `SignU`, of an unsigned integer, is 0 or 1).
    pub(super) fn sign<'a>(
        &self,
        at: At<'c, 'a>,
        f: UnaryFn,
        elem: Type<'c>,
        x: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let (ctx, put) = (self.ctx, |op: Operation<'c>| self.put_value(at, op));
        let c = |v: f64| self.constant(at, self.scalar_attr(elem, v), loc);
        let (zero, one) = (c(0.0), c(1.0));
        let select = |cond, a, b| put(ods::arith::select(ctx, elem, cond, a, b, loc).into());
        if f == UnaryFn::SignU {
            let nonzero = self.compare(at, CmpiPredicate::Ne, x, zero, loc);
            return select(nonzero, one, zero);
        }
        let minus_one = c(-1.0);
        let (positive, negative) = if scalar(elem) == Ok(Scalar::Float) {
            (
                put(cmpf(ctx, CmpfPredicate::Ogt, x, zero, loc)),
                put(cmpf(ctx, CmpfPredicate::Olt, x, zero, loc)),
            )
        } else {
            (
                self.compare(at, CmpiPredicate::Sgt, x, zero, loc),
                self.compare(at, CmpiPredicate::Slt, x, zero, loc),
            )
        };
        // Floats: NaN and ±0 stay themselves.
        let rest = if scalar(elem) == Ok(Scalar::Float) {
            x
        } else {
            zero
        };
        let r = select(negative, minus_one, rest);
        select(positive, one, r)
    }

    /// `asinh`, `acosh` and `atanh` of a float through `log1p`, `log` and
    /// `sqrt`: `asinh x = sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))`,
    /// `acosh x = log(x + sqrt(x^2 - 1))`,
    /// `atanh x = log1p(2x / (1 - x)) / 2`.
    pub(super) fn inverse_hyperbolic<'a>(
        &self,
        at: At<'c, 'a>,
        f: UnaryFn,
        elem: Type<'c>,
        x: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let (ctx, put) = (self.ctx, |op: Operation<'c>| self.put_value(at, op));
        let c = |v: f64| self.constant(at, self.scalar_attr(elem, v), loc);
        let one = c(1.0);
        let mul = |a, b| put(ods::arith::mulf(ctx, a, b, loc).into());
        let add = |a, b| put(ods::arith::addf(ctx, a, b, loc).into());
        let sub = |a, b| put(ods::arith::subf(ctx, a, b, loc).into());
        let div = |a, b| put(ods::arith::divf(ctx, a, b, loc).into());
        let sqrt = |a| put(ods::math::sqrt(ctx, a, loc).into());
        let log1p = |a| put(ods::math::log_1_p(ctx, a, loc).into());
        match f {
            UnaryFn::Asinh => {
                let a = put(ods::math::absf(ctx, x, loc).into());
                let a2 = mul(a, a);
                let root = sqrt(add(one, a2));
                let r = log1p(add(a, div(a2, add(one, root))));
                put(ods::math::copysign(ctx, r, x, loc).into())
            }
            UnaryFn::Acosh => {
                let root = sqrt(sub(mul(x, x), one));
                put(ods::math::log(ctx, add(x, root), loc).into())
            }
            _ => {
                let r = log1p(div(add(x, x), sub(one, x)));
                mul(r, c(0.5))
            }
        }
    }
}
