//! ONNX Gather with indices known only at run time (embedding lookups):
//! `ocannl.gather` (onnx.ai/onnx/operators/onnx__Gather.html). The result
//! is `data`'s axes before `axis`, the indices' axes, then `data`'s axes
//! after it; the einsum spec states exactly that, the gathered axis `v`
//! being the one label the result leaves out.

use super::axes::{Layout, labels};
use super::elementwise::with_rank;
use super::{Attrs, R, Translator};
use crate::proto::NodeProto;

impl Translator {
    /// Whether input `i` is known at import (a constant, or a shape value
    /// of known numbers).
    pub(super) fn known_input(&self, node: &NodeProto, i: usize) -> bool {
        node.input.get(i).is_some_and(|name| {
            self.consts.contains_key(name)
                || self
                    .shape_vals
                    .get(name)
                    .is_some_and(|v| v.numbers().is_some())
        })
    }

    /// ONNX Gather of `data` at run-time `indices` along `axis`.
    pub(super) fn gather_dynamic(&mut self, node: &NodeProto) -> R<()> {
        let data = self.input(node, 0)?;
        let indices = self.input(node, 1)?;
        if indices.elem.is_float() {
            return self.err(format!(
                "Gather's indices must be integers, not {}",
                indices.elem.mlir()
            ));
        }
        let axis = Attrs::of(node).int("axis").unwrap_or(0);
        let lay = Layout::new(&[axis], data.rank).map_err(|m| self.error(m))?;
        let row_var = lay.axes.iter().any(|a| a.starts_with(".."));
        let index_axes = match indices.rank {
            Some(q) => labels("i", q).join(","),
            None if !row_var => "..i..".to_owned(),
            None => {
                return self.err(
                    "Gather at run-time indices needs the rank of the data or of the indices (neither is known here)",
                );
            }
        };
        let result = lay.map(|_| (!index_axes.is_empty()).then(|| index_axes.clone()));
        let spec = format!(
            "{}; {index_axes} => {result}",
            lay.map(|_| Some("v".into()))
        );
        let attrs = format!("spec = \"{}\"", super::multichar(&spec));
        // The indices have their own element type.
        let mixed = self.mixed.is_some();
        let v = self.emit(
            "gather",
            &[&data, &indices],
            &attrs,
            data.elem,
            self.out_spec(node, 0),
            None,
        );
        if !mixed {
            self.mixed = None;
        }
        let rank = match (lay.rank_after(false), indices.rank) {
            (Some(r), Some(q)) => Some(r + q),
            _ => None,
        };
        self.bind(node, 0, with_rank(v, rank));
        Ok(())
    }
}
