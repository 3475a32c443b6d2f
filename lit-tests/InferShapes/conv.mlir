// Strided and convolution axes (reference, "Affine indexing and
// convolutions"): `stride*o` iterates an input axis of `stride * o`; a
// convolution `stride*o+dilation*k` is padded (`o=+k`: input `stride * o`)
// or valid (`o<+k`, also the default: input `stride * (o - 1) + (k - 1) *
// dilation + 1`). Inference goes forwards (output from input), backwards
// (input from output) and sideways (kernel from both); every result is
// confirmed by the independent checker.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// CHECK-LABEL: func.func @conv2d_valid
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2|6,6,4">
func.func @conv2d_valid(%x: !ocannl.tensor<f32, "2|8,8,3">, %k: !ocannl.tensor<f32, "3,3,3->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%x, %k) {spec = "b|oh<+kh,ow<+kw,ci; kh,kw,ci->co => b|oh,ow,co"} : (!ocannl.tensor<f32, "2|8,8,3">, !ocannl.tensor<f32, "3,3,3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// CHECK-LABEL: func.func @conv2d_padded
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2|8,8,4">
func.func @conv2d_padded(%x: !ocannl.tensor<f32, "2|8,8,3">, %k: !ocannl.tensor<f32, "3,3,3->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%x, %k) {spec = "b|oh=+kh,ow=+kw,ci; kh,kw,ci->co => b|oh,ow,co"} : (!ocannl.tensor<f32, "2|8,8,3">, !ocannl.tensor<f32, "3,3,3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// CHECK-LABEL: func.func @conv2d_padded_stride2
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2|4,4,4">
func.func @conv2d_padded_stride2(%x: !ocannl.tensor<f32, "2|8,8,3">, %k: !ocannl.tensor<f32, "3,3,3->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%x, %k) {spec = "b|2*oh=+kh,2*ow=+kw,ci; kh,kw,ci->co => b|oh,ow,co"} : (!ocannl.tensor<f32, "2|8,8,3">, !ocannl.tensor<f32, "3,3,3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// (9 - 3) / 2 + 1 = 4.
// CHECK-LABEL: func.func @conv2d_valid_stride2
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2|4,4,4">
func.func @conv2d_valid_stride2(%x: !ocannl.tensor<f32, "2|9,9,3">, %k: !ocannl.tensor<f32, "3,3,3->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%x, %k) {spec = "b|2*oh<+kh,2*ow<+kw,ci; kh,kw,ci->co => b|oh,ow,co"} : (!ocannl.tensor<f32, "2|9,9,3">, !ocannl.tensor<f32, "3,3,3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Dilation 2: the kernel spans 5; 9 - 5 + 1 = 5.
// CHECK-LABEL: func.func @conv2d_dilated
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "5,5,4">
func.func @conv2d_dilated(%x: !ocannl.tensor<f32, "9,9,3">, %k: !ocannl.tensor<f32, "3,3,3->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%x, %k) {spec = "oh<+2*kh,ow<+2*kw,ci; kh,kw,ci->co => oh,ow,co"} : (!ocannl.tensor<f32, "9,9,3">, !ocannl.tensor<f32, "3,3,3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Max-pool, window 3, stride 2: (9 - 3) / 2 + 1 = 4; the window tensor's
// size comes from the spec's labels.
// CHECK-LABEL: func.func @max_pool
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2|4,4,3">
func.func @max_pool(%x: !ocannl.tensor<f32, "2|9,9,3">, %w: !ocannl.tensor<f32, "3,3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%x, %w) {spec = "b|2*oh<+wh,2*ow<+ww,c; wh,ww => b|oh,ow,c", accum = "max", combine = "add"} : (!ocannl.tensor<f32, "2|9,9,3">, !ocannl.tensor<f32, "3,3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Backwards: the input from the output and the kernel: 2 * (5 - 1) + 3 = 11.
// CHECK-LABEL: func.func @backwards
// CHECK-SAME: !ocannl.tensor<f32, "11">
func.func @backwards(%x: !ocannl.tensor<f32, "...|...->...">, %k: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "5"> {
  %0 = "ocannl.einsum"(%x, %k) {spec = "2*o<+k; k => o"} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "5">
  return %0 : !ocannl.tensor<f32, "5">
}

// Sideways: the kernel from the input and the output: 10 - 2 * 3 = 4.
// CHECK-LABEL: func.func @kernel_from_both
// CHECK-SAME: %{{.*}}: !ocannl.tensor<f32, "10">, %{{.*}}: !ocannl.tensor<f32, "4">
func.func @kernel_from_both(%x: !ocannl.tensor<f32, "10">, %k: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "4"> {
  %0 = "ocannl.einsum"(%x, %k) {spec = "2*o<+k; k => o"} : (!ocannl.tensor<f32, "10">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "4">
  return %0 : !ocannl.tensor<f32, "4">
}

// Strided iteration without a kernel: every other element.
// CHECK-LABEL: func.func @strided
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3">
func.func @strided(%x: !ocannl.tensor<f32, "6">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%x) {spec = "2*o => o"} : (!ocannl.tensor<f32, "6">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Explicit padding `@lo,hi` (this project's extension, for ONNX's Conv and
// pools): the output counts the windows that fit the padded input, rounded
// down: (224 + 2 + 2 - 11) / 4 + 1 = 55.
// CHECK-LABEL: func.func @explicit_padding
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "1,64,55,55">
func.func @explicit_padding(%x: !ocannl.tensor<f32, "1,3,224,224">, %k: !ocannl.tensor<f32, "64,3,11,11">) -> !ocannl.tensor<f32, "..."> {
  %0 = "ocannl.einsum"(%x, %k) {spec = "n,c,4*h@2,2+kh,4*w@2,2+kw; m,c,kh,kw => n,m,h,w"} : (!ocannl.tensor<f32, "1,3,224,224">, !ocannl.tensor<f32, "64,3,11,11">) -> !ocannl.tensor<f32, "...">
  return %0 : !ocannl.tensor<f32, "...">
}

// With stride 1 the relation is exact: the input from the output, 7 - 1 +
// 3 - 1 - 0 = 8.
// CHECK-LABEL: func.func @explicit_padding_backwards
// CHECK-SAME: %{{.*}}: !ocannl.tensor<f32, "8">
func.func @explicit_padding_backwards(%x: !ocannl.tensor<f32, "...">, %k: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "7"> {
  %0 = "ocannl.einsum"(%x, %k) {spec = "h@1,0+kh; kh => h"} : (!ocannl.tensor<f32, "...">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "7">
  return %0 : !ocannl.tensor<f32, "7">
}
