//! Convolutions and pools (windows over the spatial axes, global pools).

mod pool;

use super::axes::labels;
use super::elementwise::with_rank;
use super::{Attrs, R, Translator, Val};
use crate::proto::NodeProto;

/// A convolution or pool's window along the spatial axes.
struct Window {
    kernel: Vec<u64>,
    strides: Vec<u64>,
    dilations: Vec<u64>,
    /// `(lo, hi)` per axis, `hi` including `ceil_extra`.
    pads: Vec<(u64, u64)>,
    /// How much of `hi` only `ceil_mode` adds (not padding the op counts).
    ceil_extra: Vec<u64>,
}

impl Window {
    /// The einsum axes of the input: `stride*o@lo,hi+dilation*k`.
    fn input_axes(&self) -> Vec<String> {
        (0..self.kernel.len())
            .map(|i| {
                let (lo, hi) = self.pads[i];
                let d = if self.dilations[i] == 1 {
                    String::new()
                } else {
                    format!("{}*", self.dilations[i])
                };
                format!("{}*o{i}@{lo},{hi}+{d}k{i}", self.strides[i])
            })
            .collect()
    }
}

impl Translator {
    /// Reads `kernel_shape`, `strides`, `dilations`, `pads`, `auto_pad` and
    /// `ceil_mode` (ONNX Conv / MaxPool / AveragePool).
    fn window(&self, node: &NodeProto, kernel: Vec<u64>, x: &Val) -> R<Window> {
        let a = Attrs::of(node);
        let s = kernel.len();
        let list = |name: &str| -> R<Vec<u64>> {
            match a.ints(name) {
                None => Ok(vec![1; s]),
                Some(v) if v.len() == s && v.iter().all(|&x| x >= 1) => {
                    Ok(v.iter().map(|&x| x as u64).collect())
                }
                Some(v) => self.err(format!("'{name}' {v:?} does not fit {s} spatial axes")),
            }
        };
        let strides = list("strides")?;
        let dilations = list("dilations")?;
        let mut pads: Vec<(u64, u64)> = match a.ints("pads") {
            None => vec![(0, 0); s],
            Some(p) if p.len() == 2 * s && p.iter().all(|&x| x >= 0) => {
                (0..s).map(|i| (p[i] as u64, p[i + s] as u64)).collect()
            }
            Some(p) => return self.err(format!("'pads' {p:?} does not fit {s} spatial axes")),
        };
        match a.string("auto_pad").as_deref().unwrap_or("NOTSET") {
            "NOTSET" | "" => {}
            "VALID" => pads = vec![(0, 0); s],
            mode @ ("SAME_UPPER" | "SAME_LOWER") => {
                // Output ceil(input / stride): the total padding is
                // (out - 1) * stride + span - input, which depends on the
                // input size unless the stride is 1.
                for i in 0..s {
                    let overflow = || {
                        self.error(format!(
                            "auto_pad={mode}: the window's sizes overflow 64 bits"
                        ))
                    };
                    let span = (kernel[i] - 1)
                        .checked_mul(dilations[i])
                        .and_then(|v| v.checked_add(1))
                        .ok_or_else(overflow)?;
                    let total = if strides[i] == 1 {
                        span - 1
                    } else {
                        let Some(shape) = &x.shape else {
                            return self.err(format!(
                                "auto_pad={mode} with stride {} needs the input's size, which is not known here",
                                strides[i]
                            ));
                        };
                        let Some(&n) = shape.len().checked_sub(s).and_then(|l| shape.get(l + i))
                        else {
                            return self
                                .err(format!("a rank-{} input for {s} spatial axes", shape.len()));
                        };
                        let out = n.div_ceil(strides[i]);
                        ((out.max(1) - 1) * strides[i])
                            .checked_add(span)
                            .ok_or_else(overflow)?
                            .saturating_sub(n)
                    };
                    let small = total / 2;
                    pads[i] = if mode == "SAME_UPPER" {
                        (small, total - small)
                    } else {
                        (total - small, small)
                    };
                }
            }
            other => return self.err(format!("auto_pad='{other}' is not supported")),
        }
        let ceil_extra = if a.int("ceil_mode").unwrap_or(0) == 1 {
            self.ceil_pads(x, &kernel, (&strides, &dilations), &mut pads)?
        } else {
            vec![0; s]
        };
        Ok(Window {
            kernel,
            strides,
            dilations,
            pads,
            ceil_extra,
        })
    }

    /// `ceil_mode`: the end padding each axis needs for the windows that
    /// rounding up adds (added to `pads`; returned per axis). ONNX rounds
    /// the window count up, then drops a last window that would start in
    /// the end padding: with the input's dims known, the padding is exactly
    /// what the kept windows reach; otherwise `stride - 1`, which holds
    /// while the end padding stays below the kernel.
    fn ceil_pads(
        &self,
        x: &Val,
        kernel: &[u64],
        (strides, dilations): (&[u64], &[u64]),
        pads: &mut [(u64, u64)],
    ) -> R<Vec<u64>> {
        let s = kernel.len();
        let dims = x
            .shape
            .as_ref()
            .and_then(|d| d.len().checked_sub(s).map(|l| &d[l..]));
        let mut extra = Vec::with_capacity(s);
        for i in 0..s {
            let span = (kernel[i] - 1)
                .saturating_mul(dilations[i])
                .saturating_add(1);
            let (lo, hi) = pads[i];
            let e = match dims {
                Some(d) => {
                    let whole = d[i].saturating_add(lo).saturating_add(hi);
                    if whole < span {
                        0
                    } else {
                        let mut out = (whole - span).div_ceil(strides[i]) + 1;
                        if (out - 1).saturating_mul(strides[i]) >= d[i].saturating_add(lo) {
                            out -= 1;
                        }
                        ((out - 1).saturating_mul(strides[i]).saturating_add(span))
                            .saturating_sub(whole)
                    }
                }
                None if hi.saturating_add(strides[i]) > kernel[i] => {
                    return self.err(
                        "ceil_mode with padding of at least the kernel size needs the input's dims, which are not known here (not supported)",
                    );
                }
                None => strides[i] - 1,
            };
            pads[i].1 = hi.saturating_add(e);
            extra.push(e);
        }
        Ok(extra)
    }

    /// ONNX Conv: `Y[n, m, o...] = sum_{c, k...} X[n, g*Cg + c, s*o + d*k - lo...]
    /// * W[m, c, k...] (+ B[m])`, `m` in group `g = m / (M / group)`.
    pub(super) fn conv(&mut self, node: &NodeProto) -> R<()> {
        let a = Attrs::of(node);
        let x = self.input(node, 0)?;
        let w = self.input(node, 1)?;
        let bias = self.opt_input(node, 2)?;
        let Some(wd) = w.shape.clone() else {
            return self
                .err("Conv needs its weight's shape (an initializer or an input with a shape)");
        };
        let kernel = self.conv_kernel(&a, &x, &wd)?;
        let s = kernel.len();
        let win = self.window(node, kernel, &x)?;
        let group = a.int("group").unwrap_or(1);
        let (m, cg) = (wd[0], wd[1]);
        if group < 1 || m % group as u64 != 0 {
            return self.err(format!(
                "group {group} does not divide the {m} output channels"
            ));
        }
        let out_spec = if bias.is_none() {
            self.out_spec(node, 0)
        } else {
            "...".into()
        };
        let y = self.conv_product(&x, &w, &win, (m, cg, group as u64), out_spec);
        let y = match bias {
            None => y,
            Some(b) => {
                let os = labels("o", s);
                let spec = format!("n,m,{}; m => n,m,{}", os.join(","), os.join(","));
                self.einsum(&spec, &[&y, &b], None, Some("add"), self.out_spec(node, 0))
            }
        };
        self.bind(node, 0, with_rank(y, Some(s + 2)));
        Ok(())
    }

    /// The spatial kernel of a Conv weight of shape `wd` (`M, C/group,
    /// k...`), checked against the input's rank and `kernel_shape`.
    fn conv_kernel(&self, a: &Attrs<'_>, x: &Val, wd: &[u64]) -> R<Vec<u64>> {
        if wd.len() < 3 {
            return self.err(format!("Conv weight of shape {wd:?}: rank at least 3"));
        }
        let s = wd.len() - 2;
        let kernel = wd[2..].to_vec();
        if let Some(r) = x.rank
            && r != s + 2
        {
            return self.err(format!(
                "a rank-{r} input for a weight of rank {} (Conv needs N, C and {s} spatial axes)",
                wd.len()
            ));
        }
        if kernel.contains(&0) {
            return self.err(format!(
                "Conv weight of shape {wd:?}: a kernel axis of size 0"
            ));
        }
        if let Some(k) = a.ints("kernel_shape")
            && k.iter().map(|&v| v as u64).ne(kernel.iter().copied())
        {
            return self.err(format!(
                "kernel_shape {k:?} against the weight's {kernel:?}"
            ));
        }
        Ok(kernel)
    }

    /// The convolution of `x` by `w` over `win`, without the bias: `m`
    /// output channels, `cg` input channels per group, `g` groups.
    fn conv_product(
        &mut self,
        x: &Val,
        w: &Val,
        win: &Window,
        (m, cg, g): (u64, u64, u64),
        out_spec: String,
    ) -> Val {
        let s = win.kernel.len();
        let mg = m / g;
        let padded;
        let (x, win) = match self.pad_spatial(x, win) {
            Some(p) => {
                padded = p;
                (&padded.0, &padded.1)
            }
            None => (x, win),
        };
        let ins = win.input_axes();
        let ks = labels("k", s);
        let os = labels("o", s);
        if g == 1 {
            let spec = format!(
                "n,c,{}; m,c,{} => n,m,{}",
                ins.join(","),
                ks.join(","),
                os.join(",")
            );
            self.einsum(&spec, &[x, w], None, None, out_spec)
        } else if cg == 1 && mg == 1 {
            // Depthwise: one channel in, one out, per group.
            let spec = format!(
                "n,g,{}; g,c,{} => n,g,{}",
                ins.join(","),
                ks.join(","),
                os.join(",")
            );
            self.einsum(&spec, &[x, w], None, None, out_spec)
        } else {
            // Groups: the channel axes split as `Cg * g + c` and `Mg * g + j`
            // (strided axes); the result has a group axis and a per-group
            // axis, reshaped into the channels (the same cells in memory).
            let spec = format!(
                "n,{cg}*g+c,{}; {mg}*g+j,c,{} => n,g,j,{}",
                ins.join(","),
                ks.join(","),
                os.join(",")
            );
            let nv = self.fresh_var();
            let ov: Vec<String> = (0..s).map(|_| self.fresh_var()).collect();
            let grouped = self.einsum(
                &spec,
                &[x, w],
                None,
                None,
                format!("{nv},{g},{mg},{}", ov.join(",")),
            );
            let spec = format!("{nv},{m},{}", ov.join(","));
            let elem = grouped.elem;
            self.emit("reshape", &[&grouped], "", elem, spec, None)
        }
    }

    /// A convolution's input with its padding made explicit: a copy with
    /// `lo` and `hi` zeros around each spatial axis (an einsum over a
    /// one-cell kernel, as Pad's), and the window without padding; `None`
    /// when there is none. The product then reads inside its input only:
    /// its kernel needs no guard per tap (issue 41), at the price of one
    /// copy of the input.
    fn pad_spatial(&mut self, x: &Val, win: &Window) -> Option<(Val, Window)> {
        if win.pads.iter().all(|&(lo, hi)| lo == 0 && hi == 0) {
            return None;
        }
        let s = win.kernel.len();
        let axes: Vec<String> = win
            .pads
            .iter()
            .enumerate()
            .map(|(i, (lo, hi))| format!("1*p{i}@{lo},{hi}+q{i}"))
            .collect();
        let spec = format!(
            "n,c,{}; {} => n,c,{}",
            axes.join(","),
            labels("q", s).join(","),
            labels("p", s).join(",")
        );
        let ones = self.fill(x.elem, &vec![1; s], 1.0);
        let padded = self.einsum(&spec, &[x, &ones], None, None, "...".into());
        let mut padded = with_rank(padded, Some(s + 2));
        if let Some(d) = x.shape.as_ref().filter(|d| d.len() == s + 2) {
            let mut dims = d.clone();
            for (i, (lo, hi)) in win.pads.iter().enumerate() {
                dims[i + 2] += lo + hi;
            }
            padded.shape = Some(dims);
        }
        let unpadded = Window {
            kernel: win.kernel.clone(),
            strides: win.strides.clone(),
            dilations: win.dilations.clone(),
            pads: vec![(0, 0); s],
            ceil_extra: vec![0; s],
        };
        Some((padded, unpadded))
    }
}
