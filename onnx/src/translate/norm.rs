//! Normalisations: BatchNormalization, LRN, Softmax and LogSoftmax,
//! LayerNormalization.

use super::axes::{Layout, labels};
use super::elementwise::with_rank;
use super::{Attrs, R, Translator, Val};
use crate::proto::NodeProto;

impl Translator {
    /// ONNX BatchNormalization: per channel (axis 1), `(x - mean) /
    /// sqrt(var + eps) * scale + bias`, folded into one scale and one
    /// shift per channel and a three-operand einsum (`x * a + b`). With
    /// `training_mode=1` (opset 14 on), `mean` and `var` are the batch's
    /// (over every axis but the channels; the population variance) and
    /// the outputs #1 and #2 are the running statistics `input *
    /// momentum + batch * (1 - momentum)`.
    pub(super) fn batch_norm(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let training = match at.int("training_mode").unwrap_or(0) {
            0 => false,
            1 => true,
            t => return self.err(format!("training_mode must be 0 or 1, not {t}")),
        };
        if !training && node.output.iter().skip(1).any(|o| !o.is_empty()) {
            return self
                .err("the running mean and variance outputs are not supported (inference only)");
        }
        if node.output.iter().skip(3).any(|o| !o.is_empty()) {
            return self.err("the saved mean and variance outputs are not supported");
        }
        if at.int("spatial").unwrap_or(1) != 1 {
            return self.err("spatial=0 is not supported");
        }
        let x = self.input(node, 0)?;
        let (scale, bias, mut mean, mut var) = (
            self.input(node, 1)?,
            self.input(node, 2)?,
            self.input(node, 3)?,
            self.input(node, 4)?,
        );
        self.check_channel_params(&x, &[&scale, &bias, &mean, &var])?;
        let running = if training {
            let (bm, bv) = self.batch_stats(&x)?;
            let mom = f64::from(at.float("momentum").unwrap_or(0.9));
            let rm = self.running(&mean, &bm, mom)?;
            let rv = self.running(&var, &bv, mom)?;
            (mean, var) = (bm, bv);
            Some((rm, rv))
        } else {
            None
        };
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
        if let Some((rm, rv)) = running {
            self.bind(node, 1, rm);
            self.bind(node, 2, rv);
        }
        Ok(())
    }

    /// BatchNormalization's scale, bias, mean and variance: 1-D, one cell
    /// per channel (the input's axis 1, of a rank of at least 2).
    fn check_channel_params(&self, x: &Val, params: &[&Val]) -> R<()> {
        if let Some(r) = x.rank.filter(|&r| r < 2) {
            return self.err(format!(
                "a rank-{r} input (BatchNormalization needs N and C)"
            ));
        }
        let c = x.shape.as_ref().and_then(|d| d.get(1).copied());
        for (i, p) in params.iter().enumerate() {
            let bad_rank = p.rank.is_some_and(|r| r != 1);
            let bad_size = matches!((&p.shape, c), (Some(d), Some(c)) if d != &[c]);
            if bad_rank || bad_size {
                return self.err(format!(
                    "input #{} must be 1-D with one cell per channel{}, its shape is {:?}",
                    i + 1,
                    c.map(|c| format!(" ({c})")).unwrap_or_default(),
                    p.shape
                ));
            }
        }
        Ok(())
    }

    /// The batch's per-channel mean and population variance of `x`
    /// (`N, C, ...`).
    fn batch_stats(&mut self, x: &Val) -> R<(Val, Val)> {
        let spec = "n,c,..r.. => c";
        let count = self.count(x, spec)?;
        let pinned = self.pinned("c");
        let sum = self.einsum(spec, &[x], None, None, pinned);
        let mean = self.binary("div", &sum, &count, sum.spec.clone())?;
        let d = self.einsum(
            "n,c,..r..; c => n,c,..r..",
            &[x, &mean],
            None,
            Some("sub"),
            "...".into(),
        );
        let sq = self.binary("mul", &d, &d, d.spec.clone())?;
        let pinned = self.pinned("c");
        let ssum = self.einsum(spec, &[&sq], None, None, pinned);
        let var = self.binary("div", &ssum, &count, ssum.spec.clone())?;
        Ok((with_rank(mean, Some(1)), with_rank(var, Some(1))))
    }

    /// `input * momentum + batch * (1 - momentum)`.
    fn running(&mut self, input: &Val, batch: &Val, momentum: f64) -> R<Val> {
        let m = self.scalar(input.elem, momentum);
        let a = self.binary("mul", input, &m, "...".into())?;
        let m1 = self.scalar(input.elem, 1.0 - momentum);
        let b = self.binary("mul", batch, &m1, "...".into())?;
        self.binary("add", &a, &b, "...".into())
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
            super::axes::check_axis(axis).map_err(|m| self.error(m))?;
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
        super::axes::check_axis(axis).map_err(|m| self.error(m))?;
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
