//! ScatterElements and ScatterND nodes: indices constant (duplicates and
//! negative ones among them) or computed at run time from an exact value
//! (wrapped into range, as `gather_run_time` does), updates a value of
//! the graph or an initializer, each reduction the opset allows.
//! TensorScatter (opset 24) is past the opsets generated.

use super::extra::INT64;
use super::{Builder, MAX_CELLS, attr_i, attr_s, cells};

impl Builder<'_> {
    pub(super) fn scatter(&mut self) -> bool {
        if self.rng.chance(0.5) {
            self.scatter_elements()
        } else {
            self.scatter_nd()
        }
    }

    /// A reduction attribute the opset allows (none: absent or "none";
    /// the attribute exists from opset 16).
    fn scatter_reduction(&mut self) -> Option<&'static str> {
        if self.opset < 16 {
            return None;
        }
        let mut all = vec!["none"];
        if self.opset >= 16 {
            all.extend(["add", "mul"]);
        }
        if self.opset >= 18 {
            all.extend(["max", "min"]);
        }
        let r = *self.rng.pick(&all);
        (r != "none" || self.rng.chance(0.3)).then_some(r)
    }

    /// Indices of `shape` for axes of `sizes` (the last axis of `shape`
    /// cycles through them): constant, or from an exact value of `shape`
    /// at run time.
    fn scatter_indices(&mut self, shape: &[i64], sizes: &[i64]) -> String {
        let n = cells(shape);
        if let Some(v) = self.pick_exact(|s| s == shape)
            && self.rng.chance(0.5)
        {
            let k = self.init_f32(&[], 8.0, 8.0);
            let lo = self.init_f32(&[], -2.0, -2.0);
            let hi = self.init_f32(&[], 2.0, 2.0);
            let c = self.aux("Clip", vec![v.name, lo, hi], vec![]);
            let m = self.aux("Mul", vec![c, k], vec![]);
            let ab = self.aux("Abs", vec![m], vec![]);
            let i = self.cast(ab, INT64);
            let dd = self.init_int(&[sizes.len() as i64], INT64, sizes);
            let mut idx = self.aux("Mod", vec![i, dd.clone()], vec![]);
            if self.rng.chance(0.3) {
                idx = self.aux("Sub", vec![idx, dd], vec![]);
            }
            return idx;
        }
        let data: Vec<i64> = (0..n)
            .map(|j| {
                let d = sizes[j as usize % sizes.len()];
                let v = self.rng.below(d as u64) as i64;
                if self.rng.chance(0.3) { v - d } else { v }
            })
            .collect();
        self.init_int(shape, INT64, &data)
    }

    /// Updates of `shape`: a value of the graph when one fits, else an
    /// initializer.
    fn scatter_updates(&mut self, shape: &[i64]) -> String {
        match self.pick(|s| s == shape) {
            Some(v) if self.rng.chance(0.6) => v.name,
            _ => self.init_f32(shape, -2.0, 2.0),
        }
    }

    fn scatter_elements(&mut self) -> bool {
        let Some(data) = self.pick(|s| (1..=4).contains(&s.len())) else {
            return false;
        };
        let r = data.shape.len();
        let (a, ai) = self.axis(r);
        // The indices: at most the data's size on the other axes, any
        // count along the axis.
        let shape: Vec<i64> = (0..r)
            .map(|d| {
                if d == ai {
                    self.rng.range(1, 6) as i64
                } else if self.rng.chance(0.7) {
                    data.shape[d]
                } else {
                    self.rng.range(1, data.shape[d] as u64) as i64
                }
            })
            .collect();
        if cells(&shape) > MAX_CELLS {
            return false;
        }
        let idx = self.scatter_indices(&shape, &[data.shape[ai]]);
        let upd = self.scatter_updates(&shape);
        let mut attrs = Vec::new();
        if ai != 0 || self.rng.chance(0.5) {
            attrs.push(attr_i("axis", a));
        }
        if let Some(red) = self.scatter_reduction() {
            attrs.push(attr_s("reduction", red));
        }
        self.node1(
            "ScatterElements",
            vec![data.name, idx, upd],
            attrs,
            data.shape,
        );
        true
    }

    fn scatter_nd(&mut self) -> bool {
        let Some(data) = self.pick(|s| (1..=4).contains(&s.len())) else {
            return false;
        };
        let r = data.shape.len();
        let k = self.rng.range(1, r as u64) as usize;
        let batch: Vec<i64> = (0..self.rng.index(3))
            .map(|_| self.rng.range(1, 4) as i64)
            .collect();
        let mut shape = batch.clone();
        shape.push(k as i64);
        let mut upd_shape = batch;
        upd_shape.extend(&data.shape[k..]);
        if cells(&upd_shape) > MAX_CELLS || cells(&shape) > MAX_CELLS {
            return false;
        }
        let idx = self.scatter_indices(&shape, &data.shape[..k]);
        let upd = self.scatter_updates(&upd_shape);
        let mut attrs = Vec::new();
        if let Some(red) = self.scatter_reduction() {
            attrs.push(attr_s("reduction", red));
        }
        self.node1("ScatterND", vec![data.name, idx, upd], attrs, data.shape);
        true
    }
}
