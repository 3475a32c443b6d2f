// A two-layer perceptron in the ocannl dialect. Shapes are OCANNL specs:
// `batch|input->output`; `b` and `h` are dimension variables scoped to
// the function, `...` is a row variable. Try:
//   ocannl-opt examples/mlp.mlir -p 'builtin.module(ocannl-verify,canonicalize)'
func.func @mlp(%x: !ocannl.tensor<f32, "b|784">,
               %w1: !ocannl.tensor<f32, "784->h">, %b1: !ocannl.tensor<f32, "h">,
               %w2: !ocannl.tensor<f32, "h->10">, %b2: !ocannl.tensor<f32, "10">)
    -> !ocannl.tensor<f32, "b|10"> {
  %h = "ocannl.fma"(%w1, %x, %b1) : (!ocannl.tensor<f32, "784->h">, !ocannl.tensor<f32, "b|784">, !ocannl.tensor<f32, "h">) -> !ocannl.tensor<f32, "b|h">
  %a = "ocannl.relu"(%h) : (!ocannl.tensor<f32, "b|h">) -> !ocannl.tensor<f32, "b|h">
  %y = "ocannl.fma"(%w2, %a, %b2) : (!ocannl.tensor<f32, "h->10">, !ocannl.tensor<f32, "b|h">, !ocannl.tensor<f32, "10">) -> !ocannl.tensor<f32, "b|10">
  return %y : !ocannl.tensor<f32, "b|10">
}
