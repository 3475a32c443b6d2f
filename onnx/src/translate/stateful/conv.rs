//! ONNX CausalConvWithState (opset 27): a causal depthwise convolution
//! along the last axis with a carried state.
//!
//! `padded = past_state ^ input` along time (`ocannl.concat`), or the
//! input with `k - 1` zeros in front (a one-cell einsum read with padding
//! `@k-1,0`); `output[b, c, t] = sum_j padded[b, c, t + j] * weight[c, 0,
//! j] (+ bias[c])`, one einsum with a valid convolution axis; SiLU (`x *
//! sigmoid(x)`); `present_state` the last `k - 1` steps of `padded` (a
//! block slice). 16-bit floats convolve in f32, the result rounded once,
//! and SiLU is computed in f32 (the reference's numerics).
//!
//! A kernel of one cell has a state of 0 steps: `past_state` adds
//! nothing, and `present_state` is an empty constant of its dims (its
//! batch must be known, else not supported).

use super::super::axes::Layout;
use super::super::elementwise::with_rank;
use super::super::{Attrs, R, Translator, Val, multichar};
use super::token;
use crate::proto::NodeProto;
use crate::tensor::Elem;

/// The largest kernel (time steps) read: the window is an einsum axis,
/// so any size works; the bound keeps sizes far from 64 bits.
const MAX_KERNEL: u64 = 1 << 20;

/// The sizes of a node, checked against each other where known.
struct Sizes {
    batch: Option<u64>,
    channels: u64,
    length: Option<u64>,
    kernel: u64,
}

impl Translator {
    /// ONNX CausalConvWithState.
    pub(super) fn causal_conv(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let silu = match at.string("activation").as_deref().unwrap_or("none") {
            "none" => false,
            "silu" | "swish" => true,
            a => return self.err(format!("activation '{a}' (none, silu or swish)")),
        };
        let (Some(x), Some(w)) = (self.input_dims(node, 0)?, self.input_dims(node, 1)?) else {
            return self.err("input and weight are required");
        };
        let bias = self.input_dims(node, 2)?;
        let past = self.input_dims(node, 3)?;
        if !matches!(x.elem, Elem::F32 | Elem::F16 | Elem::BF16) {
            return self.err(format!(
                "CausalConvWithState takes float, float16 or bfloat16 tensors, the input is {}",
                x.elem.mlir()
            ));
        }
        for (v, what) in [
            (Some(&w), "weight"),
            (bias.as_ref(), "bias"),
            (past.as_ref(), "past_state"),
        ] {
            if let Some(v) = v.filter(|v| v.elem != x.elem) {
                return self.err(format!(
                    "{what} is {}, the input {} (one element type T)",
                    v.elem.mlir(),
                    x.elem.mlir()
                ));
            }
        }
        let s = self.conv_sizes(&x, &w, bias.as_ref(), past.as_ref())?;
        // 16-bit floats convolve in f32, rounded once (the reference's
        // numerics).
        let io = x.elem;
        let x = self.cast_to(&x, Elem::F32);
        let w = self.cast_to(&w, Elem::F32);
        let bias = bias.map(|b| self.cast_to(&b, Elem::F32));
        let past = past.map(|p| self.cast_to(&p, Elem::F32));
        let want_state = node.output.get(1).is_some_and(|n| !n.is_empty());
        if s.kernel == 1 && want_state && s.batch.is_none() {
            return self.err(
                "a kernel of one cell has a state of 0 steps, whose batch is not known here (not supported)",
            );
        }
        let lay = Layout::new(&[2], Some(3)).map_err(|m| self.error(m))?;
        let k1 = s.kernel - 1;
        let padded = match &past {
            // A state of 0 steps adds nothing.
            _ if k1 == 0 => x.clone(),
            Some(p) => {
                let v = self.concat_along(&lay, &[p, &x], "...".into());
                with_rank(v, Some(3))
            }
            None => {
                let one = self.fill(x.elem, &[1], 1.0);
                let v = self.einsum(
                    &format!("n,c,1*o@{k1},0+j; j => n,c,o"),
                    &[&x, &one],
                    None,
                    None,
                    "...".into(),
                );
                with_rank(v, Some(3))
            }
        };
        let out_spec = if x.shape.is_some() {
            x.spec.clone()
        } else {
            "...".into()
        };
        let mut y = self.einsum(
            "n,g,1*o@0,0+j; g,c,j => n,g,o",
            &[&padded, &w],
            None,
            None,
            out_spec.clone(),
        );
        if let Some(b) = &bias {
            y = self.einsum("n,g,o; g => n,g,o", &[&y, b], None, Some("add"), out_spec);
        }
        let mut y = self.cast_to(&with_rank(y, Some(3)), io);
        if silu {
            y = self.silu(&y)?;
        }
        y.shape.clone_from(&x.shape);
        self.bind(node, 0, y);
        if want_state {
            let state = self.last_steps(&padded, &s)?;
            let state = self.cast_to(&state, io);
            self.bind(node, 1, state);
        }
        Ok(())
    }

    /// The last `k - 1` steps of `padded` (`[B, C, L + k - 1]`): `p^x
    /// => x` along time, `p` of `L` cells (stated by an operand read for
    /// its shape only, when known).
    fn last_steps(&mut self, padded: &Val, s: &Sizes) -> R<Val> {
        let k1 = s.kernel - 1;
        if let (0, Some(b)) = (k1, s.batch) {
            // No cells: a constant of the dims (never read).
            let dims = [b, s.channels, 0];
            return Ok(with_rank(self.fill(padded.elem, &dims, 0.0), Some(3)));
        }
        let mut operands = vec![padded.clone()];
        let spec = match s.length {
            Some(l) => {
                operands.push(self.fill(padded.elem, &[l], 0.0));
                "n,c,sp^sx; sp => n,c,sx"
            }
            None => "n,c,sp^sx => n,c,sx",
        };
        let b = token(s.batch, || self.fresh_var());
        let refs: Vec<&Val> = operands.iter().collect();
        let mut v = self.emit(
            "concat",
            &refs,
            &format!("spec = \"{}\"", multichar(spec)),
            padded.elem,
            format!("{b},{},{k1}", s.channels),
            None,
        );
        v.shape = s.batch.map(|b| vec![b, s.channels, k1]);
        Ok(with_rank(v, Some(3)))
    }

    /// `x * sigmoid(x)`, computed in f32 for 16-bit floats.
    fn silu(&mut self, y: &Val) -> R<Val> {
        let io = y.elem;
        let y32 = self.cast_to(y, Elem::F32);
        let n = self.unary("neg", &y32, "...".into());
        let e = self.unary("exp", &n, "...".into());
        let one = self.scalar(Elem::F32, 1.0);
        let d = self.binary("add", &e, &one, "...".into())?;
        let sig = self.unary("recip", &d, "...".into());
        let v = self.binary("mul", &y32, &sig, "...".into())?;
        Ok(self.cast_to(&v, io))
    }

    /// The sizes, every input's shape checked against them where known:
    /// `input [B, C, L]`, `weight [C, 1, k]` (its shape is needed),
    /// `bias [C]`, `past_state [B, C, k - 1]`.
    fn conv_sizes(&self, x: &Val, w: &Val, bias: Option<&Val>, past: Option<&Val>) -> R<Sizes> {
        self.check_rank(x, 3, "input")?;
        self.check_rank(w, 3, "weight")?;
        let Some(wd) = w.shape.clone() else {
            return self.err(
                "CausalConvWithState needs its weight's shape (an initializer or an input with a shape): not supported",
            );
        };
        let (channels, kernel) = (wd[0], wd[2]);
        if wd[1] != 1 {
            return self.err(format!("weight has dims {wd:?}, expected [C, 1, k]"));
        }
        if kernel == 0 || kernel > MAX_KERNEL {
            return self.err(format!(
                "a kernel of {kernel} steps (from 1 to {MAX_KERNEL} are supported)"
            ));
        }
        let xd = x.shape.clone();
        if let Some(d) = &xd
            && d[1] != channels
        {
            return self.err(format!(
                "input has dims {d:?}, the weight {wd:?}: the channels differ"
            ));
        }
        let batch = xd.as_ref().map(|d| d[0]);
        if let Some(b) = bias {
            self.check_rank(b, 1, "bias")?;
            if let Some(d) = b.shape.as_ref().filter(|d| d[0] != channels) {
                return self.err(format!("bias has dims {d:?}, expected [{channels}]"));
            }
        }
        if let Some(p) = past {
            self.check_rank(p, 3, "past_state")?;
            if let Some(d) = &p.shape {
                let want = [batch, Some(channels), Some(kernel - 1)];
                if d.iter().zip(&want).any(|(n, w)| w.is_some_and(|w| w != *n)) {
                    let b = token(batch, || "B".into());
                    return self.err(format!(
                        "past_state has dims {d:?}, expected [{b}, {channels}, {}]",
                        kernel - 1
                    ));
                }
            }
        }
        Ok(Sizes {
            batch,
            channels,
            length: xd.map(|d| d[2]),
            kernel,
        })
    }
}
