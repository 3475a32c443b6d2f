//! ONNX CumSum and CumProd (onnx.ai/onnx/operators/onnx__CumSum.html):
//! `out[.., i, ..] = sum over j <= i of x[.., j, ..]` (`j < i` with
//! `exclusive`, `j >= i` with `reverse`). One einsum whose `combine` is
//! `where` over a triangular mask built from two `ocannl.range`s
//! (`j <= i`): masked-out cells contribute the accumulator's neutral
//! element exactly (never `x * 0`, which an infinity would turn into NaN).

use super::axes::labels;
use super::elementwise::with_rank;
use super::shape_values::sym::Sym;
use super::{Attrs, R, Translator, Val};
use crate::proto::NodeProto;
use crate::tensor::Elem;

impl Translator {
    /// ONNX CumSum (`product`: CumProd).
    pub(super) fn cumulative(&mut self, node: &NodeProto, product: bool) -> R<()> {
        let a = Attrs::of(node);
        let exclusive = a.int("exclusive").unwrap_or(0) == 1;
        let reverse = a.int("reverse").unwrap_or(0) == 1;
        let axis = match self.const_ints(node, 1)?.as_deref() {
            Some([k]) => *k,
            Some(v) => {
                return self.err(format!("axis must be one integer, got {} of them", v.len()));
            }
            None => return self.err("the axis (input #1) is required"),
        };
        super::axes::check_axis(axis).map_err(|m| self.error(m))?;
        let name = node.input.first().cloned().unwrap_or_default();
        let dims = self.dims_of(&name)?;
        let x = self.input(node, 0)?;
        if x.elem == Elem::Bool {
            return self.err("CumSum and CumProd of booleans are not supported");
        }
        let r = dims.len();
        let k = if axis < 0 { axis + r as i64 } else { axis };
        if !(0..r as i64).contains(&k) {
            return self.err(format!("axis {axis} is out of range for rank {r}"));
        }
        let k = k as usize;
        let n = match &dims[k] {
            Sym::Num(n) => n.to_string(),
            Sym::Dim(v) => v.clone(),
            Sym::Op(..) => return self.err("the axis's size is not known here (not supported)"),
        };
        let predicate = match (reverse, exclusive) {
            (false, false) => "le",
            (false, true) => "lt",
            (true, false) => "ge",
            (true, true) => "gt",
        };
        let mask = self.triangle(&n, predicate)?;
        let neutral = self.scalar(x.elem, if product { 1.0 } else { 0.0 });
        let l = labels("a", r);
        let with = |label: &str| {
            let mut v = l.clone();
            v[k] = label.into();
            v.join(",")
        };
        let spec = format!("j,i; {}; => {}", with("j"), with("i"));
        let attrs = format!(
            "spec = \"{}\", combine = \"where\"{}",
            super::multichar(&spec),
            if product { ", accum = \"mul\"" } else { "" }
        );
        let mut v = self.emit_mixed(
            "einsum",
            &[&mask, &x, &neutral],
            &attrs,
            x.elem,
            self.out_spec(node, 0),
            None,
        );
        v.shape.clone_from(&x.shape);
        self.bind(node, 0, with_rank(v, Some(r)));
        Ok(())
    }

    /// The `[n, n]` boolean `j PRED i` (`predicate`: `le`, `lt`, `ge`,
    /// `gt`) of two ranges over a dim `n` (a size or a variable).
    fn triangle(&mut self, n: &str, predicate: &str) -> R<Val> {
        let range = self.emit(
            "range",
            &[],
            &format!("spec = \"{n},\""),
            Elem::I64,
            n.into(),
            None,
        );
        let column = self.emit("reshape", &[&range], "", Elem::I64, format!("{n},1"), None);
        let column = with_rank(column, Some(2));
        let row = self.emit("reshape", &[&range], "", Elem::I64, format!("1,{n}"), None);
        let row = with_rank(row, Some(2));
        let t = self.binary_to(predicate, &column, &row, format!("{n},{n}"), Elem::Bool)?;
        Ok(with_rank(t, Some(2)))
    }
}
