//! Composite nodes: `Einsum` (explicit and implicit outputs, contractions,
//! transposes, sums, an operand's diagonal, ellipses), `ConvTranspose`
//! (strides, dilations, pads, output_padding, group, output_shape) and
//! `Resize` (scales or sizes, the modes, coordinate transformations,
//! nearest modes, cubic coefficient, exclude_outside, axes,
//! keep_aspect_ratio_policy, antialias).

use super::{Builder, MAX_CELLS, attr_f, attr_i, attr_ints, attr_s, cells, f32_tensor};

const LETTERS: &[u8] = b"abcdefgh";

impl Builder<'_> {
    pub(super) fn einsum(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.len() <= 4) else {
            return false;
        };
        let r = x.shape.len();
        let batch = x.shape.first().copied().unwrap_or(1);
        let ellipsis = r >= 2 && self.rng.chance(0.15);
        // x's letters (the leading one under `...` when `ellipsis`).
        let lead = usize::from(ellipsis);
        let mut dims: Vec<(u8, i64)> = (lead..r).map(|i| (LETTERS[i], x.shape[i])).collect();
        let mut x_term: Vec<u8> = dims.iter().map(|d| d.0).collect();
        // A repeated letter (the diagonal) where two dims agree.
        if !ellipsis && r >= 2 && x.shape[r - 1] == x.shape[r - 2] && self.rng.chance(0.2) {
            x_term[r - 1] = x_term[r - 2];
            dims.pop();
        }
        let mut terms = vec![x_term];
        let mut inputs = vec![x.name];
        if self.rng.chance(0.7) {
            // A second operand: some of x's letters and new ones.
            let mut t: Vec<u8> = dims
                .iter()
                .map(|d| d.0)
                .filter(|_| self.rng.chance(0.6))
                .collect();
            for j in 0..self.rng.index(3) {
                let l = LETTERS[4 + j];
                let n = self.rng.range(1, 4) as i64;
                dims.push((l, n));
                t.push(l);
            }
            self.rng.shuffle(&mut t);
            let mut shape: Vec<i64> = t
                .iter()
                .map(|l| dims.iter().find(|d| d.0 == *l).expect("a letter").1)
                .collect();
            if ellipsis {
                shape.insert(0, x.shape[0]);
            }
            inputs.push(self.init_f32(&shape, -1.0, 1.0));
            terms.push(t);
        }
        let count = |l: u8| {
            terms
                .iter()
                .map(|t| t.iter().filter(|&&c| c == l).count())
                .sum::<usize>()
        };
        let implicit = self.rng.chance(0.25);
        let mut out_letters: Vec<u8> = if implicit {
            let mut o: Vec<u8> = dims
                .iter()
                .map(|d| d.0)
                .filter(|&l| count(l) == 1)
                .collect();
            o.sort_unstable();
            o
        } else {
            let mut o: Vec<u8> = dims
                .iter()
                .map(|d| d.0)
                .filter(|_| self.rng.chance(0.6))
                .collect();
            self.rng.shuffle(&mut o);
            o
        };
        out_letters.dedup();
        let mut out: Vec<i64> = out_letters
            .iter()
            .map(|l| dims.iter().find(|d| d.0 == *l).expect("a letter").1)
            .collect();
        let pre = if ellipsis { "..." } else { "" };
        let mut eq = terms
            .iter()
            .map(|t| format!("{pre}{}", String::from_utf8_lossy(t)))
            .collect::<Vec<_>>()
            .join(",");
        if ellipsis {
            out.insert(0, batch);
        }
        if !implicit {
            eq = format!("{eq}->{pre}{}", String::from_utf8_lossy(&out_letters));
        }
        if cells(&out) > MAX_CELLS {
            return false;
        }
        self.node1("Einsum", inputs, vec![attr_s("equation", &eq)], out);
        true
    }

    pub(super) fn conv_transpose(&mut self) -> bool {
        let Some(x) = self.pick(|s| (3..=4).contains(&s.len())) else {
            return false;
        };
        let c = x.shape[1];
        let sp = x.shape.len() - 2;
        let divisors: Vec<i64> = (1..=c).filter(|g| c % g == 0).collect();
        let group = if self.rng.chance(0.3) {
            *self.rng.pick(&divisors)
        } else {
            1
        };
        let m_per = self.rng.range(1, 2) as i64;
        let kernel: Vec<i64> = (0..sp).map(|_| self.rng.range(1, 3) as i64).collect();
        let strides: Vec<i64> = (0..sp).map(|_| self.rng.range(1, 2) as i64).collect();
        let dil: Vec<i64> = (0..sp)
            .map(|_| if self.rng.chance(0.2) { 2 } else { 1 })
            .collect();
        let mut pads = vec![0i64; 2 * sp];
        let mut opad = vec![0i64; sp];
        let mut out = vec![x.shape[0], m_per * group];
        for i in 0..sp {
            let eff = dil[i] * (kernel[i] - 1) + 1;
            pads[i] = self.rng.range(0, (kernel[i] - 1) as u64) as i64;
            pads[i + sp] = self.rng.range(0, (kernel[i] - 1) as u64) as i64;
            if strides[i] > 1 && self.rng.chance(0.3) {
                opad[i] = self.rng.range(0, (strides[i].max(dil[i]) - 1) as u64) as i64;
            }
            let o = strides[i] * (x.shape[i + 2] - 1) + opad[i] + eff - pads[i] - pads[i + sp];
            if o < 1 {
                return false;
            }
            out.push(o);
        }
        if cells(&out) > MAX_CELLS {
            return false;
        }
        let mut w_shape = vec![c, m_per];
        w_shape.extend(&kernel);
        let w = self.init_f32(&w_shape, -1.0, 1.0);
        let mut inputs = vec![x.name, w];
        if self.rng.chance(0.5) {
            inputs.push(self.init_f32(&[m_per * group], -1.0, 1.0));
        }
        let mut attrs = vec![];
        if self.rng.chance(0.5) {
            attrs.push(attr_ints("kernel_shape", &kernel));
        }
        if strides.iter().any(|&s| s != 1) || self.rng.chance(0.2) {
            attrs.push(attr_ints("strides", &strides));
        }
        if dil.iter().any(|&d| d != 1) {
            attrs.push(attr_ints("dilations", &dil));
        }
        if group != 1 {
            attrs.push(attr_i("group", group));
        }
        if self.rng.chance(0.2) && pads.iter().all(|&p| p == 0) && opad.iter().all(|&p| p == 0) {
            attrs.push(attr_ints("output_shape", &out[2..]));
        } else {
            if pads.iter().any(|&p| p != 0) || self.rng.chance(0.2) {
                attrs.push(attr_ints("pads", &pads));
            }
            if opad.iter().any(|&p| p != 0) {
                attrs.push(attr_ints("output_padding", &opad));
            }
        }
        self.node1("ConvTranspose", inputs, attrs, out);
        true
    }

    pub(super) fn resize(&mut self) -> bool {
        let Some(x) = self.pick(|s| (3..=4).contains(&s.len())) else {
            return false;
        };
        let r = x.shape.len();
        // onnxruntime's cubic kernel takes 2-D or 4-D inputs only.
        let modes: &[&str] = if r == 4 {
            &["nearest", "nearest", "linear", "cubic"]
        } else {
            &["nearest", "nearest", "linear"]
        };
        let mode = *self.rng.pick(modes);
        let mut attrs = vec![];
        if mode != "nearest" || self.rng.chance(0.3) {
            attrs.push(attr_s("mode", mode));
        }
        self.resize_attrs(mode, &mut attrs);
        // The spatial axes resized (the axes attribute from opset 18).
        let axes_attr = self.opset >= 18 && self.rng.chance(0.3);
        let mut out = x.shape.clone();
        let mut inputs = vec![x.name, String::new()];
        if self.rng.chance(0.5) {
            let scales: Vec<f32> = (2..r)
                .map(|_| *self.rng.pick(&[0.5f32, 0.75, 1.0, 1.5, 2.0, 3.0]))
                .collect();
            for i in 2..r {
                out[i] = (x.shape[i] as f32 * scales[i - 2]).floor() as i64;
            }
            let mut all = vec![1.0f32, 1.0];
            all.extend(&scales);
            let data = if axes_attr { scales } else { all };
            let name = self.fresh("w");
            let n = data.len() as i64;
            self.inits.push(f32_tensor(&name, &[n], data, false));
            inputs.push(name);
        } else {
            let sizes: Vec<i64> = (2..r)
                .map(|i| (x.shape[i] * self.rng.range(1, 6) as i64 / 2).max(1))
                .collect();
            out[2..].copy_from_slice(&sizes);
            if self.opset >= 18 && self.rng.chance(0.3) {
                let policy = *self.rng.pick(&["not_larger", "not_smaller", "stretch"]);
                attrs.push(attr_s("keep_aspect_ratio_policy", policy));
                if policy != "stretch" {
                    let scale = |d: i64, s: i64| s as f64 / d as f64;
                    let ratios: Vec<f64> =
                        (2..r).map(|i| scale(x.shape[i], sizes[i - 2])).collect();
                    let k = if policy == "not_larger" {
                        ratios.iter().copied().fold(f64::INFINITY, f64::min)
                    } else {
                        ratios.iter().copied().fold(0.0, f64::max)
                    };
                    for (o, &d) in out.iter_mut().zip(&x.shape).skip(2) {
                        *o = (d as f64 * k).round() as i64;
                    }
                }
            }
            let mut all = x.shape[..2].to_vec();
            all.extend(&sizes);
            let data = if axes_attr { sizes } else { all };
            inputs.push(String::new());
            inputs.push(self.init_i64(data, false));
        }
        if out.iter().any(|&d| d < 1) || cells(&out) > MAX_CELLS {
            return false;
        }
        if axes_attr {
            let axes: Vec<usize> = (2..r).collect();
            // onnxruntime ignores a keep_aspect_ratio_policy over
            // negative axes: them only without one.
            let policy = attrs
                .iter()
                .any(|a| a.name.as_deref() == Some("keep_aspect_ratio_policy"));
            let list = if policy {
                axes.iter().map(|&a| a as i64).collect()
            } else {
                self.axes_list(&axes, r)
            };
            attrs.push(attr_ints("axes", &list));
        }
        self.node1("Resize", inputs, attrs, out);
        true
    }

    fn resize_attrs(&mut self, mode: &str, attrs: &mut Vec<super::AttributeProto>) {
        // onnxruntime's linear and cubic kernels depart from ONNX's
        // reference (and ocannl) with align_corners, half_pixel_symmetric
        // (shrinking an axis) and pytorch_half_pixel (3-D, to one cell).
        let mut ctms = vec!["half_pixel", "asymmetric"];
        if mode == "nearest" {
            ctms.extend(["align_corners", "pytorch_half_pixel"]);
            if self.opset >= 19 {
                ctms.push("half_pixel_symmetric");
            }
        }
        if self.rng.chance(0.7) {
            let ctm = *self.rng.pick(&ctms);
            attrs.push(attr_s("coordinate_transformation_mode", ctm));
        }
        if mode == "nearest" && self.rng.chance(0.6) {
            let nm = *self
                .rng
                .pick(&["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]);
            attrs.push(attr_s("nearest_mode", nm));
        }
        if mode == "cubic" {
            if self.rng.chance(0.5) {
                attrs.push(attr_f("cubic_coeff_a", *self.rng.pick(&[-0.5, -0.75])));
            }
            if self.rng.chance(0.3) {
                attrs.push(attr_i("exclude_outside", 1));
            }
        }
        if mode != "nearest" && self.opset >= 18 && self.rng.chance(0.2) {
            attrs.push(attr_i("antialias", 1));
        }
    }
}
