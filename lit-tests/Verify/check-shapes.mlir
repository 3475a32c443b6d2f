// ocannl-check-shapes judges fully known types with the independent checker.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-check-shapes)'

func.func @good(%a: !ocannl.tensor<f32, "2|3->4">, %b: !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "2|3->4"> {
  %0 = "ocannl.add"(%a, %b) : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "2|3->4">
  return %0 : !ocannl.tensor<f32, "2|3->4">
}

// -----

func.func @bad_broadcast(%a: !ocannl.tensor<f32, "3">, %b: !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "4"> {
  // expected-error @+1 {{'ocannl.add' op types violate its Pointwise_bin shape logic}}
  %0 = "ocannl.add"(%a, %b) : (!ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "4">
  return %0 : !ocannl.tensor<f32, "4">
}

// -----

func.func @bad_einsum(%a: !ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "4|3->2"> {
  // expected-error @+1 {{'ocannl.einsum' op types violate its Einsum shape logic}}
  %0 = "ocannl.einsum"(%a) {spec = "b|i->o => o|b->i"} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "4|3->2">
  return %0 : !ocannl.tensor<f32, "4|3->2">
}

// -----

func.func @not_known_yet(%a: !ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n"> {
  // expected-error @+1 {{'ocannl.neg' op types violate its Pointwise_un shape logic}}
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
  return %0 : !ocannl.tensor<f32, "n">
}
