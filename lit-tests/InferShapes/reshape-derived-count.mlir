// A reshape whose result's free axis is derived from the operand's count,
// not guessed (reference, "Preventing Premature Guessing with Total_elems
// Constraints"): the operand's new axis (a fixed index) and its broadcast
// axis over a size-1 axis close to 1 only at stage 7, after the result's
// terminal axis was guessed at stage 5. Guessing that axis 1 made the count
// 28 (or 1), which the operand's 56 (or 80) known elements do not divide:
// "element count mismatch" for an ONNX Unsqueeze and Reshape (or Flatten)
// that onnxruntime runs.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// CHECK-LABEL: func.func @unsqueeze_reshape
// CHECK: "ocannl.relu"{{.*}} -> !ocannl.tensor<f32, "2,1,7,4">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "1,2,1,7,4">
// CHECK: "ocannl.reshape"{{.*}} -> !ocannl.tensor<f32, "2,2,2,7">
func.func @unsqueeze_reshape(%x: !ocannl.tensor<f32, "2,1,7,4">) -> !ocannl.tensor<f32, "d1,2,2,7"> {
  %a = "ocannl.relu"(%x) : (!ocannl.tensor<f32, "2,1,7,4">) -> !ocannl.tensor<f32, "...">
  %b = "ocannl.einsum"(%a) {spec = "a1,a2,a3,a4 => 0,a1,a2,a3,a4"} : (!ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "...">
  %r = "ocannl.reshape"(%b) : (!ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "d1,2,2,7">
  return %r : !ocannl.tensor<f32, "d1,2,2,7">
}

// CHECK-LABEL: func.func @unsqueeze_flatten
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "2,1,5,8">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "1,2,1,5,8">
// CHECK: "ocannl.reshape"{{.*}} -> !ocannl.tensor<f32, "1,80">
func.func @unsqueeze_flatten(%x: !ocannl.tensor<f32, "2,1,5,8">) -> !ocannl.tensor<f32, "1,d1"> {
  %a = "ocannl.relu"(%x) : (!ocannl.tensor<f32, "2,1,5,8">) -> !ocannl.tensor<f32, "...">
  %e = "ocannl.exp"(%x) : (!ocannl.tensor<f32, "2,1,5,8">) -> !ocannl.tensor<f32, "...">
  %s = "ocannl.add"(%a, %e) : (!ocannl.tensor<f32, "...">, !ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "...">
  %b = "ocannl.einsum"(%s) {spec = "a1,a2,a3,a4 => 0,a1,a2,a3,a4"} : (!ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "...">
  %r = "ocannl.reshape"(%b) : (!ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "1,d1">
  return %r : !ocannl.tensor<f32, "1,d1">
}
