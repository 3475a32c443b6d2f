//! Empty tensors (a size-0 axis) and sizes past what the importer unrolls
//! or indexes: results of the right dims, or located errors (no crash).

use super::{Model, f32v, import_and_run, import_rejects, init_i64, int, node, npy_bytes};

/// A reduction over an empty axis is its identity; over a kept empty axis,
/// a result without cells.
#[test]
fn onnx_reductions_over_empty_axes_give_their_identity() {
    let model = |op: &str, axis: i64, out: &[i64]| {
        Model::new(
            vec![node(op, &["x", "a"], &["y"], vec![int("keepdims", 1)])],
            vec![f32v("x", &[2, 0, 3])],
            vec![f32v("y", out)],
        )
        .opset(18)
        .inits(vec![init_i64("a", &[1], &[axis])])
    };
    let x = npy_bytes("<f4", "(2, 0, 3)", &[]);
    for (op, want) in [
        ("ReduceSum", 0.0f32),
        ("ReduceProd", 1.0),
        ("ReduceMax", f32::NEG_INFINITY),
    ] {
        let (out, data) = import_and_run(
            "empty_reduce",
            op,
            model(op, 1, &[2, 1, 3]),
            std::slice::from_ref(&x),
            1,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got: Vec<f32> = data[0]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, vec![want; 6], "{op}");
    }
    let (out, data) = import_and_run(
        "empty_reduce",
        "kept",
        model("ReduceSum", 2, &[2, 0, 1]),
        &[x],
        1,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(data[0].is_empty());
}

/// A pointwise op on a tensor empty along an inner axis runs (the lowered
/// function takes it as `memref<0xf32>`) and writes an empty result.
#[test]
fn onnx_pointwise_ops_run_on_empty_inner_axes() {
    let model = Model::new(
        vec![node("Relu", &["x"], &["y"], vec![])],
        vec![f32v("x", &[4, 0])],
        vec![f32v("y", &[4, 0])],
    );
    let (out, data) = import_and_run(
        "empty_relu",
        "relu",
        model,
        &[npy_bytes("<f4", "(4, 0)", &[])],
        1,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("float32[4, 0]"), "{stdout}");
    assert!(data[0].is_empty());
}

/// An op that does not take empty inputs says so, naming the input.
#[test]
fn onnx_ops_refuse_empty_inputs_they_cannot_take() {
    let model = Model::new(
        vec![node("Softmax", &["x"], &["y"], vec![int("axis", 1)])],
        vec![f32v("x", &[3, 0])],
        vec![f32v("y", &[3, 0])],
    );
    import_rejects(
        "empty_softmax",
        "softmax",
        model,
        "input #0 ('x') has no cells (a dim of size 0): empty tensors are not supported by Softmax",
    );
}

/// A recurrent op is unrolled over its sequence: a length past the limit
/// is an error before anything is allocated for it (it was a capacity
/// overflow panic).
#[test]
fn onnx_recurrent_sequences_past_the_unroll_limit_are_errors() {
    let model = Model::new(
        vec![node(
            "RNN",
            &["x", "w", "r"],
            &["", "h"],
            vec![int("hidden_size", 1)],
        )],
        vec![
            f32v("x", &[1 << 62, 1, 2]),
            f32v("w", &[1, 1, 2]),
            f32v("r", &[1, 1, 1]),
        ],
        vec![f32v("h", &[1, 1, 1])],
    );
    import_rejects("rnn_steps", "rnn", model, "past the limit of 4096 steps");
}

/// EyeLike of dims near `i64::MAX`: an error, not an overflow in its
/// diagonal's clamp.
#[test]
fn onnx_eye_like_of_huge_dims_is_an_error() {
    let model = Model::new(
        vec![node("EyeLike", &["x"], &["y"], vec![int("k", 0)])],
        vec![f32v("x", &[1 << 40, i64::MAX])],
        vec![f32v("y", &[1 << 40, i64::MAX])],
    );
    import_rejects("eye_like_huge", "eye", model, "not supported");
}
