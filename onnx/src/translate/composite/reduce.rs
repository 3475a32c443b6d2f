//! ONNX ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp,
//! ReduceSumSquare and ReduceProd: an einsum over the reduced axes (as
//! `shape_ops::reduce` does ReduceSum) with pointwise ops before or after.

use super::super::axes::Layout;
use super::super::elementwise::with_rank;
use super::super::{Attrs, R, Translator, Val};
use crate::proto::NodeProto;

impl Translator {
    /// The reduced axes of a Reduce node (an attribute before opset 18,
    /// the input after; none given: every axis, or none with
    /// `noop_with_empty_axes`) as a layout of `x`.
    fn reduced_axes(&mut self, node: &NodeProto, x: &Val, op: &str) -> R<Layout> {
        let at = Attrs::of(node);
        let axes = if self.opset >= 18 {
            self.const_ints(node, 1)?
        } else {
            at.ints("axes")
        };
        let axes = match axes {
            Some(a) if !a.is_empty() => a,
            _ if at.int("noop_with_empty_axes").unwrap_or(0) == 1 => Vec::new(),
            _ => {
                let Some(r) = x.rank else {
                    return self.err(format!(
                        "{op} over all axes needs the input's rank, which is not known here (not supported)"
                    ));
                };
                (0..r as i64).collect()
            }
        };
        Layout::new(&axes, x.rank).map_err(|m| self.error(m))
    }

    /// ONNX ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp,
    /// ReduceSumSquare, ReduceProd (onnx.ai's reference: the reduction
    /// over no axes still applies the pointwise parts).
    pub(super) fn reduce_composite(&mut self, node: &NodeProto, op: &str) -> R<()> {
        let x = self.input(node, 0)?;
        if matches!(op, "ReduceL2" | "ReduceLogSum" | "ReduceLogSumExp") && !x.elem.is_float() {
            return self.err(format!(
                "{op} of {} tensors is not supported (floating-point only)",
                x.elem.mlir()
            ));
        }
        if x.elem.is_bool() {
            return self.err(format!("{op} of bool tensors is not supported"));
        }
        let keep = Attrs::of(node).int("keepdims").unwrap_or(1) == 1;
        let lay = self.reduced_axes(node, &x, op)?;
        let full = lay.all();
        let dropped = lay.map(|_| None);
        let red = format!("{full} => {dropped}");
        let v = match op {
            "ReduceL1" => {
                let a = self.unary("abs", &x, "...".into());
                self.einsum(&red, &[&a], None, None, "...".into())
            }
            "ReduceL2" | "ReduceSumSquare" => {
                let sq = format!("{full}; {full} => {dropped}");
                let s = self.einsum(&sq, &[&x, &x], None, None, "...".into());
                if op == "ReduceL2" {
                    self.unary("sqrt", &s, "...".into())
                } else {
                    s
                }
            }
            "ReduceLogSum" => {
                let s = self.einsum(&red, &[&x], None, None, "...".into());
                self.unary("log", &s, "...".into())
            }
            "ReduceLogSumExp" => self.log_sum_exp(&x, &full, &dropped)?,
            _ => self.einsum(&red, &[&x], Some("mul"), None, "...".into()),
        };
        let v = if keep {
            let kept = lay.map(|_| Some("0".into()));
            let pinned = self.pinned(&kept);
            let v = self.einsum(&format!("{dropped} => {kept}"), &[&v], None, None, pinned);
            with_rank(v, lay.rank_after(true))
        } else {
            with_rank(v, lay.rank_after(false))
        };
        // The dims, when the input's are known.
        let dims = x
            .shape
            .as_ref()
            .filter(|d| d.len() == lay.selected.len())
            .map(|d| {
                d.iter()
                    .zip(&lay.selected)
                    .filter_map(|(&n, &sel)| match (sel, keep) {
                        (false, _) => Some(n),
                        (true, true) => Some(1),
                        (true, false) => None,
                    })
                    .collect()
            });
        self.bind(node, 0, super::index::known(v, dims, None));
        Ok(())
    }

    /// `log(sum(exp(x - m))) + m`, `m` the maximum (0 where it is
    /// infinite, so that all `-inf` gives `-inf` and an `inf` gives `inf`,
    /// as the unshifted formula does).
    fn log_sum_exp(&mut self, x: &Val, full: &str, dropped: &str) -> R<Val> {
        let red = format!("{full} => {dropped}");
        let m = self.einsum(&red, &[x], Some("max"), None, "...".into());
        // m - m is 0 where m is finite, NaN where it is infinite.
        let mm = self.binary("sub", &m, &m, m.spec.clone())?;
        let zero = self.scalar(x.elem, 0.0);
        let shift = self.einsum(
            "..r..; ; ..r.. => ..r..",
            &[&mm, &zero, &m],
            None,
            Some("where"),
            m.spec.clone(),
        );
        let both = format!("{full}; {dropped} => {full}");
        let d = self.einsum(&both, &[x, &shift], None, Some("sub"), "...".into());
        let e = self.unary("exp", &d, "...".into());
        let s = self.einsum(&red, &[&e], None, None, "...".into());
        let l = self.unary("log", &s, "...".into());
        Ok(self.einsum(
            "..r..; ..r.. => ..r..",
            &[&l, &shift],
            None,
            Some("add"),
            "...".into(),
        ))
    }
}
