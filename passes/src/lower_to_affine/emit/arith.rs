//! Values at one cell as `arith`/`math` ops (scalars, or vectors lane by
//! lane): an op's scalar function ([`Compute`]), the binary functions of
//! the accumulation operators, and integer division and powers that never
//! trap.

use melior::{
    dialect::{
        arith::{CmpfPredicate, CmpiPredicate, cmpf, cmpi},
        ods,
    },
    ir::{Location, Operation, Type, Value, ValueLike, attribute::IntegerAttribute},
};

use super::{At, Emitter, int_bounds};
use crate::{
    buffers::{Scalar, scalar},
    compute::{BinaryFn, Compute, UnaryFn},
};

impl<'c> Emitter<'c> {
    /// The value of `compute` on `args` (one loaded cell per operand).
    pub(in crate::lower_to_affine) fn compute<'a>(
        &self,
        at: At<'c, 'a>,
        compute: &Compute,
        elem: Type<'c>,
        args: &[Value<'c, 'a>],
        loc: Location<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        match compute {
            Compute::Identity => Ok(args[0]),
            Compute::Unary(f) => self.unary(at, *f, elem, args[0], loc),
            Compute::Binary(f) => self.binary(at, *f, elem, args[0], args[1], loc),
            Compute::Fma => {
                let m = self.binary(at, BinaryFn::Mul, elem, args[0], args[1], loc)?;
                self.binary(at, BinaryFn::Add, elem, m, args[2], loc)
            }
            Compute::Cast {
                from_unsigned,
                to_unsigned,
            } => self.cast(at, args[0], elem, (*from_unsigned, *to_unsigned), loc),
            Compute::Compare(c, unsigned) => Ok(self.compare_cells(at, *c, *unsigned, args, loc)),
            Compute::Where => {
                let (cond, on_true, on_false) = (args[0], args[1], args[2]);
                let c = self.nonzero(at, cond, loc);
                let op = ods::arith::select(self.ctx, elem, c, on_true, on_false, loc);
                Ok(self.put_value(at, op))
            }
        }
    }

    /// `x != 0` (floats: unordered or not equal, so NaN is true).
    pub(super) fn nonzero<'a>(
        &self,
        at: At<'c, 'a>,
        x: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let zero = self.constant(at, self.scalar_attr(x.r#type(), 0.0), loc);
        let op = match scalar(x.r#type()) {
            Ok(Scalar::Float) => cmpf(self.ctx, CmpfPredicate::Une, x, zero, loc),
            _ => cmpi(self.ctx, CmpiPredicate::Ne, x, zero, loc),
        };
        self.put_value(at, op)
    }

    /// `arith.cmpi` of `x` and `y` (vectors lane by lane).
    pub(super) fn compare<'a>(
        &self,
        at: At<'c, 'a>,
        predicate: CmpiPredicate,
        x: Value<'c, 'a>,
        y: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        self.put_value(at, cmpi(self.ctx, predicate, x, y, loc))
    }

    /// The value of the unary function `f` on `x`. Exhaustive over
    /// [`UnaryFn`] and element kinds: `math`'s transcendental functions
    /// take floats only.
    pub(in crate::lower_to_affine) fn unary<'a>(
        &self,
        at: At<'c, 'a>,
        f: UnaryFn,
        elem: Type<'c>,
        x: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        use UnaryFn as U;
        let float = scalar(elem) == Ok(Scalar::Float);
        let ctx = self.ctx;
        let op: Operation<'c> = match (f, float) {
            (U::Neg, true) => ods::arith::negf(ctx, x, loc).into(),
            (U::Neg, false) => {
                let zero = self.constant(at, self.scalar_attr(elem, 0.0), loc);
                ods::arith::subi(ctx, zero, x, loc).into()
            }
            (U::Relu, _) => {
                let zero = self.constant(at, self.scalar_attr(elem, 0.0), loc);
                return self.binary(at, BinaryFn::Max, elem, x, zero, loc);
            }
            (U::Abs, true) => ods::math::absf(ctx, x, loc).into(),
            (U::Abs, false) => ods::math::absi(ctx, x, loc).into(),
            (U::Recip, _) => {
                let one = self.constant(at, self.scalar_attr(elem, 1.0), loc);
                return self.binary(at, BinaryFn::Div, elem, one, x, loc);
            }
            (U::Exp, true) => ods::math::exp(ctx, x, loc).into(),
            (U::Log, true) => ods::math::log(ctx, x, loc).into(),
            (U::Sqrt, true) => ods::math::sqrt(ctx, x, loc).into(),
            (U::Tanh, true) => ods::math::tanh(ctx, x, loc).into(),
            (U::Sin, true) => ods::math::sin(ctx, x, loc).into(),
            (U::Cos, true) => ods::math::cos(ctx, x, loc).into(),
            (U::Erf, true) => ods::math::erf(ctx, x, loc).into(),
            (U::Floor, true) => ods::math::floor(ctx, x, loc).into(),
            (U::Ceil, true) => ods::math::ceil(ctx, x, loc).into(),
            (U::Round, true) => ods::math::roundeven(ctx, x, loc).into(),
            (U::Tan, true) => ods::math::tan(ctx, x, loc).into(),
            (U::Atan, true) => ods::math::atan(ctx, x, loc).into(),
            (U::Asin, true) => ods::math::asin(ctx, x, loc).into(),
            (U::Acos, true) => ods::math::acos(ctx, x, loc).into(),
            (U::Sinh, true) => ods::math::sinh(ctx, x, loc).into(),
            (U::Cosh, true) => ods::math::cosh(ctx, x, loc).into(),
            (U::Asinh | U::Acosh | U::Atanh, true) => {
                return Ok(self.inverse_hyperbolic(at, f, elem, x, loc));
            }
            (U::Sign | U::SignU, _) => return Ok(self.sign(at, f, elem, x, loc)),
            (U::Not, false) => {
                let ones = self.constant(at, self.scalar_attr(elem, -1.0), loc);
                ods::arith::xori(ctx, x, ones, loc).into()
            }
            (
                U::Exp
                | U::Log
                | U::Sqrt
                | U::Tanh
                | U::Sin
                | U::Cos
                | U::Erf
                | U::Floor
                | U::Ceil
                | U::Round
                | U::Tan
                | U::Atan
                | U::Asin
                | U::Acos
                | U::Sinh
                | U::Cosh
                | U::Asinh
                | U::Acosh
                | U::Atanh,
                false,
            )
            | (U::Not, true) => {
                return Err(format!(
                    "'{}' is not lowered for element type {elem}",
                    f.name()
                ));
            }
        };
        Ok(self.put_value(at, op))
    }

    /// The value of the binary function `f` on `x` and `y`. Exhaustive
    /// over [`BinaryFn`] and element kinds.
    pub(in crate::lower_to_affine) fn binary<'a>(
        &self,
        at: At<'c, 'a>,
        f: BinaryFn,
        elem: Type<'c>,
        x: Value<'c, 'a>,
        y: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        use BinaryFn as B;
        let kind = scalar(elem)?;
        let ctx = self.ctx;
        let op: Operation<'c> = match (f, kind) {
            (B::Div, Scalar::Int(_)) => return Ok(self.int_div(at, elem, x, y, loc)),
            (B::Pow, Scalar::Int(w)) => return Ok(self.int_pow(at, elem, w, x, y, loc)),
            (B::Add, Scalar::Float) => ods::arith::addf(ctx, x, y, loc).into(),
            (B::Sub, Scalar::Float) => ods::arith::subf(ctx, x, y, loc).into(),
            (B::Mul, Scalar::Float) => ods::arith::mulf(ctx, x, y, loc).into(),
            (B::Div, Scalar::Float) => ods::arith::divf(ctx, x, y, loc).into(),
            (B::Max, Scalar::Float) => ods::arith::maximumf(ctx, x, y, loc).into(),
            (B::Min, Scalar::Float) => ods::arith::minimumf(ctx, x, y, loc).into(),
            (B::Pow, Scalar::Float) => ods::math::powf(ctx, x, y, loc).into(),
            (B::Add, Scalar::Int(_)) => ods::arith::addi(ctx, x, y, loc).into(),
            (B::Sub, Scalar::Int(_)) => ods::arith::subi(ctx, x, y, loc).into(),
            (B::Mul, Scalar::Int(_)) => ods::arith::muli(ctx, x, y, loc).into(),
            (B::Max, Scalar::Int(_)) => ods::arith::maxsi(ctx, x, y, loc).into(),
            (B::Min, Scalar::Int(_)) => ods::arith::minsi(ctx, x, y, loc).into(),
            (B::MaxU, Scalar::Int(_)) => ods::arith::maxui(ctx, x, y, loc).into(),
            (B::MinU, Scalar::Int(_)) => ods::arith::minui(ctx, x, y, loc).into(),
            (B::And, Scalar::Int(_)) => ods::arith::andi(ctx, x, y, loc).into(),
            (B::Or, Scalar::Int(_)) => ods::arith::ori(ctx, x, y, loc).into(),
            (B::Xor, Scalar::Int(_)) => ods::arith::xori(ctx, x, y, loc).into(),
            (B::Rem, Scalar::Float) => ods::arith::remf(ctx, x, y, loc).into(),
            (B::Mod, Scalar::Float) => return Ok(self.float_mod(at, elem, x, y, loc)),
            (B::DivU | B::Rem | B::RemU | B::Mod, Scalar::Int(_)) => {
                return Ok(self.int_rem(at, f, elem, x, y, loc));
            }
            (B::Shl | B::Shr | B::ShrU, Scalar::Int(w)) => {
                return Ok(self.shift(at, f, elem, w, x, y, loc));
            }
            (
                B::MaxU
                | B::MinU
                | B::And
                | B::Or
                | B::Xor
                | B::DivU
                | B::RemU
                | B::Shl
                | B::Shr
                | B::ShrU,
                Scalar::Float,
            ) => {
                let name = format!("{f:?}").to_lowercase();
                return Err(format!("'{name}' is not lowered for element type {elem}"));
            }
        };
        Ok(self.put_value(at, op))
    }

    /// `x` to the power `n` for integers of `width` bits, by squaring over
    /// the exponent's bits (straight-line: no loop, no library call). A
    /// negative exponent gives what `1 / x^-n` truncates to, as MLIR's
    /// `math.ipowi`: 1 for `x = 1`, ±1 for `x = -1` (by the parity of
    /// `n`), 0 otherwise (0 for `x = 0` too: no trap).
    fn int_pow<'a>(
        &self,
        at: At<'c, 'a>,
        elem: Type<'c>,
        width: u32,
        x: Value<'c, 'a>,
        n: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let (ctx, put) = (self.ctx, |op: Operation<'c>| self.put_value(at, op));
        let c = |v: i64| self.constant(at, IntegerAttribute::new(elem, v).into(), loc);
        let (zero, one, minus_one) = (c(0), c(1), c(-1));
        let select = |cond: Value<'c, 'a>, a: Value<'c, 'a>, b: Value<'c, 'a>| {
            put(ods::arith::select(ctx, elem, cond, a, b, loc).into())
        };
        let (mut result, mut base) = (one, x);
        // A non-negative exponent has its sign bit clear: width - 1 bits.
        for bit in 0..width.saturating_sub(1) {
            let shifted = put(ods::arith::shrui(ctx, n, c(i64::from(bit)), loc).into());
            let set = put(ods::arith::andi(ctx, shifted, one, loc).into());
            let is_set = self.compare(at, CmpiPredicate::Ne, set, zero, loc);
            let product = put(ods::arith::muli(ctx, result, base, loc).into());
            result = select(is_set, product, result);
            if bit + 2 < width {
                base = put(ods::arith::muli(ctx, base, base, loc).into());
            }
        }
        let negative = self.compare(at, CmpiPredicate::Slt, n, zero, loc);
        let low_bit = put(ods::arith::andi(ctx, n, one, loc).into());
        let odd = self.compare(at, CmpiPredicate::Ne, low_bit, zero, loc);
        let x_one = self.compare(at, CmpiPredicate::Eq, x, one, loc);
        let x_minus_one = self.compare(at, CmpiPredicate::Eq, x, minus_one, loc);
        let sign = select(odd, minus_one, one);
        let tail = select(x_minus_one, sign, zero);
        let reciprocal = select(x_one, one, tail);
        select(negative, reciprocal, result)
    }

    /// Integer division that never traps: `x / 0` is 0 (as in NumPy) and
    /// `MIN / -1` wraps to `MIN`; otherwise `arith.divsi` (truncating).
    /// x86's `idiv` raises SIGFPE on both, so the divisor is made 1 there
    /// and the result selected.
    pub(super) fn int_div<'a>(
        &self,
        at: At<'c, 'a>,
        elem: Type<'c>,
        x: Value<'c, 'a>,
        y: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let width = match scalar(elem) {
            Ok(Scalar::Int(w)) => w,
            _ => 64,
        };
        let c = |v: i64| self.constant(at, IntegerAttribute::new(elem, v).into(), loc);
        let (zero, one, minus_one, min) = (c(0), c(1), c(-1), c(int_bounds(width).0));
        let by_zero = self.compare(at, CmpiPredicate::Eq, y, zero, loc);
        let x_min = self.compare(at, CmpiPredicate::Eq, x, min, loc);
        let y_minus_one = self.compare(at, CmpiPredicate::Eq, y, minus_one, loc);
        let (ctx, put) = (self.ctx, |op: Operation<'c>| self.put_value(at, op));
        let overflow = put(ods::arith::andi(ctx, x_min, y_minus_one, loc).into());
        let trap = put(ods::arith::ori(ctx, by_zero, overflow, loc).into());
        let divisor = put(ods::arith::select(ctx, elem, trap, one, y, loc).into());
        let q = put(ods::arith::divsi(ctx, x, divisor, loc).into());
        put(ods::arith::select(ctx, elem, by_zero, zero, q, loc).into())
    }
}
