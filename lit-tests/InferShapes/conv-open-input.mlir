// A padded, strided convolution over an axis whose size only a broadcast
// bounds (relu's result, at least its operand's 1): the closing stages
// guess the input first and derive the output from it. Guessing both at
// once gave input 1 and output 1, which contradict (1 padded by 2 and 2,
// kernel 2, stride 2: the output is 2): "incompatible stride".
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes)' | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2">
func.func @f(%x0: !ocannl.tensor<f32, "1">, %w: !ocannl.tensor<f32, "2">) -> (!ocannl.tensor<f32, "...">) {
  %x = "ocannl.relu"(%x0) : (!ocannl.tensor<f32, "1">) -> !ocannl.tensor<f32, "...">
  %a = "ocannl.einsum"(%x, %w) {spec = "2*o@2,2+k; k => o"} : (!ocannl.tensor<f32, "...">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...">
  return %a : !ocannl.tensor<f32, "...">
}
