//! ONNX ConvTranspose: the input zero-stuffed along each spatial axis (an
//! einsum writing each cell at a fixed index 0 of `stride` cells, merged
//! by a reshape), then a padded convolution with the kernel reversed:
//! `y[o] = sum_k x[i] w[k]` over `o = stride * i + dilation * k - lo` is
//! `sum_k' xs[o + dilation * k' - (dilation * (K - 1) - lo)] w[K - 1 - k']`.

use super::super::axes::{Layout, labels};
use super::super::elementwise::with_rank;
use super::super::{Attrs, R, Translator, Val};
use crate::proto::NodeProto;

/// One spatial axis: stride, dilation, kernel size, the padding of the
/// convolution over the stuffed input (negative: cells cropped).
struct Axis {
    stride: u64,
    dilation: u64,
    lo: i64,
    hi: i64,
}

impl Translator {
    /// The attributes of a ConvTranspose with `s` spatial axes, `kernel`
    /// its sizes and `input` the input's spatial dims (when known).
    fn convt_axes(&self, node: &NodeProto, kernel: &[u64], input: Option<&[u64]>) -> R<Vec<Axis>> {
        let a = Attrs::of(node);
        let s = kernel.len();
        let list = |name: &str, default: i64, min: i64| -> R<Vec<i64>> {
            match a.ints(name) {
                None => Ok(vec![default; s]),
                Some(v) if v.len() == s && v.iter().all(|&x| (min..1 << 32).contains(&x)) => Ok(v),
                Some(v) => self.err(format!("'{name}' {v:?} does not fit {s} spatial axes")),
            }
        };
        let strides = list("strides", 1, 1)?;
        let dilations = list("dilations", 1, 1)?;
        let out_pad = list("output_padding", 0, 0)?;
        let pads = match a.ints("pads") {
            None => vec![0; 2 * s],
            Some(p) if p.len() == 2 * s && p.iter().all(|&x| (0..1 << 32).contains(&x)) => p,
            Some(p) => return self.err(format!("'pads' {p:?} does not fit {s} spatial axes")),
        };
        let out_shape = a.ints("output_shape");
        if out_shape
            .as_ref()
            .is_some_and(|o| o.len() != s || o.iter().any(|&x| !(1..1 << 40).contains(&x)))
        {
            return self.err(format!(
                "'output_shape' {out_shape:?} does not fit {s} spatial axes"
            ));
        }
        let auto = a.string("auto_pad").unwrap_or_else(|| "NOTSET".into());
        let mut axes = Vec::new();
        for i in 0..s {
            let (st, d, k) = (strides[i], dilations[i], kernel[i] as i64);
            let span = d * (k - 1) + 1;
            let size = input.map(|v| v[i] as i64);
            let need = |what: &str| {
                self.error(format!("ConvTranspose with {what} needs the input's dims, which are not known here (not supported)"))
            };
            let (lo, hi) = match auto.as_str() {
                "SAME_UPPER" | "SAME_LOWER" => {
                    let n = size.ok_or_else(|| need("auto_pad"))?;
                    let o = out_shape.as_ref().map_or(n * st, |o| o[i]);
                    let total = st * (n - 1) + out_pad[i] + span - o;
                    let half = total.div_euclid(2);
                    if auto == "SAME_UPPER" {
                        (half, total - half)
                    } else {
                        (total - half, half)
                    }
                }
                "NOTSET" | "" => (pads[i], pads[i + s]),
                "VALID" => (0, 0),
                other => return self.err(format!("auto_pad='{other}' is not supported")),
            };
            // The convolution's padding over the stuffed input (`n * st`
            // cells, the last `st - 1` zeros).
            let conv_lo = d * (k - 1) - lo;
            let conv_hi = match (&out_shape, auto.as_str()) {
                (Some(o), "NOTSET" | "") => {
                    let n = size.ok_or_else(|| need("output_shape"))?;
                    o[i] - 1 - n * st - conv_lo + span
                }
                _ => out_pad[i] - hi + d * (k - 1) + 1 - st,
            };
            axes.push(Axis {
                stride: st as u64,
                dilation: d as u64,
                lo: conv_lo,
                hi: conv_hi,
            });
        }
        Ok(axes)
    }

    /// ONNX ConvTranspose (with `group`, a bias).
    pub(super) fn conv_transpose(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        if !x.elem.is_float() {
            return self.err(format!(
                "ConvTranspose takes floating-point tensors, input #0 is {}",
                x.elem.mlir()
            ));
        }
        let w = self.input(node, 1)?;
        let bias = self.opt_input(node, 2)?;
        let Some(wd) = w.shape.clone().filter(|d| d.len() >= 3) else {
            return self.err("ConvTranspose needs its weight's shape (rank at least 3; an initializer or an input with a shape)");
        };
        let s = wd.len() - 2;
        let kernel = wd[2..].to_vec();
        if let Some(k) = Attrs::of(node).ints("kernel_shape")
            && k.iter().map(|&v| v as u64).ne(kernel.iter().copied())
        {
            return self.err(format!(
                "kernel_shape {k:?} against the weight's {kernel:?}"
            ));
        }
        if let Some(r) = x.rank
            && r != s + 2
        {
            return self.err(format!(
                "a rank-{r} input for a weight of rank {}",
                wd.len()
            ));
        }
        let big = |d: &[u64]| d.iter().any(|&n| n > 1 << 40);
        if big(&kernel) || x.shape.as_ref().is_some_and(|d| big(d)) {
            return self.err("ConvTranspose of sizes above 2^40 is not supported");
        }
        let group = Attrs::of(node).int("group").unwrap_or(1);
        let (c, mg) = (wd[0], wd[1]);
        if group < 1 || c % group as u64 != 0 {
            return self.err(format!(
                "group {group} does not divide the {c} input channels"
            ));
        }
        let g = group as u64;
        let input = x.shape.as_ref().map(|d| &d[2..]);
        let axes = self.convt_axes(node, &kernel, input)?;
        let mut xs = x.clone();
        for (i, a) in axes.iter().enumerate() {
            xs = self.stuff(&xs, 2 + i, s + 2, a)?;
        }
        let mut wf = w.clone();
        for (i, &k) in kernel.iter().enumerate() {
            let lay = Layout::new(&[2 + i as i64], Some(s + 2)).map_err(|m| self.error(m))?;
            wf = self.reverse(&wf, &lay, k)?;
        }
        let ins: Vec<String> = axes
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let d = if a.dilation == 1 {
                    String::new()
                } else {
                    format!("{}*", a.dilation)
                };
                format!("1*o{i}@{},{}+{d}k{i}", a.lo.max(0), a.hi.max(0))
            })
            .collect();
        let (ks, os) = (labels("k", s).join(","), labels("o", s).join(","));
        let ins = ins.join(",");
        let y = if g == 1 {
            let spec = format!("n,c,{ins}; c,m,{ks} => n,m,{os}");
            self.einsum(&spec, &[&xs, &wf], None, None, "...".into())
        } else {
            self.convt_groups(&xs, &wf, (c, mg, g), &kernel, &ins)
        };
        let y = match bias {
            None => y,
            Some(b) => {
                let spec = format!("n,m,{os}; m => n,m,{os}");
                self.einsum(&spec, &[&y, &b], None, Some("add"), "...".into())
            }
        };
        // The dims, when the stuffed input's are known.
        let dims = xs.shape.as_ref().and_then(|d| {
            let mut out = vec![d[0], g * mg];
            for (i, a) in axes.iter().enumerate() {
                let span = a.dilation * (kernel[i] - 1) + 1;
                let n = d[2 + i] + a.lo.max(0) as u64 + a.hi.max(0) as u64 + 1;
                out.push(n.checked_sub(span).filter(|&o| o > 0)?);
            }
            Some(out)
        });
        self.bind(node, 0, super::index::known(y, dims, Some(s + 2)));
        Ok(())
    }

    /// The grouped product of the stuffed input `xs` and the reversed
    /// weight `wf` (`c` input channels, `mg` outputs per group, `g`
    /// groups; `ins`: the input's spatial axes).
    fn convt_groups(
        &mut self,
        xs: &Val,
        wf: &Val,
        (c, mg, g): (u64, u64, u64),
        kernel: &[u64],
        ins: &str,
    ) -> Val {
        let s = kernel.len();
        let (ks, os) = (labels("k", s).join(","), labels("o", s).join(","));
        let cg = c / g;
        // The weight's channels split first (a strided axis needs its
        // kernel label on a plain axis).
        let mut wdims = vec![g, cg, mg];
        wdims.extend(kernel);
        let wv = self.einsum(
            &format!("{cg}*g+c,j,{ks} => g,c,j,{ks}"),
            &[wf],
            None,
            None,
            super::super::dims_spec(&wdims),
        );
        let spec = format!("n,{cg}*g+c,{ins}; g,c,j,{ks} => n,g,j,{os}");
        let nv = self.fresh_var();
        let ov: Vec<String> = (0..s).map(|_| self.fresh_var()).collect();
        let ov = ov.join(",");
        let grouped = self.einsum(&spec, &[xs, &wv], None, None, format!("{nv},{g},{mg},{ov}"));
        self.emit(
            "reshape",
            &[&grouped],
            "",
            xs.elem,
            format!("{nv},{},{ov}", g * mg),
            None,
        )
    }

    /// `x` with `stride - 1` zeros after each cell of axis `k` (of `r`),
    /// and cropped where the convolution's padding `a` is negative.
    fn stuff(&mut self, x: &Val, k: usize, r: usize, a: &Axis) -> R<Val> {
        let lay = Layout::new(&[k as i64], Some(r)).map_err(|m| self.error(m))?;
        let mut v = x.clone();
        if x.shape
            .as_ref()
            .is_some_and(|d| d[k].checked_mul(a.stride).is_none())
        {
            return self.err("ConvTranspose's stuffed input overflows 64 bits");
        }
        if a.stride > 1 {
            let l = labels("a", r);
            let mut out = l.clone();
            out.insert(k + 1, "0".into());
            let mut names: Vec<String> = match &x.shape {
                Some(d) => d.iter().map(u64::to_string).collect(),
                None => (0..r).map(|_| self.fresh_var()).collect(),
            };
            let mut spread = names.clone();
            spread.insert(k + 1, a.stride.to_string());
            let spec = format!("{} => {}", l.join(","), out.join(","));
            let t = self.einsum(&spec, &[&v], None, None, spread.join(","));
            let merged = x.shape.as_ref().map(|d| d[k] * a.stride);
            names[k] = merged.map_or_else(|| self.fresh_var(), |m| m.to_string());
            v = self.emit("reshape", &[&t], "", x.elem, names.join(","), None);
            v.shape = x.shape.as_ref().map(|d| {
                let mut d = d.clone();
                d[k] *= a.stride;
                d
            });
            v = with_rank(v, Some(r));
        }
        if a.lo < 0 || a.hi < 0 {
            let crop = |p: i64| if p < 0 { p.unsigned_abs() } else { 0 };
            let n = v.shape.as_ref().map(|d| d[k]);
            let keep = n.map(|n| n.saturating_sub(crop(a.lo) + crop(a.hi)));
            if keep == Some(0) {
                return self.err(
                    "ConvTranspose's pads crop the whole output (empty tensors are not supported)",
                );
            }
            v = self.block_slice(&v, &lay, [Some(crop(a.lo)), keep, Some(crop(a.hi))])?;
        }
        Ok(v)
    }
}
