//! ONNX models over element types (issue 40): Cast, comparisons, logic,
//! Where, Mod and BitShift imported and run on `uint8`, `bool`, `int32` and
//! `float32` data against values computed by hand from ONNX's operator
//! pages (onnx.ai/onnx/operators); unsupported targets and attribute values
//! are errors naming the node.

use super::{
    Model, f32s, f32v, import_and_run, import_rejects, int, node, npy_bytes, string, value,
};
use ocannl_onnx::proto::tensor_proto::DataType as D;

fn v(name: &str, d: D) -> ocannl_onnx::proto::ValueInfoProto {
    value(name, d as i32, Some(&[4]))
}

#[test]
fn onnx_cast_compare_where_mod_run_on_typed_data() {
    let t = "onnx-types";
    let m = Model::new(
        vec![
            node("Cast", &["U"], &["UF"], vec![int("to", D::Float as i64)]),
            node("Less", &["X", "UF"], &["L"], vec![]),
            node("Not", &["L"], &["NL"], vec![]),
            node("Where", &["NL", "X", "UF"], &["W"], vec![]),
            node("Cast", &["X"], &["XI"], vec![int("to", D::Int32 as i64)]),
            node("Mod", &["XI", "K"], &["M"], vec![]),
            node(
                "BitShift",
                &["U", "U"],
                &["S"],
                vec![string("direction", "RIGHT")],
            ),
            node("IsNaN", &["X"], &["N"], vec![]),
        ],
        vec![v("U", D::Uint8), f32v("X", &[4]), v("K", D::Int32)],
        vec![
            v("W", D::Float),
            v("M", D::Int32),
            v("S", D::Uint8),
            v("N", D::Bool),
        ],
    );
    let u = [0u8, 200, 7, 255];
    let x = [1.5f32, -7.5, 300.0, f32::NAN];
    let k = [2i32, 3, -7, 0];
    let xs: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let ks: Vec<u8> = k.iter().flat_map(|v| v.to_le_bytes()).collect();
    let inputs = [
        npy_bytes("|u1", "(4,)", &u),
        npy_bytes("<f4", "(4,)", &xs),
        npy_bytes("<i4", "(4,)", &ks),
    ];
    let (out, data) = import_and_run(t, "typed", m, &inputs, 4);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // x < float(u) is [false, true, false, false] (NaN compares false):
    // Where(!less, x, u) takes x but at 1.
    let w = f32s(&data[0]);
    assert_eq!(&w[..3], [1.5, 200.0, 300.0]);
    assert!(w[3].is_nan());
    // int32(x) truncates ([1, -7, 300, 0 for NaN]); Mod takes the
    // divisor's sign, and x mod 0 is 0.
    let m: Vec<i32> = data[1]
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(m, [1, 2, -1, 0]);
    // u >> u: a shift by the width or more gives 0.
    assert_eq!(data[2], [0, 0, 0, 0]);
    assert_eq!(data[3], [0, 0, 0, 1]);
}

#[test]
fn onnx_unsupported_casts_and_attributes_are_errors() {
    let t = "onnx-types-bad";
    let one = |op: &str, inputs: &[&str], attrs, ins| {
        Model::new(
            vec![node(op, inputs, &["Y"], attrs)],
            ins,
            vec![f32v("Y", &[4])],
        )
    };
    for (to, name) in [
        (D::Float8e4m3fn, "FLOAT8E4M3FN"),
        (D::String, "STRING"),
        (D::Int4, "INT4"),
    ] {
        let m = one(
            "Cast",
            &["X"],
            vec![int("to", to as i64)],
            vec![f32v("X", &[4])],
        );
        import_rejects(t, name, m, &format!("Cast to {name} is not supported"));
    }
    let m = one("Where", &["X", "X", "X"], vec![], vec![f32v("X", &[4])]);
    import_rejects(t, "where", m, "Where's condition must be bool");
    let m = one(
        "Mod",
        &["X", "X"],
        vec![int("fmod", 2)],
        vec![f32v("X", &[4])],
    );
    import_rejects(t, "mod", m, "'fmod' must be 0 or 1");
    let m = one(
        "BitShift",
        &["U", "U"],
        vec![string("direction", "UP")],
        vec![v("U", D::Uint8)],
    );
    import_rejects(t, "shift", m, "'direction' must be");
    let m = one("Floor", &["K"], vec![], vec![v("K", D::Int32)]);
    import_rejects(t, "floor", m, "Floor takes floating-point tensors");
    let m = one("And", &["X", "X"], vec![], vec![f32v("X", &[4])]);
    import_rejects(t, "and", m, "And does not take tensors of f32");
}

/// An initializer of raw little-endian bytes.
fn init_raw(name: &str, d: D, data: &[u8]) -> ocannl_onnx::proto::TensorProto {
    ocannl_onnx::proto::TensorProto {
        name: Some(name.into()),
        data_type: Some(d as i32),
        dims: vec![5],
        raw_data: Some(data.to_vec()),
        ..Default::default()
    }
}

#[test]
fn onnx_bool_and_uint8_initializers_are_exact() {
    // A bool constant (MLIR packs i1 data in bits) selects between x and
    // a uint8 constant cast to float; Max of uint8 compares unsigned.
    let t = "onnx-types-inits";
    let five = |name: &str, d: D| value(name, d as i32, Some(&[5]));
    let m = Model::new(
        vec![
            node("Cast", &["U"], &["UF"], vec![int("to", D::Float as i64)]),
            node("Where", &["C", "X", "UF"], &["Y"], vec![]),
            node("Max", &["U", "V"], &["M"], vec![]),
        ],
        vec![f32v("X", &[5]), five("V", D::Uint8)],
        vec![f32v("Y", &[5]), five("M", D::Uint8)],
    )
    .inits(vec![
        init_raw("C", D::Bool, &[1, 0, 1, 1, 0]),
        init_raw("U", D::Uint8, &[1, 200, 3, 250, 7]),
    ]);
    let x: Vec<u8> = (0..5).flat_map(|v| (v as f32).to_le_bytes()).collect();
    let inputs = [
        npy_bytes("<f4", "(5,)", &x),
        npy_bytes("|u1", "(5,)", &[0, 255, 2, 100, 9]),
    ];
    let (out, data) = import_and_run(t, "inits", m, &inputs, 2);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(f32s(&data[0]), [0.0, 200.0, 2.0, 3.0, 7.0]);
    assert_eq!(data[1], [1, 255, 3, 250, 9]);
}
