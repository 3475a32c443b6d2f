//! Element types through `ocannl-run` (docs/decisions/0047-unsigned-integers.md):
//! a program of casts, comparisons, logic and `where` over `uint8`, `bool`,
//! `int8` and `float32` `.npy` inputs (and `float16`, and `bfloat16` as
//! `<V2`: docs/decisions/0049-bf16-npy.md), its outputs read back byte by
//! byte against values computed here (ONNX's Cast, Less, And, Where
//! semantics); and mismatched dtypes as errors with exit code 1.

use super::{npy_bytes, run_tool, scratch};

const PROGRAM: &str = r#"func.func @f(%u: !ocannl.tensor<ui8, "4">, %b: !ocannl.tensor<i1, "4">, %x: !ocannl.tensor<f32, "4">) -> (!ocannl.tensor<f32, "4">, !ocannl.tensor<i1, "4">, !ocannl.tensor<i1, "4">, !ocannl.tensor<f32, "4">, !ocannl.tensor<i8, "4">, !ocannl.tensor<ui8, "4">) {
  %uf = "ocannl.cast"(%u) : (!ocannl.tensor<ui8, "4">) -> !ocannl.tensor<f32, "4">
  %lt = "ocannl.lt"(%uf, %x) : (!ocannl.tensor<f32, "4">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<i1, "4">
  %and = "ocannl.and"(%lt, %b) : (!ocannl.tensor<i1, "4">, !ocannl.tensor<i1, "4">) -> !ocannl.tensor<i1, "4">
  %w = "ocannl.where"(%and, %uf, %x) : (!ocannl.tensor<i1, "4">, !ocannl.tensor<f32, "4">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "4">
  %t = "ocannl.cast"(%x) : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<i8, "4">
  %d = "ocannl.div"(%u, %u) : (!ocannl.tensor<ui8, "4">, !ocannl.tensor<ui8, "4">) -> !ocannl.tensor<ui8, "4">
  return %uf, %lt, %and, %w, %t, %d : !ocannl.tensor<f32, "4">, !ocannl.tensor<i1, "4">, !ocannl.tensor<i1, "4">, !ocannl.tensor<f32, "4">, !ocannl.tensor<i8, "4">, !ocannl.tensor<ui8, "4">
}"#;

/// The cells of a `.npy` file this test's runs wrote (its header skipped).
fn cells(path: &std::path::Path) -> Vec<u8> {
    let bytes = std::fs::read(path).expect("an output");
    let header = usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
    bytes[10 + header..].to_vec()
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

#[test]
fn casts_comparisons_and_where_run_on_npy_data() {
    let m = scratch("types", "f.mlir", PROGRAM);
    let dir = m.parent().expect("a directory").to_path_buf();
    let u = [0u8, 200, 7, 255];
    let b = [1u8, 1, 0, 1];
    let x = [1.5f32, -2.75, 300.0, f32::NAN];
    let write = |name: &str, descr: &str, data: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, npy_bytes(descr, "(4,)", data)).expect("write");
        p.display().to_string()
    };
    let xs: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let inputs = [
        write("u.npy", "|u1", &u),
        write("b.npy", "|b1", &b),
        write("x.npy", "<f4", &xs),
    ];
    let outs: Vec<String> = (0..6)
        .map(|k| dir.join(format!("o{k}.npy")).display().to_string())
        .collect();
    let mut args = vec![m.to_str().expect("utf-8"), "--outputs"];
    args.extend(outs.iter().map(String::as_str));
    args.push("--inputs");
    args.extend(inputs.iter().map(String::as_str));
    let out = run_tool(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read = |k: usize| cells(std::path::Path::new(&outs[k]));
    // uint8 -> float32 is unsigned: 200 and 255 stay positive.
    assert_eq!(f32s(&read(0)), [0.0, 200.0, 7.0, 255.0]);
    // 0 < 1.5, 200 < -2.75 no, 7 < 300, NaN compares false.
    assert_eq!(read(1), [1, 0, 1, 0]);
    assert_eq!(read(2), [1, 0, 0, 0]);
    let w = f32s(&read(3));
    assert_eq!(&w[..3], [0.0, -2.75, 300.0]);
    assert!(w[3].is_nan());
    // Truncation toward zero; 300 takes the low 8 bits (44); NaN gives 0.
    assert_eq!(read(4), [1, (-2i8) as u8, 44, 0]);
    // Unsigned division, 0 / 0 being 0.
    assert_eq!(read(5), [0, 1, 1, 1]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn mismatched_dtypes_are_errors_with_exit_code_1() {
    let m = scratch("types-bad", "f.mlir", PROGRAM);
    let dir = m.parent().expect("a directory").to_path_buf();
    let write = |name: &str, descr: &str, data: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, npy_bytes(descr, "(4,)", data)).expect("write");
        p.display().to_string()
    };
    let signed = write("i.npy", "|i1", &[0; 4]);
    let bools = write("b.npy", "|b1", &[0; 4]);
    let floats = write("x.npy", "<f4", &[0; 16]);
    let complex = write("c.npy", "<c8", &[0; 32]);
    let objects = write("o.npy", "|O", &[0; 32]);
    let m = m.to_str().expect("utf-8");
    // int8 data for the uint8 argument.
    let out = run_tool(&[m, "--inputs", &signed, &bools, &floats]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("int8") && err.contains("uint8"), "{err}");
    // Dtypes ocannl-run does not read.
    let out = run_tool(&[m, "--inputs", &complex, &bools, &floats]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("expected a numeric dtype"), "{err}");
    let out = run_tool(&[m, "--inputs", &objects, &bools, &floats]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Python objects"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn float16_data_round_trips_through_casts() {
    let m = scratch(
        "types-f16",
        "f.mlir",
        r#"func.func @f(%h: !ocannl.tensor<f16, "3">) -> (!ocannl.tensor<f32, "3">, !ocannl.tensor<f16, "3">) {
  %0 = "ocannl.cast"(%h) : (!ocannl.tensor<f16, "3">) -> !ocannl.tensor<f32, "3">
  %1 = "ocannl.neg"(%h) : (!ocannl.tensor<f16, "3">) -> !ocannl.tensor<f16, "3">
  return %0, %1 : !ocannl.tensor<f32, "3">, !ocannl.tensor<f16, "3">
}"#,
    );
    let dir = m.parent().expect("a directory").to_path_buf();
    // 1.0, -2.5 and 65504 (the largest f16), big endian.
    let bits = [0x3c00u16, 0xc100, 0x7bff];
    let data: Vec<u8> = bits.iter().flat_map(|b| b.to_be_bytes()).collect();
    let input = dir.join("h.npy");
    std::fs::write(&input, npy_bytes(">f2", "(3,)", &data)).expect("write");
    let outs = [dir.join("a.npy"), dir.join("b.npy")];
    let s = |p: &std::path::Path| p.display().to_string();
    let out = run_tool(&[
        &s(&m),
        "--inputs",
        &s(&input),
        "--outputs",
        &s(&outs[0]),
        &s(&outs[1]),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(f32s(&cells(&outs[0])), [1.0, -2.5, 65504.0]);
    let neg: Vec<u8> = [0xbc00u16, 0x4100, 0xfbff]
        .iter()
        .flat_map(|b| b.to_le_bytes())
        .collect();
    assert_eq!(cells(&outs[1]), neg);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bfloat16_data_round_trips_as_raw_two_byte_cells() {
    let m = scratch(
        "types-bf16",
        "f.mlir",
        r#"func.func @f(%h: !ocannl.tensor<bf16, "4">, %x: !ocannl.tensor<f32, "4">) -> (!ocannl.tensor<f32, "4">, !ocannl.tensor<bf16, "4">, !ocannl.tensor<bf16, "4">) {
  %0 = "ocannl.cast"(%h) : (!ocannl.tensor<bf16, "4">) -> !ocannl.tensor<f32, "4">
  %1 = "ocannl.neg"(%h) : (!ocannl.tensor<bf16, "4">) -> !ocannl.tensor<bf16, "4">
  %2 = "ocannl.cast"(%x) : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<bf16, "4">
  return %0, %1, %2 : !ocannl.tensor<f32, "4">, !ocannl.tensor<bf16, "4">, !ocannl.tensor<bf16, "4">
}"#,
    );
    let dir = m.parent().expect("a directory").to_path_buf();
    // 1.5, -2, the largest finite bfloat16 and the smallest subnormal, as
    // ml_dtypes saves them: '<V2'.
    let bits = [0x3fc0u16, 0xc000, 0x7f7f, 0x0001];
    let le = |bits: &[u16]| -> Vec<u8> { bits.iter().flat_map(|b| b.to_le_bytes()).collect() };
    let h = dir.join("h.npy");
    std::fs::write(&h, npy_bytes("<V2", "(4,)", &le(&bits))).expect("write");
    // Halfway cases round to even (0x3f80, 0x3f82), just past half rounds
    // up, and a finite f32 past bfloat16's range rounds to infinity.
    let x: Vec<u8> = [0x3f80_8000u32, 0x3f81_8000, 0x3f80_8001, 0x7f7f_ffff]
        .iter()
        .flat_map(|b| b.to_le_bytes())
        .collect();
    let xp = dir.join("x.npy");
    std::fs::write(&xp, npy_bytes("<f4", "(4,)", &x)).expect("write");
    let outs = [dir.join("a.npy"), dir.join("b.npy"), dir.join("c.npy")];
    let s = |p: &std::path::Path| p.display().to_string();
    let out = run_tool(&[
        &s(&m),
        "--inputs",
        &s(&h),
        &s(&xp),
        "--outputs",
        &s(&outs[0]),
        &s(&outs[1]),
        &s(&outs[2]),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let widened: Vec<f32> = bits
        .iter()
        .map(|&b| f32::from_bits(u32::from(b) << 16))
        .collect();
    assert_eq!(f32s(&cells(&outs[0])), widened);
    let written = std::fs::read(&outs[1]).expect("an output");
    assert!(String::from_utf8_lossy(&written[..64]).contains("'descr': '<V2'"));
    assert_eq!(cells(&outs[1]), le(&[0xbfc0, 0x4000, 0xff7f, 0x8001]));
    assert_eq!(cells(&outs[2]), le(&[0x3f80, 0x3f82, 0x3f81, 0x7f80]));
    // Raw 2-byte cells for the float32 argument: an error naming both.
    let out = run_tool(&[&s(&m), "--inputs", &s(&h), &s(&h)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("float32") && err.contains("'<V2'"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
