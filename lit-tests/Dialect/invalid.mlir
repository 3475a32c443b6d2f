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

// -----

// Variadic ops (einsum, concat) check each operand on its own: operands of
// different types are fine (IRDL alone would bind them all to the first
// operand's type), a non-tensor among them is not.
// CHECK: invalid.mlir:[[@LINE+3]]:8: error: 'ocannl.concat' op operand #2 must be an ocannl or builtin tensor, got i32
func.func @concat_non_tensor(%a: !ocannl.tensor<f32, "2">, %b: !ocannl.tensor<f32, "3">, %c: i32) {
  // expected-error @+1 {{'ocannl.concat' op operand #2 must be an ocannl or builtin tensor, got i32}}
  %0 = "ocannl.concat"(%a, %b, %c) {spec = "a; b; c => a^b^c"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">, i32) -> !ocannl.tensor<f32, "5">
  return
}

// -----

// CHECK: invalid.mlir:[[@LINE+3]]:8: error: 'ocannl.concat' op attribute "spec" is expected but not provided
func.func @concat_missing_spec(%a: !ocannl.tensor<f32, "2">, %b: !ocannl.tensor<f32, "3">, %c: tensor<4xf32>) {
  // expected-error @+1 {{'ocannl.concat' op attribute "spec" is expected but not provided}}
  %0 = "ocannl.concat"(%a, %b, %c) : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">, tensor<4xf32>) -> !ocannl.tensor<f32, "9">
  return
}

// -----

// CHECK: invalid.mlir:[[@LINE+3]]:8: error: 'ocannl.concat' op attribute "spec" must be a string, got 3 : i64
func.func @concat_spec_not_string(%a: !ocannl.tensor<f32, "2">) {
  // expected-error @+1 {{'ocannl.concat' op attribute "spec" must be a string, got 3 : i64}}
  %0 = "ocannl.concat"(%a) {spec = 3} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}

// -----

// CHECK: invalid.mlir:[[@LINE+3]]:3: error: 'ocannl.concat' op expects 1 result, got 0
func.func @concat_no_result(%a: !ocannl.tensor<f32, "2">, %b: !ocannl.tensor<f32, "3">) {
  // expected-error @+1 {{'ocannl.concat' op expects 1 result, got 0}}
  "ocannl.concat"(%a, %b) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">) -> ()
  return
}

// -----

// IRDL gives the ops no custom syntax; its default parser fails without a
// diagnostic, so the dialect reports it at the op.
func.func @custom_syntax(%a: !ocannl.tensor<f32, "2">) {
  // expected-error @+1 {{custom op 'ocannl.neg' has no custom assembly syntax: write it in the generic form, "ocannl.neg"(operands) {attributes} : (operand types) -> result type}}
  %0 = ocannl.neg %a : !ocannl.tensor<f32, "2">
  return
}
