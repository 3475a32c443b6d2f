//! Pointwise ops: arithmetic (binary and variadic), the one-operand
//! functions, Clip, opset 6's `broadcast` with `axis`, and the pointwise
//! builders every family uses.

use super::axes::{check_axis, labels};
use super::{Attrs, R, Translator, Val};
use crate::proto::NodeProto;
use crate::tensor::Elem;

impl Translator {
    /// ONNX Add, Sub, Mul, Div, Pow.
    pub(super) fn arithmetic(&mut self, node: &NodeProto, op: &str) -> R<()> {
        let (x, y) = (self.input(node, 0)?, self.input(node, 1)?);
        if op == "Pow" && x.elem != y.elem {
            let v = self.mixed_pow(&x, &y)?;
            self.bind(node, 0, v);
            return Ok(());
        }
        let name = match op {
            "Add" => "add",
            "Sub" => "sub",
            "Mul" => "mul",
            "Div" => "div",
            _ => "pow",
        };
        let v = self.binary(name, &x, &y, self.out_spec(node, 0))?;
        self.bind(node, 0, v);
        Ok(())
    }

    /// ONNX Pow with an exponent of another element type than the base's
    /// (onnx__Pow.html: the result has the base's type). As the reference
    /// (`np.power(a, b).astype(a.dtype)`): a float on either side computes
    /// in f64 (NumPy's promotion of a float and a 32- or 64-bit integer)
    /// and converts back (an integer base truncating toward zero); two
    /// integer types compute in the wider one, wrapping, and take the low
    /// bits.
    fn mixed_pow(&mut self, x: &Val, y: &Val) -> R<Val> {
        if x.elem.is_bool() || y.elem.is_bool() {
            return self.err("Pow does not take bool tensors");
        }
        let width = |e: Elem| match e {
            Elem::I8 | Elem::U8 => 8,
            Elem::I16 | Elem::U16 | Elem::F16 | Elem::BF16 => 16,
            Elem::I32 | Elem::U32 | Elem::F32 => 32,
            _ => 64,
        };
        let via = if x.elem.is_float() || y.elem.is_float() {
            Elem::F64
        } else if width(y.elem) > width(x.elem) {
            y.elem
        } else {
            x.elem
        };
        let conv = |t: &mut Self, v: &Val| {
            if v.elem == via {
                v.clone()
            } else {
                t.unary_to("cast", v, "...".into(), via)
            }
        };
        let (xc, yc) = (conv(self, x), conv(self, y));
        let p = self.binary("pow", &xc, &yc, "...".into())?;
        Ok(if via == x.elem {
            p
        } else {
            self.unary_to("cast", &p, "...".into(), x.elem)
        })
    }

    /// ONNX Max, Min, Sum, Mean: any number of operands, folded left.
    pub(super) fn variadic(&mut self, node: &NodeProto, op: &str) -> R<()> {
        let name = match op {
            "Max" => "max",
            "Min" => "min",
            _ => "add",
        };
        let n = node.input.len();
        let mut acc = self.input(node, 0)?;
        for i in 1..n {
            let y = self.input(node, i)?;
            let spec = if i + 1 == n && op != "Mean" {
                self.out_spec(node, 0)
            } else {
                "...".into()
            };
            acc = self.binary(name, &acc, &y, spec)?;
        }
        if op == "Mean" {
            let c = self.scalar(acc.elem, n as f64);
            acc = self.binary("div", &acc, &c, self.out_spec(node, 0))?;
        } else if n == 1 {
            acc = self.unary("identity", &acc, self.out_spec(node, 0));
        }
        self.bind(node, 0, acc);
        Ok(())
    }

    /// The one-operand functions (Relu, Exp, ..., Identity, Dropout).
    pub(super) fn pointwise_unary(&mut self, node: &NodeProto, op: &str) -> R<()> {
        if op == "Dropout" && node.input.len() > 2 && !node.input[2].is_empty() {
            match self.const_input(node, 2)?.and_then(|t| t.to_f64()) {
                Some(v) if v.first() == Some(&0.0) => {}
                _ => return self.err("Dropout in training mode is not supported"),
            }
        }
        let x = self.input(node, 0)?;
        // Identity and inference-mode Dropout compute their input: inside
        // the graph the output is the input's value, not a copy of it
        // (a graph output keeps its copy: the function returns a buffer
        // of its own). A declared shape that differs from the input's
        // known one keeps the copy too, so that `ocannl-infer-shapes`
        // reports it.
        if matches!(op, "Identity" | "Dropout")
            && let Some(out) = node.output.first().filter(|o| !o.is_empty())
            && !self.outputs.contains(out)
            && match (self.declared.get(out), &x.shape) {
                (Some(d), Some(s)) => d == s,
                _ => true,
            }
        {
            self.bind(node, 0, x.clone());
            self.dropout_mask(node, op, &x);
            return Ok(());
        }
        let name = match op {
            "Reciprocal" => "recip",
            "Identity" | "Dropout" => "identity",
            _ => &op.to_ascii_lowercase(),
        };
        let v = self.unary(name, &x, self.out_spec(node, 0));
        self.bind(node, 0, v);
        self.dropout_mask(node, op, &x);
        Ok(())
    }

    /// Dropout's mask (onnx__Dropout.html), when the node names it: in
    /// inference every cell is kept, all true, of the input's shape (an
    /// unread mask costs nothing: the passes erase unread ops).
    fn dropout_mask(&mut self, node: &NodeProto, op: &str, x: &Val) {
        if op == "Dropout" && node.output.get(1).is_some_and(|m| !m.is_empty()) {
            let ones = self.ones_like(x);
            let mask = self.unary_to("cast", &ones, self.out_spec(node, 1), Elem::Bool);
            self.bind(node, 1, mask);
        }
    }

    /// ONNX Clip.
    pub(super) fn clip(&mut self, node: &NodeProto) -> R<()> {
        let a = Attrs::of(node);
        // Bounds from attributes (before opset 11) or from inputs
        // (scalar tensors, constant or not).
        let x = self.input(node, 0)?;
        let (mut lo, mut hi) = if self.opset < 11 {
            let c = |t: &mut Self, v: Option<f32>| v.map(|v| t.scalar(x.elem, f64::from(v)));
            (c(self, a.float("min")), c(self, a.float("max")))
        } else {
            (self.opt_input(node, 1)?, self.opt_input(node, 2)?)
        };
        // A missing bound of a float Clip is the type's lowest or
        // largest finite value (the spec's `Min(max, Max(input,
        // min))` with `numeric_limits` defaults, as onnxruntime
        // computes it): an infinite input or bound gives the
        // largest finite value, not infinity (with no bound at all,
        // too). For integers the defaults clamp nothing.
        if let Some(m) = x.elem.float_max() {
            if lo.is_none() {
                lo = Some(self.scalar(x.elem, -m));
            }
            if hi.is_none() {
                hi = Some(self.scalar(x.elem, m));
            }
        }
        // The bounds are scalars (one element): a larger tensor
        // would broadcast the result.
        for b in lo.iter().chain(&hi) {
            if let Some(d) = &b.shape
                && d.iter().try_fold(1u64, |a, &b| a.checked_mul(b)) != Some(1)
            {
                return self.err(format!("Clip's bounds must be scalars, one is {d:?}"));
            }
            if b.shape.is_none() && b.rank.is_some_and(|r| r > 1) {
                return self.err("Clip's bounds must be scalars");
            }
        }
        let mut v = x.clone();
        if let Some(lo) = &lo {
            let spec = if hi.is_none() {
                self.out_spec(node, 0)
            } else {
                "...".into()
            };
            v = self.binary("max", &v, lo, spec)?;
        }
        if let Some(hi) = &hi {
            v = self.binary("min", &v, hi, self.out_spec(node, 0))?;
        }
        if lo.is_none() && hi.is_none() {
            v = self.unary("identity", &x, self.out_spec(node, 0));
        }
        self.bind(node, 0, v);
        Ok(())
    }

    /// A pointwise binary op (NumPy broadcasting is the output row's).
    pub(super) fn binary(&mut self, name: &str, x: &Val, y: &Val, spec: String) -> R<Val> {
        self.binary_to(name, x, y, spec, x.elem)
    }

    /// [`Self::binary`] with a result of element type `elem` (a
    /// comparison's `i1`).
    pub(super) fn binary_to(
        &mut self,
        name: &str,
        x: &Val,
        y: &Val,
        spec: String,
        elem: Elem,
    ) -> R<Val> {
        if x.elem != y.elem {
            return self.err(format!(
                "operands of element types {} and {} are not supported",
                x.elem.mlir(),
                y.elem.mlir()
            ));
        }
        let rank = match (x.rank, y.rank) {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
        // Both shapes known: the result's is NumPy's broadcast, stated (and
        // an error here when they do not broadcast). A scalar (or
        // all-ones) operand leaves the other's shape exactly.
        let shape = match (&x.shape, &y.shape) {
            (Some(a), Some(b)) => Some(broadcast(a, b).map_err(|m| self.error(m))?),
            _ => None,
        };
        let spec = match (spec.as_str(), &shape) {
            ("...", Some(d)) => super::dims_spec(d),
            // One shape (named alike): the result's.
            ("...", None) if x.spec == y.spec && x.spec != "..." => x.spec.clone(),
            ("...", None) if Self::absorbed(x, y) => x.spec.clone(),
            ("...", None) if Self::absorbed(y, x) => y.spec.clone(),
            _ => spec,
        };
        let v = self.emit(name, &[x, y], "", elem, spec, shape);
        if v.shape.is_none() {
            // Its dims are the operands' broadcast (see `dims_of`).
            self.broadcasts
                .insert(v.ssa.clone(), vec![x.clone(), y.clone()]);
        }
        Ok(with_rank(v, rank))
    }

    /// A pointwise unary op; `identity` is a one-operand einsum copy. ONNX's
    /// result has exactly the operand's shape: the result type names the
    /// operand's (OCANNL's `Pointwise_un` only bounds it from below, and an
    /// axis of size 1 could widen).
    pub(super) fn unary(&mut self, name: &str, x: &Val, spec: String) -> Val {
        self.unary_to(name, x, spec, x.elem)
    }

    /// [`Self::unary`] with a result of element type `elem` (a cast's).
    pub(super) fn unary_to(&mut self, name: &str, x: &Val, spec: String, elem: Elem) -> Val {
        let spec = if spec == "..." { x.spec.clone() } else { spec };
        let mut v = if name == "identity" {
            self.einsum("..r.. => ..r..", &[x], None, None, spec)
        } else {
            self.emit(name, &[x], "", elem, spec, x.shape.clone())
        };
        if v.shape.is_none() {
            v.shape.clone_from(&x.shape);
        }
        with_rank(v, x.rank)
    }

    /// Whether `y` is known to broadcast into `x` unchanged: a scalar, or
    /// every known dim 1 in no more axes than `x` has.
    fn absorbed(x: &Val, y: &Val) -> bool {
        match (&y.shape, x.rank) {
            (Some(d), _) if d.is_empty() => true,
            (Some(d), Some(r)) => d.len() <= r && d.iter().all(|&n| n == 1),
            _ => false,
        }
    }

    /// A pointwise ternary op (`where`: `c != 0 ? a : b`).
    pub(super) fn ternary(
        &mut self,
        name: &str,
        c: &Val,
        x: &Val,
        y: &Val,
        spec: String,
    ) -> R<Val> {
        let rank = match (c.rank, x.rank, y.rank) {
            (Some(a), Some(b), Some(d)) => Some(a.max(b).max(d)),
            _ => None,
        };
        let v = self.emit(name, &[c, x, y], "", x.elem, spec, None);
        self.broadcasts
            .insert(v.ssa.clone(), vec![c.clone(), x.clone(), y.clone()]);
        Ok(with_rank(v, rank))
    }

    /// Opset-6 `broadcast = 1, axis = k`: `y`'s axes line up with `x`'s
    /// from `k` on. With `x`'s rank known, `y` gains the size-1 axes that
    /// put its last axis on `x`'s and the op broadcasts the NumPy way (size
    /// 1 broadcasting too); otherwise an einsum whose `x` axes before `k`
    /// and after `y`'s are free (sizes must then match exactly).
    pub(super) fn broadcast_at_axis(&mut self, node: &NodeProto, op: &str, axis: i64) -> R<()> {
        let (x, y) = (self.input(node, 0)?, self.input(node, 1)?);
        let Some(yr) = y.rank else {
            return self.err("broadcast with 'axis' needs the second operand's rank");
        };
        let combine = match op {
            "Add" | "Sum" => "add",
            "Sub" => "sub",
            "Mul" => "mul",
            "Div" => "div",
            "Pow" => "pow",
            "Max" => "max",
            "Min" => "min",
            _ => return self.err(format!("broadcast with 'axis' in {op}")),
        };
        if let (Some(xr), Ok(k)) = (x.rank, usize::try_from(axis)) {
            let Some(pad) = xr.checked_sub(k).and_then(|r| r.checked_sub(yr)) else {
                return self.err(format!(
                    "broadcast at axis {axis}: the second operand's {yr} axes do not fit in the first's {xr}"
                ));
            };
            let y = if pad == 0 {
                y
            } else {
                let l = labels("b", yr);
                let mut out = l.clone();
                out.extend(std::iter::repeat_n("0".to_owned(), pad));
                let spec = format!("{} => {}", l.join(","), out.join(","));
                let pinned = self.pinned(&out.join(","));
                let v = self.einsum(&spec, &[&y], None, None, pinned);
                with_rank(v, Some(yr + pad))
            };
            let v = self.binary(combine, &x, &y, self.out_spec(node, 0))?;
            self.bind(node, 0, v);
            return Ok(());
        }
        check_axis(axis).map_err(|m| self.error(m))?;
        let lay = if axis >= 0 {
            let mut v = labels("a", axis as usize);
            v.extend(labels("b", yr));
            v.push("..r..".into());
            v
        } else {
            return self.err("broadcast with a negative 'axis'");
        };
        let spec = format!(
            "{}; {} => {}",
            lay.join(","),
            labels("b", yr).join(","),
            lay.join(",")
        );
        let v = self.einsum(
            &spec,
            &[&x, &y],
            None,
            Some(combine),
            self.out_spec(node, 0),
        );
        self.bind(node, 0, with_rank(v, x.rank));
        Ok(())
    }

    /// The result type of an einsum whose result axes are `axes` (labels,
    /// fixed indices `0`, a row variable): each `0` a size-1 axis, each
    /// label a fresh dimension variable, the row variable `...`. OCANNL
    /// only bounds an axis written at a fixed index from below (the index
    /// must fit): ONNX's kept or inserted axes have size 1 exactly.
    pub(super) fn pinned(&mut self, axes: &str) -> String {
        axes.split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(|a| match a {
                "0" => "1".to_owned(),
                a if a.starts_with("..") => "...".to_owned(),
                _ => self.fresh_var(),
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// How many cells of `x` each result cell of the reduction `spec`
    /// (one operand) gathers: the same reduction over [`Self::ones_like`].
    /// It has the reduction's shape exactly: a mean divides with the
    /// numerator's spec as the result's.
    pub(super) fn count(&mut self, x: &Val, spec: &str) -> R<Val> {
        let ones = self.ones_like(x);
        let out = spec.rsplit("=>").next().unwrap_or_default();
        let pinned = self.pinned(out);
        Ok(self.einsum(spec, &[&ones], None, None, pinned))
    }

    /// Ones of exactly `x`'s shape: `where(x, 1, 1)` (1 whatever `x`
    /// holds, NaN included) as an einsum whose row variable ties the
    /// result to `x` (a pointwise `where` only bounds its result from
    /// below: an axis of size 1 in `x` could widen under it).
    pub(super) fn ones_like(&mut self, x: &Val) -> Val {
        let one = self.scalar(x.elem, 1.0);
        let v = self.einsum(
            "..r..; ; => ..r..",
            &[x, &one, &one],
            None,
            Some("where"),
            "...".into(),
        );
        with_rank(v, x.rank)
    }
}

/// NumPy's broadcast of two shapes (aligned from the right, size 1
/// stretching), or why they do not broadcast.
fn broadcast(a: &[u64], b: &[u64]) -> Result<Vec<u64>, String> {
    let n = a.len().max(b.len());
    let at = |d: &[u64], i: usize| (i + d.len()).checked_sub(n).map_or(1, |k| d[k]);
    (0..n)
        .map(|i| match (at(a, i), at(b, i)) {
            (x, y) if x == y || y == 1 => Ok(x),
            (1, y) => Ok(y),
            (x, y) => Err(format!(
                "operands of shapes {a:?} and {b:?} do not broadcast (sizes {x} and {y})"
            )),
        })
        .collect()
}

pub(super) fn with_rank(mut v: Val, rank: Option<usize>) -> Val {
    if v.rank.is_none() {
        v.rank = rank;
    }
    v
}
