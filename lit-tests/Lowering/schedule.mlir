// The schedule of each op's nest, chosen from its projections
// (passes/src/plan_schedule/choose.rs): vector loads along the
// contiguous axis, accumulators carried in registers through the
// reductions (iter_args), a register block unrolled over two iterators,
// remainder nests for extents the block does not divide, and, with
// parallel=true, the outermost parallel loop as affine.parallel.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-affine)' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{parallel=true},ocannl-lower-to-affine)' | FileCheck %s --check-prefix=PAR
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{schedule=false},ocannl-lower-to-affine)' | FileCheck %s --check-prefix=PLAIN
// RUN: not ocannl-opt %s -p 'builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{vector-bytes=24},ocannl-lower-to-affine)' 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: ocannl-plan-schedule: option 'vector-bytes' must be a power of two (got 24)

// C[i,j] += A[i,k] B[k,j]: lanes along j (the result's contiguous axis);
// A's cell is broadcast, B's row is a vector load; a 6 x 2-vector block
// of accumulators lives in iter_args across k, starts from zero (every
// cell is computed by one block: the result is not filled first, nor
// read) and is stored once.
// CHECK-LABEL: func.func @nn(
// CHECK-NOT: affine.store
// CHECK: affine.for %[[J:.*]] = 0 to 32 step 16 {
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 18 step 6 {
// CHECK-NOT: affine.vector_load %arg2
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK-NOT: affine.vector_load %arg2
// CHECK: affine.for %[[K:.*]] = 0 to 64 iter_args(%{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]], %{{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NEXT: %[[A:.*]] = affine.load %arg0[%[[I]], %[[K]]]
// CHECK-NEXT: %[[AV:.*]] = vector.broadcast %[[A]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[B:.*]] = affine.vector_load %arg1[%[[K]], %[[J]]] : memref<64x40xf32>, vector<8xf32>
// CHECK-NEXT: math.fma %[[AV]], %[[B]], %{{.*}} : vector<8xf32>
// CHECK: affine.yield
// CHECK-COUNT-12: affine.vector_store
// The remainders: rows 18..20 one at a time, then columns 32..40 with one
// vector, then (none here) scalars.
// CHECK: affine.for %{{.*}} = 18 to 20 {
// CHECK: affine.for %{{.*}} = 32 to 40 step 8 {
// PAR-LABEL: func.func @nn(
// PAR: affine.parallel (%{{.*}}) = (0) to (32) step (16) {
// PLAIN-LABEL: func.func @nn(
// PLAIN-NOT: vector
// PLAIN: affine.for %{{.*}} = 0 to 64 {
// PLAIN-NEXT: affine.load
func.func @nn(%a: !ocannl.tensor<f32, "20,64">, %b: !ocannl.tensor<f32, "64,40">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j"} : (!ocannl.tensor<f32, "20,64">, !ocannl.tensor<f32, "64,40">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// OCANNL's own layout, y = x . w^T (`"K->N"` is [N, K] in memory): both
// operands are contiguous along the reduction, so the lanes run along k;
// a 4 x 3 block of vector accumulators starts at 0. The 4 accumulators of
// adjacent result cells are reduced together by shuffles (a transpose-and-
// add butterfly) into one vector<4xf32>, added to the result with one
// vector load and store; the remainder columns reduce one by one.
// CHECK-LABEL: func.func @nt(
// CHECK: affine.for %[[N:.*]] = 0 to 8 step 4 {
// CHECK-NEXT: affine.for %[[M:.*]] = 0 to 6 step 3 {
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to 32 step 8 iter_args(%{{.*}} = %[[Z]],
// CHECK-NEXT: affine.vector_load %arg0[%[[N]], %[[K]]] : memref<10x35xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_load %arg1[%[[M]], %[[K]]] : memref<7x35xf32>, vector<8xf32>
// CHECK-NEXT: math.fma
// The 3 columns past 32 go into lane 0.
// CHECK: affine.for %{{.*}} = 32 to 35 iter_args(
// CHECK: vector.extract %{{.*}}[0] : f32 from vector<8xf32>
// CHECK: math.fma %{{.*}} : f32
// CHECK: vector.insert
// CHECK: vector.shuffle %{{.*}} [0, 1, 2, 3, 8, 9, 10, 11] : vector<8xf32>, vector<8xf32>
// CHECK: vector.shuffle %{{.*}} [0, 2, 4, 6] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: vector.shuffle %{{.*}} [1, 3, 5, 7] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %{{.*}} : vector<4xf32>
// CHECK-NEXT: %[[OLD:.*]] = affine.vector_load %arg2[%[[M]], %[[N]]] : memref<7x10xf32>, vector<4xf32>
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]], %[[S]] : vector<4xf32>
// CHECK-NEXT: affine.vector_store %[[NEW]], %arg2[%[[M]], %[[N]]]
// CHECK: affine.for %{{.*}} = 8 to 10 {
// CHECK: vector.reduction <add>, %{{.*}} : vector<8xf32> into f32
func.func @nt(%w: !ocannl.tensor<f32, "35->10">, %x: !ocannl.tensor<f32, "7|35">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "35->10">, !ocannl.tensor<f32, "7|35">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// A pointwise op with a broadcast operand: one vector per step, the bias
// broadcast from its cell; 3 columns past the last whole vector are scalars.
// CHECK-LABEL: func.func @bias(
// CHECK: affine.for %[[R:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[C:.*]] = 0 to 16 step 8 {
// CHECK-NEXT: affine.vector_load %arg0[%[[R]], %[[C]]] : memref<4x19xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_load %arg1[%[[C]]] : memref<19xf32>, vector<8xf32>
// CHECK-NEXT: arith.addf %{{.*}} : vector<8xf32>
// CHECK-NEXT: affine.vector_store
// CHECK: affine.for %{{.*}} = 0 to 4 {
// CHECK-NEXT: affine.for %{{.*}} = 16 to 19 {
// CHECK: arith.addf %{{.*}} : f32
func.func @bias(%x: !ocannl.tensor<f32, "4,19">, %b: !ocannl.tensor<f32, "19">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.add"(%x, %b) : (!ocannl.tensor<f32, "4,19">, !ocannl.tensor<f32, "19">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Integers keep the scalar nest.
// CHECK-LABEL: func.func @ints(
// CHECK-NOT: vector
// CHECK: return
func.func @ints(%x: !ocannl.tensor<i32, "4,19">) -> !ocannl.tensor<i32, "...|...->..."> {
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<i32, "4,19">) -> !ocannl.tensor<i32, "...|...->...">
  return %0 : !ocannl.tensor<i32, "...|...->...">
}

// Packing (BLIS's): with a reduction tile (k past 256), the panel of B a
// column tile and a reduction tile read (here all 80 columns, 256 of the
// 300 k) is copied into micro-panels of the block's 16 columns, each 256 x
// 16 cells contiguous; and the block of A a row tile reads (6 rows with
// l2-bytes=65536) into micro-panels of 6 rows, k-major, allocated in the
// row tile loop (per thread when it is parallel). The micro-kernel reads
// both from there: a broadcast cell of A, two vectors of B.
// PACK-LABEL: func.func @packed(
// PACK: affine.for %[[JT:.*]] = 0 to 80 step 80 {
// PACK-NEXT: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<5x256x16xf32>
// PACK-NEXT: affine.for %[[KT:.*]] = 0 to 300 step 256 {
// PACK-NEXT: affine.for %[[K:.*]] = #{{.*}}(%[[KT]]) to min #{{.*}}(%[[KT]]) {
// PACK-NEXT: affine.for %[[J:.*]] = #{{.*}}(%[[JT]]) to min #{{.*}}(%[[JT]]) step 16 {
// PACK-NEXT: %[[BL:.*]] = affine.apply #{{.*}}(%[[J]], %[[JT]])
// PACK: %[[V:.*]] = affine.vector_load %arg1[%[[K]], %[[J]]] : memref<300x80xf32>, vector<8xf32>
// PACK-NEXT: affine.vector_store %[[V]], %[[P]][%[[BL]], %[[K]] - %[[KT]], 0] : memref<5x256x16xf32>, vector<8xf32>
// PACK: affine.vector_store %{{.*}}, %[[P]][%[[BL]], %[[K]] - %[[KT]], 8] : memref<5x256x16xf32>, vector<8xf32>
// PACK: affine.for %[[IT:.*]] = 0 to 18 step 6 {
// PACK-NEXT: %[[A:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x256x6xf32>
// PACK: %[[X:.*]] = affine.load %arg0[%{{.*}}, %[[KA:.*]]] : memref<20x300xf32>
// PACK-NEXT: affine.store %[[X]], %[[A]][%{{.*}}, %[[KA]] - %[[KT]], 0] : memref<1x256x6xf32>
// PACK: iter_args
// PACK-NEXT: %[[C:.*]] = affine.load %[[A]][%{{.*}}, %[[KK:.*]] - %[[KT]], 0] : memref<1x256x6xf32>
// PACK-NEXT: %[[CV:.*]] = vector.broadcast %[[C]] : f32 to vector<8xf32>
// PACK-NEXT: %[[B0:.*]] = affine.vector_load %[[P]][%{{.*}}, %[[KK]] - %[[KT]], 0] : memref<5x256x16xf32>, vector<8xf32>
// PACK-NEXT: math.fma %[[CV]], %[[B0]]
// PACK: memref.dealloc %[[A]] : memref<1x256x6xf32>
// PACK: memref.dealloc %[[P]] : memref<5x256x16xf32>
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{l2-bytes=65536},ocannl-lower-to-affine)' | FileCheck %s --check-prefix=PACK
func.func @packed(%a: !ocannl.tensor<f32, "20,300">, %b: !ocannl.tensor<f32, "300,80">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j"} : (!ocannl.tensor<f32, "20,300">, !ocannl.tensor<f32, "300,80">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// OCANNL's weight layout ("300->25" is [25, 300]: the columns of the
// result are rows of w) is transposed into the packed panel, a cell at a
// time along k (with 512 rows or more to pay for the copy), and read as
// vectors like any panel; the 8 columns past the last whole block (not
// packed) gather a vector from 8 cells, the last column is scalar.
// PACK-LABEL: func.func @packed_nt(
// PACK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x256x16xf32>
// PACK: %[[W:.*]] = affine.load %arg0[%[[J:.*]], %[[K:.*]]] : memref<25x300xf32>
// PACK-NEXT: affine.store %[[W]], %[[P]][%{{.*}}, %[[K]] - %{{.*}}, 0] : memref<1x256x16xf32>
// PACK: affine.store %{{.*}}, %[[P]][%{{.*}}, %[[K]] - %{{.*}}, 15] : memref<1x256x16xf32>
// PACK: affine.vector_load %[[P]]{{.*}} : memref<1x256x16xf32>, vector<8xf32>
// PACK: vector.from_elements {{.*}} : vector<8xf32>
func.func @packed_nt(%w: !ocannl.tensor<f32, "300->25">, %x: !ocannl.tensor<f32, "520|300">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "300->25">, !ocannl.tensor<f32, "520|300">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// A reduction tiled for the caches: the first tile's accumulators start
// from zero, the later tiles' from the sums stored so far (an affine.if on
// the tile's position); nothing fills the result before the nest.
// CHECK-LABEL: func.func @k_tiled(
// CHECK-NOT: affine.store
// CHECK: affine.for %[[KT:.*]] = 0 to 1024 step 256 {
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK-NEXT: affine.if #{{.*}}(%[[KT]]) -> (vector<8xf32>
// CHECK-COUNT-12: affine.vector_load %arg2
// CHECK: } else {
// CHECK-NEXT: affine.yield %[[Z]], %[[Z]], %[[Z]], %[[Z]], %[[Z]], %[[Z]], %[[Z]], %[[Z]], %[[Z]], %[[Z]], %[[Z]], %[[Z]] :
func.func @k_tiled(%a: !ocannl.tensor<f32, "64,1024">, %b: !ocannl.tensor<f32, "1024,64">) -> !ocannl.tensor<f32, "64,64"> {
  %0 = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j"} : (!ocannl.tensor<f32, "64,1024">, !ocannl.tensor<f32, "1024,64">) -> !ocannl.tensor<f32, "64,64">
  return %0 : !ocannl.tensor<f32, "64,64">
}

// An outer tile (a hand-written schedule here): the first outer loop's
// tile loop (d0 by 2) runs outside the reduction's tile loop (d3 by 8), its
// point loop inside it, so that two outer iterations' result cells stay in
// cache across the reduction's tiles.
// CHECK-LABEL: func.func @outer_tiled(
// CHECK: affine.for %[[OT:.*]] = 0 to 4 step 2 {
// CHECK-NEXT: affine.for %[[KT:.*]] = 0 to 16 step 8 {
// CHECK-NEXT: affine.for %{{.*}} = #{{.*}}(%[[OT]]) to min #{{.*}}(%[[OT]]) {
// CHECK: affine.if #{{.*}}(%[[KT]])
func.func @outer_tiled(%a: !ocannl.tensor<f32, "4,12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "4,12,32"> {
  %c = "ocannl.einsum"(%a, %b) {spec = "n,i,k; k,j => n,i,j", ocannl.schedule = {kind = "cpu", lanes = "result", width = 8, vector = 2, outer = array<i64: 0>, unroll = [array<i64: 2, 2, 0>, array<i64: 1, 6, 0>], reductions = array<i64: 3>, k_tile = array<i64: 3, 8>, outer_tile = 2}} : (!ocannl.tensor<f32, "4,12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "4,12,32">
  return %c : !ocannl.tensor<f32, "4,12,32">
}

// With parallel=true, an op without a CPU plan (schedule `loops`) runs its
// outermost loop over the result's cells in parallel when it has 2^15
// cells or more: a transposing copy, a concatenation's copies (one
// parallel loop per block); a small one stays sequential. A transposing
// copy runs its operand's contiguous iterator (j) between a tile of 16 of
// the result's (i) and the tile's points: the lines a tile reads stay in
// L1, and each store fills a line (all ops, parallel or not).
// PAR-LABEL: func.func @plain_parallel(
// PAR: affine.parallel (%[[T:.*]]) = (0) to (64) step (16) {
// PAR-NEXT: affine.for %{{.*}} = 0 to 1024 {
// PAR-NEXT: affine.for %{{.*}} = #{{.*}}(%[[T]]) to min #{{.*}}(%[[T]]) {
// PAR: affine.parallel (%{{.*}}) = (0) to (1024) {
// PAR: memref.copy
// PAR: affine.parallel (%{{.*}}) = (0) to (1024) {
// PAR: memref.copy
// PAR-NOT: affine.parallel
// PAR: return
func.func @plain_parallel(%a: !ocannl.tensor<f32, "64,1024">, %b: !ocannl.tensor<f32, "1024,32">, %c: !ocannl.tensor<f32, "1024,32">, %s: !ocannl.tensor<f32, "8,8">) -> (!ocannl.tensor<f32, "1024,64">, !ocannl.tensor<f32, "1024,64">, !ocannl.tensor<f32, "8,8">) {
  %t = "ocannl.einsum"(%a) {spec = "i,j => j,i"} : (!ocannl.tensor<f32, "64,1024">) -> !ocannl.tensor<f32, "1024,64">
  %k = "ocannl.concat"(%b, %c) {spec = "r,a; r,b => r,a^b"} : (!ocannl.tensor<f32, "1024,32">, !ocannl.tensor<f32, "1024,32">) -> !ocannl.tensor<f32, "1024,64">
  %u = "ocannl.einsum"(%s) {spec = "i,j => j,i"} : (!ocannl.tensor<f32, "8,8">) -> !ocannl.tensor<f32, "8,8">
  return %t, %k, %u : !ocannl.tensor<f32, "1024,64">, !ocannl.tensor<f32, "1024,64">, !ocannl.tensor<f32, "8,8">
}
