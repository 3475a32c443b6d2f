//! ONNX HannWindow, HammingWindow and BlackmanWindow (a constant of the
//! constant `size`, computed at import as ONNX's reference does), SwiGLU
//! (`a * sigmoid(alpha * a) * b`) and CenterCropPad (per axis a centred
//! block slice or zero padding; the input's dims known).

use super::super::axes::{Layout, check_axis};
use super::super::{Attrs, R, Translator};
use crate::proto::NodeProto;
use crate::tensor::Elem;

/// The window `op` of `size` cells (`periodic`: the period is `size`,
/// else `size - 1`).
fn window(op: &str, size: u64, periodic: bool) -> Vec<f64> {
    use std::f64::consts::PI;
    let n1 = if periodic { size } else { size - 1 } as f64;
    (0..size)
        .map(|i| {
            let i = i as f64;
            match op {
                "HannWindow" => (i * PI / n1).sin().powi(2),
                "HammingWindow" => {
                    let alpha = 25.0 / 46.0;
                    alpha - (i * PI * 2.0 / n1).cos() * (1.0 - alpha)
                }
                _ => 0.42 - 0.5 * (i * PI * 2.0 / n1).cos() + 0.08 * (i * PI * 4.0 / n1).cos(),
            }
        })
        .collect()
}

impl Translator {
    /// ONNX HannWindow, HammingWindow, BlackmanWindow.
    pub(super) fn window_node(&mut self, node: &NodeProto, op: &str) -> R<()> {
        let at = Attrs::of(node);
        let size = match self.const_ints(node, 0)? {
            Some(v) if v.len() == 1 => v[0],
            Some(_) => return self.err("the window's size must be a scalar"),
            None => return self.err("the window's size (input #0) is required"),
        };
        if !(1..=1 << 24).contains(&size) {
            return self.err(format!(
                "a window of {size} cells (from 1 to 2^24 supported)"
            ));
        }
        let periodic = at.int("periodic").unwrap_or(1) != 0;
        if !periodic && size == 1 {
            return self.err("a symmetric window of one cell (0/0 in ONNX's definition)");
        }
        let elem = Elem::of_onnx(at.int("output_datatype").unwrap_or(1) as i32)
            .map_err(|m| self.error(m))?;
        let w = window(op, size as u64, periodic);
        let w = match elem {
            Elem::F32 | Elem::F64 => w,
            // Integer windows truncate as NumPy's astype.
            Elem::I32 | Elem::I64 => w.iter().map(|v| v.trunc()).collect(),
            other => {
                return self.err(format!("{op} of {} is not supported", other.mlir()));
            }
        };
        let v = self.vector(elem, &w)?;
        let v = self.unary("identity", &v, self.out_spec(node, 0));
        self.bind(
            node,
            0,
            super::index::known(v, Some(vec![size as u64]), Some(1)),
        );
        Ok(())
    }

    /// ONNX SwiGLU (opset 28): `a * sigmoid(alpha * a) * b`, `a` and `b`
    /// of one shape.
    pub(super) fn swiglu(&mut self, node: &NodeProto) -> R<()> {
        let a = self.input(node, 0)?;
        let b = self.input(node, 1)?;
        if !a.elem.is_float() || a.elem != b.elem {
            return self.err("SwiGLU takes two floating-point inputs of one element type");
        }
        if let (Some(x), Some(y)) = (&a.shape, &b.shape)
            && x != y
        {
            return self.err(format!("SwiGLU's inputs differ in shape ({x:?}, {y:?})"));
        }
        let alpha = Attrs::of(node).float("alpha").map_or(1.0, f64::from);
        let c = self.scalar(a.elem, -alpha);
        let na = self.binary("mul", &a, &c, "...".into())?;
        let e = self.unary("exp", &na, "...".into());
        let one = self.scalar(a.elem, 1.0);
        let d = self.binary("add", &e, &one, "...".into())?;
        let s = self.binary("div", &a, &d, "...".into())?;
        let v = self.binary("mul", &s, &b, a.spec.clone())?;
        let v = super::index::known(v, a.shape.clone(), a.rank);
        self.bind(node, 0, v);
        Ok(())
    }

    /// ONNX CenterCropPad (opset 18): each listed axis cropped or padded
    /// with zeros to the target size, centred (the odd cell at the end).
    pub(super) fn center_crop_pad(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        let Some(dims) = x.shape.clone() else {
            return self.err("CenterCropPad of an input whose dims are not known (not supported)");
        };
        let Some(shape) = self.const_ints(node, 1)? else {
            return self.err("CenterCropPad needs its shape input");
        };
        let r = dims.len() as i64;
        let axes = Attrs::of(node)
            .ints("axes")
            .unwrap_or_else(|| (0..r).collect());
        if axes.len() != shape.len() {
            return self.err(format!("{} sizes for {} axes", shape.len(), axes.len()));
        }
        for &a in &axes {
            check_axis(a).map_err(|m| self.error(m))?;
        }
        Layout::new(&axes, x.rank).map_err(|m| self.error(m))?;
        let mut v = x.clone();
        for (&a, &sh) in axes.iter().zip(&shape) {
            let k = if a < 0 { a + r } else { a } as usize;
            let d = dims[k];
            if !(1..=1 << 40).contains(&sh) {
                return self.err(format!("the size {sh} is out of range"));
            }
            let sh = sh as u64;
            let lay = Layout::new(&[k as i64], x.rank).map_err(|m| self.error(m))?;
            if sh < d {
                let lo = (d - sh) / 2;
                v = self.block_slice(&v, &lay, [Some(lo), Some(sh), Some(d - sh - lo)])?;
            } else if sh > d {
                let lo = (sh - d) / 2;
                v = self.pad_zeros(&v, &lay, lo, sh - d - lo);
            }
        }
        let v = self.unary("identity", &v, v.spec.clone());
        self.bind(node, 0, v);
        Ok(())
    }
}
