// ocannl-plan-schedule chooses the intermediates' layouts (ocannl.layout)
// before it plans their nests (passes/src/plan_schedule/layouts.rs).
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{l1-bytes=32768 l2-bytes=1048576})' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{layouts=false})' | FileCheck %s --check-prefix=OFF
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{target=gpu})' | FileCheck %s --check-prefix=OFF

// An NCHW convolution (the importer's form, its padding made explicit):
// the width (d2) is too narrow for lanes once the kernel reads past it, so
// the result goes channels-last (NHWC: axes 0, 2, 3, 1) with lanes along
// the output channels, the weight constant is permuted at compile time
// to put them last (c, kh, kw, m), the bias add and the relu follow the
// layout (the bias fused as the convolution's epilogue), and the second
// convolution reads the relu's NHWC result. The function's result is
// canonical: the last relu reads NHWC and stores NCHW.
// CHECK-LABEL: func.func @conv_chain(
// CHECK: %[[W:.*]] = "ocannl.constant"() {{.*}}ocannl.layout = array<i64: 1, 2, 3, 0>
// CHECK: %[[C:.*]] = "ocannl.einsum"(%arg0, %[[W]]) {{.*}}ocannl.layout = array<i64: 0, 2, 3, 1>{{.*}}ocannl.schedule = {kind = "cpu", lanes = "result"
// CHECK: "ocannl.einsum"(%[[C]], %{{.*}}) {{.*}}ocannl.layout = array<i64: 0, 2, 3, 1>{{.*}}ocannl.schedule = {kind = "epilogue", operand = 0 : i64}
// CHECK: %[[R:.*]] = "ocannl.relu"({{.*}}ocannl.layout = array<i64: 0, 2, 3, 1>
// CHECK: %[[W2:.*]] = "ocannl.constant"() {{.*}}ocannl.layout = array<i64: 1, 2, 3, 0>
// CHECK: %[[C2:.*]] = "ocannl.einsum"(%[[R]], %[[W2]]) {{.*}}ocannl.layout = array<i64: 0, 2, 3, 1>{{.*}}lanes = "result"
// CHECK: %[[Y:.*]] = "ocannl.relu"(%[[C2]])
// CHECK-NOT: ocannl.layout
// CHECK: return %[[Y]]
// OFF-LABEL: func.func @conv_chain(
// OFF-NOT: ocannl.layout
// OFF: return
func.func @conv_chain(%x: !ocannl.tensor<f32, "1,8,8,8">) -> !ocannl.tensor<f32, "1,16,6,6"> {
  %w = "ocannl.constant"() {value = dense<0.5> : tensor<16x8x3x3xf32>} : () -> !ocannl.tensor<f32, "16,8,3,3">
  %b = "ocannl.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<16xf32>} : () -> !ocannl.tensor<f32, "16">
  %c = "ocannl.einsum"(%x, %w) {spec = "n,c,1*o0@0,0+k0,1*o1@0,0+k1; m,c,k0,k1 => n,m,o0,o1"} : (!ocannl.tensor<f32, "1,8,8,8">, !ocannl.tensor<f32, "16,8,3,3">) -> !ocannl.tensor<f32, "1,16,6,6">
  %cb = "ocannl.einsum"(%c, %b) {spec = "n,m,o0,o1; m => n,m,o0,o1", combine = "add"} : (!ocannl.tensor<f32, "1,16,6,6">, !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "1,16,6,6">
  %r = "ocannl.relu"(%cb) : (!ocannl.tensor<f32, "1,16,6,6">) -> !ocannl.tensor<f32, "1,16,6,6">
  %w2 = "ocannl.constant"() {value = dense<0.25> : tensor<16x16x1x1xf32>} : () -> !ocannl.tensor<f32, "16,16,1,1">
  %c2 = "ocannl.einsum"(%r, %w2) {spec = "n,c,1*o0@0,0+k0,1*o1@0,0+k1; m,c,k0,k1 => n,m,o0,o1"} : (!ocannl.tensor<f32, "1,16,6,6">, !ocannl.tensor<f32, "16,16,1,1">) -> !ocannl.tensor<f32, "1,16,6,6">
  %y = "ocannl.relu"(%c2) : (!ocannl.tensor<f32, "1,16,6,6">) -> !ocannl.tensor<f32, "1,16,6,6">
  return %y : !ocannl.tensor<f32, "1,16,6,6">
}

// A hand-written layout is kept (and propagated from); none is chosen
// where a function result or a reshape reads the value.
// CHECK-LABEL: func.func @given(
// CHECK: "ocannl.relu"{{.*}}ocannl.layout = array<i64: 1, 0>
// CHECK: "ocannl.exp"{{.*}}ocannl.layout = array<i64: 1, 0>
// CHECK: "ocannl.neg"
// CHECK-NOT: ocannl.layout
// CHECK: return
func.func @given(%x: !ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8"> {
  %r = "ocannl.relu"(%x) {ocannl.layout = array<i64: 1, 0>} : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  %e = "ocannl.exp"(%r) : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  %n = "ocannl.neg"(%e) : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  return %n : !ocannl.tensor<f32, "4,8">
}

// A seed whose result the function returns: the result is copied into the
// canonical layout by an identity einsum inserted after it.
// CHECK-LABEL: func.func @returned(
// CHECK: %[[C:.*]] = "ocannl.einsum"(%arg0, %{{.*}}) {{.*}}ocannl.layout = array<i64: 0, 2, 3, 1>
// CHECK: %[[Y:.*]] = "ocannl.einsum"(%[[C]]) {{.*}}spec = "x0,x1,x2,x3 => x0,x1,x2,x3"
// CHECK-NOT: ocannl.layout
// CHECK: return %[[Y]]
func.func @returned(%x: !ocannl.tensor<f32, "1,8,8,8">) -> !ocannl.tensor<f32, "1,16,6,6"> {
  %w = "ocannl.constant"() {value = dense<0.5> : tensor<16x8x3x3xf32>} : () -> !ocannl.tensor<f32, "16,8,3,3">
  %c = "ocannl.einsum"(%x, %w) {spec = "n,c,1*o0@0,0+k0,1*o1@0,0+k1; m,c,k0,k1 => n,m,o0,o1"} : (!ocannl.tensor<f32, "1,8,8,8">, !ocannl.tensor<f32, "16,8,3,3">) -> !ocannl.tensor<f32, "1,16,6,6">
  return %c : !ocannl.tensor<f32, "1,16,6,6">
}

// Two convolutions concatenated along the channels (SqueezeNet's fire
// module): the relus and the concatenation keep the NHWC layout, and the
// next convolution reads it.
// CHECK-LABEL: func.func @fire(
// CHECK: "ocannl.relu"{{.*}}ocannl.layout = array<i64: 0, 2, 3, 1>
// CHECK: "ocannl.relu"{{.*}}ocannl.layout = array<i64: 0, 2, 3, 1>
// CHECK: "ocannl.concat"{{.*}}ocannl.layout = array<i64: 0, 2, 3, 1>
// CHECK: "ocannl.einsum"{{.*}}ocannl.layout = array<i64: 0, 2, 3, 1>{{.*}}lanes = "result"
func.func @fire(%x: !ocannl.tensor<f32, "1,8,6,6">) -> !ocannl.tensor<f32, "1,16,6,6"> {
  %w1 = "ocannl.constant"() {value = dense<0.5> : tensor<16x8x1x1xf32>} : () -> !ocannl.tensor<f32, "16,8,1,1">
  %w2 = "ocannl.constant"() {value = dense<0.25> : tensor<16x8x1x1xf32>} : () -> !ocannl.tensor<f32, "16,8,1,1">
  %w3 = "ocannl.constant"() {value = dense<0.125> : tensor<16x32x1x1xf32>} : () -> !ocannl.tensor<f32, "16,32,1,1">
  %a = "ocannl.einsum"(%x, %w1) {spec = "n,c,1*o0@0,0+k0,1*o1@0,0+k1; m,c,k0,k1 => n,m,o0,o1"} : (!ocannl.tensor<f32, "1,8,6,6">, !ocannl.tensor<f32, "16,8,1,1">) -> !ocannl.tensor<f32, "1,16,6,6">
  %ra = "ocannl.relu"(%a) : (!ocannl.tensor<f32, "1,16,6,6">) -> !ocannl.tensor<f32, "1,16,6,6">
  %b = "ocannl.einsum"(%x, %w2) {spec = "n,c,1*o0@0,0+k0,1*o1@0,0+k1; m,c,k0,k1 => n,m,o0,o1"} : (!ocannl.tensor<f32, "1,8,6,6">, !ocannl.tensor<f32, "16,8,1,1">) -> !ocannl.tensor<f32, "1,16,6,6">
  %rb = "ocannl.relu"(%b) : (!ocannl.tensor<f32, "1,16,6,6">) -> !ocannl.tensor<f32, "1,16,6,6">
  %cat = "ocannl.concat"(%ra, %rb) {spec = "n,a,h,w; n,b,h,w => n,a^b,h,w"} : (!ocannl.tensor<f32, "1,16,6,6">, !ocannl.tensor<f32, "1,16,6,6">) -> !ocannl.tensor<f32, "1,32,6,6">
  %y = "ocannl.einsum"(%cat, %w3) {spec = "n,c,1*o0@0,0+k0,1*o1@0,0+k1; m,c,k0,k1 => n,m,o0,o1"} : (!ocannl.tensor<f32, "1,32,6,6">, !ocannl.tensor<f32, "16,32,1,1">) -> !ocannl.tensor<f32, "1,16,6,6">
  %r = "ocannl.relu"(%y) : (!ocannl.tensor<f32, "1,16,6,6">) -> !ocannl.tensor<f32, "1,16,6,6">
  return %r : !ocannl.tensor<f32, "1,16,6,6">
}

// A matrix-vector product (a Gemm at batch 1, its weight [n, k] as the
// importer writes it) keeps the dot-product form, lanes along k: each weight
// row streams once, in order, untiled (nothing reuses a tile of it). The
// weight is not permuted to put the outputs last.
// CHECK-LABEL: func.func @matrix_vector(
// CHECK: "ocannl.constant"
// CHECK-NOT: ocannl.layout
// CHECK: "ocannl.einsum"{{.*}}ocannl.schedule = {kind = "cpu", lanes = "reduction", outer = array<i64>, reductions = array<i64: 1>, unroll = [array<i64: 0, 4, 0>], vector = 1
// CHECK-NOT: ocannl.layout
// CHECK: return
func.func @matrix_vector(%x: !ocannl.tensor<f32, "1,16384">) -> !ocannl.tensor<f32, "1,64"> {
  %w = "ocannl.constant"() {value = dense<0.5> : tensor<64x16384xf32>} : () -> !ocannl.tensor<f32, "64,16384">
  %y = "ocannl.einsum"(%x, %w) {spec = "m,k; n,k => m,n"} : (!ocannl.tensor<f32, "1,16384">, !ocannl.tensor<f32, "64,16384">) -> !ocannl.tensor<f32, "1,64">
  return %y : !ocannl.tensor<f32, "1,64">
}
