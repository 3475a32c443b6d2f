//! Resize by integer scales when the input's dims are not known at
//! import (a resize after a convolution, shapes erased): the cases where
//! every output cell is a fixed mix of its input cell and one neighbour,
//! by its phase `o mod s` only. Nearest (asymmetric with floor, the half
//! pixel modes with a rounding mode) repeats each cell `s` times; linear
//! (asymmetric, the half pixel modes) mixes each cell with its edge-padded
//! previous or next one per phase. The phases are stacked on a new axis
//! and merged by a reshape (the dims named by dimension variables).

use super::super::axes::Layout;
use super::super::elementwise::with_rank;
use super::super::{R, Translator, Val};
use super::interp::Interp;

/// How the cells of one phase mix: `x` alone, or with its previous (`-`)
/// or next (`+`) cell at weight `w`.
enum Mix {
    Same,
    Prev(f64),
    Next(f64),
}

/// The phases of an integer upsampling by `s`, or `None` when the mode
/// does not reduce to phases.
fn phases(interp: &Interp, mode: &str, s: u64) -> Option<Vec<Mix>> {
    let half = matches!(
        mode,
        "half_pixel" | "pytorch_half_pixel" | "half_pixel_symmetric"
    );
    let delta = |p: u64| {
        if half {
            (p as f64 + 0.5) / s as f64 - 0.5
        } else {
            p as f64 / s as f64
        }
    };
    match interp {
        Interp::Nearest(m) => {
            let ok = match mode {
                "asymmetric" => m == "floor",
                _ if half => m == "round_prefer_floor" || m == "round_prefer_ceil",
                _ => false,
            };
            ok.then(|| (0..s).map(|_| Mix::Same).collect())
        }
        Interp::Linear { .. } if half || mode == "asymmetric" => Some(
            (0..s)
                .map(|p| match delta(p) {
                    d if d < 0.0 => Mix::Prev(-d),
                    d if d > 0.0 => Mix::Next(d),
                    _ => Mix::Same,
                })
                .collect(),
        ),
        _ => None,
    }
}

impl Translator {
    /// Resize of `x` (rank known, dims not) by the integer `scales` (one
    /// per axis, 1: kept); `None` when the modes do not allow it.
    pub(super) fn upsample(
        &mut self,
        x: &Val,
        interp: &Interp,
        mode: &str,
        scales: &[u64],
    ) -> R<Option<Val>> {
        let r = scales.len();
        let mut plans = Vec::new();
        for &s in scales {
            match phases(interp, mode, s) {
                Some(p) => plans.push(p),
                None => return Ok(None),
            }
        }
        let mut v = x.clone();
        for (k, p) in plans.iter().enumerate() {
            if p.len() > 1 {
                v = self.upsample_axis(&v, k, r, p)?;
            }
        }
        Ok(Some(v))
    }

    /// Axis `k` of `v` (rank `r`) upsampled by the phases `p`.
    fn upsample_axis(&mut self, v: &Val, k: usize, r: usize, p: &[Mix]) -> R<Val> {
        let lay = Layout::new(&[k as i64], Some(r)).map_err(|m| self.error(m))?;
        let l = lay.all();
        // The dims named.
        let names: Vec<String> = (0..r).map(|_| self.fresh_var()).collect();
        let x = self.einsum(&format!("{l} => {l}"), &[v], None, None, names.join(","));
        let x = with_rank(x, Some(r));
        let s = p.len();
        let wide = Layout::new(&[k as i64 + 1], Some(r + 1)).map_err(|m| self.error(m))?;
        let mut out: Vec<String> = names.clone();
        out.insert(k + 1, s.to_string());
        let spec = if p.iter().all(|m| matches!(m, Mix::Same)) {
            // Each cell repeated: a label only the result has.
            let to = wide.map(|_| Some("rt".into()));
            let from = wide.map(|_| None);
            self.einsum(&format!("{from} => {to}"), &[&x], None, None, out.join(","))
        } else {
            let (prev, next) = self.neighbours(&x, &lay, p)?;
            let mut parts = Vec::new();
            for m in p {
                let y = match (m, &prev, &next) {
                    (Mix::Same, _, _) => x.clone(),
                    (Mix::Prev(w), Some(n), _) | (Mix::Next(w), _, Some(n)) => {
                        let a = self.scalar(x.elem, 1.0 - w);
                        let b = self.scalar(x.elem, *w);
                        let xa = self.binary("mul", &x, &a, x.spec.clone())?;
                        let nb = self.binary("mul", n, &b, x.spec.clone())?;
                        self.binary("add", &xa, &nb, x.spec.clone())?
                    }
                    _ => unreachable!("neighbours made for every phase"),
                };
                let mut one = names.clone();
                one.insert(k + 1, "1".into());
                let from = wide.map(|_| None);
                let to = wide.map(|_| Some("0".into()));
                parts.push(self.einsum(
                    &format!("{from} => {to}"),
                    &[&y],
                    None,
                    None,
                    one.join(","),
                ));
            }
            let refs: Vec<&Val> = parts.iter().collect();
            self.concat_along(&wide, &refs, out.join(","))
        };
        let mut merged = names;
        merged[k] = self.fresh_var();
        let v = self.emit("reshape", &[&spec], "", v.elem, merged.join(","), None);
        Ok(with_rank(v, Some(r)))
    }

    /// The previous and next cells of each cell along the selected axis
    /// (the edge cell for the first and last), as the phases need them.
    fn neighbours(&mut self, x: &Val, lay: &Layout, p: &[Mix]) -> R<(Option<Val>, Option<Val>)> {
        let prev = if p.iter().any(|m| matches!(m, Mix::Prev(_))) {
            let first = self.block_slice(x, lay, [Some(0), Some(1), None])?;
            let mut parts = vec![first];
            let rest = self.block_slice(x, lay, [Some(0), None, Some(1)])?;
            parts.push(rest);
            let refs: Vec<&Val> = parts.iter().collect();
            Some(with_rank(
                self.concat_along(lay, &refs, x.spec.clone()),
                x.rank,
            ))
        } else {
            None
        };
        let next = if p.iter().any(|m| matches!(m, Mix::Next(_))) {
            let rest = self.block_slice(x, lay, [Some(1), None, Some(0)])?;
            let last = self.block_slice(x, lay, [None, Some(1), Some(0)])?;
            let refs = [&rest, &last];
            Some(with_rank(
                self.concat_along(lay, &refs, x.spec.clone()),
                x.rank,
            ))
        } else {
            None
        };
        Ok((prev, next))
    }
}
