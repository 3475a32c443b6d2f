// Ported from OCANNL's own tests (github.com/ahrefs/ocannl, commit
// c338ea3fbb8bf9f405291968ef5d50d4de341fd4): shapes of the non-einsum shape
// logics (Compose, Compose_accumulate, Pointwise_tern, Pointwise_bin) and of
// dimension labels (OCANNL's bases).
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// test/operations/test_compose_logic.ml: `c =:+ a * b ~logic:"@"` with a of
// input 3, output 2 and b of input 1, output 3 (matrix-vector product);
// expected `c = [4 10]`: two cells, the shape of Compose is b's inputs and
// a's outputs, 1->2.
// CHECK-LABEL: func.func @compose_logic
// CHECK: "ocannl.matmul"{{.*}} -> !ocannl.tensor<f32, "1->2">
func.func @compose_logic(%a: !ocannl.tensor<f32, "3->2">, %b: !ocannl.tensor<f32, "1->3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %c = "ocannl.matmul"(%a, %b) : (!ocannl.tensor<f32, "3->2">, !ocannl.tensor<f32, "1->3">) -> !ocannl.tensor<f32, "...|...->...">
  return %c : !ocannl.tensor<f32, "...|...->...">
}

// test/operations/test_fma_logic.ml: `fma a x b ~logic:"."` (Pointwise_tern)
// with a, x, b of output 4; expected four cells `[10.5 40.5 90.5 160.5]`.
// The dialect's Pointwise_tern op is `ocannl.where` (the shape logic is what
// is tested; `fma` here is Compose_accumulate).
// CHECK-LABEL: func.func @fma_pointwise_logic
// CHECK: "ocannl.where"{{.*}} -> !ocannl.tensor<f32, "4">
func.func @fma_pointwise_logic(%a: !ocannl.tensor<f32, "4">, %x: !ocannl.tensor<f32, "4">, %b: !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %out = "ocannl.where"(%a, %x, %b) : (!ocannl.tensor<f32, "4">, !ocannl.tensor<f32, "4">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->...">
  return %out : !ocannl.tensor<f32, "...|...->...">
}

// test_fma_logic.ml: `fma p q r ~logic:"@"` (Compose_accumulate) with p of
// input 1, output 1, q and r of output 1; expected one cell `[16]`.
// CHECK-LABEL: func.func @fma_compose_accumulate_logic
// CHECK: "ocannl.fma"{{.*}} -> !ocannl.tensor<f32, "1">
func.func @fma_compose_accumulate_logic(%p: !ocannl.tensor<f32, "1->1">, %q: !ocannl.tensor<f32, "1">, %r: !ocannl.tensor<f32, "1">) -> !ocannl.tensor<f32, "...|...->..."> {
  %out = "ocannl.fma"(%p, %q, %r) : (!ocannl.tensor<f32, "1->1">, !ocannl.tensor<f32, "1">, !ocannl.tensor<f32, "1">) -> !ocannl.tensor<f32, "...|...->...">
  return %out : !ocannl.tensor<f32, "...|...->...">
}

// test/operations/test_param_shape_error.ml, default_affine_op_propagated:
// `[1; 2] + ({ w = uniform1 () } * [3; 4; 5])` (ndarray literals of output 2
// and 3); expected no error and `w shape 1:3->0:2` (3->2).
// CHECK-LABEL: func.func @affine_op_propagated
// CHECK-SAME: %arg0: !ocannl.tensor<f32, "3->2">
// CHECK: "ocannl.matmul"{{.*}} -> !ocannl.tensor<f32, "2">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "2">
func.func @affine_op_propagated(%w: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->..."> {
  %c3 = "ocannl.constant"() {value = dense<[3.0, 4.0, 5.0]> : tensor<3xf32>} : () -> !ocannl.tensor<f32, "3">
  %c2 = "ocannl.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> !ocannl.tensor<f32, "2">
  %m = "ocannl.matmul"(%w, %c3) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %y = "ocannl.add"(%c2, %m) : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %y : !ocannl.tensor<f32, "...|...->...">
}

// test/einsum/test_dimension_labels.ml, Test 1: two tensors of one output axis
// `("batch", 4)` added; expected "Result bases: [batch]" ("PASS: basis
// preserved in result").
// CHECK-LABEL: func.func @same_label_same_size
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "batch=4">
func.func @same_label_same_size(%t1: !ocannl.tensor<f32, "batch=4">, %t2: !ocannl.tensor<f32, "batch=4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.add"(%t1, %t2) : (!ocannl.tensor<f32, "batch=4">, !ocannl.tensor<f32, "batch=4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_dimension_labels.ml, Test 5b ("Variable solving records the total
// Dim's tag exactly": v = 4_batch gives v the label batch) and Test 6
// (`Shape.to_bases` after inference: [batch]): an open tensor broadcast with
// a labelled one takes the label.
// CHECK-LABEL: func.func @label_recorded_on_variable
// CHECK-SAME: -> !ocannl.tensor<f32, "batch=4">
func.func @label_recorded_on_variable(%t: !ocannl.tensor<f32, "batch=4">) -> !ocannl.tensor<f32, "v"> {
  %0 = "ocannl.einsum"(%t) {spec = "i=>i"} : (!ocannl.tensor<f32, "batch=4">) -> !ocannl.tensor<f32, "v">
  return %0 : !ocannl.tensor<f32, "v">
}
