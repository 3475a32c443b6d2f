//! ONNX Gather with indices known only at run time (embedding lookups),
//! GatherElements and GatherND:
//! `ocannl.gather` (onnx.ai/onnx/operators/onnx__Gather.html). The result
//! is `data`'s axes before `axis`, the indices' axes, then `data`'s axes
//! after it; the einsum spec states exactly that, the gathered axis `v`
//! being the one label the result leaves out.

use super::axes::{Layout, labels};
use super::elementwise::with_rank;
use super::shape_values::sym::Sym;
use super::{Attrs, R, Translator, Val};
use crate::proto::NodeProto;
use crate::tensor::Elem;

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
        let v = self.emit_mixed(
            "gather",
            &[&data, &indices],
            &attrs,
            data.elem,
            self.out_spec(node, 0),
            None,
        );
        let rank = match (lay.rank_after(false), indices.rank) {
            (Some(r), Some(q)) => Some(r + q),
            _ => None,
        };
        self.bind(node, 0, with_rank(v, rank));
        Ok(())
    }
}

impl Translator {
    /// `ocannl.gather` of `data` at `indices` with the einsum `spec`
    /// (operands of different element types: the indices are integers).
    pub(super) fn emit_gather(
        &mut self,
        data: &Val,
        indices: &Val,
        spec: &str,
        out: String,
    ) -> Val {
        let attrs = format!("spec = \"{}\"", super::multichar(spec));
        self.emit_mixed("gather", &[data, indices], &attrs, data.elem, out, None)
    }

    /// ONNX GatherElements (onnx.ai/onnx/operators/onnx__GatherElements.html):
    /// `out[.., i, ..] = data[.., indices[.., i, ..], ..]` along `axis`;
    /// the other axes are shared (their sizes equal).
    pub(super) fn gather_elements(&mut self, node: &NodeProto) -> R<()> {
        let data = self.input(node, 0)?;
        let indices = self.input(node, 1)?;
        if indices.elem.is_float() {
            return self.err("GatherElements' indices must be integers");
        }
        let Some(r) = data.rank.or(indices.rank) else {
            return self
                .err("GatherElements needs the rank of its data or indices (not known here)");
        };
        let axis = Attrs::of(node).int("axis").unwrap_or(0);
        super::axes::check_axis(axis).map_err(|m| self.error(m))?;
        let a = if axis < 0 { axis + r as i64 } else { axis };
        if !(0..r as i64).contains(&a) {
            return self.err(format!("axis {axis} is out of range for rank {r}"));
        }
        let l = labels("a", r);
        let with = |name: &str| {
            let mut v = l.clone();
            v[a as usize] = name.into();
            v.join(",")
        };
        let spec = format!("{}; {} => {}", with("v"), with("w"), with("w"));
        let mut v = self.emit_gather(&data, &indices, &spec, self.out_spec(node, 0));
        v.shape.clone_from(&indices.shape);
        self.bind(node, 0, with_rank(v, Some(r)));
        Ok(())
    }

    /// ONNX GatherND (onnx.ai/onnx/operators/onnx__GatherND.html): the
    /// last axis of `indices` (of known size `k`) addresses `k` axes of
    /// `data` after `batch_dims` shared ones. Each component is wrapped
    /// (a negative one counts from the end), the `k` axes are flattened
    /// into one (their sizes known) and read at the linear index.
    pub(super) fn gather_nd(&mut self, node: &NodeProto) -> R<()> {
        if self.input(node, 1)?.elem.is_float() {
            return self.err("GatherND's indices must be integers");
        }
        let b = Attrs::of(node).int("batch_dims").unwrap_or(0);
        let dims = self.dims_of(node.input.first().map_or("", String::as_str))?;
        let idx_dims = self.dims_of(node.input.get(1).map_or("", String::as_str))?;
        // After `dims_of`, which may have put views in their place.
        let data = self.input(node, 0)?;
        let indices = self.input(node, 1)?;
        let (r, q) = (dims.len(), idx_dims.len());
        let Some(k) = idx_dims.last().and_then(|d| d.num()) else {
            return self.err(
                "GatherND needs the indices' last dim, which is not known here (not supported)",
            );
        };
        if b < 0 || b as usize >= q || k < 1 || b as usize + k as usize > r {
            return self.err(format!(
                "batch_dims {b} and {k}-component indices of rank {q} for data of rank {r}"
            ));
        }
        let (b, k) = (b as usize, k as usize);
        let Some(sizes) = dims[b..b + k]
            .iter()
            .map(|d| d.num())
            .collect::<Option<Vec<i64>>>()
        else {
            return self.err(
                "GatherND needs the sizes of the axes it addresses (not known here; not supported)",
            );
        };
        let lin = self.linear_index(&indices, q, &sizes)?;
        // The data with the addressed axes as one.
        let n: i64 = sizes.iter().product();
        let mut flat: Vec<String> = Vec::with_capacity(r - k + 1);
        for (i, d) in dims.iter().enumerate() {
            if i == b {
                flat.push(n.to_string());
            } else if i < b || i >= b + k {
                flat.push(match d {
                    Sym::Num(n) => n.to_string(),
                    Sym::Dim(v) => v.clone(),
                    Sym::Op(..) => self.fresh_var(),
                });
            }
        }
        let whole = self.emit("reshape", &[&data], "", data.elem, flat.join(","), None);
        let lead = labels("b", b);
        let mid = labels("i", q - 1 - b);
        let tail = labels("t", r - b - k);
        let join = |parts: &[&[String]]| parts.concat().join(",");
        let v_label = ["v".to_owned()];
        let spec = format!(
            "{}; {} => {}",
            join(&[&lead, &v_label, &tail]),
            join(&[&lead, &mid]),
            join(&[&lead, &mid, &tail])
        );
        let v = self.emit_gather(&whole, &lin, &spec, self.out_spec(node, 0));
        self.bind(node, 0, with_rank(v, Some(q - 1 + r - b - k)));
        Ok(())
    }

    /// `sum_j wrap(indices[.., j]) * stride_j` over the last axis of
    /// `indices` (rank `q`), for axes of `sizes`.
    fn linear_index(&mut self, indices: &Val, q: usize, sizes: &[i64]) -> R<Val> {
        let e = indices.elem;
        let rest = labels("i", q - 1).join(",");
        let zero = self.scalar(e, 0.0);
        let mut total: Option<Val> = None;
        let mut stride = 1i64;
        for (j, &n) in sizes.iter().enumerate().rev() {
            let pick = format!(
                "{rest}{}{j} => {rest}",
                if rest.is_empty() { "" } else { "," }
            );
            let c = self.einsum(&pick, &[indices], None, None, "...".into());
            let c = with_rank(c, Some(q - 1));
            let size = self.fill_attr(e, &[], &format!("{n} : {}", e.mlir()));
            let negative = self.binary_to("lt", &c, &zero, "...".into(), Elem::Bool)?;
            let shifted = self.binary("add", &c, &size, "...".into())?;
            let wrapped = self.ternary("where", &negative, &shifted, &c, "...".into())?;
            let scaled = if stride == 1 {
                wrapped
            } else {
                let s = self.fill_attr(e, &[], &format!("{stride} : {}", e.mlir()));
                self.binary("mul", &wrapped, &s, "...".into())?
            };
            total = Some(match total {
                None => scaled,
                Some(t) => self.binary("add", &t, &scaled, "...".into())?,
            });
            stride = stride
                .checked_mul(n)
                .ok_or_else(|| self.error("GatherND's axes overflow 64 bits"))?;
        }
        total.ok_or_else(|| self.error("GatherND with no components"))
    }
}
