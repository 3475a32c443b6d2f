//! Shape computations: `Shape`, `Size` and the integer arithmetic
//! exporters build on them (`Gather`, `Slice`, `Concat`, `Unsqueeze`,
//! `Squeeze`, `Reshape`, `Cast`, `Add`/`Sub`/`Mul`/`Div`/`Mod`/`Max`/`Min`,
//! `Neg`, `Equal` and `Where`; onnx.ai/onnx/operators), evaluated by the
//! importer as expressions over dimensions ([`sym::Sym`]) instead of ops.
//!
//! `Shape(x)` is `x`'s dims: known sizes, the graph inputs' dimension
//! variables (one per `dim_param`), or, for an intermediate, fresh
//! dimension variables named on a view of `x` (an identity einsum whose
//! result type names them, so `ocannl-infer-shapes` ties them to `x`'s
//! solved dims). Arithmetic on such values folds numbers and keeps the
//! rest symbolic; `Reshape`, `ConstantOfShape`, `Expand`, `Tile` and
//! `Range` then read the dims as dims: `Reshape(x, Concat(Shape(x)[0],
//! -1))` stays tied to `x`'s first dim, symbolic or not. A shape value
//! used as data (an `Add` with a float tensor, a graph output) is
//! materialised: a constant when every cell is known, else ops that count
//! a dimension's size at run time (see `materialize`).

mod eval;
mod materialize;
pub(crate) mod sym;

use super::axes::labels;
use super::{Attrs, R, Translator, Val};
use crate::proto::{NodeProto, attribute_proto::AttributeType as K};
use crate::tensor::Elem;
use sym::{Arith, ShapeVal, Sym};

/// The most cells a constant may have to take part in a shape
/// computation (a shape has at most a few dozen).
const MAX_CELLS: usize = 1024;

/// The attributes of the ops this module translates or evaluates on
/// shape values (see `attrs::known`); `None`: not one of them. Ops other
/// modules translate on tensors are listed by their modules first.
pub(super) fn known(op: &str) -> Option<&'static [(&'static str, K)]> {
    use K::{Graph, Int, Ints};
    Some(match op {
        "Shape" => &[("start", Int), ("end", Int)],
        "If" => &[("then_branch", Graph), ("else_branch", Graph)],
        "Size" | "Range" | "Equal" | "Where" => &[],
        "Cast" => &[("to", Int), ("saturate", Int)],
        "Mod" => &[("fmod", Int)],
        "Slice" => &[("starts", Ints), ("ends", Ints), ("axes", Ints)],
        _ => return None,
    })
}

/// The ops evaluated on shape values.
const EVALUATED: &[&str] = &[
    "Identity",
    "Cast",
    "Neg",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Mod",
    "Max",
    "Min",
    "Equal",
    "Where",
    "Gather",
    "Slice",
    "Concat",
    "Unsqueeze",
    "Squeeze",
    "Reshape",
    "ConstantOfShape",
];

impl Translator {
    /// Translates `node` when its op is one of this module's (`Range`, and
    /// `If`, whose condition is often a shape value: see `control`);
    /// `false` otherwise.
    pub(super) fn shape_value_op(&mut self, node: &NodeProto, op: &str) -> R<bool> {
        match op {
            "Range" => self.range(node)?,
            "If" => self.if_node(node)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Evaluates `node` on shape values when it is `Shape` or `Size`, or
    /// an op of [`EVALUATED`] whose inputs are shape values and small
    /// integer constants; `false`: translate it as usual (its shape-value
    /// inputs are then materialised).
    pub(super) fn shape_value_node(&mut self, node: &NodeProto, op: &str) -> R<bool> {
        let out = match op {
            "Shape" => Some(self.shape_of(node)?),
            "Size" => Some(self.size_of(node)?),
            _ if EVALUATED.contains(&op) => {
                let Some(ins) = self.shape_inputs(node) else {
                    return Ok(false);
                };
                self.evaluate(node, op, &ins)?
            }
            _ => None,
        };
        let Some(out) = out else {
            return Ok(false);
        };
        if let Some(name) = node.output.first().filter(|n| !n.is_empty()) {
            self.shape_vals.insert(name.clone(), out);
        }
        Ok(true)
    }

    /// The node's inputs as shape values (`None` for an absent optional
    /// one), when each is a shape value or a small integer constant (an op
    /// of constants alone is folded: exporters compute sizes such as a
    /// head's width with `Div` and `Mod` of constants).
    fn shape_inputs(&self, node: &NodeProto) -> Option<Vec<Option<ShapeVal>>> {
        let mut ins = Vec::new();
        for name in &node.input {
            if name.is_empty() {
                ins.push(None);
            } else if let Some(v) = self.shape_vals.get(name) {
                ins.push(Some(v.clone()));
            } else {
                let t = self.consts.get(name)?;
                ins.push(Some(ShapeVal::of_tensor(t, MAX_CELLS)?));
            }
        }
        ins.iter().any(Option::is_some).then_some(ins)
    }

    /// `Shape(x)`: `x`'s dims from `start` to `end` (opset 15; clamped,
    /// negative from the end). It may be empty (a scalar's shape, or
    /// `x.shape[3:]` of a rank-3 `x`): a value for other shape ops, an
    /// error only if used as data.
    fn shape_of(&mut self, node: &NodeProto) -> R<ShapeVal> {
        let Some(x) = node.input.first().filter(|s| !s.is_empty()) else {
            return self.err("input #0 is required");
        };
        let dims = self.dims_of(x)?;
        let a = Attrs::of(node);
        let r = dims.len() as i64;
        let clamp = |v: i64| if v < 0 { (v + r).max(0) } else { v.min(r) };
        let start = clamp(a.int("start").unwrap_or(0));
        let end = clamp(a.int("end").unwrap_or(r));
        let items = if start < end {
            dims[start as usize..end as usize].to_vec()
        } else {
            Vec::new()
        };
        Ok(ShapeVal::vector(items))
    }

    /// `Size(x)`: the product of `x`'s dims, a scalar.
    fn size_of(&mut self, node: &NodeProto) -> R<ShapeVal> {
        let Some(x) = node.input.first().filter(|s| !s.is_empty()) else {
            return self.err("input #0 is required");
        };
        let mut n = Sym::Num(1);
        for d in self.dims_of(x)? {
            n = Sym::apply(Arith::Mul, &n, &d).map_err(|m| self.error(m))?;
        }
        Ok(ShapeVal {
            elem: Elem::I64,
            dims: Vec::new(),
            items: vec![n],
            logical: false,
        })
    }

    /// The dims of the value `name` as shape integers: known sizes, the
    /// dimension variables its type names, or fresh variables named on an
    /// identity view of it, which then stands for it (so the view is
    /// used, and later uses see the same names).
    pub(super) fn dims_of(&mut self, name: &str) -> R<Vec<Sym>> {
        if let Some(v) = self.shape_vals.get(name) {
            return Ok(v.dims.iter().map(|&d| Sym::Num(d as i64)).collect());
        }
        let x = self.value(name)?;
        if let Some(dims) = self.known_dims(&x)? {
            return Ok(dims);
        }
        let Some(r) = x.rank.or_else(|| self.ranks.get(name).copied()) else {
            return self.err(format!(
                "the dims of '{name}' are needed (a shape computation reads them), but its rank is not known to the importer"
            ));
        };
        let vars: Vec<String> = (0..r).map(|_| self.fresh_var()).collect();
        let l = labels("a", r).join(",");
        let mut view = self.einsum(&format!("{l} => {l}"), &[&x], None, None, vars.join(","));
        view.rank = Some(r);
        self.values.insert(name.to_owned(), view);
        Ok(vars.into_iter().map(Sym::Dim).collect())
    }

    /// The dims of `x` without a view: known sizes, the variables its type
    /// names, or for a broadcasting pointwise result its operands'
    /// broadcast (its solved type could be wider: a later use may widen it,
    /// and ONNX's result is exactly the broadcast). `None`: not known so.
    fn known_dims(&mut self, x: &Val) -> R<Option<Vec<Sym>>> {
        if let Some(d) = &x.shape {
            return Ok(Some(d.iter().map(|&d| Sym::Num(d as i64)).collect()));
        }
        if let Some(dims) = spec_dims(&x.spec) {
            return Ok(Some(dims));
        }
        let Some(operands) = self.broadcasts.get(&x.ssa).cloned() else {
            return Ok(None);
        };
        let mut out: Vec<Sym> = Vec::new();
        for o in &operands {
            let Some(d) = self.known_dims(o)? else {
                // An operand's own dims named on a view of it.
                let Some(r) = o.rank else {
                    return Ok(None);
                };
                let vars: Vec<String> = (0..r).map(|_| self.fresh_var()).collect();
                let l = labels("a", r).join(",");
                let _view = self.einsum(&format!("{l} => {l}"), &[o], None, None, vars.join(","));
                out =
                    self.broadcast_dims(&out, &vars.into_iter().map(Sym::Dim).collect::<Vec<_>>())?;
                continue;
            };
            out = self.broadcast_dims(&out, &d)?;
        }
        Ok(Some(out))
    }

    /// NumPy's broadcast of two dim lists (aligned at the end).
    fn broadcast_dims(&self, a: &[Sym], b: &[Sym]) -> R<Vec<Sym>> {
        let n = a.len().max(b.len());
        let at = |v: &[Sym], i: usize| (i + v.len()).checked_sub(n).map(|k| v[k].clone());
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            out.push(match (at(a, i), at(b, i)) {
                (Some(x), None) | (None, Some(x)) => x,
                (Some(Sym::Num(1)), Some(y)) | (Some(y), Some(Sym::Num(1))) => y,
                (Some(x), Some(y)) if x == y => x,
                (Some(Sym::Num(x)), Some(Sym::Num(y))) => {
                    return self.err(format!("dims {x} and {y} do not broadcast"));
                }
                // A dim that broadcasts with k > 1 is k or 1: the result is k.
                (Some(Sym::Num(k)), Some(_)) | (Some(_), Some(Sym::Num(k))) if k > 1 => Sym::Num(k),
                (Some(x), Some(y)) => Sym::apply(Arith::Max, &x, &y).map_err(|m| self.error(m))?,
                (None, None) => unreachable!("i < n"),
            });
        }
        Ok(out)
    }

    /// A shape input (`Reshape`'s, `Expand`'s, `ConstantOfShape`'s) as
    /// shape integers: a shape value or a constant; `None` when absent.
    pub(super) fn shape_arg(&self, node: &NodeProto, i: usize) -> R<Option<Vec<Sym>>> {
        let Some(name) = node.input.get(i).filter(|s| !s.is_empty()) else {
            return Ok(None);
        };
        if let Some(v) = self.shape_vals.get(name) {
            if v.dims.len() > 1 {
                return self.err(format!(
                    "input #{i} must be a 1-D shape, it has dims {:?}",
                    v.dims
                ));
            }
            return Ok(Some(v.items.clone()));
        }
        Ok(self
            .const_ints(node, i)?
            .map(|v| v.into_iter().map(Sym::Num).collect()))
    }

    /// A scalar shape input (`Range`'s): a shape value or a constant of
    /// one cell.
    fn scalar_arg(&self, node: &NodeProto, i: usize) -> R<(Sym, Elem)> {
        let Some(name) = node.input.get(i).filter(|s| !s.is_empty()) else {
            return self.err(format!("input #{i} is required"));
        };
        let v = match self.shape_vals.get(name) {
            Some(v) => v.clone(),
            None => {
                let Some(t) = self.consts.get(name) else {
                    return self.err(format!(
                        "input #{i} ('{name}') must be a constant or computed from shapes"
                    ));
                };
                if Elem::of_onnx(t.data_type).is_ok_and(Elem::is_float) {
                    return self.err(format!(
                        "input #{i}: a floating-point Range is computed from constants only"
                    ));
                }
                match ShapeVal::of_tensor(t, 1) {
                    Some(v) => v,
                    None => return self.err(format!("input #{i} must be one integer")),
                }
            }
        };
        match v.items.as_slice() {
            [s] => Ok((s.clone(), v.elem)),
            _ => self.err(format!(
                "input #{i} must be a scalar, it has {} cells",
                v.items.len()
            )),
        }
    }

    /// ONNX Range: constant when its inputs are known (integer or
    /// floating-point); `Range(0, n, 1)` for a dimension `n` is
    /// `ocannl.range` over that dimension.
    fn range(&mut self, node: &NodeProto) -> R<()> {
        if let Some(t) = self.const_range(node)? {
            let v = self.constant(&t)?;
            self.bind(node, 0, v);
            return Ok(());
        }
        let (start, elem) = self.scalar_arg(node, 0)?;
        let (limit, _) = self.scalar_arg(node, 1)?;
        let (delta, _) = self.scalar_arg(node, 2)?;
        let v = match (start, limit, delta) {
            (Sym::Num(0), Sym::Dim(n), Sym::Num(1)) => {
                self.emit("range", &[], &format!("spec = \"{n},\""), elem, n, None)
            }
            (s, l, d) => {
                return self.err(format!(
                    "Range({s}, {l}, {d}): a computed length other than a dimension (Range(0, n, 1)) is not supported"
                ));
            }
        };
        self.bind(node, 0, super::elementwise::with_rank(v, Some(1)));
        Ok(())
    }
}

/// The dims a spec names one by one (sizes and dimension variables, no
/// rows or row variables), or `None`.
fn spec_dims(spec: &str) -> Option<Vec<Sym>> {
    let s = spec.trim().trim_end_matches(',');
    if s.contains(['|', '>', '.', '^', '*', '+', '=', '<', '&', '@']) {
        return None;
    }
    if s.is_empty() {
        return Some(Vec::new());
    }
    s.split(',')
        .map(|a| {
            let a = a.trim();
            if let Ok(n) = a.parse::<u64>() {
                return i64::try_from(n).ok().map(Sym::Num);
            }
            let ident = a.starts_with(|c: char| c.is_ascii_alphabetic())
                && a.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            ident.then(|| Sym::Dim(a.to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_name_their_dims_or_not() {
        let d = |n: &str| Sym::Dim(n.into());
        assert_eq!(
            spec_dims("2,s_batch,d3"),
            Some(vec![Sym::Num(2), d("s_batch"), d("d3")])
        );
        assert_eq!(spec_dims("s_n,"), Some(vec![d("s_n")]));
        assert_eq!(spec_dims(""), Some(vec![]));
        assert_eq!(spec_dims("..v3.."), None);
        assert_eq!(spec_dims("2,_"), None);
        assert_eq!(spec_dims("b|3->4"), None);
    }
}
