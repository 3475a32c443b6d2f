//! ONNX Det (onnx__Det.html): the determinant of each `n x n` matrix of
//! `[..., n, n]`, by Gaussian elimination with partial pivoting unrolled
//! at import (the rows as tensors `[..., n]`): at step `k` each row below
//! is swapped with row `k` where its cell in column `k` is larger in
//! magnitude (the sign flips), then eliminated; the determinant is the
//! sign times the pivots' product. `n` at most [`MAX_N`].

use super::super::{R, Translator, Val};
use crate::proto::NodeProto;
use crate::tensor::Elem;

/// The largest matrix Det unrolls (about `2 n^2` ops per step).
pub(super) const MAX_N: u64 = 12;

impl Translator {
    /// Cell `j` of the last axis: `..b.., j => ..b..`.
    fn last_cell(&mut self, row: &Val, j: u64) -> Val {
        let spec = format!("..b..,{j} => ..b..");
        self.einsum(&spec, &[row], None, None, "...".into())
    }

    /// `c ? a : b` per matrix, `c` over the batch, `a` and `b` rows.
    fn select_rows(&mut self, c: &Val, a: &Val, b: &Val) -> Val {
        self.emit_mixed(
            "einsum",
            &[c, a, b],
            "spec = \"..b..; ..b..,j; ..b..,j => ..b..,j\", combine = \"where\"",
            a.elem,
            "...".into(),
            None,
        )
    }

    pub(super) fn det(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        if !x.elem.is_float() {
            return self.err(format!(
                "Det takes floating-point tensors, input #0 is {}",
                x.elem.mlir()
            ));
        }
        let Some(d) = x.shape.clone() else {
            return self
                .err("Det needs its input's dims, which are not known here (not supported)");
        };
        let r = d.len();
        if r < 2 || d[r - 1] != d[r - 2] {
            return self.err(format!(
                "Det of shape {d:?}: the last two axes must be square"
            ));
        }
        let n = d[r - 1];
        if n > MAX_N {
            return self.err(format!(
                "Det of {n} x {n} matrices: more than {MAX_N} x {MAX_N} (not supported)"
            ));
        }
        let mut rows: Vec<Val> = (0..n)
            .map(|i| {
                let spec = format!("..b..,{i},j => ..b..,j");
                self.einsum(&spec, &[&x], None, None, "...".into())
            })
            .collect();
        let mut sign = self.scalar(x.elem, 1.0);
        let n = n as usize;
        for k in 0..n {
            for i in k + 1..n {
                let a = self.last_cell(&rows[k], k as u64);
                let a = self.unary("abs", &a, "...".into());
                let b = self.last_cell(&rows[i], k as u64);
                let b = self.unary("abs", &b, "...".into());
                let c = self.binary_to("gt", &b, &a, "...".into(), Elem::Bool)?;
                let top = self.select_rows(&c, &rows[i], &rows[k]);
                let low = self.select_rows(&c, &rows[k], &rows[i]);
                (rows[k], rows[i]) = (top, low);
                let neg = self.unary("neg", &sign, "...".into());
                sign = self.ternary("where", &c, &neg, &sign, "...".into())?;
            }
            let p = self.last_cell(&rows[k], k as u64);
            // A zero pivot: the column is zero below it too (the factor
            // is 0, not NaN).
            let zero = self.scalar(x.elem, 0.0);
            let one = self.scalar(x.elem, 1.0);
            let is_zero = self.binary_to("eq", &p, &zero, "...".into(), Elem::Bool)?;
            let safe = self.ternary("where", &is_zero, &one, &p, "...".into())?;
            for i in k + 1..n {
                let c = self.last_cell(&rows[i], k as u64);
                let f = self.binary("div", &c, &safe, "...".into())?;
                let f = self.unary("neg", &f, "...".into());
                rows[i] = self.einsum(
                    "..b..,j; ..b..; ..b..,j => ..b..,j",
                    &[&rows[k], &f, &rows[i]],
                    None,
                    Some("fma"),
                    "...".into(),
                );
            }
            sign = self.binary("mul", &sign, &p, "...".into())?;
        }
        let out = super::super::dims_spec(&d[..r - 2]);
        let mut v = self.unary("identity", &sign, out);
        v.shape = Some(d[..r - 2].to_vec());
        v.rank = Some(r - 2);
        self.bind(node, 0, v);
        Ok(())
    }
}
