// Concatenations computed in place (passes/src/lower_to_affine/in_place.rs):
// when every part is computed in the function by a loop nest, read only
// by the concatenation and not returned, and the parts' boxes tile the
// result, each part's nest writes its box of the concatenation's buffer
// (a `memref.reinterpret_cast` with the whole's strides) and the
// concatenation emits nothing. Otherwise it copies (Lowering/concat.mlir).
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-affine)' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-llvm)' | FileCheck %s --check-prefix=LLVM
// RUN: ocannl-run %s --entry rows | FileCheck %s --check-prefix=ROWS
// RUN: ocannl-run %s --entry middle --threads 2 | FileCheck %s --check-prefix=MIDDLE
// RUN: ocannl-run %s --entry read_twice | FileCheck %s --check-prefix=TWICE
// RUN: ocannl-run %s --entry interleave | FileCheck %s --check-prefix=INTERLEAVE
// RUN: ocannl-run %s --entry interleave --threads 2 | FileCheck %s --check-prefix=INTERLEAVE

// LLVM-NOT: memref.
// LLVM-LABEL: llvm.func @rows

// Along the rows' last axis: relu(x) into columns 0-2 of rows of 7 (offset
// 0), -y into columns 3-6 (offset 3), both through views of the result;
// no copy.
// CHECK-LABEL: func.func @rows(
// CHECK-SAME: %[[R:.*]]: memref<2x7xf32>)
// CHECK: %[[A:.*]] = memref.reinterpret_cast %[[R]] to offset: [0], sizes: [2, 3], strides: [7, 1] : memref<2x7xf32> to memref<2x3xf32, strided<[7, 1]>>
// CHECK: affine.store %{{.*}}, %[[A]]
// CHECK: %[[B:.*]] = memref.reinterpret_cast %[[R]] to offset: [3], sizes: [2, 4], strides: [7, 1] : memref<2x7xf32> to memref<2x4xf32, strided<[7, 1], offset: 3>>
// CHECK: affine.vector_store %{{.*}}, %[[B]]
// CHECK-NOT: memref.copy
// CHECK: return

// x = [[1, -2, 3], [-4, 5, -6]], y = [[1, 2, 3, 4], [5, 6, 7, 8]]:
// [[1, 0, 3, -1, -2, -3, -4], [0, 5, 0, -5, -6, -7, -8]].
// ROWS: result #0: float32[2, 7]
// ROWS-NEXT: min -8.000000 max 5.000000 mean -1.928571 cells [1.000000, 0.000000, 3.000000, -1.000000, -2.000000, -3.000000, ...]
func.func @rows() -> !ocannl.tensor<f32, "2,7"> {
  %x = "ocannl.constant"() {value = dense<[[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]]> : tensor<2x3xf32>} : () -> !ocannl.tensor<f32, "2,3">
  %y = "ocannl.constant"() {value = dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>} : () -> !ocannl.tensor<f32, "2,4">
  %a = "ocannl.relu"(%x) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "2,3">
  %b = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "2,4">) -> !ocannl.tensor<f32, "2,4">
  %c = "ocannl.concat"(%a, %b) {spec = "n,i; n,j => n,i^j"} : (!ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "2,4">) -> !ocannl.tensor<f32, "2,7">
  return %c : !ocannl.tensor<f32, "2,7">
}

// Along a middle axis, a matrix product and a relu as parts, an
// intermediate (the concatenation is read by a neg): its buffer is in the
// arena, the parts' views offset by 0 and by 2 rows of 3.
// CHECK-LABEL: func.func @middle(
// CHECK: %[[W:.*]] = memref.view {{.*}} to memref<2x5x3xf32>
// CHECK: memref.reinterpret_cast %[[W]] to offset: [0], sizes: [2, 2, 3], strides: [15, 3, 1]
// CHECK: memref.reinterpret_cast %[[W]] to offset: [6], sizes: [2, 3, 3], strides: [15, 3, 1]
// CHECK-NOT: memref.copy
// CHECK: return

// -(p ^ relu(z)), p = x . ones (each row of x summed: 3 and 12, 21 and 30),
// z all 1: cells -3, -12 (x3) and -21, -30 (x3) in each batch's first two
// rows, -1 in the other 9: sum -(45 + 153) - 18 = -216 over 30 cells.
// MIDDLE: result #0: float32[2, 5, 3]
// MIDDLE-NEXT: min -30.000000 max -1.000000 mean -7.200000
func.func @middle() -> !ocannl.tensor<f32, "2,5,3"> {
  %x = "ocannl.constant"() {value = dense<[[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], [[6.0, 7.0, 8.0], [9.0, 10.0, 11.0]]]> : tensor<2x2x3xf32>} : () -> !ocannl.tensor<f32, "2,2,3">
  %w = "ocannl.constant"() {value = dense<1.0> : tensor<3x3xf32>} : () -> !ocannl.tensor<f32, "3,3">
  %z = "ocannl.constant"() {value = dense<1.0> : tensor<2x3x3xf32>} : () -> !ocannl.tensor<f32, "2,3,3">
  %p = "ocannl.einsum"(%x, %w) {spec = "n,a,k; k,j => n,a,j"} : (!ocannl.tensor<f32, "2,2,3">, !ocannl.tensor<f32, "3,3">) -> !ocannl.tensor<f32, "2,2,3">
  %r = "ocannl.relu"(%z) : (!ocannl.tensor<f32, "2,3,3">) -> !ocannl.tensor<f32, "2,3,3">
  %c = "ocannl.concat"(%p, %r) {spec = "n,a,k; n,b,k => n,a^b,k"} : (!ocannl.tensor<f32, "2,2,3">, !ocannl.tensor<f32, "2,3,3">) -> !ocannl.tensor<f32, "2,5,3">
  %n = "ocannl.neg"(%c) : (!ocannl.tensor<f32, "2,5,3">) -> !ocannl.tensor<f32, "2,5,3">
  return %n : !ocannl.tensor<f32, "2,5,3">
}

// Not in place: a part read twice (by the concatenation and by the
// return), a part that is an argument, a concatenation whose part is a
// concatenation (the inner one is in place, the outer copies it), and
// parts whose last axis has size 1 in a whole where it has 2 (their third
// axis, contiguous in their own buffers and stored as vectors there, would
// be 2 cells apart in the view).
// CHECK-LABEL: func.func @read_twice(
// CHECK: memref.copy
// CHECK: return
// TWICE: result #0: float32[2, 7]
// TWICE-NEXT: cells [1.000000, 0.000000, 3.000000,
// TWICE: result #1: float32[2, 3]
// TWICE-NEXT: min 0.000000 max 5.000000 mean 1.500000
func.func @read_twice(%y: !ocannl.tensor<f32, "2,4">) -> (!ocannl.tensor<f32, "2,7">, !ocannl.tensor<f32, "2,3">) {
  %x = "ocannl.constant"() {value = dense<[[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]]> : tensor<2x3xf32>} : () -> !ocannl.tensor<f32, "2,3">
  %a = "ocannl.relu"(%x) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "2,3">
  %c = "ocannl.concat"(%a, %y) {spec = "n,i; n,j => n,i^j"} : (!ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "2,4">) -> !ocannl.tensor<f32, "2,7">
  return %c, %a : !ocannl.tensor<f32, "2,7">, !ocannl.tensor<f32, "2,3">
}

// CHECK-LABEL: func.func @nested(
// CHECK: memref.reinterpret_cast
// CHECK: memref.copy
// CHECK: return
func.func @nested(%x: !ocannl.tensor<f32, "2,3">, %y: !ocannl.tensor<f32, "2,4">) -> !ocannl.tensor<f32, "2,10"> {
  %a = "ocannl.relu"(%x) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "2,3">
  %b = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "2,4">) -> !ocannl.tensor<f32, "2,4">
  %n = "ocannl.exp"(%x) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "2,3">
  %c = "ocannl.concat"(%a, %b) {spec = "n,i; n,j => n,i^j"} : (!ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "2,4">) -> !ocannl.tensor<f32, "2,7">
  %d = "ocannl.concat"(%c, %n) {spec = "n,i; n,j => n,i^j"} : (!ocannl.tensor<f32, "2,7">, !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "2,10">
  return %d : !ocannl.tensor<f32, "2,10">
}

// CHECK-LABEL: func.func @interleave(
// CHECK-NOT: memref.reinterpret_cast {{.*}} sizes: [2, 3, 8, 1]
// CHECK: return
// x = 0..47 as (2, 3, 8), y = -x: cells x0, -x0, x1, -x1, ...
// INTERLEAVE: result #0: float32[2, 3, 8, 2]
// INTERLEAVE-NEXT: min -47.000000 max 47.000000 mean 0.000000 cells [0.000000, -0.000000, 1.000000, -1.000000, 2.000000, -2.000000, ...]
func.func @interleave() -> !ocannl.tensor<f32, "2,3,8,2"> {
  %x = "ocannl.range"() {spec = "2,3,8"} : () -> !ocannl.tensor<f32, "2,3,8">
  %a = "ocannl.einsum"(%x) {spec = "a,b,c => a,b,c,0"} : (!ocannl.tensor<f32, "2,3,8">) -> !ocannl.tensor<f32, "2,3,8,1">
  %n = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "2,3,8">) -> !ocannl.tensor<f32, "2,3,8">
  %b = "ocannl.einsum"(%n) {spec = "a,b,c => a,b,c,0"} : (!ocannl.tensor<f32, "2,3,8">) -> !ocannl.tensor<f32, "2,3,8,1">
  %c = "ocannl.concat"(%a, %b) {spec = "a,b,c,p; a,b,c,q => a,b,c,p^q"} : (!ocannl.tensor<f32, "2,3,8,1">, !ocannl.tensor<f32, "2,3,8,1">) -> !ocannl.tensor<f32, "2,3,8,2">
  return %c : !ocannl.tensor<f32, "2,3,8,2">
}
