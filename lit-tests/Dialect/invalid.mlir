// What users see when IR breaks the dialect's definition: located errors
// from the IRDL verifier at parse time, and a non-zero exit.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics
// RUN: not ocannl-opt %s -split-input-file 2>&1 | FileCheck %s

// CHECK: invalid.mlir:[[@LINE+3]]:8: error: unregistered operation 'ocannl.frobnicate'
func.func @unknown_op(%a: !ocannl.tensor<f32, "2">) {
  // expected-error @+1 {{unregistered operation 'ocannl.frobnicate' found in dialect ('ocannl') that does not allow unknown operations}}
  %0 = "ocannl.frobnicate"(%a) : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}

// -----

// CHECK: invalid.mlir:[[@LINE+3]]:8: error: op expects exactly 2 operands, but got 1
func.func @wrong_operand_count(%a: !ocannl.tensor<f32, "2">) {
  // expected-error @+1 {{op expects exactly 2 operands, but got 1}}
  %0 = "ocannl.add"(%a) : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}

// -----

// CHECK: invalid.mlir:[[@LINE+3]]:8: error: 'ocannl.einsum' op attribute "spec" is expected but not provided
func.func @missing_spec(%a: !ocannl.tensor<f32, "2">) {
  // expected-error @+1 {{'ocannl.einsum' op attribute "spec" is expected but not provided}}
  %0 = "ocannl.einsum"(%a) : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}

// -----

func.func @not_a_tensor(%a: i32) {
  // expected-error @+1 {{'i32' does not satisfy the constraint}}
  %0 = "ocannl.neg"(%a) : (i32) -> !ocannl.tensor<f32, "2">
  return
}
