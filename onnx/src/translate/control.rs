//! ONNX If (onnx.ai/onnx/operators/onnx__If.html). A condition known at
//! import (a constant, or a shape value such as `Equal(Shape(x)[0], 1)`)
//! folds the node: the chosen branch's nodes are translated in place and
//! its outputs become the If's. Otherwise both branches are translated
//! and each output is chosen at run time by an einsum whose `combine` is
//! `where` over a scalar condition: its row variable makes the two
//! branches' outputs the same shape (ONNX lets them differ; that is an
//! error here, at the If).

use super::{Attrs, R, Translator, Val};
use crate::proto::{GraphProto, NodeProto};
use crate::tensor::Tensor;

/// A branch output: a shape value, a constant, or a translated value.
pub(super) enum Out {
    Shape(super::shape_values::sym::ShapeVal),
    Const(Tensor),
    Value(Val),
}

impl Translator {
    /// ONNX If.
    pub(super) fn if_node(&mut self, node: &NodeProto) -> R<()> {
        let a = Attrs::of(node);
        let (Some(then), Some(other)) = (a.graph("then_branch"), a.graph("else_branch")) else {
            return self.err("If needs its then_branch and else_branch");
        };
        let Some(cond) = node.input.first().filter(|s| !s.is_empty()) else {
            return self.err("input #0 is required");
        };
        if then.output.len() != node.output.len() || other.output.len() != node.output.len() {
            return self.err(format!(
                "the branches give {} and {} outputs for the If's {}",
                then.output.len(),
                other.output.len(),
                node.output.len()
            ));
        }
        if let Some(c) = self.known_condition(cond)? {
            let outs = self.branch(if c { then } else { other })?;
            for (i, out) in outs.into_iter().enumerate() {
                self.bind_out(node, i, out);
            }
            return Ok(());
        }
        let c = self.value(cond)?;
        if c.rank.is_some_and(|r| r != 0) || c.shape.as_ref().is_some_and(|d| !d.is_empty()) {
            return self.err("the If's condition must be a single boolean");
        }
        let yes = self.branch(then)?;
        let no = self.branch(other)?;
        for (i, (y, n)) in yes.into_iter().zip(no).enumerate() {
            let (y, n) = (self.out_value(y)?, self.out_value(n)?);
            if y.elem != n.elem {
                return self.err(format!(
                    "output #{i}: the branches give {} and {}",
                    y.elem.mlir(),
                    n.elem.mlir()
                ));
            }
            let attrs = "spec = \"; ..s..; ..s.. => ..s..\", combine = \"where\"";
            let v = self.emit_mixed(
                "einsum",
                &[&c, &y, &n],
                attrs,
                y.elem,
                self.out_spec(node, i),
                None,
            );
            let rank = y.rank.or(n.rank);
            self.bind(node, i, super::elementwise::with_rank(v, rank));
        }
        Ok(())
    }

    /// The condition's value when known at import.
    fn known_condition(&self, name: &str) -> R<Option<bool>> {
        let cells = if let Some(v) = self.shape_vals.get(name) {
            v.numbers()
        } else if let Some(t) = self.consts.get(name) {
            t.to_i64()
        } else {
            return Ok(None);
        };
        match cells.as_deref() {
            Some([c]) => Ok(Some(*c != 0)),
            Some(c) => self.err(format!("the If's condition has {} cells, not 1", c.len())),
            None => Ok(None),
        }
    }

    /// Translates a branch's initializers and nodes (they see the outer
    /// scope's names); its outputs.
    pub(super) fn branch(&mut self, g: &GraphProto) -> R<Vec<Out>> {
        for t in &g.initializer {
            let Some(name) = t.name.clone() else {
                continue;
            };
            let t = Tensor::decode(t).map_err(|m| self.error(m))?;
            self.consts.insert(name, t);
        }
        for n in &g.node {
            self.translate_node(n)?;
            if let Some(m) = self.mixed.take() {
                return self.err(m);
            }
        }
        let mut outs = Vec::with_capacity(g.output.len());
        for o in &g.output {
            let name = o.name.as_deref().unwrap_or("");
            outs.push(if let Some(v) = self.values.get(name) {
                Out::Value(v.clone())
            } else if let Some(v) = self.shape_vals.get(name) {
                Out::Shape(v.clone())
            } else if let Some(t) = self.consts.get(name) {
                Out::Const(t.clone())
            } else {
                Out::Value(self.value(name)?)
            });
        }
        Ok(outs)
    }

    /// A branch output as a value of the function.
    pub(super) fn out_value(&mut self, out: Out) -> R<Val> {
        match out {
            Out::Value(v) => Ok(v),
            Out::Shape(s) => self.materialize(&s),
            Out::Const(t) => self.constant(&t),
        }
    }

    /// Binds the If's output `i` to a branch's output.
    fn bind_out(&mut self, node: &NodeProto, i: usize, out: Out) {
        let Some(name) = node.output.get(i).filter(|s| !s.is_empty()).cloned() else {
            return;
        };
        match out {
            Out::Shape(s) => {
                self.shape_vals.insert(name, s);
            }
            Out::Const(t) => {
                self.consts.insert(name, t);
            }
            Out::Value(v) => self.bind(node, i, v),
        }
    }
}
