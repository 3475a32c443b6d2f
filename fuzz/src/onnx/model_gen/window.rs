//! Windowed nodes over the spatial axes of an `N, C, spatial...` value:
//! `Conv` and `MaxPool`/`AveragePool` (kernel, strides, dilations, pads or
//! `auto_pad`, sized as onnxruntime sizes them), the global pools and
//! `LRN`.

use ocannl_onnx::proto::AttributeProto;

use super::{Builder, MAX_CELLS, attr_f, attr_i, attr_ints, attr_s, cells};

/// The output size of a convolution or pool along one axis (`None`:
/// empty).
fn window_out(
    input: i64,
    kernel: i64,
    stride: i64,
    dil: i64,
    pads: (i64, i64),
    ceil: bool,
) -> Option<i64> {
    let eff = dil * (kernel - 1) + 1;
    let span = input + pads.0 + pads.1 - eff;
    if span < 0 {
        return None;
    }
    let out = if ceil {
        (span + stride - 1) / stride + 1
    } else {
        span / stride + 1
    };
    if ceil && (out - 1) * stride >= input + pads.0 {
        // onnxruntime's kernels drop that window, ONNX's shape inference
        // (opsets before 19) does not: a model it cannot load.
        return None;
    }
    (out >= 1).then_some(out)
}

impl Builder<'_> {
    pub(super) fn conv(&mut self) -> bool {
        let Some(x) = self.pick(|s| (3..=5).contains(&s.len())) else {
            return false;
        };
        let c = x.shape[1];
        let divisors: Vec<i64> = (1..=c).filter(|g| c % g == 0).collect();
        let group = if self.rng.chance(0.4) {
            *self.rng.pick(&divisors)
        } else {
            1
        };
        let m = group * self.rng.range(1, 3) as i64;
        let Some((kernel, strides, dil, pads, auto_pad, spatial)) =
            self.window(&x.shape[2..], true, false, false)
        else {
            return false;
        };
        let mut out = vec![x.shape[0], m];
        out.extend(&spatial);
        if cells(&out) > MAX_CELLS {
            return false;
        }
        let mut w_shape = vec![m, c / group];
        w_shape.extend(&kernel);
        let w = self.init_f32(&w_shape, -1.0, 1.0);
        let mut inputs = vec![x.name, w];
        if self.rng.chance(0.5) {
            inputs.push(self.init_f32(&[m], -1.0, 1.0));
        }
        let mut attrs = self.window_attrs(&kernel, &strides, Some(&dil), &pads, auto_pad, false);
        if group != 1 || self.rng.chance(0.1) {
            attrs.push(attr_i("group", group));
        }
        self.node1("Conv", inputs, attrs, out);
        true
    }

    pub(super) fn pool(&mut self) -> bool {
        let Some(x) = self.pick(|s| (3..=5).contains(&s.len())) else {
            return false;
        };
        let max = self.rng.chance(0.5);
        let ceil = self.rng.chance(0.25);
        let dil_ok = max || self.opset >= 19;
        let Some((kernel, strides, dil, pads, auto_pad, spatial)) =
            self.window(&x.shape[2..], dil_ok, true, ceil)
        else {
            return false;
        };
        let mut out = x.shape[..2].to_vec();
        out.extend(&spatial);
        let mut attrs = self.window_attrs(
            &kernel,
            &strides,
            dil_ok.then_some(&dil[..]),
            &pads,
            auto_pad,
            true,
        );
        if ceil {
            attrs.push(attr_i("ceil_mode", 1));
        }
        if !max && self.rng.chance(0.4) {
            attrs.push(attr_i("count_include_pad", 1));
        }
        let op = if max { "MaxPool" } else { "AveragePool" };
        self.node1(op, vec![x.name], attrs, out);
        true
    }

    pub(super) fn global_pool(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.len() >= 3) else {
            return false;
        };
        let mut out = x.shape[..2].to_vec();
        out.extend(std::iter::repeat_n(1, x.shape.len() - 2));
        let op = if self.rng.chance(0.5) {
            "GlobalAveragePool"
        } else {
            "GlobalMaxPool"
        };
        self.node1(op, vec![x.name], vec![], out);
        true
    }

    pub(super) fn lrn(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.len() == 4) else {
            return false;
        };
        let size = *self.rng.pick(&[1, 3, 5]);
        let mut attrs = vec![attr_i("size", size)];
        if self.rng.chance(0.5) {
            attrs.push(attr_f("alpha", 0.001));
            attrs.push(attr_f("beta", 0.75));
            attrs.push(attr_f("bias", 1.0));
        }
        self.node1("LRN", vec![x.name.clone()], attrs, x.shape);
        true
    }

    /// Window parameters for a conv or pool over `spatial` (None: no valid
    /// output). Returns (kernel, strides, dilations, pads, auto_pad,
    /// output spatial dims).
    #[allow(clippy::type_complexity)]
    fn window(
        &mut self,
        spatial: &[i64],
        dilations_ok: bool,
        pads_below_kernel: bool,
        ceil: bool,
    ) -> Option<(
        Vec<i64>,
        Vec<i64>,
        Vec<i64>,
        Vec<i64>,
        &'static str,
        Vec<i64>,
    )> {
        let s = spatial.len();
        let kernel: Vec<i64> = (0..s).map(|_| self.rng.range(1, 3) as i64).collect();
        let strides: Vec<i64> = (0..s).map(|_| self.rng.range(1, 2) as i64).collect();
        let dil: Vec<i64> = (0..s)
            .map(|_| {
                if dilations_ok && self.rng.chance(0.3) {
                    2
                } else {
                    1
                }
            })
            .collect();
        let auto_pad = *self.rng.pick(&[
            "NOTSET",
            "NOTSET",
            "NOTSET",
            "NOTSET",
            "SAME_UPPER",
            "SAME_LOWER",
            "VALID",
        ]);
        let mut pads = vec![0; 2 * s];
        let mut out = Vec::new();
        match auto_pad {
            "NOTSET" => {
                for i in 0..2 * s {
                    let k = kernel[i % s];
                    let max = if pads_below_kernel { k - 1 } else { 2 };
                    pads[i] = self.rng.range(0, max.max(0) as u64) as i64;
                }
                for i in 0..s {
                    out.push(window_out(
                        spatial[i],
                        kernel[i],
                        strides[i],
                        dil[i],
                        (pads[i], pads[i + s]),
                        ceil,
                    )?);
                }
            }
            "VALID" => {
                for i in 0..s {
                    out.push(window_out(
                        spatial[i],
                        kernel[i],
                        strides[i],
                        dil[i],
                        (0, 0),
                        ceil,
                    )?);
                }
            }
            _ => {
                // onnxruntime has no dilations with SAME padding.
                if ceil || dil.iter().any(|&d| d != 1) {
                    return None;
                }
                for i in 0..s {
                    let o = (spatial[i] + strides[i] - 1) / strides[i];
                    let eff = dil[i] * (kernel[i] - 1) + 1;
                    let total = (o - 1) * strides[i] + eff - spatial[i];
                    if total < 0 {
                        // onnxruntime: "padding values must be non-negative".
                        return None;
                    }
                    if pads_below_kernel && (total + 1) / 2 >= kernel[i] {
                        return None;
                    }
                    out.push(o);
                }
            }
        }
        Some((kernel, strides, dil, pads, auto_pad, out))
    }

    fn window_attrs(
        &mut self,
        kernel: &[i64],
        strides: &[i64],
        dil: Option<&[i64]>,
        pads: &[i64],
        auto_pad: &str,
        kernel_required: bool,
    ) -> Vec<AttributeProto> {
        let mut attrs = Vec::new();
        if kernel_required || self.rng.chance(0.5) {
            attrs.push(attr_ints("kernel_shape", kernel));
        }
        if strides.iter().any(|&s| s != 1) || self.rng.chance(0.3) {
            attrs.push(attr_ints("strides", strides));
        }
        if let Some(d) = dil
            && (d.iter().any(|&x| x != 1) || self.rng.chance(0.2))
        {
            attrs.push(attr_ints("dilations", d));
        }
        if auto_pad == "NOTSET" {
            if pads.iter().any(|&p| p != 0) || self.rng.chance(0.3) {
                attrs.push(attr_ints("pads", pads));
            }
            if self.rng.chance(0.1) {
                attrs.push(attr_s("auto_pad", "NOTSET"));
            }
        } else {
            attrs.push(attr_s("auto_pad", auto_pad));
        }
        attrs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_follow_onnxruntime() {
        // Checked against onnxruntime 1.32 (ceil mode drops a window that
        // would start in the right padding).
        assert_eq!(window_out(5, 3, 1, 1, (0, 0), false), Some(3));
        assert_eq!(window_out(5, 2, 2, 1, (0, 0), true), Some(3));
        assert_eq!(window_out(4, 2, 2, 1, (1, 1), true), Some(3));
        assert_eq!(window_out(2, 3, 2, 1, (0, 2), true), None);
        assert_eq!(window_out(2, 3, 1, 1, (0, 0), false), None);
    }
}
