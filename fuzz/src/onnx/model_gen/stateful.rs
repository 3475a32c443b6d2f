//! The stateful sequence ops of opset 27: `CausalConvWithState` over a
//! rank-3 value (kernels of 1 to 4 steps, bias, a past state from the
//! graph or an initializer, SiLU or Swish) and `LinearAttention` with a
//! rank-3 value as the query (every update rule, grouped heads, per-head
//! or per-key-dim decay, beta per head or shared, a past state, a
//! scale), both outputs joining the values.
//!
//! The models generated declare opsets up to 23: a node of this family
//! raises the model's to 27 (the ops exist from it). Only a model of
//! opset 20 or more is raised: the ops generated from 20 read the same
//! at 27 (later versions only add element types and ops).

use super::{Builder, Value, attr_f, attr_i, attr_s};

/// The least opset a model is raised from.
const FROM_OPSET: i64 = 20;

impl Builder<'_> {
    pub(super) fn stateful(&mut self) -> bool {
        if self.opset < FROM_OPSET {
            return false;
        }
        let made = if self.rng.chance(0.5) {
            self.causal_conv_with_state()
        } else {
            self.linear_attention()
        };
        if made {
            self.opset = self.opset.max(27);
        }
        made
    }

    /// A graph value of `shape` half the time, else an initializer of
    /// values in `lo..hi`.
    fn value_or_init(&mut self, shape: &[i64], lo: f32, hi: f32) -> String {
        match self.pick(|s| s == shape) {
            Some(v) if self.rng.chance(0.5) => v.name,
            _ => self.init_f32(shape, lo, hi),
        }
    }

    fn causal_conv_with_state(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.len() == 3 && s.iter().product::<i64>() <= 1024) else {
            return false;
        };
        let (b, c) = (x.shape[0], x.shape[1]);
        let k = self.rng.range(1, 4) as i64;
        let w = self.init_f32(&[c, 1, k], -0.5, 0.5);
        let mut inputs = vec![x.name.clone(), w];
        if self.rng.chance(0.5) {
            inputs.push(self.init_f32(&[c], -0.5, 0.5));
        }
        if k > 1 && self.rng.chance(0.5) {
            inputs.resize(3, String::new());
            inputs.push(self.value_or_init(&[b, c, k - 1], -1.0, 1.0));
        }
        let mut attrs = vec![];
        if self.rng.chance(0.5) {
            let a = *self.rng.pick(&["none", "silu", "swish"]);
            attrs.push(attr_s("activation", a));
        }
        let (y, s) = (self.fresh("v"), self.fresh("v"));
        self.node(
            "CausalConvWithState",
            inputs,
            vec![y.clone(), s.clone()],
            attrs,
        );
        self.values.push(Value {
            name: y,
            shape: x.shape.clone(),
        });
        // A kernel of one step leaves an empty state: not a value to use.
        if k > 1 {
            self.values.push(Value {
                name: s,
                shape: vec![b, c, k - 1],
            });
        }
        true
    }

    fn linear_attention(&mut self) -> bool {
        let Some(q) =
            self.pick(|s| s.len() == 3 && s[1] <= 16 && s.iter().product::<i64>() <= 1024)
        else {
            return false;
        };
        let (b, t, d) = (q.shape[0], q.shape[1], q.shape[2]);
        let divisors = |n: i64| (1..=n.min(8)).filter(|h| n % h == 0).collect::<Vec<i64>>();
        let hq = *self.rng.pick(&divisors(d));
        let dk = d / hq;
        let hkv = *self.rng.pick(&divisors(hq));
        let dv = self.rng.range(1, 4) as i64;
        let rule = *self.rng.pick(&["linear", "gated", "delta", "gated_delta"]);
        let (gating, delta) = (rule.starts_with("gated"), rule.ends_with("delta"));
        // Delta rules keep `beta |k|^2` below 2 (the state stays bounded):
        // keys of small initializers.
        let key = if delta {
            let r = 0.5 / (dk as f32).sqrt();
            self.init_f32(&[b, t, hkv * dk], -r, r)
        } else {
            self.value_or_init(&[b, t, hkv * dk], -1.0, 1.0)
        };
        let value = self.value_or_init(&[b, t, hkv * dv], -1.0, 1.0);
        let mut inputs = vec![q.name.clone(), key, value];
        let mut last = inputs.len();
        inputs.push(if self.rng.chance(0.4) {
            last = inputs.len() + 1;
            self.init_f32(&[b, hkv, dk, dv], -0.5, 0.5)
        } else {
            String::new()
        });
        if gating {
            let per = if self.rng.chance(0.5) { hkv } else { hkv * dk };
            inputs.push(self.init_f32(&[b, t, per], -0.5, 0.0));
            last = inputs.len();
        } else {
            inputs.push(String::new());
        }
        if delta {
            let per = if self.rng.chance(0.5) { hkv } else { 1 };
            inputs.push(self.init_f32(&[b, t, per], 0.0, 1.0));
            last = inputs.len();
        }
        inputs.truncate(last);
        let mut attrs = vec![attr_i("q_num_heads", hq), attr_i("kv_num_heads", hkv)];
        if rule != "gated_delta" || self.rng.chance(0.3) {
            attrs.push(attr_s("update_rule", rule));
        }
        if self.rng.chance(0.3) {
            attrs.push(attr_f("scale", *self.rng.pick(&[0.0, 0.25, 1.0])));
        }
        if self.rng.chance(0.2) {
            attrs.push(attr_i("chunk_size", *self.rng.pick(&[1, 16, 64])));
        }
        let (y, s) = (self.fresh("v"), self.fresh("v"));
        self.node("LinearAttention", inputs, vec![y.clone(), s.clone()], attrs);
        self.values.push(Value {
            name: y,
            shape: vec![b, t, hq * dv],
        });
        self.values.push(Value {
            name: s,
            shape: vec![b, hkv, dk, dv],
        });
        true
    }
}
