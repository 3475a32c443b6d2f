//! More reductions and normalizations: `ReduceL1`, `ReduceL2`,
//! `ReduceLogSum`, `ReduceLogSumExp`, `ReduceSumSquare`, `ReduceProd`
//! (axes as an attribute before opset 18, an input from it; keepdims,
//! noop_with_empty_axes), `InstanceNormalization`, `GroupNormalization`
//! (opset 18; scale and bias per group before 21, per channel from it),
//! `RMSNormalization` (opset 23), `MeanVarianceNormalization` (axes) and
//! `LpNormalization` (axis, p).

use super::{Builder, attr_f, attr_i, attr_ints};

impl Builder<'_> {
    pub(super) fn reduce_more(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let op = *self.rng.pick(&[
            "ReduceL1",
            "ReduceL2",
            "ReduceLogSum",
            "ReduceLogSumExp",
            "ReduceSumSquare",
            "ReduceProd",
        ]);
        let r = x.shape.len();
        let keep = self.rng.chance(0.5);
        let mut axes: Vec<usize> = (0..r).filter(|_| self.rng.chance(0.4)).collect();
        if axes.is_empty() && r > 0 && self.rng.chance(0.7) {
            axes.push(self.rng.index(r));
        }
        // No axes: all of them, unless noop_with_empty_axes (opset 18).
        let noop = axes.is_empty() && self.opset >= 18 && self.rng.chance(0.3);
        let reduced: Vec<usize> = if axes.is_empty() && !noop {
            (0..r).collect()
        } else {
            axes.clone()
        };
        let out: Vec<i64> = (0..r)
            .filter_map(|i| match (reduced.contains(&i), keep) {
                (false, _) => Some(x.shape[i]),
                (true, true) => Some(1),
                (true, false) => None,
            })
            .collect();
        let mut inputs = vec![x.name];
        let mut attrs = Vec::new();
        if !axes.is_empty() {
            let list = self.axes_list(&axes, r);
            if self.opset >= 18 {
                inputs.push(self.init_i64(list, false));
            } else {
                attrs.push(attr_ints("axes", &list));
            }
        }
        if noop || (self.opset >= 18 && axes.is_empty() && self.rng.chance(0.2)) {
            attrs.push(attr_i("noop_with_empty_axes", i64::from(noop)));
        }
        if !keep || self.rng.chance(0.3) {
            attrs.push(attr_i("keepdims", i64::from(keep)));
        }
        self.node1(op, inputs, attrs, out);
        true
    }

    fn epsilon(&mut self, attrs: &mut Vec<super::AttributeProto>) {
        if self.rng.chance(0.4) {
            attrs.push(attr_f("epsilon", *self.rng.pick(&[1e-3, 1e-2, 0.1])));
        }
    }

    pub(super) fn instance_norm(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.len() >= 3) else {
            return false;
        };
        let c = x.shape[1];
        let scale = self.init_f32(&[c], 0.5, 1.5);
        let b = self.init_f32(&[c], -1.0, 1.0);
        let mut attrs = vec![];
        self.epsilon(&mut attrs);
        self.node1(
            "InstanceNormalization",
            vec![x.name, scale, b],
            attrs,
            x.shape,
        );
        true
    }

    pub(super) fn group_norm(&mut self) -> bool {
        if self.opset < 18 {
            return false;
        }
        let Some(x) = self.pick(|s| s.len() >= 3) else {
            return false;
        };
        let c = x.shape[1];
        let divisors: Vec<i64> = (1..=c).filter(|g| c % g == 0).collect();
        let g = *self.rng.pick(&divisors);
        let per = if self.opset >= 21 { c } else { g };
        let scale = self.init_f32(&[per], 0.5, 1.5);
        let b = self.init_f32(&[per], -1.0, 1.0);
        let mut attrs = vec![attr_i("num_groups", g)];
        self.epsilon(&mut attrs);
        if self.opset >= 21 && self.rng.chance(0.2) {
            attrs.push(attr_i("stash_type", 1));
        }
        self.node1("GroupNormalization", vec![x.name, scale, b], attrs, x.shape);
        true
    }

    pub(super) fn rms_norm(&mut self) -> bool {
        if self.opset < 23 {
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
        // Scale broadcasts against the normalized dims.
        let mut s: Vec<i64> = x.shape[ai..].to_vec();
        if self.rng.chance(0.3) {
            let k = self.rng.index(s.len());
            s = s[k..].to_vec();
        }
        let scale = self.init_f32(&s, 0.5, 1.5);
        let mut attrs = vec![];
        if a != -1 || self.rng.chance(0.3) {
            attrs.push(attr_i("axis", a));
        }
        self.epsilon(&mut attrs);
        self.node1("RMSNormalization", vec![x.name, scale], attrs, x.shape);
        true
    }

    pub(super) fn mvn(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let r = x.shape.len();
        let mut attrs = vec![];
        if r != 4 || self.rng.chance(0.6) {
            let mut axes: Vec<usize> = (0..r).filter(|_| self.rng.chance(0.5)).collect();
            if axes.is_empty() {
                axes.push(self.rng.index(r));
            }
            // Over a single cell onnxruntime's E[x²] - E[x]² can round
            // below 0 and its square root give NaN where 0 is meant.
            if axes.iter().map(|&a| x.shape[a]).product::<i64>() < 2 {
                return false;
            }
            let list = self.axes_list(&axes, r);
            attrs.push(attr_ints("axes", &list));
        } else if x.shape[0] * x.shape[2] * x.shape[3] < 2 {
            return false;
        }
        self.node1("MeanVarianceNormalization", vec![x.name], attrs, x.shape);
        true
    }

    pub(super) fn lp_norm(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let mut attrs = vec![];
        if self.rng.chance(0.6) {
            let (a, _) = self.axis(x.shape.len());
            attrs.push(attr_i("axis", a));
        }
        if self.rng.chance(0.6) {
            attrs.push(attr_i("p", *self.rng.pick(&[1, 2])));
        }
        self.node1("LpNormalization", vec![x.name], attrs, x.shape);
        true
    }
}
