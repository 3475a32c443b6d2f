//! Values at one cell as `arith`/`math` ops (scalars, or vectors lane by
//! lane): an op's scalar function ([`Compute`]), the binary functions of
//! the accumulation operators, and integer division and powers that never
//! trap.

use melior::ir::{Location, Type, Value, ValueLike, attribute::IntegerAttribute};
use ocannl_dialect::ir;

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
            Compute::Where => {
                let (cond, on_true, on_false) = (args[0], args[1], args[2]);
                let c = self.nonzero(at, cond, loc);
                Ok(self.value(at, "arith.select", &[c, on_true, on_false], elem, &[], loc))
            }
        }
    }

    /// `x != 0` (floats: unordered or not equal, so NaN is true).
    fn nonzero<'a>(&self, at: At<'c, 'a>, x: Value<'c, 'a>, loc: Location<'c>) -> Value<'c, 'a> {
        let ty = x.r#type();
        let zero = self.constant(at, self.scalar_attr(ty, 0.0), loc);
        // `une` (unordered or not equal) = 13, `ne` = 1.
        let (cmp, pred) = match scalar(ty) {
            Ok(Scalar::Float) => ("arith.cmpf", 13),
            _ => ("arith.cmpi", 1),
        };
        self.compare(at, cmp, pred, x, zero, loc)
    }

    fn compare<'a>(
        &self,
        at: At<'c, 'a>,
        cmp: &str,
        predicate: i64,
        x: Value<'c, 'a>,
        y: Value<'c, 'a>,
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let pred = IntegerAttribute::new(self.int_type(64), predicate).into();
        // Vectors compare lane by lane.
        let boolean = match ir::shaped_dims(x.r#type()) {
            Some(dims) => {
                let width = dims.first().copied().flatten().unwrap_or(1);
                self.vector_type(self.int_type(1), width as u64)
            }
            None => self.int_type(1),
        };
        self.value(at, cmp, &[x, y], boolean, &[("predicate", pred)], loc)
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
        let math = |name: &str| self.value(at, name, &[x], elem, &[], loc);
        Ok(match (f, float) {
            (U::Neg, true) => math("arith.negf"),
            (U::Neg, false) => {
                let zero = self.constant(at, self.scalar_attr(elem, 0.0), loc);
                self.value(at, "arith.subi", &[zero, x], elem, &[], loc)
            }
            (U::Relu, _) => {
                let zero = self.constant(at, self.scalar_attr(elem, 0.0), loc);
                self.binary(at, BinaryFn::Max, elem, x, zero, loc)?
            }
            (U::Abs, true) => math("math.absf"),
            (U::Abs, false) => math("math.absi"),
            (U::Recip, _) => {
                let one = self.constant(at, self.scalar_attr(elem, 1.0), loc);
                self.binary(at, BinaryFn::Div, elem, one, x, loc)?
            }
            (U::Exp, true) => math("math.exp"),
            (U::Log, true) => math("math.log"),
            (U::Sqrt, true) => math("math.sqrt"),
            (U::Tanh, true) => math("math.tanh"),
            (U::Sin, true) => math("math.sin"),
            (U::Cos, true) => math("math.cos"),
            (U::Erf, true) => math("math.erf"),
            (U::Exp | U::Log | U::Sqrt | U::Tanh | U::Sin | U::Cos | U::Erf, false) => {
                return Err(format!(
                    "'{}' is not lowered for element type {elem}",
                    f.name()
                ));
            }
        })
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
        let name = match (f, kind) {
            (B::Div, Scalar::Int(_)) => return Ok(self.int_div(at, elem, x, y, loc)),
            (B::Pow, Scalar::Int(w)) => return Ok(self.int_pow(at, elem, w, x, y, loc)),
            (B::Add, Scalar::Float) => "arith.addf",
            (B::Sub, Scalar::Float) => "arith.subf",
            (B::Mul, Scalar::Float) => "arith.mulf",
            (B::Div, Scalar::Float) => "arith.divf",
            (B::Max, Scalar::Float) => "arith.maximumf",
            (B::Min, Scalar::Float) => "arith.minimumf",
            (B::Pow, Scalar::Float) => "math.powf",
            (B::Add, Scalar::Int(_)) => "arith.addi",
            (B::Sub, Scalar::Int(_)) => "arith.subi",
            (B::Mul, Scalar::Int(_)) => "arith.muli",
            (B::Max, Scalar::Int(_)) => "arith.maxsi",
            (B::Min, Scalar::Int(_)) => "arith.minsi",
        };
        Ok(self.value(at, name, &[x, y], elem, &[], loc))
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
        let c = |v: i64| self.constant(at, IntegerAttribute::new(elem, v).into(), loc);
        let (zero, one, minus_one) = (c(0), c(1), c(-1));
        let op = |name: &str, a: Value<'c, 'a>, b: Value<'c, 'a>| {
            self.value(at, name, &[a, b], elem, &[], loc)
        };
        let select = |cond: Value<'c, 'a>, a: Value<'c, 'a>, b: Value<'c, 'a>| {
            self.value(at, "arith.select", &[cond, a, b], elem, &[], loc)
        };
        let (mut result, mut base) = (one, x);
        // A non-negative exponent has its sign bit clear: width - 1 bits.
        for bit in 0..width.saturating_sub(1) {
            let shifted = op("arith.shrui", n, c(i64::from(bit)));
            let set = op("arith.andi", shifted, one);
            // `ne` = 1.
            let is_set = self.compare(at, "arith.cmpi", 1, set, zero, loc);
            let product = op("arith.muli", result, base);
            result = select(is_set, product, result);
            if bit + 2 < width {
                base = op("arith.muli", base, base);
            }
        }
        // `slt` = 2, `eq` = 0.
        let negative = self.compare(at, "arith.cmpi", 2, n, zero, loc);
        let odd = self.compare(at, "arith.cmpi", 1, op("arith.andi", n, one), zero, loc);
        let x_one = self.compare(at, "arith.cmpi", 0, x, one, loc);
        let x_minus_one = self.compare(at, "arith.cmpi", 0, x, minus_one, loc);
        let sign = select(odd, minus_one, one);
        let tail = select(x_minus_one, sign, zero);
        let reciprocal = select(x_one, one, tail);
        select(negative, reciprocal, result)
    }

    /// Integer division that never traps: `x / 0` is 0 (as in NumPy) and
    /// `MIN / -1` wraps to `MIN`; otherwise `arith.divsi` (truncating).
    /// x86's `idiv` raises SIGFPE on both, so the divisor is made 1 there
    /// and the result selected.
    fn int_div<'a>(
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
        // `eq` = 0.
        let by_zero = self.compare(at, "arith.cmpi", 0, y, zero, loc);
        let x_min = self.compare(at, "arith.cmpi", 0, x, min, loc);
        let y_minus_one = self.compare(at, "arith.cmpi", 0, y, minus_one, loc);
        let i1 = self.int_type(1);
        let overflow = self.value(at, "arith.andi", &[x_min, y_minus_one], i1, &[], loc);
        let trap = self.value(at, "arith.ori", &[by_zero, overflow], i1, &[], loc);
        let divisor = self.value(at, "arith.select", &[trap, one, y], elem, &[], loc);
        let q = self.value(at, "arith.divsi", &[x, divisor], elem, &[], loc);
        self.value(at, "arith.select", &[by_zero, zero, q], elem, &[], loc)
    }
}
