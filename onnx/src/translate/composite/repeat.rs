//! ONNX Expand and Tile (cells repeated), Trilu and EyeLike (masks from
//! index grids).

use super::super::axes::{Layout, labels};
use super::super::elementwise::with_rank;
use super::super::{Attrs, R, Translator, dims_spec};
use super::index::known;
use crate::proto::NodeProto;
use crate::tensor::Elem;

impl Translator {
    /// ONNX Expand: `x` broadcast with a constant shape (both ways, NumPy's
    /// rules): `x * 1` over ones of that shape, exact; the result's dims
    /// stated (the input's named where the shape says 1).
    pub(super) fn expand(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        let Some(shape) = self.const_ints(node, 1)? else {
            return self.err("Expand needs its shape input");
        };
        if shape.len() as u64 > super::super::axes::MAX_AXES || shape.iter().any(|&d| d < 0) {
            return self.err(format!("Expand to the shape {shape:?}"));
        }
        if shape.contains(&0) {
            return self.err("Expand to an empty shape is not supported");
        }
        let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        let ones = self.fill(x.elem, &shape, 1.0);
        let v = if x.shape.is_some() {
            self.binary("mul", &x, &ones, "...".into())?
        } else {
            let Some(r) = x.rank else {
                return self
                    .err("Expand needs the input's rank, which is not known here (not supported)");
            };
            // A view of `x` naming its dims.
            let vars: Vec<String> = (0..r).map(|_| self.fresh_var()).collect();
            let l = labels("a", r).join(",");
            let view = self.einsum(&format!("{l} => {l}"), &[&x], None, None, vars.join(","));
            let view = with_rank(view, Some(r));
            let n = r.max(shape.len());
            let out: Vec<String> = (0..n)
                .map(|i| {
                    let s = (i + shape.len()).checked_sub(n).map(|k| shape[k]);
                    let v = (i + r).checked_sub(n).map(|k| vars[k].clone());
                    match (s, v) {
                        (Some(1), Some(v)) | (None, Some(v)) => v,
                        (Some(s), _) => s.to_string(),
                        (None, None) => unreachable!("an axis of neither"),
                    }
                })
                .collect();
            let v = self.emit("mul", &[&view, &ones], "", x.elem, out.join(","), None);
            with_rank(v, Some(n))
        };
        self.bind(node, 0, v);
        Ok(())
    }

    /// ONNX Tile: with the input's dims known, one einsum that adds a
    /// repetition axis before each repeated one and a reshape that merges
    /// them; otherwise the input concatenated with itself along each axis.
    pub(super) fn tile(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        let Some(reps) = self.const_ints(node, 1)? else {
            return self.err("Tile needs its repeats input");
        };
        if let Some(r) = x.rank
            && r != reps.len()
        {
            return self.err(format!("{} repeats for a rank-{r} input", reps.len()));
        }
        if reps.iter().any(|&n| n < 1) {
            return self.err(format!(
                "repeats {reps:?}: empty tensors (0 repeats) are not supported, negative ones are invalid"
            ));
        }
        let r = reps.len();
        let reps: Vec<u64> = reps.iter().map(|&n| n as u64).collect();
        let v = if let Some(d) = x.shape.clone() {
            let l = labels("a", r);
            let mut out = Vec::new();
            let mut dims = Vec::new();
            let mut merged = Vec::new();
            for i in 0..r {
                if reps[i] > 1 {
                    out.push(format!("t{i}"));
                    dims.push(reps[i]);
                }
                out.push(l[i].clone());
                dims.push(d[i]);
                let Some(m) = d[i].checked_mul(reps[i]) else {
                    return self.err("Tile's result overflows 64 bits");
                };
                merged.push(m);
            }
            let spec = format!("{} => {}", l.join(","), out.join(","));
            let t = self.einsum(&spec, &[&x], None, None, dims_spec(&dims));
            let v = self.emit("reshape", &[&t], "", x.elem, dims_spec(&merged), None);
            known(v, Some(merged), Some(r))
        } else {
            let mut v = x.clone();
            for (i, &n) in reps.iter().enumerate() {
                if n == 1 {
                    continue;
                }
                if n > 64 {
                    return self.err(format!(
                        "Tile by {n} needs the input's dims, which are not known here (not supported)"
                    ));
                }
                let lay = Layout::new(&[i as i64], Some(r)).map_err(|m| self.error(m))?;
                let parts = vec![&v; n as usize];
                let out = self.axis_result(&lay, None, None);
                v = with_rank(self.concat_along(&lay, &parts, out), Some(r));
            }
            if v.ssa == x.ssa {
                v = self.unary("identity", &x, "...".into());
            }
            v
        };
        self.bind(node, 0, v);
        Ok(())
    }

    /// ONNX Trilu: the cells of the last two axes on or above (`upper`) or
    /// below diagonal `k`, the others 0: a `where` on the grid `j - i - k
    /// + 1` (or `i - j + k + 1`) through a relu (positive where kept).
    pub(super) fn trilu(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        let upper = match Attrs::of(node).int("upper").unwrap_or(1) {
            0 => false,
            1 => true,
            u => return self.err(format!("the attribute 'upper' must be 0 or 1, got {u}")),
        };
        let k = match self.const_ints(node, 1)? {
            None => 0,
            Some(v) if v.len() == 1 => v[0],
            Some(v) => return self.err(format!("Trilu's k must be one value, got {v:?}")),
        };
        let Some(d) = x.shape.clone().filter(|d| d.len() >= 2) else {
            return match x.rank {
                Some(r) if r < 2 => self.err(format!("Trilu of a rank-{r} input")),
                _ => self.err(
                    "Trilu needs the input's last two dims, which are not known here (not supported)",
                ),
            };
        };
        let (n, m) = (d[d.len() - 2], d[d.len() - 1]);
        if n == 0 || m == 0 {
            self.empty_result(node, 0, x.elem, &d);
            return Ok(());
        }
        // k beyond the grid keeps every cell or none: clamped, the grid's
        // values stay small (exact in any element type).
        let k = k.clamp(
            (n as i64).saturating_neg().saturating_sub(1),
            (m as i64).saturating_add(1),
        );
        let g = if upper {
            self.grid(x.elem, (n, m), (-1, 1, 1 - k))?
        } else {
            self.grid(x.elem, (n, m), (1, -1, k + 1))?
        };
        let keep = self.unary("relu", &g, "...".into());
        let zero = self.scalar(x.elem, 0.0);
        let v = self.ternary("where", &keep, &x, &zero, x.spec.clone())?;
        let v = known(v, Some(d), None);
        self.bind(node, 0, v);
        Ok(())
    }

    /// ONNX EyeLike: ones on diagonal `k` of a matrix of the input's dims
    /// (`dtype`: the result's element type, by default the input's).
    pub(super) fn eye_like(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let elem = match at.int("dtype") {
            None => x.elem,
            Some(t) => Elem::of_onnx(t as i32).map_err(|m| self.error(format!("dtype: {m}")))?,
        };
        let k = at.int("k").unwrap_or(0);
        let Some(d) = x.shape.clone() else {
            return self
                .err("EyeLike needs the input's dims, which are not known here (not supported)");
        };
        if d.len() != 2 {
            return self.err(format!("EyeLike of a rank-{} input (rank 2 only)", d.len()));
        }
        let (n, m) = (d[0], d[1]);
        let k = k.clamp(
            (n as i64).saturating_neg().saturating_sub(1),
            (m as i64).saturating_add(1),
        );
        // j - i - k: 0 on the diagonal.
        let g = self.grid(elem, (n, m), (-1, 1, -k))?;
        let zero = self.scalar(elem, 0.0);
        let one = self.scalar(elem, 1.0);
        let v = self.ternary("where", &g, &zero, &one, dims_spec(&d))?;
        self.bind(node, 0, known(v, Some(d), None));
        Ok(())
    }
}
