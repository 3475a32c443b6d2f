// Calls between functions on ocannl tensors keep the destination-passing
// convention: the caller passes its argument buffers, then a buffer for
// each result (its own result argument when it returns the value, else a
// view into its arena). Declarations are lowered to the same convention.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-affine)' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-llvm)' | FileCheck %s --check-prefix=LLVM

// LLVM-NOT: ocannl.
// LLVM: llvm.func @ext(!llvm.ptr, !llvm.ptr)
// LLVM: llvm.call @g(%{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr) -> ()

// CHECK-LABEL: func.func private @ext(memref<3xf32>, memref<3xf32>)
func.func private @ext(!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">

// CHECK-LABEL: func.func @g(
// CHECK-SAME: %{{.*}}: memref<3xf32>, %{{.*}}: memref<3xf32>)
func.func @g(%x: !ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n"> {
  %0 = "ocannl.tanh"(%x) : (!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
  return %0 : !ocannl.tensor<f32, "n">
}

// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[A:.*]]: memref<3xf32>, %[[R:.*]]: memref<3xf32>) attributes {ocannl.intermediate_bytes = 128 : i64}
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<128xi8>
// The unread range's place is reused at once.
// CHECK: cf.br
// CHECK: %[[T:.*]] = memref.view %[[ARENA]][%{{.*}}][] : memref<128xi8> to memref<3xf32>
// CHECK-NEXT: call @g(%[[A]], %[[T]]) : (memref<3xf32>, memref<3xf32>) -> ()
// CHECK-NEXT: %[[O:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[U:.*]] = memref.view %[[ARENA]][%[[O]]][] : memref<128xi8> to memref<3xf32>
// CHECK-NEXT: call @ext(%[[T]], %[[U]]) : (memref<3xf32>, memref<3xf32>) -> ()
// The value returned is computed straight into the result argument.
// CHECK: call @g(%[[U]], %[[R]]) : (memref<3xf32>, memref<3xf32>) -> ()
// CHECK: memref.dealloc %[[ARENA]]
// CHECK-NEXT: return
func.func @f(%a: !ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n"> {
  %three = "ocannl.range"() {spec = "3"} : () -> !ocannl.tensor<f32, "n">
  %0 = func.call @g(%a) : (!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
  %1 = func.call @ext(%0) : (!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
  %2 = func.call @g(%1) : (!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
  return %2 : !ocannl.tensor<f32, "n">
}
