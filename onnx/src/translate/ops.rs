//! One ONNX node → ocannl ops. Each translation names the ONNX operator
//! semantics it follows (onnx.ai/onnx/operators); anything it does not
//! implement (an attribute value, a missing constant) is an error naming
//! the node.

use super::{Attrs, R, Translator, Val};
use crate::proto::NodeProto;
use crate::tensor::{Elem, Tensor};

/// Ops whose ONNX schema allows only floating-point tensors (onnx.ai's
/// type constraints) among the element types the importer reads: an
/// integer tensor is an invalid model, not an integer computation.
const FLOAT_ONLY: &[&str] = &[
    "Exp",
    "Log",
    "Sqrt",
    "Tanh",
    "Sin",
    "Cos",
    "Erf",
    "Sigmoid",
    "Softplus",
    "LeakyRelu",
    "Elu",
    "Gelu",
    "Reciprocal",
    "Softmax",
    "LogSoftmax",
    "LayerNormalization",
    "BatchNormalization",
    "LRN",
    "Conv",
    "MaxPool",
    "AveragePool",
    "GlobalAveragePool",
    "GlobalMaxPool",
    "Sum",
    "Mean",
    "Dropout",
];

/// The most axes the importer addresses: an axis number past it (`axis =
/// 2^40`) is an error before anything is sized by it.
pub(super) const MAX_AXES: u64 = 1024;

/// `axis` (negative: from the end) addresses at most [`MAX_AXES`] axes.
pub(super) fn check_axis(axis: i64) -> Result<(), String> {
    let reach = if axis < 0 {
        axis.unsigned_abs()
    } else {
        axis.unsigned_abs() + 1
    };
    if reach > MAX_AXES {
        return Err(format!(
            "axis {axis} is out of range (a tensor has at most {MAX_AXES} axes)"
        ));
    }
    Ok(())
}

/// `n` labels `{prefix}0, {prefix}1, ...`.
pub(super) fn labels(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

/// The einsum axes around the addressed ones: `lead` labels, the row
/// variable `..r..` (when the rank is not known), `trail` labels. With a
/// known rank every axis is a label.
pub(super) struct Layout {
    pub(super) axes: Vec<String>,
    /// Which of `axes` are addressed.
    pub(super) selected: Vec<bool>,
}

impl Layout {
    /// The layout for `axes` (ONNX axis numbers, negative from the end).
    pub(super) fn new(axes: &[i64], rank: Option<usize>) -> Result<Self, String> {
        for &a in axes {
            check_axis(a)?;
        }
        if let Some(r) = rank {
            let mut selected = vec![false; r];
            for &a in axes {
                let k = if a < 0 { a + r as i64 } else { a };
                if k < 0 || k >= r as i64 {
                    return Err(format!("axis {a} is out of range for rank {r}"));
                }
                if std::mem::replace(&mut selected[k as usize], true) {
                    return Err(format!("axis {a} is given twice in {axes:?}"));
                }
            }
            return Ok(Self {
                axes: labels("a", r),
                selected,
            });
        }
        let lead = axes
            .iter()
            .filter(|&&a| a >= 0)
            .map(|&a| a as usize + 1)
            .max()
            .unwrap_or(0);
        let trail = axes
            .iter()
            .filter(|&&a| a < 0)
            .map(|&a| (-a) as usize)
            .max()
            .unwrap_or(0);
        let mut out = labels("a", lead);
        let mut selected = vec![false; lead];
        out.push("..r..".into());
        selected.push(false);
        for j in (1..=trail).rev() {
            out.push(format!("z{j}"));
            selected.push(false);
        }
        let n = out.len();
        for &a in axes {
            let k = if a >= 0 {
                a as usize
            } else {
                n - (-a) as usize
            };
            selected[k] = true;
        }
        Ok(Self {
            axes: out,
            selected,
        })
    }

    /// The spec with each selected axis replaced by `f(label)` (`None`:
    /// dropped).
    pub(super) fn map(&self, mut f: impl FnMut(&str) -> Option<String>) -> String {
        self.axes
            .iter()
            .zip(&self.selected)
            .filter_map(|(a, &s)| if s { f(a) } else { Some(a.clone()) })
            .collect::<Vec<_>>()
            .join(",")
    }

    pub(super) fn all(&self) -> String {
        self.axes.join(",")
    }

    pub(super) fn rank_after(&self, keep: bool) -> Option<usize> {
        if self.axes.iter().any(|a| a.starts_with("..")) {
            return None;
        }
        Some(if keep {
            self.axes.len()
        } else {
            self.selected.iter().filter(|s| !**s).count()
        })
    }
}

impl Translator {
    pub(super) fn translate_node(&mut self, node: &NodeProto) -> R<()> {
        let op = node.op_type.as_deref().unwrap_or("");
        if node
            .domain
            .as_deref()
            .is_some_and(|d| !d.is_empty() && d != "ai.onnx")
        {
            return self.err(format!(
                "the domain '{}' is not supported",
                node.domain.as_deref().unwrap_or("")
            ));
        }
        let Some(allowed) = super::attrs::known(op) else {
            return self.err(format!("the op {op} is not supported"));
        };
        super::attrs::check(op, allowed, node).map_err(|m| self.error(m))?;
        if FLOAT_ONLY.contains(&op)
            && let Some(first) = node.input.first().filter(|n| !n.is_empty())
        {
            let x = self.value(first)?;
            if !x.elem.is_float() {
                return self.err(format!(
                    "{op} takes floating-point tensors, input #0 is {}",
                    x.elem.mlir()
                ));
            }
        }
        let a = Attrs::of(node);
        // Opset 6 (PyTorch's old exports): `broadcast = 1` with `axis`
        // aligns the second operand at `axis` instead of at the end.
        if a.int("broadcast") == Some(1) && a.int("axis").is_some() && op != "Gemm" {
            return self.broadcast_at_axis(node, op, a.int("axis").unwrap_or(0));
        }
        match op {
            "Add" | "Sub" | "Mul" | "Div" | "Pow" => {
                let (x, y) = (self.input(node, 0)?, self.input(node, 1)?);
                let name = match op {
                    "Add" => "add",
                    "Sub" => "sub",
                    "Mul" => "mul",
                    "Div" => "div",
                    _ => "pow",
                };
                let v = self.binary(name, &x, &y, self.out_spec(node, 0))?;
                self.bind(node, 0, v);
            }
            "Max" | "Min" | "Sum" | "Mean" => {
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
            }
            "Relu" | "Exp" | "Log" | "Sqrt" | "Tanh" | "Abs" | "Neg" | "Reciprocal" | "Sin"
            | "Cos" | "Erf" | "Identity" | "Dropout" => {
                // Dropout's mask (all ones in inference, a bool tensor) is
                // not computed: reading it is an error naming this node.
                if let Some(mask) = node.output.get(1).filter(|m| !m.is_empty()) {
                    let here = self.error("").nodes[0].to_string();
                    let why = format!("{here}: Dropout's mask output is not supported");
                    self.undefined.insert(mask.clone(), why);
                }
                if op == "Dropout" && node.input.len() > 2 && !node.input[2].is_empty() {
                    match self.const_input(node, 2)?.and_then(|t| t.to_f64()) {
                        Some(v) if v.first() == Some(&0.0) => {}
                        _ => return self.err("Dropout in training mode is not supported"),
                    }
                }
                let x = self.input(node, 0)?;
                let name = match op {
                    "Reciprocal" => "recip",
                    "Identity" | "Dropout" => "identity",
                    _ => &op.to_ascii_lowercase(),
                };
                let v = self.unary(name, &x, self.out_spec(node, 0));
                self.bind(node, 0, v);
            }
            "Sigmoid" => {
                // 1 / (1 + exp(-x)).
                let x = self.input(node, 0)?;
                let n = self.unary("neg", &x, "...".into());
                let e = self.unary("exp", &n, "...".into());
                let one = self.scalar(x.elem, 1.0);
                let d = self.binary("add", &e, &one, "...".into())?;
                let v = self.unary("recip", &d, self.out_spec(node, 0));
                self.bind(node, 0, v);
            }
            "Softplus" => {
                // log(exp(x) + 1) without overflow: relu(x) + log(1 +
                // exp(-|x|)) (onnxruntime's form; exp(100) is inf in f32).
                let x = self.input(node, 0)?;
                let ab = self.unary("abs", &x, "...".into());
                let na = self.unary("neg", &ab, "...".into());
                let e = self.unary("exp", &na, "...".into());
                let one = self.scalar(x.elem, 1.0);
                let d = self.binary("add", &e, &one, "...".into())?;
                let l = self.unary("log", &d, "...".into());
                let r = self.unary("relu", &x, "...".into());
                let v = self.binary("add", &r, &l, self.out_spec(node, 0))?;
                self.bind(node, 0, v);
            }
            "LeakyRelu" | "Elu" => {
                // x where x >= 0, else alpha * x (LeakyRelu) or alpha *
                // (exp(x) - 1) (Elu): a `where` on relu(-x) != 0, so that
                // no alpha (0, inf, NaN, huge) reaches the kept side, as a
                // sum of both sides would (inf * 0 is NaN).
                let x = self.input(node, 0)?;
                let default = if op == "Elu" { 1.0 } else { 0.01 };
                let alpha = f64::from(a.float("alpha").unwrap_or(default));
                let nx = self.unary("neg", &x, "...".into());
                let below = self.unary("relu", &nx, "...".into());
                let base = if op == "Elu" {
                    let e = self.unary("exp", &x, "...".into());
                    let one = self.scalar(x.elem, 1.0);
                    self.binary("sub", &e, &one, "...".into())?
                } else {
                    x.clone()
                };
                let al = self.scalar(x.elem, alpha);
                let scaled = self.binary("mul", &base, &al, "...".into())?;
                // Every operand is `x`'s shape.
                let v = self.ternary("where", &below, &scaled, &x, x.spec.clone())?;
                self.bind(node, 0, v);
            }
            "Gelu" => {
                let x = self.input(node, 0)?;
                let v = match a.string("approximate").as_deref().unwrap_or("none") {
                    "none" => {
                        // x / 2 * (1 + erf(x / sqrt(2))).
                        let s = self.scalar(x.elem, std::f64::consts::FRAC_1_SQRT_2);
                        let xs = self.binary("mul", &x, &s, "...".into())?;
                        let e = self.unary("erf", &xs, "...".into());
                        self.gelu_tail(&x, &e, node)?
                    }
                    "tanh" => {
                        // x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))).
                        let c = self.scalar(x.elem, 0.044715);
                        let x2 = self.binary("mul", &x, &x, "...".into())?;
                        let x3 = self.binary("mul", &x2, &x, "...".into())?;
                        let cx3 = self.binary("mul", &x3, &c, "...".into())?;
                        let inner = self.binary("add", &x, &cx3, "...".into())?;
                        let k = self.scalar(x.elem, (2.0 / std::f64::consts::PI).sqrt());
                        let ki = self.binary("mul", &inner, &k, "...".into())?;
                        let t = self.unary("tanh", &ki, "...".into());
                        self.gelu_tail(&x, &t, node)?
                    }
                    other => return self.err(format!("Gelu approximate='{other}'")),
                };
                self.bind(node, 0, v);
            }
            "Clip" => {
                // Bounds from attributes (before opset 11) or from inputs
                // (scalar tensors, constant or not).
                let x = self.input(node, 0)?;
                let (mut lo, mut hi) = if self.opset < 11 {
                    let c =
                        |t: &mut Self, v: Option<f32>| v.map(|v| t.scalar(x.elem, f64::from(v)));
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
            }
            "Constant" => {
                let t = if let Some(t) = a.tensor("value") {
                    Tensor::decode(t).map_err(|m| self.error(m))?
                } else if let Some(f) = a.float("value_float") {
                    float_tensor(&[], &[f])
                } else if let Some(fs) = Attrs::of(node).floats("value_floats") {
                    float_tensor(&[fs.len() as u64], &fs)
                } else if let Some(i) = a.int("value_int") {
                    int_tensor(&[], &[i])
                } else if let Some(is) = a.ints("value_ints") {
                    int_tensor(&[is.len() as u64], &is)
                } else {
                    return self.err("Constant needs a value");
                };
                if let Some(name) = node.output.first() {
                    self.consts.insert(name.clone(), t);
                }
            }
            "ConstantOfShape" => {
                let dims = self.const_ints(node, 0)?.unwrap_or_default();
                let (elem, v) = match a.tensor("value") {
                    Some(t) => {
                        let t = Tensor::decode(t).map_err(|m| self.error(m))?;
                        let e = Elem::of_onnx(t.data_type).map_err(|m| self.error(m))?;
                        if t.len() != 1 {
                            return self.err(format!(
                                "'value' must hold one element, it holds {}",
                                t.len()
                            ));
                        }
                        (e, t.scalar_attr(e))
                    }
                    None => (Elem::F32, Elem::F32.scalar_attr(0.0)),
                };
                if dims.contains(&0) {
                    return self.err(format!(
                        "ConstantOfShape to {dims:?}: empty tensors (a size-0 axis) are not supported"
                    ));
                }
                if dims.len() as u64 > MAX_AXES {
                    return self.err(format!(
                        "ConstantOfShape to {} axes, more than {MAX_AXES}",
                        dims.len()
                    ));
                }
                if dims.iter().any(|&d| d < 0) {
                    return self.err(format!(
                        "ConstantOfShape to {dims:?}: sizes must not be negative"
                    ));
                }
                let dims: Vec<u64> = dims.iter().map(|&d| d as u64).collect();
                let v = self.fill_attr(elem, &dims, &v);
                self.bind(node, 0, v);
            }
            "Conv" => self.conv(node)?,
            "MaxPool" | "AveragePool" => self.pool(node, op == "MaxPool")?,
            "GlobalAveragePool" | "GlobalMaxPool" => {
                let x = self.input(node, 0)?;
                let Some(rank) = x.rank else {
                    return self.err(format!(
                        "{op} needs its input's rank, which is not known here"
                    ));
                };
                if rank < 2 {
                    return self.err(format!("{op} needs a rank of at least 2"));
                }
                let sp = labels("h", rank - 2);
                let out = format!("n,c,{}", vec!["0"; rank - 2].join(","));
                let spec = format!("n,c,{} => {out}", sp.join(","));
                let v = if op == "GlobalMaxPool" {
                    let pinned = self.pinned(&out);
                    self.einsum(&spec, &[&x], Some("max"), None, pinned)
                } else {
                    let pinned = self.pinned(&out);
                    let s = self.einsum(&spec, &[&x], None, None, pinned);
                    let count = self.count(&x, &spec)?;
                    self.binary("div", &s, &count, s.spec.clone())?
                };
                self.bind(node, 0, with_rank(v, Some(rank)));
            }
            "Gemm" => self.gemm(node)?,
            "MatMul" => self.matmul(node)?,
            "BatchNormalization" => self.batch_norm(node)?,
            "LRN" => self.lrn(node)?,
            "Softmax" | "LogSoftmax" => self.softmax(node, op == "LogSoftmax")?,
            "LayerNormalization" => self.layer_norm(node)?,
            "Concat" => self.concat(node)?,
            "Reshape" => self.reshape(node)?,
            "Flatten" => self.flatten(node)?,
            "Transpose" => {
                let x = self.input(node, 0)?;
                let perm: Vec<i64> = match a.ints("perm") {
                    Some(p) => p,
                    None => match x.rank {
                        Some(r) => (0..r as i64).rev().collect(),
                        None => return self.err("Transpose without 'perm' needs its input's rank"),
                    },
                };
                let r = perm.len();
                if r as u64 > MAX_AXES {
                    return self.err(format!("'perm' of {r} axes, more than {MAX_AXES}"));
                }
                let mut seen = vec![false; r];
                for &p in &perm {
                    if p < 0 || p as usize >= r || std::mem::replace(&mut seen[p as usize], true) {
                        return self.err(format!("'perm' {perm:?} is not a permutation"));
                    }
                }
                let l = labels("a", r);
                let out: Vec<&str> = perm.iter().map(|&p| l[p as usize].as_str()).collect();
                let spec = format!("{} => {}", l.join(","), out.join(","));
                let v = self.einsum(&spec, &[&x], None, None, self.out_spec(node, 0));
                self.bind(node, 0, with_rank(v, Some(r)));
            }
            "Squeeze" | "Unsqueeze" => {
                let x = self.input(node, 0)?;
                let axes = match a.ints("axes") {
                    Some(v) => v,
                    None => self.const_ints(node, 1)?.unwrap_or_default(),
                };
                if axes.is_empty() {
                    return self.err(format!("{op} without axes is not supported"));
                }
                if axes.len() as u64 > MAX_AXES {
                    return self.err(format!("{} axes, more than {MAX_AXES}", axes.len()));
                }
                let v = if op == "Squeeze" {
                    let lay = Layout::new(&axes, x.rank).map_err(|m| self.error(m))?;
                    if let Some(d) = &x.shape {
                        for (k, _) in lay.selected.iter().enumerate().filter(|(_, s)| **s) {
                            if d[k] != 1 {
                                return self.err(format!(
                                    "Squeeze of axis {k}, of size {} (only axes of size 1 squeeze)",
                                    d[k]
                                ));
                            }
                        }
                    }
                    // The squeezed axes summed against a size-1 tensor of
                    // ones (`s`): their size must be 1, known or not.
                    let sq = labels("s", lay.selected.iter().filter(|s| **s).count());
                    let mut n = 0;
                    let xs = lay.map(|_| {
                        n += 1;
                        Some(sq[n - 1].clone())
                    });
                    let ones = self.fill(
                        x.elem,
                        &vec![1; lay.selected.iter().filter(|s| **s).count()],
                        1.0,
                    );
                    let spec = format!("{xs}; {} => {}", sq.join(","), lay.map(|_| None));
                    let v = self.einsum(&spec, &[&x, &ones], None, None, self.out_spec(node, 0));
                    with_rank(v, lay.rank_after(false))
                } else {
                    // The axes index the result.
                    let out_rank = x.rank.map(|r| r + axes.len());
                    let lay = Layout::new(&axes, out_rank).map_err(|m| self.error(m))?;
                    let out = lay.map(|_| Some("0".into()));
                    let spec = format!("{} => {out}", lay.map(|_| None));
                    let pinned = self.pinned(&out);
                    let v = self.einsum(&spec, &[&x], None, None, pinned);
                    with_rank(v, out_rank)
                };
                self.bind(node, 0, v);
            }
            "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" => self.reduce(node, op)?,
            "Gather" => self.gather(node)?,
            "Split" => self.split(node)?,
            _ => return self.err(format!("the op {op} is not supported")),
        }
        Ok(())
    }

    fn gelu_tail(&mut self, x: &Val, t: &Val, node: &NodeProto) -> R<Val> {
        let one = self.scalar(x.elem, 1.0);
        let s = self.binary("add", t, &one, "...".into())?;
        let half = self.scalar(x.elem, 0.5);
        let hx = self.binary("mul", x, &half, "...".into())?;
        self.binary("mul", &hx, &s, self.out_spec(node, 0))
    }

    /// A pointwise binary op (NumPy broadcasting is the output row's).
    pub(super) fn binary(&mut self, name: &str, x: &Val, y: &Val, spec: String) -> R<Val> {
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
        let v = self.emit(name, &[x, y], "", x.elem, spec, shape);
        Ok(with_rank(v, rank))
    }

    /// A pointwise unary op; `identity` is a one-operand einsum copy. ONNX's
    /// result has exactly the operand's shape: the result type names the
    /// operand's (OCANNL's `Pointwise_un` only bounds it from below, and an
    /// axis of size 1 could widen).
    pub(super) fn unary(&mut self, name: &str, x: &Val, spec: String) -> Val {
        let spec = if spec == "..." { x.spec.clone() } else { spec };
        let mut v = if name == "identity" {
            self.einsum("..r.. => ..r..", &[x], None, None, spec)
        } else {
            self.emit(name, &[x], "", x.elem, spec, x.shape.clone())
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
        Ok(with_rank(v, rank))
    }

    /// Opset-6 `broadcast = 1, axis = k`: `y`'s axes line up with `x`'s
    /// from `k` on. With `x`'s rank known, `y` gains the size-1 axes that
    /// put its last axis on `x`'s and the op broadcasts the NumPy way (size
    /// 1 broadcasting too); otherwise an einsum whose `x` axes before `k`
    /// and after `y`'s are free (sizes must then match exactly).
    fn broadcast_at_axis(&mut self, node: &NodeProto, op: &str, axis: i64) -> R<()> {
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

fn float_tensor(dims: &[u64], v: &[f32]) -> Tensor {
    Tensor {
        data_type: crate::proto::tensor_proto::DataType::Float as i32,
        dims: dims.to_vec(),
        bytes: v.iter().flat_map(|f| f.to_le_bytes()).collect(),
    }
}

fn int_tensor(dims: &[u64], v: &[i64]) -> Tensor {
    Tensor {
        data_type: crate::proto::tensor_proto::DataType::Int64 as i32,
        dims: dims.to_vec(),
        bytes: v.iter().flat_map(|f| f.to_le_bytes()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::Layout;

    #[test]
    fn layouts_name_axes_around_a_row_variable() {
        // Unknown rank: leading labels for non-negative axes, trailing for
        // negative ones, the row variable between.
        let l = Layout::new(&[1, -1], None).unwrap();
        assert_eq!(l.all(), "a0,a1,..r..,z1");
        assert_eq!(l.map(|_| None), "a0,..r..");
        assert_eq!(l.map(|_| Some("0".into())), "a0,0,..r..,0");
        assert_eq!(l.rank_after(false), None);
        // Known rank: every axis named, negative axes normalised.
        let l = Layout::new(&[-1], Some(3)).unwrap();
        assert_eq!(l.all(), "a0,a1,a2");
        assert_eq!(l.map(|_| None), "a0,a1");
        assert_eq!(l.rank_after(false), Some(2));
        assert_eq!(l.rank_after(true), Some(3));
        assert!(Layout::new(&[3], Some(3)).is_err());
        assert!(Layout::new(&[-4], Some(3)).is_err());
    }
}
