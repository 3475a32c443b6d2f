//! Well-formed random ONNX models: a few graph inputs of small random
//! shapes (f32), then a chain of nodes from the importer's op set, each
//! built by ONNX's own shape rules so that onnxruntime accepts the model;
//! initializers hold the weights, shapes, axes and indices.
//!
//! The builder and its dispatcher are here; the nodes of each op family
//! are built in a submodule: `elementwise`, `linear`, `window`, `norm`,
//! `layout`, and (dispatched by `extra`) `typed` (casts, comparisons,
//! logic, bitwise), `functions` (trig, activations), `slicing` (Slice,
//! Pad, Expand, Tile, Trilu, ...), `norms` (more reductions and
//! normalizations), `compound` (Einsum, ConvTranspose, Resize),
//! `recurrent` (RNN, GRU, LSTM), `shapes` (shape computations, Range,
//! run-time Gather, If); `protos` makes the prost messages.

mod compound;
mod elementwise;
mod extra;
mod functions;
mod integer;
mod layout;
mod linear;
mod norm;
mod norms;
mod protos;
mod recurrent;
mod scan;
mod scatter;
mod shapes;
mod slicing;
mod stateful;
mod typed;
mod window;

pub use protos::{
    attr_f, attr_i, attr_ints, attr_s, attr_t, f32_tensor, i64_tensor, int_tensor, value_info,
};

use crate::rng::Rng;
use ocannl_onnx::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto,
    ValueInfoProto, tensor_proto::DataType,
};

/// The default-domain opsets generated models declare (the op families'
/// rules follow each: axes as inputs from 13 (Reduce* but ReduceSum from
/// 18), `num_outputs` from 18, Gelu from 20).
pub const OPSETS: &[i64] = &[13, 14, 15, 17, 18, 19, 20, 21, 22, 23];

/// The largest number of cells of a generated value.
const MAX_CELLS: i64 = 4096;

/// A value the graph has computed so far.
#[derive(Debug, Clone)]
struct Value {
    name: String,
    shape: Vec<i64>,
}

/// Builds one model.
pub struct Builder<'r> {
    rng: &'r mut Rng,
    /// The declared default-domain opset.
    pub opset: i64,
    nodes: Vec<NodeProto>,
    inits: Vec<TensorProto>,
    inputs: Vec<ValueInfoProto>,
    values: Vec<Value>,
    /// The values whose cells are exact (graph inputs, integer results):
    /// what discontinuous ops (comparisons, rounding) may take without a
    /// rounding difference flipping their result.
    exact: Vec<String>,
    next: usize,
}

fn cells(shape: &[i64]) -> i64 {
    shape.iter().product()
}

/// NumPy's broadcast of two shapes, if they are compatible.
pub fn broadcast(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

impl<'r> Builder<'r> {
    /// `axes` of a tensor of rank `rank` as an axes list, each counted from
    /// the end (negative) 30% of the time.
    pub(super) fn axes_list(&mut self, axes: &[usize], rank: usize) -> Vec<i64> {
        axes.iter()
            .map(|&a| {
                if self.rng.chance(0.3) {
                    a as i64 - rank as i64
                } else {
                    a as i64
                }
            })
            .collect()
    }

    /// A builder for a model of opset `opset`.
    pub fn new(rng: &'r mut Rng, opset: i64) -> Self {
        Builder {
            rng,
            opset,
            nodes: Vec::new(),
            inits: Vec::new(),
            inputs: Vec::new(),
            values: Vec::new(),
            exact: Vec::new(),
            next: 0,
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    fn floats(&mut self, n: i64, lo: f32, hi: f32) -> Vec<f32> {
        (0..n)
            .map(|_| {
                let u = (self.rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
                // Rounded to 1/64 so that the data prints exactly.
                ((lo + (hi - lo) * u) * 64.0).round() / 64.0
            })
            .collect()
    }

    fn init_f32(&mut self, shape: &[i64], lo: f32, hi: f32) -> String {
        let name = self.fresh("w");
        let data = self.floats(cells(shape), lo, hi);
        let raw = self.rng.chance(0.3);
        self.inits.push(f32_tensor(&name, shape, data, raw));
        name
    }

    fn init_i64(&mut self, data: Vec<i64>, scalar: bool) -> String {
        let name = self.fresh("c");
        let dims = if scalar {
            vec![]
        } else {
            vec![data.len() as i64]
        };
        let raw = self.rng.chance(0.3);
        self.inits.push(i64_tensor(&name, &dims, data, raw));
        name
    }

    fn node(
        &mut self,
        op: &str,
        inputs: Vec<String>,
        outputs: Vec<String>,
        attrs: Vec<AttributeProto>,
    ) {
        let name = format!("n{}_{op}", self.nodes.len());
        self.nodes.push(NodeProto {
            name: Some(name),
            op_type: Some(op.into()),
            input: inputs,
            output: outputs,
            attribute: attrs,
            ..Default::default()
        });
    }

    /// One node with one output of `shape`; the output joins the values.
    fn node1(
        &mut self,
        op: &str,
        inputs: Vec<String>,
        attrs: Vec<AttributeProto>,
        shape: Vec<i64>,
    ) -> String {
        let out = self.fresh("v");
        self.node(op, inputs, vec![out.clone()], attrs);
        self.values.push(Value {
            name: out.clone(),
            shape,
        });
        out
    }

    fn random_shape(&mut self, rank: usize, max_dim: u64) -> Vec<i64> {
        let mut s: Vec<i64> = (0..rank)
            .map(|_| self.rng.range(1, max_dim) as i64)
            .collect();
        while cells(&s) > MAX_CELLS {
            let i = self.rng.index(s.len());
            s[i] = (s[i] / 2).max(1);
        }
        s
    }

    fn add_input(&mut self, shape: Vec<i64>) -> Value {
        let name = self.fresh("x");
        self.inputs
            .push(value_info(&name, DataType::Float as i32, Some(&shape)));
        self.exact.push(name.clone());
        let v = Value { name, shape };
        self.values.push(v.clone());
        v
    }

    /// A value to operate on: mostly one of the latest.
    fn pick(&mut self, want: impl Fn(&[i64]) -> bool) -> Option<Value> {
        let ok: Vec<&Value> = self.values.iter().filter(|v| want(&v.shape)).collect();
        if ok.is_empty() {
            return None;
        }
        let i = if self.rng.chance(0.7) {
            ok.len() - 1 - self.rng.index(ok.len().min(2))
        } else {
            self.rng.index(ok.len())
        };
        Some(ok[i].clone())
    }

    /// An axis of a rank-`r` tensor, negative half the time.
    fn axis(&mut self, r: usize) -> (i64, usize) {
        let a = self.rng.index(r);
        if self.rng.chance(0.4) {
            (a as i64 - r as i64, a)
        } else {
            (a as i64, a)
        }
    }

    /// Builds the whole model.
    pub fn build(mut self) -> ModelProto {
        let image = self.rng.chance(0.45);
        let first = if image {
            let spatial = if self.rng.chance(0.8) { 2 } else { 1 };
            let mut s = vec![self.rng.range(1, 2) as i64, self.rng.range(1, 4) as i64];
            for _ in 0..spatial {
                s.push(self.rng.range(3, 9) as i64);
            }
            s
        } else {
            let rank = self.rng.index(5);
            self.random_shape(rank, 5)
        };
        let x = self.add_input(first.clone());
        if self.rng.chance(0.3) {
            // A second input that broadcasts against the first.
            let s: Vec<i64> = x
                .shape
                .iter()
                .skip(self.rng.index(x.shape.len() + 1))
                .map(|&d| if self.rng.chance(0.3) { 1 } else { d })
                .collect();
            self.add_input(s);
        }
        let steps = self.rng.range(1, 6);
        for _ in 0..steps {
            for _attempt in 0..8 {
                if self.step() {
                    break;
                }
            }
        }
        // Outputs: the last value, sometimes another.
        let mut outs = vec![self.values.last().expect("an input").clone()];
        if self.values.len() > 2 && self.rng.chance(0.3) {
            let v = self.values[self.rng.index(self.values.len() - 1)].clone();
            if !self
                .inputs
                .iter()
                .any(|i| i.name.as_deref() == Some(&v.name))
            {
                outs.push(v);
            }
        }
        let declare = self.rng.weighted(&[5, 3, 1]);
        let output: Vec<ValueInfoProto> = outs
            .iter()
            .map(|v| match declare {
                0 => value_info(&v.name, DataType::Float as i32, Some(&v.shape)),
                1 => value_info(&v.name, DataType::Float as i32, None),
                _ => ValueInfoProto {
                    name: Some(v.name.clone()),
                    ..Default::default()
                },
            })
            .collect();
        let mut value_info_list = Vec::new();
        if self.rng.chance(0.3) {
            for v in &self.values {
                if !self
                    .inputs
                    .iter()
                    .any(|i| i.name.as_deref() == Some(&v.name))
                    && !outs.iter().any(|o| o.name == v.name)
                {
                    value_info_list.push(value_info(
                        &v.name,
                        DataType::Float as i32,
                        Some(&v.shape),
                    ));
                }
            }
        }
        ModelProto {
            ir_version: Some(match self.opset {
                23.. => 11,
                21.. => 10,
                _ => 8,
            }),
            producer_name: Some("ocannl-fuzz".into()),
            opset_import: vec![OperatorSetIdProto {
                domain: Some(String::new()),
                version: Some(self.opset),
            }],
            graph: Some(GraphProto {
                name: Some("fuzz".into()),
                node: self.nodes,
                initializer: self.inits,
                input: self.inputs,
                output,
                value_info: value_info_list,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// Adds one node (or a few); false when the op drawn does not apply.
    fn step(&mut self) -> bool {
        const OPS: &[(&str, u32)] = &[
            ("unary", 10),
            ("binary", 12),
            ("matmul", 5),
            ("gemm", 4),
            ("conv", 7),
            ("pool", 6),
            ("global-pool", 2),
            ("lrn", 1),
            ("batchnorm", 3),
            ("softmax", 4),
            ("layernorm", 3),
            ("concat", 4),
            ("split", 3),
            ("gather", 3),
            ("reshape", 4),
            ("flatten", 3),
            ("transpose", 4),
            ("squeeze", 3),
            ("reduce", 5),
            ("constant", 2),
            ("constant-of-shape", 1),
            ("extra", 90),
        ];
        let weights: Vec<u32> = OPS.iter().map(|o| o.1).collect();
        let kind = OPS[self.rng.weighted(&weights)].0;
        match kind {
            "unary" => self.unary(),
            "binary" => self.binary(),
            "matmul" => self.matmul(),
            "gemm" => self.gemm(),
            "conv" => self.conv(),
            "pool" => self.pool(),
            "global-pool" => self.global_pool(),
            "lrn" => self.lrn(),
            "batchnorm" => self.batchnorm(),
            "softmax" => self.softmax(),
            "layernorm" => self.layernorm(),
            "concat" => self.concat(),
            "split" => self.split(),
            "gather" => self.gather(),
            "reshape" => self.reshape(),
            "flatten" => self.flatten(),
            "transpose" => self.transpose(),
            "squeeze" => self.squeeze(),
            "reduce" => self.reduce(),
            "constant" => self.constant(),
            "extra" => self.extra(),
            _ => self.constant_of_shape(),
        }
    }
}

/// A well-formed model from `rng`.
pub fn well_formed(rng: &mut Rng) -> ModelProto {
    let opset = *rng.pick(OPSETS);
    Builder::new(rng, opset).build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(broadcast(&[2, 3], &[3]), Some(vec![2, 3]));
        assert_eq!(broadcast(&[2, 1], &[1, 4]), Some(vec![2, 4]));
        assert_eq!(broadcast(&[], &[5]), Some(vec![5]));
        assert_eq!(broadcast(&[2, 3], &[2]), None);
    }
}
