// Convolutions: the input is read at `stride * o + dilation * k + offset`
// (minus the left padding, half the dilated kernel's extent, when padded).
// Reads that can leave the input (padding) are guarded by an `affine.if`
// and read the neutral element of the op's accumulation instead: 0 for a
// sum of products, -inf for a max-pool. Buffers are never padded.
// RUN: ocannl-opt %s --mlir-print-local-scope -p 'builtin.module(ocannl-infer-shapes,ocannl-infer-projections)' | FileCheck %s --check-prefix=PROJ
// RUN: ocannl-opt %s --mlir-print-local-scope -p 'builtin.module(ocannl-to-affine)' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-llvm)' | FileCheck %s --check-prefix=LLVM

// LLVM-NOT: affine.
// LLVM: llvm.func @valid_stride2

// Valid, stride 2: always inside the input, no guard.
// PROJ-LABEL: func.func @valid_stride2
// PROJ: ocannl.indexing_maps = [affine_map<(d0, d1) -> (d0 * 2 + d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>]
// PROJ-SAME: ocannl.iterator_types = ["parallel", "reduction"]
// PROJ-SAME: ocannl.product_space = array<i64: 3, 3>
// CHECK-LABEL: func.func @valid_stride2(
// CHECK-SAME: %[[X:.*]]: memref<7xf32>, %[[K:.*]]: memref<3xf32>, %[[R:.*]]: memref<3xf32>)
// CHECK: affine.store %{{.*}}, %[[R]]
// CHECK: affine.for %[[O:.*]] = 0 to 3 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT: affine.load %[[X]][%[[O]] * 2 + %[[J]]]
// CHECK-NOT: affine.if
// CHECK: return
func.func @valid_stride2(%x: !ocannl.tensor<f32, "7">, %k: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%x, %k) {spec = "2*o<+k; k => o"} : (!ocannl.tensor<f32, "7">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Padded, dilation 2: the kernel spans 5, the left padding is 2.
// PROJ-LABEL: func.func @padded_dilated
// PROJ: ocannl.indexing_maps = [affine_map<(d0, d1) -> (d0 + d1 * 2 - 2)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>]
// CHECK-LABEL: func.func @padded_dilated(
// CHECK-SAME: %[[X:.*]]: memref<6xf32>, %[[K:.*]]: memref<3xf32>, %[[R:.*]]: memref<6xf32>)
// CHECK: affine.store %{{.*}}, %[[R]]
// CHECK: affine.for %[[O:.*]] = 0 to 6 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT: %[[PAD:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[V:.*]] = affine.if affine_set<(d0, d1) : (d0 + d1 * 2 - 2 >= 0, -(d0 + d1 * 2 - 2) + 5 >= 0)>(%[[O]], %[[J]]) -> f32 {
// CHECK-NEXT: %[[L:.*]] = affine.load %[[X]][%[[O]] + %[[J]] * 2 - 2]
// CHECK-NEXT: affine.yield %[[L]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: affine.yield %[[PAD]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: %[[W:.*]] = affine.load %[[K]][%[[J]]]
// CHECK-NEXT: arith.mulf %[[V]], %[[W]] : f32
func.func @padded_dilated(%x: !ocannl.tensor<f32, "6">, %k: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%x, %k) {spec = "o=+2*k; k => o"} : (!ocannl.tensor<f32, "6">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// A padded max-pool reads -inf outside the input.
// CHECK-LABEL: func.func @padded_max_pool(
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: affine.store
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: affine.if
// CHECK: affine.yield %[[NEG]] : f32
// CHECK: arith.addf
// CHECK: arith.maximumf
func.func @padded_max_pool(%x: !ocannl.tensor<f32, "2|8,8,3">, %w: !ocannl.tensor<f32, "3,3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%x, %w) {spec = "b|2*oh=+wh,2*ow=+ww,c; wh,ww => b|oh,ow,c", accum = "max", combine = "add"} : (!ocannl.tensor<f32, "2|8,8,3">, !ocannl.tensor<f32, "3,3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Strided iteration with an offset: every third element from 1.
// PROJ-LABEL: func.func @strided
// PROJ: ocannl.indexing_maps = [affine_map<(d0) -> (d0 * 3 + 1)>, affine_map<(d0) -> (d0)>]
func.func @strided(%x: !ocannl.tensor<f32, "9">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%x) {spec = "3*o+1 => o"} : (!ocannl.tensor<f32, "9">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}
