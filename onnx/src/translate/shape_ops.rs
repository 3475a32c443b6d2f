//! Ops that move or regroup axes: Concat, Reshape, Flatten, the reductions.

use super::ops::{Layout, labels, with_rank};
use super::{Attrs, R, Translator, Val, dims_spec};
use crate::proto::NodeProto;

impl Translator {
    /// ONNX Concat along `axis`: a block spec `..., p0^p1^..., ...`.
    pub(super) fn concat(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let Some(axis) = at.int("axis") else {
            return self.err("'axis' is required");
        };
        let mut xs = Vec::new();
        for i in 0..node.input.len() {
            xs.push(self.input(node, i)?);
        }
        if xs.is_empty() {
            return self.err("Concat needs at least one input");
        }
        let rank = xs.iter().find_map(|x| x.rank);
        let lay = Layout::new(&[axis], rank).map_err(|m| self.error(m))?;
        let parts: Vec<String> = (0..xs.len())
            .map(|i| lay.map(|_| Some(format!("p{i}"))))
            .collect();
        let joined: Vec<String> = (0..xs.len()).map(|i| format!("p{i}")).collect();
        let spec = format!(
            "{} => {}",
            parts.join("; "),
            lay.map(|_| Some(joined.join("^")))
        );
        let refs: Vec<&Val> = xs.iter().collect();
        let elem = xs[0].elem;
        let v = self.emit(
            "concat",
            &refs,
            &format!("spec = \"{spec}\""),
            elem,
            self.out_spec(node, 0),
            None,
        );
        self.bind(node, 0, with_rank(v, rank));
        Ok(())
    }

    /// ONNX Reshape to a constant shape: `-1` is a fresh dimension variable
    /// (the element count decides it), `0` copies the input's size at that
    /// position (a known size, or a dimension variable shared with a view
    /// of the input).
    pub(super) fn reshape(&mut self, node: &NodeProto) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let target = match at.ints("shape") {
            Some(s) if self.opset < 5 => s,
            _ => match self.const_ints(node, 1)? {
                Some(s) => s,
                None => return self.err("Reshape needs its shape input"),
            },
        };
        let allowzero = at.int("allowzero").unwrap_or(0) == 1;
        if target.iter().filter(|&&d| d == -1).count() > 1 {
            return self.err(format!("shape {target:?} has more than one -1"));
        }
        if target.iter().any(|&d| d < -1 || (d == 0 && allowzero)) {
            return self.err(format!("shape {target:?}: sizes must be positive, 0 or -1"));
        }
        let copies: Vec<usize> = (0..target.len()).filter(|&i| target[i] == 0).collect();
        let mut src = x.clone();
        let mut axes: Vec<String> = Vec::new();
        let mut names: Vec<Option<String>> = vec![None; target.len()];
        if let Some(&last) = copies.last() {
            match &x.shape {
                Some(d) if d.len() > last => {
                    for &i in &copies {
                        names[i] = Some(d[i].to_string());
                    }
                }
                Some(d) => {
                    return self.err(format!(
                        "shape {target:?} copies axis {last} of a rank-{} input",
                        d.len()
                    ));
                }
                None => {
                    // A view of the input whose leading sizes are named.
                    let vars: Vec<String> = (0..=last).map(|_| self.fresh_var()).collect();
                    for &i in &copies {
                        names[i] = Some(vars[i].clone());
                    }
                    let l = labels("a", last + 1);
                    let spec = format!("{},..r.. => {},..r..", l.join(","), l.join(","));
                    src = self.einsum(&spec, &[&x], None, None, format!("{},...", vars.join(",")));
                }
            }
        }
        for (i, &d) in target.iter().enumerate() {
            axes.push(match (&names[i], d) {
                (Some(n), _) => n.clone(),
                (None, -1) => self.fresh_var(),
                (None, d) => d.to_string(),
            });
        }
        let declared = self.out_spec(node, 0);
        let spec = if declared == "..." {
            axes.join(",")
        } else {
            declared
        };
        let elem = x.elem;
        let v = self.emit("reshape", &[&src], "", elem, spec, None);
        self.bind(node, 0, with_rank(v, Some(target.len())));
        Ok(())
    }

    /// ONNX Flatten: `[prod(d[..axis]), prod(d[axis..])]`.
    pub(super) fn flatten(&mut self, node: &NodeProto) -> R<()> {
        let x = self.input(node, 0)?;
        let axis = Attrs::of(node).int("axis").unwrap_or(1);
        let axis = match (axis < 0, x.rank) {
            (false, _) => axis as usize,
            (true, Some(r)) if axis + r as i64 >= 0 => (axis + r as i64) as usize,
            _ => return self.err(format!("axis {axis} needs the input's rank")),
        };
        let elem = x.elem;
        let declared = self.out_spec(node, 0);
        let v = if let Some(d) = &x.shape {
            if axis > d.len() {
                return self.err(format!("axis {axis} of a rank-{} input", d.len()));
            }
            let p: u64 = d[..axis].iter().product();
            let q: u64 = d[axis..].iter().product();
            self.emit("reshape", &[&x], "", elem, dims_spec(&[p, q]), None)
        } else if axis == 0 {
            let q = self.fresh_var();
            self.emit("reshape", &[&x], "", elem, format!("1,{q}"), None)
        } else {
            // Name the leading sizes on a view of the input, fold the rest
            // (one unknown), then the leading ones (one unknown).
            let vars: Vec<String> = (0..axis).map(|_| self.fresh_var()).collect();
            let l = labels("a", axis);
            let spec = format!("{},..r.. => {},..r..", l.join(","), l.join(","));
            let view = self.einsum(&spec, &[&x], None, None, format!("{},...", vars.join(",")));
            let q = self.fresh_var();
            let out = if axis == 1 && declared == "..." {
                format!("{},{q}", vars[0])
            } else if axis == 1 {
                declared.clone()
            } else {
                format!("{},{q}", vars.join(","))
            };
            let r = self.emit("reshape", &[&view], "", elem, out, None);
            if axis == 1 {
                r
            } else {
                let p = self.fresh_var();
                let out = if declared == "..." {
                    format!("{p},{q}")
                } else {
                    declared.clone()
                };
                self.emit("reshape", &[&r], "", elem, out, None)
            }
        };
        self.bind(node, 0, with_rank(v, Some(2)));
        Ok(())
    }

    /// ONNX ReduceSum / ReduceMean / ReduceMax / ReduceMin: an einsum whose
    /// result drops the reduced axes, or keeps them as fixed index 0 (size
    /// 1) with `keepdims`.
    pub(super) fn reduce(&mut self, node: &NodeProto, op: &str) -> R<()> {
        let at = Attrs::of(node);
        let x = self.input(node, 0)?;
        let axes_in_input = (op == "ReduceSum" && self.opset >= 13) || self.opset >= 18;
        let axes = if axes_in_input {
            self.const_ints(node, 1)?
        } else {
            at.ints("axes")
        };
        let keep = at.int("keepdims").unwrap_or(1) == 1;
        let axes = match axes {
            Some(a) if !a.is_empty() => a,
            _ if at.int("noop_with_empty_axes").unwrap_or(0) == 1 => {
                let v = self.unary("identity", &x, self.out_spec(node, 0));
                self.bind(node, 0, v);
                return Ok(());
            }
            _ => {
                // All axes.
                let Some(r) = x.rank else {
                    return self.err(format!("{op} over all axes needs the input's rank"));
                };
                (0..r as i64).collect()
            }
        };
        let lay = Layout::new(&axes, x.rank).map_err(|m| self.error(m))?;
        let res = if keep {
            lay.map(|_| Some("0".into()))
        } else {
            lay.map(|_| None)
        };
        let spec = format!("{} => {res}", lay.all());
        let accum = match op {
            "ReduceMax" => Some("max"),
            "ReduceMin" => Some("min"),
            _ => None,
        };
        let v = if op == "ReduceMean" {
            let s = self.einsum(&spec, &[&x], None, None, "...".into());
            let c = self.count(&x, &spec)?;
            self.binary("div", &s, &c, self.out_spec(node, 0))?
        } else {
            self.einsum(&spec, &[&x], accum, None, self.out_spec(node, 0))
        };
        self.bind(node, 0, with_rank(v, lay.rank_after(keep)));
        Ok(())
    }
}
