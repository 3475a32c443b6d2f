// Hand-written layouts (ocannl.layout) the lowering cannot honour are
// errors located at the op, before the IR changes.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule,ocannl-lower-to-affine)'

// Not a permutation.
func.func @case0(%x: !ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8"> {
  // expected-error @+1 {{'ocannl.relu' op ocannl.layout must be an array<i64: ...> permutation of the result's 2 axes}}
  %r = "ocannl.relu"(%x) {ocannl.layout = array<i64: 1, 1>} : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  %e = "ocannl.exp"(%r) : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  return %e : !ocannl.tensor<f32, "4,8">
}

// -----

// A function result keeps the canonical layout.
func.func @case1(%x: !ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8"> {
  // expected-error @+1 {{'ocannl.relu' op its result has a ocannl.layout but is read by 'func.return', which reads tensors in their canonical layout only}}
  %r = "ocannl.relu"(%x) {ocannl.layout = array<i64: 1, 0>} : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  return %r : !ocannl.tensor<f32, "4,8">
}

// -----

// So does a reshape's operand.
func.func @case2(%x: !ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "32"> {
  // expected-error @+1 {{'ocannl.relu' op its result has a ocannl.layout but is read by 'ocannl.reshape', which reads tensors in their canonical layout only}}
  %r = "ocannl.relu"(%x) {ocannl.layout = array<i64: 1, 0>} : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  %s = "ocannl.reshape"(%r) : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "32">
  return %s : !ocannl.tensor<f32, "32">
}

// -----

// Only one-result ops computing a loop nest or constants take a layout.
func.func @case3(%x: !ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8"> {
  // expected-error @+1 {{'ocannl.reshape' op ocannl.layout stands only on ops that compute a loop nest or a concatenation and on constants}}
  %s = "ocannl.reshape"(%x) {ocannl.layout = array<i64: 1, 0>} : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  %e = "ocannl.exp"(%s) : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  return %e : !ocannl.tensor<f32, "4,8">
}
