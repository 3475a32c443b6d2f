// The convolution forms the importer writes get vector lanes once the
// layouts are chosen: a depthwise convolution after an NHWC one (its
// weights permuted too), a strided convolution reading the importer's
// explicitly padded copy (no guard per tap: the padding einsum is its own
// nest), a dilated 1-D convolution. The block's rows run along the output
// width (d2), so the kernel's column taps (d4, which slide along it) loop
// outside its row taps (d3), whose taps the micro-kernel unrolls.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{l1-bytes=32768 l2-bytes=1048576})' | FileCheck %s

// CHECK-LABEL: func.func @depthwise(
// CHECK: "ocannl.constant"{{.*}}ocannl.layout = array<i64: 1, 2, 3, 0>
// CHECK: "ocannl.constant"{{.*}}ocannl.layout = array<i64: 1, 2, 3, 0>
// CHECK: "ocannl.einsum"{{.*}}ocannl.layout = array<i64: 0, 2, 3, 1>{{.*}}lanes = "result"
// CHECK: "ocannl.relu"{{.*}}ocannl.layout = array<i64: 0, 2, 3, 1>
// CHECK: "ocannl.einsum"{{.*}}ocannl.layout = array<i64: 0, 2, 3, 1>{{.*}}lanes = "result"{{.*}}reductions = array<i64: 4, 3>, unroll = [array<i64: 0, 2, 0>, array<i64: 2, 6, 0>]
// CHECK-LABEL: func.func @padded_strided(
// CHECK: "ocannl.einsum"{{.*}}spec = "n,c,1*p0@1,1+q0,1*p1@1,1+q1; q0,q1 => n,c,p0,p1"
// CHECK: "ocannl.einsum"{{.*}}ocannl.layout = array<i64: 0, 2, 3, 1>{{.*}}lanes = "result"
// CHECK-LABEL: func.func @dilated_1d(
// CHECK: "ocannl.einsum"{{.*}}ocannl.layout = array<i64: 0, 2, 1>{{.*}}lanes = "result"
func.func @depthwise(%x: !ocannl.tensor<f32, "1,8,7,7">) -> !ocannl.tensor<f32, "1,32,5,5"> {
  %w1 = "ocannl.constant"() {value = dense<0.25> : tensor<32x8x1x1xf32>} : () -> !ocannl.tensor<f32, "32,8,1,1">
  %w = "ocannl.constant"() {value = dense<0.5> : tensor<32x1x3x3xf32>} : () -> !ocannl.tensor<f32, "32,1,3,3">
  %a = "ocannl.einsum"(%x, %w1) {spec = "n,c,1*o0@0,0+k0,1*o1@0,0+k1; m,c,k0,k1 => n,m,o0,o1"} : (!ocannl.tensor<f32, "1,8,7,7">, !ocannl.tensor<f32, "32,8,1,1">) -> !ocannl.tensor<f32, "1,32,7,7">
  %ra = "ocannl.relu"(%a) : (!ocannl.tensor<f32, "1,32,7,7">) -> !ocannl.tensor<f32, "1,32,7,7">
  %c = "ocannl.einsum"(%ra, %w) {spec = "n,g,1*o0@0,0+k0,1*o1@0,0+k1; g,c,k0,k1 => n,g,o0,o1"} : (!ocannl.tensor<f32, "1,32,7,7">, !ocannl.tensor<f32, "32,1,3,3">) -> !ocannl.tensor<f32, "1,32,5,5">
  %r = "ocannl.relu"(%c) : (!ocannl.tensor<f32, "1,32,5,5">) -> !ocannl.tensor<f32, "1,32,5,5">
  return %r : !ocannl.tensor<f32, "1,32,5,5">
}
func.func @padded_strided(%x: !ocannl.tensor<f32, "1,16,14,14">) -> !ocannl.tensor<f32, "1,32,7,7"> {
  %one = "ocannl.constant"() {value = 1.0 : f32} : () -> !ocannl.tensor<f32, "1,1">
  %w = "ocannl.constant"() {value = dense<0.5> : tensor<32x16x3x3xf32>} : () -> !ocannl.tensor<f32, "32,16,3,3">
  %p = "ocannl.einsum"(%x, %one) {spec = "n,c,1*p0@1,1+q0,1*p1@1,1+q1; q0,q1 => n,c,p0,p1"} : (!ocannl.tensor<f32, "1,16,14,14">, !ocannl.tensor<f32, "1,1">) -> !ocannl.tensor<f32, "1,16,16,16">
  %c = "ocannl.einsum"(%p, %w) {spec = "n,c,2*o0@0,0+k0,2*o1@0,0+k1; m,c,k0,k1 => n,m,o0,o1"} : (!ocannl.tensor<f32, "1,16,16,16">, !ocannl.tensor<f32, "32,16,3,3">) -> !ocannl.tensor<f32, "1,32,7,7">
  %r = "ocannl.relu"(%c) : (!ocannl.tensor<f32, "1,32,7,7">) -> !ocannl.tensor<f32, "1,32,7,7">
  return %r : !ocannl.tensor<f32, "1,32,7,7">
}
func.func @dilated_1d(%x: !ocannl.tensor<f32, "1,16,20">) -> !ocannl.tensor<f32, "1,32,16"> {
  %w = "ocannl.constant"() {value = dense<0.5> : tensor<32x16x3xf32>} : () -> !ocannl.tensor<f32, "32,16,3">
  %c = "ocannl.einsum"(%x, %w) {spec = "n,c,1*o0@0,0+2*k0; m,c,k0 => n,m,o0"} : (!ocannl.tensor<f32, "1,16,20">, !ocannl.tensor<f32, "32,16,3">) -> !ocannl.tensor<f32, "1,32,16">
  %r = "ocannl.relu"(%c) : (!ocannl.tensor<f32, "1,32,16">) -> !ocannl.tensor<f32, "1,32,16">
  return %r : !ocannl.tensor<f32, "1,32,16">
}
