// Concatenation (reference, "Projections inference", "Concatenation"): the
// parts of a concatenated axis are iterators of one component of the
// concatenation hypergraph; the loop nest has one block per choice of one
// active iterator per component, emitted in sequence, each writing its part
// of the result (offset by the sizes of the parts before it). Blocks that
// write nothing (a slice's discarded part, off-diagonal blocks) are not
// emitted; cells no block writes are 0. On the CPU, a block that copies
// its operand in order, runs of at least 4 cells (or the whole part)
// contiguous in both buffers, is a `memref.copy` of flat views per run
// (an `llvm.memcpy`): one op instead of a loop nest per part, which keeps
// LLVM's time linear and small for concatenations of thousands of parts.
// RUN: ocannl-opt %s --mlir-print-local-scope -p 'builtin.module(ocannl-infer-shapes,ocannl-infer-projections)' | FileCheck %s --check-prefix=PROJ
// RUN: ocannl-opt %s --mlir-print-local-scope -p 'builtin.module(ocannl-to-affine)' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-llvm)' | FileCheck %s --check-prefix=LLVM

// LLVM-NOT: affine.
// LLVM: llvm.func @concat2
// LLVM: "llvm.intr.memcpy"

// Two operands along the output axis: the first's rows (3 cells) are
// copied by a loop nest, the second's (4 cells, at offset 3 in the
// result's rows of 7) by one copy per row.
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
// CHECK-NEXT: %[[FROM:.*]] = affine.apply affine_map<(d0) -> (d0 * 4)>(%[[B2]])
// CHECK-NEXT: %[[SRC:.*]] = memref.reinterpret_cast %[[Y]] to offset: [%[[FROM]]], sizes: [4], strides: [1]
// CHECK-NEXT: %[[TO:.*]] = affine.apply affine_map<(d0) -> (d0 * 7 + 3)>(%[[B2]])
// CHECK-NEXT: %[[DST:.*]] = memref.reinterpret_cast %[[R]] to offset: [%[[TO]]], sizes: [4], strides: [1]
// CHECK-NEXT: memref.copy %[[SRC]], %[[DST]] : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32, strided<[1], offset: ?>>
// CHECK-NEXT: }
func.func @concat2(%x: !ocannl.tensor<f32, "2|3">, %y: !ocannl.tensor<f32, "2|4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%x, %y) {spec = "b|a; b|c => b|a^c"} : (!ocannl.tensor<f32, "2|3">, !ocannl.tensor<f32, "2|4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Three operands with rows shorter than 4 cells: offsets 0, 2 and 5 in
// rows of 7, one loop nest each, each nest in a block of its own (so that
// `scf-to-cf` stays linear in the parts: it splits the block at every loop,
// moving the ops after it).
// CHECK-LABEL: func.func @concat3(
// CHECK: affine.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<2x7xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: cf.br ^[[B1:.*]]
// CHECK-NEXT: ^[[B1]]:
// CHECK-NEXT: affine.for
// CHECK: affine.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}} + 2] : memref<2x7xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: cf.br ^[[B2:.*]]
// CHECK-NEXT: ^[[B2]]:
// CHECK-NEXT: affine.for
// CHECK: affine.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}} + 5] : memref<2x7xf32>
!r2 = !ocannl.tensor<f32, "2,2">
!r3 = !ocannl.tensor<f32, "2,3">
func.func @concat3(%x: !r2, %y: !r3, %z: !r2) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%x, %y, %z) {spec = "n,a; n,b; n,c => n,a^b^c"} : (!r2, !r3, !r2) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Whole parts one after the other: one copy each, no loop, all in one
// block (offsets 0, 2 and 5 of the result).
// CHECK-LABEL: func.func @concat_whole(
// CHECK-SAME: %[[A:.*]]: memref<2xf32>, %[[B:.*]]: memref<3xf32>, %[[C:.*]]: memref<4xf32>, %[[R:.*]]: memref<9xf32>)
// CHECK-NEXT: %[[A1:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [2], strides: [1] : memref<2xf32> to memref<2xf32, strided<[1]>>
// CHECK-NEXT: %[[R1:.*]] = memref.reinterpret_cast %[[R]] to offset: [0], sizes: [2], strides: [1] : memref<9xf32> to memref<2xf32, strided<[1]>>
// CHECK-NEXT: memref.copy %[[A1]], %[[R1]]
// CHECK-NEXT: %[[B1:.*]] = memref.reinterpret_cast %[[B]] to offset: [0], sizes: [3], strides: [1]
// CHECK-NEXT: %[[R2:.*]] = memref.reinterpret_cast %[[R]] to offset: [2], sizes: [3], strides: [1] : memref<9xf32> to memref<3xf32, strided<[1], offset: 2>>
// CHECK-NEXT: memref.copy %[[B1]], %[[R2]]
// CHECK-NEXT: %[[C1:.*]] = memref.reinterpret_cast %[[C]] to offset: [0], sizes: [4], strides: [1]
// CHECK-NEXT: %[[R3:.*]] = memref.reinterpret_cast %[[R]] to offset: [5], sizes: [4], strides: [1] : memref<9xf32> to memref<4xf32, strided<[1], offset: 5>>
// CHECK-NEXT: memref.copy %[[C1]], %[[R3]]
// CHECK-NOT: affine.for
// CHECK: return
func.func @concat_whole(%x: !ocannl.tensor<f32, "2">, %y: !ocannl.tensor<f32, "3">, %z: !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%x, %y, %z) {spec = "a; b; c => a^b^c"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Along a middle axis: the second block's cells are runs of 2*3 = 6
// contiguous cells in both, one per point of the leading axis (a loop of
// 2, steps 6 in the operand and 5*3 = 15 in the result, from 9); boolean
// (i1) parts stay loop nests (a memcpy counts bytes).
// CHECK-LABEL: func.func @middle(
// CHECK: ^bb1:
// CHECK-NEXT: affine.for %[[N:.*]] = 0 to 2 {
// CHECK-NEXT: affine.apply affine_map<(d0) -> (d0 * 6)>(%[[N]])
// CHECK: affine.apply affine_map<(d0) -> (d0 * 15 + 9)>(%[[N]])
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<6xf32, strided<[1], offset: ?>> to memref<6xf32, strided<[1], offset: ?>>
// CHECK-LABEL: func.func @middle_bool(
// CHECK-NOT: memref.copy
// CHECK: return
func.func @middle(%x: !ocannl.tensor<f32, "2,3,3">, %y: !ocannl.tensor<f32, "2,2,3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%x, %y) {spec = "n,a,k; n,b,k => n,a^b,k"} : (!ocannl.tensor<f32, "2,3,3">, !ocannl.tensor<f32, "2,2,3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}
func.func @middle_bool(%x: !ocannl.tensor<i1, "2,3,3">, %y: !ocannl.tensor<i1, "2,2,3">) -> !ocannl.tensor<i1, "...|...->..."> {
  %0 = "ocannl.concat"(%x, %y) {spec = "n,a,k; n,b,k => n,a^b,k"} : (!ocannl.tensor<i1, "2,3,3">, !ocannl.tensor<i1, "2,2,3">) -> !ocannl.tensor<i1, "...|...->...">
  return %0 : !ocannl.tensor<i1, "...|...->...">
}

// Slicing a suffix: only the block of `b` is emitted, reading at offset 3.
// PROJ-LABEL: func.func @slice_suffix
// PROJ: ocannl.blocks = [{iterators = array<i64: 0>, maps = [affine_map<(d0) -> (d0 + 3)>, affine_map<(d0) -> (d0)>], operand = 0 : i64}]
// CHECK-LABEL: func.func @slice_suffix(
// CHECK-SAME: %[[X:.*]]: memref<5xf32>, %[[R:.*]]: memref<2xf32>)
// CHECK-NEXT: %[[FROM:.*]] = memref.reinterpret_cast %[[X]] to offset: [3], sizes: [2], strides: [1]
// CHECK-NEXT: %[[TO:.*]] = memref.reinterpret_cast %[[R]] to offset: [0], sizes: [2], strides: [1]
// CHECK-NEXT: memref.copy %[[FROM]], %[[TO]]
// CHECK-NOT: affine.for
// CHECK: return
func.func @slice_suffix(%x: !ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "2"> {
  %0 = "ocannl.concat"(%x) {spec = "a^b => b"} : (!ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "2">
  return %0 : !ocannl.tensor<f32, "2">
}

// Stacking: each operand writes one position of the new axis (a part of
// size 1: no loop), so the rows of the result one after the other.
// CHECK-LABEL: func.func @stack(
// CHECK-SAME: %[[X:.*]]: memref<3xi32>, %[[Y:.*]]: memref<3xi32>, %[[R:.*]]: memref<2x3xi32>)
// CHECK: memref.reinterpret_cast %[[X]] to offset: [0], sizes: [3], strides: [1]
// CHECK-NEXT: memref.reinterpret_cast %[[R]] to offset: [0], sizes: [3], strides: [1]
// CHECK-NEXT: memref.copy
// CHECK: memref.reinterpret_cast %[[Y]] to offset: [0], sizes: [3], strides: [1]
// CHECK-NEXT: memref.reinterpret_cast %[[R]] to offset: [3], sizes: [3], strides: [1]
// CHECK-NEXT: memref.copy
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
// CHECK: %[[FROM:.*]] = memref.reinterpret_cast %[[X]] to offset: [0], sizes: [3], strides: [1]
// CHECK-NEXT: %[[TO:.*]] = memref.reinterpret_cast %[[R]] to offset: [0], sizes: [3], strides: [1]
// CHECK-NEXT: memref.copy %[[FROM]], %[[TO]]
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
