//! ONNX DFT (opsets 17 and 20) and STFT (onnx.ai/onnx/operators/
//! onnx__DFT.html): one einsum with a constant `[out bins, out parts,
//! in cells, in parts]` matrix of cosines and sines (computed in f64 at
//! import, angles reduced mod the length), so zero padding or truncation
//! to `dft_length`, one-sided outputs, inverses and the Hermitian
//! completion of a one-sided inverse (NumPy's irfft) are all weights; the
//! input's dims must be known and the matrix small (at most 2^22 cells).

use super::super::{Attrs, R, Translator, Val, dims_spec};
use super::index::known;
use crate::proto::NodeProto;
use crate::tensor::Elem;

/// What a transform computes.
#[derive(Clone, Copy)]
pub(super) struct Dft {
    /// The transform's length.
    pub(super) len: u64,
    /// Input cells along the axis, and parts (1 real, 2 complex).
    pub(super) cells: u64,
    pub(super) parts: u64,
    pub(super) inverse: bool,
    pub(super) onesided: bool,
}

impl Dft {
    /// Output bins and parts.
    pub(super) fn out(&self) -> (u64, u64) {
        match (self.inverse, self.onesided) {
            (false, true) => (self.len / 2 + 1, 2),
            (true, true) => (self.len, 1),
            _ => (self.len, 2),
        }
    }

    /// The weights `[bins, out parts, cells, parts]`.
    pub(super) fn matrix(&self) -> Vec<f64> {
        use std::f64::consts::PI;
        let (bins, outp) = self.out();
        let l = self.len;
        let mut w = Vec::new();
        for m in 0..bins {
            for o in 0..outp {
                for n in 0..self.cells {
                    // The angle of bin/sample pair (m, n), reduced mod l.
                    let t = 2.0 * PI * ((m * n) % l) as f64 / l as f64;
                    let (c, s) = (t.cos(), t.sin());
                    let (wr, wi) = if n >= l && !(self.inverse && self.onesided) {
                        (0.0, 0.0)
                    } else if !self.inverse {
                        // X = sum x e^{-it}: re = xr c + xi s, im = -xr s + xi c.
                        if o == 0 { (c, s) } else { (-s, c) }
                    } else if !self.onesided {
                        // x = 1/l sum X e^{it}: re = Xr c - Xi s, im = Xr s + Xi c.
                        let f = 1.0 / l as f64;
                        if o == 0 {
                            (f * c, -f * s)
                        } else {
                            (f * s, f * c)
                        }
                    } else {
                        self.irfft_weights(n, m)
                    };
                    w.push(wr);
                    if self.parts == 2 {
                        w.push(wi);
                    }
                }
            }
        }
        w
    }

    /// NumPy's irfft: input bin `n` (of the first `l / 2 + 1`) toward
    /// output sample `m`; bins 0 and (even `l`) `l / 2` once and their
    /// imaginary parts ignored, the others twice (their conjugates).
    fn irfft_weights(&self, n: u64, m: u64) -> (f64, f64) {
        use std::f64::consts::PI;
        let l = self.len;
        if n > l / 2 {
            return (0.0, 0.0);
        }
        let t = 2.0 * PI * ((m * n) % l) as f64 / l as f64;
        let edge = n == 0 || (l.is_multiple_of(2) && n == l / 2);
        let f = if edge { 1.0 } else { 2.0 } / l as f64;
        (f * t.cos(), if edge { 0.0 } else { -f * t.sin() })
    }
}

impl Translator {
    /// The transform `d` of `x` along axis `a` (the last axis holds the
    /// parts): one einsum with the constant matrix (times `window` along
    /// the input cells when given, STFT's).
    pub(super) fn dft_apply(&mut self, x: &Val, a: usize, d: Dft, window: Option<&Val>) -> R<Val> {
        let dims = x.shape.clone().expect("known dims");
        let (bins, outp) = d.out();
        let wd = [bins, outp, d.cells, d.parts];
        let cells: u64 = wd.iter().product();
        if cells > 1 << 22 {
            return self.err(format!(
                "a DFT matrix of {cells} cells (more than 2^22; not supported)"
            ));
        }
        // Summed in f64 (as NumPy's FFT), the result cast back.
        let (elem, x64) = (x.elem, self.unary_to("cast", x, "...".into(), Elem::F64));
        let x = &known(x64, Some(dims.clone()), Some(dims.len()));
        let w = d.matrix();
        let w = self.vector(Elem::F64, &w)?;
        let w = self.emit("reshape", &[&w], "", Elem::F64, dims_spec(&wd), None);
        let mut w = known(w, Some(wd.to_vec()), Some(4));
        if let Some(win) = window {
            let win = &self.unary_to("cast", win, "...".into(), Elem::F64);
            let v = self.einsum(
                "fm,fo,fn,fc; fn => fm,fo,fn,fc",
                &[&w, win],
                None,
                None,
                dims_spec(&wd),
            );
            w = known(v, Some(wd.to_vec()), Some(4));
        }
        let r = dims.len();
        let l: Vec<String> = (0..r).map(|i| format!("a{i}")).collect();
        let with = |cell: &str, part: &str| {
            let mut v = l.clone();
            v[a] = cell.into();
            v[r - 1] = part.into();
            v.join(",")
        };
        let mut out = dims.clone();
        out[a] = bins;
        out[r - 1] = outp;
        let spec = format!("fm,fo,fn,fc; {} => {}", with("fn", "fc"), with("fm", "fo"));
        let v = self.einsum(&spec, &[&w, x], None, None, dims_spec(&out));
        let v = self.unary_to("cast", &v, dims_spec(&out), elem);
        Ok(known(v, Some(out), Some(r)))
    }

    /// ONNX DFT.
    pub(super) fn dft(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let Some(dims) = x.shape.clone() else {
            return self.err("DFT of an input whose dims are not known (not supported)");
        };
        if !matches!(x.elem, Elem::F32 | Elem::F64) {
            return self.err(format!("DFT of {} is not supported", x.elem.mlir()));
        }
        let r = dims.len() as i64;
        let axis = if self.opset < 20 {
            at.int("axis").unwrap_or(1)
        } else {
            match self.const_ints(node, 2)? {
                Some(v) if v.len() == 1 => v[0],
                Some(_) => return self.err("DFT's axis must be a scalar"),
                None => -2,
            }
        };
        let a = if axis < 0 { axis + r } else { axis };
        if !(0..r - 1).contains(&a) {
            return self.err(format!(
                "axis {axis} for a rank-{r} input (not the last axis)"
            ));
        }
        let parts = dims[r as usize - 1];
        if !matches!(parts, 1 | 2) {
            return self.err("DFT's last axis must have 1 or 2 cells");
        }
        let inverse = at.int("inverse").unwrap_or(0) != 0;
        let onesided = at.int("onesided").unwrap_or(0) != 0;
        let cells = dims[a as usize];
        let len = match self.const_ints(node, 1)? {
            Some(v) if v.len() == 1 => v[0],
            Some(_) => return self.err("dft_length must be a scalar"),
            None if inverse && onesided => 2 * (cells as i64 - 1),
            None => cells as i64,
        };
        if !(1..=1 << 20).contains(&len) {
            return self.err(format!("dft_length {len} is out of range"));
        }
        let d = Dft {
            len: len as u64,
            cells,
            parts,
            inverse,
            onesided,
        };
        let v = self.dft_apply(&x, a as usize, d, None)?;
        self.bind(node, 0, v);
        Ok(())
    }

    /// ONNX STFT: frames `x[b, step * f + n, c]` (`n` under the frame
    /// length; the last frame whole) weighted by the window (an einsum
    /// with a strided index), then a DFT along the frame.
    pub(super) fn stft(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        let Some(dims) = x.shape.clone().filter(|d| d.len() == 3) else {
            return self.err("STFT of a 3-D signal whose dims are known (only) is supported");
        };
        if !matches!(x.elem, Elem::F32 | Elem::F64) || !matches!(dims[2], 1 | 2) {
            return self.err("STFT takes a float signal of 1 or 2 parts");
        }
        let step = match self.const_ints(node, 1)? {
            Some(v) if v.len() == 1 && v[0] >= 1 => v[0] as u64,
            _ => return self.err("STFT's frame_step must be a positive constant"),
        };
        let window = self.opt_input(node, 2)?;
        let wlen = window
            .as_ref()
            .and_then(|w| w.shape.as_ref().map(|d| d.iter().product()));
        let len = match (self.const_ints(node, 3)?, wlen) {
            (Some(v), w) if v.len() == 1 && w.is_none_or(|w: u64| w == v[0] as u64) => v[0],
            (None, Some(w)) => w as i64,
            (None, None) if window.is_none() => dims[1] as i64,
            _ => return self.err("STFT's frame_length and window disagree (or are unknown)"),
        };
        if !(1..=dims[1] as i64).contains(&len) {
            return self.err(format!(
                "a frame of {len} cells for a signal of {}",
                dims[1]
            ));
        }
        let len = len as u64;
        let frames = 1 + (dims[1] - len) / step;
        let window = match window {
            Some(w) if w.elem == x.elem => w,
            Some(_) => return self.err("the window must have the signal's element type"),
            None => self.fill(x.elem, &[len], 1.0),
        };
        let fd = vec![dims[0], frames, len, dims[2]];
        let spec = format!("fb,{step}*ff@0,0+fn,fc; fn => fb,ff,fn,fc");
        let f = self.einsum(&spec, &[&x, &window], None, None, dims_spec(&fd));
        let f = known(f, Some(fd), Some(4));
        let d = Dft {
            len,
            cells: len,
            parts: dims[2],
            inverse: false,
            onesided: Attrs::of(node).int("onesided").unwrap_or(1) != 0,
        };
        let v = self.dft_apply(&f, 2, d, None)?;
        self.bind(node, 0, v);
        Ok(())
    }
}
