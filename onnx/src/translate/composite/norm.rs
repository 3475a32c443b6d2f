//! Normalisations: InstanceNormalization, GroupNormalization,
//! RMSNormalization, MeanVarianceNormalization, LpNormalization. Means are
//! einsum sums divided by the same sum over ones (`count`); the statistics
//! broadcast back through two-operand einsums.

use super::super::axes::{Layout, check_axis, labels};
use super::super::elementwise::with_rank;
use super::super::{Attrs, R, Translator, Val};
use super::index::known;
use crate::proto::NodeProto;

impl Translator {
    /// The mean of `x` (`spec`: `full => kept`, one operand).
    fn mean_of(&mut self, x: &Val, spec: &str) -> R<Val> {
        let s = self.einsum(spec, &[x], None, None, "...".into());
        let c = self.count(x, spec)?;
        self.binary("div", &s, &c, s.spec.clone())
    }

    /// `x` less its mean over the reduced axes, over the square root of
    /// the mean square of that plus `eps` (`full`, `kept`: the rows).
    fn standardise(&mut self, x: &Val, full: &str, kept: &str, eps: f64) -> R<Val> {
        let red = format!("{full} => {kept}");
        let both = format!("{full}; {kept} => {full}");
        let mean = self.mean_of(x, &red)?;
        let d = self.einsum(&both, &[x, &mean], None, Some("sub"), "...".into());
        let d2 = self.binary("mul", &d, &d, "...".into())?;
        let var = self.mean_of(&d2, &red)?;
        let e = self.scalar(x.elem, eps);
        let ve = self.binary("add", &var, &e, "...".into())?;
        let sd = self.unary("sqrt", &ve, "...".into());
        Ok(self.einsum(&both, &[&d, &sd], None, Some("div"), "...".into()))
    }

    fn float_only(&self, x: &Val, op: &str) -> R<()> {
        if x.elem.is_float() {
            return Ok(());
        }
        self.err(format!(
            "{op} takes floating-point tensors, input #0 is {}",
            x.elem.mlir()
        ))
    }

    /// ONNX InstanceNormalization: per sample and channel over the spatial
    /// axes, then `* scale[c] + bias[c]`.
    pub(super) fn instance_norm(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        self.float_only(&x, "InstanceNormalization")?;
        let (scale, bias) = (self.input(node, 1)?, self.input(node, 2)?);
        let eps = Attrs::of(node).float("epsilon").map_or(1e-5, f64::from);
        let r = match x.rank {
            Some(r) if r >= 3 => r,
            Some(r) => return self.err(format!("InstanceNormalization of a rank-{r} input")),
            None => return self.err("InstanceNormalization needs the input's rank, which is not known here (not supported)"),
        };
        let hs = labels("h", r - 2).join(",");
        let full = format!("n,c,{hs}");
        let n = self.standardise(&x, &full, "n,c", eps)?;
        let spec = format!("{full}; c; c => {full}");
        let v = self.einsum(
            &spec,
            &[&n, &scale, &bias],
            None,
            Some("fma"),
            x.spec.clone(),
        );
        self.bind(node, 0, known(v, x.shape.clone(), Some(r)));
        Ok(())
    }

    /// ONNX GroupNormalization: the channels split as `cg * g + c`
    /// (strided axes), standardised per sample and group, `* scale + bias`
    /// per channel (opset 21) or per group (opset 18), reshaped back.
    pub(super) fn group_norm(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        self.float_only(&x, "GroupNormalization")?;
        let (scale, bias) = (self.input(node, 1)?, self.input(node, 2)?);
        let eps = at.float("epsilon").map_or(1e-5, f64::from);
        if at.int("stash_type").unwrap_or(1) != 1 {
            return self.err("stash_type other than 1 (float) is not supported");
        }
        let Some(g) = at.int("num_groups").filter(|&g| g >= 1) else {
            return self.err("'num_groups' (at least 1) is required");
        };
        let g = g as u64;
        let Some(r) = x.rank.filter(|&r| r >= 2) else {
            return self.err("GroupNormalization needs the input's rank (at least 2)");
        };
        let c = x.shape.as_ref().map(|d| d[1]).or_else(|| {
            (self.opset >= 21)
                .then(|| scale.shape.as_ref().and_then(|d| d.first().copied()))
                .flatten()
        });
        let Some(c) = c else {
            return self.err("GroupNormalization needs the channel count, which is not known here (not supported)");
        };
        if c % g != 0 {
            return self.err(format!("{g} groups do not divide {c} channels"));
        }
        let cg = c / g;
        let hs: Vec<String> = labels("h", r - 2);
        let tail = hs.iter().map(|h| format!(",{h}")).collect::<String>();
        // The split view: n, g, c, h... (a strided read of the channels).
        let nv = self.fresh_var();
        let hv: Vec<String> = (0..r - 2).map(|_| self.fresh_var()).collect();
        let hvs = hv.iter().map(|h| format!(",{h}")).collect::<String>();
        let view = self.einsum(
            &format!("n,{cg}*g+c{tail} => n,g,c{tail}"),
            &[&x],
            None,
            None,
            format!("{nv},{g},{cg}{hvs}"),
        );
        let full = format!("n,g,c{tail}");
        let nrm = self.standardise(&view, &full, "n,g", eps)?;
        let per = if self.opset >= 21 {
            format!("{cg}*g+c")
        } else {
            "g".to_owned()
        };
        let spec = format!("{full}; {per}; {per} => {full}");
        let y = self.einsum(
            &spec,
            &[&nrm, &scale, &bias],
            None,
            Some("fma"),
            format!("{nv},{g},{cg}{hvs}"),
        );
        let v = self.emit("reshape", &[&y], "", x.elem, format!("{nv},{c}{hvs}"), None);
        self.bind(node, 0, known(v, x.shape.clone(), Some(r)));
        Ok(())
    }

    /// The rows of a normalisation over the axes from `axis` to the end:
    /// all of them, the kept ones.
    fn trailing_rows(&self, x: &Val, axis: i64) -> R<(String, String)> {
        check_axis(axis).map_err(|m| self.error(m))?;
        match (axis < 0, x.rank) {
            (_, Some(r)) => {
                let k = if axis < 0 { axis + r as i64 } else { axis };
                if k < 0 || k >= r as i64 {
                    return self.err(format!("axis {axis} of a rank-{r} input"));
                }
                let l = labels("a", r);
                Ok((l.join(","), l[..k as usize].join(",")))
            }
            (true, None) => {
                let t = labels("z", (-axis) as usize);
                Ok((format!("..r..,{}", t.join(",")), "..r..".into()))
            }
            (false, None) => self.err(format!("axis {axis} needs the input's rank")),
        }
    }

    /// ONNX RMSNormalization: `x / sqrt(mean(x^2) + eps) * scale` over the
    /// axes from `axis` (default -1) on.
    pub(super) fn rms_norm(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        self.float_only(&x, "RMSNormalization")?;
        let scale = self.input(node, 1)?;
        if at.int("stash_type").unwrap_or(1) != 1 {
            return self.err("stash_type other than 1 (float) is not supported");
        }
        let eps = at.float("epsilon").map_or(1e-5, f64::from);
        let (full, kept) = self.trailing_rows(&x, at.int("axis").unwrap_or(-1))?;
        let sq = self.binary("mul", &x, &x, "...".into())?;
        let ms = self.mean_of(&sq, &format!("{full} => {kept}"))?;
        let e = self.scalar(x.elem, eps);
        let me = self.binary("add", &ms, &e, "...".into())?;
        let rms = self.unary("sqrt", &me, "...".into());
        let both = format!("{full}; {kept} => {full}");
        let n = self.einsum(&both, &[&x, &rms], None, Some("div"), x.spec.clone());
        let n = with_rank(n, x.rank);
        let v = self.binary("mul", &n, &scale, n.spec.clone())?;
        self.bind(node, 0, known(v, x.shape.clone(), x.rank));
        Ok(())
    }

    /// ONNX MeanVarianceNormalization (its function body): `(x - E[x]) /
    /// (sqrt(E[x^2] - E[x]^2) + 1e-9)` over `axes` (default 0, 2, 3).
    pub(super) fn mvn(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        self.float_only(&x, "MeanVarianceNormalization")?;
        let axes = Attrs::of(node)
            .ints("axes")
            .unwrap_or_else(|| vec![0, 2, 3]);
        let lay = Layout::new(&axes, x.rank).map_err(|m| self.error(m))?;
        let (full, kept) = (lay.all(), lay.map(|_| None));
        let red = format!("{full} => {kept}");
        let mean = self.mean_of(&x, &red)?;
        let sq = self.binary("mul", &x, &x, "...".into())?;
        let msq = self.mean_of(&sq, &red)?;
        let m2 = self.binary("mul", &mean, &mean, "...".into())?;
        let var = self.binary("sub", &msq, &m2, "...".into())?;
        let sd = self.unary("sqrt", &var, "...".into());
        let e = self.scalar(x.elem, 1e-9);
        let den = self.binary("add", &sd, &e, "...".into())?;
        let both = format!("{full}; {kept} => {full}");
        let d = self.einsum(&both, &[&x, &mean], None, Some("sub"), "...".into());
        let v = self.einsum(&both, &[&d, &den], None, Some("div"), x.spec.clone());
        self.bind(node, 0, known(v, x.shape.clone(), x.rank));
        Ok(())
    }

    /// ONNX LpNormalization: `x / ||x||_p` along `axis` (p 1 or 2), 0
    /// where the norm is 0.
    pub(super) fn lp_norm(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        self.float_only(&x, "LpNormalization")?;
        let p = at.int("p").unwrap_or(2);
        if p != 1 && p != 2 {
            return self.err(format!("LpNormalization with p = {p} (1 or 2 only)"));
        }
        let lay =
            Layout::new(&[at.int("axis").unwrap_or(-1)], x.rank).map_err(|m| self.error(m))?;
        let (full, kept) = (lay.all(), lay.map(|_| None));
        let norm = if p == 1 {
            let a = self.unary("abs", &x, "...".into());
            self.einsum(
                &format!("{full} => {kept}"),
                &[&a],
                None,
                None,
                "...".into(),
            )
        } else {
            let s = self.einsum(
                &format!("{full}; {full} => {kept}"),
                &[&x, &x],
                None,
                None,
                "...".into(),
            );
            self.unary("sqrt", &s, "...".into())
        };
        let q = self.einsum(
            &format!("{full}; {kept} => {full}"),
            &[&x, &norm],
            None,
            Some("div"),
            "...".into(),
        );
        let zero = self.scalar(x.elem, 0.0);
        let spec = format!("{kept}; {full}; => {full}");
        let v = self.einsum(
            &spec,
            &[&norm, &q, &zero],
            None,
            Some("where"),
            x.spec.clone(),
        );
        self.bind(node, 0, known(v, x.shape.clone(), x.rank));
        Ok(())
    }
}
