//! ONNX OneHot (onnx.ai/onnx/operators/onnx__OneHot.html): a new axis of
//! `depth` cells at `axis`, `values[1]` where the index (a negative one
//! counting from `depth`) equals the cell's position, `values[0]`
//! elsewhere; an index out of range gives a row of `values[0]`.

use super::elementwise::with_rank;
use super::{Attrs, R, Translator};
use crate::proto::NodeProto;
use crate::tensor::Elem;

impl Translator {
    /// ONNX OneHot.
    pub(super) fn one_hot(&mut self, node: &NodeProto) -> R<()> {
        let depth = match self.const_input(node, 1)? {
            Some(t) if t.len() == 1 => t.to_f64().map(|v| v[0]),
            Some(_) => return self.err("depth must be a scalar"),
            None => return self.err("the depth (input #1) is required"),
        };
        let Some(depth) = depth.filter(|d| d.is_finite() && *d >= 1.0 && *d <= (1u64 << 32) as f64)
        else {
            return self.err("depth must be a number from 1 to 2^32");
        };
        let depth = depth as i64;
        let name = node.input.first().cloned().unwrap_or_default();
        let r = self.dims_of(&name)?.len();
        let idx = self.input(node, 0)?;
        let values = self.input(node, 2)?;
        let axis = Attrs::of(node).int("axis").unwrap_or(-1);
        let out_rank = r as i64 + 1;
        let k = if axis < 0 { axis + out_rank } else { axis };
        if !(0..out_rank).contains(&k) {
            return self.err(format!(
                "axis {axis} is out of range for a rank-{out_rank} result"
            ));
        }
        let k = k as usize;
        let idx = if idx.elem == Elem::I64 {
            idx
        } else {
            self.unary_to("cast", &idx, "...".into(), Elem::I64)
        };
        let idx = with_rank(idx, Some(r));
        // Negative indices count from the depth.
        let zero = self.scalar(Elem::I64, 0.0);
        let d = self.fill_attr(Elem::I64, &[], &format!("{depth} : i64"));
        let negative = self.binary_to("lt", &idx, &zero, "...".into(), Elem::Bool)?;
        let shifted = self.binary("add", &idx, &d, "...".into())?;
        let idx = with_rank(
            self.ternary("where", &negative, &shifted, &idx, "...".into())?,
            Some(r),
        );
        // The indices with a size-1 axis at `k`, the positions along it.
        let l: Vec<String> = (0..r).map(|i| format!("a{i}")).collect();
        let mut out = l.clone();
        out.insert(k, "0".into());
        let pinned = self.pinned(&out.join(","));
        let lifted = self.einsum(
            &format!("{} => {}", l.join(","), out.join(",")),
            &[&idx],
            None,
            None,
            pinned,
        );
        let lifted = with_rank(lifted, Some(r + 1));
        let range = self.emit(
            "range",
            &[],
            &format!("spec = \"{depth}\""),
            Elem::I64,
            depth.to_string(),
            None,
        );
        let column: Vec<String> = std::iter::once(depth.to_string())
            .chain((k + 1..=r).map(|_| "1".into()))
            .collect();
        let positions = self.emit("reshape", &[&range], "", Elem::I64, column.join(","), None);
        let positions = with_rank(positions, Some(r + 1 - k));
        let hit = self.binary_to("eq", &lifted, &positions, "...".into(), Elem::Bool)?;
        let off = self.einsum("0 => ", &[&values], None, None, String::new());
        let on = self.einsum("1 => ", &[&values], None, None, String::new());
        let v = self.ternary("where", &hit, &on, &off, self.out_spec(node, 0))?;
        self.bind(node, 0, with_rank(v, Some(r + 1)));
        Ok(())
    }
}
