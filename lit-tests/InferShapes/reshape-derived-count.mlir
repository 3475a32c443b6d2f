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

// Chains of reshapes: a guess that fixes one count fixes the next. Guessing
// the final `1,d4` to 1 made `%r`'s count 1, and so `%s`'s, an open row
// (closed to no axes at stage 6) and 32 known elements ("32 elements, which
// does not divide 1"); guessing the second Flatten's axes to 1 made the first
// one's count 1, 288 known ("1 elements, expected 288"). Each guess is now
// checked along the counts it reaches, with the least product a count gives
// the dims of its sides (`d8 * d7 >= 288`).
// CHECK-LABEL: func.func @flatten_a_broadcast_twice
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "4,2,4">
// CHECK: "ocannl.reshape"{{.*}} -> !ocannl.tensor<f32, "1,32">
// CHECK: "ocannl.reshape"{{.*}} -> !ocannl.tensor<f32, "1,32">
func.func @flatten_a_broadcast_twice(%x: !ocannl.tensor<f32, "4,2,4">, %k: !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "1,d4"> {
  %s = "ocannl.add"(%x, %k) : (!ocannl.tensor<f32, "4,2,4">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...">
  %r = "ocannl.reshape"(%s) : (!ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "1,d3">
  %q = "ocannl.reshape"(%r) : (!ocannl.tensor<f32, "1,d3">) -> !ocannl.tensor<f32, "1,d4">
  return %q : !ocannl.tensor<f32, "1,d4">
}

// CHECK-LABEL: func.func @flatten_twice
// CHECK: "ocannl.reshape"{{.*}} -> !ocannl.tensor<f32, "1,4,9,8,1">
// CHECK: "ocannl.reshape"{{.*}} -> !ocannl.tensor<f32, "288,1">
// CHECK: "ocannl.reshape"{{.*}} -> !ocannl.tensor<f32, "288,1,1">
// CHECK: "ocannl.reshape"{{.*}} -> !ocannl.tensor<f32, "288,1">
func.func @flatten_twice(%x: !ocannl.tensor<f32, "1,4,9,8">) -> !ocannl.tensor<f32, "d13,d12"> {
  %a = "ocannl.relu"(%x) : (!ocannl.tensor<f32, "1,4,9,8">) -> !ocannl.tensor<f32, "...">
  %b = "ocannl.einsum"(%a) {spec = "a0,a1,a2,a3,..r.. => a0,a1,a2,a3,..r.."} : (!ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "d3,d4,d5,d6,...">
  %c = "ocannl.reshape"(%b) : (!ocannl.tensor<f32, "d3,d4,d5,d6,...">) -> !ocannl.tensor<f32, "d3,d4,d5,d6,d7">
  %d = "ocannl.reshape"(%c) : (!ocannl.tensor<f32, "d3,d4,d5,d6,d7">) -> !ocannl.tensor<f32, "d8,d7">
  %e = "ocannl.einsum"(%d) {spec = "a0,a1,..r.. => a0,a1,..r.."} : (!ocannl.tensor<f32, "d8,d7">) -> !ocannl.tensor<f32, "d10,d11,...">
  %f = "ocannl.reshape"(%e) : (!ocannl.tensor<f32, "d10,d11,...">) -> !ocannl.tensor<f32, "d10,d11,d12">
  %g = "ocannl.reshape"(%f) : (!ocannl.tensor<f32, "d10,d11,d12">) -> !ocannl.tensor<f32, "d13,d12">
  return %g : !ocannl.tensor<f32, "d13,d12">
}
