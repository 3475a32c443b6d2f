//! ONNX GridSample (opsets 16 to 22; onnx.ai/onnx/operators/
//! onnx__GridSample.html) over 1 to 3 spatial dims, the dims known: per
//! spatial dim the grid's coordinate denormalised (`align_corners`),
//! rounded half to even (`nearest`), clamped (`border`) or folded by a
//! triangle wave (`reflection`: `t = (v - lo) mod 2r`, `lo + min(t, 2r -
//! t)`) when outside; then its taps (1, 2 or 4: nearest, linear, cubic
//! with a = -0.75) with their weights, a tap out of range weighing 0
//! (`zeros`) or its index clamped or reflected. Each combination of taps
//! reads the input flattened over its spatial dims by `ocannl.gather`.

use super::super::{Attrs, R, Translator, Val, dims_spec, multichar};
use super::index::known;
use crate::proto::NodeProto;
use crate::tensor::Elem;

#[derive(Clone, Copy, PartialEq)]
enum Pad {
    Zeros,
    Border,
    Reflection,
}

/// A coordinate's taps: (index, weight) pairs over the output grid.
type Taps = Vec<(Val, Val)>;

impl Translator {
    fn gs_c(&mut self, v: &Val, op: &str, c: f64) -> R<Val> {
        let s = self.scalar(v.elem, c);
        let out = self.binary(op, v, &s, "...".into())?;
        Ok(known(out, v.shape.clone(), v.rank))
    }

    fn gs_b(&mut self, op: &str, a: &Val, b: &Val) -> R<Val> {
        let out = self.binary(op, a, b, "...".into())?;
        Ok(known(out, a.shape.clone(), a.rank))
    }

    /// `v` folded into `[lo, hi]` by reflection (`hi > lo`).
    fn gs_reflect(&mut self, v: &Val, lo: f64, hi: f64) -> R<Val> {
        let r2 = 2.0 * (hi - lo);
        let u = self.gs_c(v, "sub", lo)?;
        let q = self.gs_c(&u, "div", r2)?;
        let q = self.unary("floor", &q, "...".into());
        let q = self.gs_c(&q, "mul", r2)?;
        let t = self.gs_b("sub", &u, &q)?;
        let back = self.unary("neg", &t, "...".into());
        let back = self.gs_c(&back, "add", r2)?;
        let m = self.gs_b("min", &t, &back)?;
        self.gs_c(&m, "add", lo)
    }

    /// The index (int64, within `[0, d)`) and the weight factor of tap
    /// position `p` (integral floats).
    fn gs_tap(&mut self, p: &Val, w: Val, d: u64, pad: Pad, bounds: (f64, f64)) -> R<(Val, Val)> {
        let top = (d - 1) as f64;
        let (p, w) = match pad {
            Pad::Zeros => {
                let lo = self.scalar(p.elem, 0.0);
                let hi = self.scalar(p.elem, top);
                let a = self.binary_to("ge", p, &lo, "...".into(), Elem::Bool)?;
                let b = self.binary_to("le", p, &hi, "...".into(), Elem::Bool)?;
                let ok = self.binary_to("and", &a, &b, "...".into(), Elem::Bool)?;
                let ok = self.unary_to("cast", &ok, "...".into(), p.elem);
                (p.clone(), self.gs_b("mul", &w, &ok)?)
            }
            Pad::Border => (p.clone(), w),
            Pad::Reflection if d > 1 => {
                let r = self.gs_reflect(p, bounds.0, bounds.1)?;
                (self.unary("floor", &r, "...".into()), w)
            }
            Pad::Reflection => (p.clone(), w),
        };
        let p = self.gs_c(&p, "max", 0.0)?;
        let p = self.gs_c(&p, "min", top)?;
        let i = self.unary_to("cast", &p, "...".into(), Elem::I64);
        Ok((known(i, p.shape.clone(), p.rank), w))
    }

    /// The taps of coordinate `x` (denormalised, padded) for `mode`.
    fn gs_taps(&mut self, x: &Val, mode: &str, d: u64, pad: Pad, b: (f64, f64)) -> R<Taps> {
        if mode == "nearest" {
            let w = self.gs_c(x, "mul", 0.0)?;
            let w = self.gs_c(&w, "add", 1.0)?;
            return Ok(vec![self.gs_tap(x, w, d, pad, b)?]);
        }
        let x0 = self.unary("floor", x, "...".into());
        let f = self.gs_b("sub", x, &x0)?;
        let mut weights = Vec::new();
        let first = if mode == "linear" {
            let g = self.unary("neg", &f, "...".into());
            weights.push(self.gs_c(&g, "add", 1.0)?);
            weights.push(f);
            0
        } else {
            const A: f64 = -0.75;
            // Keys' kernel at the distances f + 1, f, 1 - f, 2 - f.
            let near = |t: &mut Self, s: &Val| -> R<Val> {
                // ((A + 2) s - (A + 3)) s s + 1
                let a = t.gs_c(s, "mul", A + 2.0)?;
                let a = t.gs_c(&a, "sub", A + 3.0)?;
                let a = t.gs_b("mul", &a, s)?;
                let a = t.gs_b("mul", &a, s)?;
                t.gs_c(&a, "add", 1.0)
            };
            let far = |t: &mut Self, s: &Val| -> R<Val> {
                // ((A s - 5A) s + 8A) s - 4A
                let a = t.gs_c(s, "mul", A)?;
                let a = t.gs_c(&a, "sub", 5.0 * A)?;
                let a = t.gs_b("mul", &a, s)?;
                let a = t.gs_c(&a, "add", 8.0 * A)?;
                let a = t.gs_b("mul", &a, s)?;
                t.gs_c(&a, "sub", 4.0 * A)
            };
            let f1 = self.gs_c(&f, "add", 1.0)?;
            let g = self.unary("neg", &f, "...".into());
            let g1 = self.gs_c(&g, "add", 1.0)?;
            let g2 = self.gs_c(&g, "add", 2.0)?;
            weights.push(far(self, &f1)?);
            weights.push(near(self, &f)?);
            weights.push(near(self, &g1)?);
            weights.push(far(self, &g2)?);
            -1
        };
        let mut taps = Vec::new();
        for (k, w) in weights.into_iter().enumerate() {
            let p = self.gs_c(&x0, "add", (first + k as i64) as f64)?;
            taps.push(self.gs_tap(&p, w, d, pad, b)?);
        }
        Ok(taps)
    }
}

impl Translator {
    /// ONNX GridSample.
    pub(super) fn grid_sample(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let grid = self.input(node, 1)?;
        let (Some(xd), Some(gd)) = (x.shape.clone(), grid.shape.clone()) else {
            return self.err("GridSample of inputs whose dims are not known (not supported)");
        };
        let k = xd.len().saturating_sub(2);
        if !(1..=3).contains(&k) || gd.len() != k + 2 || gd[k + 1] != k as u64 || gd[0] != xd[0] {
            return self.err("GridSample needs X [N, C, 1 to 3 dims] and grid [N, .., dims]");
        }
        if !matches!(x.elem, Elem::F32 | Elem::F64) || grid.elem != x.elem {
            return self.err("GridSample of float X and grid of one element type is supported");
        }
        let mode = at.string("mode").unwrap_or_else(|| "linear".into());
        let mode = match mode.as_str() {
            "bilinear" | "linear" => "linear",
            "nearest" => "nearest",
            "bicubic" | "cubic" => "cubic",
            m => return self.err(format!("GridSample mode '{m}' is not supported")),
        };
        let pad = match at.string("padding_mode").as_deref().unwrap_or("zeros") {
            "zeros" => Pad::Zeros,
            "border" => Pad::Border,
            "reflection" => Pad::Reflection,
            m => return self.err(format!("padding_mode '{m}' is not supported")),
        };
        let align = at.int("align_corners").unwrap_or(0) != 0;
        let sp = &xd[2..];
        let mut od = gd[..k + 1].to_vec();
        let lay = super::super::axes::Layout::new(&[-1], Some(k + 2)).map_err(|m| self.error(m))?;
        let mut all = Vec::new();
        for (i, &d) in sp.iter().enumerate() {
            // The coordinate of spatial dim i: the grid's component k-1-i.
            let j = (k - 1 - i) as u64;
            let c = self.block_slice(&grid, &lay, [Some(j), Some(1), Some(k as u64 - 1 - j)])?;
            let c = self.emit("reshape", &[&c], "", x.elem, dims_spec(&od), None);
            let c = known(c, Some(od.clone()), Some(k + 1));
            let (a, b, bounds) = if align {
                let h = (d as f64 - 1.0) / 2.0;
                (h, h, (0.0, d as f64 - 1.0))
            } else {
                (
                    d as f64 / 2.0,
                    (d as f64 - 1.0) / 2.0,
                    (-0.5, d as f64 - 0.5),
                )
            };
            let v = self.gs_c(&c, "mul", a)?;
            let mut v = self.gs_c(&v, "add", b)?;
            if mode == "nearest" {
                v = self.unary("round", &v, "...".into());
            }
            v = match pad {
                Pad::Border => {
                    let v = self.gs_c(&v, "max", 0.0)?;
                    self.gs_c(&v, "min", d as f64 - 1.0)?
                }
                Pad::Reflection if bounds.1 > bounds.0 => {
                    self.gs_reflect(&v, bounds.0, bounds.1)?
                }
                _ => v,
            };
            all.push(self.gs_taps(&v, mode, d, pad, bounds)?);
        }
        let out = self.gs_combine(&x, &all, &od)?;
        od.insert(1, xd[1]);
        self.bind(node, 0, known(out, Some(od), Some(k + 2)));
        Ok(())
    }

    /// The sum over every combination of taps of the product of their
    /// weights times `x` read at their flattened index.
    fn gs_combine(&mut self, x: &Val, all: &[Taps], od: &[u64]) -> R<Val> {
        let xd = x.shape.clone().expect("known dims");
        let sp = &xd[2..];
        let s: u64 = sp.iter().product();
        let flat = vec![xd[0], xd[1], s];
        let xf = self.emit("reshape", &[x], "", x.elem, dims_spec(&flat), None);
        let xf = known(xf, Some(flat), Some(3));
        let ol: Vec<String> = (1..od.len()).map(|i| format!("go{i}")).collect();
        let ol = ol.join(",");
        let mut od2 = od.to_vec();
        od2.insert(1, xd[1]);
        let combos: usize = all.iter().map(Vec::len).product();
        let mut acc: Option<Val> = None;
        for c in 0..combos {
            let (mut rest, mut idx, mut w) = (c, None::<Val>, None::<Val>);
            for (i, taps) in all.iter().enumerate() {
                let (ti, tw) = &taps[rest % taps.len()];
                rest /= taps.len();
                let stride: u64 = sp[i + 1..].iter().product();
                let st = self.scalar(Elem::I64, stride as f64);
                let part = self.gs_b("mul", ti, &st)?;
                idx = Some(match idx {
                    Some(v) => self.gs_b("add", &v, &part)?,
                    None => part,
                });
                w = Some(match w {
                    Some(v) => self.gs_b("mul", &v, tw)?,
                    None => tw.clone(),
                });
            }
            let (idx, w) = (idx.expect("a dim"), w.expect("a dim"));
            let spec = format!("gn,gc,gv; gn,{ol} => gn,gc,{ol}");
            let attrs = format!("spec = \"{}\"", multichar(&spec));
            let g = self.emit_mixed(
                "gather",
                &[&xf, &idx],
                &attrs,
                x.elem,
                dims_spec(&od2),
                None,
            );
            let spec = format!("gn,gc,{ol}; gn,{ol} => gn,gc,{ol}");
            let t = self.einsum(&spec, &[&g, &w], None, None, dims_spec(&od2));
            let t = known(t, Some(od2.clone()), Some(od2.len()));
            acc = Some(match acc {
                Some(a) => self.gs_b("add", &a, &t)?,
                None => t,
            });
        }
        Ok(acc.expect("a tap"))
    }
}
