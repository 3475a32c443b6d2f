// Sizes past i64 (MLIR's dims, and the lowering's index arithmetic) are
// errors: in spec literals, and wherever inference would compute one
// (strides, concatenations, indices); never a wrapped size in a type.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-verify,ocannl-infer-shapes)'

// expected-error @+1 {{block argument #0: invalid shape spec "9223372036854775808": size 9223372036854775808 is too large (at most 9223372036854775807) at position 0}}
func.func @literal(%a: !ocannl.tensor<f32, "9223372036854775808">) {
  return
}

// -----

func.func @stride(%a: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "i"> {
  // expected-error @+1 {{size overflow}}
  %0 = "ocannl.einsum"(%a) {spec = "o => 4611686018427387904*o"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "i">
  return %0 : !ocannl.tensor<f32, "i">
}

// -----

func.func @concat(%a: !ocannl.tensor<f32, "9223372036854775807">, %b: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "n"> {
  // expected-error @+1 {{size overflow}}
  %0 = "ocannl.concat"(%a, %b) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "9223372036854775807">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "n">
  return %0 : !ocannl.tensor<f32, "n">
}

// -----

func.func @slice_index(%a: !ocannl.tensor<f32, "n|2">) -> !ocannl.tensor<f32, "2"> {
  // expected-error @+1 {{size overflow}}
  %0 = "ocannl.batch_slice"(%a) {index = 9223372036854775807 : i64} : (!ocannl.tensor<f32, "n|2">) -> !ocannl.tensor<f32, "2">
  return %0 : !ocannl.tensor<f32, "2">
}

// -----

func.func @negative_index(%a: !ocannl.tensor<f32, "3|2">) -> !ocannl.tensor<f32, "2"> {
  // expected-error @+1 {{'ocannl.batch_slice' op attribute 'index' must be a non-negative integer, got -1}}
  %0 = "ocannl.batch_slice"(%a) {index = -1 : i64} : (!ocannl.tensor<f32, "3|2">) -> !ocannl.tensor<f32, "2">
  return %0 : !ocannl.tensor<f32, "2">
}
