//! ONNX NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
//! (onnx.ai/onnx/operators/onnx__NegativeLogLikelihoodLoss.html,
//! onnx__SoftmaxCrossEntropyLoss.html). Input `[N, C, d1, ...]`, integer
//! targets `[N, d1, ...]`: `loss = -input[n, target, d..] * weight[target]`
//! (0 where the target is `ignore_index`), read with `ocannl.gather` along
//! the class axis; `mean` divides the sum by the summed weights of the
//! targets that count. SoftmaxCrossEntropyLoss takes the log-softmax over
//! the classes first (its second output).

use super::axes::labels;
use super::elementwise::with_rank;
use super::{Attrs, R, Translator, Val};
use crate::proto::NodeProto;
use crate::tensor::Elem;

impl Translator {
    /// ONNX NegativeLogLikelihoodLoss (`softmax`: SoftmaxCrossEntropyLoss).
    pub(super) fn loss(&mut self, node: &NodeProto, softmax: bool) -> R<()> {
        let a = Attrs::of(node);
        let reduction = a.string("reduction").unwrap_or_else(|| "mean".into());
        if !matches!(reduction.as_str(), "none" | "sum" | "mean") {
            return self.err(format!(
                "reduction '{reduction}' is not one of none, sum, mean"
            ));
        }
        let ignore = a.int("ignore_index");
        let name = node.input.first().cloned().unwrap_or_default();
        let r = self.dims_of(&name)?.len();
        let x = self.input(node, 0)?;
        let target = self.input(node, 1)?;
        let weight = self.opt_input(node, 2)?;
        if !x.elem.is_float() || target.elem.is_float() {
            return self.err("the loss takes floating-point scores and integer targets");
        }
        if r < 2 {
            return self.err(format!("the scores must have rank 2 or more, not {r}"));
        }
        let d = labels("d", r - 2).join(",");
        let sep = if d.is_empty() { "" } else { "," };
        let (full, cls, tgt) = (
            format!("n,c{sep}{d}"),
            format!("n,v{sep}{d}"),
            format!("n{sep}{d}"),
        );
        let scores = if softmax {
            let lp = self.log_softmax(&x, &full, &format!("n{sep}{d}"))?;
            if node.output.len() > 1 {
                self.bind(node, 1, with_rank(lp.clone(), Some(r)));
            }
            lp
        } else {
            x.clone()
        };
        let picked = self.emit_gather(
            &scores,
            &target,
            &format!("{cls}; {tgt} => {tgt}"),
            "...".into(),
        );
        let mut loss = self.unary("neg", &picked, "...".into());
        let mut w = None;
        if let Some(weight) = &weight {
            let wt = self.emit_gather(weight, &target, &format!("v; {tgt} => {tgt}"), "...".into());
            loss = self.binary("mul", &loss, &wt, "...".into())?;
            w = Some(wt);
        }
        let zero = self.scalar(x.elem, 0.0);
        // The targets that count: all but `ignore_index`.
        let keep = match ignore {
            Some(i) => {
                let iv = self.fill_attr(target.elem, &[], &format!("{i} : {}", target.elem.mlir()));
                let keep = self.binary_to("ne", &target, &iv, "...".into(), Elem::Bool)?;
                loss = self.ternary("where", &keep, &loss, &zero, "...".into())?;
                keep
            }
            None => self.binary_to("eq", &target, &target, "...".into(), Elem::Bool)?,
        };
        let loss = with_rank(loss, Some(r - 1));
        let sum = |t: &mut Self, v: &Val| {
            t.einsum(&format!("{tgt} => "), &[v], None, None, String::new())
        };
        let out = match reduction.as_str() {
            "none" => loss,
            "sum" => sum(self, &loss),
            _ => {
                let total = sum(self, &loss);
                let each = match &w {
                    Some(wt) => wt.clone(),
                    None => self.scalar(x.elem, 1.0),
                };
                let each = self.ternary("where", &keep, &each, &zero, "...".into())?;
                let count = sum(self, &with_rank(each, Some(r - 1)));
                self.binary("div", &total, &count, String::new())?
            }
        };
        self.bind(node, 0, out);
        Ok(())
    }

    /// `log_softmax(x)` over the class axis `c` of `full` (`rest`: the
    /// other axes).
    fn log_softmax(&mut self, x: &Val, full: &str, rest: &str) -> R<Val> {
        let m = self.einsum(
            &format!("{full} => {rest}"),
            &[x],
            Some("max"),
            None,
            "...".into(),
        );
        let both = format!("{full}; {rest} => {full}");
        let d = self.einsum(&both, &[x, &m], None, Some("sub"), "...".into());
        let e = self.unary("exp", &d, "...".into());
        let s = self.einsum(
            &format!("{full} => {rest}"),
            &[&e],
            None,
            None,
            "...".into(),
        );
        let ls = self.unary("log", &s, "...".into());
        Ok(self.einsum(&both, &[&d, &ls], None, Some("sub"), "...".into()))
    }
}
