//! ONNX ops over element types: conversions (`Cast`, `CastLike`),
//! comparisons and logic with boolean (`i1`) results, `Where`, and the
//! scalar functions that need new dialect ops (onnx.ai/onnx/operators).

use super::{Attrs, R, Translator, Val};
use crate::proto::{NodeProto, attribute_proto::AttributeType as K};
use crate::tensor::Elem;

/// The attributes of the ops this module translates (see
/// `attrs::known`); `None`: not one of them.
pub(super) fn known(op: &str) -> Option<&'static [(&'static str, K)]> {
    Some(match op {
        // `saturate` concerns 8-bit floats only, which are not supported.
        "Cast" => &[("to", K::Int), ("saturate", K::Int)],
        "CastLike" => &[("saturate", K::Int)],
        "IsInf" => &[("detect_positive", K::Int), ("detect_negative", K::Int)],
        "Mod" => &[("fmod", K::Int)],
        "BitShift" => &[("direction", K::String)],
        "Equal" | "Less" | "LessOrEqual" | "Greater" | "GreaterOrEqual" | "And" | "Or" | "Xor"
        | "Not" | "IsNaN" | "Where" | "BitwiseAnd" | "BitwiseOr" | "BitwiseXor" | "BitwiseNot"
        | "Sign" => &[],
        _ if float_function(op).is_some() => &[],
        _ => return None,
    })
}

/// The dialect op of an ONNX function of floats (onnx.ai: Floor, Ceil,
/// Round (half to even), Tan, Atan, Asin, Acos, Sinh, Cosh, Asinh, Acosh,
/// Atanh).
fn float_function(op: &str) -> Option<&'static str> {
    Some(match op {
        "Floor" => "floor",
        "Ceil" => "ceil",
        "Round" => "round",
        "Tan" => "tan",
        "Atan" => "atan",
        "Asin" => "asin",
        "Acos" => "acos",
        "Sinh" => "sinh",
        "Cosh" => "cosh",
        "Asinh" => "asinh",
        "Acosh" => "acosh",
        "Atanh" => "atanh",
        _ => return None,
    })
}

/// The dialect op of a binary ONNX op with broadcasting, and whether its
/// result is boolean: comparisons (onnx__Equal.html, onnx__Less.html, ...),
/// logic (onnx__And.html, ...) and bitwise ops (onnx__BitwiseAnd.html,
/// ...).
fn binary_op(op: &str) -> Option<(&'static str, bool)> {
    Some(match op {
        "Equal" => ("eq", true),
        "Less" => ("lt", true),
        "LessOrEqual" => ("le", true),
        "Greater" => ("gt", true),
        "GreaterOrEqual" => ("ge", true),
        "And" | "BitwiseAnd" => ("and", false),
        "Or" | "BitwiseOr" => ("or", false),
        "Xor" | "BitwiseXor" => ("xor", false),
        _ => return None,
    })
}

impl Translator {
    /// Translates `node` when its op is one of this module's; `false`
    /// otherwise.
    pub(super) fn typed(&mut self, node: &NodeProto, op: &str) -> R<bool> {
        let a = Attrs::of(node);
        let spec = self.out_spec(node, 0);
        let v = match op {
            "Cast" | "CastLike" => self.cast(node, op, &a)?,
            "Not" | "BitwiseNot" => {
                let x = self.input(node, 0)?;
                self.logical(op, &x)?;
                self.unary("not", &x, spec)
            }
            "Sign" => {
                let x = self.input(node, 0)?;
                self.unary("sign", &x, spec)
            }
            "IsNaN" | "IsInf" => self.float_test(node, op, &a, spec)?,
            "Where" => self.where_node(node, spec)?,
            "Mod" => {
                let (x, y) = (self.input(node, 0)?, self.input(node, 1)?);
                // onnx__Mod.html: fmod = 0 is the integer remainder with the
                // divisor's sign, fmod = 1 C's fmod.
                let name = match a.int("fmod").unwrap_or(0) {
                    0 => "mod",
                    1 => "rem",
                    f => return self.err(format!("Mod's 'fmod' must be 0 or 1, not {f}")),
                };
                self.binary(name, &x, &y, spec)?
            }
            "BitShift" => {
                let (x, y) = (self.input(node, 0)?, self.input(node, 1)?);
                // onnx__BitShift.html: integers; a shift by a negative
                // amount or by the width or more gives 0 (or -1 shifting a
                // negative value right).
                if x.elem.is_float() || x.elem.is_bool() {
                    return self.err(format!(
                        "BitShift takes integers, input #0 is {}",
                        x.elem.mlir()
                    ));
                }
                let name = match a.string("direction").as_deref() {
                    Some("LEFT") => "shl",
                    Some("RIGHT") => "shr",
                    d => {
                        return self.err(format!(
                            "BitShift's 'direction' must be \"LEFT\" or \"RIGHT\", not {d:?}"
                        ));
                    }
                };
                self.binary(name, &x, &y, spec)?
            }
            _ => {
                if let Some((name, boolean)) = binary_op(op) {
                    let (x, y) = (self.input(node, 0)?, self.input(node, 1)?);
                    if !boolean {
                        self.logical(op, &x)?;
                    }
                    let elem = if boolean { Elem::Bool } else { x.elem };
                    self.binary_to(name, &x, &y, spec, elem)?
                } else if let Some(name) = float_function(op) {
                    let x = self.input(node, 0)?;
                    if !x.elem.is_float() {
                        return self.err(format!(
                            "{op} takes floating-point tensors, input #0 is {}",
                            x.elem.mlir()
                        ));
                    }
                    self.unary(name, &x, spec)
                } else {
                    return Ok(false);
                }
            }
        };
        self.bind(node, 0, v);
        Ok(true)
    }

    /// ONNX's logic ops take booleans, its bitwise ops integers.
    fn logical(&self, op: &str, x: &Val) -> R<()> {
        let ok = if op.starts_with("Bitwise") {
            !x.elem.is_float() && !x.elem.is_bool()
        } else {
            x.elem.is_bool()
        };
        if ok {
            Ok(())
        } else {
            self.err(format!("{op} does not take tensors of {}", x.elem.mlir()))
        }
    }

    /// ONNX Cast (onnx__Cast.html) to the type `to`, CastLike
    /// (onnx__CastLike.html) to input #1's type. A cast to the operand's
    /// own type is the identity.
    fn cast(&mut self, node: &NodeProto, op: &str, a: &Attrs<'_>) -> R<Val> {
        let x = self.input(node, 0)?;
        let to = if op == "Cast" {
            let Some(to) = a.int("to") else {
                return self.err("Cast needs the attribute 'to'");
            };
            let to = i32::try_from(to).unwrap_or(-1);
            Elem::of_onnx(to).map_err(|m| self.error(format!("Cast to {}", after_type(&m))))?
        } else {
            self.input(node, 1)?.elem
        };
        let spec = self.out_spec(node, 0);
        let name = if to == x.elem { "identity" } else { "cast" };
        Ok(self.unary_to(name, &x, spec, to))
    }

    /// ONNX IsNaN (onnx__IsNaN.html: `x != x`) and IsInf (onnx__IsInf.html:
    /// `|x| == inf`, or `x == inf` / `x == -inf` as `detect_positive` and
    /// `detect_negative` say; neither: `x == NaN`, false).
    fn float_test(&mut self, node: &NodeProto, op: &str, a: &Attrs<'_>, spec: String) -> R<Val> {
        let x = self.input(node, 0)?;
        if !x.elem.is_float() {
            return self.err(format!(
                "{op} takes floating-point tensors, input #0 is {}",
                x.elem.mlir()
            ));
        }
        if op == "IsNaN" {
            return self.binary_to("ne", &x, &x, spec, Elem::Bool);
        }
        let positive = a.int("detect_positive").unwrap_or(1) != 0;
        let negative = a.int("detect_negative").unwrap_or(1) != 0;
        let (operand, value) = match (positive, negative) {
            (true, true) => (self.unary("abs", &x, "...".into()), f64::INFINITY),
            (true, false) => (x, f64::INFINITY),
            (false, true) => (x, f64::NEG_INFINITY),
            (false, false) => (x, f64::NAN),
        };
        let c = self.scalar(operand.elem, value);
        self.binary_to("eq", &operand, &c, spec, Elem::Bool)
    }

    /// ONNX Where (onnx__Where.html): a boolean condition and two branches
    /// of one type, all three broadcasting.
    fn where_node(&mut self, node: &NodeProto, spec: String) -> R<Val> {
        let c = self.input(node, 0)?;
        let (x, y) = (self.input(node, 1)?, self.input(node, 2)?);
        if !c.elem.is_bool() {
            return self.err(format!(
                "Where's condition must be bool, it is {}",
                c.elem.mlir()
            ));
        }
        if x.elem != y.elem {
            return self.err(format!(
                "Where's branches have element types {} and {}",
                x.elem.mlir(),
                y.elem.mlir()
            ));
        }
        self.ternary("where", &c, &x, &y, spec)
    }
}

/// `element type X is not supported` as `X is not supported`.
fn after_type(m: &str) -> &str {
    m.strip_prefix("element type ").unwrap_or(m)
}
