//! Hostile ONNX models: a well-formed model mutated in its structure
//! (attributes, dims, element types, wiring, declared shapes, opsets,
//! tensor data, sizes) or in its bytes (truncated, flipped, spliced).

use ocannl_onnx::proto::{
    AttributeProto, ModelProto, NodeProto, OperatorSetIdProto, StringStringEntryProto, TensorProto,
    ValueInfoProto, attribute_proto::AttributeType, tensor_proto::DataType, tensor_shape_proto,
    type_proto,
};
use prost::Message as _;

use super::model_gen::{attr_i, attr_ints, f32_tensor, value_info};
use crate::rng::Rng;

/// Integers that break assumptions: huge, negative, at the edges.
pub const EVIL_INTS: &[i64] = &[
    0,
    -1,
    -2,
    1,
    2,
    3,
    7,
    -7,
    1 << 31,
    (1 << 31) - 1,
    -(1 << 31),
    1 << 32,
    1 << 40,
    -(1 << 40),
    1 << 62,
    i64::MAX,
    i64::MIN,
    i64::MIN + 1,
];

/// The cell count of `dims`, saturated (mutated dims overflow).
fn count(dims: &[i64]) -> i64 {
    dims.iter()
        .try_fold(1i64, |a, &d| a.checked_mul(d))
        .unwrap_or(i64::MAX)
}

fn evil(rng: &mut Rng) -> i64 {
    *rng.pick(EVIL_INTS)
}

fn graph(m: &mut ModelProto) -> &mut ocannl_onnx::proto::GraphProto {
    m.graph.get_or_insert_with(Default::default)
}

/// The attributes and the names a node can take.
const ATTR_NAMES: &[&str] = &[
    "axis",
    "axes",
    "perm",
    "kernel_shape",
    "pads",
    "strides",
    "dilations",
    "group",
    "auto_pad",
    "ceil_mode",
    "count_include_pad",
    "keepdims",
    "noop_with_empty_axes",
    "transA",
    "transB",
    "alpha",
    "beta",
    "epsilon",
    "value",
    "value_float",
    "value_floats",
    "value_int",
    "value_ints",
    "split",
    "num_outputs",
    "allowzero",
    "approximate",
    "storage_order",
    "training_mode",
    "spatial",
    "broadcast",
    "size",
    "bias",
    "stash_type",
    "min",
    "max",
];

fn random_node(rng: &mut Rng, m: &mut ModelProto) -> Option<usize> {
    let n = graph(m).node.len();
    (n > 0).then(|| rng.index(n))
}

/// Attributes: wrong types, missing, huge or negative values, unknown
/// names, out-of-range axes, malformed lists.
pub fn attrs(rng: &mut Rng, m: &mut ModelProto) {
    let Some(i) = random_node(rng, m) else {
        return;
    };
    let node = &mut graph(m).node[i];
    let rank_hint = 6;
    match rng.index(10) {
        0 if !node.attribute.is_empty() => {
            // Remove one (possibly a required one).
            let k = rng.index(node.attribute.len());
            node.attribute.remove(k);
        }
        1 if !node.attribute.is_empty() => {
            // The value moves to another field; the type tag may stay.
            let k = rng.index(node.attribute.len());
            let a = &mut node.attribute[k];
            let old = a.clone();
            *a = AttributeProto {
                name: old.name.clone(),
                ..Default::default()
            };
            match rng.index(6) {
                0 => a.f = old.i.map(|v| v as f32).or(Some(0.5)),
                1 => a.ints = vec![old.i.unwrap_or(1); 2],
                2 => a.s = Some(b"SAME_UPPER".to_vec()),
                3 => a.i = Some(evil(rng)),
                4 => a.t = Some(f32_tensor("", &[2], vec![1.0, 2.0], false)),
                _ => a.floats = vec![1.5, -2.5],
            }
            a.r#type = if rng.chance(0.5) {
                old.r#type
            } else {
                Some(rng.range(0, 16) as i32)
            };
        }
        2 if !node.attribute.is_empty() => {
            // Evil ints in an int or ints attribute.
            let k = rng.index(node.attribute.len());
            let a = &mut node.attribute[k];
            if a.ints.is_empty() {
                a.i = Some(evil(rng));
            } else {
                let j = rng.index(a.ints.len());
                a.ints[j] = evil(rng);
            }
        }
        3 if !node.attribute.is_empty() => {
            // A list of the wrong length (empty, one short, one long, huge).
            let k = rng.index(node.attribute.len());
            let a = &mut node.attribute[k];
            match rng.index(4) {
                0 => a.ints.clear(),
                1 => {
                    a.ints.pop();
                }
                2 => a.ints.push(1),
                _ => a.ints = vec![1; 300],
            }
            if a.r#type != Some(AttributeType::Ints as i32) && rng.chance(0.5) {
                a.r#type = Some(AttributeType::Ints as i32);
            }
        }
        4 => {
            // A known attribute name with an evil value, whether or not the
            // op takes it.
            let name = *rng.pick(ATTR_NAMES);
            node.attribute.retain(|a| a.name.as_deref() != Some(name));
            let a = if rng.chance(0.5) {
                attr_i(name, evil(rng))
            } else {
                let n = rng.range(0, rank_hint) as usize;
                let v: Vec<i64> = (0..n).map(|_| evil(rng)).collect();
                attr_ints(name, &v)
            };
            node.attribute.push(a);
        }
        5 => {
            // An unknown or empty attribute name, or a duplicate.
            let a = match rng.index(3) {
                0 => attr_i("no_such_attribute", 1),
                1 => attr_i("", 1),
                _ => node
                    .attribute
                    .first()
                    .cloned()
                    .unwrap_or_else(|| attr_i("axis", 0)),
            };
            node.attribute.push(a);
        }
        6 => {
            // Axis-like attributes just out of range.
            for a in &mut node.attribute {
                if matches!(a.name.as_deref(), Some("axis" | "axes" | "perm")) {
                    let bump = *rng.pick(&[6, -7, 100, -100, 1 << 40]);
                    if let Some(v) = &mut a.i {
                        *v = bump;
                    }
                    for v in &mut a.ints {
                        if rng.chance(0.5) {
                            *v = bump;
                        }
                    }
                }
            }
            // Or a repeated axis in a perm.
            for a in &mut node.attribute {
                if a.name.as_deref() == Some("perm") && a.ints.len() >= 2 {
                    a.ints[1] = a.ints[0];
                }
            }
        }
        7 => {
            // Strings where numbers go and unknown enum values.
            let v = *rng.pick(&[
                "SAME_UPPER",
                "SAME_LOWER",
                "VALID",
                "NOTSET",
                "",
                "same_upper",
                "tanh",
                "none",
                "\u{0}\u{ff}",
            ]);
            let name = *rng.pick(&["auto_pad", "approximate", "axis", "mode"]);
            node.attribute.retain(|a| a.name.as_deref() != Some(name));
            node.attribute.push(AttributeProto {
                name: Some(name.into()),
                r#type: Some(AttributeType::String as i32),
                s: Some(v.as_bytes().to_vec()),
                ..Default::default()
            });
        }
        8 => {
            // A tensor attribute with broken data (value of Constant,
            // ConstantOfShape).
            let t = TensorProto {
                dims: vec![evil(rng).rem_euclid(5), 3],
                data_type: Some(rng.range(0, 25) as i32),
                float_data: vec![1.0; rng.index(8)],
                ..Default::default()
            };
            node.attribute
                .retain(|a| a.name.as_deref() != Some("value"));
            node.attribute.push(AttributeProto {
                name: Some("value".into()),
                r#type: Some(AttributeType::Tensor as i32),
                t: Some(t),
                ..Default::default()
            });
        }
        _ => {
            // A graph, sparse tensor or ref attribute where none belongs.
            node.attribute.push(AttributeProto {
                name: Some(rng.pick(ATTR_NAMES).to_string()),
                r#type: Some(AttributeType::Graph as i32),
                g: Some(Default::default()),
                ref_attr_name: rng.chance(0.3).then(|| "outer".into()),
                ..Default::default()
            });
        }
    }
}

fn dim(v: Option<tensor_shape_proto::dimension::Value>) -> tensor_shape_proto::Dimension {
    tensor_shape_proto::Dimension {
        value: v,
        ..Default::default()
    }
}

fn evil_dim(rng: &mut Rng) -> tensor_shape_proto::Dimension {
    use tensor_shape_proto::dimension::Value as D;
    match rng.index(8) {
        0 => dim(Some(D::DimValue(0))),
        1 => dim(Some(D::DimValue(-1))),
        2 => dim(Some(D::DimValue(-(1 << 40)))),
        3 => dim(Some(D::DimValue(1 << 40))),
        4 => dim(Some(D::DimValue(i64::MAX))),
        5 => dim(Some(D::DimParam(
            rng.pick(&["N", "batch", "", "1", "N N", "?"]).to_string(),
        ))),
        6 => dim(None),
        _ => dim(Some(D::DimValue(1 << 20))),
    }
}

fn tensor_of(v: &mut ValueInfoProto) -> Option<&mut type_proto::Tensor> {
    match v.r#type.as_mut()?.value.as_mut()? {
        type_proto::Value::TensorType(t) => Some(t),
        _ => None,
    }
}

/// Dims: of graph inputs (0, negative, 2^40, symbolic, missing shapes,
/// another rank), of initializers (data no longer matching), of
/// `Constant` values.
pub fn dims(rng: &mut Rng, m: &mut ModelProto) {
    let g = graph(m);
    match rng.index(5) {
        0 | 1 if !g.input.is_empty() => {
            let k = rng.index(g.input.len());
            if let Some(t) = tensor_of(&mut g.input[k]) {
                let shape = t.shape.get_or_insert_with(Default::default);
                match rng.index(4) {
                    0 if !shape.dim.is_empty() => {
                        let j = rng.index(shape.dim.len());
                        shape.dim[j] = evil_dim(rng);
                    }
                    1 => shape.dim.push(evil_dim(rng)),
                    2 => {
                        shape.dim.pop();
                    }
                    _ => {
                        if rng.chance(0.5) {
                            t.shape = None;
                        } else {
                            let n = rng.range(5, 40) as usize;
                            shape.dim = (0..n).map(|_| evil_dim(rng)).collect();
                        }
                    }
                }
            }
        }
        2 | 3 if !g.initializer.is_empty() => {
            let k = rng.index(g.initializer.len());
            let t = &mut g.initializer[k];
            match rng.index(4) {
                0 if !t.dims.is_empty() => {
                    let j = rng.index(t.dims.len());
                    t.dims[j] = evil(rng);
                }
                1 => t.dims.push(evil(rng)),
                2 => t.dims.clear(),
                _ => {
                    // Consistent data, hostile meaning: shapes and axes.
                    if t.data_type == Some(DataType::Int64 as i32) {
                        let data: Vec<i64> = (0..count(&t.dims).clamp(1, 16))
                            .map(|_| evil(rng))
                            .collect();
                        t.dims = vec![data.len() as i64];
                        t.raw_data = None;
                        t.int64_data = data;
                    } else {
                        t.dims = vec![0];
                        t.float_data.clear();
                        t.raw_data = None;
                    }
                }
            }
        }
        _ => {
            // The first input a new rank (what the nodes expect breaks).
            if let Some(v) = g.input.first_mut()
                && let Some(t) = tensor_of(v)
            {
                let n = rng.range(0, 6);
                t.shape = Some(ocannl_onnx::proto::TensorShapeProto {
                    dim: (0..n)
                        .map(|_| {
                            dim(Some(tensor_shape_proto::dimension::Value::DimValue(
                                rng.range(1, 4) as i64,
                            )))
                        })
                        .collect(),
                });
            }
        }
    }
}

/// Element types: every `TensorProto.DataType` (and out-of-range codes) on
/// inputs, outputs, initializers and `Cast`-free graphs.
pub fn elems(rng: &mut Rng, m: &mut ModelProto) {
    let code = if rng.chance(0.9) {
        rng.range(0, 26) as i32
    } else {
        *rng.pick(&[-1, 27, 99, i32::MAX, i32::MIN])
    };
    let g = graph(m);
    match rng.index(4) {
        0 if !g.input.is_empty() => {
            let k = rng.index(g.input.len());
            if let Some(t) = tensor_of(&mut g.input[k]) {
                t.elem_type = Some(code);
            }
        }
        1 if !g.output.is_empty() => {
            let k = rng.index(g.output.len());
            if let Some(t) = tensor_of(&mut g.output[k]) {
                t.elem_type = Some(code);
            }
        }
        2 if !g.initializer.is_empty() => {
            // The type changes, the data stays where it was (or moves to
            // raw bytes of a matching size).
            let k = rng.index(g.initializer.len());
            let t = &mut g.initializer[k];
            t.data_type = Some(code);
            if rng.chance(0.5) {
                let n = count(&t.dims).max(0);
                let width = match DataType::try_from(code) {
                    Ok(DataType::Double | DataType::Int64 | DataType::Uint64) => 8,
                    Ok(DataType::Float16 | DataType::Bfloat16 | DataType::Int16) => 2,
                    Ok(DataType::Uint8 | DataType::Int8 | DataType::Bool) => 1,
                    _ => 4,
                };
                t.float_data.clear();
                t.int64_data.clear();
                t.int32_data.clear();
                t.raw_data = Some(vec![0x3f; (n.min(1 << 16) as usize) * width]);
            }
        }
        _ => {
            // Every input and output of one type (a whole integer or
            // double model).
            let code = *rng.pick(&[
                DataType::Double as i32,
                DataType::Int32 as i32,
                DataType::Int64 as i32,
                DataType::Float16 as i32,
                DataType::Bool as i32,
                code,
            ]);
            for v in g.input.iter_mut().chain(g.output.iter_mut()) {
                if let Some(t) = tensor_of(v) {
                    t.elem_type = Some(code);
                }
            }
        }
    }
}

/// Wiring: undefined inputs, cycles, duplicate names, no outputs, outputs
/// no node produces, empty node lists, many inputs, empty names.
pub fn wiring(rng: &mut Rng, m: &mut ModelProto) {
    let g = graph(m);
    let n = g.node.len();
    match rng.index(12) {
        0 if n > 0 => {
            let k = rng.index(n);
            let node = &mut g.node[k];
            if node.input.is_empty() {
                node.input.push("undefined_value".into());
            } else {
                let j = rng.index(node.input.len());
                node.input[j] = "undefined_value".into();
            }
        }
        1 if n > 0 => {
            // A cycle: an input of an early node is a later node's output.
            let a = rng.index(n);
            let b = a + rng.index(n - a);
            let out = g.node[b].output.first().cloned().unwrap_or_default();
            let node = &mut g.node[a];
            if node.input.is_empty() {
                node.input.push(out);
            } else {
                let j = rng.index(node.input.len());
                node.input[j] = out;
            }
        }
        2 if n > 0 => {
            // Two producers of one name.
            let a = rng.index(n);
            let b = rng.index(n);
            let name = g.node[a].output.first().cloned().unwrap_or_default();
            if let Some(o) = g.node[b].output.first_mut() {
                *o = name;
            } else {
                g.node[b].output.push(name);
            }
        }
        3 => g.output.clear(),
        4 if !g.output.is_empty() => {
            let k = rng.index(g.output.len());
            g.output[k].name = Some(rng.pick(&["nowhere", "", "x1"]).to_string());
        }
        5 => {
            g.node.clear();
        }
        6 => {
            // Many graph inputs (unused), or many uses of one.
            let many = rng.range(200, 3000);
            for i in 0..many {
                g.input.push(value_info(
                    &format!("extra{i}"),
                    DataType::Float as i32,
                    Some(&[1]),
                ));
            }
        }
        7 if n > 0 => {
            // A node with no inputs, no outputs, or empty names.
            let k = rng.index(n);
            let node = &mut g.node[k];
            match rng.index(4) {
                0 => node.input.clear(),
                1 => node.output.clear(),
                2 => node.input.push(String::new()),
                _ => node.output.insert(0, String::new()),
            }
        }
        8 if n > 0 => {
            // Unknown, empty or foreign ops.
            let k = rng.index(n);
            let node = &mut g.node[k];
            match rng.index(4) {
                0 => node.op_type = Some("NoSuchOp".into()),
                1 => node.op_type = Some(String::new()),
                2 => node.op_type = None,
                _ => {
                    node.domain = Some(rng.pick(&["com.microsoft", "ai.onnx.ml", "x"]).to_string())
                }
            }
        }
        9 if !g.input.is_empty() => {
            // Duplicate graph inputs, an input that is also an initializer
            // of another shape, an output that is an input.
            match rng.index(3) {
                0 => {
                    let v = g.input[0].clone();
                    g.input.push(v);
                }
                1 => {
                    let name = g.input[0].name.clone().unwrap_or_default();
                    g.initializer
                        .push(f32_tensor(&name, &[7], vec![0.5; 7], false));
                }
                _ => {
                    let v = g.input[0].clone();
                    g.output.push(v);
                }
            }
        }
        10 if n > 0 => {
            // A node's extra outputs and inputs (Split, Dropout masks,
            // BatchNormalization's training outputs, MaxPool indices).
            let k = rng.index(n);
            let node = &mut g.node[k];
            for i in 0..rng.range(1, 3) {
                node.output.push(format!("extra_out{k}_{i}"));
            }
            if rng.chance(0.5) {
                let first = node.input.first().cloned().unwrap_or_default();
                for _ in 0..rng.range(1, 4) {
                    node.input.push(first.clone());
                }
            }
        }
        _ => {
            // A node output that is a graph input's name.
            if n > 0
                && let Some(name) = g.input.first().and_then(|v| v.name.clone())
            {
                let k = rng.index(n);
                if let Some(o) = g.node[k].output.first_mut() {
                    *o = name;
                }
            }
        }
    }
}

/// Declared shapes and types that contradict what the nodes compute.
pub fn declared(rng: &mut Rng, m: &mut ModelProto) {
    let g = graph(m);
    let produced: Vec<String> = g.node.iter().flat_map(|n| n.output.clone()).collect();
    if produced.is_empty() {
        return;
    }
    let name = rng.pick(&produced).clone();
    let r = rng.range(0, 5) as usize;
    let dims: Vec<i64> = (0..r).map(|_| rng.range(1, 9) as i64).collect();
    let elem = if rng.chance(0.8) {
        DataType::Float as i32
    } else {
        rng.range(1, 16) as i32
    };
    let v = value_info(&name, elem, Some(&dims));
    if rng.chance(0.5) {
        if let Some(o) = g
            .output
            .iter_mut()
            .find(|o| o.name.as_deref() == Some(&name))
        {
            *o = v;
        } else if let Some(o) = g.output.first_mut() {
            let name = o.name.clone();
            *o = value_info("", elem, Some(&dims));
            o.name = name;
        }
    } else {
        g.value_info.retain(|x| x.name.as_deref() != Some(&name));
        g.value_info.push(v);
    }
}

/// Opsets, IR versions, domains, model metadata.
pub fn opsets(rng: &mut Rng, m: &mut ModelProto) {
    match rng.index(7) {
        0 => m.opset_import.clear(),
        1 => {
            if let Some(o) = m.opset_import.first_mut() {
                o.version = Some(*rng.pick(&[0, 1, 5, 6, 7, 11, 12, 22, 28, 29, 1 << 40, -1]));
            }
        }
        2 => m.opset_import.push(OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(rng.range(1, 30) as i64),
        }),
        3 => {
            if let Some(o) = m.opset_import.first_mut() {
                o.domain = Some(rng.pick(&["ai.onnx", "com.microsoft", "x"]).to_string());
            }
        }
        4 => m.ir_version = Some(*rng.pick(&[0, 1, 3, 4, 11, 99, -1])),
        5 => m.graph = None,
        _ => m.metadata_props.push(StringStringEntryProto {
            key: Some("k".into()),
            value: Some("\u{0}v".into()),
        }),
    }
}

/// Tensor data: raw bytes of the wrong length, external data, huge dims
/// without data, data in two fields, string data.
pub fn data(rng: &mut Rng, m: &mut ModelProto) {
    let g = graph(m);
    if g.initializer.is_empty() {
        g.initializer
            .push(f32_tensor("unused", &[2], vec![1.0, 2.0], false));
    }
    let k = rng.index(g.initializer.len());
    let t = &mut g.initializer[k];
    match rng.index(7) {
        0 => {
            let mut raw = t.raw_data.take().unwrap_or_else(|| vec![0; 16]);
            if rng.chance(0.5) {
                raw.pop();
            } else {
                raw.extend([0, 0, 0]);
            }
            t.raw_data = Some(raw);
            t.float_data.clear();
            t.int64_data.clear();
            t.int32_data.clear();
        }
        1 => {
            t.data_location = Some(1);
            t.external_data.push(StringStringEntryProto {
                key: Some("location".into()),
                value: Some("/etc/passwd".into()),
            });
        }
        2 => {
            t.dims = vec![1 << 20, 1 << 20];
            t.raw_data = None;
            t.float_data.clear();
            t.int64_data.clear();
        }
        3 => {
            t.float_data.push(1.0);
            t.raw_data = Some(vec![0; 4]);
        }
        4 => {
            t.data_type = Some(DataType::String as i32);
            t.string_data = vec![b"abc".to_vec(); 2];
        }
        5 => {
            t.segment = Some(ocannl_onnx::proto::tensor_proto::Segment {
                begin: Some(0),
                end: Some(1),
            });
        }
        _ => {
            // NaN, infinities and huge values in the data.
            let specials = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, 0.0];
            if !t.float_data.is_empty() {
                let j = rng.index(t.float_data.len());
                t.float_data[j] = *rng.pick(&specials);
            } else if let Some(raw) = &mut t.raw_data
                && raw.len() >= 4
                && t.data_type == Some(DataType::Float as i32)
            {
                raw[..4].copy_from_slice(&rng.pick(&specials).to_le_bytes());
            }
        }
    }
}

/// Size: long chains, wide nodes, large tensors.
pub fn big(rng: &mut Rng, m: &mut ModelProto) {
    let g = graph(m);
    let Some(x) = g.input.first().and_then(|v| v.name.clone()) else {
        return;
    };
    match rng.index(4) {
        0 => {
            // A long chain of unary ops.
            let n = if rng.chance(0.5) {
                rng.range(200, 1500)
            } else {
                rng.range(5000, 30000)
            };
            let mut prev = x;
            for i in 0..n {
                let out = format!("chain{i}");
                g.node.push(NodeProto {
                    op_type: Some(rng.pick(&["Relu", "Neg", "Identity", "Abs"]).to_string()),
                    input: vec![prev],
                    output: vec![out.clone()],
                    ..Default::default()
                });
                prev = out;
            }
            g.output = vec![ValueInfoProto {
                name: Some(prev),
                ..Default::default()
            }];
        }
        1 => {
            // One node with thousands of inputs.
            let n = rng.range(500, 5000) as usize;
            let op = rng.pick(&["Sum", "Concat", "Max", "Mean"]).to_string();
            g.node.push(NodeProto {
                op_type: Some(op),
                input: vec![x; n],
                output: vec!["wide".into()],
                attribute: vec![attr_i("axis", 0)],
                ..Default::default()
            });
            g.output = vec![ValueInfoProto {
                name: Some("wide".into()),
                ..Default::default()
            }];
        }
        2 => {
            // A large reshape target or ConstantOfShape.
            // Terabytes: to be refused, not computed.
            let dims = vec![1 << 20, 1 << 20, rng.range(1, 64) as i64];
            g.initializer.push(ocannl_onnx::proto::TensorProto {
                name: Some("bigshape".into()),
                dims: vec![3],
                data_type: Some(DataType::Int64 as i32),
                int64_data: dims,
                ..Default::default()
            });
            g.node.push(NodeProto {
                op_type: Some("ConstantOfShape".into()),
                input: vec!["bigshape".into()],
                output: vec!["big".into()],
                ..Default::default()
            });
            g.output.push(ValueInfoProto {
                name: Some("big".into()),
                ..Default::default()
            });
        }
        _ => {
            // A deeply nested subgraph attribute (If/Loop bodies).
            let mut inner = ocannl_onnx::proto::GraphProto::default();
            for _ in 0..rng.range(50, 300) {
                inner = ocannl_onnx::proto::GraphProto {
                    node: vec![NodeProto {
                        op_type: Some("If".into()),
                        attribute: vec![AttributeProto {
                            name: Some("then_branch".into()),
                            r#type: Some(AttributeType::Graph as i32),
                            g: Some(inner),
                            ..Default::default()
                        }],
                        ..Default::default()
                    }],
                    ..Default::default()
                };
            }
            if let Some(n) = g.node.first_mut() {
                n.attribute.push(AttributeProto {
                    name: Some("body".into()),
                    r#type: Some(AttributeType::Graph as i32),
                    g: Some(inner),
                    ..Default::default()
                });
            }
        }
    }
}

/// Integer parameters: one to three of the integers a well-formed model's
/// meaning hangs on (integer attributes such as kernel_shape, pads,
/// strides, dilations, group, axis, perm, split, num_outputs; the data of
/// integer initializers: Reshape and ConstantOfShape shapes, axes, split
/// sizes, Gather indices; graph input dims) replaced by an edge value.
pub fn ints(rng: &mut Rng, m: &mut ModelProto) {
    use tensor_shape_proto::dimension::Value as D;
    let g = graph(m);
    // Every integer slot, as (kind, index, position).
    let mut slots: Vec<(u8, usize, usize, usize)> = Vec::new();
    for (n, node) in g.node.iter().enumerate() {
        for (a, attr) in node.attribute.iter().enumerate() {
            if attr.i.is_some() {
                slots.push((0, n, a, usize::MAX));
            }
            for k in 0..attr.ints.len() {
                slots.push((0, n, a, k));
            }
        }
    }
    for (t, init) in g.initializer.iter().enumerate() {
        let ty = init.data_type.unwrap_or(0);
        if ty == DataType::Int64 as i32 || ty == DataType::Int32 as i32 {
            let n = count(&init.dims).clamp(0, 64) as usize;
            for k in 0..n {
                slots.push((1, t, 0, k));
            }
        }
    }
    for (i, v) in g.input.iter().enumerate() {
        if let Some(type_proto::Value::TensorType(t)) =
            v.r#type.as_ref().and_then(|t| t.value.as_ref())
            && let Some(s) = &t.shape
        {
            for k in 0..s.dim.len() {
                slots.push((2, i, 0, k));
            }
        }
    }
    if slots.is_empty() {
        return;
    }
    // Each kind of slot (attributes, initializer data, input dims) as
    // likely as the others, however many of each there are.
    let kinds: Vec<u8> = (0..3u8)
        .filter(|k| slots.iter().any(|s| s.0 == *k))
        .collect();
    for _ in 0..rng.range(1, 3) {
        let kind = *rng.pick(&kinds);
        let of_kind: Vec<_> = slots.iter().filter(|s| s.0 == kind).collect();
        let (kind, a, b, k) = **rng.pick(&of_kind);
        let v = if rng.chance(0.8) {
            evil(rng)
        } else {
            // Just past a plausible range: rank-sized, small negatives.
            rng.range(0, 12) as i64 - 6
        };
        match kind {
            0 => {
                let attr = &mut g.node[a].attribute[b];
                if k == usize::MAX {
                    attr.i = Some(v);
                } else if let Some(x) = attr.ints.get_mut(k) {
                    *x = v;
                }
            }
            1 => {
                let init = &mut g.initializer[a];
                let is64 = init.data_type == Some(DataType::Int64 as i32);
                if let Some(raw) = &mut init.raw_data {
                    let w = if is64 { 8 } else { 4 };
                    if raw.len() >= (k + 1) * w {
                        let bytes = if is64 {
                            v.to_le_bytes().to_vec()
                        } else {
                            (v as i32).to_le_bytes().to_vec()
                        };
                        raw[k * w..(k + 1) * w].copy_from_slice(&bytes);
                    }
                } else if is64 {
                    if let Some(x) = init.int64_data.get_mut(k) {
                        *x = v;
                    }
                } else if let Some(x) = init.int32_data.get_mut(k) {
                    *x = v as i32;
                }
            }
            _ => {
                if let Some(t) = tensor_of(&mut g.input[a])
                    && let Some(d) = t.shape.as_mut().and_then(|s| s.dim.get_mut(k))
                {
                    d.value = Some(D::DimValue(v));
                }
            }
        }
    }
}

/// Byte-level damage to an encoded model: truncation, bit flips, splices
/// from another model, inserted or duplicated ranges, varints made huge.
pub fn bytes(rng: &mut Rng, b: &mut Vec<u8>, donor: &[u8]) {
    for _ in 0..rng.range(1, 3) {
        if b.is_empty() {
            b.extend_from_slice(donor);
        }
        let len = b.len();
        match rng.index(7) {
            0 => b.truncate(rng.index(len)),
            1 => {
                for _ in 0..rng.range(1, 8) {
                    let i = rng.index(len);
                    b[i] ^= 1 << rng.index(8);
                }
            }
            2 => {
                let i = rng.index(len);
                b[i] = *rng.pick(&[0, 0xff, 0x80, 0x7f, 0x0a, 0x12, 0x1a]);
            }
            3 if !donor.is_empty() => {
                // Splice: a donor's tail after our head, or a donor range
                // inserted.
                let at = rng.index(len);
                let from = rng.index(donor.len());
                let to = from + rng.index(donor.len() - from + 1);
                b.splice(at..at, donor[from..to].iter().copied());
            }
            4 => {
                let from = rng.index(len);
                let to = (from + rng.range(1, 64) as usize).min(len);
                let chunk = b[from..to].to_vec();
                let at = rng.index(len);
                b.splice(at..at, chunk);
            }
            5 => {
                // A length or varint made huge: 0xff bytes at a random spot.
                let i = rng.index(len);
                let n = rng.range(1, 10) as usize;
                b.splice(i..i, std::iter::repeat_n(0xff, n));
            }
            _ => {
                let from = rng.index(len);
                let to = (from + rng.range(1, 32) as usize).min(len);
                b.drain(from..to);
            }
        }
    }
}

/// Encodes a model.
pub fn encode(m: &ModelProto) -> Vec<u8> {
    m.encode_to_vec()
}
