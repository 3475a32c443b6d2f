//! Activations as pointwise ops: Selu, Celu, ThresholdedRelu, Shrink,
//! Softsign, Mish, Swish; and Hardmax (a one-hot of the first maximum).
//! A branch is a `where` on a relu (positive where the branch is taken),
//! so that the other branch's value (NaN, an infinity) never reaches it.

use super::super::axes::Layout;
use super::super::{Attrs, R, Translator, Val};
use super::index::{known, selected_index};
use crate::proto::NodeProto;

impl Translator {
    /// `c * x` for a constant `c`.
    fn scaled(&mut self, x: &Val, c: f64) -> R<Val> {
        let s = self.scalar(x.elem, c);
        self.binary("mul", x, &s, "...".into())
    }

    /// `x + c` for a constant `c`.
    fn shifted(&mut self, x: &Val, c: f64) -> R<Val> {
        let s = self.scalar(x.elem, c);
        self.binary("add", x, &s, "...".into())
    }

    /// `a` where `cond` is not 0, else `b`, of `like`'s shape exactly.
    fn select(&mut self, cond: &Val, a: &Val, b: &Val, like: &Val) -> R<Val> {
        self.ternary("where", cond, a, b, like.spec.clone())
    }

    /// Selu, Celu, ThresholdedRelu, Shrink, Softsign, Mish and Swish.
    pub(super) fn activation(&mut self, node: &NodeProto, op: &str) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        if op == "Shrink" && (x.elem.is_unsigned() || x.elem.is_bool()) {
            return self.err(format!(
                "Shrink of {} tensors is not supported",
                x.elem.mlir()
            ));
        }
        if op != "Shrink" && !x.elem.is_float() {
            return self.err(format!(
                "{op} takes floating-point tensors, input #0 is {}",
                x.elem.mlir()
            ));
        }
        let attr = |name: &str, default: f64| at.float(name).map_or(default, f64::from);
        let v = match op {
            "Selu" => {
                // gamma * (x > 0 ? x : alpha * (exp(x) - 1)).
                let alpha = attr("alpha", 1.673_263_192_176_818_8);
                let gamma = attr("gamma", 1.050_701_022_148_132_3);
                let nx = self.unary("neg", &x, "...".into());
                let below = self.unary("relu", &nx, "...".into());
                let e = self.unary("exp", &x, "...".into());
                let em = self.shifted(&e, -1.0)?;
                let neg = self.scaled(&em, alpha)?;
                let y = self.select(&below, &neg, &x, &x)?;
                self.scaled(&y, gamma)?
            }
            "Celu" => {
                // max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
                let alpha = attr("alpha", 1.0);
                let xa = self.scaled(&x, 1.0 / alpha)?;
                let e = self.unary("exp", &xa, "...".into());
                let em = self.shifted(&e, -1.0)?;
                let neg = self.scaled(&em, alpha)?;
                let zero = self.scalar(x.elem, 0.0);
                let lo = self.binary("min", &neg, &zero, "...".into())?;
                let hi = self.unary("relu", &x, "...".into());
                self.binary("add", &hi, &lo, "...".into())?
            }
            "ThresholdedRelu" => {
                // x > alpha ? x : 0.
                let xa = self.shifted(&x, -attr("alpha", 1.0))?;
                let above = self.unary("relu", &xa, "...".into());
                let zero = self.scalar(x.elem, 0.0);
                self.select(&above, &x, &zero, &x)?
            }
            "Shrink" => self.shrink(&x, attr("lambd", 0.5), attr("bias", 0.0))?,
            "Softsign" => {
                let a = self.unary("abs", &x, "...".into());
                let d = self.shifted(&a, 1.0)?;
                self.binary("div", &x, &d, "...".into())?
            }
            "Mish" => {
                // x * tanh(softplus(x)), softplus as relu(x) + log(1 +
                // exp(-|x|)) (no overflow).
                let a = self.unary("abs", &x, "...".into());
                let na = self.unary("neg", &a, "...".into());
                let e = self.unary("exp", &na, "...".into());
                let d = self.shifted(&e, 1.0)?;
                let l = self.unary("log", &d, "...".into());
                let r = self.unary("relu", &x, "...".into());
                let sp = self.binary("add", &r, &l, "...".into())?;
                let t = self.unary("tanh", &sp, "...".into());
                self.binary("mul", &x, &t, "...".into())?
            }
            _ => {
                // Swish: x * sigmoid(alpha * x).
                let ax = self.scaled(&x, attr("alpha", 1.0))?;
                let n = self.unary("neg", &ax, "...".into());
                let e = self.unary("exp", &n, "...".into());
                let d = self.shifted(&e, 1.0)?;
                self.binary("div", &x, &d, "...".into())?
            }
        };
        let v = self.unary("identity", &v, x.spec.clone());
        self.bind(node, 0, v);
        Ok(())
    }

    /// ONNX Shrink: `x < -lambd ? x + bias : x > lambd ? x - bias : 0`.
    fn shrink(&mut self, x: &Val, lambd: f64, bias: f64) -> R<Val> {
        let hi = self.shifted(x, -lambd)?;
        let above = self.unary("relu", &hi, "...".into());
        let nx = self.unary("neg", x, "...".into());
        let lo = self.shifted(&nx, -lambd)?;
        let below = self.unary("relu", &lo, "...".into());
        let up = self.shifted(x, bias)?;
        let down = self.shifted(x, -bias)?;
        let zero = self.scalar(x.elem, 0.0);
        let inner = self.select(&below, &up, &zero, x)?;
        self.select(&above, &down, &inner, x)
    }

    /// ONNX Hardmax: 1 at the first maximum along `axis` (opset 13 on;
    /// before, only the last axis, where the two definitions agree), 0
    /// elsewhere. The maxima (`x - max == 0`), then the first of them: no
    /// maximum before it (a where-einsum over the strict lower triangle).
    pub(super) fn hardmax(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        if !x.elem.is_float() {
            return self.err(format!(
                "Hardmax takes floating-point tensors, input #0 is {}",
                x.elem.mlir()
            ));
        }
        let axis = Attrs::of(node)
            .int("axis")
            .unwrap_or(if self.opset >= 13 { -1 } else { 1 });
        let lay = Layout::new(&[axis], x.rank).map_err(|m| self.error(m))?;
        let k = selected_index(&lay);
        if self.opset < 13 && k.is_none_or(|k| k + 1 != lay.axes.len()) {
            return self
                .err("Hardmax before opset 13 over other than the last axis is not supported");
        }
        let Some(n) = k.and_then(|k| x.shape.as_ref().map(|d| d[k])) else {
            return self
                .err("Hardmax needs the axis size, which is not known here (not supported)");
        };
        let full = lay.all();
        let dropped = lay.map(|_| None);
        let m = self.einsum(
            &format!("{full} => {dropped}"),
            &[&x],
            Some("max"),
            None,
            "...".into(),
        );
        let d = self.einsum(
            &format!("{full}; {dropped} => {full}"),
            &[&x, &m],
            None,
            Some("sub"),
            x.spec.clone(),
        );
        let zero = self.scalar(x.elem, 0.0);
        let one = self.scalar(x.elem, 1.0);
        let is_max = self.select(&d, &zero, &one, &x)?;
        // before[j] = the maxima at i < j (relu(j - i) > 0).
        let g = self.grid(x.elem, (n, n), (-1, 1, 0))?;
        let lower = self.unary("relu", &g, "...".into());
        let spec = format!(
            "hi,hj; {}; => {}",
            lay.map(|_| Some("hi".into())),
            lay.map(|_| Some("hj".into()))
        );
        let before = self.einsum(
            &spec,
            &[&lower, &is_max, &zero],
            None,
            Some("where"),
            x.spec.clone(),
        );
        let v = self.select(&before, &zero, &is_max, &x)?;
        self.bind(node, 0, known(v, x.shape.clone(), x.rank));
        Ok(())
    }
}
