//! Activations written as pointwise ops: Sigmoid, Softplus, LeakyRelu,
//! Elu, Gelu, HardSigmoid, HardSwish, PRelu.

use super::{Attrs, R, Translator, Val};
use crate::proto::NodeProto;

impl Translator {
    /// ONNX Sigmoid.
    pub(super) fn sigmoid(&mut self, node: &NodeProto) -> R<()> {
        // 1 / (1 + exp(-x)).
        let x = self.input(node, 0)?;
        let n = self.unary("neg", &x, "...".into());
        let e = self.unary("exp", &n, "...".into());
        let one = self.scalar(x.elem, 1.0);
        let d = self.binary("add", &e, &one, "...".into())?;
        let v = self.unary("recip", &d, self.out_spec(node, 0));
        self.bind(node, 0, v);
        Ok(())
    }

    /// ONNX Softplus.
    pub(super) fn softplus(&mut self, node: &NodeProto) -> R<()> {
        // log(exp(x) + 1) without overflow: relu(x) + log(1 +
        // exp(-|x|)) (onnxruntime's form; exp(100) is inf in f32).
        let x = self.input(node, 0)?;
        let ab = self.unary("abs", &x, "...".into());
        let na = self.unary("neg", &ab, "...".into());
        let e = self.unary("exp", &na, "...".into());
        let one = self.scalar(x.elem, 1.0);
        let d = self.binary("add", &e, &one, "...".into())?;
        let l = self.unary("log", &d, "...".into());
        let r = self.unary("relu", &x, "...".into());
        let v = self.binary("add", &r, &l, self.out_spec(node, 0))?;
        self.bind(node, 0, v);
        Ok(())
    }

    /// ONNX HardSigmoid, `max(0, min(1, alpha * x + beta))` (alpha 0.2 and
    /// beta 0.5 unless given), and HardSwish, `x * HardSigmoid(x)` with
    /// alpha 1/6 and beta 0.5 (MobileNetV3's activations; onnxruntime's
    /// kernels compute them in this order, NaN passing through).
    pub(super) fn hard_sigmoid(&mut self, node: &NodeProto, swish: bool) -> R<()> {
        let a = Attrs::of(node);
        let x = self.input(node, 0)?;
        let (alpha, beta) = if swish {
            (f64::from(1.0f32 / 6.0), 0.5)
        } else {
            (
                f64::from(a.float("alpha").unwrap_or(0.2)),
                f64::from(a.float("beta").unwrap_or(0.5)),
            )
        };
        let al = self.scalar(x.elem, alpha);
        let scaled = self.binary("mul", &x, &al, "...".into())?;
        let be = self.scalar(x.elem, beta);
        let shifted = self.binary("add", &scaled, &be, "...".into())?;
        let one = self.scalar(x.elem, 1.0);
        let capped = self.binary("min", &shifted, &one, "...".into())?;
        let zero = self.scalar(x.elem, 0.0);
        let spec = if swish {
            "...".into()
        } else {
            self.out_spec(node, 0)
        };
        let mut v = self.binary("max", &capped, &zero, spec)?;
        if swish {
            v = self.binary("mul", &x, &v, self.out_spec(node, 0))?;
        }
        self.bind(node, 0, v);
        Ok(())
    }

    /// ONNX PRelu: `x` where `x >= 0`, else `slope * x`, the slope
    /// broadcasting to `x` (one per channel, as PyTorch exports it). As
    /// LeakyRelu, a `where` on `relu(-x) != 0`, so that no slope reaches
    /// the kept side. Before opset 7 a 1-D slope is per channel: it aligns
    /// with axis 1 of `x`, not with its last axis.
    pub(super) fn prelu(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        let mut slope = self.input(node, 1)?;
        if let (true, Some(1), Some(xr @ 3..)) = (self.opset < 7, slope.rank, x.rank) {
            let mut out = vec!["c".to_owned()];
            out.extend(std::iter::repeat_n("0".to_owned(), xr - 2));
            let pinned = self.pinned(&out.join(","));
            let v = self.einsum(
                &format!("c => {}", out.join(",")),
                &[&slope],
                None,
                None,
                pinned,
            );
            slope = super::elementwise::with_rank(v, Some(xr - 1));
        }
        let nx = self.unary("neg", &x, "...".into());
        let below = self.unary("relu", &nx, "...".into());
        let scaled = self.binary("mul", &x, &slope, "...".into())?;
        let v = self.ternary("where", &below, &scaled, &x, x.spec.clone())?;
        self.bind(node, 0, v);
        Ok(())
    }

    /// ONNX LeakyRelu and Elu.
    pub(super) fn leaky_relu_elu(&mut self, node: &NodeProto, op: &str) -> R<()> {
        let a = Attrs::of(node);
        // x where x >= 0, else alpha * x (LeakyRelu) or alpha *
        // (exp(x) - 1) (Elu): a `where` on relu(-x) != 0, so that
        // no alpha (0, inf, NaN, huge) reaches the kept side, as a
        // sum of both sides would (inf * 0 is NaN).
        let x = self.input(node, 0)?;
        let default = if op == "Elu" { 1.0 } else { 0.01 };
        let alpha = f64::from(a.float("alpha").unwrap_or(default));
        let nx = self.unary("neg", &x, "...".into());
        let below = self.unary("relu", &nx, "...".into());
        let base = if op == "Elu" {
            let e = self.unary("exp", &x, "...".into());
            let one = self.scalar(x.elem, 1.0);
            self.binary("sub", &e, &one, "...".into())?
        } else {
            x.clone()
        };
        let al = self.scalar(x.elem, alpha);
        let scaled = self.binary("mul", &base, &al, "...".into())?;
        // Every operand is `x`'s shape.
        let v = self.ternary("where", &below, &scaled, &x, x.spec.clone())?;
        self.bind(node, 0, v);
        Ok(())
    }

    /// ONNX Gelu (`approximate` none or tanh).
    pub(super) fn gelu(&mut self, node: &NodeProto) -> R<()> {
        let a = Attrs::of(node);
        let x = self.input(node, 0)?;
        let v = match a.string("approximate").as_deref().unwrap_or("none") {
            "none" => {
                // x / 2 * (1 + erf(x / sqrt(2))).
                let s = self.scalar(x.elem, std::f64::consts::FRAC_1_SQRT_2);
                let xs = self.binary("mul", &x, &s, "...".into())?;
                let e = self.unary("erf", &xs, "...".into());
                self.gelu_tail(&x, &e, node)?
            }
            "tanh" => {
                // x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))).
                let c = self.scalar(x.elem, 0.044715);
                let x2 = self.binary("mul", &x, &x, "...".into())?;
                let x3 = self.binary("mul", &x2, &x, "...".into())?;
                let cx3 = self.binary("mul", &x3, &c, "...".into())?;
                let inner = self.binary("add", &x, &cx3, "...".into())?;
                let k = self.scalar(x.elem, (2.0 / std::f64::consts::PI).sqrt());
                let ki = self.binary("mul", &inner, &k, "...".into())?;
                let t = self.unary("tanh", &ki, "...".into());
                self.gelu_tail(&x, &t, node)?
            }
            other => return self.err(format!("Gelu approximate='{other}'")),
        };
        self.bind(node, 0, v);
        Ok(())
    }

    fn gelu_tail(&mut self, x: &Val, t: &Val, node: &NodeProto) -> R<Val> {
        let one = self.scalar(x.elem, 1.0);
        let s = self.binary("add", t, &one, "...".into())?;
        let half = self.scalar(x.elem, 0.5);
        let hx = self.binary("mul", x, &half, "...".into())?;
        self.binary("mul", &hx, &s, self.out_spec(node, 0))
    }
}
