// Projections need solved shapes.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-infer-projections)'

func.func @unsolved(%a: !ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n"> {
  // expected-error @+1 {{'ocannl.neg' op: cannot infer projections: the operand #0 shape is not concrete: projections need solved shapes (run ocannl-infer-shapes first)}}
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
  return %0 : !ocannl.tensor<f32, "n">
}

// -----

// Convolution projections (padding, strided indices) are the next step.
func.func @conv(%x: !ocannl.tensor<f32, "8">, %k: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "6"> {
  // expected-error @+1 {{'ocannl.einsum' op: cannot infer projections: strided, convolution and concatenated axes have no projections yet}}
  %0 = "ocannl.einsum"(%x, %k) {spec = "o<+k; k => o"} : (!ocannl.tensor<f32, "8">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "6">
  return %0 : !ocannl.tensor<f32, "6">
}
