//! Per-channel affine ops folded into the product before them, at import
//! (before translation): a `BatchNormalization` in inference form, a `Mul`
//! by a per-channel constant or an `Add` of one, after a `Conv`,
//! `ConvTranspose`, `Gemm` or `MatMul` with constant weights, whose output
//! they alone read, become that product's weights and bias: `y * s + t`
//! with `W' = W * s` along the output channels and `B' = B * s + t`.
//!
//! The model is onnxruntime's graph transformers `ConvBNFusion`,
//! `ConvMulFusion` and `ConvAddFusion` (and `MatMulBNFusion`,
//! `onnxruntime/core/optimizer/`): the same conditions (constant
//! parameters, one consumer, not a graph output), the same arithmetic.
//! Here `s` and `t` are composed in `f64` along the whole chain and the
//! new weights rounded once to their element type (`f32` or `f64`; other
//! types are not folded).
//!
//! Constants are initializers and `Constant` outputs; an initializer that
//! is also listed as a graph input is one too, as the translation binds
//! it (never an argument of `@main`). A chain of Adds alone after a
//! `MatMul` is left as it is (there is no bias to merge them into).
//!
//! Folding is an optimisation, never a check: any condition unmet (a
//! parameter computed at run time, a second reader, a type, shape or
//! attribute the translation would refuse, a non-finite result) leaves the
//! nodes as they are, for the translation to import or refuse. The folded
//! product keeps its node's name and position (the locations of its ops);
//! the nodes folded into it produce nothing.

mod rewrite;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::Attrs;
use crate::Graph;
use crate::proto::NodeProto;
use crate::proto::tensor_proto::DataType as D;
use crate::tensor::Tensor;

/// What folding changes: nodes dropped, nodes replaced, constants added.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// Positions (in `Graph::nodes`) of the nodes folded into a product.
    pub(super) removed: HashSet<usize>,
    /// The products whose weights changed (by position): the nodes that
    /// take their place (a `MatMul` and the `Add` of its bias for a
    /// `MatMul`, else one node), producing the chain's last output.
    pub(super) replaced: HashMap<usize, Vec<NodeProto>>,
    /// The new weights and biases, by their (fresh) names.
    pub(super) consts: Vec<(String, Tensor)>,
}

/// The product a chain folds into.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// `W: [M, C/group, k...]`, `B: [M]`.
    Conv,
    /// `W: [C, M/group, k...]`, `B: [M]`.
    ConvTranspose { group: usize },
    /// `B: [K, N]` (or `[N, K]` transposed), `C` broadcast to `[M, N]`.
    Gemm { trans_b: bool, beta: f64 },
    /// `W: [K, N]`, no bias.
    MatMul,
}

/// A product whose output channels can take a per-channel affine map.
struct Product<'a> {
    kind: Kind,
    /// The weights' ONNX element type (`FLOAT` or `DOUBLE`).
    data_type: i32,
    weight: Cow<'a, Tensor>,
    /// Conv's `B`, Gemm's `C` (absent when `beta` is 0).
    bias: Option<Tensor>,
    /// The output channels (`M`, Gemm's and MatMul's `N`).
    channels: usize,
    /// The output's rank, when known.
    rank: Option<usize>,
}

impl Product<'_> {
    /// The channel axis of the output, counted from its end.
    fn channel_from_end(&self) -> usize {
        match self.kind {
            Kind::Conv | Kind::ConvTranspose { .. } => self.weight.dims.len() - 2,
            Kind::Gemm { .. } | Kind::MatMul => 0,
        }
    }
}

/// `y * scale + shift`, per channel, composed along a chain.
#[derive(Debug, Clone)]
pub(super) struct Affine {
    pub(super) scale: Vec<f64>,
    pub(super) shift: Vec<f64>,
}

impl Affine {
    fn identity(channels: usize) -> Self {
        Self {
            scale: vec![1.0; channels],
            shift: vec![0.0; channels],
        }
    }

    /// Then `* s + t`.
    fn then(&mut self, s: &[f64], t: &[f64]) {
        for m in 0..self.scale.len() {
            self.scale[m] *= s[m];
            self.shift[m] = self.shift[m] * s[m] + t[m];
        }
    }
}

/// The graph as folding reads it.
struct Scan<'g> {
    /// Initializers, decoded.
    consts: &'g HashMap<String, Tensor>,
    /// `Constant` outputs → their node.
    constant_nodes: HashMap<&'g str, &'g NodeProto>,
    /// Each value's readers, one entry per read (a subgraph's read of an
    /// outer value counts).
    uses: HashMap<String, Vec<usize>>,
    outputs: HashSet<&'g str>,
    rank: &'g dyn Fn(&str) -> Option<usize>,
}

/// Which nodes of `g` fold, and into what. `consts`: the initializers,
/// decoded; `rank`: a value's rank where the translation knows it.
pub(super) fn plan(
    g: &Graph,
    consts: &HashMap<String, Tensor>,
    rank: &dyn Fn(&str) -> Option<usize>,
) -> Plan {
    let scan = Scan::new(g, consts, rank);
    let mut names = Names::of(g);
    let mut plan = Plan::default();
    for (i, node) in g.nodes.iter().enumerate() {
        // A cheap look first: the weights are only read for a chain.
        let next = node.output.first().and_then(|o| scan.sole_reader(o));
        let foldable = |j: usize| {
            let op = g.nodes[j].op_type.as_deref().unwrap_or("");
            matches!(op, "BatchNormalization" | "Mul" | "Add")
        };
        if !next.is_some_and(foldable) {
            continue;
        }
        let Some(product) = scan.product(node) else {
            continue;
        };
        let mut affine = Affine::identity(product.channels);
        let mut out = node.output[0].as_str();
        let mut folded = Vec::new();
        while let Some(j) = scan.sole_reader(out) {
            let Some((s, t)) = scan.step(&g.nodes[j], out, &product) else {
                break;
            };
            affine.then(&s, &t);
            folded.push(j);
            out = g.nodes[j].output[0].as_str();
        }
        if folded.is_empty() {
            continue;
        }
        let Some((nodes, new)) = rewrite::rewrite(node, &product, &affine, out, &mut names) else {
            continue;
        };
        plan.removed.extend(folded);
        plan.replaced.insert(i, nodes);
        plan.consts.extend(new);
    }
    plan
}

impl<'g> Scan<'g> {
    fn new(
        g: &'g Graph,
        consts: &'g HashMap<String, Tensor>,
        rank: &'g dyn Fn(&str) -> Option<usize>,
    ) -> Self {
        let mut uses: HashMap<String, Vec<usize>> = HashMap::new();
        let mut constant_nodes = HashMap::new();
        for (i, node) in g.nodes.iter().enumerate() {
            // A subgraph's read of the graph's values is a read too.
            let outer = crate::model::outer_references(node);
            for input in node.input.iter().chain(&outer).filter(|s| !s.is_empty()) {
                uses.entry(input.clone()).or_default().push(i);
            }
            if node.op_type.as_deref() == Some("Constant")
                && let Some(out) = node.output.first()
            {
                constant_nodes.insert(out.as_str(), node);
            }
        }
        Self {
            consts,
            constant_nodes,
            uses,
            outputs: g.outputs.iter().filter_map(|v| v.name.as_deref()).collect(),
            rank,
        }
    }

    /// The one node that reads `value`, once; `None` for a graph output.
    fn sole_reader(&self, value: &str) -> Option<usize> {
        if self.outputs.contains(value) {
            return None;
        }
        match self.uses.get(value).map(Vec::as_slice) {
            Some(&[j]) => Some(j),
            _ => None,
        }
    }

    /// A constant input's data: an initializer or a `Constant`'s output.
    /// (Borrowed when it is an initializer: a model's weights are its
    /// largest tensors.)
    fn constant(&self, name: &str) -> Option<Cow<'_, Tensor>> {
        if let Some(t) = self.consts.get(name) {
            return Some(Cow::Borrowed(t));
        }
        let node = self.constant_nodes.get(name)?;
        checked(node)?;
        super::constants::constant_value(node).ok().map(Cow::Owned)
    }

    /// `node`'s input `i`, when it is a constant of the element type.
    fn param(&self, node: &NodeProto, i: usize, data_type: i32) -> Option<Tensor> {
        let name = node.input.get(i).filter(|s| !s.is_empty())?;
        self.constant(name)
            .filter(|t| t.data_type == data_type && !t.is_empty())
            .map(Cow::into_owned)
    }

    /// A product with constant float weights, whose output may fold.
    fn product(&self, node: &NodeProto) -> Option<Product<'_>> {
        let op = checked(node)?;
        if node.output.len() != 1 || node.output[0].is_empty() {
            return None;
        }
        let x = node.input.first().filter(|s| !s.is_empty())?;
        let weight = self.constant(node.input.get(1)?)?;
        let data_type = weight.data_type;
        if !is_folded_type(data_type) || weight.is_empty() {
            return None;
        }
        let bias = match node.input.get(2).filter(|s| !s.is_empty()) {
            Some(_) => Some(self.param(node, 2, data_type)?),
            None => None,
        };
        let w = &weight.dims;
        let a = Attrs::of(node);
        let (kind, channels, rank) = match op {
            "Conv" if w.len() >= 3 => (Kind::Conv, w[0], Some(w.len())),
            "ConvTranspose" if w.len() >= 3 => {
                let group = u64::try_from(a.int("group").unwrap_or(1)).ok()?;
                if group == 0 || w[0] % group != 0 {
                    return None;
                }
                let kind = Kind::ConvTranspose {
                    group: usize::try_from(group).ok()?,
                };
                (kind, w[1].checked_mul(group)?, Some(w.len()))
            }
            "Gemm" if w.len() == 2 && node.input.len() <= 3 => {
                let trans_b = a.int("transB").unwrap_or(0) != 0;
                let beta = f64::from(a.float("beta").unwrap_or(1.0));
                let kind = Kind::Gemm { trans_b, beta };
                (kind, if trans_b { w[0] } else { w[1] }, Some(2))
            }
            "MatMul" if w.len() == 2 && node.input.len() == 2 => {
                // With a 2-D weight, the output has the input's rank.
                let rank = (self.rank)(x).or_else(|| (self.rank)(&node.output[0]));
                (Kind::MatMul, w[1], rank)
            }
            _ => return None,
        };
        let channels = usize::try_from(channels).ok().filter(|&c| c > 0)?;
        let bias_fits = match (&bias, kind) {
            (None, _) => true,
            (Some(b), Kind::Conv | Kind::ConvTranspose { .. }) => b.dims == [channels as u64],
            (Some(c), Kind::Gemm { .. }) => gemm_c_fits(&c.dims, channels),
            (Some(_), Kind::MatMul) => false,
        };
        bias_fits.then(|| Product {
            bias: bias.filter(|_| !matches!(kind, Kind::Gemm { beta, .. } if beta == 0.0)),
            kind,
            data_type,
            weight,
            channels,
            rank,
        })
    }

    /// What `node`, reading `y` (the product's output), does to it as a
    /// per-channel `* s + t`, when it folds.
    fn step(&self, node: &NodeProto, y: &str, p: &Product<'_>) -> Option<(Vec<f64>, Vec<f64>)> {
        let op = checked(node)?;
        let out_ok = node.output.first().is_some_and(|o| !o.is_empty())
            && node.output.iter().skip(1).all(String::is_empty);
        if !out_ok {
            return None;
        }
        let reads_y = |i: usize| node.input.get(i).is_some_and(|s| s == y);
        match op {
            "BatchNormalization" if reads_y(0) => self.batch_norm(node, p),
            "Mul" | "Add" if node.input.len() == 2 && node.attribute.is_empty() => {
                let k = usize::from(reads_y(0));
                let c = self.param(node, k, p.data_type)?;
                let v = per_channel(&c, p)?;
                let ones = vec![1.0; p.channels];
                let zeros = vec![0.0; p.channels];
                Some(if op == "Mul" { (v, zeros) } else { (ones, v) })
            }
            _ => None,
        }
    }

    /// BatchNormalization in inference form over the product's channels:
    /// `s = scale / sqrt(var + epsilon)`, `t = bias - mean * s`.
    fn batch_norm(&self, node: &NodeProto, p: &Product<'_>) -> Option<(Vec<f64>, Vec<f64>)> {
        let a = Attrs::of(node);
        let inference = a.int("training_mode").unwrap_or(0) == 0;
        if !inference || a.int("spatial").unwrap_or(1) != 1 || node.input.len() != 5 {
            return None;
        }
        // Channels are BatchNormalization's axis 1: the product's only
        // where that is its channel axis.
        let axis_one = match p.kind {
            Kind::Conv | Kind::ConvTranspose { .. } | Kind::Gemm { .. } => true,
            Kind::MatMul => p.rank == Some(2),
        };
        if !axis_one || node.input[1..].iter().any(|s| s == &node.input[0]) {
            return None;
        }
        let mut params = Vec::with_capacity(4);
        for i in 1..5 {
            let t = self.param(node, i, p.data_type)?;
            if t.dims != [p.channels as u64] {
                return None;
            }
            params.push(t.to_f64()?);
        }
        let eps = f64::from(a.float("epsilon").unwrap_or(1e-5));
        let (scale, bias, mean, var) = (&params[0], &params[1], &params[2], &params[3]);
        let mut s = Vec::with_capacity(p.channels);
        let mut t = Vec::with_capacity(p.channels);
        for m in 0..p.channels {
            let sd = (var[m] + eps).sqrt();
            if !(sd > 0.0 && sd.is_finite()) {
                return None;
            }
            s.push(scale[m] / sd);
            t.push(bias[m] - mean[m] * s[m]);
        }
        Some((s, t))
    }
}

/// The node's op, when it is a default-domain op whose attributes the
/// translation accepts (else it is left for the translation to refuse).
fn checked(node: &NodeProto) -> Option<&str> {
    let op = node.op_type.as_deref()?;
    if node
        .domain
        .as_deref()
        .is_some_and(|d| !d.is_empty() && d != "ai.onnx")
    {
        return None;
    }
    let table = super::attrs::known(op)?;
    super::attrs::check(op, table, node).ok()?;
    Some(op)
}

/// The element types folded: `f32` and `f64`.
fn is_folded_type(data_type: i32) -> bool {
    data_type == D::Float as i32 || data_type == D::Double as i32
}

/// A Gemm's `C` that a per-column shift can join: at most 2-D, its last
/// dim `N` or 1.
fn gemm_c_fits(dims: &[u64], n: usize) -> bool {
    dims.len() <= 2 && dims.last().is_none_or(|&d| d == 1 || d == n as u64)
}

/// A constant's values per output channel, when it broadcasts only along
/// the channel axis (every other dim 1, no more axes than the output).
fn per_channel(c: &Tensor, p: &Product<'_>) -> Option<Vec<f64>> {
    let q = c.dims.len();
    // A MatMul's rank is at least 1.
    if q > p.rank.unwrap_or(1) {
        return None;
    }
    let f = p.channel_from_end();
    let mut along = false;
    for (i, &d) in c.dims.iter().enumerate() {
        let from_end = q - 1 - i;
        match d {
            1 => {}
            d if from_end == f && d == p.channels as u64 => along = true,
            _ => return None,
        }
    }
    let v = c.to_f64()?;
    Some(if along { v } else { vec![v[0]; p.channels] })
}

/// Fresh value names: none the graph uses.
pub(super) struct Names {
    taken: HashSet<String>,
}

impl Names {
    fn of(g: &Graph) -> Self {
        let mut taken: HashSet<String> = HashSet::new();
        taken.extend(g.inputs.iter().filter_map(|v| v.name.clone()));
        taken.extend(g.initializers.iter().filter_map(|t| t.name.clone()));
        for n in &g.nodes {
            taken.extend(n.input.iter().chain(&n.output).cloned());
            taken.extend(crate::model::outer_references(n));
        }
        Self { taken }
    }

    /// `base` or, when taken, `base.N` for the first free `N`.
    pub(super) fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_owned();
        let mut k = 1;
        while self.taken.contains(&name) {
            name = format!("{base}.{k}");
            k += 1;
        }
        self.taken.insert(name.clone());
        name
    }
}

#[cfg(test)]
mod tests;
