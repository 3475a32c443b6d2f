// A plan's split_outer (schedule.rs): the first outer loop's tile loop
// (outer_tile) runs outermost, and it is the loop the threads share
// (affine.parallel): each thread takes whole tiles of the output rows,
// packs its own panels inside its tile, and reads only its tile's rows of
// the input; the outer point loops run within the tile, where they would
// run without split_outer. The schedules are given.
// UNSUPPORTED: plugin
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-affine)' | FileCheck %s
// RUN: ocannl-run %s --entry split_outer_packed --threads 2 | FileCheck %s --check-prefix=PACKED
// RUN: ocannl-run %s --entry split_outer_in_block --threads 2 | FileCheck %s --check-prefix=IN-BLOCK

// A 1x1 convolution (OCANNL's layout, channels last): rows o0 in tiles of
// 2 on the threads; inside, the output channels' tile loop (tiles of 8),
// the panel of the weights allocated there (one per thread), the reduction
// tile (4 of 8 input channels) that packs it, then the rows of the
// thread's tile, the block columns and the block of o1. The weights are
// computed (a relu of constants): constant weights would be laid out in
// micro-panels when compiling and read in place, with no panel to pack.
// CHECK-LABEL: func.func @split_outer_packed(
// CHECK: affine.parallel (%[[T:.*]]) = (0) to (4) step (2) {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 16 step 8 {
// CHECK-NEXT: %[[PANEL:.*]] = memref.alloc() {{.*}} : memref<1x4x8xf32>
// CHECK-NEXT: affine.for %[[KT:.*]] = 0 to 8 step 4 {
// CHECK: affine.vector_store %{{.*}}, %[[PANEL]]
// CHECK: affine.for %{{.*}} = #{{.*}}(%[[T]]) to min #{{.*}}(%[[T]]) {
// CHECK-NEXT: affine.for %{{.*}} = #{{.*}}(%[[J]]) to min #{{.*}}(%[[J]]) step 8 {
// CHECK: affine.vector_load %[[PANEL]]
// CHECK: memref.dealloc %[[PANEL]]
// The last block column (one vector, no panel): the same split.
// CHECK: affine.parallel (%[[T2:.*]]) = (0) to (4) step (2) {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 8 step 4 {
// CHECK-NEXT: affine.for %{{.*}} = #{{.*}}(%[[T2]]) to min #{{.*}}(%[[T2]]) {
// CHECK-NEXT: affine.for %{{.*}} = 16 to 20 step 4 {
// CHECK: return

// x[o0][o1][c] = 3 o0 + o1 + c, weights m + 1 on channel 0 and 1 on
// channel 1: out = (m + 2)(3 o0 + o1) + 1.
// PACKED: result #0: float32[4, 3, 20]
// PACKED: min 1.000000 max 232.000000 mean 64.250000
func.func @split_outer_packed() -> !ocannl.tensor<f32, "4,3,20"> {
  %x = "ocannl.constant"() {value = dense<[[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]], [[3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0], [4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0]], [[6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0], [7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]], [[9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0], [11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0]]]> : tensor<4x3x8xf32>} : () -> !ocannl.tensor<f32, "4,3,8">
  %w = "ocannl.constant"() {value = dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x20xf32>} : () -> !ocannl.tensor<f32, "8,20">
  %wr = "ocannl.relu"(%w) : (!ocannl.tensor<f32, "8,20">) -> !ocannl.tensor<f32, "8,20">
  %y = "ocannl.einsum"(%x, %wr) {ocannl.schedule = {k_tile = array<i64: 3, 4>, kind = "cpu", lanes = "result", outer = array<i64: 0>, outer_tile = 2 : i64, parallel = true, reductions = array<i64: 3>, split_outer = true, unroll = [array<i64: 2, 2, 8>, array<i64: 1, 3, 0>], vector = 2 : i64, width = 4 : i64}, spec = "o0,o1,c; c,m => o0,o1,m"} : (!ocannl.tensor<f32, "4,3,8">, !ocannl.tensor<f32, "8,20">) -> !ocannl.tensor<f32, "4,3,20">
  return %y : !ocannl.tensor<f32, "4,3,20">
}

// With outer_in_block: the rows of the thread's tile inside each block
// column, under the reduction tile.
// CHECK-LABEL: func.func @split_outer_in_block(
// CHECK: affine.parallel (%[[T:.*]]) = (0) to (3) step (2) {
// CHECK-NEXT: affine.for %[[KT:.*]] = 0 to 4 step 2 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 16 step 8 {
// CHECK-NEXT: affine.for %{{.*}} = #{{.*}}(%[[T]]) to min #{{.*}}(%[[T]]) {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 4 {
// CHECK: return

// x[c][i][j] = 5 i + j + 20 c, channel m's weights m + 1 on each input
// channel's top-left tap: out = (m + 1) (4 (5 o0 + o1) + 120), as in
// outer-in-block.mlir.
// IN-BLOCK: result #0: float32[1, 20, 3, 4]
// IN-BLOCK: min 120.000000 max 3440.000000 mean 1533.000000
func.func @split_outer_in_block() -> !ocannl.tensor<f32, "1,20,3,4"> {
  %x = "ocannl.constant"() {value = dense<[[[[0.0, 1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0, 14.0], [15.0, 16.0, 17.0, 18.0, 19.0]], [[20.0, 21.0, 22.0, 23.0, 24.0], [25.0, 26.0, 27.0, 28.0, 29.0], [30.0, 31.0, 32.0, 33.0, 34.0], [35.0, 36.0, 37.0, 38.0, 39.0]], [[40.0, 41.0, 42.0, 43.0, 44.0], [45.0, 46.0, 47.0, 48.0, 49.0], [50.0, 51.0, 52.0, 53.0, 54.0], [55.0, 56.0, 57.0, 58.0, 59.0]], [[60.0, 61.0, 62.0, 63.0, 64.0], [65.0, 66.0, 67.0, 68.0, 69.0], [70.0, 71.0, 72.0, 73.0, 74.0], [75.0, 76.0, 77.0, 78.0, 79.0]]]]> : tensor<1x4x4x5xf32>} : () -> !ocannl.tensor<f32, "1,4,4,5">
  %w = "ocannl.constant"() {value = dense<[[[[1.0, 0.0], [0.0, 0.0]], [[1.0, 0.0], [0.0, 0.0]], [[1.0, 0.0], [0.0, 0.0]], [[1.0, 0.0], [0.0, 0.0]]], [[[2.0, 0.0], [0.0, 0.0]], [[2.0, 0.0], [0.0, 0.0]], [[2.0, 0.0], [0.0, 0.0]], [[2.0, 0.0], [0.0, 0.0]]], [[[3.0, 0.0], [0.0, 0.0]], [[3.0, 0.0], [0.0, 0.0]], [[3.0, 0.0], [0.0, 0.0]], [[3.0, 0.0], [0.0, 0.0]]], [[[4.0, 0.0], [0.0, 0.0]], [[4.0, 0.0], [0.0, 0.0]], [[4.0, 0.0], [0.0, 0.0]], [[4.0, 0.0], [0.0, 0.0]]], [[[5.0, 0.0], [0.0, 0.0]], [[5.0, 0.0], [0.0, 0.0]], [[5.0, 0.0], [0.0, 0.0]], [[5.0, 0.0], [0.0, 0.0]]], [[[6.0, 0.0], [0.0, 0.0]], [[6.0, 0.0], [0.0, 0.0]], [[6.0, 0.0], [0.0, 0.0]], [[6.0, 0.0], [0.0, 0.0]]], [[[7.0, 0.0], [0.0, 0.0]], [[7.0, 0.0], [0.0, 0.0]], [[7.0, 0.0], [0.0, 0.0]], [[7.0, 0.0], [0.0, 0.0]]], [[[8.0, 0.0], [0.0, 0.0]], [[8.0, 0.0], [0.0, 0.0]], [[8.0, 0.0], [0.0, 0.0]], [[8.0, 0.0], [0.0, 0.0]]], [[[9.0, 0.0], [0.0, 0.0]], [[9.0, 0.0], [0.0, 0.0]], [[9.0, 0.0], [0.0, 0.0]], [[9.0, 0.0], [0.0, 0.0]]], [[[10.0, 0.0], [0.0, 0.0]], [[10.0, 0.0], [0.0, 0.0]], [[10.0, 0.0], [0.0, 0.0]], [[10.0, 0.0], [0.0, 0.0]]], [[[11.0, 0.0], [0.0, 0.0]], [[11.0, 0.0], [0.0, 0.0]], [[11.0, 0.0], [0.0, 0.0]], [[11.0, 0.0], [0.0, 0.0]]], [[[12.0, 0.0], [0.0, 0.0]], [[12.0, 0.0], [0.0, 0.0]], [[12.0, 0.0], [0.0, 0.0]], [[12.0, 0.0], [0.0, 0.0]]], [[[13.0, 0.0], [0.0, 0.0]], [[13.0, 0.0], [0.0, 0.0]], [[13.0, 0.0], [0.0, 0.0]], [[13.0, 0.0], [0.0, 0.0]]], [[[14.0, 0.0], [0.0, 0.0]], [[14.0, 0.0], [0.0, 0.0]], [[14.0, 0.0], [0.0, 0.0]], [[14.0, 0.0], [0.0, 0.0]]], [[[15.0, 0.0], [0.0, 0.0]], [[15.0, 0.0], [0.0, 0.0]], [[15.0, 0.0], [0.0, 0.0]], [[15.0, 0.0], [0.0, 0.0]]], [[[16.0, 0.0], [0.0, 0.0]], [[16.0, 0.0], [0.0, 0.0]], [[16.0, 0.0], [0.0, 0.0]], [[16.0, 0.0], [0.0, 0.0]]], [[[17.0, 0.0], [0.0, 0.0]], [[17.0, 0.0], [0.0, 0.0]], [[17.0, 0.0], [0.0, 0.0]], [[17.0, 0.0], [0.0, 0.0]]], [[[18.0, 0.0], [0.0, 0.0]], [[18.0, 0.0], [0.0, 0.0]], [[18.0, 0.0], [0.0, 0.0]], [[18.0, 0.0], [0.0, 0.0]]], [[[19.0, 0.0], [0.0, 0.0]], [[19.0, 0.0], [0.0, 0.0]], [[19.0, 0.0], [0.0, 0.0]], [[19.0, 0.0], [0.0, 0.0]]], [[[20.0, 0.0], [0.0, 0.0]], [[20.0, 0.0], [0.0, 0.0]], [[20.0, 0.0], [0.0, 0.0]], [[20.0, 0.0], [0.0, 0.0]]]]> : tensor<20x4x2x2xf32>} : () -> !ocannl.tensor<f32, "20,4,2,2">
  %c = "ocannl.einsum"(%x, %w) {ocannl.schedule = {k_tile = array<i64: 3, 2>, kind = "cpu", lanes = "result", outer = array<i64: 1>, outer_in_block = true, outer_tile = 2 : i64, parallel = true, split_outer = true, reductions = array<i64: 3, 5, 4>, unroll = [array<i64: 0, 2, 0>, array<i64: 2, 6, 0>], vector = 0 : i64, width = 4 : i64}, spec = "n,c,1*o0@0,0+k0,1*o1@0,0+k1; m,c,k0,k1 => n,m,o0,o1"} : (!ocannl.tensor<f32, "1,4,4,5">, !ocannl.tensor<f32, "20,4,2,2">) -> !ocannl.tensor<f32, "1,20,3,4">
  return %c : !ocannl.tensor<f32, "1,20,3,4">
}
