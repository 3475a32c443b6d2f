//! ONNX Split into equal parts of an axis whose size the importer does not
//! know (onnx.ai/onnx/operators/onnx__Split.html, no `split` sizes): the
//! input is reshaped with that axis as `k` parts of a fresh size `d` (the
//! element count decides `d`: every other axis is named, see
//! `shape_values`), and part `j` is the einsum that fixes the parts' axis
//! at `j`. A size that `k` does not divide is then an element-count error
//! at the Split.

use super::axes::labels;
use super::elementwise::with_rank;
use super::shape_values::sym::Sym;
use super::{R, Translator, Val};
use crate::proto::NodeProto;

impl Translator {
    /// Split of `x` (the node's input #0) along `axis` into one equal part
    /// per output.
    pub(super) fn split_equal(&mut self, node: &NodeProto, x: &Val, axis: i64) -> R<()> {
        let k = node.output.len();
        let name = node.input.first().cloned().unwrap_or_default();
        let dims = self.dims_of(&name)?;
        let r = dims.len();
        let a = if axis < 0 { axis + r as i64 } else { axis };
        if !(0..r as i64).contains(&a) {
            return self.err(format!("axis {axis} is out of range for rank {r}"));
        }
        let a = a as usize;
        let d = self.fresh_var();
        let mut parted = Vec::with_capacity(r + 1);
        for (i, s) in dims.iter().enumerate() {
            if i == a {
                parted.push(k.to_string());
                parted.push(d.clone());
            } else {
                parted.push(match s {
                    Sym::Num(n) => n.to_string(),
                    Sym::Dim(v) => v.clone(),
                    Sym::Op(..) => self.fresh_var(),
                });
            }
        }
        // `dims_of` may have put a view of `x` in its place.
        let x = self.value(&name).unwrap_or_else(|_| x.clone());
        let whole = self.emit("reshape", &[&x], "", x.elem, parted.join(","), None);
        // The whole's axes: the others, `j` (which part) and `p` (within
        // it); each part keeps `p` in the split axis's place.
        let l = labels("a", r);
        let mut out = l.clone();
        out[a] = "p".into();
        for j in 0..k {
            let mut picked = l.clone();
            picked[a] = j.to_string();
            picked.insert(a + 1, "p".into());
            let spec = format!("{} => {}", picked.join(","), out.join(","));
            let part = self.einsum(&spec, &[&whole], None, None, self.out_spec(node, j));
            self.bind(node, j, with_rank(part, Some(r)));
        }
        Ok(())
    }
}
