//! Model-wide mutations: opsets, IR versions, domains and metadata
//! (`onnx-opset`), initializer data (`onnx-data`), and size: long chains,
//! wide nodes, huge shapes, deep subgraphs (`onnx-big`).

use ocannl_onnx::proto::{
    AttributeProto, ModelProto, NodeProto, OperatorSetIdProto, StringStringEntryProto,
    ValueInfoProto, attribute_proto::AttributeType, tensor_proto::DataType,
};

use super::graph;
use crate::onnx::model_gen::{attr_i, f32_tensor};
use crate::rng::Rng;

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
