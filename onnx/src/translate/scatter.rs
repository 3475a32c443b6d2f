//! ONNX Scatter, ScatterElements, ScatterND and TensorScatter
//! (onnx.ai/onnx/operators), composed from existing dialect ops: no
//! scatter op writes cells at run-time positions, so each output cell
//! looks at every update instead.
//!
//! ScatterElements and ScatterND build a 0/1 mask `M[S.., T.., v..]`: the
//! update at `(S, T)` targets the data cell `(v, T)` (`S`: the update axes
//! that are reduced away, `T`: the axes updates and data share, `v`: the
//! addressed data axes), one comparison of the wrapped index with a range
//! of positions per addressed axis (see [`mask`]). The reductions are
//! where-einsums over `S`: `add`/`mul` accumulate `where(M, u, 0|1)` and
//! combine with the data, `max`/`min` accumulate `where(M, u, data)`;
//! `none` picks, per data cell, the last update that targets it (the
//! largest position in `S`, as ONNX's reference, which writes in order)
//! and keeps the data where none does. Cost: O(N·K) for N data cells and
//! K updates along the reduced axes (the mask and each where-einsum), so
//! large scatters are slow; memory O(N·K) for the mask.
//!
//! Indices: a negative index counts from the end of its axis. Constant
//! indices out of range are an import error; at run time an index outside
//! `[-n, n)` matches no position, so its update is dropped (the data cell
//! keeps its value): defined, never a write out of bounds.
//!
//! TensorScatter (opset 24, a KV-cache update) is a gather instead, O(N):
//! see [`tensor`].

mod mask;
mod tensor;

use super::axes::check_axis;
use super::elementwise::with_rank;
use super::shape_values::sym::Sym;
use super::{Attrs, R, Translator, Val};
use crate::proto::{NodeProto, attribute_proto::AttributeType as K};
use crate::tensor::Elem;

/// The attributes of the ops this module translates (see
/// `attrs::known`); `None`: not one of them.
pub(super) fn known(op: &str) -> Option<&'static [(&'static str, K)]> {
    Some(match op {
        "Scatter" => &[("axis", K::Int)],
        "ScatterElements" => &[("axis", K::Int), ("reduction", K::String)],
        "ScatterND" => &[("reduction", K::String)],
        "TensorScatter" => &[("axis", K::Int), ("mode", K::String)],
        _ => return None,
    })
}

/// How updates combine with the data cell they target.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Reduction {
    None,
    Add,
    Mul,
    Max,
    Min,
}

/// One addressed data axis: the update's target position along it
/// (`target`, an i64 over the update labels `labels`) against the
/// positions of the data axis labelled `axis` (`range`).
pub(super) struct Part {
    pub(super) target: Val,
    pub(super) labels: Vec<String>,
    pub(super) range: Val,
    pub(super) axis: String,
}

impl Translator {
    /// Translates `node` if it is one of this module's ops.
    pub(super) fn scatter(&mut self, node: &NodeProto, op: &str) -> R<bool> {
        match op {
            "Scatter" | "ScatterElements" => self.scatter_elements(node, op)?,
            "ScatterND" => self.scatter_nd(node)?,
            "TensorScatter" => self.tensor_scatter(node)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The `reduction` attribute (from opset 16).
    fn reduction(&self, node: &NodeProto) -> R<Reduction> {
        if self.opset < 16 && Attrs::of(node).string("reduction").is_some() {
            return self.err(format!(
                "the attribute 'reduction' is defined from opset 16 (the model's is {})",
                self.opset
            ));
        }
        Ok(
            match Attrs::of(node)
                .string("reduction")
                .as_deref()
                .unwrap_or("none")
            {
                "none" => Reduction::None,
                "add" => Reduction::Add,
                "mul" => Reduction::Mul,
                "max" => Reduction::Max,
                "min" => Reduction::Min,
                r => {
                    return self.err(format!(
                        "reduction '{r}' must be one of none, add, mul, max, min"
                    ));
                }
            },
        )
    }

    /// The data, indices and updates (inputs 0, 1, 2) with their dims;
    /// element types checked.
    fn scatter_inputs(&mut self, node: &NodeProto, op: &str) -> R<([Val; 3], [Vec<Sym>; 3])> {
        let mut dims: [Vec<Sym>; 3] = Default::default();
        for (i, d) in dims.iter_mut().enumerate() {
            match node.input.get(i).filter(|s| !s.is_empty()) {
                Some(name) => *d = self.dims_of(&name.clone())?,
                None => return self.err(format!("{op}: input #{i} is required")),
            }
        }
        let vals = [
            self.input(node, 0)?,
            self.input(node, 1)?,
            self.input(node, 2)?,
        ];
        self.check_elems(op, &vals[0], &vals[1], &vals[2])?;
        Ok((vals, dims))
    }

    /// The data and updates of one element type (not bool), integer
    /// indices.
    pub(super) fn check_elems(&self, op: &str, data: &Val, idx: &Val, upd: &Val) -> R<()> {
        if idx.elem.is_float() || idx.elem.is_bool() {
            return self.err(format!(
                "{op}'s indices must be integers, not {}",
                idx.elem.mlir()
            ));
        }
        if upd.elem != data.elem {
            return self.err(format!(
                "{op}'s updates ({}) and data ({}) must have one element type",
                upd.elem.mlir(),
                data.elem.mlir()
            ));
        }
        if data.elem.is_bool() {
            return self.err(format!("{op} of booleans is not supported"));
        }
        Ok(())
    }

    /// ONNX ScatterElements (and Scatter, its opset-9 name): `out[..,
    /// indices[.., i, ..], ..] = updates[.., i, ..]` along `axis`. An
    /// axis other than `axis` where the indices are not known to be as
    /// long as the data (shorter, or sizes not known to be equal) is
    /// addressed by position too (a comparison of two ranges); the others
    /// are shared.
    fn scatter_elements(&mut self, node: &NodeProto, op: &str) -> R<()> {
        let reduction = self.reduction(node)?;
        let ([data, idx, upd], [dd, id, ud]) = self.scatter_inputs(node, op)?;
        let r = dd.len();
        if id.len() != r || ud.len() != r {
            return self.err(format!(
                "{op}: data, indices and updates must have one rank (got {r}, {}, {})",
                id.len(),
                ud.len()
            ));
        }
        let axis = Attrs::of(node).int("axis").unwrap_or(0);
        check_axis(axis).map_err(|m| self.error(m))?;
        let a = if axis < 0 { axis + r as i64 } else { axis };
        if !(0..r as i64).contains(&a) {
            return self.err(format!("axis {axis} is out of range for rank {r}"));
        }
        let a = a as usize;
        for d in 0..r {
            if Sym::equal(&id[d], &ud[d]) == Some(false) {
                return self.err(format!(
                    "{op}: the updates' dim {d} ({}) differs from the indices' ({})",
                    ud[d], id[d]
                ));
            }
        }
        // Which non-axis axes the indices may cover only in part (not
        // known to be the data's size): addressed by position.
        let mut short = vec![false; r];
        for d in (0..r).filter(|&d| d != a) {
            if let (Some(i), Some(n)) = (id[d].num(), dd[d].num())
                && i > n
            {
                return self.err(format!(
                    "{op}: the indices' dim {d} ({i}) exceeds the data's ({n})"
                ));
            }
            short[d] = Sym::equal(&id[d], &dd[d]) != Some(true);
        }
        if let (true, Some(n)) = (self.known_input(node, 1), dd[a].num())
            && let Some(t) = self.const_input(node, 1)?
        {
            let values = t.to_i64().unwrap_or_default();
            if let Some(v) = values.iter().find(|&&v| v < -n || v >= n) {
                return self.err(format!(
                    "{op}: index {v} is out of range for axis {axis} of size {n}"
                ));
            }
        }
        let dl: Vec<String> = (0..r).map(|d| format!("a{d}")).collect();
        let ul: Vec<String> = (0..r)
            .map(|d| {
                if d == a || short[d] {
                    format!("u{d}")
                } else {
                    format!("a{d}")
                }
            })
            .collect();
        let idx = self.as_i64(&idx);
        let rv = self.positions(&[dd[a].clone()]);
        let n = self.axis_count(&dd[a], &rv);
        let w = self.wrap(&idx, &n)?;
        let mut parts = vec![Part {
            target: w,
            labels: ul.clone(),
            range: rv,
            axis: dl[a].clone(),
        }];
        for d in (0..r).filter(|&d| short[d]) {
            let target = self.positions(&[id[d].clone()]);
            let range = self.positions(&[dd[d].clone()]);
            parts.push(Part {
                target,
                labels: vec![ul[d].clone()],
                range,
                axis: dl[d].clone(),
            });
        }
        let s: Vec<(String, Sym)> = (0..r)
            .filter(|&d| ul[d] != dl[d])
            .map(|d| (ul[d].clone(), id[d].clone()))
            .collect();
        let v = self.scatter_core(&data, &upd, parts, (&ul, &dl, &s), reduction)?;
        self.bind(node, 0, with_rank(v, Some(r)));
        Ok(())
    }

    /// ONNX ScatterND: the last axis of `indices` (of known size `k`)
    /// addresses the first `k` axes of the data; `updates` is the
    /// indices' other axes, then the data's axes after the `k`.
    fn scatter_nd(&mut self, node: &NodeProto) -> R<()> {
        let reduction = self.reduction(node)?;
        let ([data, idx, upd], [dd, id, ud]) = self.scatter_inputs(node, "ScatterND")?;
        let (r, q) = (dd.len(), id.len());
        let Some(k) = id.last().and_then(Sym::num) else {
            return self.err(
                "ScatterND needs the indices' last dim, which is not known here (not supported)",
            );
        };
        if k < 1 || k as usize > r {
            return self.err(format!(
                "ScatterND: {k}-component indices for data of rank {r} (1 to {r} components)"
            ));
        }
        let (k, b) = (k as usize, q - 1);
        let want: Vec<Sym> = id[..b].iter().chain(&dd[k..]).cloned().collect();
        if ud.len() != want.len()
            || ud
                .iter()
                .zip(&want)
                .any(|(u, w)| Sym::equal(u, w) == Some(false))
        {
            let show = |v: &[Sym]| v.iter().map(ToString::to_string).collect::<Vec<_>>();
            return self.err(format!(
                "ScatterND: the updates' dims {:?} must be the indices' leading dims then the data's after the first {k}: {:?}",
                show(&ud),
                show(&want)
            ));
        }
        if self.known_input(node, 1)
            && let Some(t) = self.const_input(node, 1)?
        {
            let values = t.to_i64().unwrap_or_default();
            for (i, &v) in values.iter().enumerate() {
                let j = i % k;
                if let Some(n) = dd[j].num()
                    && (v < -n || v >= n)
                {
                    return self.err(format!(
                        "ScatterND: index {v} is out of range for axis {j} of size {n}"
                    ));
                }
            }
        }
        let sl: Vec<String> = (0..b).map(|i| format!("i{i}")).collect();
        let tl: Vec<String> = (k..r).map(|i| format!("t{i}")).collect();
        let vl: Vec<String> = (0..k).map(|i| format!("v{i}")).collect();
        let idx = self.as_i64(&idx);
        let rest = sl.join(",");
        let mut parts = Vec::with_capacity(k);
        for (j, v) in vl.iter().enumerate() {
            let sep = if rest.is_empty() { "" } else { "," };
            let pick = format!("{rest}{sep}{j} => {rest}");
            let c = self.einsum(&pick, &[&idx], None, None, "...".into());
            let c = with_rank(c, Some(b));
            let range = self.positions(&[dd[j].clone()]);
            let n = self.axis_count(&dd[j], &range);
            let target = self.wrap(&c, &n)?;
            parts.push(Part {
                target,
                labels: sl.clone(),
                range,
                axis: v.clone(),
            });
        }
        let ul = [sl.clone(), tl.clone()].concat();
        let dl = [vl, tl].concat();
        let s: Vec<(String, Sym)> = sl.iter().cloned().zip(id[..b].iter().cloned()).collect();
        let v = self.scatter_core(&data, &upd, parts, (&ul, &dl, &s), reduction)?;
        self.bind(node, 0, with_rank(v, Some(r)));
        Ok(())
    }

    /// `x` as i64.
    pub(super) fn as_i64(&mut self, x: &Val) -> Val {
        if x.elem == Elem::I64 {
            x.clone()
        } else {
            self.unary_to("cast", x, "...".into(), Elem::I64)
        }
    }

    /// `idx < 0 ? idx + n : idx` (`n` an i64 scalar).
    fn wrap(&mut self, idx: &Val, n: &Val) -> R<Val> {
        let zero = self.scalar(Elem::I64, 0.0);
        let negative = self.binary_to("lt", idx, &zero, "...".into(), Elem::Bool)?;
        let shifted = self.binary("add", idx, n, "...".into())?;
        let v = self.ternary("where", &negative, &shifted, idx, "...".into())?;
        Ok(with_rank(v, idx.rank))
    }

    /// The i64 cells of the given dims numbered 0, 1, .. in memory order.
    pub(super) fn positions(&mut self, dims: &[Sym]) -> Val {
        let spec: Vec<String> = dims.iter().map(|d| self.dim_name(d)).collect();
        let spec = spec.join(",");
        let shape: Option<Vec<u64>> = dims
            .iter()
            .map(|d| d.num().and_then(|n| u64::try_from(n).ok()))
            .collect();
        let attrs = format!("spec = \"{}\"", super::multichar(&spec));
        let v = self.emit("range", &[], &attrs, Elem::I64, spec, shape);
        with_rank(v, Some(dims.len()))
    }

    /// A dim in a spec: its number, its variable, or a fresh variable
    /// (that the einsums using it then equate).
    fn dim_name(&mut self, d: &Sym) -> String {
        match d {
            Sym::Num(n) => n.to_string(),
            Sym::Dim(v) => v.clone(),
            Sym::Op(..) => self.fresh_var(),
        }
    }

    /// The size of an axis as an i64 scalar: a constant when known, else
    /// one more than the largest of its `positions`.
    pub(super) fn axis_count(&mut self, d: &Sym, positions: &Val) -> Val {
        if let Some(n) = d.num() {
            return self.fill_attr(Elem::I64, &[], &format!("{n} : i64"));
        }
        let last = self.einsum("p => ", &[positions], Some("max"), None, String::new());
        let one = self.scalar(Elem::I64, 1.0);
        let v = self.emit("add", &[&last, &one], "", Elem::I64, String::new(), None);
        with_rank(v, Some(0))
    }
}
