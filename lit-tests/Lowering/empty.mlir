// Tensors without cells cross function boundaries: one empty along an axis
// after its first (`memref<4x0xf32>`) is passed as `memref<0xf32>`, since
// upstream func-to-llvm cannot compute the strides of the identity-layout
// type and would leave the function unconverted; the body uses a
// zero-size `memref.alloca` of the tensor's own type, and a caller passes
// one of `memref<0xf32>`. An op whose result has no cells gets no loop
// nest (nor, for the GPU, a kernel).
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-affine)' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-llvm)' | FileCheck %s --check-prefix=LLVM

// LLVM-NOT: ocannl.
// LLVM-NOT: func.func
// LLVM: llvm.func @neg(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// LLVM: llvm.func @caller(

// CHECK-LABEL: func.func @neg(%{{.*}}: memref<0xf32>, %{{.*}}: memref<0xf32>)
// CHECK-DAG: memref.alloca() : memref<4x0xf32>
// CHECK-DAG: memref.alloca() : memref<4x0xf32>
// CHECK-NOT: affine.for
// CHECK-NOT: memref.copy
// CHECK: return
func.func @neg(%a: !ocannl.tensor<f32, "4,0">) -> !ocannl.tensor<f32, "4,0"> {
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "4,0">) -> !ocannl.tensor<f32, "4,0">
  return %0 : !ocannl.tensor<f32, "4,0">
}

// The caller computes an empty tensor and passes it: a result buffer of
// its own type inside, `memref<0xf32>` across the call.
// CHECK-LABEL: func.func @caller(%{{.*}}: memref<2xf32>, %{{.*}}: memref<2xf32>)
// CHECK: %[[IN:.*]] = memref.alloca() : memref<0xf32>
// CHECK: %[[OUT:.*]] = memref.alloca() : memref<0xf32>
// CHECK: call @neg(%[[IN]], %[[OUT]]) : (memref<0xf32>, memref<0xf32>) -> ()
func.func @caller(%x: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2"> {
  %e = "ocannl.constant"() {value = 1.0 : f32, spec = "4,0"} : () -> !ocannl.tensor<f32, "4,0">
  %r = func.call @neg(%e) : (!ocannl.tensor<f32, "4,0">) -> !ocannl.tensor<f32, "4,0">
  %y = "ocannl.relu"(%x) : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return %y : !ocannl.tensor<f32, "2">
}
