// Unary pointwise consumers fuse into their producer
// (chosen by passes/src/plan_schedule/fusion.rs, checked and emitted by passes/src/lower_to_affine/fusion.rs): each final value goes through
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
// neg after exp is, and so is the mul reading the add's buffer.
// CHECK-LABEL: func.func @shared(
// CHECK: arith.addf
// CHECK-NEXT: affine.vector_store
// CHECK: math.exp
// CHECK-NEXT: %[[N:.*]] = arith.negf
// CHECK-NEXT: %[[S:.*]] = affine.vector_load %view
// CHECK-NEXT: arith.mulf %[[N]], %[[S]]
// CHECK-NEXT: affine.vector_store
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

// Binary consumers whose other operand exists before the producer fuse
// too: a bias add and a relu run on each finished vector of a matmul
// (lanes along the reduction: 4 adjacent cells after the butterfly), the
// bias read as a vector along the result's contiguous axis.
// CHECK-LABEL: func.func @bias_relu(
// CHECK-SAME: attributes {ocannl.intermediate_bytes = 0 : i64}
// CHECK: %[[ACC:.*]]:12 = affine.for {{.*}} iter_args
// CHECK: %[[OLD:.*]] = affine.vector_load %arg3
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[OLD]], %{{.*}} : vector<4xf32>
// CHECK-NEXT: %[[B:.*]] = affine.vector_load %arg2[%{{.*}}] : memref<16xf32>, vector<4xf32>
// CHECK-NEXT: %[[BIASED:.*]] = arith.addf %[[SUM]], %[[B]] : vector<4xf32>
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[BIASED]], %[[Z]] : vector<4xf32>
// CHECK-NEXT: affine.vector_store %[[R]], %arg3
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @bias_relu(%x: !ocannl.tensor<f32, "8|32">, %w: !ocannl.tensor<f32, "32->16">, %b: !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->..."> {
  %m = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "32->16">, !ocannl.tensor<f32, "8|32">) -> !ocannl.tensor<f32, "...|...->...">
  %h = "ocannl.add"(%m, %b) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->...">
  %r = "ocannl.relu"(%h) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %r : !ocannl.tensor<f32, "...|...->...">
}

// The operand order is kept (`sub(y, exp x)`), and an operand that does
// not vary along the vector's axis (a per-row scale "4,1") is loaded once
// and broadcast.
// CHECK-LABEL: func.func @residual(
// CHECK-SAME: attributes {ocannl.intermediate_bytes = 0 : i64}
// CHECK: %[[E:.*]] = math.exp %{{.*}} : vector<8xf32>
// CHECK-NEXT: %[[Y:.*]] = affine.vector_load %arg1[%{{.*}}, %{{.*}}] : memref<4x16xf32>, vector<8xf32>
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[Y]], %[[E]] : vector<8xf32>
// CHECK-NEXT: %[[S:.*]] = affine.load %arg2[%{{.*}}, 0] : memref<4x1xf32>
// CHECK-NEXT: %[[SV:.*]] = vector.broadcast %[[S]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[Q:.*]] = arith.divf %[[D]], %[[SV]] : vector<8xf32>
// CHECK-NEXT: affine.vector_store %[[Q]], %arg3
func.func @residual(%x: !ocannl.tensor<f32, "4,16">, %y: !ocannl.tensor<f32, "4,16">, %s: !ocannl.tensor<f32, "4,1">) -> !ocannl.tensor<f32, "...|...->..."> {
  %e = "ocannl.exp"(%x) : (!ocannl.tensor<f32, "4,16">) -> !ocannl.tensor<f32, "...|...->...">
  %d = "ocannl.sub"(%y, %e) : (!ocannl.tensor<f32, "4,16">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %q = "ocannl.div"(%d, %s) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "4,1">) -> !ocannl.tensor<f32, "...|...->...">
  return %q : !ocannl.tensor<f32, "...|...->...">
}

// Not fused: the other operand is computed after the producer (the exp
// keeps its buffer), and a consumer that broadcasts the value (a "4" read
// into "3,4" cells) needs it whole.
// CHECK-LABEL: func.func @not_fused(
// CHECK-SAME: attributes {ocannl.intermediate_bytes = 64 : i64}
// CHECK: math.exp
// CHECK-NEXT: affine.vector_store
// CHECK: arith.negf
// CHECK: arith.addf
// CHECK-LABEL: func.func @broadcast_consumer(
// CHECK-SAME: attributes {ocannl.intermediate_bytes = 64 : i64}
// CHECK: math.exp
// CHECK-NEXT: affine.vector_store
// CHECK: arith.mulf
func.func @not_fused(%x: !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->..."> {
  %e = "ocannl.exp"(%x) : (!ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->...">
  %n = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->...">
  %s = "ocannl.add"(%e, %n) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %s : !ocannl.tensor<f32, "...|...->...">
}
func.func @broadcast_consumer(%x: !ocannl.tensor<f32, "4">, %y: !ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %e = "ocannl.exp"(%x) : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->...">
  %m = "ocannl.mul"(%e, %y) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "...|...->...">
  return %m : !ocannl.tensor<f32, "...|...->...">
}

// An operand cell that several fused steps read is loaded once per cell
// for them: the chain stores nothing in between. (Thousands of identical
// loads in one body made upstream `cse` quadratic:
// tools/bench/compile_scaling.py, "shared".) The producer, the first add,
// loads its own operands.
// CHECK-LABEL: func.func @repeated_operand(
// CHECK: affine.for
// CHECK: affine.vector_load %arg0
// CHECK-NEXT: affine.vector_load %arg1
// CHECK-NEXT: %[[S1:.*]] = arith.addf
// CHECK-NEXT: %[[B:.*]] = affine.vector_load %arg1
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S1]], %[[B]] : vector<8xf32>
// CHECK-NEXT: %[[S3:.*]] = arith.mulf %[[S2]], %[[B]] : vector<8xf32>
// CHECK-NEXT: affine.vector_store %[[S3]], %arg2
// CHECK-NOT: affine.vector_load
// CHECK: return
func.func @repeated_operand(%x: !ocannl.tensor<f32, "4,16">, %b: !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->..."> {
  %s1 = "ocannl.add"(%x, %b) : (!ocannl.tensor<f32, "4,16">, !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->...">
  %s2 = "ocannl.add"(%s1, %b) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->...">
  %s3 = "ocannl.mul"(%s2, %b) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->...">
  return %s3 : !ocannl.tensor<f32, "...|...->...">
}
