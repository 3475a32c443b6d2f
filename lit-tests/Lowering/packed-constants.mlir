// A convolution's weight constant, permuted by its layout (output channels
// last: c, kh, kw, m), is stored permuted in a private constant global
// when compiling and read in place: no copy into the arena per call.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-affine)' | FileCheck %s

// CHECK-LABEL: func.func @packed(
// CHECK: %[[G:.*]] = memref.get_global @__ocannl_constant : memref<1x1x2x8xf32>
// CHECK-NOT: memref.copy
// CHECK: return
// CHECK: memref.global "private" constant @__ocannl_constant : memref<1x1x2x8xf32> = dense<{{\[\[\[\[}}0.000000e+00, 2.000000e+00, 4.000000e+00, 6.000000e+00, 8.000000e+00, 1.000000e+01, 1.200000e+01, 1.400000e+01], [1.000000e+00, 3.000000e+00, 5.000000e+00, 7.000000e+00, 9.000000e+00, 1.100000e+01, 1.300000e+01, 1.500000e+01]]]]> {alignment = 64 : i64}
func.func @packed(%x: !ocannl.tensor<f32, "1,1,4,5">) -> !ocannl.tensor<f32, "1,8,4,4"> {
  %w = "ocannl.constant"() {value = dense<[[[[0.0, 1.0]]], [[[2.0, 3.0]]], [[[4.0, 5.0]]], [[[6.0, 7.0]]], [[[8.0, 9.0]]], [[[10.0, 11.0]]], [[[12.0, 13.0]]], [[[14.0, 15.0]]]]> : tensor<8x1x1x2xf32>} : () -> !ocannl.tensor<f32, "8,1,1,2">
  %c = "ocannl.einsum"(%x, %w) {spec = "n,c,1*o0@0,0+k0,1*o1@0,0+k1; m,c,k0,k1 => n,m,o0,o1"} : (!ocannl.tensor<f32, "1,1,4,5">, !ocannl.tensor<f32, "8,1,1,2">) -> !ocannl.tensor<f32, "1,8,4,4">
  %r = "ocannl.relu"(%c) : (!ocannl.tensor<f32, "1,8,4,4">) -> !ocannl.tensor<f32, "1,8,4,4">
  return %r : !ocannl.tensor<f32, "1,8,4,4">
}
