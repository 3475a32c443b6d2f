//! ONNX Resize: per resized axis, each output cell as a weighted sum of a
//! few input cells (onnx.ai's reference `_interpolate_1d_along_axis`,
//! computed here at import: coordinate transformation, neighbours,
//! nearest / linear / cubic coefficients, antialias, exclude_outside,
//! extrapolation). Each tap is a gather (a where-einsum against `i -
//! idx[o]`, exact) times its weights; the taps add up.

use super::super::axes::Layout;
use super::super::{Attrs, R, Translator, Val};
use super::index::{known, with_axis};
use super::interp::{AxisPlan, Interp, plan_axis};
use crate::proto::NodeProto;

impl Translator {
    /// `x`'s selected axis (of `lay`, `n` cells) resized by `plan`.
    pub(super) fn resize_axis(
        &mut self,
        x: &Val,
        lay: &Layout,
        n: u64,
        plan: &AxisPlan,
        extrapolation: f64,
    ) -> R<Val> {
        let out = plan.taps.len() as u64;
        let k = super::index::selected_index(lay);
        let dims = with_axis(x, k, Some(out));
        let width = plan.taps.iter().map(Vec::len).max().unwrap_or(0);
        let range = self.iota(x.elem, n, 0)?;
        let zero = self.scalar(x.elem, 0.0);
        let from = lay.map(|_| Some("mi".into()));
        let to = lay.map(|_| Some("mo".into()));
        let mut sum: Option<Val> = None;
        for t in 0..width {
            let idx: Vec<f64> = plan
                .taps
                .iter()
                .map(|c| c.get(t).map_or(-1.0, |p| p.0 as f64))
                .collect();
            let w: Vec<f64> = plan
                .taps
                .iter()
                .map(|c| c.get(t).map_or(0.0, |p| p.1))
                .collect();
            let iv = self.vector(x.elem, &idx)?;
            let g = self.einsum(
                "mi; mo => mo,mi",
                &[&range, &iv],
                None,
                Some("sub"),
                format!("{out},{n}"),
            );
            let spec = self.axis_result(lay, dims.as_deref(), Some(out));
            let mut v = self.einsum(
                &format!("mo,mi; ; {from} => {to}"),
                &[&g, &zero, x],
                None,
                Some("where"),
                spec,
            );
            if plan
                .taps
                .iter()
                .any(|c| c.get(t).is_some_and(|p| p.1 != 1.0))
            {
                let wv = self.vector(x.elem, &w)?;
                let spec = self.axis_result(lay, dims.as_deref(), Some(out));
                v = self.einsum(&format!("{to}; mo => {to}"), &[&v, &wv], None, None, spec);
            }
            v = known(v, dims.clone(), x.rank);
            sum = Some(match sum {
                None => v,
                Some(s) => {
                    let spec = s.spec.clone();
                    known(self.binary("add", &s, &v, spec)?, dims.clone(), x.rank)
                }
            });
        }
        let Some(mut v) = sum else {
            return self.err("Resize to an axis without cells is not supported (empty tensors)");
        };
        if plan.outside.iter().any(|&o| o) {
            let inside: Vec<f64> = plan
                .outside
                .iter()
                .map(|&o| if o { 0.0 } else { 1.0 })
                .collect();
            let m = self.vector(x.elem, &inside)?;
            let e = self.scalar(x.elem, extrapolation);
            let spec = self.axis_result(lay, dims.as_deref(), Some(out));
            v = self.einsum(
                &format!("mo; {to}; => {to}"),
                &[&m, &v, &e],
                None,
                Some("where"),
                spec,
            );
            v = known(v, dims, x.rank);
        }
        Ok(v)
    }
}

/// A resized axis: its number, scale, output size and region of interest.
type Resized = (usize, f64, u64, (f64, f64));

/// Where `isclose` (Python's defaults) would call `a` 1.
fn near_one(a: f64) -> bool {
    (a - 1.0).abs() <= 1e-9 * a.abs().max(1.0)
}

impl Translator {
    /// A constant float input (`None`: absent or empty).
    fn const_floats(&self, node: &NodeProto, i: usize) -> R<Option<Vec<f64>>> {
        match self.const_input(node, i)? {
            None => Ok(None),
            Some(t) if t.is_empty() => Ok(None),
            Some(t) => match t.to_f64() {
                Some(v) => Ok(Some(v)),
                None => self.err(format!("input #{i} must hold numbers")),
            },
        }
    }

    /// Resize's interpolation from `mode` and its attributes.
    fn interp(&self, node: &NodeProto, x: &Val) -> R<Interp> {
        let at = Attrs::of(node);
        let antialias = match at.int("antialias").unwrap_or(0) {
            0 => false,
            1 => true,
            v => return self.err(format!("the attribute 'antialias' must be 0 or 1, got {v}")),
        };
        let mode = at.string("mode").unwrap_or_else(|| "nearest".into());
        let i = match mode.as_str() {
            "nearest" if antialias => {
                return self.err("antialias with mode 'nearest' is not supported");
            }
            "nearest" if self.opset < 11 => Interp::Nearest("floor".into()),
            "nearest" => Interp::Nearest(
                at.string("nearest_mode")
                    .unwrap_or_else(|| "round_prefer_floor".into()),
            ),
            "linear" => Interp::Linear { antialias },
            "cubic" if self.opset >= 11 => Interp::Cubic {
                a: at.float("cubic_coeff_a").map_or(-0.75, f64::from),
                antialias,
            },
            other => return self.err(format!("Resize mode '{other}' is not supported")),
        };
        if !matches!(i, Interp::Nearest(_)) && !x.elem.is_float() {
            return self.err(format!(
                "Resize mode '{mode}' of {} tensors is not supported",
                x.elem.mlir()
            ));
        }
        Ok(i)
    }

    /// The resized axes with their scales, output sizes and regions of
    /// interest (onnx.ai's `_interpolate_nd`): `(axis, scale, out, roi)`.
    fn resize_axes(&self, node: &NodeProto, d: &[u64]) -> R<Vec<Resized>> {
        let at = Attrs::of(node);
        let r = d.len();
        let (roi, scales, sizes) = if self.opset < 11 {
            (None, self.old_scales(node)?, None)
        } else {
            (
                self.const_floats(node, 1)?,
                self.const_floats(node, 2)?,
                self.const_ints(node, 3)?.filter(|s| !s.is_empty()),
            )
        };
        let axes: Vec<usize> = match at.ints("axes") {
            None => (0..r).collect(),
            Some(a) => {
                Layout::new(&a, Some(r)).map_err(|m| self.error(m))?;
                a.iter()
                    .map(|&v| {
                        if v < 0 {
                            (v + r as i64) as usize
                        } else {
                            v as usize
                        }
                    })
                    .collect()
            }
        };
        let k = axes.len();
        let mut scale = vec![1.0; r];
        let mut out = d.to_vec();
        match (&scales, &sizes) {
            (Some(_), Some(_)) => return self.err("Resize with both scales and sizes"),
            (None, None) => return self.err("Resize needs its scales or sizes input"),
            (Some(s), None) => {
                if s.len() != k || s.iter().any(|&v| !(v > 0.0 && v < 1e9)) {
                    return self.err(format!("scales {s:?} for {k} axes"));
                }
                // The size the file records for the output, if any.
                let declared = node
                    .output
                    .first()
                    .and_then(|o| self.declared.get(o.as_str()))
                    .filter(|v| v.len() == r);
                for (j, &a) in axes.iter().enumerate() {
                    scale[a] = s[j];
                    // In f32, as onnxruntime computes it (0.7 * 40 is 28),
                    // unless the file records ONNX's f64 rounding (27).
                    let (ort, exact) = (
                        (s[j] as f32 * d[a] as f32).floor() as u64,
                        (s[j] * d[a] as f64).floor() as u64,
                    );
                    out[a] = match declared {
                        Some(v) if v[a] == exact => exact,
                        _ => ort,
                    };
                }
            }
            (None, Some(s)) => {
                if s.len() != k || s.iter().any(|&v| !(1..1 << 40).contains(&v)) {
                    return self.err(format!("sizes {s:?} for {k} axes"));
                }
                for (j, &a) in axes.iter().enumerate() {
                    scale[a] = s[j] as f64 / d[a] as f64;
                    out[a] = s[j] as u64;
                }
                let policy = at
                    .string("keep_aspect_ratio_policy")
                    .unwrap_or_else(|| "stretch".into());
                let pick = axes.iter().map(|&a| scale[a]);
                let one = match policy.as_str() {
                    "stretch" => None,
                    "not_larger" => pick.reduce(f64::min),
                    "not_smaller" => pick.reduce(f64::max),
                    other => {
                        return self.err(format!(
                            "keep_aspect_ratio_policy '{other}' is not supported"
                        ));
                    }
                };
                if let Some(s) = one {
                    for &a in &axes {
                        scale[a] = s;
                        out[a] = (s * d[a] as f64 + 0.5) as u64;
                    }
                }
            }
        }
        self.resized(node, (d, &out, &scale), &axes, roi)
    }

    /// The resized axes among `axes` (each checked), with their regions of
    /// interest (`roi`: begins then ends, one per axis of `axes`).
    fn resized(
        &self,
        node: &NodeProto,
        (d, out, scale): (&[u64], &[u64], &[f64]),
        axes: &[usize],
        roi: Option<Vec<f64>>,
    ) -> R<Vec<Resized>> {
        let at = Attrs::of(node);
        let (r, k) = (d.len(), axes.len());
        let mut rois = vec![(0.0, 1.0); r];
        if let Some(v) = roi {
            if v.len() != 2 * k {
                return self.err(format!("roi of {} values for {k} axes", v.len()));
            }
            for (j, &a) in axes.iter().enumerate() {
                rois[a] = (v[j], v[k + j]);
            }
        }
        let mut plan = Vec::new();
        for &a in axes {
            if out[a] > 1 << 24 || (out[a] != d[a] && d[a] > 1 << 24) {
                return self.err(format!(
                    "Resize of an axis of {} to {} cells is not supported (at most 2^24)",
                    d[a], out[a]
                ));
            }
            if scale[a] < 1e-4 && at.int("antialias") == Some(1) {
                return self.err("antialias with a scale below 1e-4 is not supported");
            }
            if out[a] == 0 {
                return self.err("Resize to an empty axis is not supported (empty tensors)");
            }
            let trivial = rois[a].0.abs() <= 1e-9 && near_one(rois[a].1);
            if near_one(scale[a]) && out[a] == d[a] && trivial {
                continue;
            }
            plan.push((a, scale[a], out[a], rois[a]));
        }
        Ok(plan)
    }

    /// The scales of Resize-10 (an input) or Upsample (an attribute
    /// before opset 9, an input from it).
    fn old_scales(&self, node: &NodeProto) -> R<Option<Vec<f64>>> {
        if node.op_type.as_deref() == Some("Upsample") {
            if self.opset >= 10 {
                return self.err("Upsample from opset 10 (deprecated: Resize) is not supported");
            }
            if let Some(s) = Attrs::of(node).floats("scales") {
                return Ok(Some(s.into_iter().map(f64::from).collect()));
            }
        }
        self.const_floats(node, 1)
    }

    /// The scales of a Resize, one per axis of `x` (its rank known), when
    /// given as constant integers of at least 1 (`None` otherwise).
    fn integer_scales(&self, node: &NodeProto, x: &Val) -> R<Option<Vec<u64>>> {
        let Some(r) = x.rank else {
            return Ok(None);
        };
        let at = Attrs::of(node);
        let (roi, scales) = if self.opset < 11 {
            (None, self.old_scales(node)?)
        } else {
            if self.const_ints(node, 3)?.is_some_and(|s| !s.is_empty()) {
                return Ok(None);
            }
            (self.const_floats(node, 1)?, self.const_floats(node, 2)?)
        };
        let (Some(s), None) = (scales, roi) else {
            return Ok(None);
        };
        let axes: Vec<i64> = at.ints("axes").unwrap_or_else(|| (0..r as i64).collect());
        Layout::new(&axes, Some(r)).map_err(|m| self.error(m))?;
        if s.len() != axes.len()
            || s.iter()
                .any(|&v| v.fract() != 0.0 || !(1.0..=1024.0).contains(&v))
        {
            return Ok(None);
        }
        let mut out = vec![1; r];
        for (j, &a) in axes.iter().enumerate() {
            out[if a < 0 {
                (a + r as i64) as usize
            } else {
                a as usize
            }] = s[j] as u64;
        }
        Ok(Some(out))
    }

    /// ONNX Resize (opset 10 on), on an input of known dims.
    pub(super) fn resize(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let interp = self.interp(node, &x)?;
        let mode = if self.opset < 11 {
            "asymmetric".to_owned()
        } else {
            at.string("coordinate_transformation_mode")
                .unwrap_or_else(|| "half_pixel".into())
        };
        let Some(d) = x.shape.clone() else {
            let v = match self.integer_scales(node, &x)? {
                Some(sc) => self.upsample(&x, &interp, &mode, &sc)?,
                None => None,
            };
            let Some(v) = v else {
                return self.err(
                    "Resize needs the input's dims, which are not known here (not supported; without them: integer scales, nearest or linear, asymmetric or half-pixel)",
                );
            };
            self.bind(node, 0, v);
            return Ok(());
        };
        let exclude = match at.int("exclude_outside").unwrap_or(0) {
            0 => false,
            1 => true,
            v => {
                return self.err(format!(
                    "the attribute 'exclude_outside' must be 0 or 1, got {v}"
                ));
            }
        };
        let extrapolation = at.float("extrapolation_value").map_or(0.0, f64::from);
        let axes = self.resize_axes(node, &d)?;
        let mut v = x.clone();
        for (a, scale, out, roi) in axes {
            let n = v.shape.as_ref().map_or(d[a], |s| s[a]);
            let plan = plan_axis(&interp, &mode, scale, (n, out), roi, exclude)
                .map_err(|m| self.error(m))?;
            let lay = Layout::new(&[a as i64], Some(d.len())).map_err(|m| self.error(m))?;
            v = self.resize_axis(&v, &lay, n, &plan, extrapolation)?;
        }
        if v.ssa == x.ssa {
            v = self.unary("identity", &x, "...".into());
        }
        self.bind(node, 0, v);
        Ok(())
    }
}
