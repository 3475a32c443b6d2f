//! Attribute mutations (`onnx-attr`): one node's attributes removed,
//! moved to another field, given evil values or lists of the wrong length;
//! known names on ops that do not take them, unknown, empty or duplicate
//! names; axes out of range; strings, tensors and subgraphs where they do
//! not belong.

use ocannl_onnx::proto::{
    AttributeProto, ModelProto, NodeProto, TensorProto, attribute_proto::AttributeType,
};

use super::{evil, graph, random_node};
use crate::onnx::model_gen::{attr_i, attr_ints, f32_tensor};
use crate::rng::Rng;

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
    "to",
    "saturate",
    "fmod",
    "direction",
    "detect_positive",
    "detect_negative",
    "mode",
    "upper",
    "k",
    "dtype",
    "gamma",
    "lambd",
    "equation",
    "num_groups",
    "p",
    "blocksize",
    "output_padding",
    "output_shape",
    "coordinate_transformation_mode",
    "cubic_coeff_a",
    "exclude_outside",
    "extrapolation_value",
    "keep_aspect_ratio_policy",
    "nearest_mode",
    "antialias",
    "hidden_size",
    "activations",
    "activation_alpha",
    "activation_beta",
    "clip",
    "layout",
    "linear_before_reset",
    "input_forget",
    "output_sequence",
    "start",
    "end",
    "then_branch",
    "else_branch",
];

/// Attributes: wrong types, missing, huge or negative values, unknown
/// names, out-of-range axes, malformed lists.
pub fn attrs(rng: &mut Rng, m: &mut ModelProto) {
    let Some(i) = random_node(rng, m) else {
        return;
    };
    let node = &mut graph(m).node[i];
    match rng.index(10) {
        0 if !node.attribute.is_empty() => remove_one(rng, node),
        1 if !node.attribute.is_empty() => move_value(rng, node),
        2 if !node.attribute.is_empty() => evil_value(rng, node),
        3 if !node.attribute.is_empty() => wrong_length(rng, node),
        4 => known_name(rng, node),
        5 => unknown_name(rng, node),
        6 => axes_out_of_range(rng, node),
        7 => bad_string(rng, node),
        8 => broken_tensor(rng, node),
        _ => subgraph(rng, node),
    }
}

/// One removed (possibly a required one).
fn remove_one(rng: &mut Rng, node: &mut NodeProto) {
    let k = rng.index(node.attribute.len());
    node.attribute.remove(k);
}

/// The value moves to another field; the type tag may stay.
fn move_value(rng: &mut Rng, node: &mut NodeProto) {
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

/// Evil ints in an int or ints attribute.
fn evil_value(rng: &mut Rng, node: &mut NodeProto) {
    let k = rng.index(node.attribute.len());
    let a = &mut node.attribute[k];
    if a.ints.is_empty() {
        a.i = Some(evil(rng));
    } else {
        let j = rng.index(a.ints.len());
        a.ints[j] = evil(rng);
    }
}

/// A list of the wrong length (empty, one short, one long, huge).
fn wrong_length(rng: &mut Rng, node: &mut NodeProto) {
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

/// A known attribute name with an evil value, whether or not the
/// op takes it.
fn known_name(rng: &mut Rng, node: &mut NodeProto) {
    let rank_hint = 6;
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

/// An unknown or empty attribute name, or a duplicate.
fn unknown_name(rng: &mut Rng, node: &mut NodeProto) {
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

/// Axis-like attributes just out of range.
fn axes_out_of_range(rng: &mut Rng, node: &mut NodeProto) {
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

/// Strings where numbers go and unknown enum values.
fn bad_string(rng: &mut Rng, node: &mut NodeProto) {
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
        "DCR",
        "CRD",
        "reflect",
        "wrap",
        "edge",
        "LEFT",
        "RIGHT",
        "bidirectional",
        "cubic",
        "linear",
        "tf_crop_and_resize",
        "not_smaller",
        "ij,jk->ik",
        "ii->i",
        "...ij->...ji",
        "i,i,i,i->",
        "a->b",
        "Tanh",
        "NoSuchActivation",
    ]);
    let name = *rng.pick(&[
        "auto_pad",
        "approximate",
        "axis",
        "mode",
        "direction",
        "equation",
        "coordinate_transformation_mode",
        "nearest_mode",
        "keep_aspect_ratio_policy",
        "activations",
    ]);
    node.attribute.retain(|a| a.name.as_deref() != Some(name));
    node.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::String as i32),
        s: Some(v.as_bytes().to_vec()),
        ..Default::default()
    });
}

/// A tensor attribute with broken data (value of Constant,
/// ConstantOfShape).
fn broken_tensor(rng: &mut Rng, node: &mut NodeProto) {
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

/// A graph, sparse tensor or ref attribute where none belongs.
fn subgraph(rng: &mut Rng, node: &mut NodeProto) {
    if rng.chance(0.6)
        && let Some(g) = node.attribute.iter_mut().find_map(|a| a.g.as_mut())
    {
        branch(rng, g);
        return;
    }
    node.attribute.push(AttributeProto {
        name: Some(rng.pick(ATTR_NAMES).to_string()),
        r#type: Some(AttributeType::Graph as i32),
        g: Some(Default::default()),
        ref_attr_name: rng.chance(0.3).then(|| "outer".into()),
        ..Default::default()
    });
}

/// A branch of an `If` broken: no outputs, an extra one, an output no
/// node makes, a node reading a name that does not exist, itself nested
/// as a branch of its own node, or its nodes dropped.
fn branch(rng: &mut Rng, g: &mut ocannl_onnx::proto::GraphProto) {
    match rng.index(6) {
        0 => g.output.clear(),
        1 => {
            let extra = g.output.first().cloned().unwrap_or_default();
            g.output.push(extra);
        }
        2 => {
            if let Some(o) = g.output.first_mut() {
                o.name = Some("nowhere".into());
            }
        }
        3 => {
            if let Some(n) = g.node.first_mut() {
                n.input.push("no_such_value".into());
            }
        }
        4 => {
            let inner = g.clone();
            g.node.push(NodeProto {
                op_type: Some("If".into()),
                input: vec!["no_cond".into()],
                output: vec!["nested".into()],
                attribute: vec![
                    AttributeProto {
                        name: Some("then_branch".into()),
                        r#type: Some(AttributeType::Graph as i32),
                        g: Some(inner.clone()),
                        ..Default::default()
                    },
                    AttributeProto {
                        name: Some("else_branch".into()),
                        r#type: Some(AttributeType::Graph as i32),
                        g: Some(inner),
                        ..Default::default()
                    },
                ],
                ..Default::default()
            });
        }
        _ => g.node.clear(),
    }
}
