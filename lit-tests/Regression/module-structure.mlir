// ocannl-to-llvm lowers every function, in nested modules too, and never
// leaves an ocannl op behind (one outside a function is an error:
// Lowering/errors.mlir).
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-llvm)' | FileCheck %s

// CHECK-NOT: ocannl.
// CHECK: module @inner
// CHECK: llvm.func @f(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
module @inner {
  func.func @f(%a: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2"> {
    %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
    return %0 : !ocannl.tensor<f32, "2">
  }
}
