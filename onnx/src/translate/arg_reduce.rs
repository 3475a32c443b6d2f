//! ONNX ArgMax and ArgMin (onnx.ai/onnx/operators/onnx__ArgMax.html): the
//! index of the first (or, with `select_last_index`, the last) extreme
//! along `axis`, as int64. Composed: the extreme (a max or min einsum,
//! kept as a size-1 axis), the cells equal to it (NaN counts as the
//! extreme, as NumPy's `argmax` finds the first NaN), their positions (an
//! `ocannl.range` over the axis's dim) where equal and a sentinel
//! elsewhere, reduced by min (first) or max (last).

use super::axes::Layout;
use super::elementwise::with_rank;
use super::shape_values::sym::Sym;
use super::{Attrs, R, Translator};
use crate::proto::NodeProto;
use crate::tensor::Elem;

impl Translator {
    /// ONNX ArgMax (`max`) or ArgMin.
    pub(super) fn arg_reduce(&mut self, node: &NodeProto, max: bool) -> R<()> {
        let a = Attrs::of(node);
        let axis = a.int("axis").unwrap_or(0);
        let keep = a.int("keepdims").unwrap_or(1) == 1;
        let last = a.int("select_last_index").unwrap_or(0) == 1;
        super::axes::check_axis(axis).map_err(|m| self.error(m))?;
        let name = node.input.first().cloned().unwrap_or_default();
        let dims = self.dims_of(&name)?;
        let x = self.input(node, 0)?;
        let r = dims.len();
        let k = if axis < 0 { axis + r as i64 } else { axis };
        if !(0..r as i64).contains(&k) {
            return self.err(format!("axis {axis} is out of range for rank {r}"));
        }
        let k = k as usize;
        let lay = Layout::new(&[k as i64], Some(r)).map_err(|m| self.error(m))?;
        let kept = lay.map(|_| Some("0".into()));
        let spec = format!("{} => {kept}", lay.all());
        let extreme = if max { "max" } else { "min" };
        let m = self.einsum(&spec, &[&x], Some(extreme), None, "...".into());
        let m = with_rank(m, Some(r));
        let mut hit = self.binary_to("eq", &x, &m, "...".into(), Elem::Bool)?;
        if x.elem.is_float() {
            let nan = self.binary_to("ne", &x, &x, "...".into(), Elem::Bool)?;
            hit = self.binary_to("or", &hit, &nan, "...".into(), Elem::Bool)?;
        }
        // The positions along the axis, as [n, 1, ..., 1].
        let n = match &dims[k] {
            Sym::Num(n) => n.to_string(),
            Sym::Dim(v) => v.clone(),
            Sym::Op(..) => return self.err("the axis's size is not known here (not supported)"),
        };
        let range = self.emit(
            "range",
            &[],
            &format!("spec = \"{n},\""),
            Elem::I64,
            n.clone(),
            None,
        );
        let column: Vec<String> = std::iter::once(n)
            .chain((k + 1..r).map(|_| "1".into()))
            .collect();
        let positions = self.emit("reshape", &[&range], "", Elem::I64, column.join(","), None);
        let positions = with_rank(positions, Some(r - k));
        let sentinel = self.scalar(Elem::I64, if last { -1.0 } else { i64::MAX as f64 });
        let cand = self.ternary("where", &hit, &positions, &sentinel, "...".into())?;
        let cand = with_rank(cand, Some(r));
        let out = if keep { kept } else { lay.map(|_| None) };
        let spec = format!("{} => {out}", lay.all());
        let pick = if last { "max" } else { "min" };
        let pinned = self.pinned(&out);
        let v = self.einsum(&spec, &[&cand], Some(pick), None, pinned);
        self.bind(node, 0, with_rank(v, lay.rank_after(keep)));
        Ok(())
    }
}
