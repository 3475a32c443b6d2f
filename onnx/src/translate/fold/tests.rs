//! Folding on small graphs built here: what folds, into which numbers,
//! and what must not fold.

use super::*;
use crate::Model;
use crate::proto::{AttributeProto, TensorProto, ValueInfoProto};

fn node(name: &str, op: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        name: Some(name.into()),
        op_type: Some(op.into()),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

fn with_float(mut n: NodeProto, name: &str, f: f32) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(crate::proto::attribute_proto::AttributeType::Float as i32),
        f: Some(f),
        ..Default::default()
    });
    n
}

fn with_int(mut n: NodeProto, name: &str, i: i64) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(crate::proto::attribute_proto::AttributeType::Int as i32),
        i: Some(i),
        ..Default::default()
    });
    n
}

fn floats(name: &str, dims: &[i64], data: &[f32]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(D::Float as i32),
        float_data: data.to_vec(),
        ..Default::default()
    }
}

fn value(name: &str) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        ..Default::default()
    }
}

/// `x`: f32 `[1, 1, 2, 2]`.
fn input_x() -> ValueInfoProto {
    super::super::test_graphs::float_value("x", &[1, 1, 2, 2])
}

fn model(nodes: Vec<NodeProto>, inits: Vec<TensorProto>, outputs: &[&str]) -> Model {
    let outputs = outputs.iter().map(|o| value(o)).collect();
    super::super::test_graphs::model(nodes, inits, vec![input_x()], outputs)
}

fn plan_of(m: &Model, rank: Option<usize>) -> Plan {
    let consts = m
        .graph
        .initializers
        .iter()
        .map(|t| (t.name.clone().unwrap(), Tensor::decode(t).unwrap()))
        .collect();
    plan(&m.graph, &consts, &|n: &str| rank.filter(|_| n == "x"))
}

fn values(plan: &Plan, i: usize) -> Vec<f64> {
    plan.consts[i].1.to_f64().unwrap()
}

/// Conv (2 output channels, 1x1) and its BatchNormalization's parameters:
/// `s = scale / sqrt(var + 1) = [1, 3]`.
fn conv_bn_inits() -> Vec<TensorProto> {
    vec![
        floats("w", &[2, 1, 1, 1], &[1.0, 2.0]),
        floats("b", &[2], &[0.5, -1.0]),
        floats("scale", &[2], &[2.0, 3.0]),
        floats("bias", &[2], &[1.0, 1.0]),
        floats("mean", &[2], &[0.5, 0.0]),
        floats("var", &[2], &[3.0, 0.0]),
    ]
}

fn bn(input: &str, out: &str) -> NodeProto {
    with_float(
        node(
            "bn",
            "BatchNormalization",
            &[input, "scale", "bias", "mean", "var"],
            &[out],
        ),
        "epsilon",
        1.0,
    )
}

#[test]
fn conv_and_batch_norm_fold_into_the_weights_and_bias() {
    let m = model(
        vec![node("conv", "Conv", &["x", "w", "b"], &["c"]), bn("c", "y")],
        conv_bn_inits(),
        &["y"],
    );
    let p = plan_of(&m, None);
    assert_eq!(p.removed, HashSet::from([1]));
    let conv = &p.replaced[&0][0];
    assert_eq!(conv.name.as_deref(), Some("conv"));
    assert_eq!(conv.output, ["y"]);
    assert_eq!(conv.input[0], "x");
    assert_eq!(values(&p, 0), [1.0, 6.0]);
    // (B - mean) * s + bias.
    assert_eq!(values(&p, 1), [1.0, -2.0]);
    assert_eq!(p.consts[1].1.dims, [2]);
}

#[test]
fn a_second_reader_or_a_graph_output_keeps_the_nodes() {
    let twice = model(
        vec![
            node("conv", "Conv", &["x", "w", "b"], &["c"]),
            bn("c", "y"),
            node("relu", "Relu", &["c"], &["z"]),
        ],
        conv_bn_inits(),
        &["y", "z"],
    );
    assert!(plan_of(&twice, None).replaced.is_empty());
    let output = model(
        vec![node("conv", "Conv", &["x", "w", "b"], &["c"]), bn("c", "y")],
        conv_bn_inits(),
        &["y", "c"],
    );
    assert!(plan_of(&output, None).replaced.is_empty());
    // Training mode, and a variance computed at run time.
    let training = model(
        vec![
            node("conv", "Conv", &["x", "w", "b"], &["c"]),
            with_int(bn("c", "y"), "training_mode", 1),
        ],
        conv_bn_inits(),
        &["y"],
    );
    assert!(plan_of(&training, None).replaced.is_empty());
    let computed = model(
        vec![
            node("conv", "Conv", &["x", "w", "b"], &["c"]),
            node("abs", "Abs", &["var"], &["v"]),
            node(
                "bn",
                "BatchNormalization",
                &["c", "scale", "bias", "mean", "v"],
                &["y"],
            ),
        ],
        conv_bn_inits(),
        &["y"],
    );
    assert!(plan_of(&computed, None).replaced.is_empty());
}

#[test]
fn per_channel_mul_and_add_fold_along_the_channel_axis_only() {
    let inits = |k: &[i64]| {
        vec![
            floats("w", &[2, 1, 1, 1], &[1.0, 2.0]),
            floats("k", k, &[3.0, 5.0]),
        ]
    };
    let chain = |k: &[i64]| {
        model(
            vec![
                node("conv", "Conv", &["x", "w"], &["c"]),
                node("mul", "Mul", &["k", "c"], &["d"]),
                node("add", "Add", &["d", "k"], &["y"]),
            ],
            inits(k),
            &["y"],
        )
    };
    for k in [&[2, 1, 1][..], &[1, 2, 1, 1]] {
        let p = plan_of(&chain(k), None);
        assert_eq!(p.removed, HashSet::from([1, 2]), "{k:?}");
        assert_eq!(values(&p, 0), [3.0, 10.0]);
        assert_eq!(values(&p, 1), [3.0, 5.0]);
    }
    // Along the last axis, or widening the output: not per channel.
    for k in [&[1, 1, 1, 2][..], &[1, 1, 2, 1, 1]] {
        assert!(plan_of(&chain(k), None).replaced.is_empty(), "{k:?}");
    }
}

#[test]
fn gemm_and_matmul_fold_per_column() {
    // Gemm, B transposed ([N, K] = [2, 1]), C = [1, 1], beta 2.
    let gemm = model(
        vec![
            with_float(
                with_int(node("fc", "Gemm", &["x", "w", "cc"], &["c"]), "transB", 1),
                "beta",
                2.0,
            ),
            bn("c", "y"),
        ],
        vec![
            floats("w", &[2, 1], &[1.0, 2.0]),
            floats("cc", &[1], &[1.0]),
            floats("scale", &[2], &[2.0, 3.0]),
            floats("bias", &[2], &[1.0, 1.0]),
            floats("mean", &[2], &[0.5, 0.0]),
            floats("var", &[2], &[3.0, 0.0]),
        ],
        &["y"],
    );
    let p = plan_of(&gemm, None);
    let fc = &p.replaced[&0][0];
    assert_eq!(values(&p, 0), [1.0, 6.0]);
    // (2 * C - mean) * s + bias.
    assert_eq!(values(&p, 1), [2.5, 7.0]);
    let beta = fc
        .attribute
        .iter()
        .find(|a| a.name.as_deref() == Some("beta"));
    assert_eq!(beta.and_then(|a| a.f), Some(1.0));
    // MatMul: the bias is an Add of the MatMul's name.
    let mm = |ops: &[&str]| {
        let mut nodes = vec![node("mm", "MatMul", &["x", "w"], &["c0"])];
        for (i, op) in ops.iter().enumerate() {
            let (x, y) = (format!("c{i}"), format!("c{}", i + 1));
            let k = if *op == "Mul" { "s" } else { "k" };
            nodes.push(node(op, op, &[&x, k], &[&y]));
        }
        let out = format!("c{}", ops.len());
        let inits = vec![
            floats("w", &[1, 2], &[1.0, 2.0]),
            floats("s", &[2], &[2.0, 0.5]),
            floats("k", &[2], &[3.0, 5.0]),
        ];
        model(nodes, inits, &[&out])
    };
    let p = plan_of(&mm(&["Mul", "Add"]), None);
    let nodes = &p.replaced[&0];
    assert_eq!(nodes.len(), 2);
    assert_eq!(nodes[1].op_type.as_deref(), Some("Add"));
    assert_eq!(nodes[1].name.as_deref(), Some("mm"));
    assert_eq!(nodes[1].output, ["c2"]);
    assert_eq!(nodes[0].output[0], nodes[1].input[0]);
    assert_eq!(values(&p, 0), [2.0, 1.0]);
    assert_eq!(values(&p, 1), [3.0, 5.0]);
    // A MatMul and its bias alone: nothing to gain.
    assert!(plan_of(&mm(&["Add"]), None).replaced.is_empty());
    assert_eq!(plan_of(&mm(&["Mul"]), None).replaced[&0].len(), 1);
}

#[test]
fn a_shift_alone_keeps_the_weights() {
    let m = model(
        vec![
            node("conv", "Conv", &["x", "w", "b"], &["c"]),
            node("add", "Add", &["c", "k"], &["y"]),
        ],
        vec![
            floats("w", &[2, 1, 1, 1], &[1.0, 2.0]),
            floats("b", &[2], &[0.5, -1.0]),
            floats("k", &[2, 1, 1], &[3.0, 5.0]),
        ],
        &["y"],
    );
    let p = plan_of(&m, None);
    assert_eq!(p.replaced[&0][0].input[1], "w");
    assert_eq!(p.consts.len(), 1);
    assert_eq!(values(&p, 0), [3.5, 4.0]);
}

#[test]
fn matmul_folds_batch_norm_only_with_a_known_rank_of_two() {
    let mm = model(
        vec![node("mm", "MatMul", &["x", "w"], &["c"]), bn("c", "y")],
        vec![
            floats("w", &[1, 2], &[1.0, 2.0]),
            floats("scale", &[2], &[2.0, 3.0]),
            floats("bias", &[2], &[1.0, 1.0]),
            floats("mean", &[2], &[0.5, 0.0]),
            floats("var", &[2], &[3.0, 0.0]),
        ],
        &["y"],
    );
    assert!(plan_of(&mm, None).replaced.is_empty());
    assert!(plan_of(&mm, Some(3)).replaced.is_empty());
    assert_eq!(plan_of(&mm, Some(2)).replaced[&0].len(), 2);
}

#[test]
fn conv_transpose_scales_its_output_channels() {
    // W: [C=2, M/group=1, 1, 1], group 2: input channel c feeds output c.
    let m = model(
        vec![
            with_int(node("ct", "ConvTranspose", &["x", "w"], &["c"]), "group", 2),
            node("mul", "Mul", &["c", "k"], &["y"]),
        ],
        vec![
            floats("w", &[2, 1, 1, 1], &[1.0, 2.0]),
            floats("k", &[2, 1, 1], &[3.0, 5.0]),
        ],
        &["y"],
    );
    let p = plan_of(&m, None);
    assert_eq!(values(&p, 0), [3.0, 10.0]);
    assert_eq!(values(&p, 1), [0.0, 0.0]);
}

#[test]
fn the_translation_has_no_batch_norm_left() {
    let m = model(
        vec![node("conv", "Conv", &["x", "w", "b"], &["c"]), bn("c", "y")],
        conv_bn_inits(),
        &["y"],
    );
    let opts = crate::Options {
        source: "m.onnx".into(),
        ..Default::default()
    };
    let folded = crate::translate(&m, &opts).unwrap();
    assert!(!folded.contains("sqrt"), "{folded}");
    assert!(!folded.contains("BatchNormalization"), "{folded}");
    let kept = crate::translate(
        &m,
        &crate::Options {
            no_fold: true,
            ..opts
        },
    )
    .unwrap();
    assert!(kept.contains("sqrt") && kept.contains("(BatchNormalization)"));
}
