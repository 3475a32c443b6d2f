//! Pools: MaxPool (and its indices), AveragePool, LpPool and the global
//! pools, over the window of [`super::Window`].

use super::super::axes::labels;
use super::super::elementwise::with_rank;
use super::super::{Attrs, R, Translator, Val};
use super::Window;
use crate::proto::NodeProto;
use crate::tensor::Elem;

impl Translator {
    /// ONNX MaxPool / AveragePool over the trailing `kernel_shape` axes.
    pub(in crate::translate) fn pool(&mut self, node: &NodeProto, max: bool) -> R<()> {
        let x = self.input(node, 0)?;
        let kernel = self.pool_kernel(node)?;
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
        let indices = max && node.output.get(1).is_some_and(|o| !o.is_empty());
        let y = if node.op_type.as_deref() == Some("LpPool") {
            self.lp_pool(node, &x, &kernel, &spec)?
        } else if max {
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
            self.average_pool(node, &x, &win, &spec)?
        };
        if indices {
            let i = self.pool_indices(node, &x, &y, &win, &pre)?;
            self.bind(node, 1, with_rank(i, x.rank));
        }
        self.bind(node, 0, with_rank(y, x.rank));
        Ok(())
    }

    /// MaxPool's Indices (onnx__MaxPool.html): the flat index in `x` (row
    /// major; `storage_order=1`: the spatial axes column major) of each
    /// window's maximum, the first in the window's order (onnxruntime's):
    /// the least index among the window's cells equal to the maximum.
    fn pool_indices(
        &mut self,
        node: &NodeProto,
        x: &Val,
        y: &Val,
        win: &Window,
        pre: &str,
    ) -> R<Val> {
        let Some(dims) = x.shape.clone() else {
            return self.err("MaxPool's Indices output needs the input's dims, which are not known here (not supported)");
        };
        let s = win.kernel.len();
        let r = dims.len();
        let column = Attrs::of(node).int("storage_order").unwrap_or(0) == 1;
        // Each axis's stride in the flat index.
        let mut strides = vec![0u64; r];
        let mut acc = 1u64;
        let order: Vec<usize> = if column {
            (2..r).chain([1, 0]).collect()
        } else {
            (0..r).rev().collect()
        };
        for a in order {
            strides[a] = acc;
            acc = match acc.checked_mul(dims[a]) {
                Some(v) if v <= 1 << 62 => v,
                _ => return self.err("MaxPool's input has more than 2^62 cells"),
            };
        }
        let mut flat: Option<Val> = None;
        for a in 0..r {
            let mut bytes = Vec::new();
            for i in 0..dims[a] {
                bytes.extend((i * strides[a]).to_le_bytes());
            }
            let mut d = vec![dims[a]];
            d.extend(std::iter::repeat_n(1, r - a - 1));
            let t = crate::tensor::Tensor {
                data_type: crate::proto::tensor_proto::DataType::Int64 as i32,
                dims: d,
                bytes,
            };
            let c = self.constant(&t)?;
            flat = Some(match flat {
                None => c,
                Some(f) => self.binary("add", &f, &c, "...".into())?,
            });
        }
        let flat = flat.unwrap_or_else(|| self.scalar(Elem::I64, 0.0));
        let (ks, os) = (labels("k", s).join(","), labels("o", s).join(","));
        let ins = win.input_axes().join(",");
        // Each window's cells (plus a kernel of zeros, which sizes it).
        // Padding: -inf values (never above a maximum), the largest index.
        let patches = format!("{pre}{ins}; {ks} => {pre}{os},{ks}");
        let zeros = self.fill(x.elem, &win.kernel, 0.0);
        let vals = self.einsum(
            &patches,
            &[x, &zeros],
            Some("max"),
            Some("add"),
            "...".into(),
        );
        let zeros = self.fill(Elem::I64, &win.kernel, 0.0);
        let idx = self.einsum(
            &patches,
            &[&flat, &zeros],
            Some("min"),
            Some("add"),
            "...".into(),
        );
        let ones = self.fill(x.elem, &win.kernel, 1.0);
        let spread = format!("{pre}{os}; {ks} => {pre}{os},{ks}");
        let ys = self.einsum(&spread, &[y, &ones], None, None, "...".into());
        let hit = self.binary_to("eq", &vals, &ys, "...".into(), Elem::Bool)?;
        let big = self.scalar(Elem::I64, (1u64 << 62) as f64);
        let cand = self.ternary("where", &hit, &idx, &big, "...".into())?;
        let least = format!("{pre}{os},{ks} => {pre}{os}");
        Ok(self.einsum(&least, &[&cand], Some("min"), None, self.out_spec(node, 1)))
    }

    /// A pool's kernel: `kernel_shape`, checked, with what MaxPool and
    /// AveragePool may ask for that is not supported.
    fn pool_kernel(&self, node: &NodeProto) -> R<Vec<u64>> {
        let a = Attrs::of(node);
        if node.output.len() > 1
            && !node.output[1].is_empty()
            && node.op_type.as_deref() != Some("MaxPool")
        {
            return self.err("an Indices output is MaxPool's only");
        }
        if !matches!(a.int("storage_order").unwrap_or(0), 0 | 1) {
            return self.err("storage_order must be 0 or 1");
        }
        let Some(k) = a.ints("kernel_shape") else {
            return self.err("'kernel_shape' is required");
        };
        if k.iter().any(|&v| v < 1) {
            return self.err(format!("kernel_shape {k:?}"));
        }
        if k.len() as u64 > super::super::axes::MAX_AXES {
            return self.err(format!("kernel_shape of {} axes", k.len()));
        }
        Ok(k.iter().map(|&v| v as u64).collect())
    }

    /// ONNX LpPool (onnx.ai/onnx/operators/onnx__LpPool.html): `(sum of
    /// |x|^p over the window)^(1/p)`, padding counting 0.
    fn lp_pool(&mut self, node: &NodeProto, x: &Val, kernel: &[u64], spec: &str) -> R<Val> {
        let p = Attrs::of(node).int("p").unwrap_or(2);
        if p < 1 {
            return self.err(format!("p {p} must be at least 1"));
        }
        let abs = self.unary("abs", x, "...".into());
        let raised = match p {
            1 => abs,
            2 => self.binary("mul", &abs, &abs, "...".into())?,
            _ => {
                let e = self.scalar(x.elem, p as f64);
                self.binary("pow", &abs, &e, "...".into())?
            }
        };
        let ones = self.fill(x.elem, kernel, 1.0);
        let sum = self.einsum(spec, &[&raised, &ones], None, None, "...".into());
        Ok(match p {
            1 => sum,
            2 => self.unary("sqrt", &sum, self.out_spec(node, 0)),
            _ => {
                let e = self.scalar(x.elem, 1.0 / p as f64);
                self.binary("pow", &sum, &e, self.out_spec(node, 0))?
            }
        })
    }

    /// AveragePool of `x` over `win`: the window's sum (the einsum `spec`
    /// of the input and the kernel), divided by the kernel's size or by
    /// how many cells of the window count (`count_include_pad`).
    fn average_pool(&mut self, node: &NodeProto, x: &Val, win: &Window, spec: &str) -> R<Val> {
        let a = Attrs::of(node);
        let kernel = &win.kernel;
        let ones = self.fill(x.elem, kernel, 1.0);
        let sum = self.einsum(spec, &[x, &ones], None, None, "...".into());
        let padded = win.pads.iter().any(|&(l, h)| l + h > 0);
        let include_pad = a.int("count_include_pad").unwrap_or(0) == 1;
        if include_pad && win.ceil_extra.iter().any(|&e| e > 0) {
            let count = self.padded_count(x, win, &ones)?;
            self.binary("div", &sum, &count, sum.spec.clone())
        } else if include_pad || !padded {
            let Some(n) = kernel.iter().try_fold(1u64, |a, &b| a.checked_mul(b)) else {
                return self.err(format!("kernel_shape {kernel:?} overflows 64 bits"));
            };
            let c = self.scalar(x.elem, n as f64);
            self.binary("div", &sum, &c, self.out_spec(node, 0))
        } else {
            // Only the cells inside the input count: the same window
            // over ones.
            let ones_x = self.ones_like(x);
            let count = self.einsum(spec, &[&ones_x, &ones], None, None, "...".into());
            self.binary("div", &sum, &count, sum.spec.clone())
        }
    }

    /// How many cells each window of `win` counts with `count_include_pad`
    /// and `ceil_mode`: the explicit padding counts, the rounding-up
    /// extension does not (onnxruntime; ONNX's reference agrees). The
    /// window counted over ones the size of the explicitly padded input,
    /// read with only the extension as padding (`ones`: the kernel).
    fn padded_count(&mut self, x: &Val, win: &Window, ones: &Val) -> R<Val> {
        let s = win.kernel.len();
        let (ks, os) = (labels("k", s), labels("o", s));
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
        Ok(self.einsum(&cspec, &[&ones_p, ones], None, None, "...".into()))
    }

    /// ONNX GlobalAveragePool and GlobalMaxPool.
    pub(in crate::translate) fn global_pool(&mut self, node: &NodeProto, op: &str) -> R<()> {
        let x = self.input(node, 0)?;
        let Some(rank) = x.rank else {
            return self.err(format!(
                "{op} needs its input's rank, which is not known here"
            ));
        };
        if rank < 2 {
            return self.err(format!("{op} needs a rank of at least 2"));
        }
        let sp = labels("h", rank - 2);
        let out = format!("n,c,{}", vec!["0"; rank - 2].join(","));
        let spec = format!("n,c,{} => {out}", sp.join(","));
        let v = if op == "GlobalMaxPool" {
            let pinned = self.pinned(&out);
            self.einsum(&spec, &[&x], Some("max"), None, pinned)
        } else {
            let pinned = self.pinned(&out);
            let s = self.einsum(&spec, &[&x], None, None, pinned);
            let count = if sp.is_empty() {
                self.count(&x, &spec)?
            } else {
                // The cells each result cell sums, counted over one
                // channel: ones where `x[0, 0, ...]` is (a view that ties
                // the spatial sizes to `x`'s), summed to a scalar. H·W
                // cells of work instead of N·C·H·W.
                let sp = sp.join(",");
                let one = self.scalar(x.elem, 1.0);
                let ones = self.einsum(
                    &format!("0,0,{sp}; ; => {sp}"),
                    &[&x, &one, &one],
                    None,
                    Some("where"),
                    "...".into(),
                );
                self.einsum(&format!("{sp} => "), &[&ones], None, None, String::new())
            };
            self.binary("div", &s, &count, s.spec.clone())?
        };
        self.bind(node, 0, with_rank(v, Some(rank)));
        Ok(())
    }
}
