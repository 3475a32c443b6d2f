//! Wiring mutations (`onnx-wiring`): undefined inputs, cycles, two
//! producers of a name, missing or dangling outputs, empty graphs, many
//! graph inputs, nodes without inputs or outputs, unknown ops and
//! domains, names shared by inputs, initializers and outputs.

use ocannl_onnx::proto::{GraphProto, ModelProto, tensor_proto::DataType};

use super::graph;
use crate::onnx::model_gen::{f32_tensor, value_info};
use crate::rng::Rng;

/// Wiring: undefined inputs, cycles, duplicate names, no outputs, outputs
/// no node produces, empty node lists, many inputs, empty names.
pub fn wiring(rng: &mut Rng, m: &mut ModelProto) {
    let g = graph(m);
    let n = g.node.len();
    match rng.index(12) {
        0 if n > 0 => undefined_input(rng, g, n),
        1 if n > 0 => cycle(rng, g, n),
        2 if n > 0 => two_producers(rng, g, n),
        3 => g.output.clear(),
        4 if !g.output.is_empty() => {
            let k = rng.index(g.output.len());
            g.output[k].name = Some(rng.pick(&["nowhere", "", "x1"]).to_string());
        }
        5 => {
            g.node.clear();
        }
        6 => many_inputs(rng, g),
        7 if n > 0 => empty_names(rng, g, n),
        8 if n > 0 => foreign_op(rng, g, n),
        9 if !g.input.is_empty() => shared_names(rng, g),
        10 if n > 0 => extra_operands(rng, g, n),
        _ => output_is_input(rng, g, n),
    }
}

/// A node input no node produces.
fn undefined_input(rng: &mut Rng, g: &mut GraphProto, n: usize) {
    let k = rng.index(n);
    let node = &mut g.node[k];
    if node.input.is_empty() {
        node.input.push("undefined_value".into());
    } else {
        let j = rng.index(node.input.len());
        node.input[j] = "undefined_value".into();
    }
}

/// A cycle: an input of an early node is a later node's output.
fn cycle(rng: &mut Rng, g: &mut GraphProto, n: usize) {
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

/// Two producers of one name.
fn two_producers(rng: &mut Rng, g: &mut GraphProto, n: usize) {
    let a = rng.index(n);
    let b = rng.index(n);
    let name = g.node[a].output.first().cloned().unwrap_or_default();
    if let Some(o) = g.node[b].output.first_mut() {
        *o = name;
    } else {
        g.node[b].output.push(name);
    }
}

/// Many graph inputs (unused), or many uses of one.
fn many_inputs(rng: &mut Rng, g: &mut GraphProto) {
    let many = rng.range(200, 3000);
    for i in 0..many {
        g.input.push(value_info(
            &format!("extra{i}"),
            DataType::Float as i32,
            Some(&[1]),
        ));
    }
}

/// A node with no inputs, no outputs, or empty names.
fn empty_names(rng: &mut Rng, g: &mut GraphProto, n: usize) {
    let k = rng.index(n);
    let node = &mut g.node[k];
    match rng.index(4) {
        0 => node.input.clear(),
        1 => node.output.clear(),
        2 => node.input.push(String::new()),
        _ => node.output.insert(0, String::new()),
    }
}

/// Unknown, empty or foreign ops.
fn foreign_op(rng: &mut Rng, g: &mut GraphProto, n: usize) {
    let k = rng.index(n);
    let node = &mut g.node[k];
    match rng.index(4) {
        0 => node.op_type = Some("NoSuchOp".into()),
        1 => node.op_type = Some(String::new()),
        2 => node.op_type = None,
        _ => node.domain = Some(rng.pick(&["com.microsoft", "ai.onnx.ml", "x"]).to_string()),
    }
}

/// Duplicate graph inputs, an input that is also an initializer
/// of another shape, an output that is an input.
fn shared_names(rng: &mut Rng, g: &mut GraphProto) {
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

/// A node's extra outputs and inputs (Split, Dropout masks,
/// BatchNormalization's training outputs, MaxPool indices).
fn extra_operands(rng: &mut Rng, g: &mut GraphProto, n: usize) {
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

/// A node output that is a graph input's name.
fn output_is_input(rng: &mut Rng, g: &mut GraphProto, n: usize) {
    if n > 0
        && let Some(name) = g.input.first().and_then(|v| v.name.clone())
    {
        let k = rng.index(n);
        if let Some(o) = g.node[k].output.first_mut() {
            *o = name;
        }
    }
}
