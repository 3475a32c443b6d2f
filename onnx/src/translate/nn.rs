//! Convolutions, pools, matrix products and normalisations.

use super::ops::{Layout, labels, with_rank};
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
        if a.int("ceil_mode").unwrap_or(0) == 1 {
            // Rounding up: as if the end were padded by stride - 1 more.
            // (ONNX also drops a last window that would start in the end
            // padding; with the padding below the kernel that cannot happen.)
            for i in 0..s {
                if pads[i].1.saturating_add(strides[i]) > kernel[i] {
                    return self.err(
                        "ceil_mode with padding of at least the kernel size is not supported",
                    );
                }
                pads[i].1 += strides[i] - 1;
            }
        }
        let ceil_extra = if a.int("ceil_mode").unwrap_or(0) == 1 {
            strides.iter().map(|st| st - 1).collect()
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
        let win = self.window(node, kernel, &x)?;
        let group = a.int("group").unwrap_or(1);
        let (m, cg) = (wd[0], wd[1]);
        if group < 1 || m % group as u64 != 0 {
            return self.err(format!(
                "group {group} does not divide the {m} output channels"
            ));
        }
        let g = group as u64;
        let mg = m / g;
        let ins = win.input_axes();
        let ks = labels("k", s);
        let os = labels("o", s);
        let out_spec = if bias.is_none() {
            self.out_spec(node, 0)
        } else {
            "...".into()
        };
        let y = if g == 1 {
            let spec = format!(
                "n,c,{}; m,c,{} => n,m,{}",
                ins.join(","),
                ks.join(","),
                os.join(",")
            );
            self.einsum(&spec, &[&x, &w], None, None, out_spec)
        } else if cg == 1 && mg == 1 {
            // Depthwise: one channel in, one out, per group.
            let spec = format!(
                "n,g,{}; g,c,{} => n,g,{}",
                ins.join(","),
                ks.join(","),
                os.join(",")
            );
            self.einsum(&spec, &[&x, &w], None, None, out_spec)
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
                &[&x, &w],
                None,
                None,
                format!("{nv},{g},{mg},{}", ov.join(",")),
            );
            let spec = format!("{nv},{m},{}", ov.join(","));
            let elem = grouped.elem;
            self.emit("reshape", &[&grouped], "", elem, spec, None)
        };
        let y = match bias {
            None => y,
            Some(b) => {
                let spec = format!("n,m,{}; m => n,m,{}", os.join(","), os.join(","));
                self.einsum(&spec, &[&y, &b], None, Some("add"), self.out_spec(node, 0))
            }
        };
        self.bind(node, 0, with_rank(y, Some(s + 2)));
        Ok(())
    }

    /// ONNX MaxPool / AveragePool over the trailing `kernel_shape` axes.
    pub(super) fn pool(&mut self, node: &NodeProto, max: bool) -> R<()> {
        let a = Attrs::of(node);
        let x = self.input(node, 0)?;
        if node.output.len() > 1 && !node.output[1].is_empty() {
            return self.err("MaxPool's Indices output is not supported");
        }
        if a.int("storage_order").unwrap_or(0) != 0 {
            return self.err("storage_order=1 is not supported");
        }
        let Some(k) = a.ints("kernel_shape") else {
            return self.err("'kernel_shape' is required");
        };
        if k.iter().any(|&v| v < 1) {
            return self.err(format!("kernel_shape {k:?}"));
        }
        if k.len() as u64 > super::ops::MAX_AXES {
            return self.err(format!("kernel_shape of {} axes", k.len()));
        }
        let kernel: Vec<u64> = k.iter().map(|&v| v as u64).collect();
        let s = kernel.len();
        let win = self.window(node, kernel.clone(), &x)?;
        let ins = win.input_axes();
        let (ks, os) = (labels("k", s), labels("o", s));
        // ONNX pools need N, C and one axis per kernel axis: a kernel
        // shorter than the spatial rank is an error, not a pool of the
        // last axes.
        let lead = match x.rank {
            Some(r) if r == s + 2 => labels("b", 2),
            Some(r) => {
                return self.err(format!(
                    "a rank-{r} input for a {s}-axis kernel_shape (the input needs N, C and {s} spatial axes)"
                ));
            }
            None => labels("b", 2),
        };
        let pre = lead.iter().map(|l| format!("{l},")).collect::<String>();
        let spec = format!(
            "{pre}{}; {} => {pre}{}",
            ins.join(","),
            ks.join(","),
            os.join(",")
        );
        let y = if max {
            // -inf outside (padding reads the accumulator's neutral element).
            let zero = self.fill(x.elem, &kernel, 0.0);
            self.einsum(
                &spec,
                &[&x, &zero],
                Some("max"),
                Some("add"),
                self.out_spec(node, 0),
            )
        } else {
            let ones = self.fill(x.elem, &kernel, 1.0);
            let sum = self.einsum(&spec, &[&x, &ones], None, None, "...".into());
            let padded = win.pads.iter().any(|&(l, h)| l + h > 0);
            let include_pad = a.int("count_include_pad").unwrap_or(0) == 1;
            if include_pad && win.ceil_extra.iter().any(|&e| e > 0) {
                // The explicit padding counts, the rounding-up extension
                // does not (onnxruntime; ONNX's reference agrees): count
                // the window over ones the size of the explicitly padded
                // input, read with only the extension as padding.
                let Some(shape) = x.shape.clone().filter(|d| d.len() >= s) else {
                    return self.err(
                        "count_include_pad=1 with ceil_mode needs the input's size, which is not known here",
                    );
                };
                let spatial = &shape[shape.len() - s..];
                let Some(padded_dims) = (0..s)
                    .map(|i| {
                        let (lo, hi) = win.pads[i];
                        spatial[i]
                            .checked_add(lo)?
                            .checked_add(hi)?
                            .checked_sub(win.ceil_extra[i])
                    })
                    .collect::<Option<Vec<u64>>>()
                else {
                    return self.err("the padded input's sizes overflow 64 bits");
                };
                let ones_p = self.fill(x.elem, &padded_dims, 1.0);
                let axes: Vec<String> = (0..s)
                    .map(|i| {
                        let d = win.dilations[i];
                        format!("{}*o{i}@0,{}+{d}*k{i}", win.strides[i], win.ceil_extra[i])
                    })
                    .collect();
                let cspec = format!("{}; {} => {}", axes.join(","), ks.join(","), os.join(","));
                let count = self.einsum(&cspec, &[&ones_p, &ones], None, None, "...".into());
                self.binary("div", &sum, &count, sum.spec.clone())?
            } else if include_pad || !padded {
                let Some(n) = kernel.iter().try_fold(1u64, |a, &b| a.checked_mul(b)) else {
                    return self.err(format!("kernel_shape {kernel:?} overflows 64 bits"));
                };
                let c = self.scalar(x.elem, n as f64);
                self.binary("div", &sum, &c, self.out_spec(node, 0))?
            } else {
                // Only the cells inside the input count: the same window
                // over ones.
                let ones_x = self.ones_like(&x);
                let count = self.einsum(&spec, &[&ones_x, &ones], None, None, "...".into());
                self.binary("div", &sum, &count, sum.spec.clone())?
            }
        };
        self.bind(node, 0, with_rank(y, x.rank));
        Ok(())
    }

    /// ONNX Gemm: `alpha * A' B' + beta * C` with `A'` = `A` or `A^T`.
    pub(super) fn gemm(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let (a, b) = (self.input(node, 0)?, self.input(node, 1)?);
        let c = self.opt_input(node, 2)?;
        let alpha = f64::from(at.float("alpha").unwrap_or(1.0));
        let beta = f64::from(at.float("beta").unwrap_or(1.0));
        let sa = if at.int("transA").unwrap_or(0) != 0 {
            "k,m"
        } else {
            "m,k"
        };
        let sb = if at.int("transB").unwrap_or(0) != 0 {
            "n,k"
        } else {
            "k,n"
        };
        let last = c.is_none() || beta == 0.0;
        let spec = format!("{sa}; {sb} => m,n");
        let out = if last && alpha == 1.0 {
            self.out_spec(node, 0)
        } else {
            "...".into()
        };
        let mut y = self.einsum(&spec, &[&a, &b], None, None, out);
        if alpha != 1.0 {
            let s = self.scalar(a.elem, alpha);
            let out = if last {
                self.out_spec(node, 0)
            } else {
                "...".into()
            };
            y = self.binary("mul", &y, &s, out)?;
        }
        if let Some(r) = c.as_ref().and_then(|c| c.rank)
            && r > 2
        {
            return self.err(format!(
                "a rank-{r} C does not broadcast to Gemm's (M, N) result"
            ));
        }
        if let (Some(c), false) = (c, last) {
            let c = if beta == 1.0 {
                c
            } else {
                let s = self.scalar(a.elem, beta);
                self.binary("mul", &c, &s, "...".into())?
            };
            // C broadcasts to (M, N) unidirectionally: NumPy rules.
            y = self.binary("add", &y, &c, self.out_spec(node, 0))?;
        }
        self.bind(node, 0, with_rank(y, Some(2)));
        Ok(())
    }

    /// ONNX MatMul (NumPy `matmul`): batch axes broadcast; a 1-D operand is
    /// a vector.
    pub(super) fn matmul(&mut self, node: &NodeProto) -> R<()> {
        let (a, b) = (self.input(node, 0)?, self.input(node, 1)?);
        let out = self.out_spec(node, 0);
        let (ra, rb) = (a.rank, b.rank);
        if ra == Some(0) || rb == Some(0) {
            return self.err(
                "MatMul of a scalar (a 0-d operand): both operands need a rank of at least 1",
            );
        }
        let (spec, rank) = match (ra, rb) {
            (Some(1), Some(1)) => ("k; k => ".to_owned(), Some(0)),
            (Some(1), _) => ("k; ..b.., k, n => ..b.., n".to_owned(), rb.map(|r| r - 1)),
            (_, Some(1)) => ("..b.., m, k; k => ..b.., m".to_owned(), ra.map(|r| r - 1)),
            (_, Some(2)) => ("..b.., m, k; k, n => ..b.., m, n".to_owned(), ra),
            (Some(2), _) => ("m, k; ..b.., k, n => ..b.., m, n".to_owned(), rb),
            (Some(x), Some(y)) if x == y => {
                // Same rank: batch axes may still broadcast (size 1).
                let bl = labels("b", x - 2);
                let cl = labels("c", x - 2);
                let same = self.same_batch(&a, &b, x - 2);
                if same {
                    let p = bl.iter().map(|l| format!("{l},")).collect::<String>();
                    (format!("{p}m,k; {p}k,n => {p}m,n"), Some(x))
                } else {
                    let _ = cl;
                    return self.matmul_broadcast(node, &a, &b, out);
                }
            }
            _ => return self.matmul_broadcast(node, &a, &b, out),
        };
        let v = self.einsum(&spec, &[&a, &b], None, None, out);
        self.bind(node, 0, with_rank(v, rank));
        Ok(())
    }

    /// Whether the first `n` axes of both operands are known to be equal
    /// (or unknown: ONNX graphs rarely broadcast same-rank batches).
    fn same_batch(&self, a: &Val, b: &Val, n: usize) -> bool {
        match (&a.shape, &b.shape) {
            (Some(x), Some(y)) => x[..n] == y[..n],
            _ => true,
        }
    }

    /// MatMul with broadcast batch axes: the operands viewed as OCANNL
    /// matrices (`batch | k -> m`: the same memory order as ONNX's
    /// `[..., m, k]`) and composed (`ocannl.matmul`, whose batch rows
    /// broadcast), then viewed back.
    fn matmul_broadcast(&mut self, node: &NodeProto, a: &Val, b: &Val, out: String) -> R<()> {
        // The views have batch and input rows: their types are open in all
        // three rows.
        let open = || "...|...->...".to_owned();
        let va = self.einsum("..a.., m, k => ..a.. | k -> m", &[a], None, None, open());
        let vb = self.einsum("..b.., k, n => ..b.. | n -> k", &[b], None, None, open());
        let elem = a.elem;
        let p = self.emit("matmul", &[&va, &vb], "", elem, open(), None);
        let v = self.einsum("..c.. | n -> m => ..c.., m, n", &[&p], None, None, out);
        let rank = match (a.rank, b.rank) {
            (Some(x), Some(y)) => Some(x.max(y)),
            _ => None,
        };
        self.bind(node, 0, with_rank(v, rank));
        Ok(())
    }

    /// ONNX BatchNormalization (inference): per channel (axis 1), `(x -
    /// mean) / sqrt(var + eps) * scale + bias`, folded into one scale and
    /// one shift per channel and a three-operand einsum (`x * a + b`).
    pub(super) fn batch_norm(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        if at.int("training_mode").unwrap_or(0) != 0 {
            return self.err("training_mode=1 is not supported (inference only)");
        }
        if node.output.iter().skip(1).any(|o| !o.is_empty()) {
            return self
                .err("the running mean and variance outputs are not supported (inference only)");
        }
        if at.int("spatial").unwrap_or(1) != 1 {
            return self.err("spatial=0 is not supported");
        }
        let x = self.input(node, 0)?;
        let (scale, bias, mean, var) = (
            self.input(node, 1)?,
            self.input(node, 2)?,
            self.input(node, 3)?,
            self.input(node, 4)?,
        );
        let eps = f64::from(at.float("epsilon").unwrap_or(1e-5));
        let e = self.scalar(x.elem, eps);
        let ve = self.binary("add", &var, &e, "...".into())?;
        let sd = self.unary("sqrt", &ve, "...".into());
        let mul = self.binary("div", &scale, &sd, "...".into())?;
        let mm = self.binary("mul", &mean, &mul, "...".into())?;
        let shift = self.binary("sub", &bias, &mm, "...".into())?;
        let (lead, rank) = match x.rank {
            Some(r) if r >= 2 => (labels("h", r - 2).join(","), Some(r)),
            Some(_) => ("".into(), x.rank),
            None => ("..r..".into(), None),
        };
        let xs = if lead.is_empty() {
            "n,c".to_owned()
        } else {
            format!("n,c,{lead}")
        };
        let spec = format!("{xs}; c; c => {xs}");
        let v = self.einsum(
            &spec,
            &[&x, &mul, &shift],
            None,
            Some("fma"),
            self.out_spec(node, 0),
        );
        self.bind(node, 0, with_rank(v, rank));
        Ok(())
    }

    /// ONNX LRN: `x / (bias + alpha / size * sum_{window of channels} x^2)^beta`,
    /// the window `[c - (size-1)/2, c + ceil((size-1)/2)]` (explicit padding).
    pub(super) fn lrn(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let Some(size) = at.int("size").filter(|&s| s >= 1) else {
            return self.err("'size' (at least 1) is required");
        };
        let size = size as u64;
        let alpha = f64::from(at.float("alpha").unwrap_or(1e-4));
        let beta = f64::from(at.float("beta").unwrap_or(0.75));
        let bias = f64::from(at.float("bias").unwrap_or(1.0));
        let (lo, hi) = ((size - 1) / 2, (size - 1).div_ceil(2));
        let sq = self.binary("mul", &x, &x, "...".into())?;
        let ones = self.fill(x.elem, &[size], 1.0);
        let rest = match x.rank {
            Some(r) if r >= 2 => labels("h", r - 2).iter().map(|l| format!(",{l}")).collect(),
            Some(r) => return self.err(format!("a rank-{r} input (LRN needs N and C)")),
            None => ",..r..".to_owned(),
        };
        let spec = format!("n,c@{lo},{hi}+k{rest}; k => n,c{rest}");
        let sum = self.einsum(&spec, &[&sq, &ones], None, None, "...".into());
        let s = self.scalar(x.elem, alpha / size as f64);
        let scaled = self.binary("mul", &sum, &s, "...".into())?;
        let b = self.scalar(x.elem, bias);
        let base = self.binary("add", &scaled, &b, "...".into())?;
        let p = self.scalar(x.elem, beta);
        let den = self.binary("pow", &base, &p, "...".into())?;
        let v = self.binary("div", &x, &den, self.out_spec(node, 0))?;
        self.bind(node, 0, with_rank(v, x.rank));
        Ok(())
    }

    /// ONNX Softmax / LogSoftmax. Opset 13 on: along `axis` (default -1);
    /// before: over all axes from `axis` (default 1) on, the input read as
    /// a matrix.
    pub(super) fn softmax(&mut self, node: &NodeProto, log: bool) -> R<()> {
        let x = self.input(node, 0)?;
        let at = Attrs::of(node);
        let (full, reduced) = if self.opset >= 13 {
            let axis = at.int("axis").unwrap_or(-1);
            let lay = Layout::new(&[axis], x.rank).map_err(|m| self.error(m))?;
            (lay.all(), lay.map(|_| None))
        } else {
            let axis = at.int("axis").unwrap_or(1);
            super::ops::check_axis(axis).map_err(|m| self.error(m))?;
            let axis = match (axis < 0, x.rank) {
                (false, _) => axis as usize,
                (true, Some(r)) if axis + r as i64 >= 0 => (axis + r as i64) as usize,
                _ => return self.err(format!("axis {axis} needs the input's rank")),
            };
            let l = labels("a", axis);
            match x.rank {
                // Every axis named (leading axes before a row variable align
                // from the left in broadcasts, ONNX's from the right: see
                // docs/semantics.md, "Broadcasting").
                // ONNX: axis in [-r, r - 1] (a rank-0 input: 0).
                Some(r) if r > axis || (r == 0 && axis == 0) => {
                    (labels("a", r).join(","), l.join(","))
                }
                Some(r) => return self.err(format!("axis {axis} of a rank-{r} input")),
                None => {
                    let p = l.iter().map(|s| format!("{s},")).collect::<String>();
                    (format!("{p}..s.."), l.join(","))
                }
            }
        };
        let m = self.einsum(
            &format!("{full} => {reduced}"),
            &[&x],
            Some("max"),
            None,
            "...".into(),
        );
        let both = format!("{full}; {reduced} => {full}");
        let d = self.einsum(&both, &[&x, &m], None, Some("sub"), "...".into());
        let e = self.unary("exp", &d, "...".into());
        let s = self.einsum(
            &format!("{full} => {reduced}"),
            &[&e],
            None,
            None,
            "...".into(),
        );
        let v = if log {
            let ls = self.unary("log", &s, "...".into());
            self.einsum(&both, &[&d, &ls], None, Some("sub"), self.out_spec(node, 0))
        } else {
            self.einsum(&both, &[&e, &s], None, Some("div"), self.out_spec(node, 0))
        };
        self.bind(node, 0, with_rank(v, x.rank));
        Ok(())
    }

    /// ONNX LayerNormalization over the axes from `axis` (default -1) on.
    pub(super) fn layer_norm(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let scale = self.input(node, 1)?;
        let bias = self.opt_input(node, 2)?;
        let eps = f64::from(at.float("epsilon").unwrap_or(1e-5));
        let axis = at.int("axis").unwrap_or(-1);
        super::ops::check_axis(axis).map_err(|m| self.error(m))?;
        // The normalised axes: from `axis` to the end (every axis named
        // when the rank is known). `ones`: the kept axes with the
        // normalised ones as size 1 (the Mean and InvStdDev outputs).
        let (full, kept, ones) = match (axis < 0, x.rank) {
            (true, _) => {
                let t = labels("z", (-axis) as usize);
                let zeros = vec!["0"; t.len()].join(",");
                (
                    format!("..r..,{}", t.join(",")),
                    "..r..".to_owned(),
                    format!("..r..,{zeros}"),
                )
            }
            (false, Some(r)) if r > axis as usize => {
                let l = labels("a", axis as usize);
                let mut all = l.clone();
                all.extend(labels("z", r - axis as usize));
                let mut one = l.clone();
                one.extend(std::iter::repeat_n("0".to_owned(), r - axis as usize));
                (all.join(","), l.join(","), one.join(","))
            }
            (false, _) => return self.err(format!("axis {axis} needs the input's rank")),
        };
        let red = format!("{full} => {kept}");
        let both = format!("{full}; {kept} => {full}");
        let sum = self.einsum(&red, &[&x], None, None, "...".into());
        let count = self.count(&x, &red)?;
        let mean = self.binary("div", &sum, &count, sum.spec.clone())?;
        let d = self.einsum(&both, &[&x, &mean], None, Some("sub"), "...".into());
        let d2 = self.binary("mul", &d, &d, "...".into())?;
        let vs = self.einsum(&red, &[&d2], None, None, "...".into());
        let var = self.binary("div", &vs, &count, vs.spec.clone())?;
        let e = self.scalar(x.elem, eps);
        let ve = self.binary("add", &var, &e, "...".into())?;
        let sd = self.unary("sqrt", &ve, "...".into());
        // The normalised input: `x`'s shape, so that a scale of ones (one
        // axis) is known to leave it exact (see `binary`).
        let n = self.einsum(&both, &[&d, &sd], None, Some("div"), "...".into());
        let n = with_rank(n, x.rank);
        let keep = format!("{kept} => {ones}");
        if node.output.get(1).is_some_and(|o| !o.is_empty()) {
            let pinned = self.pinned(&ones);
            let m = self.einsum(&keep, &[&mean], None, None, pinned);
            self.bind(node, 1, with_rank(m, x.rank));
        }
        if node.output.get(2).is_some_and(|o| !o.is_empty()) {
            let inv = self.unary("recip", &sd, "...".into());
            let pinned = self.pinned(&ones);
            let m = self.einsum(&keep, &[&inv], None, None, pinned);
            self.bind(node, 2, with_rank(m, x.rank));
        }
        // Scale and bias broadcast over the normalised axes (NumPy rules)
        // into `x`'s shape exactly: the result names it (a larger scale is
        // an error, not a wider result).
        let mut v = self.binary("mul", &n, &scale, n.spec.clone())?;
        if let Some(b) = bias {
            v = self.binary("add", &v, &b, n.spec.clone())?;
        }
        self.bind(node, 0, with_rank(v, x.rank));
        Ok(())
    }
}
