// Values do not depend on the layouts: a convolution chain run with the
// layouts the planner chooses (channels-last, permuted weights read in
// place) prints the same cells as with a hand-written transposed relu.
// UNSUPPORTED: plugin
// RUN: ocannl-run %s --entry conv | FileCheck %s
// RUN: ocannl-run %s --entry conv --threads 2 | FileCheck %s
// RUN: ocannl-run %s --entry given | FileCheck %s --check-prefix=GIVEN

// The input is 1 everywhere but its first channel's first cell (2); the
// weights are 0.5 (conv) and the bias 1..4: each output cell of channel m
// is 0.5 * (4 * 9 + [1 at (0,0)]) + (m + 1).
// CHECK: result #0: float32[1, 4, 2, 2]
// CHECK: cells [19.500000, 19.000000, 19.000000, 19.000000, 20.500000, 20.000000, ...]
func.func @conv() -> !ocannl.tensor<f32, "1,4,2,2"> {
  %x = "ocannl.constant"() {value = dense<[[[[2.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]], [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]], [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]], [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]]]> : tensor<1x4x4x4xf32>} : () -> !ocannl.tensor<f32, "1,4,4,4">
  %w = "ocannl.constant"() {value = dense<0.5> : tensor<4x4x3x3xf32>} : () -> !ocannl.tensor<f32, "4,4,3,3">
  %b = "ocannl.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> !ocannl.tensor<f32, "4">
  %c = "ocannl.einsum"(%x, %w) {spec = "n,c,1*o0@0,0+k0,1*o1@0,0+k1; m,c,k0,k1 => n,m,o0,o1"} : (!ocannl.tensor<f32, "1,4,4,4">, !ocannl.tensor<f32, "4,4,3,3">) -> !ocannl.tensor<f32, "1,4,2,2">
  %cb = "ocannl.einsum"(%c, %b) {spec = "n,m,o0,o1; m => n,m,o0,o1", combine = "add"} : (!ocannl.tensor<f32, "1,4,2,2">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "1,4,2,2">
  %r = "ocannl.relu"(%cb) : (!ocannl.tensor<f32, "1,4,2,2">) -> !ocannl.tensor<f32, "1,4,2,2">
  return %r : !ocannl.tensor<f32, "1,4,2,2">
}

// A transposed intermediate read by an exp: the exp reads it transposed.
// GIVEN: result #0: float32[2, 3]
// GIVEN: cells [1.000000, 2.718282, 7.389056, 20.085537, 54.5981{{[0-9]+}}, 148.413162]
func.func @given() -> !ocannl.tensor<f32, "2,3"> {
  %x = "ocannl.constant"() {value = dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>} : () -> !ocannl.tensor<f32, "2,3">
  %r = "ocannl.relu"(%x) {ocannl.layout = array<i64: 1, 0>} : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "2,3">
  %e = "ocannl.exp"(%r) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "2,3">
  return %e : !ocannl.tensor<f32, "2,3">
}
