//! Constructors of the prost messages models are made of: tensor types
//! and value infos, attributes of each kind, `f32` and `i64` tensors
//! (in their typed fields or as raw bytes).

use ocannl_onnx::proto::{
    AttributeProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
    attribute_proto::AttributeType, tensor_proto::DataType, tensor_shape_proto, type_proto,
};

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

/// A tensor of integer (or bool) element type `elem` from `data`, as raw
/// little-endian bytes of the type's width.
pub fn int_tensor(name: &str, dims: &[i64], elem: i32, data: &[i64]) -> TensorProto {
    let width = match DataType::try_from(elem) {
        Ok(DataType::Bool | DataType::Int8 | DataType::Uint8) => 1,
        Ok(DataType::Int16 | DataType::Uint16) => 2,
        Ok(DataType::Int32 | DataType::Uint32) => 4,
        _ => 8,
    };
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(elem),
        raw_data: Some(
            data.iter()
                .flat_map(|v| v.to_le_bytes()[..width].to_vec())
                .collect(),
        ),
        ..Default::default()
    }
}
