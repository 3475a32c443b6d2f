// Tensors whose buffer cannot exist (past 2^63 bytes, or 2^64 cells):
// located lowering errors before anything is generated. (Buffers that fit
// the address space but not the machine are ocannl-run's to refuse, see
// tools/tests/cli.rs.)
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-to-affine)'

// expected-error @+1 {{result #0 !ocannl.tensor<f32, "4294967296,4294967296"> is too large: its buffer would exceed 9223372036854775807 bytes}}
func.func @range_of_2_64_cells() -> !ocannl.tensor<f32, "4294967296,4294967296"> {
  // expected-error @+1 {{'ocannl.range' op: result #0 !ocannl.tensor<f32, "4294967296,4294967296"> is too large: its buffer would exceed 9223372036854775807 bytes}}
  %0 = "ocannl.range"() {spec = "4294967296,4294967296"} : () -> !ocannl.tensor<f32, "4294967296,4294967296">
  return %0 : !ocannl.tensor<f32, "4294967296,4294967296">
}

// -----

func.func @intermediate() -> !ocannl.tensor<f32, ""> {
  // expected-error @+1 {{'ocannl.constant' op: result #0 !ocannl.tensor<f32, "100000,100000,100000,100000"> is too large}}
  %0 = "ocannl.constant"() {value = 1.0 : f32} : () -> !ocannl.tensor<f32, "100000,100000,100000,100000">
  %1 = "ocannl.einsum"(%0) {spec = "a,b,c,d => "} : (!ocannl.tensor<f32, "100000,100000,100000,100000">) -> !ocannl.tensor<f32, "">
  return %1 : !ocannl.tensor<f32, "">
}
