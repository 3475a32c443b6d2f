// Concatenation with block specs (reference, "Concatenation" and "Invalid
// variables in Block specs"): a concatenated axis `a^b` is the sum of its
// parts, inferred forwards (from the operands), backwards (a missing operand
// from the result) and for slices (`a^b => a`, where the discarded part `b`
// closes to 0 unless the result fixes it). Stacking concatenates size-1
// parts on a new axis. Every result is confirmed by the independent checker.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// CHECK-LABEL: func.func @concat2
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2|7">
func.func @concat2(%x: !ocannl.tensor<f32, "2|3">, %y: !ocannl.tensor<f32, "2|4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%x, %y) {spec = "b|a; b|c => b|a^c"} : (!ocannl.tensor<f32, "2|3">, !ocannl.tensor<f32, "2|4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// CHECK-LABEL: func.func @concat3
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "9->5">
func.func @concat3(%x: !ocannl.tensor<f32, "2->5">, %y: !ocannl.tensor<f32, "3->5">, %z: !ocannl.tensor<f32, "4->5">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%x, %y, %z) {spec = "a->o; b->o; c->o => a^b^c->o"} : (!ocannl.tensor<f32, "2->5">, !ocannl.tensor<f32, "3->5">, !ocannl.tensor<f32, "4->5">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Row variables carry the other axes.
// CHECK-LABEL: func.func @concat_rows
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "4|5->6,7">
func.func @concat_rows(%x: !ocannl.tensor<f32, "4|2->6,7">, %y: !ocannl.tensor<f32, "4|3->6,7">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%x, %y) {spec = "...|a->...; ...|b->... => ...|a^b->..."} : (!ocannl.tensor<f32, "4|2->6,7">, !ocannl.tensor<f32, "4|3->6,7">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Backwards: the second operand from the result.
// CHECK-LABEL: func.func @concat_backwards
// CHECK-SAME: %arg1: !ocannl.tensor<f32, "3">
func.func @concat_backwards(%x: !ocannl.tensor<f32, "2">, %y: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "5"> {
  %0 = "ocannl.concat"(%x, %y) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "5">
  return %0 : !ocannl.tensor<f32, "5">
}

// Stacking (OCANNL's `stack`): three 3x4 tensors on a new leading axis; the
// operands have no axis for `s`, `t`, `u`, which close to 1.
// CHECK-LABEL: func.func @stack3
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "3,3,4">
func.func @stack3(%x: !ocannl.tensor<f32, "3,4">, %y: !ocannl.tensor<f32, "3,4">, %z: !ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%x, %y, %z) {spec = "...; ...; ... => s^t^u, ..."} : (!ocannl.tensor<f32, "3,4">, !ocannl.tensor<f32, "3,4">, !ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Stacking as a batch axis, with explicit size-1 parts.
// CHECK-LABEL: func.func @stack_batch
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2|4">
func.func @stack_batch(%x: !ocannl.tensor<f32, "1|4">, %y: !ocannl.tensor<f32, "1|4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%x, %y) {spec = "s|...; t|... => s^t|..."} : (!ocannl.tensor<f32, "1|4">, !ocannl.tensor<f32, "1|4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Slicing: `b` is discardable; the open result takes all of `a^b`.
// CHECK-LABEL: func.func @slice_open
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2|5">
func.func @slice_open(%x: !ocannl.tensor<f32, "2|5">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%x) {spec = "n|a^b => n|a"} : (!ocannl.tensor<f32, "2|5">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Slicing the first 3 of 5 (the result fixes `a`; `b` is what is left),
// then the last 2 of 5 into an unknown argument's shape.
// CHECK-LABEL: func.func @slice_known
// CHECK-SAME: %arg1: !ocannl.tensor<f32, "2">
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "3">
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "2">
func.func @slice_known(%x: !ocannl.tensor<f32, "5">, %y: !ocannl.tensor<f32, "...|...->...">) -> (!ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "...|...->...">) {
  %0 = "ocannl.concat"(%x) {spec = "a^b => a"} : (!ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "3">
  %1 = "ocannl.concat"(%x) {spec = "a^b => b"} : (!ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "2">
  %2 = "ocannl.add"(%1, %y) : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %0, %2 : !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "...|...->...">
}

// Embedding into a larger axis: the new part is discardable (0 when open).
// CHECK-LABEL: func.func @embed
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "3">
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "7">
func.func @embed(%x: !ocannl.tensor<f32, "3">) -> (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "7">) {
  %0 = "ocannl.concat"(%x) {spec = "a => a^b"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %1 = "ocannl.concat"(%x) {spec = "a => a^b"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "7">
  return %0, %1 : !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "7">
}

// Unknown parts everywhere: the parts close to 1 and each concatenated axis
// is the sum of its parts.
// CHECK-LABEL: func.func @chain
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2">
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "3">
func.func @chain(%x: !ocannl.tensor<f32, "...|...->...">, %y: !ocannl.tensor<f32, "...|...->...">, %z: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%x, %y) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %1 = "ocannl.concat"(%0, %z) {spec = "c; d => c^d"} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %1 : !ocannl.tensor<f32, "...|...->...">
}
