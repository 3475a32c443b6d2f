//! Node attributes: which ones each supported op reads, of which type
//! (ONNX's operator schemas, onnx.ai/onnx/operators), checked before the
//! node is translated, and typed access to them.
//!
//! An attribute of the wrong type (`axis = 1.5`, `perm = "ab"`), one the op
//! does not define, or one with no value is an error naming the node and
//! the attribute; a value is never replaced by the op's default.

use crate::proto::{
    AttributeProto, GraphProto, NodeProto, TensorProto, attribute_proto::AttributeType as K,
};

/// The attributes each supported op understands, with their types; any
/// other is an error. `None`: the op is not supported.
pub(super) fn known(op: &str) -> Option<&'static [(&'static str, K)]> {
    use K::{Float, Floats, Int, Ints, String, Tensor};
    Some(match op {
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Max" | "Min" | "Sum" | "Mean" => {
            &[("broadcast", Int), ("axis", Int), ("consumed_inputs", Ints)]
        }
        "Relu" | "Exp" | "Log" | "Sqrt" | "Tanh" | "Abs" | "Neg" | "Reciprocal" | "Sin" | "Cos"
        | "Erf" | "Sigmoid" | "Identity" | "Softplus" => &[("consumed_inputs", Ints)],
        "LeakyRelu" | "Elu" => &[("alpha", Float), ("consumed_inputs", Ints)],
        "Gelu" => &[("approximate", String)],
        "HardSigmoid" => &[("alpha", Float), ("beta", Float), ("consumed_inputs", Ints)],
        "HardSwish" => &[],
        "PRelu" => &[("consumed_inputs", Ints)],
        "Clip" => &[("min", Float), ("max", Float), ("consumed_inputs", Ints)],
        "Dropout" => &[
            ("ratio", Float),
            ("is_test", Int),
            ("seed", Int),
            ("training_mode", Int),
        ],
        "Conv" => &[
            ("auto_pad", String),
            ("dilations", Ints),
            ("group", Int),
            ("kernel_shape", Ints),
            ("pads", Ints),
            ("strides", Ints),
        ],
        "MaxPool" => &[
            ("auto_pad", String),
            ("ceil_mode", Int),
            ("dilations", Ints),
            ("kernel_shape", Ints),
            ("pads", Ints),
            ("storage_order", Int),
            ("strides", Ints),
        ],
        "AveragePool" => &[
            ("auto_pad", String),
            ("ceil_mode", Int),
            ("count_include_pad", Int),
            ("dilations", Ints),
            ("kernel_shape", Ints),
            ("pads", Ints),
            ("strides", Ints),
        ],
        "GlobalAveragePool" | "GlobalMaxPool" | "MatMul" => &[],
        "Gemm" => &[
            ("alpha", Float),
            ("beta", Float),
            ("transA", Int),
            ("transB", Int),
            ("broadcast", Int),
        ],
        "BatchNormalization" => &[
            ("epsilon", Float),
            ("momentum", Float),
            ("is_test", Int),
            ("spatial", Int),
            ("consumed_inputs", Ints),
            ("training_mode", Int),
        ],
        "LRN" => &[
            ("alpha", Float),
            ("beta", Float),
            ("bias", Float),
            ("size", Int),
        ],
        "Softmax" | "LogSoftmax" | "Concat" | "Flatten" | "Gather" => &[("axis", Int)],
        "Reshape" => &[("shape", Ints), ("allowzero", Int)],
        "GatherND" => &[("batch_dims", Int)],
        "Transpose" => &[("perm", Ints)],
        "Squeeze" | "Unsqueeze" => &[("axes", Ints)],
        "Split" => &[("axis", Int), ("split", Ints), ("num_outputs", Int)],
        "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" => &[
            ("axes", Ints),
            ("keepdims", Int),
            ("noop_with_empty_axes", Int),
        ],
        "Constant" => &[
            ("value", Tensor),
            ("value_float", Float),
            ("value_floats", Floats),
            ("value_int", Int),
            ("value_ints", Ints),
        ],
        "ConstantOfShape" => &[("value", Tensor)],
        "LayerNormalization" => &[("axis", Int), ("epsilon", Float), ("stash_type", Int)],
        _ => return family_known(op),
    })
}

/// The tables of the op families in their own modules.
fn family_known(op: &str) -> Option<&'static [(&'static str, K)]> {
    known_more(op)
        .or_else(|| super::composite::known(op))
        .or_else(|| super::recurrent::known(op))
        .or_else(|| super::typed::known(op))
        .or_else(|| super::shape_values::known(op))
        .or_else(|| super::scatter::known(op))
        .or_else(|| super::stateful::known(op))
        .or_else(|| super::integer_ops::known(op))
        .or_else(|| super::scan::known(op))
}

/// [`known`]'s table for LpPool and the ops of `gather`, `arg_reduce`,
/// `cumulative`, `losses` and `attention`.
fn known_more(op: &str) -> Option<&'static [(&'static str, K)]> {
    use K::{Float, Int, Ints, String};
    Some(match op {
        "OneHot" => &[("axis", Int)],
        "LpPool" => &[
            ("auto_pad", String),
            ("ceil_mode", Int),
            ("dilations", Ints),
            ("kernel_shape", Ints),
            ("p", Int),
            ("pads", Ints),
            ("strides", Ints),
        ],
        "GatherElements" => &[("axis", Int)],
        "NegativeLogLikelihoodLoss" | "SoftmaxCrossEntropyLoss" => {
            &[("reduction", String), ("ignore_index", Int)]
        }
        "Attention" => &[
            ("is_causal", Int),
            ("kv_num_heads", Int),
            ("q_num_heads", Int),
            ("qk_matmul_output_mode", Int),
            ("scale", Float),
            ("softcap", Float),
            ("softmax_precision", Int),
            ("left_window_size", Int),
            ("right_window_size", Int),
        ],
        "CumSum" | "CumProd" => &[("exclusive", Int), ("reverse", Int)],
        "ArgMax" | "ArgMin" => &[("axis", Int), ("keepdims", Int), ("select_last_index", Int)],
        _ => return None,
    })
}

/// Attributes that are booleans (0 or 1) wherever they appear.
const FLAGS: &[&str] = &[
    "allowzero",
    "broadcast",
    "ceil_mode",
    "is_causal",
    "count_include_pad",
    "exclusive",
    "is_test",
    "keepdims",
    "noop_with_empty_axes",
    "reverse",
    "select_last_index",
    "spatial",
    "storage_order",
    "training_mode",
    "transA",
    "transB",
];

/// The type an attribute holds: its `type` field, or (files from before
/// the field existed) the one value field that is set.
fn kind_of(a: &AttributeProto) -> Option<K> {
    if let Some(k) = a.r#type.and_then(|t| K::try_from(t).ok())
        && k != K::Undefined
    {
        return Some(k);
    }
    let set = [
        (a.f.is_some(), K::Float),
        (a.i.is_some(), K::Int),
        (a.s.is_some(), K::String),
        (a.t.is_some(), K::Tensor),
        (a.g.is_some(), K::Graph),
        (!a.floats.is_empty(), K::Floats),
        (!a.ints.is_empty(), K::Ints),
        (!a.strings.is_empty(), K::Strings),
        (!a.tensors.is_empty(), K::Tensors),
        (!a.graphs.is_empty(), K::Graphs),
    ];
    let mut kinds = set.iter().filter(|(on, _)| *on).map(|(_, k)| *k);
    match (kinds.next(), kinds.next()) {
        (Some(k), None) => Some(k),
        _ => None,
    }
}

/// Checks the node's attributes against the op's table: each known, once,
/// of its type, with its value present.
pub(super) fn check(op: &str, allowed: &[(&str, K)], node: &NodeProto) -> Result<(), String> {
    for (i, a) in node.attribute.iter().enumerate() {
        let name = a.name.as_deref().unwrap_or("");
        let Some(&(_, want)) = allowed.iter().find(|(n, _)| *n == name) else {
            return Err(format!("the attribute '{name}' of {op} is not supported"));
        };
        if node.attribute[..i]
            .iter()
            .any(|b| b.name.as_deref() == Some(name))
        {
            return Err(format!("the attribute '{name}' is given twice"));
        }
        let got = kind_of(a);
        if got != Some(want) {
            let got = got.map_or("no single value", |k| k.as_str_name());
            return Err(format!(
                "the attribute '{name}' of {op} must be {}, got {got}",
                want.as_str_name()
            ));
        }
        // A declared type whose value is missing reads as the default.
        let present = match want {
            K::Float => a.f.is_some(),
            K::Int => a.i.is_some(),
            K::String => a.s.is_some(),
            K::Tensor => a.t.is_some(),
            // An empty list is a list.
            _ => true,
        };
        if !present {
            return Err(format!(
                "the attribute '{name}' of {op} is {} but holds no value",
                want.as_str_name()
            ));
        }
        if FLAGS.contains(&name)
            && let Some(v) = a.i.filter(|v| !matches!(v, 0 | 1))
        {
            return Err(format!(
                "the attribute '{name}' of {op} must be 0 or 1, got {v}"
            ));
        }
    }
    Ok(())
}

/// Attribute access (types checked by [`check`] first).
pub(crate) struct Attrs<'n>(&'n [AttributeProto]);

impl<'n> Attrs<'n> {
    pub(crate) fn of(node: &'n NodeProto) -> Self {
        Self(&node.attribute)
    }
    fn get(&self, name: &str) -> Option<&'n AttributeProto> {
        self.0.iter().find(|a| a.name.as_deref() == Some(name))
    }
    pub(crate) fn int(&self, name: &str) -> Option<i64> {
        self.get(name).and_then(|a| a.i)
    }
    pub(crate) fn float(&self, name: &str) -> Option<f32> {
        self.get(name).and_then(|a| a.f)
    }
    pub(crate) fn floats(&self, name: &str) -> Option<Vec<f32>> {
        self.get(name).map(|a| a.floats.clone())
    }
    pub(crate) fn ints(&self, name: &str) -> Option<Vec<i64>> {
        self.get(name).map(|a| a.ints.clone())
    }
    pub(crate) fn string(&self, name: &str) -> Option<String> {
        self.get(name)
            .and_then(|a| a.s.as_ref())
            .map(|s| String::from_utf8_lossy(s).into_owned())
    }
    pub(crate) fn tensor(&self, name: &str) -> Option<&'n TensorProto> {
        self.get(name).and_then(|a| a.t.as_ref())
    }
    pub(crate) fn graph(&self, name: &str) -> Option<&'n GraphProto> {
        self.get(name).and_then(|a| a.g.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(name: &str, f: impl FnOnce(&mut AttributeProto)) -> NodeProto {
        let mut a = AttributeProto {
            name: Some(name.into()),
            ..Default::default()
        };
        f(&mut a);
        NodeProto {
            attribute: vec![a],
            ..Default::default()
        }
    }

    #[test]
    fn attributes_of_the_wrong_type_are_errors() {
        let table = known("Softmax").unwrap();
        let float_axis = attr("axis", |a| {
            a.r#type = Some(K::Float as i32);
            a.f = Some(1.5);
        });
        let e = check("Softmax", table, &float_axis).unwrap_err();
        assert!(e.contains("must be INT, got FLOAT"), "{e}");
        // No `type` field (old files): the value field decides.
        let untyped = attr("axis", |a| a.f = Some(1.0));
        assert!(check("Softmax", table, &untyped).is_err());
        let ok = attr("axis", |a| a.i = Some(1));
        check("Softmax", table, &ok).unwrap();
        // A type without its value.
        let empty = attr("axis", |a| a.r#type = Some(K::Int as i32));
        assert!(
            check("Softmax", table, &empty)
                .unwrap_err()
                .contains("no value")
        );
        let unknown = attr("axes", |a| a.i = Some(1));
        assert!(check("Softmax", table, &unknown).is_err());
    }
}
