//! Small models built in tests (`fold`'s, `text`'s): typed values and a
//! model around nodes and initializers.

use prost::Message;

use crate::Model;
use crate::proto::{
    GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto,
    TypeProto, ValueInfoProto, tensor_proto::DataType as D, tensor_shape_proto::Dimension,
    tensor_shape_proto::dimension::Value as Dim, type_proto,
};

/// A value `name` of f32 and the given dims.
pub(crate) fn float_value(name: &str, dims: &[i64]) -> ValueInfoProto {
    let dim = |n: i64| Dimension {
        value: Some(Dim::DimValue(n)),
        ..Default::default()
    };
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(D::Float as i32),
                shape: Some(TensorShapeProto {
                    dim: dims.iter().map(|&n| dim(n)).collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The model (opset 17) of one graph, decoded as a file's bytes are.
pub(crate) fn model(
    nodes: Vec<NodeProto>,
    initializer: Vec<TensorProto>,
    input: Vec<ValueInfoProto>,
    output: Vec<ValueInfoProto>,
) -> Model {
    let bytes = ModelProto {
        ir_version: Some(9),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        graph: Some(GraphProto {
            name: Some("g".into()),
            node: nodes,
            initializer,
            input,
            output,
            ..Default::default()
        }),
        ..Default::default()
    }
    .encode_to_vec();
    Model::from_bytes(&bytes).expect("a valid model")
}
