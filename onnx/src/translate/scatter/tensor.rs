//! ONNX TensorScatter (opset 24; onnx.ai/onnx/operators/onnx__TensorScatter.html):
//! a KV-cache update. `update` (of `S` cells along `axis`) is written
//! into `past_cache` (of `L` cells) at `write_indices[b]` for each batch
//! entry `b` (axis 0), linearly or, with `mode = "circular"`, modulo `L`.
//!
//! Each cache cell at position `p` reads the update at offset
//! `o = p - write_indices[b]` (modulo `L` when circular) where `0 <= o <
//! S`, and keeps its value elsewhere: one `ocannl.gather` and one where,
//! O(N). Linear writes past the end of the cache are dropped (a run-time
//! `write_indices[b] + S > L`, which ONNX leaves undefined); constant
//! write indices out of range are an import error.

use crate::proto::NodeProto;
use crate::tensor::Elem;
use crate::translate::axes::check_axis;
use crate::translate::elementwise::with_rank;
use crate::translate::shape_values::sym::Sym;
use crate::translate::{Attrs, R, Translator};

impl Translator {
    /// ONNX TensorScatter.
    pub(super) fn tensor_scatter(&mut self, node: &NodeProto) -> R<()> {
        let circular = match Attrs::of(node)
            .string("mode")
            .as_deref()
            .unwrap_or("linear")
        {
            "linear" => false,
            "circular" => true,
            m => {
                return self.err(format!(
                    "TensorScatter's mode '{m}' must be linear or circular"
                ));
            }
        };
        let name = |i: usize| node.input.get(i).cloned().unwrap_or_default();
        let dd = self.dims_of(&name(0))?;
        let ud = self.dims_of(&name(1))?;
        let has_w = node.input.get(2).is_some_and(|s| !s.is_empty());
        let wd = if has_w {
            self.dims_of(&name(2))?
        } else {
            Vec::new()
        };
        let past = self.input(node, 0)?;
        let upd = self.input(node, 1)?;
        let w = self.opt_input(node, 2)?;
        if let Some(w) = &w {
            self.check_elems("TensorScatter", &past, w, &upd)?;
        } else {
            let z = self.scalar(Elem::I64, 0.0);
            self.check_elems("TensorScatter", &past, &z, &upd)?;
        }
        let axis = Attrs::of(node).int("axis").unwrap_or(-2);
        let a = self.tensor_scatter_axis(axis, &dd, &ud, has_w.then_some(&wd[..]))?;
        let r = dd.len();
        self.check_write_indices(node, &dd[a], &ud[a], circular)?;
        // The offset into the update of each cache position.
        let pos = self.positions(&[dd[a].clone()]);
        let (off, ol) = match &w {
            Some(w) => {
                let w = self.as_i64(w);
                let v = self.einsum(
                    "p; a0 => a0,p",
                    &[&pos, &w],
                    None,
                    Some("sub"),
                    "...".into(),
                );
                (v, "a0,p")
            }
            None => (pos.clone(), "p"),
        };
        let off = if circular {
            let l = self.axis_count(&dd[a], &pos);
            self.binary("mod", &off, &l, "...".into())?
        } else {
            off
        };
        let upos = self.positions(&[ud[a].clone()]);
        let s = self.axis_count(&ud[a], &upos);
        let zero = self.scalar(Elem::I64, 0.0);
        let lo = self.binary_to("ge", &off, &zero, "...".into(), Elem::Bool)?;
        let hi = self.binary_to("lt", &off, &s, "...".into(), Elem::Bool)?;
        let inside = self.binary("and", &lo, &hi, "...".into())?;
        let inside = self.unary_to("cast", &inside, "...".into(), past.elem);
        let lab = |at: &str| {
            (0..r)
                .map(|d| {
                    if d == a {
                        at.to_owned()
                    } else {
                        format!("a{d}")
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        let (ul, dl) = (lab("s"), lab("p"));
        let got = self.emit_gather(&upd, &off, &format!("{ul}; {ol} => {dl}"), "...".into());
        let spec = format!("{ol}; {dl}; {dl} => {dl}");
        let v = self.einsum(
            &spec,
            &[&inside, &got, &past],
            None,
            Some("where"),
            "...".into(),
        );
        self.bind(node, 0, with_rank(v, Some(r)));
        Ok(())
    }

    /// The addressed axis (after the batch axis), the ranks and dims
    /// checked: the update's and the write indices' against the cache's.
    fn tensor_scatter_axis(
        &self,
        axis: i64,
        dd: &[Sym],
        ud: &[Sym],
        wd: Option<&[Sym]>,
    ) -> R<usize> {
        let r = dd.len();
        if ud.len() != r || r < 2 {
            return self.err(format!(
                "TensorScatter: the cache (rank {r}) and the update (rank {}) must have one rank, at least 2",
                ud.len()
            ));
        }
        check_axis(axis).map_err(|m| self.error(m))?;
        let a = if axis < 0 { axis + r as i64 } else { axis };
        if !(1..r as i64).contains(&a) {
            return self.err(format!(
                "TensorScatter: axis {axis} must address an axis after the batch axis of a rank-{r} cache"
            ));
        }
        let a = a as usize;
        for d in (0..r).filter(|&d| d != a) {
            if Sym::equal(&dd[d], &ud[d]) == Some(false) {
                return self.err(format!(
                    "TensorScatter: the update's dim {d} ({}) differs from the cache's ({})",
                    ud[d], dd[d]
                ));
            }
        }
        if let (Some(s), Some(l)) = (ud[a].num(), dd[a].num())
            && s > l
        {
            return self.err(format!(
                "TensorScatter: the update's {s} cells along axis {axis} exceed the cache's {l}"
            ));
        }
        if let Some(wd) = wd
            && (wd.len() != 1 || Sym::equal(&wd[0], &dd[0]) == Some(false))
        {
            return self.err(format!(
                "TensorScatter: write_indices must be one index per batch entry ({}), got dims {:?}",
                dd[0],
                wd.iter().map(ToString::to_string).collect::<Vec<_>>()
            ));
        }
        Ok(a)
    }

    /// Constant write indices: each from 0 to `L - S` (linear) or `L - 1`
    /// (circular), where the sizes are known.
    fn check_write_indices(&mut self, node: &NodeProto, l: &Sym, s: &Sym, circular: bool) -> R<()> {
        let Some(l) = l.num().filter(|_| self.known_input(node, 2)) else {
            return Ok(());
        };
        let Some(t) = self.const_input(node, 2)? else {
            return Ok(());
        };
        let last = match (circular, s.num()) {
            (true, _) => l - 1,
            (false, Some(s)) => l - s,
            (false, None) => l - 1,
        };
        if let Some(v) = t
            .to_i64()
            .unwrap_or_default()
            .iter()
            .find(|&&v| !(0..=last).contains(&v))
        {
            return self.err(format!(
                "TensorScatter: write index {v} is out of range (0 to {last} for a cache of {l})"
            ));
        }
        Ok(())
    }
}
