// A convolution's constant weights, read along the output channels by the
// register block, are laid out when compiling in micro-panels of the
// block's width (cpu/blocked.rs): `memref<nb x c x kh x kw x nr>`, the
// last panel padded with zeros, each block column's weights one stretch.
// The original global is dropped; every read goes to the copy.
// UNSUPPORTED: plugin
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-affine)' | FileCheck %s
// RUN: ocannl-run %s --entry blocked | FileCheck %s --check-prefix=VALUES
// RUN: ocannl-run %s --entry blocked --threads 2 | FileCheck %s --check-prefix=VALUES
// RUN: ocannl-run %s --entry packed_in_place | FileCheck %s --check-prefix=IN-PLACE
// RUN: ocannl-run %s --entry packed_in_place --threads 2 | FileCheck %s --check-prefix=IN-PLACE
// RUN: ocannl-run %s --entry packed_per_call | FileCheck %s --check-prefix=PER-CALL
// RUN: ocannl-run %s --entry packed_per_call --threads 2 | FileCheck %s --check-prefix=PER-CALL

// 20 output channels in panels of 8 (the planner's block for 20 at
// ocannl-opt's default AVX2 width: two vectors of 4): three panels.
// CHECK-LABEL: func.func @blocked(
// CHECK: %[[W:.*]] = memref.get_global @__ocannl_blocked : memref<3x1x2x2x8xf32>
// CHECK: affine.vector_load %[[W]][%[[J:.*]] floordiv 8, 0, %{{.*}}, %{{.*}}, %[[J]] mod 8] : memref<3x1x2x2x8xf32>, vector<4xf32>
// CHECK: return
// CHECK-NOT: memref.global "private" constant @__ocannl_constant : memref<1x2x2x20xf32>
// The third panel: channels 17..20's first tap, then 4 zeros.
// CHECK: memref.global "private" constant @__ocannl_blocked : memref<3x1x2x2x8xf32> = dense<{{.*}}{{\[\[}}1.700000e+01, 1.800000e+01, 1.900000e+01, 2.000000e+01, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]

// Channel m is (m + 1) times the input's top-left window cell x[o0][o1] =
// 5 o0 + o1: its largest cell 20 * 13 (channel 20, in the padded panel),
// the mean 10.5 * 6.5.
// VALUES: result #0: float32[1, 20, 3, 4]
// VALUES: min 0.000000 max 260.000000 mean 68.250000
func.func @blocked() -> !ocannl.tensor<f32, "1,20,3,4"> {
  %x = "ocannl.constant"() {value = dense<[[[[0.0, 1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0, 14.0], [15.0, 16.0, 17.0, 18.0, 19.0]]]]> : tensor<1x1x4x5xf32>} : () -> !ocannl.tensor<f32, "1,1,4,5">
  %w = "ocannl.constant"() {value = dense<[[[[1.0, 0.0], [0.0, 0.0]]], [[[2.0, 0.0], [0.0, 0.0]]], [[[3.0, 0.0], [0.0, 0.0]]], [[[4.0, 0.0], [0.0, 0.0]]], [[[5.0, 0.0], [0.0, 0.0]]], [[[6.0, 0.0], [0.0, 0.0]]], [[[7.0, 0.0], [0.0, 0.0]]], [[[8.0, 0.0], [0.0, 0.0]]], [[[9.0, 0.0], [0.0, 0.0]]], [[[10.0, 0.0], [0.0, 0.0]]], [[[11.0, 0.0], [0.0, 0.0]]], [[[12.0, 0.0], [0.0, 0.0]]], [[[13.0, 0.0], [0.0, 0.0]]], [[[14.0, 0.0], [0.0, 0.0]]], [[[15.0, 0.0], [0.0, 0.0]]], [[[16.0, 0.0], [0.0, 0.0]]], [[[17.0, 0.0], [0.0, 0.0]]], [[[18.0, 0.0], [0.0, 0.0]]], [[[19.0, 0.0], [0.0, 0.0]]], [[[20.0, 0.0], [0.0, 0.0]]]]> : tensor<20x1x2x2xf32>} : () -> !ocannl.tensor<f32, "20,1,2,2">
  %c = "ocannl.einsum"(%x, %w) {spec = "n,c,1*o0@0,0+k0,1*o1@0,0+k1; m,c,k0,k1 => n,m,o0,o1"} : (!ocannl.tensor<f32, "1,1,4,5">, !ocannl.tensor<f32, "20,1,2,2">) -> !ocannl.tensor<f32, "1,20,3,4">
  %r = "ocannl.relu"(%c) : (!ocannl.tensor<f32, "1,20,3,4">) -> !ocannl.tensor<f32, "1,20,3,4">
  return %r : !ocannl.tensor<f32, "1,20,3,4">
}

// A 1x1 convolution (channels last) whose weights the kernel would pack
// per reduction tile (a k_tile of 4 of the 8 input channels, a tile of 8
// output channels): constant, they are laid out when compiling in the
// packed panel's order, `memref<kt x nb x kc x nr>` (each tile's
// micro-panel one stretch), and read in place: no panel is allocated.
// CHECK-LABEL: func.func @packed_in_place(
// CHECK-NOT: memref.alloc
// CHECK: %[[P:.*]] = memref.get_global @__ocannl_blocked{{.*}} : memref<2x3x4x8xf32>
// CHECK-NOT: memref.alloc
// CHECK: affine.vector_load %[[P]]
// CHECK: return

// out = (m + 2)(3 o0 + o1) + 1 (lowering/split-outer.mlir's values).
// IN-PLACE: result #0: float32[4, 3, 20]
// IN-PLACE: min 1.000000 max 232.000000 mean 64.250000
func.func @packed_in_place() -> !ocannl.tensor<f32, "4,3,20"> {
  %x = "ocannl.constant"() {value = dense<[[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]], [[3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0], [4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0]], [[6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0], [7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]], [[9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0], [11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0]]]> : tensor<4x3x8xf32>} : () -> !ocannl.tensor<f32, "4,3,8">
  %w = "ocannl.constant"() {value = dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x20xf32>} : () -> !ocannl.tensor<f32, "8,20">
  %y = "ocannl.einsum"(%x, %w) {ocannl.schedule = {k_tile = array<i64: 3, 4>, kind = "cpu", lanes = "result", outer = array<i64: 0>, reductions = array<i64: 3>, unroll = [array<i64: 2, 2, 8>, array<i64: 1, 3, 0>], vector = 2 : i64, width = 4 : i64}, spec = "o0,o1,c; c,m => o0,o1,m"} : (!ocannl.tensor<f32, "4,3,8">, !ocannl.tensor<f32, "8,20">) -> !ocannl.tensor<f32, "4,3,20">
  return %y : !ocannl.tensor<f32, "4,3,20">
}

// The same weights serving 200 rows (20 × 10 pixels): past the rows read
// in place (`IN_PLACE_ROWS`, 200), the kernel packs them per reduction
// tile into a panel of its own; the same values.
// CHECK-LABEL: func.func @packed_per_call(
// CHECK-NOT: __ocannl_blocked
// CHECK: memref.get_global @__ocannl_constant{{.*}} : memref<8x20xf32>
// CHECK-NOT: __ocannl_blocked
// CHECK: memref.alloc() {{.*}} : memref<1x4x8xf32>
// CHECK: return

// out = (m + 1) x[p, 0] + x[p, 1], x[p, c] = 8 p + c.
// PER-CALL: result #0: float32[20, 10, 20]
// PER-CALL: min 1.000000 max 33433.000000 mean 9155.000000
func.func @packed_per_call() -> !ocannl.tensor<f32, "20,10,20"> {
  %x = "ocannl.range"() {spec = "20,10,8"} : () -> !ocannl.tensor<f32, "20,10,8">
  %w = "ocannl.constant"() {value = dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x20xf32>} : () -> !ocannl.tensor<f32, "8,20">
  %y = "ocannl.einsum"(%x, %w) {ocannl.schedule = {k_tile = array<i64: 3, 4>, kind = "cpu", lanes = "result", outer = array<i64: 0>, reductions = array<i64: 3>, unroll = [array<i64: 2, 2, 8>, array<i64: 1, 5, 0>], vector = 2 : i64, width = 4 : i64}, spec = "o0,o1,c; c,m => o0,o1,m"} : (!ocannl.tensor<f32, "20,10,8">, !ocannl.tensor<f32, "8,20">) -> !ocannl.tensor<f32, "20,10,20">
  return %y : !ocannl.tensor<f32, "20,10,20">
}
