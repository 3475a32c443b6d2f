//! Compiles ONNX's `onnx.proto` (vendored in `proto/`, from the `onnx` 1.23.2
//! wheel; Apache-2.0, ONNX Project Contributors) into Rust types with
//! `prost-build`. The `.proto` is parsed by `protox`, a protobuf compiler in
//! pure Rust, so the build needs no `protoc` binary.

fn main() {
    println!("cargo:rerun-if-changed=proto/onnx.proto");
    let descriptors = protox::compile(["proto/onnx.proto"], ["proto"])
        .unwrap_or_else(|e| panic!("proto/onnx.proto does not compile: {e}"));
    prost_build::Config::new()
        .compile_fds(descriptors)
        .unwrap_or_else(|e| panic!("prost-build failed on onnx.proto: {e}"));
}
