//! Empty tensors (an axis of size 0), where the dialect's shape logic
//! cannot take them: OCANNL's dims are at least 1 wherever an einsum
//! label or a variable stands for them (reference, "Solving the
//! constraints"), so an op that would read an empty axis through one is
//! answered here from the known dims instead.
//!
//! - A reduction over an empty axis (`ReduceSum` ... `ReduceLogSumExp`)
//!   is its accumulation's identity (onnx.ai, "Reduce*": "reduction over
//!   an empty set of values yields ... 0 for sum, 1 for product, minus
//!   infinity for max ..."), a constant of the result's dims.
//! - An op whose result has no cells needs none of its operands' values:
//!   the result is a constant of its dims (see [`Translator::empty_result`]).

use super::{Attrs, R, Translator, Val};
use crate::proto::NodeProto;
use crate::tensor::Elem;

/// The reductions and the identity of each: `Some(v)` a value, `None` the
/// element type's lowest (`max`) or highest (`min`) value.
fn identity(op: &str) -> Option<Option<(f64, bool)>> {
    Some(match op {
        "ReduceSum" | "ReduceL1" | "ReduceL2" | "ReduceSumSquare" => Some((0.0, false)),
        "ReduceProd" => Some((1.0, false)),
        "ReduceMean" => Some((f64::NAN, false)),
        "ReduceLogSum" | "ReduceLogSumExp" => Some((f64::NEG_INFINITY, false)),
        "ReduceMax" => None,
        "ReduceMin" => Some((0.0, true)),
        _ => return None,
    })
}

/// The scalar attribute of `elem`'s lowest (`high` false) or highest
/// value: infinities for floats.
fn extreme(elem: Elem, high: bool) -> String {
    if elem.is_float() {
        let v = if high {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
        return elem.scalar_attr(v);
    }
    if elem.is_bool() {
        return format!("{} : {}", u8::from(high), elem.mlir());
    }
    let bits = match elem {
        Elem::I8 | Elem::U8 => 8,
        Elem::I16 | Elem::U16 => 16,
        Elem::I32 | Elem::U32 => 32,
        _ => 64,
    };
    let v: i128 = match (elem.is_unsigned(), high) {
        (true, true) => (1i128 << bits) - 1,
        (true, false) => 0,
        (false, true) => (1i128 << (bits - 1)) - 1,
        (false, false) => -(1i128 << (bits - 1)),
    };
    format!("{v} : {}", elem.mlir())
}

/// The ops that take inputs without cells (see the module doc); the
/// others refuse them before they size anything by a 0.
const TAKE_EMPTY: &[&str] = &[
    "Cast", "CastLike", "Identity", "Split", "Reshape", "Slice", "Trilu", "Relu", "Neg", "Abs",
    "Exp", "Log", "Sqrt", "Tanh", "Sigmoid", "Not", "Floor", "Ceil", "Add", "Sub", "Mul", "Div",
];

impl Translator {
    /// A located error when an input of `node` is known to have no cells
    /// and `op` is not one of [`TAKE_EMPTY`]; `false` (the node is left to
    /// its translation) otherwise.
    pub(super) fn check_empty_inputs(&self, node: &NodeProto, op: &str) -> R<bool> {
        if TAKE_EMPTY.contains(&op) {
            return Ok(false);
        }
        for (i, name) in node.input.iter().enumerate().filter(|(_, n)| !n.is_empty()) {
            // Values translated so far (graph inputs, op results): constant
            // inputs are read as data (axes, `roi`), and are not sized here.
            if let Some(v) = self.values.get(name)
                && v.shape.as_ref().is_some_and(|d| d.contains(&0))
            {
                return self.err(format!(
                    "input #{i} ('{name}') has no cells (a dim of size 0): empty tensors are not supported by {op}"
                ));
            }
        }
        Ok(false)
    }

    /// A reduction over an axis of size 0: the identity of its
    /// accumulation, of the result's dims. False (nothing done) when the
    /// op is not a reduction or no reduced axis is known to be empty.
    pub(super) fn empty_reduce(&mut self, node: &NodeProto, op: &str) -> R<bool> {
        let Some(id) = identity(op) else {
            return Ok(false);
        };
        let Some(first) = node.input.first().filter(|n| !n.is_empty()) else {
            return Ok(false);
        };
        let x = self.value(first)?;
        let Some(dims) = x.shape.clone() else {
            return Ok(false);
        };
        if !dims.contains(&0) {
            return Ok(false);
        }
        let at = Attrs::of(node);
        let axes_in_input = (op == "ReduceSum" && self.opset >= 13) || self.opset >= 18;
        let axes = if axes_in_input {
            self.const_ints(node, 1)?
        } else {
            at.ints("axes")
        };
        let r = dims.len() as i64;
        let axes: Vec<i64> = match axes {
            Some(a) if !a.is_empty() => a,
            // The identity of `noop_with_empty_axes`: the general path.
            _ if at.int("noop_with_empty_axes").unwrap_or(0) == 1 => return Ok(false),
            _ => (0..r).collect(),
        };
        let mut reduced = vec![false; dims.len()];
        for &a in &axes {
            let k = if a < 0 { a.checked_add(r) } else { Some(a) };
            match k.filter(|k| (0..r).contains(k)) {
                Some(k) => reduced[k as usize] = true,
                None => return self.err(format!("axis {a} is out of range for rank {r}")),
            }
        }
        // An empty axis reduced gives the identity; one kept, a result
        // without cells (whatever its value).
        let keep = at.int("keepdims").unwrap_or(1) == 1;
        let out: Vec<u64> = dims
            .iter()
            .zip(&reduced)
            .filter_map(|(&d, &red)| match (red, keep) {
                (true, true) => Some(1),
                (true, false) => None,
                (false, _) => Some(d),
            })
            .collect();
        let value = match id {
            Some((v, false)) => x.elem.scalar_attr(v),
            Some((_, true)) => extreme(x.elem, true),
            None => extreme(x.elem, false),
        };
        if (op == "ReduceMean" || op.starts_with("ReduceLog")) && !x.elem.is_float() {
            return self.err(format!(
                "{op} of an empty set in {} has no value (not supported)",
                x.elem.mlir()
            ));
        }
        let v = self.fill_attr(x.elem, &out, &value);
        let rank = out.len();
        self.bind(node, 0, super::elementwise::with_rank(v, Some(rank)));
        Ok(true)
    }

    /// A result known to have no cells: a constant of its dims (its
    /// values are never read). For ops whose result dims the importer
    /// knows before it emits anything.
    pub(super) fn empty_result(&mut self, node: &NodeProto, k: usize, elem: Elem, dims: &[u64]) {
        let v: Val = self.fill(elem, dims, 0.0);
        self.bind(node, k, super::elementwise::with_rank(v, Some(dims.len())));
    }

    /// Split of an input without cells (known dims `d`): every part is
    /// empty, a constant of its dims (`empty`).
    pub(super) fn split_empty(&mut self, node: &NodeProto, x: &Val, axis: i64, d: &[u64]) -> R<()> {
        let r = d.len() as i64;
        let Some(k) = Some(if axis < 0 { axis + r } else { axis }).filter(|k| (0..r).contains(k))
        else {
            return self.err(format!("axis {axis} is out of range for rank {r}"));
        };
        let n = node.output.len();
        let at = Attrs::of(node);
        let sizes: Vec<i64> = match at.ints("split").filter(|s| !s.is_empty()) {
            Some(s) => s,
            None => self.const_ints(node, 1)?.unwrap_or_else(|| {
                // Equal parts of the axis (0 parts of 0 cells, or of a
                // non-empty axis across which another is empty).
                let total = d[k as usize];
                let each = total.div_ceil(n as u64);
                (0..n as u64)
                    .map(|j| each.min(total.saturating_sub(j.saturating_mul(each))) as i64)
                    .collect()
            }),
        };
        let sum = sizes
            .iter()
            .try_fold(0u64, |acc, &s| acc.checked_add(u64::try_from(s).ok()?));
        if sizes.len() != n || sum != Some(d[k as usize]) {
            return self.err(format!(
                "split sizes {sizes:?} for {n} outputs of an axis of {}",
                d[k as usize]
            ));
        }
        for (j, &s) in sizes.iter().enumerate() {
            let mut dims = d.to_vec();
            dims[k as usize] = s as u64;
            self.empty_result(node, j, x.elem, &dims);
        }
        Ok(())
    }
}
