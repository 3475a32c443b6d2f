//! Hostile ONNX models through `ocannl-import-onnx` and `ocannl-run`: each
//! class an adversarial pass found (crashes, aborts, silent wrong answers)
//! as a test named by what it guards. Models are built here with the
//! importer's own protobuf types (no Python, no files checked in).

use std::path::PathBuf;
use std::process::{Command, Output};

use ocannl_onnx::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto,
    TensorShapeProto, TypeProto, ValueInfoProto, attribute_proto::AttributeType, tensor_proto,
    tensor_shape_proto, type_proto,
};
use prost::Message as _;

use super::{OCANNL_IMPORT_ONNX, npy_bytes, run_tool, scratch};

#[path = "onnx_empty.rs"]
mod onnx_empty;
#[path = "onnx_types.rs"]
mod onnx_types;

const F32: i32 = tensor_proto::DataType::Float as i32;
const I64: i32 = tensor_proto::DataType::Int64 as i32;

/// A graph input or output of element type `elem` (`None`: no shape).
fn value(name: &str, elem: i32, dims: Option<&[i64]>) -> ValueInfoProto {
    let shape = dims.map(|d| TensorShapeProto {
        dim: d
            .iter()
            .map(|&n| tensor_shape_proto::Dimension {
                value: Some(tensor_shape_proto::dimension::Value::DimValue(n)),
                ..Default::default()
            })
            .collect(),
    });
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem),
                shape,
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn f32v(name: &str, dims: &[i64]) -> ValueInfoProto {
    value(name, F32, Some(dims))
}

fn open(name: &str) -> ValueInfoProto {
    value(name, F32, None)
}

fn node(op: &str, inputs: &[&str], outputs: &[&str], attrs: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        name: Some(format!("n_{op}")),
        input: inputs.iter().map(|s| (*s).into()).collect(),
        output: outputs.iter().map(|s| (*s).into()).collect(),
        attribute: attrs,
        ..Default::default()
    }
}

fn int(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(v),
        ..Default::default()
    }
}

fn float(name: &str, v: f32) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Float as i32),
        f: Some(v),
        ..Default::default()
    }
}

fn ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Ints as i32),
        ints: v.to_vec(),
        ..Default::default()
    }
}

fn string(name: &str, v: &str) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::String as i32),
        s: Some(v.as_bytes().to_vec()),
        ..Default::default()
    }
}

fn init_i64(name: &str, dims: &[i64], data: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        data_type: Some(I64),
        dims: dims.to_vec(),
        int64_data: data.to_vec(),
        ..Default::default()
    }
}

fn init_f32(name: &str, dims: &[i64], data: &[f32]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        data_type: Some(F32),
        dims: dims.to_vec(),
        float_data: data.to_vec(),
        ..Default::default()
    }
}

/// A model's bytes (opset 17 unless set).
struct Model {
    graph: GraphProto,
    opset: i64,
}

impl Model {
    fn new(
        nodes: Vec<NodeProto>,
        inputs: Vec<ValueInfoProto>,
        outputs: Vec<ValueInfoProto>,
    ) -> Self {
        Self {
            graph: GraphProto {
                name: Some("g".into()),
                node: nodes,
                input: inputs,
                output: outputs,
                ..Default::default()
            },
            opset: 17,
        }
    }

    fn opset(mut self, v: i64) -> Self {
        self.opset = v;
        self
    }

    fn inits(mut self, t: Vec<TensorProto>) -> Self {
        self.graph.initializer = t;
        self
    }

    fn bytes(self) -> Vec<u8> {
        ModelProto {
            ir_version: Some(8),
            opset_import: vec![OperatorSetIdProto {
                domain: Some(String::new()),
                version: Some(self.opset),
            }],
            graph: Some(self.graph),
            ..Default::default()
        }
        .encode_to_vec()
    }
}

/// `ocannl-import-onnx` on `bytes` (written as `test/name.onnx`): its
/// output and the `.mlir` path.
fn import(test: &str, name: &str, bytes: &[u8]) -> (Output, PathBuf) {
    let model = scratch(test, &format!("{name}.onnx"), bytes);
    let mlir = model.with_extension("mlir");
    let out = Command::new(OCANNL_IMPORT_ONNX)
        .arg(&model)
        .arg("-o")
        .arg(&mlir)
        .output()
        .expect("ocannl-import-onnx runs");
    (out, mlir)
}

/// Exit 1, one `error:` naming `needle`, no crash report.
fn assert_rejected(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(stderr.contains("error:"), "no error in: {stderr}");
    assert!(stderr.contains(needle), "missing {needle:?} in: {stderr}");
    for crash in [
        "panicked",
        "Stack dump",
        "LLVM ERROR",
        "memory allocation of",
    ] {
        assert!(!stderr.contains(crash), "crash report in: {stderr}");
    }
}

/// The model is refused on import with `needle` in the error.
fn import_rejects(test: &str, name: &str, model: Model, needle: &str) {
    let (out, _) = import(test, name, &model.bytes());
    assert_rejected(&out, needle);
}

/// Imports (must succeed) and runs the model on `inputs` (`.npy` bytes),
/// returning ocannl-run's output and the result files' data.
fn import_and_run(
    test: &str,
    name: &str,
    model: Model,
    inputs: &[Vec<u8>],
    outputs: usize,
) -> (Output, Vec<Vec<u8>>) {
    let (out, mlir) = import(test, name, &model.bytes());
    assert!(
        out.status.success(),
        "import failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ins: Vec<PathBuf> = inputs
        .iter()
        .enumerate()
        .map(|(i, b)| scratch(test, &format!("{name}-in{i}.npy"), b))
        .collect();
    let outs: Vec<PathBuf> = (0..outputs)
        .map(|i| mlir.with_file_name(format!("{name}-out{i}.npy")))
        .collect();
    let mut args: Vec<String> = vec![mlir.display().to_string()];
    if !ins.is_empty() {
        args.push("--inputs".into());
        args.extend(ins.iter().map(|p| p.display().to_string()));
    }
    args.push("--outputs".into());
    args.extend(outs.iter().map(|p| p.display().to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_tool(&refs);
    let data = outs
        .iter()
        .map(|p| std::fs::read(p).map(|b| npy_data(&b)).unwrap_or_default())
        .collect();
    (out, data)
}

/// The data of a `.npy` file (format 1.0 or 2.0).
fn npy_data(b: &[u8]) -> Vec<u8> {
    let (len, start) = if b[6] == 1 {
        (usize::from(u16::from_le_bytes([b[8], b[9]])), 10)
    } else {
        (u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize, 12)
    };
    b[start + len..].to_vec()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn f32_npy(shape: &str, v: &[f32]) -> Vec<u8> {
    let data: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    npy_bytes("<f4", shape, &data)
}

#[test]
fn onnx_axes_far_past_any_rank_are_errors_before_sizing() {
    // Once: an abort ("memory allocation of 26388279066624 bytes failed")
    // or a capacity-overflow panic, sizing labels by the axis.
    let t = "onnx-axes";
    for axis in [1i64 << 40, -(1i64 << 40), i64::MAX, i64::MIN, 1025, -1025] {
        for op in [
            "Flatten",
            "Concat",
            "Softmax",
            "LogSoftmax",
            "Gather",
            "Split",
        ] {
            let mut ins = vec!["X"];
            let mut inits = vec![];
            if op == "Gather" {
                ins.push("I");
                inits.push(init_i64("I", &[], &[0]));
            }
            let outs: &[&str] = if op == "Split" { &["Y", "Z"] } else { &["Y"] };
            let m = Model::new(
                vec![node(op, &ins, outs, vec![int("axis", axis)])],
                vec![open("X")],
                outs.iter().map(|o| open(o)).collect(),
            )
            .inits(inits);
            import_rejects(t, op, m, "is out of range");
        }
        let m = Model::new(
            vec![node(
                "LayerNormalization",
                &["X", "S"],
                &["Y"],
                vec![int("axis", axis)],
            )],
            vec![open("X"), f32v("S", &[4])],
            vec![open("Y")],
        );
        import_rejects(t, "layernorm", m, "axis");
        let m = Model::new(
            vec![node("ReduceSum", &["X", "A"], &["Y"], vec![])],
            vec![open("X")],
            vec![open("Y")],
        )
        .inits(vec![init_i64("A", &[1], &[axis])]);
        import_rejects(t, "reducesum", m, "is out of range");
    }
}

#[test]
fn onnx_empty_gather_indices_are_errors() {
    let m = Model::new(
        vec![node("Gather", &["X", "I"], &["Y"], vec![int("axis", 0)])],
        vec![f32v("X", &[3, 4])],
        vec![open("Y")],
    )
    .inits(vec![init_i64("I", &[0], &[])]);
    import_rejects("onnx-gather", "empty", m, "no indices");
    let m = Model::new(
        vec![node("Gather", &["X", "I"], &["Y"], vec![int("axis", 0)])],
        vec![f32v("X", &[3, 4])],
        vec![open("Y")],
    )
    .inits(vec![init_i64("I", &[1], &[3])]);
    import_rejects("onnx-gather", "past", m, "index 3 of an axis of size 3");
}

#[test]
fn onnx_convolutions_and_pools_of_the_wrong_rank_are_errors() {
    let t = "onnx-conv-rank";
    let w = || init_f32("W", &[1, 1, 3], &[1.0; 3]);
    // A rank-1 and a rank-0 input for a 1-D convolution with auto_pad.
    for dims in [&[4i64][..], &[]] {
        let m = Model::new(
            vec![node(
                "Conv",
                &["X", "W"],
                &["Y"],
                vec![string("auto_pad", "SAME_UPPER"), ints("strides", &[2])],
            )],
            vec![f32v("X", dims)],
            vec![open("Y")],
        )
        .inits(vec![w()]);
        import_rejects(t, "conv", m, "Conv needs N, C and 1 spatial axes");
    }
    // A kernel shorter than the spatial rank.
    let m = Model::new(
        vec![node(
            "MaxPool",
            &["X"],
            &["Y"],
            vec![ints("kernel_shape", &[3])],
        )],
        vec![f32v("X", &[1, 1, 5, 5])],
        vec![open("Y")],
    );
    import_rejects(t, "pool", m, "1-axis kernel_shape");
    let m = Model::new(
        vec![node(
            "Conv",
            &["X", "W"],
            &["Y"],
            vec![ints("kernel_shape", &[3])],
        )],
        vec![f32v("X", &[1, 1, 5, 5])],
        vec![open("Y")],
    )
    .inits(vec![init_f32("W", &[1, 1, 3, 3], &[1.0; 9])]);
    import_rejects(t, "conv-short", m, "kernel_shape [3]");
    // Unknown input rank: the pool still needs N, C and its kernel's axes.
    let m = Model::new(
        vec![node(
            "AveragePool",
            &["X"],
            &["Y"],
            vec![ints("kernel_shape", &[2])],
        )],
        vec![open("X")],
        vec![open("Y")],
    );
    let (out, data) = import_and_run(t, "pool-open", m, &[f32_npy("(1, 1, 4, 4)", &[1.0; 16])], 1);
    assert!(
        !out.status.success(),
        "a 4-D input pooled by a 1-D kernel ran: {data:?}"
    );
    assert_rejected(&out, "error");
}

#[test]
fn onnx_matmul_of_scalars_is_an_error() {
    for (a, b) in [(&[][..], &[][..]), (&[], &[3]), (&[2, 3], &[])] {
        let m = Model::new(
            vec![node("MatMul", &["A", "B"], &["Y"], vec![])],
            vec![f32v("A", a), f32v("B", b)],
            vec![open("Y")],
        );
        import_rejects("onnx-matmul", "scalar", m, "0-d operand");
    }
}

#[test]
fn onnx_dense_files_are_refused_before_decoding() {
    // 10 MB of empty nodes decodes to gigabytes (once: an abort on a
    // failed allocation for 40 MB); refused before decoding.
    let nodes = 5_000_000usize;
    let mut body = Vec::with_capacity(2 * nodes);
    for _ in 0..nodes {
        body.extend_from_slice(&[0x0a, 0x00]);
    }
    let mut bytes = vec![0x3a];
    let mut n = body.len();
    while n >= 0x80 {
        bytes.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    bytes.push(n as u8);
    bytes.extend_from_slice(&body);
    let (out, _) = import("onnx-dense", "empty-nodes", &bytes);
    assert_rejected(&out, "refused before decoding");
}

#[test]
fn onnx_endless_or_special_files_are_errors() {
    for path in ["/dev/zero", "/dev/null", "/"] {
        let out = Command::new(OCANNL_IMPORT_ONNX)
            .arg(path)
            .output()
            .expect("ocannl-import-onnx runs");
        assert_rejected(&out, "error:");
    }
}

#[test]
fn onnx_int64_constants_are_exact() {
    // Once rounded through f64: 2^53 + 1 became 2^53.
    let big = (1i64 << 53) + 1;
    for (name, data) in [("splat", vec![big, big]), ("dense", vec![big, -big])] {
        let m = Model::new(
            vec![node("Add", &["X", "C"], &["Y"], vec![])],
            vec![value("X", I64, Some(&[2]))],
            vec![value("Y", I64, Some(&[2]))],
        )
        .inits(vec![init_i64("C", &[2], &data)]);
        let x = npy_bytes("<i8", "(2,)", &[0u8; 16]);
        let (out, res) = import_and_run("onnx-int64", name, m, &[x], 1);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got: Vec<i64> = res[0]
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, data);
    }
    // ConstantOfShape's value too.
    let value_t = TensorProto {
        data_type: Some(I64),
        dims: vec![1],
        int64_data: vec![big],
        ..Default::default()
    };
    let attr = AttributeProto {
        name: Some("value".into()),
        r#type: Some(AttributeType::Tensor as i32),
        t: Some(value_t),
        ..Default::default()
    };
    let m = Model::new(
        vec![node("ConstantOfShape", &["S"], &["Y"], vec![attr])],
        vec![],
        vec![value("Y", I64, Some(&[2]))],
    )
    .inits(vec![init_i64("S", &[1], &[2])]);
    let (out, res) = import_and_run("onnx-int64", "fill", m, &[], 1);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(res[0], [big.to_le_bytes(), big.to_le_bytes()].concat());
}

#[test]
fn onnx_squeeze_of_a_non_unit_axis_is_an_error() {
    let t = "onnx-squeeze";
    let squeeze = |x: ValueInfoProto| {
        Model::new(
            vec![node("Squeeze", &["X", "A"], &["Y"], vec![])],
            vec![x],
            vec![open("Y")],
        )
        .inits(vec![init_i64("A", &[1], &[0])])
    };
    import_rejects(
        t,
        "known",
        squeeze(f32v("X", &[2, 3])),
        "Squeeze of axis 0, of size 2",
    );
    // The size known only at run time: inference rejects it.
    let (out, _) = import_and_run(
        t,
        "open",
        squeeze(open("X")),
        &[f32_npy("(2, 3)", &[1.0; 6])],
        1,
    );
    assert_rejected(&out, "error");
    // A size-1 axis squeezes.
    let (out, res) = import_and_run(
        t,
        "ok",
        squeeze(open("X")),
        &[f32_npy("(1, 3)", &[1.0, 2.0, 3.0])],
        1,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(f32s(&res[0]), [1.0, 2.0, 3.0]);
}

#[test]
fn onnx_split_sizes_must_add_up_to_the_axis() {
    let t = "onnx-split";
    let split = |x: ValueInfoProto, relu: bool| {
        let mut nodes = vec![];
        let src = if relu {
            // An einsum: its result shape is known to inference only.
            nodes.push(node("Transpose", &["X"], &["R"], vec![ints("perm", &[0])]));
            "R"
        } else {
            "X"
        };
        nodes.push(node(
            "Split",
            &[src, "S"],
            &["Y", "Z"],
            vec![int("axis", 0)],
        ));
        Model::new(nodes, vec![x], vec![open("Y"), open("Z")]).inits(vec![init_i64(
            "S",
            &[2],
            &[2, 2],
        )])
    };
    import_rejects(t, "known", split(f32v("X", &[5]), false), "do not add up");
    // Behind a Transpose (which keeps known dims known): still at import.
    import_rejects(t, "relu", split(f32v("X", &[5]), true), "do not add up");
    // Known only from the data: the parts fix the axis to 4, and 5 is an
    // error.
    let (out, _) = import_and_run(
        t,
        "open",
        split(open("X"), false),
        &[f32_npy("(5,)", &[1.0; 5])],
        2,
    );
    assert_rejected(&out, "has size 4 in the shape but 5 in the data");
    let (out, res) = import_and_run(
        t,
        "ok",
        split(open("X"), false),
        &[f32_npy("(4,)", &[1.0, 2.0, 3.0, 4.0])],
        2,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        (f32s(&res[0]), f32s(&res[1])),
        (vec![1.0, 2.0], vec![3.0, 4.0])
    );
}

#[test]
fn onnx_declared_shapes_are_checks_not_constraints() {
    // An Add of two [1, 3] gives [1, 3]; a file recording [4, 3] once
    // widened the result to [4, 3] (OCANNL's broadcasting).
    let t = "onnx-declared";
    let m = Model::new(
        vec![node("Add", &["A", "B"], &["Y"], vec![])],
        vec![f32v("A", &[1, 3]), f32v("B", &[1, 3])],
        vec![f32v("Y", &[4, 3])],
    );
    let (out, _) = import_and_run(t, "add", m, &[], 1);
    assert_rejected(
        &out,
        "declared shape \"4,3\" is not the shape the op computes, \"1,3\"",
    );
    // Through an einsum-based op, and an intermediate recorded in
    // value_info: the node whose record is wrong is named.
    let mut m = Model::new(
        vec![
            node("Add", &["A", "B"], &["S"], vec![]),
            node("Transpose", &["S"], &["Y"], vec![ints("perm", &[1, 0])]),
        ],
        vec![f32v("A", &[1, 3]), f32v("B", &[1, 3])],
        vec![f32v("Y", &[3, 4])],
    );
    m.graph.value_info = vec![f32v("S", &[4, 3])];
    let (out, _) = import_and_run(t, "transpose", m, &[], 1);
    assert_rejected(&out, "node 'n_Add' (Add)");
    // Records that agree change nothing.
    let m = Model::new(
        vec![node("Add", &["A", "B"], &["Y"], vec![])],
        vec![f32v("A", &[1, 3]), f32v("B", &[2, 1])],
        vec![f32v("Y", &[2, 3])],
    );
    let (out, _) = import_and_run(
        t,
        "agree",
        m,
        &[f32_npy("(1, 3)", &[1.0; 3]), f32_npy("(2, 1)", &[1.0; 2])],
        1,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn onnx_activations_are_stable_for_any_input_and_alpha() {
    let t = "onnx-stable";
    let x = [100.0f32, -100.0, 0.0, 2.0, -2.0, 1000.0, -1000.0];
    let xs = || f32_npy("(7,)", &x);
    let run = |name: &str, op: &str, attrs: Vec<AttributeProto>| -> Vec<f32> {
        let m = Model::new(
            vec![node(op, &["X"], &["Y"], attrs)],
            vec![f32v("X", &[7])],
            vec![f32v("Y", &[7])],
        );
        let (out, res) = import_and_run(t, name, m, &[xs()], 1);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        f32s(&res[0])
    };
    // Softplus(100) was inf (exp overflowed).
    let sp = run("softplus", "Softplus", vec![]);
    for (&v, &y) in x.iter().zip(&sp) {
        let want = v.max(0.0) + (-v.abs()).exp().ln_1p();
        assert!(
            (y - want).abs() <= 1e-5 * want.abs().max(1.0),
            "softplus({v}) = {y}, not {want}"
        );
    }
    // Odd alphas: the kept side never sees alpha (inf * 0 was NaN).
    for alpha in [f32::INFINITY, f32::NAN, 0.0, -3.0, 1e30] {
        let lr = run("leaky", "LeakyRelu", vec![float("alpha", alpha)]);
        let elu = run("elu", "Elu", vec![float("alpha", alpha)]);
        for (i, &v) in x.iter().enumerate() {
            let (want_lr, want_elu) = if v >= 0.0 {
                (v, v)
            } else {
                (alpha * v, alpha * (v.exp() - 1.0))
            };
            let same = |a: f32, b: f32| {
                a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-5 * b.abs()
            };
            assert!(
                same(lr[i], want_lr),
                "LeakyRelu alpha {alpha} at {v}: {} not {want_lr}",
                lr[i]
            );
            assert!(
                same(elu[i], want_elu),
                "Elu alpha {alpha} at {v}: {} not {want_elu}",
                elu[i]
            );
        }
    }
}

/// Clip's missing bounds are the type's lowest and largest finite values
/// (the spec's `Min(max, Max(input, min))` with `numeric_limits`
/// defaults, as onnxruntime computes it): Clip(x, min = inf) is the
/// largest finite f32, and so is Clip(inf); it was inf (ocannl-fuzz
/// --onnx, a Clip before a Log).
#[test]
fn onnx_clip_defaults_are_the_finite_limits() {
    let t = "onnx-clip";
    let x = [1.0f32, f32::INFINITY, f32::NEG_INFINITY, -2.0];
    let run = |name: &str, inputs: &[&str], opset: i64, attrs: Vec<AttributeProto>| {
        let m = Model::new(
            vec![node("Clip", inputs, &["Y"], attrs)],
            vec![f32v("X", &[4])],
            vec![f32v("Y", &[4])],
        )
        .opset(opset)
        .inits(vec![
            init_f32("lo", &[], &[f32::INFINITY]),
            init_f32("hi", &[], &[0.0]),
        ]);
        let (out, res) = import_and_run(t, name, m, &[f32_npy("(4,)", &x)], 1);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        f32s(&res[0])
    };
    let max = f32::MAX;
    assert_eq!(run("inf-min", &["X", "lo"], 17, vec![]), [max; 4]);
    assert_eq!(run("no-bounds", &["X"], 17, vec![]), [1.0, max, -max, -2.0]);
    assert_eq!(
        run("max-only", &["X", "", "hi"], 17, vec![]),
        [0.0, 0.0, -max, -2.0]
    );
    let attr = vec![float("min", f32::INFINITY)];
    assert_eq!(run("attr-inf-min", &["X"], 6, attr), [max; 4]);
}

#[test]
fn onnx_attributes_of_the_wrong_type_are_errors() {
    // Once silently replaced by the op's default.
    let t = "onnx-attr";
    let softmax_axis = AttributeProto {
        name: Some("axis".into()),
        r#type: Some(AttributeType::Float as i32),
        f: Some(1.5),
        ..Default::default()
    };
    let m = Model::new(
        vec![node("Softmax", &["X"], &["Y"], vec![softmax_axis])],
        vec![f32v("X", &[2, 3])],
        vec![open("Y")],
    );
    import_rejects(
        t,
        "float-axis",
        m,
        "'axis' of Softmax must be INT, got FLOAT",
    );
    let m = Model::new(
        vec![node(
            "Transpose",
            &["X"],
            &["Y"],
            vec![string("perm", "ab")],
        )],
        vec![f32v("X", &[2, 3])],
        vec![open("Y")],
    );
    import_rejects(t, "string-perm", m, "must be INTS, got STRING");
    // Typed INT with no value.
    let empty = AttributeProto {
        name: Some("axis".into()),
        r#type: Some(AttributeType::Int as i32),
        ..Default::default()
    };
    let m = Model::new(
        vec![node("Concat", &["X", "X"], &["Y"], vec![empty])],
        vec![f32v("X", &[2, 3])],
        vec![open("Y")],
    );
    import_rejects(t, "no-value", m, "holds no value");
}

#[test]
fn onnx_invalid_graphs_are_errors() {
    let t = "onnx-graphs";
    // No outputs: once MLIR that did not parse.
    let m = Model::new(
        vec![node("Relu", &["X"], &["Y"], vec![])],
        vec![f32v("X", &[2])],
        vec![],
    );
    import_rejects(t, "no-outputs", m, "no outputs");
    // Duplicate names: once accepted.
    let m = Model::new(
        vec![node("Add", &["X", "X"], &["Y"], vec![])],
        vec![f32v("X", &[2, 3]), f32v("X", &[4])],
        vec![open("Y")],
    );
    import_rejects(t, "dup-inputs", m, "two graph inputs are named 'X'");
    let m = Model::new(
        vec![node("Add", &["X", "C"], &["Y"], vec![])],
        vec![f32v("X", &[2])],
        vec![open("Y")],
    )
    .inits(vec![
        init_f32("C", &[2], &[1.0, 2.0]),
        init_f32("C", &[1], &[1.0]),
    ]);
    import_rejects(t, "dup-inits", m, "two initializers are named 'C'");
    let m = Model::new(
        vec![node("Relu", &["X"], &["Y"], vec![])],
        vec![f32v("X", &[2]), f32v("", &[2])],
        vec![open("Y")],
    );
    import_rejects(t, "no-name", m, "has no name");
}

#[test]
fn onnx_flags_other_than_0_or_1_are_errors() {
    let m = Model::new(
        vec![node("ReduceSum", &["X"], &["Y"], vec![int("keepdims", 2)])],
        vec![f32v("X", &[2, 3])],
        vec![open("Y")],
    );
    import_rejects("onnx-flags", "keepdims", m, "must be 0 or 1, got 2");
    let m = Model::new(
        vec![node(
            "MaxPool",
            &["X"],
            &["Y"],
            vec![ints("kernel_shape", &[2]), int("ceil_mode", -1)],
        )],
        vec![f32v("X", &[1, 1, 4])],
        vec![open("Y")],
    );
    import_rejects("onnx-flags", "ceil", m, "must be 0 or 1, got -1");
}

#[test]
fn onnx_float_only_ops_on_integers_are_errors() {
    for op in ["Sigmoid", "Exp", "Softmax", "Softplus"] {
        let m = Model::new(
            vec![node(op, &["X"], &["Y"], vec![])],
            vec![value("X", I64, Some(&[3]))],
            vec![value("Y", I64, Some(&[3]))],
        );
        import_rejects("onnx-float-only", op, m, "takes floating-point tensors");
    }
}

#[test]
fn onnx_bad_graph_input_dims_and_output_types_are_errors() {
    let t = "onnx-dims";
    let relu = |x: ValueInfoProto, y: ValueInfoProto| {
        Model::new(vec![node("Relu", &["X"], &["Y"], vec![])], vec![x], vec![y])
    };
    import_rejects(
        t,
        "negative",
        relu(f32v("X", &[2, -3]), open("Y")),
        "the dim -3 is negative",
    );
    // An empty input is taken by the ops that can (see onnx_empty.rs), and
    // refused, named, by the others.
    let softmax = Model::new(
        vec![node("Softmax", &["X"], &["Y"], vec![])],
        vec![f32v("X", &[2, 0])],
        vec![open("Y")],
    );
    import_rejects(t, "zero", softmax, "input #0 ('X') has no cells");
    let many = vec![1i64; 2000];
    import_rejects(t, "many", relu(f32v("X", &many), open("Y")), "2000 dims");
    let f64_out = value("Y", tensor_proto::DataType::Double as i32, Some(&[2]));
    import_rejects(
        t,
        "elem",
        relu(f32v("X", &[2]), f64_out),
        "declared f64, the graph computes f32",
    );
}

#[test]
fn onnx_distinct_symbolic_dims_stay_distinct() {
    // `N-1` and `N_1` were both `s_N_1`: one size for two names.
    let sym = |name: &str, p: &str| ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(F32),
                shape: Some(TensorShapeProto {
                    dim: vec![tensor_shape_proto::Dimension {
                        value: Some(tensor_shape_proto::dimension::Value::DimParam(p.into())),
                        ..Default::default()
                    }],
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    };
    let m = Model::new(
        vec![
            node("Relu", &["A"], &["Y"], vec![]),
            node("Relu", &["B"], &["Z"], vec![]),
        ],
        vec![sym("A", "N-1"), sym("B", "N_1")],
        vec![open("Y"), open("Z")],
    );
    let (out, res) = import_and_run(
        "onnx-symbolic",
        "distinct",
        m,
        &[
            f32_npy("(2,)", &[1.0, 2.0]),
            f32_npy("(3,)", &[1.0, 2.0, 3.0]),
        ],
        2,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!((res[0].len(), res[1].len()), (8, 12));
}

#[test]
fn onnx_window_and_flatten_sizes_past_64_bits_are_errors() {
    let t = "onnx-overflow";
    let big = 1i64 << 62;
    let m = Model::new(
        vec![node(
            "MaxPool",
            &["X"],
            &["Y"],
            vec![
                ints("kernel_shape", &[big]),
                ints("dilations", &[big]),
                ints("strides", &[2]),
                string("auto_pad", "SAME_UPPER"),
            ],
        )],
        vec![f32v("X", &[1, 1, 4])],
        vec![open("Y")],
    );
    import_rejects(t, "pool", m, "overflow");
    let m = Model::new(
        vec![node("Flatten", &["X"], &["Y"], vec![int("axis", 0)])],
        vec![f32v("X", &[big, big, 4])],
        vec![open("Y")],
    );
    import_rejects(t, "flatten", m, "overflow");
}

#[test]
fn onnx_mixed_element_types_are_import_errors() {
    // Once found only by the lowering ("operand #1 has element type f64
    // but the result has f32").
    let f64w = |dims: &[i64], n: usize| TensorProto {
        name: Some("W".into()),
        data_type: Some(tensor_proto::DataType::Double as i32),
        dims: dims.to_vec(),
        double_data: vec![1.0; n],
        ..Default::default()
    };
    for (op, x, w, attrs) in [
        ("Conv", &[1i64, 1, 4, 4][..], f64w(&[1, 1, 3, 3], 9), vec![]),
        ("MatMul", &[2, 3], f64w(&[3, 2], 6), vec![]),
        ("Concat", &[1, 3], f64w(&[1, 3], 3), vec![int("axis", 0)]),
    ] {
        let m = Model::new(
            vec![node(op, &["X", "W"], &["Y"], attrs)],
            vec![f32v("X", x)],
            vec![open("Y")],
        )
        .inits(vec![w]);
        import_rejects("onnx-mixed", op, m, "element types f32 and f64");
    }
}

#[test]
fn onnx_operands_past_their_schema_are_errors() {
    let t = "onnx-schema";
    // Softmax (opset 11) and LayerNormalization on axis == rank
    // normalised over nothing.
    let m = Model::new(
        vec![node("Softmax", &["X"], &["Y"], vec![int("axis", 2)])],
        vec![f32v("X", &[3, 4])],
        vec![open("Y")],
    )
    .opset(11);
    let (out, _) = import(t, "softmax11", &m.bytes());
    assert_rejected(&out, "axis 2 of a rank-2 input");
    let m = Model::new(
        vec![node(
            "LayerNormalization",
            &["X", "S"],
            &["Y"],
            vec![int("axis", 2)],
        )],
        vec![f32v("X", &[3, 4]), f32v("S", &[4])],
        vec![open("Y")],
    );
    import_rejects(t, "layernorm", m, "axis 2");
    // Gemm's C broadcasts to (M, N) one way; Clip's bounds are scalars.
    let m = Model::new(
        vec![node("Gemm", &["A", "B", "C"], &["Y"], vec![])],
        vec![
            f32v("A", &[2, 3]),
            f32v("B", &[3, 2]),
            f32v("C", &[4, 2, 2]),
        ],
        vec![open("Y")],
    );
    import_rejects(t, "gemm", m, "rank-3 C");
    let m = Model::new(
        vec![node("Clip", &["X", "L"], &["Y"], vec![])],
        vec![f32v("X", &[3]), f32v("L", &[3])],
        vec![open("Y")],
    );
    import_rejects(t, "clip", m, "must be scalars");
    // A kernel whose size overflows: an error, not an overflow.
    let m = Model::new(
        vec![node(
            "AveragePool",
            &["X"],
            &["Y"],
            vec![ints("kernel_shape", &[1 << 40, 1 << 40])],
        )],
        vec![f32v("X", &[1, 1, 4, 4])],
        vec![open("Y")],
    );
    import_rejects(t, "avgpool", m, "overflows 64 bits");
}

#[test]
fn onnx_padded_reads_never_cross_a_row() {
    // A 3x1 kernel with one column of end padding: the width iterator
    // reads the input plainly but past its 7 columns. Vector lanes along
    // it loaded 8 cells under a guard of the first lane only: the padded
    // column read the next row's first cell (found by ocannl-fuzz --onnx
    // against onnxruntime).
    let x: Vec<f32> = (1..=35).map(|v| v as f32).collect();
    let m = Model::new(
        vec![node(
            "Conv",
            &["X", "W"],
            &["Y"],
            vec![ints("pads", &[0, 0, 0, 1])],
        )],
        vec![f32v("X", &[1, 1, 5, 7])],
        vec![f32v("Y", &[1, 1, 3, 8])],
    )
    .inits(vec![init_f32("W", &[1, 1, 3, 1], &[1.0; 3])]);
    let (out, res) = import_and_run(
        "onnx-pad-lanes",
        "conv",
        m,
        &[f32_npy("(1, 1, 5, 7)", &x)],
        1,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut want = vec![0.0f32; 24];
    for h in 0..3 {
        for w in 0..7 {
            want[h * 8 + w] = (0..3).map(|k| x[(h + k) * 7 + w]).sum();
        }
    }
    assert_eq!(f32s(&res[0]), want);
}

#[test]
fn onnx_kept_and_counted_axes_keep_their_size() {
    // An AveragePool over a size-1 axis, padded: the cells it counts came
    // from a pointwise `where` over the input, whose size-1 axis OCANNL's
    // broadcasting left open, and inference closed it wrongly ("incompatible
    // stride ... needs size 2 here, but the axis has size 1"; found by
    // ocannl-fuzz --onnx on a model onnxruntime runs). The count is now an
    // einsum tied to the input's shape, and axes written at a fixed index
    // (kept by a reduction, inserted by Unsqueeze) are stated as size 1.
    let m = Model::new(
        vec![node(
            "AveragePool",
            &["X"],
            &["Y"],
            vec![ints("kernel_shape", &[3, 3]), ints("pads", &[1, 2, 0, 1])],
        )],
        vec![f32v("X", &[1, 1, 3, 1])],
        vec![open("Y")],
    );
    let (out, res) = import_and_run(
        "onnx-kept",
        "avgpool",
        m,
        &[f32_npy("(1, 1, 3, 1)", &[3.0, 6.0, 9.0])],
        1,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Out [1, 1, 2, 2]: windows over columns
    // {-2,-1,0} and {-1,0,1}: each sees column 0 only. Rows {-1,0,1} and
    // {0,1,2}.
    assert_eq!(f32s(&res[0]), [4.5, 4.5, 6.0, 6.0]);
    let m = Model::new(
        vec![node(
            "ReduceSum",
            &["X", "A"],
            &["Y"],
            vec![int("keepdims", 1)],
        )],
        vec![open("X")],
        vec![open("Y")],
    )
    .inits(vec![init_i64("A", &[1], &[1])]);
    let (out, res) = import_and_run("onnx-kept", "reduce", m, &[f32_npy("(2, 3)", &[1.0; 6])], 1);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(f32s(&res[0]), [3.0, 3.0]);
}

#[test]
fn onnx_pointwise_results_keep_their_operands_shape() {
    // Abs of a [1, 1] input, used by a Gemm and by a Flatten whose result
    // is added to the Gemm's: OCANNL's broadcasting let Abs's size-1 axis
    // widen to 2, and the output came out [2, 2] instead of onnxruntime's
    // [1, 2] (ocannl-fuzz --onnx). A unary op's result type now names its
    // operand's shape.
    let m = Model::new(
        vec![
            node("Abs", &["X"], &["A"], vec![]),
            node("Gemm", &["A", "W"], &["G"], vec![]),
            node("Flatten", &["A"], &["F"], vec![int("axis", 0)]),
            node("Add", &["F", "G"], &["Y"], vec![]),
        ],
        vec![f32v("X", &[1, 1])],
        vec![open("Y")],
    )
    .inits(vec![init_f32("W", &[1, 2], &[1.0, 2.0])]);
    let (out, res) = import_and_run("onnx-pointwise", "abs", m, &[f32_npy("(1, 1)", &[-3.0])], 1);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(f32s(&res[0]), [6.0, 9.0]);
}

#[test]
fn onnx_convolutions_reading_only_padding_lower() {
    // A kernel of size 1, stride 2 and one cell of padding before a size-1
    // axis: the one output reads index 2*0 + 0 - 1, a negative constant,
    // which the lowering refused as a malformed projection
    // (ocannl-fuzz --onnx). It reads the padding: the output is the bias.
    let m = Model::new(
        vec![node(
            "Conv",
            &["X", "W", "B"],
            &["Y"],
            vec![ints("strides", &[2]), ints("pads", &[1, 0])],
        )],
        vec![f32v("X", &[1, 1, 1])],
        vec![open("Y")],
    )
    .inits(vec![
        init_f32("W", &[1, 1, 1], &[5.0]),
        init_f32("B", &[1], &[0.5]),
    ]);
    let (out, res) = import_and_run(
        "onnx-pad-only",
        "conv",
        m,
        &[f32_npy("(1, 1, 1)", &[3.0])],
        1,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(f32s(&res[0]), [0.5]);
}

/// Weights kept in a file beside the model (ONNX external data, as
/// `torch.onnx.export(..., dynamo=True)` writes `model.onnx.data`) are read
/// from the model's directory; a location that leaves it, or a file that is
/// missing or too short, is an error naming the initializer.
#[test]
fn onnx_external_data_is_read_beside_the_model() {
    use ocannl_onnx::proto::StringStringEntryProto;
    let test = "onnx_external";
    let model = |entries: &[(&str, &str)]| {
        let b = TensorProto {
            name: Some("b".into()),
            data_type: Some(F32),
            dims: vec![2],
            data_location: Some(tensor_proto::DataLocation::External as i32),
            external_data: entries
                .iter()
                .map(|(k, v)| StringStringEntryProto {
                    key: Some((*k).into()),
                    value: Some((*v).into()),
                })
                .collect(),
            ..Default::default()
        };
        Model::new(
            vec![node("Add", &["x", "b"], &["y"], vec![])],
            vec![f32v("x", &[2])],
            vec![f32v("y", &[2])],
        )
        .inits(vec![b])
    };
    let weights: Vec<u8> = [0.0f32, 1.5, -2.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    scratch(test, "m.onnx.data", &weights);
    let entries = [
        ("location", "m.onnx.data"),
        ("offset", "4"),
        ("length", "8"),
    ];
    let (out, data) = import_and_run(
        test,
        "m",
        model(&entries),
        &[f32_npy("(2,)", &[1.0, 1.0])],
        1,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(f32s(&data[0]), [2.5, -1.0]);
    import_rejects(
        test,
        "up",
        model(&[("location", "../m.onnx.data")]),
        "initializer 'b': external data location '../m.onnx.data'",
    );
    import_rejects(
        test,
        "missing",
        model(&[("location", "nope.data")]),
        "cannot read external data",
    );
    import_rejects(
        test,
        "short",
        model(&[("location", "m.onnx.data"), ("offset", "8")]),
        "initializer 'b'",
    );
}
