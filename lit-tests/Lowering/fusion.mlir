// Unary pointwise consumers fuse into their producer
// (passes/src/lower_to_affine/fusion.rs): each final value goes through
// the chain before it is stored, and the values in between get no buffer.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-affine)' | FileCheck %s

// add then relu: one nest, no intermediate (no arena).
// CHECK-LABEL: func.func @add_relu(
// CHECK-SAME: attributes {ocannl.intermediate_bytes = 0 : i64}
// CHECK: affine.for
// CHECK: %[[S:.*]] = arith.addf %{{.*}} : vector<8xf32>
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[S]], %[[Z]] : vector<8xf32>
// CHECK-NEXT: affine.vector_store %[[R]]
// CHECK-NOT: arith.maximumf
// CHECK: return
func.func @add_relu(%x: !ocannl.tensor<f32, "4,16">, %b: !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->..."> {
  %s = "ocannl.add"(%x, %b) : (!ocannl.tensor<f32, "4,16">, !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->...">
  %r = "ocannl.relu"(%s) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %r : !ocannl.tensor<f32, "...|...->...">
}

// A layer: the relu runs once per cell, after the reduction.
// CHECK-LABEL: func.func @layer(
// CHECK-SAME: attributes {ocannl.intermediate_bytes = 0 : i64}
// CHECK: vector.shuffle
// CHECK: affine.vector_load %arg3{{.*}} : memref<8x16xf32>, vector<4xf32>
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %{{.*}} : vector<4xf32>
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[SUM]], %[[Z]] : vector<4xf32>
// CHECK-NEXT: affine.vector_store %[[R]], %arg3
func.func @layer(%x: !ocannl.tensor<f32, "8|32">, %w: !ocannl.tensor<f32, "32->16">, %b: !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->..."> {
  %h = "ocannl.fma"(%w, %x, %b) : (!ocannl.tensor<f32, "32->16">, !ocannl.tensor<f32, "8|32">, !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->...">
  %r = "ocannl.relu"(%h) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %r : !ocannl.tensor<f32, "...|...->...">
}

// A value read twice keeps its buffer: exp is not fused into the add; the
// neg after exp is.
// CHECK-LABEL: func.func @shared(
// CHECK: arith.addf
// CHECK-NEXT: affine.vector_store
// CHECK: math.exp
// CHECK-NEXT: arith.negf
// CHECK-NEXT: affine.vector_store
// CHECK: arith.mulf
func.func @shared(%x: !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->..."> {
  %s = "ocannl.add"(%x, %x) : (!ocannl.tensor<f32, "16">, !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->...">
  %e = "ocannl.exp"(%s) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %n = "ocannl.neg"(%e) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %m = "ocannl.mul"(%n, %s) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %m : !ocannl.tensor<f32, "...|...->...">
}

// A reduction whose nest stores running sums (a scalar nest: the reduced
// axis is not contiguous) takes its epilogue in a pass over the finished
// result, in place.
// CHECK-LABEL: func.func @column_sum(
// CHECK: affine.for
// CHECK: arith.addf
// CHECK: affine.store
// CHECK: affine.for
// CHECK-NEXT: %[[V:.*]] = affine.load %arg1
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[V]] : f32
// CHECK-NEXT: affine.store %[[N]], %arg1
func.func @column_sum(%x: !ocannl.tensor<f32, "5|3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %s = "ocannl.einsum"(%x) {spec = "b|o => o"} : (!ocannl.tensor<f32, "5|3">) -> !ocannl.tensor<f32, "...|...->...">
  %n = "ocannl.neg"(%s) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %n : !ocannl.tensor<f32, "...|...->...">
}

// The chain's last value is written by the producer, so its buffer is
// placed where the producer runs: it must not reuse the producer's
// operand (%d dies at the einsum, %e is defined two ops later): two
// 64-byte slots live at once (placed at exp's position, %e would take
// %d's slot: 64 bytes, and the einsum would overwrite its own input).
// CHECK-LABEL: func.func @placement(
// CHECK-SAME: ocannl.intermediate_bytes = 128 : i64
func.func @placement(%x: !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %d = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...|...->...">
  %s = "ocannl.einsum"(%d) {spec = "r,c => c"} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %n = "ocannl.neg"(%s) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %e = "ocannl.exp"(%n) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %m = "ocannl.add"(%e, %e) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %m : !ocannl.tensor<f32, "...|...->...">
}
