//! Nodes that select, repeat or pad cells: `Slice` (negative starts and
//! steps, clamped ends, axes and steps optional), `Pad` (constant, reflect,
//! edge, wrap; negative pads cropping; the value and axes inputs),
//! `Expand`, `Tile`, `Trilu` (upper, k), `EyeLike` (k, dtype),
//! `SpaceToDepth` and `DepthToSpace` (blocksize, DCR and CRD).

use super::extra::{FLOAT, INT64};
use super::{Builder, MAX_CELLS, attr_i, attr_s, broadcast, cells, f32_tensor};

/// The length of `start:end:step` over an axis of `d` cells (ONNX's
/// clamping).
fn slice_len(d: i64, start: i64, end: i64, step: i64) -> i64 {
    let fix = |v: i64| if v < 0 { v.saturating_add(d) } else { v };
    let (s, e) = (fix(start), fix(end));
    if step > 0 {
        let (s, e) = (s.clamp(0, d), e.clamp(0, d));
        ((e - s).max(0) + step - 1) / step
    } else {
        let (s, e) = (s.clamp(0, d - 1), e.clamp(-1, d - 1));
        ((s - e).max(0) + (-step) - 1) / (-step)
    }
}

impl Builder<'_> {
    pub(super) fn slice(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let r = x.shape.len();
        let mut axes: Vec<usize> = (0..r).filter(|_| self.rng.chance(0.5)).collect();
        if axes.is_empty() {
            axes.push(self.rng.index(r));
        }
        self.rng.shuffle(&mut axes);
        let all_in_order = axes.len() == r && axes.iter().enumerate().all(|(i, &a)| i == a);
        let (mut starts, mut ends, mut steps) = (vec![], vec![], vec![]);
        let mut out = x.shape.clone();
        for &a in &axes {
            let d = x.shape[a];
            let step = *self.rng.pick(&[1, 1, 1, 2, 3, -1, -1, -2]);
            let start =
                self.rng.range(0, d as u64) as i64 - if self.rng.chance(0.3) { d } else { 0 };
            let end = match self.rng.index(5) {
                0 if step > 0 => i64::MAX,
                0 => i64::MIN,
                1 => self.rng.range(0, d as u64 + 2) as i64 - d - 1,
                _ => self.rng.range(0, d as u64 + 1) as i64,
            };
            let n = slice_len(d, start, end, step);
            if n < 1 {
                return false;
            }
            out[a] = n;
            starts.push(start);
            ends.push(end);
            steps.push(step);
        }
        let mut inputs = vec![
            x.name,
            self.init_i64(starts, false),
            self.init_i64(ends, false),
        ];
        let unit = steps.iter().all(|&s| s == 1);
        let list = self.axes_list(&axes, r);
        if !(all_in_order && unit && self.rng.chance(0.5)) {
            inputs.push(self.init_i64(list, false));
            if !unit || self.rng.chance(0.3) {
                inputs.push(self.init_i64(steps, false));
            }
        }
        self.node1("Slice", inputs, vec![], out);
        true
    }

    pub(super) fn pad(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let r = x.shape.len();
        let mut modes = vec!["constant", "reflect", "edge"];
        if self.opset >= 19 {
            modes.push("wrap");
        }
        let mode = *self.rng.pick(&modes);
        // The padded axes (all, or an `axes` input from opset 18).
        let axes: Vec<usize> = if self.opset >= 18 && self.rng.chance(0.3) {
            let mut a: Vec<usize> = (0..r).filter(|_| self.rng.chance(0.5)).collect();
            if a.is_empty() {
                a.push(self.rng.index(r));
            }
            a
        } else {
            (0..r).collect()
        };
        let n = axes.len();
        let mut pads = vec![0i64; 2 * n];
        let mut out = x.shape.clone();
        for (j, &a) in axes.iter().enumerate() {
            let d = x.shape[a];
            for side in [j, j + n] {
                let p = match mode {
                    "reflect" => self.rng.range(0, (d - 1).min(2) as u64) as i64,
                    "wrap" => self.rng.range(0, d.min(2) as u64) as i64,
                    "constant" if self.rng.chance(0.15) && out[a] > 1 => -1,
                    _ => self.rng.range(0, 2) as i64,
                };
                pads[side] = p;
                out[a] += p;
            }
            if out[a] < 1 {
                return false;
            }
        }
        if cells(&out) > MAX_CELLS {
            return false;
        }
        let mut inputs = vec![x.name, self.init_i64(pads, false)];
        if mode == "constant" && self.rng.chance(0.5) {
            let v = self.floats(1, -2.0, 2.0);
            let name = self.fresh("s");
            let dims = if self.rng.chance(0.7) {
                vec![]
            } else {
                vec![1]
            };
            self.inits.push(f32_tensor(&name, &dims, v, false));
            inputs.push(name);
        }
        if axes.len() != r || (self.opset >= 18 && self.rng.chance(0.1)) {
            if inputs.len() == 2 {
                inputs.push(String::new());
            }
            let list = self.axes_list(&axes, r);
            inputs.push(self.init_i64(list, false));
        }
        let mut attrs = vec![];
        if mode != "constant" || self.rng.chance(0.3) {
            attrs.push(attr_s("mode", mode));
        }
        self.node1("Pad", inputs, attrs, out);
        true
    }

    pub(super) fn expand(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let lead = self.rng.index(3);
        let mut shape: Vec<i64> = (0..lead).map(|_| self.rng.range(1, 3) as i64).collect();
        for &d in &x.shape {
            shape.push(match d {
                1 => self.rng.range(1, 3) as i64,
                _ if self.rng.chance(0.3) => 1,
                _ => d,
            });
        }
        let Some(out) = broadcast(&x.shape, &shape) else {
            return false;
        };
        if cells(&out) > MAX_CELLS {
            return false;
        }
        let c = self.init_i64(shape, false);
        self.node1("Expand", vec![x.name, c], vec![], out);
        true
    }

    pub(super) fn tile(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let reps: Vec<i64> = x
            .shape
            .iter()
            .map(|_| {
                if self.rng.chance(0.5) {
                    1
                } else {
                    self.rng.range(1, 3) as i64
                }
            })
            .collect();
        let out: Vec<i64> = x.shape.iter().zip(&reps).map(|(d, r)| d * r).collect();
        if cells(&out) > MAX_CELLS {
            return false;
        }
        let c = self.init_i64(reps, false);
        self.node1("Tile", vec![x.name, c], vec![], out);
        true
    }

    pub(super) fn trilu(&mut self) -> bool {
        if self.opset < 14 {
            return false;
        }
        let Some(x) = self.pick(|s| s.len() >= 2) else {
            return false;
        };
        let mut inputs = vec![x.name];
        if self.rng.chance(0.6) {
            let k = self.rng.range(0, 6) as i64 - 3;
            inputs.push(self.init_i64(vec![k], true));
        }
        let mut attrs = vec![];
        if self.rng.chance(0.7) {
            attrs.push(attr_i("upper", self.rng.index(2) as i64));
        }
        self.node1("Trilu", inputs, attrs, x.shape);
        true
    }

    /// `EyeLike` of a matrix, added to it.
    pub(super) fn eye_like(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.len() == 2) else {
            return false;
        };
        let mut attrs = vec![];
        if self.rng.chance(0.6) {
            attrs.push(attr_i("k", self.rng.range(0, 4) as i64 - 2));
        }
        let eye = if self.rng.chance(0.4) {
            attrs.push(attr_i("dtype", INT64 as i64));
            let e = self.aux("EyeLike", vec![x.name.clone()], attrs);
            self.cast(e, FLOAT)
        } else {
            if self.rng.chance(0.3) {
                attrs.push(attr_i("dtype", FLOAT as i64));
            }
            self.aux("EyeLike", vec![x.name.clone()], attrs)
        };
        self.node1("Add", vec![x.name, eye], vec![], x.shape);
        true
    }

    /// `SpaceToDepth`, maybe undone by `DepthToSpace`; or `DepthToSpace`
    /// of a value with enough channels.
    pub(super) fn space_depth(&mut self) -> bool {
        let b = *self.rng.pick(&[2i64, 2, 3]);
        let d2s = |s: &[i64]| s.len() == 4 && s[1] % (b * b) == 0;
        if self.rng.chance(0.3)
            && let Some(x) = self.pick(d2s)
        {
            let out = vec![
                x.shape[0],
                x.shape[1] / (b * b),
                x.shape[2] * b,
                x.shape[3] * b,
            ];
            let attrs = self.space_attrs(b, true);
            self.node1("DepthToSpace", vec![x.name], attrs, out);
            return true;
        }
        let Some(x) = self.pick(|s| s.len() == 4 && s[2] % b == 0 && s[3] % b == 0) else {
            return false;
        };
        let out = vec![
            x.shape[0],
            x.shape[1] * b * b,
            x.shape[2] / b,
            x.shape[3] / b,
        ];
        let attrs = self.space_attrs(b, false);
        let y = self.node1("SpaceToDepth", vec![x.name], attrs, out);
        if self.rng.chance(0.5) {
            let attrs = self.space_attrs(b, true);
            self.node1("DepthToSpace", vec![y], attrs, x.shape);
        }
        true
    }

    fn space_attrs(&mut self, b: i64, mode: bool) -> Vec<super::AttributeProto> {
        let mut attrs = vec![attr_i("blocksize", b)];
        if mode && self.rng.chance(0.6) {
            let m = *self.rng.pick(&["DCR", "CRD"]);
            attrs.push(attr_s("mode", m));
        }
        attrs
    }
}

#[cfg(test)]
mod tests {
    use super::slice_len;

    #[test]
    fn slices_clamp_as_onnx_says() {
        assert_eq!(slice_len(5, 0, i64::MAX, 1), 5);
        assert_eq!(slice_len(5, -1, i64::MIN, -1), 5);
        assert_eq!(slice_len(5, 1, 4, 2), 2);
        assert_eq!(slice_len(5, 4, -6, -2), 3);
        assert_eq!(slice_len(5, 3, 1, 1), 0);
    }
}
