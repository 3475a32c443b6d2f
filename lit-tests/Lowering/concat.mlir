// Concatenation (reference, "Projections inference", "Concatenation"): the
// parts of a concatenated axis are iterators of one component of the
// concatenation hypergraph; the loop nest has one block per choice of one
// active iterator per component, emitted in sequence, each writing its part
// of the result (offset by the sizes of the parts before it). Blocks that
// write nothing (a slice's discarded part, off-diagonal blocks) are not
// emitted; cells no block writes are 0.
// RUN: ocannl-opt %s --mlir-print-local-scope -p 'builtin.module(ocannl-infer-shapes,ocannl-infer-projections)' | FileCheck %s --check-prefix=PROJ
// RUN: ocannl-opt %s --mlir-print-local-scope -p 'builtin.module(ocannl-to-affine)' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-llvm)' | FileCheck %s --check-prefix=LLVM

// LLVM-NOT: affine.
// LLVM: llvm.func @concat2

// Two operands along the output axis: two nests, the second at offset 3.
// PROJ-LABEL: func.func @concat2
// PROJ: ocannl.blocks = [{iterators = array<i64: 0, 1>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], operand = 0 : i64}, {iterators = array<i64: 0, 2>, maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 + 3)>], operand = 1 : i64}]
// PROJ-SAME: ocannl.components = [array<i64: 0>, array<i64: 1, 2>]
// PROJ-SAME: ocannl.iterator_types = ["parallel", "parallel", "parallel"]
// PROJ-SAME: ocannl.product_space = array<i64: 2, 3, 4>
// CHECK-LABEL: func.func @concat2(
// CHECK-SAME: %[[X:.*]]: memref<2x3xf32>, %[[Y:.*]]: memref<2x4xf32>, %[[R:.*]]: memref<2x7xf32>)
// CHECK-NOT: arith.constant
// CHECK: affine.for %[[B:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT: %[[V:.*]] = affine.load %[[X]][%[[B]], %[[I]]]
// CHECK-NEXT: affine.store %[[V]], %[[R]][%[[B]], %[[I]]]
// CHECK: affine.for %[[B2:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 4 {
// CHECK-NEXT: %[[W:.*]] = affine.load %[[Y]][%[[B2]], %[[J]]]
// CHECK-NEXT: affine.store %[[W]], %[[R]][%[[B2]], %[[J]] + 3]
func.func @concat2(%x: !ocannl.tensor<f32, "2|3">, %y: !ocannl.tensor<f32, "2|4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%x, %y) {spec = "b|a; b|c => b|a^c"} : (!ocannl.tensor<f32, "2|3">, !ocannl.tensor<f32, "2|4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Three operands: offsets 0, 2 and 5, each nest in a block of its own (so
// that `scf-to-cf` stays linear in the parts: it splits the block at every
// loop, moving the ops after it).
// CHECK-LABEL: func.func @concat3(
// CHECK: affine.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<9xf32>
// CHECK-NEXT: }
// CHECK-NEXT: cf.br ^[[B1:.*]]
// CHECK-NEXT: ^[[B1]]:
// CHECK-NEXT: affine.for
// CHECK: affine.store %{{.*}}, %{{.*}}[%{{.*}} + 2] : memref<9xf32>
// CHECK-NEXT: }
// CHECK-NEXT: cf.br ^[[B2:.*]]
// CHECK-NEXT: ^[[B2]]:
// CHECK-NEXT: affine.for
// CHECK: affine.store %{{.*}}, %{{.*}}[%{{.*}} + 5] : memref<9xf32>
func.func @concat3(%x: !ocannl.tensor<f32, "2">, %y: !ocannl.tensor<f32, "3">, %z: !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%x, %y, %z) {spec = "a; b; c => a^b^c"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Slicing a suffix: only the block of `b` is emitted, reading at offset 3.
// PROJ-LABEL: func.func @slice_suffix
// PROJ: ocannl.blocks = [{iterators = array<i64: 0>, maps = [affine_map<(d0) -> (d0 + 3)>, affine_map<(d0) -> (d0)>], operand = 0 : i64}]
// CHECK-LABEL: func.func @slice_suffix(
// CHECK-SAME: %[[X:.*]]: memref<5xf32>, %[[R:.*]]: memref<2xf32>)
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT: %[[V:.*]] = affine.load %[[X]][%[[I]] + 3]
// CHECK-NEXT: affine.store %[[V]], %[[R]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: cf.br ^[[NEXT:.*]]
// CHECK-NEXT: ^[[NEXT]]:
// CHECK-NEXT: return
func.func @slice_suffix(%x: !ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "2"> {
  %0 = "ocannl.concat"(%x) {spec = "a^b => b"} : (!ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "2">
  return %0 : !ocannl.tensor<f32, "2">
}

// Stacking: each operand writes one position of the new axis (a part of
// size 1: its iterator is the constant 0, no loop).
// CHECK-LABEL: func.func @stack(
// CHECK-SAME: %[[X:.*]]: memref<3xi32>, %[[Y:.*]]: memref<3xi32>, %[[R:.*]]: memref<2x3xi32>)
// CHECK: %[[S:.*]] = arith.constant 0 : index
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT: %[[V:.*]] = affine.load %[[X]][%[[I]]]
// CHECK-NEXT: affine.store %[[V]], %[[R]][%[[S]], %[[I]]]
// CHECK: affine.store %{{.*}}, %[[R]][%{{.*}} + 1, %{{.*}}]
func.func @stack(%x: !ocannl.tensor<i32, "3">, %y: !ocannl.tensor<i32, "3">) -> !ocannl.tensor<i32, "...|...->..."> {
  %0 = "ocannl.concat"(%x, %y) {spec = "...; ... => s^t, ..."} : (!ocannl.tensor<i32, "3">, !ocannl.tensor<i32, "3">) -> !ocannl.tensor<i32, "...|...->...">
  return %0 : !ocannl.tensor<i32, "...|...->...">
}

// Embedding: the part nobody writes is 0 (the result is filled first).
// CHECK-LABEL: func.func @embed(
// CHECK-SAME: %[[X:.*]]: memref<3xf32>, %[[R:.*]]: memref<7xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 7 {
// CHECK-NEXT: affine.store %[[ZERO]], %[[R]][%[[I]]]
// CHECK: affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT: %[[V:.*]] = affine.load %[[X]][%[[J]]]
// CHECK-NEXT: affine.store %[[V]], %[[R]][%[[J]]]
func.func @embed(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "7"> {
  %0 = "ocannl.concat"(%x) {spec = "a => a^b"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "7">
  return %0 : !ocannl.tensor<f32, "7">
}

// Summing over an axis the result does not have (OCANNL's concat_sum): the
// row sums of both operands, concatenated, accumulate into a 0-filled
// result.
// CHECK-LABEL: func.func @concat_sum(
// CHECK-SAME: %{{.*}}: memref<2x3xf32>, %{{.*}}: memref<4x3xf32>, %[[R:.*]]: memref<6xf32>)
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: affine.for
// CHECK: %[[OLD:.*]] = affine.load %[[R]][%{{[a-z0-9]*}}] :
// CHECK-NEXT: arith.addf %[[OLD]],
// CHECK: %[[OLD2:.*]] = affine.load %[[R]][%{{[a-z0-9]*}} + 2] :
// CHECK-NEXT: arith.addf %[[OLD2]],
func.func @concat_sum(%x: !ocannl.tensor<f32, "2,3">, %y: !ocannl.tensor<f32, "4,3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%x, %y) {spec = "a,j; b,j => a^b"} : (!ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "4,3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}
