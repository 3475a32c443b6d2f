//! ONNX ReverseSequence (onnx.ai/onnx/operators/onnx__ReverseSequence.html):
//! per batch entry `b`, the first `sequence_lens[b]` cells of the time
//! axis reversed, the others kept: `ocannl.gather` along the time axis at
//! `t < len ? len - 1 - t : t` (computed at run time from the lengths).

use super::super::axes::labels;
use super::super::elementwise::with_rank;
use super::super::{Attrs, R, Translator, multichar};
use crate::proto::NodeProto;
use crate::tensor::Elem;

impl Translator {
    /// ONNX ReverseSequence.
    pub(super) fn reverse_sequence(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let lens = self.input(node, 1)?;
        let Some(dims) = x.shape.clone() else {
            return self
                .err("ReverseSequence of an input whose dims are not known (not supported)");
        };
        let r = dims.len();
        if r < 2 {
            return self.err("ReverseSequence's input must have rank 2 or more");
        }
        let batch = at.int("batch_axis").unwrap_or(1);
        let time = at.int("time_axis").unwrap_or(0);
        if !matches!((batch, time), (0, 1) | (1, 0)) {
            return self.err("batch_axis and time_axis must be 0 and 1 (one each)");
        }
        if lens.elem != Elem::I64 {
            return self.err("sequence_lens must be int64");
        }
        if lens
            .shape
            .as_ref()
            .is_some_and(|d| d != &[dims[batch as usize]])
        {
            return self.err("sequence_lens must hold one length per batch entry");
        }
        let steps = dims[time as usize];
        // m[b, w] = len[b] - w; the index is m - 1 where m > 0, else w.
        let t = self.iota(Elem::I64, steps, 0)?;
        let m = self.einsum(
            "qb; qw => qb,qw",
            &[&lens, &t],
            None,
            Some("sub"),
            "...".into(),
        );
        let m = with_rank(m, Some(2));
        let one = self.scalar(Elem::I64, 1.0);
        let zero = self.scalar(Elem::I64, 0.0);
        let rev = self.binary("sub", &m, &one, "...".into())?;
        let inside = self.binary_to("gt", &m, &zero, "...".into(), Elem::Bool)?;
        let idx = with_rank(
            self.ternary("where", &inside, &rev, &t, "...".into())?,
            Some(2),
        );
        let l = labels("a", r);
        let with = |name: &str| {
            let mut v = l.clone();
            v[time as usize] = name.into();
            v.join(",")
        };
        let spec = format!("{}; {},tw => {}", with("tv"), l[batch as usize], with("tw"));
        let attrs = format!("spec = \"{}\"", multichar(&spec));
        let out = super::super::dims_spec(&dims);
        let mut v = self.emit_mixed("gather", &[&x, &idx], &attrs, x.elem, out, None);
        v.shape = Some(dims);
        self.bind(node, 0, with_rank(v, Some(r)));
        Ok(())
    }
}
