//! Matrix products: ONNX Gemm and MatMul.

use super::axes::labels;
use super::elementwise::with_rank;
use super::{Attrs, R, Translator, Val};
use crate::proto::NodeProto;

impl Translator {
    /// ONNX Gemm: `alpha * A' B' + beta * C` with `A'` = `A` or `A^T`.
    pub(super) fn gemm(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let (a, b) = (self.input(node, 0)?, self.input(node, 1)?);
        let c = self.opt_input(node, 2)?;
        let alpha = f64::from(at.float("alpha").unwrap_or(1.0));
        let beta = f64::from(at.float("beta").unwrap_or(1.0));
        let sa = if at.int("transA").unwrap_or(0) != 0 {
            "k,m"
        } else {
            "m,k"
        };
        let sb = if at.int("transB").unwrap_or(0) != 0 {
            "n,k"
        } else {
            "k,n"
        };
        let last = c.is_none() || beta == 0.0;
        let spec = format!("{sa}; {sb} => m,n");
        let out = if last && alpha == 1.0 {
            self.out_spec(node, 0)
        } else {
            "...".into()
        };
        let mut y = self.einsum(&spec, &[&a, &b], None, None, out);
        if alpha != 1.0 {
            let s = self.scalar(a.elem, alpha);
            let out = if last {
                self.out_spec(node, 0)
            } else {
                "...".into()
            };
            y = self.binary("mul", &y, &s, out)?;
        }
        if let Some(r) = c.as_ref().and_then(|c| c.rank)
            && r > 2
        {
            return self.err(format!(
                "a rank-{r} C does not broadcast to Gemm's (M, N) result"
            ));
        }
        if let (Some(c), false) = (c, last) {
            let c = if beta == 1.0 {
                c
            } else {
                let s = self.scalar(a.elem, beta);
                self.binary("mul", &c, &s, "...".into())?
            };
            // C broadcasts to (M, N) unidirectionally: NumPy rules.
            y = self.binary("add", &y, &c, self.out_spec(node, 0))?;
        }
        self.bind(node, 0, with_rank(y, Some(2)));
        Ok(())
    }

    /// ONNX MatMul (NumPy `matmul`): batch axes broadcast; a 1-D operand is
    /// a vector.
    pub(super) fn matmul(&mut self, node: &NodeProto) -> R<()> {
        let (a, b) = (self.input(node, 0)?, self.input(node, 1)?);
        let out = self.out_spec(node, 0);
        let (ra, rb) = (a.rank, b.rank);
        if ra == Some(0) || rb == Some(0) {
            return self.err(
                "MatMul of a scalar (a 0-d operand): both operands need a rank of at least 1",
            );
        }
        let (spec, rank) = match (ra, rb) {
            (Some(1), Some(1)) => ("k; k => ".to_owned(), Some(0)),
            (Some(1), _) => ("k; ..b.., k, n => ..b.., n".to_owned(), rb.map(|r| r - 1)),
            (_, Some(1)) => ("..b.., m, k; k => ..b.., m".to_owned(), ra.map(|r| r - 1)),
            (_, Some(2)) => ("..b.., m, k; k, n => ..b.., m, n".to_owned(), ra),
            (Some(2), _) => ("m, k; ..b.., k, n => ..b.., m, n".to_owned(), rb),
            (Some(x), Some(y)) if x == y => {
                // Same rank: batch axes may still broadcast (size 1).
                let bl = labels("b", x - 2);
                let cl = labels("c", x - 2);
                let same = self.same_batch(&a, &b, x - 2);
                if same {
                    let p = bl.iter().map(|l| format!("{l},")).collect::<String>();
                    (format!("{p}m,k; {p}k,n => {p}m,n"), Some(x))
                } else {
                    let _ = cl;
                    return self.matmul_broadcast(node, &a, &b, out);
                }
            }
            _ => return self.matmul_broadcast(node, &a, &b, out),
        };
        let v = self.einsum(&spec, &[&a, &b], None, None, out);
        self.bind(node, 0, with_rank(v, rank));
        Ok(())
    }

    /// Whether the first `n` axes of both operands are known to be equal
    /// (or unknown: ONNX graphs rarely broadcast same-rank batches).
    fn same_batch(&self, a: &Val, b: &Val, n: usize) -> bool {
        match (&a.shape, &b.shape) {
            (Some(x), Some(y)) => x[..n] == y[..n],
            _ => true,
        }
    }

    /// MatMul with broadcast batch axes: the operands viewed as OCANNL
    /// matrices (`batch | k -> m`: the same memory order as ONNX's
    /// `[..., m, k]`) and composed (`ocannl.matmul`, whose batch rows
    /// broadcast), then viewed back.
    fn matmul_broadcast(&mut self, node: &NodeProto, a: &Val, b: &Val, out: String) -> R<()> {
        // The views have batch and input rows: their types are open in all
        // three rows.
        let open = || "...|...->...".to_owned();
        let va = self.einsum("..a.., m, k => ..a.. | k -> m", &[a], None, None, open());
        let vb = self.einsum("..b.., k, n => ..b.. | n -> k", &[b], None, None, open());
        let elem = a.elem;
        let p = self.emit("matmul", &[&va, &vb], "", elem, open(), None);
        let v = self.einsum("..c.. | n -> m => ..c.., m, n", &[&p], None, None, out);
        let rank = match (a.rank, b.rank) {
            (Some(x), Some(y)) => Some(x.max(y)),
            _ => None,
        };
        self.bind(node, 0, with_rank(v, rank));
        Ok(())
    }
}
