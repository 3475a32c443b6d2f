// Ported from OCANNL's own tests (github.com/ahrefs/ocannl, commit
// c338ea3fbb8bf9f405291968ef5d50d4de341fd4): concatenation (`++^`, OCANNL's
// Block logic): a stack (unsqueeze einsums with a fixed index, then a
// concatenation of the size-1 parts) consumed by a pointwise op whose result
// is open. Found while porting (then a disagreement, now fixed) (not one of the three known
// ones): the solver used to close the consumer's stacked axis to 1 before the
// concatenated size (the sum of the parts) is known and then fail with "size
// 2 does not broadcast to size 1"; OCANNL infers the stacked shape. The same
// stacks without a consumer pass (concat.mlir).
//
// test/operations/test_block_tensor.ml builds block tensors with the %op
// literal syntax: `[a; b]` stacks on a new leading OUTPUT axis, `[|a; b|]` on
// a BATCH axis, `(a, b)` on an INPUT axis. The ppx expands them to
// `Operation.stack` (tensor/operation.ml): each operand is unsqueezed by an
// einsum (`...|...->... => ...|...->0,...` for output) and the results are
// concatenated with `...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,...`.
// The translation spells out that expansion, with the same specs.
// `Tensor.ndarray ~output_dims` terminals are arguments of that type; `sin`
// is `ocannl.sin`; `t + u` is `ocannl.add`.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// test_block_tensor.ml, Test 7: `sin [g1; g2]` (output 2 each); expected
// `sin_grad_result shape 0:2,1:2`.
// CHECK-LABEL: func.func @sin_of_stack
// CHECK: "ocannl.sin"{{.*}} -> !ocannl.tensor<f32, "2,2">
func.func @sin_of_stack(%g1: !ocannl.tensor<f32, "2">, %g2: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.einsum"(%g1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.einsum"(%g2) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.concat"(%v1, %v2) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v4 = "ocannl.sin"(%v3) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v4 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 8: `sin [h1; h2; h3]` (output 2 each); expected
// `sin_grad3_result shape 0:3,1:2`.
// CHECK-LABEL: func.func @sin_of_stack3
// CHECK: "ocannl.sin"{{.*}} -> !ocannl.tensor<f32, "3,2">
func.func @sin_of_stack3(%h1: !ocannl.tensor<f32, "2">, %h2: !ocannl.tensor<f32, "2">, %h3: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.einsum"(%h1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.einsum"(%h2) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.einsum"(%h3) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v4 = "ocannl.concat"(%v1, %v2, %v3) {spec = "...|...-> bt0,...; ...|...-> bt1,...; ...|...-> bt2,... => ...|...-> bt0^bt1^bt2,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v5 = "ocannl.sin"(%v4) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v5 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 8b: `sin [[n1; n2]; [n3; n4]]` (output 2 each);
// expected `sin_grad_nested shape 0:2,1:2,2:2`.
// CHECK-LABEL: func.func @sin_of_nested_stack
// CHECK: "ocannl.sin"{{.*}} -> !ocannl.tensor<f32, "2,2,2">
func.func @sin_of_nested_stack(%n1: !ocannl.tensor<f32, "2">, %n2: !ocannl.tensor<f32, "2">, %n3: !ocannl.tensor<f32, "2">, %n4: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.einsum"(%n1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.einsum"(%n2) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.concat"(%v1, %v2) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v4 = "ocannl.einsum"(%n3) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v5 = "ocannl.einsum"(%n4) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v6 = "ocannl.concat"(%v4, %v5) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v7 = "ocannl.einsum"(%v3) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v8 = "ocannl.einsum"(%v6) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v9 = "ocannl.concat"(%v7, %v8) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v10 = "ocannl.sin"(%v9) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v10 : !ocannl.tensor<f32, "...|...->...">
}
