//! Well-formed random ONNX models: a few graph inputs of small random
//! shapes (f32), then a chain of nodes from the importer's op set, each
//! built by ONNX's own shape rules so that onnxruntime accepts the model;
//! initializers hold the weights, shapes, axes and indices.

use crate::rng::Rng;
use ocannl_onnx::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto,
    TensorShapeProto, TypeProto, ValueInfoProto, attribute_proto::AttributeType,
    tensor_proto::DataType, tensor_shape_proto, type_proto,
};

/// The default-domain opsets generated models declare (the rules below
/// follow each: axes as inputs from 13 (Reduce* but ReduceSum from 18),
/// `num_outputs` from 18, Gelu from 20).
pub const OPSETS: &[i64] = &[13, 14, 15, 17, 18, 19, 20, 21];

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
    next: usize,
}

/// An `f32` tensor type of known dims.
pub fn tensor_type(elem: i32, dims: Option<&[i64]>) -> TypeProto {
    TypeProto {
        value: Some(type_proto::Value::TensorType(type_proto::Tensor {
            elem_type: Some(elem),
            shape: dims.map(|d| TensorShapeProto {
                dim: d
                    .iter()
                    .map(|&n| tensor_shape_proto::Dimension {
                        value: Some(tensor_shape_proto::dimension::Value::DimValue(n)),
                        ..Default::default()
                    })
                    .collect(),
            }),
        })),
        ..Default::default()
    }
}

/// A graph input or output.
pub fn value_info(name: &str, elem: i32, dims: Option<&[i64]>) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(tensor_type(elem, dims)),
        ..Default::default()
    }
}

/// An integer attribute.
pub fn attr_i(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(v),
        ..Default::default()
    }
}

/// An integer-list attribute.
pub fn attr_ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Ints as i32),
        ints: v.to_vec(),
        ..Default::default()
    }
}

/// A float attribute.
pub fn attr_f(name: &str, v: f32) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Float as i32),
        f: Some(v),
        ..Default::default()
    }
}

/// A string attribute.
pub fn attr_s(name: &str, v: &str) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::String as i32),
        s: Some(v.as_bytes().to_vec()),
        ..Default::default()
    }
}

/// A tensor attribute.
pub fn attr_t(name: &str, t: TensorProto) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Tensor as i32),
        t: Some(t),
        ..Default::default()
    }
}

/// An `f32` tensor.
pub fn f32_tensor(name: &str, dims: &[i64], data: Vec<f32>, raw: bool) -> TensorProto {
    let mut t = TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(DataType::Float as i32),
        ..Default::default()
    };
    if raw {
        t.raw_data = Some(data.iter().flat_map(|v| v.to_le_bytes()).collect());
    } else {
        t.float_data = data;
    }
    t
}

/// An `i64` tensor.
pub fn i64_tensor(name: &str, dims: &[i64], data: Vec<i64>, raw: bool) -> TensorProto {
    let mut t = TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(DataType::Int64 as i32),
        ..Default::default()
    };
    if raw {
        t.raw_data = Some(data.iter().flat_map(|v| v.to_le_bytes()).collect());
    } else {
        t.int64_data = data;
    }
    t
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

/// The output size of a convolution or pool along one axis (`None`:
/// empty).
fn window_out(
    input: i64,
    kernel: i64,
    stride: i64,
    dil: i64,
    pads: (i64, i64),
    ceil: bool,
) -> Option<i64> {
    let eff = dil * (kernel - 1) + 1;
    let span = input + pads.0 + pads.1 - eff;
    if span < 0 {
        return None;
    }
    let out = if ceil {
        (span + stride - 1) / stride + 1
    } else {
        span / stride + 1
    };
    if ceil && (out - 1) * stride >= input + pads.0 {
        // onnxruntime's kernels drop that window, ONNX's shape inference
        // (opsets before 19) does not: a model it cannot load.
        return None;
    }
    (out >= 1).then_some(out)
}

impl<'r> Builder<'r> {
    /// A builder for a model of opset `opset`.
    pub fn new(rng: &'r mut Rng, opset: i64) -> Self {
        Builder {
            rng,
            opset,
            nodes: Vec::new(),
            inits: Vec::new(),
            inputs: Vec::new(),
            values: Vec::new(),
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
            ir_version: Some(if self.opset >= 21 { 10 } else { 8 }),
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
            _ => self.constant_of_shape(),
        }
    }

    fn unary(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let mut ops = vec![
            "Relu",
            "Sigmoid",
            "Tanh",
            "Exp",
            "Log",
            "Sqrt",
            "Abs",
            "Neg",
            "Reciprocal",
            "Sin",
            "Cos",
            "Erf",
            "Softplus",
            "Identity",
            "Dropout",
            "LeakyRelu",
            "Elu",
            "Clip",
        ];
        if self.opset >= 20 {
            ops.push("Gelu");
        }
        let op = *self.rng.pick(&ops);
        let mut inputs = vec![x.name.clone()];
        let mut attrs = Vec::new();
        match op {
            "LeakyRelu" | "Elu" if self.rng.chance(0.6) => {
                let a = self.floats(1, 0.01, 2.0)[0];
                attrs.push(attr_f("alpha", a));
            }
            "Gelu" if self.rng.chance(0.5) => attrs.push(attr_s("approximate", "tanh")),
            "Clip" => {
                let lo = self.floats(1, -1.5, 0.0)[0];
                let hi = self.floats(1, 0.0, 1.5)[0];
                match self.rng.index(4) {
                    0 => {}
                    1 => inputs.push(self.scalar_f32(lo)),
                    2 => {
                        inputs.push(String::new());
                        inputs.push(self.scalar_f32(hi));
                    }
                    _ => {
                        inputs.push(self.scalar_f32(lo));
                        inputs.push(self.scalar_f32(hi));
                    }
                }
            }
            _ => {}
        }
        self.node1(op, inputs, attrs, x.shape);
        true
    }

    fn scalar_f32(&mut self, v: f32) -> String {
        let name = self.fresh("s");
        self.inits.push(f32_tensor(&name, &[], vec![v], false));
        name
    }

    /// A second operand broadcasting against `shape`: an initializer or a
    /// Constant node's output.
    fn broadcast_operand(&mut self, shape: &[i64], lo: f32, hi: f32) -> (String, Vec<i64>) {
        let skip = self.rng.index(shape.len() + 1);
        let mut s: Vec<i64> = shape[skip..]
            .iter()
            .map(|&d| if self.rng.chance(0.3) { 1 } else { d })
            .collect();
        if self.rng.chance(0.15) && cells(shape) * 3 <= MAX_CELLS {
            s.insert(0, self.rng.range(1, 3) as i64);
            while s.len() < shape.len() + 1 {
                s.insert(1, 1);
            }
        }
        if self.rng.chance(0.2) {
            // A Constant node rather than an initializer.
            let name = self.fresh("k");
            let data = self.floats(cells(&s), lo, hi);
            let value = if s.is_empty() && self.rng.chance(0.5) {
                attr_f("value_float", data[0])
            } else {
                attr_t("value", f32_tensor("", &s, data, self.rng.chance(0.5)))
            };
            self.node("Constant", vec![], vec![name.clone()], vec![value]);
            return (name, s);
        }
        (self.init_f32(&s, lo, hi), s)
    }

    fn binary(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let op = *self.rng.pick(&[
            "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean",
        ]);
        // Another value of a compatible shape, or a new operand.
        let others: Vec<Value> = self
            .values
            .iter()
            .filter(|v| {
                v.name != x.name
                    && broadcast(&x.shape, &v.shape).is_some_and(|b| cells(&b) <= MAX_CELLS)
            })
            .cloned()
            .collect();
        let (lo, hi) = match op {
            "Pow" => (0.5, 3.0),
            "Div" => (0.5, 2.0),
            _ => (-2.0, 2.0),
        };
        let (name, shape) = if !others.is_empty() && op != "Pow" && self.rng.chance(0.4) {
            let o = self.rng.pick(&others).clone();
            (o.name, o.shape)
        } else {
            self.broadcast_operand(&x.shape, lo, hi)
        };
        let Some(mut out) = broadcast(&x.shape, &shape) else {
            return false;
        };
        let mut inputs = vec![x.name.clone(), name];
        if op != "Pow" && op != "Div" && self.rng.chance(0.3) {
            inputs.swap(0, 1);
        }
        if matches!(op, "Sum" | "Mean" | "Max" | "Min") && self.rng.chance(0.3) {
            let (n3, s3) = self.broadcast_operand(&out, -2.0, 2.0);
            out = broadcast(&out, &s3).unwrap_or(out);
            inputs.push(n3);
        }
        if matches!(op, "Sum" | "Mean" | "Max" | "Min") && self.rng.chance(0.1) {
            inputs.truncate(1);
            out = x.shape.clone();
            inputs[0] = x.name.clone();
        }
        self.node1(op, inputs, vec![], out);
        true
    }

    fn matmul(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let r = x.shape.len();
        let k = x.shape[r - 1];
        let n = self.rng.range(1, 6) as i64;
        if r == 1 && self.rng.chance(0.3) {
            // A matrix times the vector.
            let m = self.rng.range(1, 5) as i64;
            let a = self.init_f32(&[m, k], -1.0, 1.0);
            self.node1("MatMul", vec![a, x.name], vec![], vec![m]);
            return true;
        }
        let (b_shape, out): (Vec<i64>, Vec<i64>) = match self.rng.index(3) {
            0 if r >= 2 => (vec![k], x.shape[..r - 1].to_vec()),
            1 if r >= 3 => {
                let mut b = x.shape[..r - 2].to_vec();
                b.extend([k, n]);
                let mut o = x.shape[..r - 1].to_vec();
                o.push(n);
                (b, o)
            }
            _ => {
                let mut o = x.shape[..r - 1].to_vec();
                o.push(n);
                (vec![k, n], o)
            }
        };
        if cells(&out) > MAX_CELLS {
            return false;
        }
        let b = self.init_f32(&b_shape, -1.0, 1.0);
        self.node1("MatMul", vec![x.name, b], vec![], out);
        true
    }

    fn gemm(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.len() == 2) else {
            return false;
        };
        let trans_a = self.rng.chance(0.3);
        let trans_b = self.rng.chance(0.4);
        let (m, k) = if trans_a {
            (x.shape[1], x.shape[0])
        } else {
            (x.shape[0], x.shape[1])
        };
        let n = self.rng.range(1, 6) as i64;
        let b_shape = if trans_b { vec![n, k] } else { vec![k, n] };
        let b = self.init_f32(&b_shape, -1.0, 1.0);
        let mut inputs = vec![x.name, b];
        if self.rng.chance(0.7) {
            let c_shape = match self.rng.index(5) {
                0 => vec![n],
                1 => vec![1, n],
                2 => vec![m, n],
                3 => vec![m, 1],
                _ => vec![],
            };
            let c = self.init_f32(&c_shape, -1.0, 1.0);
            inputs.push(c);
        }
        let mut attrs = Vec::new();
        if trans_a {
            attrs.push(attr_i("transA", 1));
        } else if self.rng.chance(0.1) {
            attrs.push(attr_i("transA", 0));
        }
        if trans_b {
            attrs.push(attr_i("transB", 1));
        }
        if self.rng.chance(0.3) {
            let a = self.floats(1, -2.0, 2.0)[0];
            attrs.push(attr_f("alpha", a));
        }
        if self.rng.chance(0.3) {
            let b = self.floats(1, -2.0, 2.0)[0];
            attrs.push(attr_f("beta", b));
        }
        self.node1("Gemm", inputs, attrs, vec![m, n]);
        true
    }

    /// Window parameters for a conv or pool over `spatial` (None: no valid
    /// output). Returns (kernel, strides, dilations, pads, auto_pad,
    /// output spatial dims).
    #[allow(clippy::type_complexity)]
    fn window(
        &mut self,
        spatial: &[i64],
        dilations_ok: bool,
        pads_below_kernel: bool,
        ceil: bool,
    ) -> Option<(
        Vec<i64>,
        Vec<i64>,
        Vec<i64>,
        Vec<i64>,
        &'static str,
        Vec<i64>,
    )> {
        let s = spatial.len();
        let kernel: Vec<i64> = (0..s).map(|_| self.rng.range(1, 3) as i64).collect();
        let strides: Vec<i64> = (0..s).map(|_| self.rng.range(1, 2) as i64).collect();
        let dil: Vec<i64> = (0..s)
            .map(|_| {
                if dilations_ok && self.rng.chance(0.3) {
                    2
                } else {
                    1
                }
            })
            .collect();
        let auto_pad = *self.rng.pick(&[
            "NOTSET",
            "NOTSET",
            "NOTSET",
            "NOTSET",
            "SAME_UPPER",
            "SAME_LOWER",
            "VALID",
        ]);
        let mut pads = vec![0; 2 * s];
        let mut out = Vec::new();
        match auto_pad {
            "NOTSET" => {
                for i in 0..2 * s {
                    let k = kernel[i % s];
                    let max = if pads_below_kernel { k - 1 } else { 2 };
                    pads[i] = self.rng.range(0, max.max(0) as u64) as i64;
                }
                for i in 0..s {
                    out.push(window_out(
                        spatial[i],
                        kernel[i],
                        strides[i],
                        dil[i],
                        (pads[i], pads[i + s]),
                        ceil,
                    )?);
                }
            }
            "VALID" => {
                for i in 0..s {
                    out.push(window_out(
                        spatial[i],
                        kernel[i],
                        strides[i],
                        dil[i],
                        (0, 0),
                        ceil,
                    )?);
                }
            }
            _ => {
                // onnxruntime has no dilations with SAME padding.
                if ceil || dil.iter().any(|&d| d != 1) {
                    return None;
                }
                for i in 0..s {
                    let o = (spatial[i] + strides[i] - 1) / strides[i];
                    let eff = dil[i] * (kernel[i] - 1) + 1;
                    let total = (o - 1) * strides[i] + eff - spatial[i];
                    if total < 0 {
                        // onnxruntime: "padding values must be non-negative".
                        return None;
                    }
                    if pads_below_kernel && (total + 1) / 2 >= kernel[i] {
                        return None;
                    }
                    out.push(o);
                }
            }
        }
        Some((kernel, strides, dil, pads, auto_pad, out))
    }

    fn window_attrs(
        &mut self,
        kernel: &[i64],
        strides: &[i64],
        dil: Option<&[i64]>,
        pads: &[i64],
        auto_pad: &str,
        kernel_required: bool,
    ) -> Vec<AttributeProto> {
        let mut attrs = Vec::new();
        if kernel_required || self.rng.chance(0.5) {
            attrs.push(attr_ints("kernel_shape", kernel));
        }
        if strides.iter().any(|&s| s != 1) || self.rng.chance(0.3) {
            attrs.push(attr_ints("strides", strides));
        }
        if let Some(d) = dil
            && (d.iter().any(|&x| x != 1) || self.rng.chance(0.2))
        {
            attrs.push(attr_ints("dilations", d));
        }
        if auto_pad == "NOTSET" {
            if pads.iter().any(|&p| p != 0) || self.rng.chance(0.3) {
                attrs.push(attr_ints("pads", pads));
            }
            if self.rng.chance(0.1) {
                attrs.push(attr_s("auto_pad", "NOTSET"));
            }
        } else {
            attrs.push(attr_s("auto_pad", auto_pad));
        }
        attrs
    }

    fn conv(&mut self) -> bool {
        let Some(x) = self.pick(|s| (3..=5).contains(&s.len())) else {
            return false;
        };
        let c = x.shape[1];
        let divisors: Vec<i64> = (1..=c).filter(|g| c % g == 0).collect();
        let group = if self.rng.chance(0.4) {
            *self.rng.pick(&divisors)
        } else {
            1
        };
        let m = group * self.rng.range(1, 3) as i64;
        let Some((kernel, strides, dil, pads, auto_pad, spatial)) =
            self.window(&x.shape[2..], true, false, false)
        else {
            return false;
        };
        let mut out = vec![x.shape[0], m];
        out.extend(&spatial);
        if cells(&out) > MAX_CELLS {
            return false;
        }
        let mut w_shape = vec![m, c / group];
        w_shape.extend(&kernel);
        let w = self.init_f32(&w_shape, -1.0, 1.0);
        let mut inputs = vec![x.name, w];
        if self.rng.chance(0.5) {
            inputs.push(self.init_f32(&[m], -1.0, 1.0));
        }
        let mut attrs = self.window_attrs(&kernel, &strides, Some(&dil), &pads, auto_pad, false);
        if group != 1 || self.rng.chance(0.1) {
            attrs.push(attr_i("group", group));
        }
        self.node1("Conv", inputs, attrs, out);
        true
    }

    fn pool(&mut self) -> bool {
        let Some(x) = self.pick(|s| (3..=5).contains(&s.len())) else {
            return false;
        };
        let max = self.rng.chance(0.5);
        let ceil = self.rng.chance(0.25);
        let dil_ok = max || self.opset >= 19;
        let Some((kernel, strides, dil, pads, auto_pad, spatial)) =
            self.window(&x.shape[2..], dil_ok, true, ceil)
        else {
            return false;
        };
        let mut out = x.shape[..2].to_vec();
        out.extend(&spatial);
        let mut attrs = self.window_attrs(
            &kernel,
            &strides,
            dil_ok.then_some(&dil[..]),
            &pads,
            auto_pad,
            true,
        );
        if ceil {
            attrs.push(attr_i("ceil_mode", 1));
        }
        if !max && self.rng.chance(0.4) {
            attrs.push(attr_i("count_include_pad", 1));
        }
        let op = if max { "MaxPool" } else { "AveragePool" };
        self.node1(op, vec![x.name], attrs, out);
        true
    }

    fn global_pool(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.len() >= 3) else {
            return false;
        };
        let mut out = x.shape[..2].to_vec();
        out.extend(std::iter::repeat_n(1, x.shape.len() - 2));
        let op = if self.rng.chance(0.5) {
            "GlobalAveragePool"
        } else {
            "GlobalMaxPool"
        };
        self.node1(op, vec![x.name], vec![], out);
        true
    }

    fn lrn(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.len() == 4) else {
            return false;
        };
        let size = *self.rng.pick(&[1, 3, 5]);
        let mut attrs = vec![attr_i("size", size)];
        if self.rng.chance(0.5) {
            attrs.push(attr_f("alpha", 0.001));
            attrs.push(attr_f("beta", 0.75));
            attrs.push(attr_f("bias", 1.0));
        }
        self.node1("LRN", vec![x.name.clone()], attrs, x.shape);
        true
    }

    fn batchnorm(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.len() >= 2) else {
            return false;
        };
        let c = x.shape[1];
        let scale = self.init_f32(&[c], 0.5, 1.5);
        let b = self.init_f32(&[c], -1.0, 1.0);
        let mean = self.init_f32(&[c], -1.0, 1.0);
        let var = self.init_f32(&[c], 0.25, 2.0);
        let mut attrs = Vec::new();
        if self.rng.chance(0.4) {
            attrs.push(attr_f("epsilon", 1e-3));
        }
        if self.rng.chance(0.2) {
            attrs.push(attr_f("momentum", 0.9));
        }
        self.node1(
            "BatchNormalization",
            vec![x.name, scale, b, mean, var],
            attrs,
            x.shape,
        );
        true
    }

    fn softmax(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let mut attrs = Vec::new();
        if self.rng.chance(0.7) {
            let (a, _) = self.axis(x.shape.len());
            attrs.push(attr_i("axis", a));
        }
        let op = if self.rng.chance(0.5) {
            "Softmax"
        } else {
            "LogSoftmax"
        };
        self.node1(op, vec![x.name], attrs, x.shape);
        true
    }

    fn layernorm(&mut self) -> bool {
        if self.opset < 17 {
            return false;
        }
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let r = x.shape.len();
        let (a, ai) = if self.rng.chance(0.3) {
            (-1, r - 1)
        } else {
            self.axis(r)
        };
        let norm = &x.shape[ai..];
        let scale = self.init_f32(norm, 0.5, 1.5);
        let mut inputs = vec![x.name.clone(), scale];
        if self.rng.chance(0.6) {
            let b = self.init_f32(&x.shape[ai..], -1.0, 1.0);
            inputs.push(b);
        }
        let mut attrs = Vec::new();
        if a != -1 || self.rng.chance(0.3) {
            attrs.push(attr_i("axis", a));
        }
        if self.rng.chance(0.4) {
            attrs.push(attr_f("epsilon", 1e-3));
        }
        self.node1("LayerNormalization", inputs, attrs, x.shape);
        true
    }

    fn concat(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let (a, ai) = self.axis(x.shape.len());
        let mut inputs = vec![x.name.clone()];
        let mut out = x.shape.clone();
        for _ in 0..self.rng.range(1, 2) {
            let same: Vec<Value> = self
                .values
                .iter()
                .filter(|v| {
                    v.shape.len() == x.shape.len()
                        && v.shape
                            .iter()
                            .zip(&x.shape)
                            .enumerate()
                            .all(|(i, (p, q))| i == ai || p == q)
                })
                .cloned()
                .collect();
            if self.rng.chance(0.4) {
                let o = self.rng.pick(&same).clone();
                out[ai] += o.shape[ai];
                inputs.push(o.name);
            } else {
                let mut s = x.shape.clone();
                s[ai] = self.rng.range(1, 3) as i64;
                out[ai] += s[ai];
                inputs.push(self.init_f32(&s, -1.0, 1.0));
            }
        }
        if cells(&out) > MAX_CELLS {
            return false;
        }
        if self.rng.chance(0.5) {
            self.rng.shuffle(&mut inputs);
        }
        self.node1("Concat", inputs, vec![attr_i("axis", a)], out);
        true
    }

    fn split(&mut self) -> bool {
        let Some(x) = self.pick(|s| s.iter().any(|&d| d >= 2)) else {
            return false;
        };
        let big: Vec<usize> = (0..x.shape.len()).filter(|&i| x.shape[i] >= 2).collect();
        let ai = *self.rng.pick(&big);
        let r = x.shape.len() as i64;
        let a = if self.rng.chance(0.4) {
            ai as i64 - r
        } else {
            ai as i64
        };
        let d = x.shape[ai];
        let mut inputs = vec![x.name.clone()];
        let mut attrs = vec![];
        if ai != 0 || self.rng.chance(0.5) {
            attrs.push(attr_i("axis", a));
        }
        let sizes: Vec<i64> = match self.rng.index(3) {
            0 => {
                // Explicit sizes.
                let parts = self.rng.range(2, d.min(3) as u64) as i64;
                let mut s = vec![1; parts as usize];
                for _ in 0..d - parts {
                    let i = self.rng.index(s.len());
                    s[i] += 1;
                }
                let c = self.init_i64(s.clone(), false);
                inputs.push(c);
                s
            }
            1 if self.opset >= 18 => {
                let parts = self.rng.range(2, d.min(3) as u64) as i64;
                attrs.push(attr_i("num_outputs", parts));
                let chunk = (d + parts - 1) / parts;
                let mut s = Vec::new();
                let mut left = d;
                while left > 0 {
                    s.push(chunk.min(left));
                    left -= chunk;
                }
                if s.len() as i64 != parts {
                    return false;
                }
                s
            }
            _ => {
                if self.opset >= 18 {
                    return false;
                }
                let parts = if d % 2 == 0 {
                    2
                } else if d % 3 == 0 {
                    3
                } else {
                    return false;
                };
                vec![d / parts; parts as usize]
            }
        };
        let outs: Vec<String> = sizes.iter().map(|_| self.fresh("v")).collect();
        self.node("Split", inputs, outs.clone(), attrs);
        for (o, s) in outs.into_iter().zip(sizes) {
            let mut shape = x.shape.clone();
            shape[ai] = s;
            self.values.push(Value { name: o, shape });
        }
        true
    }

    fn gather(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let (a, ai) = self.axis(x.shape.len());
        let d = x.shape[ai];
        let scalar = self.rng.chance(0.3);
        let n = if scalar {
            1
        } else {
            self.rng.range(1, 4) as usize
        };
        let idx: Vec<i64> = (0..n)
            .map(|_| {
                let i = self.rng.below(d as u64) as i64;
                if self.rng.chance(0.2) { i - d } else { i }
            })
            .collect();
        let mut out = x.shape[..ai].to_vec();
        if !scalar {
            out.push(n as i64);
        }
        out.extend(&x.shape[ai + 1..]);
        if cells(&out) > MAX_CELLS {
            return false;
        }
        let ind = if self.rng.chance(0.2) {
            let name = self.fresh("c");
            let dims = if scalar { vec![] } else { vec![n as i64] };
            self.inits.push(TensorProto {
                name: Some(name.clone()),
                dims,
                data_type: Some(DataType::Int32 as i32),
                int32_data: idx.iter().map(|&v| v as i32).collect(),
                ..Default::default()
            });
            name
        } else {
            self.init_i64(idx, scalar)
        };
        let mut attrs = Vec::new();
        if ai != 0 || self.rng.chance(0.5) {
            attrs.push(attr_i("axis", a));
        }
        self.node1("Gather", vec![x.name, ind], attrs, out);
        true
    }

    fn reshape(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let total = cells(&x.shape);
        // Factor the cell count into 1 to 4 dims.
        let rank = self.rng.range(1, 4) as usize;
        let mut dims = vec![1i64; rank];
        let mut left = total;
        let mut p = 2;
        while left > 1 {
            while left % p != 0 {
                p += 1;
            }
            left /= p;
            let i = self.rng.index(rank);
            dims[i] *= p;
        }
        let mut spec = dims.clone();
        if self.rng.chance(0.4) {
            let i = self.rng.index(rank);
            spec[i] = -1;
        }
        for i in 0..rank {
            if spec[i] != -1 && i < x.shape.len() && x.shape[i] == dims[i] && self.rng.chance(0.3) {
                spec[i] = 0;
            }
        }
        let c = self.init_i64(spec, false);
        self.node1("Reshape", vec![x.name, c], vec![], dims);
        true
    }

    fn flatten(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let r = x.shape.len();
        let ai = self.rng.index(r + 1);
        let a = if ai < r && self.rng.chance(0.3) {
            ai as i64 - r as i64
        } else {
            ai as i64
        };
        let out = vec![cells(&x.shape[..ai]), cells(&x.shape[ai..])];
        let mut attrs = Vec::new();
        if a != 1 || self.rng.chance(0.3) {
            attrs.push(attr_i("axis", a));
        }
        self.node1("Flatten", vec![x.name], attrs, out);
        true
    }

    fn transpose(&mut self) -> bool {
        let Some(x) = self.pick(|s| !s.is_empty()) else {
            return false;
        };
        let r = x.shape.len();
        let mut perm: Vec<usize> = (0..r).collect();
        let mut attrs = Vec::new();
        if self.rng.chance(0.2) {
            perm.reverse();
        } else {
            self.rng.shuffle(&mut perm);
            attrs.push(attr_ints(
                "perm",
                &perm.iter().map(|&p| p as i64).collect::<Vec<_>>(),
            ));
        }
        let out = perm.iter().map(|&p| x.shape[p]).collect();
        self.node1("Transpose", vec![x.name], attrs, out);
        true
    }

    fn squeeze(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let r = x.shape.len();
        let ones: Vec<usize> = (0..r).filter(|&i| x.shape[i] == 1).collect();
        if !ones.is_empty() && self.rng.chance(0.5) {
            let mut axes: Vec<usize> = ones
                .iter()
                .copied()
                .filter(|_| self.rng.chance(0.6))
                .collect();
            if axes.is_empty() {
                axes.push(ones[0]);
            }
            let out = (0..r)
                .filter(|i| !axes.contains(i))
                .map(|i| x.shape[i])
                .collect();
            let mut list: Vec<i64> = axes
                .iter()
                .map(|&a| {
                    if self.rng.chance(0.3) {
                        a as i64 - r as i64
                    } else {
                        a as i64
                    }
                })
                .collect();
            self.rng.shuffle(&mut list);
            let c = self.init_i64(list, false);
            self.node1("Squeeze", vec![x.name, c], vec![], out);
        } else {
            // Unsqueeze: 1 or 2 new axes of the output.
            let n = self.rng.range(1, 2) as usize;
            let out_r = r + n;
            let mut axes: Vec<usize> = (0..out_r).collect();
            self.rng.shuffle(&mut axes);
            axes.truncate(n);
            let mut out = Vec::new();
            let mut src = x.shape.iter();
            for i in 0..out_r {
                if axes.contains(&i) {
                    out.push(1);
                } else {
                    out.push(*src.next().expect("rank"));
                }
            }
            let list: Vec<i64> = axes
                .iter()
                .map(|&a| {
                    if self.rng.chance(0.3) {
                        a as i64 - out_r as i64
                    } else {
                        a as i64
                    }
                })
                .collect();
            let c = self.init_i64(list, false);
            self.node1("Unsqueeze", vec![x.name, c], vec![], out);
        }
        true
    }

    fn reduce(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let op = *self
            .rng
            .pick(&["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"]);
        let r = x.shape.len();
        let keep = self.rng.chance(0.5);
        let axes: Vec<usize> = if r == 0 || self.rng.chance(0.2) {
            (0..r).collect()
        } else {
            let mut a: Vec<usize> = (0..r).filter(|_| self.rng.chance(0.4)).collect();
            if a.is_empty() {
                a.push(self.rng.index(r));
            }
            a
        };
        let all = axes.len() == r;
        let list: Vec<i64> = axes
            .iter()
            .map(|&a| {
                if self.rng.chance(0.3) {
                    a as i64 - r as i64
                } else {
                    a as i64
                }
            })
            .collect();
        let out: Vec<i64> = (0..r)
            .filter_map(|i| {
                if !axes.contains(&i) {
                    Some(x.shape[i])
                } else if keep {
                    Some(1)
                } else {
                    None
                }
            })
            .collect();
        let axes_input = op == "ReduceSum" && self.opset >= 13 || self.opset >= 18;
        let mut inputs = vec![x.name];
        let mut attrs = Vec::new();
        let omit = all && self.rng.chance(0.5);
        if !omit {
            if axes_input {
                inputs.push(self.init_i64(list, false));
            } else {
                attrs.push(attr_ints("axes", &list));
            }
        }
        if !keep {
            attrs.push(attr_i("keepdims", 0));
        } else if self.rng.chance(0.3) {
            attrs.push(attr_i("keepdims", 1));
        }
        self.node1(op, inputs, attrs, out);
        true
    }

    fn constant(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let name = self.fresh("k");
        let (attr, shape) = match self.rng.index(3) {
            0 => (attr_f("value_float", self.floats(1, -2.0, 2.0)[0]), vec![]),
            1 if !x.shape.is_empty() => {
                let n = *x.shape.last().expect("rank");
                let data = self.floats(n, -2.0, 2.0);
                (
                    AttributeProto {
                        name: Some("value_floats".into()),
                        r#type: Some(AttributeType::Floats as i32),
                        floats: data,
                        ..Default::default()
                    },
                    vec![n],
                )
            }
            _ => {
                let s: Vec<i64> = x.shape[self.rng.index(x.shape.len() + 1)..].to_vec();
                let data = self.floats(cells(&s), -2.0, 2.0);
                let raw = self.rng.chance(0.5);
                (attr_t("value", f32_tensor("", &s, data, raw)), s)
            }
        };
        self.node("Constant", vec![], vec![name.clone()], vec![attr]);
        let out = broadcast(&x.shape, &shape).expect("a suffix broadcasts");
        let op = *self.rng.pick(&["Add", "Mul", "Sub"]);
        self.node1(op, vec![x.name, name], vec![], out);
        true
    }

    fn constant_of_shape(&mut self) -> bool {
        let Some(x) = self.pick(|_| true) else {
            return false;
        };
        let s: Vec<i64> = x.shape[self.rng.index(x.shape.len() + 1)..].to_vec();
        let dims = self.init_i64(s.clone(), false);
        let name = self.fresh("k");
        let mut attrs = Vec::new();
        if self.rng.chance(0.8) {
            let v = self.floats(1, -2.0, 2.0);
            attrs.push(attr_t("value", f32_tensor("", &[1], v, false)));
        }
        self.node("ConstantOfShape", vec![dims], vec![name.clone()], attrs);
        let out = broadcast(&x.shape, &s).expect("a suffix broadcasts");
        self.node1("Add", vec![x.name, name], vec![], out);
        true
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

    #[test]
    fn windows_follow_onnxruntime() {
        // Checked against onnxruntime 1.32 (ceil mode drops a window that
        // would start in the right padding).
        assert_eq!(window_out(5, 3, 1, 1, (0, 0), false), Some(3));
        assert_eq!(window_out(5, 2, 2, 1, (0, 0), true), Some(3));
        assert_eq!(window_out(4, 2, 2, 1, (1, 1), true), Some(3));
        assert_eq!(window_out(2, 3, 2, 1, (0, 2), true), None);
        assert_eq!(window_out(2, 3, 1, 1, (0, 0), false), None);
    }
}
