//! Nodes over element types other than f32, each chain starting from and
//! returning to an f32 value: comparisons and logic (`Equal`, `Less`,
//! `LessOrEqual`, `Greater`, `GreaterOrEqual`, `Not`, `And`, `Or`, `Xor`)
//! feeding `Where` or a cast, `IsNaN` and `IsInf`, `Mod` (fmod on floats,
//! both modes on integers), `Floor`/`Ceil`/`Round`/`Sign`, `BitShift` and
//! `Bitwise*` over bool, i8, i16, i32, i64 and u8..u64, `Cast` and
//! `CastLike` round trips through f64 and the integer types.
//!
//! Discontinuous ops take exact values (`pick_exact`) so that a rounding
//! difference upstream cannot flip their result.

use ocannl_onnx::proto::tensor_proto::DataType;

use super::extra::{BOOL, FLOAT, INT64};
use super::{Builder, MAX_CELLS, attr_i, attr_s, broadcast, cells};

/// The integer element types and whether each is signed.
const INTS: &[(DataType, bool)] = &[
    (DataType::Int8, true),
    (DataType::Int16, true),
    (DataType::Int32, true),
    (DataType::Int64, true),
    (DataType::Uint8, false),
    (DataType::Uint16, false),
    (DataType::Uint32, false),
    (DataType::Uint64, false),
];

impl Builder<'_> {
    /// A comparison (maybe combined with another by a logic op, maybe
    /// negated) selecting between two values with `Where`, or cast back
    /// to f32.
    pub(super) fn compare(&mut self) -> bool {
        let Some(x) = self.pick_exact(|_| true) else {
            return false;
        };
        let mut b = self.comparison(&x.name, &x.shape);
        let mut shape = b.1.clone();
        if self.rng.chance(0.4) {
            let c = self.comparison(&x.name, &x.shape);
            let Some(s) = broadcast(&shape, &c.1) else {
                return false;
            };
            shape = s;
            let op = *self.rng.pick(&["And", "Or", "Xor"]);
            b.0 = self.aux(op, vec![b.0, c.0], vec![]);
        }
        if self.rng.chance(0.3) {
            b.0 = self.aux("Not", vec![b.0], vec![]);
        }
        match self.rng.index(3) {
            0 => {
                let y = self.pick(|s| broadcast(s, &shape).is_some_and(|o| cells(&o) <= MAX_CELLS));
                let y = y.map(|v| (v.name, v.shape)).unwrap_or_else(|| {
                    let s = self.suffix_shape(&x.shape);
                    (self.init_f32(&s, -2.0, 2.0), s)
                });
                let (a, z) = if self.rng.chance(0.5) {
                    (x.name.clone(), y.0)
                } else {
                    (y.0, x.name.clone())
                };
                let Some(o) = broadcast(&shape, &y.1) else {
                    return false;
                };
                self.node1("Where", vec![b.0, a, z], vec![], o);
            }
            1 if self.opset >= 15 => {
                let out = self.node1("CastLike", vec![b.0, x.name], vec![], shape);
                self.mark_exact(&out);
            }
            _ => self.cast_out(b.0, shape),
        }
        true
    }

    /// `Cast` of `x` to f32 as a new exact value.
    fn cast_out(&mut self, x: String, shape: Vec<i64>) {
        let out = self.node1("Cast", vec![x], vec![attr_i("to", FLOAT as i64)], shape);
        self.mark_exact(&out);
    }

    /// A comparison of `x` with a constant (or of `Floor(x)` with an
    /// integer constant for `Equal`): the bool output and its shape.
    fn comparison(&mut self, x: &str, shape: &[i64]) -> (String, Vec<i64>) {
        let op = *self
            .rng
            .pick(&["Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"]);
        let s = self.suffix_shape(shape);
        let (lhs, rhs) = if op == "Equal" {
            let f = self.aux("Floor", vec![x.to_string()], vec![]);
            let data: Vec<f32> = self
                .ints(cells(&s), -2, 1)
                .iter()
                .map(|&v| v as f32)
                .collect();
            let name = self.fresh("w");
            self.inits
                .push(super::f32_tensor(&name, &s, data, self.rng.chance(0.3)));
            (f, name)
        } else {
            (x.to_string(), self.init_f32(&s, -2.0, 2.0))
        };
        let ins = if self.rng.chance(0.3) {
            vec![rhs, lhs]
        } else {
            vec![lhs, rhs]
        };
        let out = broadcast(shape, &s).expect("a suffix broadcasts");
        (self.aux(op, ins, vec![]), out)
    }

    /// `IsNaN` or `IsInf` of a value made special by `Log` or
    /// `Reciprocal`, cast back or replacing the special cells with `Where`.
    pub(super) fn is_special(&mut self) -> bool {
        let Some(x) = self.pick_exact(|_| true) else {
            return false;
        };
        let f = if self.rng.chance(0.5) {
            "Log"
        } else {
            "Reciprocal"
        };
        let y = self.aux(f, vec![x.name.clone()], vec![]);
        let (op, mut attrs) = if self.rng.chance(0.4) {
            ("IsNaN", vec![])
        } else {
            ("IsInf", vec![])
        };
        if op == "IsInf" {
            for a in ["detect_positive", "detect_negative"] {
                if self.rng.chance(0.3) {
                    attrs.push(attr_i(a, self.rng.index(2) as i64));
                }
            }
        }
        let b = self.aux(op, vec![y.clone()], attrs);
        if self.rng.chance(0.5) {
            self.cast_out(b, x.shape);
        } else {
            let zero = self.init_f32(&[], 0.0, 0.0);
            self.node1("Where", vec![b, zero, y], vec![], x.shape);
        }
        true
    }

    /// `Mod`: fmod of floats, or either mode of integers.
    pub(super) fn modulo(&mut self) -> bool {
        let Some(x) = self.pick_exact(|_| true) else {
            return false;
        };
        let s = self.suffix_shape(&x.shape);
        let n = cells(&s);
        let divisor: Vec<i64> = self
            .ints(n, 1, 5)
            .into_iter()
            .map(|v| if self.rng.chance(0.3) { -v } else { v })
            .collect();
        if self.rng.chance(0.4) {
            let data: Vec<f32> = divisor.iter().map(|&v| v as f32 * 0.375).collect();
            let name = self.fresh("w");
            self.inits.push(super::f32_tensor(&name, &s, data, false));
            self.node1("Mod", vec![x.name, name], vec![attr_i("fmod", 1)], x.shape);
            return true;
        }
        let (elem, signed) = *self.rng.pick(&[INTS[2], INTS[3], INTS[0]]);
        let xi = self.int_of(&x.name, elem as i32, signed, 16.0);
        let d = self.init_int(&s, elem as i32, &divisor);
        let mut attrs = vec![];
        if self.rng.chance(0.5) {
            attrs.push(attr_i("fmod", self.rng.index(2) as i64));
        }
        let m = self.aux("Mod", vec![xi, d], attrs);
        self.cast_out(m, x.shape);
        true
    }

    /// `x * scale` cast to an integer type (made non-negative first for
    /// the unsigned ones).
    fn int_of(&mut self, x: &str, elem: i32, signed: bool, scale: f32) -> String {
        let k = self.fresh("s");
        self.inits
            .push(super::f32_tensor(&k, &[], vec![scale], false));
        // Clipped first: exact values can be huge (a u64 BitwiseNot), and
        // a float out of the integer type's range casts unspecified.
        let lo = self.init_f32(&[], -4.0, -4.0);
        let hi = self.init_f32(&[], 4.0, 4.0);
        let c = self.aux("Clip", vec![x.to_string(), lo, hi], vec![]);
        let mut v = self.aux("Mul", vec![c, k], vec![]);
        if !signed {
            v = self.aux("Abs", vec![v], vec![]);
        }
        self.cast(v, elem)
    }

    /// `Floor`, `Ceil`, `Round` (half to even) or `Sign` of an exact value
    /// scaled so that halves occur.
    pub(super) fn rounding(&mut self) -> bool {
        let Some(x) = self.pick_exact(|_| true) else {
            return false;
        };
        let op = *self.rng.pick(&["Floor", "Ceil", "Round", "Sign"]);
        let input = if self.rng.chance(0.6) {
            let scale = *self.rng.pick(&[2.0f32, 4.0, 8.0]);
            let k = self.fresh("s");
            self.inits
                .push(super::f32_tensor(&k, &[], vec![scale], false));
            self.aux("Mul", vec![x.name, k], vec![])
        } else {
            x.name
        };
        let out = self.node1(op, vec![input], vec![], x.shape);
        self.mark_exact(&out);
        true
    }

    /// `BitShift` (unsigned) or `Bitwise*` (opset 18) over an integer
    /// type, or logic over bool, between `x` cast and a constant.
    pub(super) fn bitwise(&mut self) -> bool {
        let Some(x) = self.pick_exact(|_| true) else {
            return false;
        };
        let s = self.suffix_shape(&x.shape);
        let n = cells(&s);
        let (elem, signed) = *self.rng.pick(INTS);
        let elem = elem as i32;
        let shift = !signed && (self.opset < 18 || self.rng.chance(0.4));
        let result = if shift {
            let xi = self.int_of(&x.name, elem, false, 8.0);
            let amounts = self.ints(n, 0, 3);
            let k = self.init_int(&s, elem, &amounts);
            let dir = if self.rng.chance(0.5) {
                "LEFT"
            } else {
                "RIGHT"
            };
            self.aux("BitShift", vec![xi, k], vec![attr_s("direction", dir)])
        } else if self.opset >= 18 {
            let xi = self.int_of(&x.name, elem, signed, 16.0);
            let op = *self
                .rng
                .pick(&["BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot"]);
            if op == "BitwiseNot" {
                self.aux(op, vec![xi], vec![])
            } else {
                let lo = if signed { -40 } else { 0 };
                let data = self.ints(n, lo, 40);
                let k = self.init_int(&s, elem, &data);
                self.aux(op, vec![xi, k], vec![])
            }
        } else {
            let xb = self.cast(x.name.clone(), BOOL);
            let data = self.ints(n, 0, 1);
            let k = self.init_int(&s, BOOL, &data);
            let op = *self.rng.pick(&["And", "Or", "Xor"]);
            self.aux(op, vec![xb, k], vec![])
        };
        let shape = broadcast(&x.shape, &s).expect("a suffix broadcasts");
        self.cast_out(result, shape);
        true
    }

    /// A round trip through another element type: f64 (with an op on the
    /// way), an integer type, bool, or `CastLike` of an int64 constant.
    pub(super) fn cast_round_trip(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        match self.rng.index(4) {
            0 => {
                let d = self.cast(x.name.clone(), DataType::Double as i32);
                let op = *self.rng.pick(&["Abs", "Neg", "Floor", "Sign"]);
                let y = self.aux(op, vec![d], vec![]);
                if self.opset >= 15 && self.rng.chance(0.5) {
                    self.node1("CastLike", vec![y, x.name], vec![], x.shape);
                } else {
                    self.node1("Cast", vec![y], vec![attr_i("to", FLOAT as i64)], x.shape);
                }
            }
            1 | 2 => {
                let (elem, signed) = *self.rng.pick(INTS);
                let Some(x) = self.pick_exact(|_| true) else {
                    return false;
                };
                let xi = self.int_of(&x.name, elem as i32, signed, 4.0);
                self.cast_out(xi, x.shape);
            }
            _ => {
                if self.opset < 15 {
                    return false;
                }
                let s = self.suffix_shape(&x.shape);
                let data = self.ints(cells(&s), -3, 3);
                let k = self.init_int(&s, INT64, &data);
                let kf = self.aux("CastLike", vec![k, x.name.clone()], vec![]);
                let out = broadcast(&x.shape, &s).expect("a suffix broadcasts");
                self.node1("Add", vec![x.name, kf], vec![], out);
            }
        }
        true
    }
}
