// Projections need solved shapes.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-infer-projections)'

func.func @unsolved(%a: !ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n"> {
  // expected-error @+1 {{'ocannl.neg' op: cannot infer projections: the operand #0 shape is not concrete: projections need solved shapes (run ocannl-infer-shapes first)}}
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
  return %0 : !ocannl.tensor<f32, "n">
}
