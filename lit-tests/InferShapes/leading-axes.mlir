// An operand row with leading axes before its row variable broadcasts
// OCANNL's way (reference, "Representing shapes and constraints"; OCANNL's
// test/einsum/test_beg_dims_alignment.ml): the leading axes align with the
// first axes of the result, the trailing ones with the last, the row
// variable takes the middle. Rows without leading axes keep NumPy's right
// alignment. Departure: the operand must be as long as the result (no axes
// inserted in the middle), because solved types are written back concrete,
// and concrete types broadcast the NumPy way (docs/semantics.md, "Broadcasting").
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics=only-expected -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// `2` stays with the first axis (5): a mismatch, where NumPy alignment would
// have put it under the 2.
func.func @left_mismatch(%a: !ocannl.tensor<f32, "2,..rho..,4">, %b: !ocannl.tensor<f32, "5,2,4">) -> !ocannl.tensor<f32, "5,2,4"> {
  // expected-error @+1 {{size 2 does not broadcast to size 5 at output axis 3 (from the end) of the result vs output axis 3 of operand #0}}
  %0 = "ocannl.add"(%a, %b) : (!ocannl.tensor<f32, "2,..rho..,4">, !ocannl.tensor<f32, "5,2,4">) -> !ocannl.tensor<f32, "5,2,4">
  return %0 : !ocannl.tensor<f32, "5,2,4">
}

// -----

// `2,..rho..` against `2,3`: the 2s align from the left, rho takes the 3
// (NumPy would have aligned 2 with 3 and failed).
// CHECK-LABEL: func.func @left_aligned
// CHECK-SAME: (%arg0: !ocannl.tensor<f32, "2,3">, %arg1: !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "2,3">
func.func @left_aligned(%a: !ocannl.tensor<f32, "2,..rho..">, %b: !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "..."> {
  %0 = "ocannl.add"(%a, %b) : (!ocannl.tensor<f32, "2,..rho..">, !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...">
  return %0 : !ocannl.tensor<f32, "...">
}

// -----

// Both flanks fixed, the middle inferred.
// CHECK-LABEL: func.func @middle
// CHECK-SAME: (%arg0: !ocannl.tensor<f32, "2,3,4">, %arg1: !ocannl.tensor<f32, "2,3,4">) -> !ocannl.tensor<f32, "2,3,4">
func.func @middle(%a: !ocannl.tensor<f32, "2,..rho..,4">, %b: !ocannl.tensor<f32, "2,3,4">) -> !ocannl.tensor<f32, "..."> {
  %0 = "ocannl.add"(%a, %b) : (!ocannl.tensor<f32, "2,..rho..,4">, !ocannl.tensor<f32, "2,3,4">) -> !ocannl.tensor<f32, "...">
  return %0 : !ocannl.tensor<f32, "...">
}

// -----

// Size 1 still broadcasts in the middle.
// CHECK-LABEL: func.func @middle_one
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "2,3,4">
func.func @middle_one(%a: !ocannl.tensor<f32, "2,1,4">, %b: !ocannl.tensor<f32, "2,3,4">) -> !ocannl.tensor<f32, "..."> {
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2,1,4">) -> !ocannl.tensor<f32, "2,..r..,4">
  %1 = "ocannl.add"(%0, %b) : (!ocannl.tensor<f32, "2,..r..,4">, !ocannl.tensor<f32, "2,3,4">) -> !ocannl.tensor<f32, "...">
  return %1 : !ocannl.tensor<f32, "...">
}

// -----

// rho is forced empty elsewhere: OCANNL would insert the 3 in the middle;
// here the operand must be as long as the result.
func.func @middle_insertion(%a: !ocannl.tensor<f32, "2,4">, %b: !ocannl.tensor<f32, "2,3,4">) -> !ocannl.tensor<f32, "..."> {
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2,4">) -> !ocannl.tensor<f32, "2,..r..,4">
  // expected-error @+1 {{an operand row with leading axes broadcasts only into a row as long as itself: its leading axes align with the first axes of the result and its trailing axes with the last, and inserting axes between them (OCANNL) is not supported; where they are not aligned, the result has 1 axis and the operand 0 axes}}
  %1 = "ocannl.add"(%0, %b) : (!ocannl.tensor<f32, "2,..r..,4">, !ocannl.tensor<f32, "2,3,4">) -> !ocannl.tensor<f32, "...">
  return %1 : !ocannl.tensor<f32, "...">
}

// -----

// Without leading axes, NumPy: `..r..,4` broadcasts into a longer row.
// CHECK-LABEL: func.func @numpy
// CHECK-SAME: -> !ocannl.tensor<f32, "5,2,4">
func.func @numpy(%a: !ocannl.tensor<f32, "..r..,4">, %b: !ocannl.tensor<f32, "5,2,4">) -> !ocannl.tensor<f32, "..."> {
  %0 = "ocannl.add"(%a, %b) : (!ocannl.tensor<f32, "..r..,4">, !ocannl.tensor<f32, "5,2,4">) -> !ocannl.tensor<f32, "...">
  return %0 : !ocannl.tensor<f32, "...">
}
