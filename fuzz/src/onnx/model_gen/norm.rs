//! Normalizations and reductions: `BatchNormalization`, `Softmax` and
//! `LogSoftmax`, `LayerNormalization` (opset 17 on), and `Reduce*` (axes
//! as an attribute or, by opset, as an input).

use super::{Builder, attr_f, attr_i, attr_ints};

impl Builder<'_> {
    pub(super) fn batchnorm(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.len() >= 2) else {
            return false;
        };
        let c = x.shape[1];
        let scale = self.init_f32(&[c], 0.5, 1.5);
        let b = self.init_f32(&[c], -1.0, 1.0);
        let mean = self.init_f32(&[c], -1.0, 1.0);
        let var = self.init_f32(&[c], 0.25, 2.0);
        let mut attrs = Vec::new();
        if self.rng.chance(0.4) {
            attrs.push(attr_f("epsilon", 1e-3));
        }
        if self.rng.chance(0.2) {
            attrs.push(attr_f("momentum", 0.9));
        }
        self.node1(
            "BatchNormalization",
            vec![x.name, scale, b, mean, var],
            attrs,
            x.shape,
        );
        true
    }

    pub(super) fn softmax(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let mut attrs = Vec::new();
        if self.rng.chance(0.7) {
            let (a, _) = self.axis(x.shape.len());
            attrs.push(attr_i("axis", a));
        }
        let op = if self.rng.chance(0.5) {
            "Softmax"
        } else {
            "LogSoftmax"
        };
        self.node1(op, vec![x.name], attrs, x.shape);
        true
    }

    pub(super) fn layernorm(&mut self) -> bool {
        if self.opset < 17 {
            return false;
        }
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let r = x.shape.len();
        let (a, ai) = if self.rng.chance(0.3) {
            (-1, r - 1)
        } else {
            self.axis(r)
        };
        let norm = &x.shape[ai..];
        let scale = self.init_f32(norm, 0.5, 1.5);
        let mut inputs = vec![x.name.clone(), scale];
        if self.rng.chance(0.6) {
            let b = self.init_f32(&x.shape[ai..], -1.0, 1.0);
            inputs.push(b);
        }
        let mut attrs = Vec::new();
        if a != -1 || self.rng.chance(0.3) {
            attrs.push(attr_i("axis", a));
        }
        if self.rng.chance(0.4) {
            attrs.push(attr_f("epsilon", 1e-3));
        }
        self.node1("LayerNormalization", inputs, attrs, x.shape);
        true
    }

    pub(super) fn reduce(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let op = *self
            .rng
            .pick(&["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"]);
        let r = x.shape.len();
        let keep = self.rng.chance(0.5);
        let axes: Vec<usize> = if r == 0 || self.rng.chance(0.2) {
            (0..r).collect()
        } else {
            let mut a: Vec<usize> = (0..r).filter(|_| self.rng.chance(0.4)).collect();
            if a.is_empty() {
                a.push(self.rng.index(r));
            }
            a
        };
        let all = axes.len() == r;
        let list: Vec<i64> = self.axes_list(&axes, r);
        let out: Vec<i64> = (0..r)
            .filter_map(|i| {
                if !axes.contains(&i) {
                    Some(x.shape[i])
                } else if keep {
                    Some(1)
                } else {
                    None
                }
            })
            .collect();
        let axes_input = op == "ReduceSum" && self.opset >= 13 || self.opset >= 18;
        let mut inputs = vec![x.name];
        let mut attrs = Vec::new();
        let omit = all && self.rng.chance(0.5);
        if !omit {
            if axes_input {
                inputs.push(self.init_i64(list, false));
            } else {
                attrs.push(attr_ints("axes", &list));
            }
        }
        if !keep {
            attrs.push(attr_i("keepdims", 0));
        } else if self.rng.chance(0.3) {
            attrs.push(attr_i("keepdims", 1));
        }
        self.node1(op, inputs, attrs, out);
        true
    }
}
