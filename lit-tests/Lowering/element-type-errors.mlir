// Element-type errors of the lowering (docs/decisions/0047-unsigned-integers.md),
// located at the op or argument at fault: a comparison's result is i1 and
// its operands share a type, bitwise ops take integers, float functions
// floats; ui1 is refused.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-to-affine)'

func.func @compare_result(%a: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'ocannl.lt' op: a comparison's result has element type f32, not i1}}
  %0 = "ocannl.lt"(%a, %a) : (!ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// -----

func.func @not_float(%a: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'ocannl.not' op: 'not' is not lowered for element type f32}}
  %0 = "ocannl.not"(%a) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// -----

func.func @floor_int(%a: !ocannl.tensor<i32, "3">) -> !ocannl.tensor<i32, "3"> {
  // expected-error @+1 {{'ocannl.floor' op: 'floor' is not lowered for element type i32}}
  %0 = "ocannl.floor"(%a) : (!ocannl.tensor<i32, "3">) -> !ocannl.tensor<i32, "3">
  return %0 : !ocannl.tensor<i32, "3">
}

// -----

func.func @ui1(
    // expected-error @+1 {{argument #0: element type ui1 is not supported by the lowering}}
    %a: !ocannl.tensor<ui1, "3">) {
  return
}

// -----

func.func @and_float(%a: !ocannl.tensor<f64, "3">) -> !ocannl.tensor<f64, "3"> {
  // expected-error @+1 {{'ocannl.and' op: 'and' is not lowered for element type f64}}
  %0 = "ocannl.and"(%a, %a) : (!ocannl.tensor<f64, "3">, !ocannl.tensor<f64, "3">) -> !ocannl.tensor<f64, "3">
  return %0 : !ocannl.tensor<f64, "3">
}

// -----

func.func @compare_mixed(%a: !ocannl.tensor<f32, "3">, %b: !ocannl.tensor<f64, "3">) -> !ocannl.tensor<i1, "3"> {
  // expected-error @+1 {{'ocannl.eq' op: operand #1 has element type f64 but operand #0 has f32}}
  %0 = "ocannl.eq"(%a, %b) : (!ocannl.tensor<f32, "3">, !ocannl.tensor<f64, "3">) -> !ocannl.tensor<i1, "3">
  return %0 : !ocannl.tensor<i1, "3">
}
