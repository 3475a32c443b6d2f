// ocannl-outline-nests (first pass of the upstream part of ocannl-to-llvm):
// a function with more than max-nests top-level loop nests has them moved,
// max-nests at a time, into private noinline helpers it calls in their
// place (LLVM's passes are superlinear in one function's size). The count
// of nests per function is what keeps the compile time linear: each helper
// holds at most max-nests of them, and the caller none of the outlined.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-affine,ocannl-outline-nests{max-nests=2})' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-llvm)' | FileCheck %s --check-prefix=LLVM

!p = !ocannl.tensor<f32, "1,4">

// Five parts, five nests: two helpers of two, the fifth stays (a group of
// one is not worth a call). Constants are cloned into the helpers (the
// subscripts stay constant); buffers become arguments.
// CHECK-LABEL: func.func @five(
// CHECK-SAME: %[[A0:[^:]*]]: memref<1x4xf32>, %[[A1:[^:]*]]: memref<1x4xf32>, %[[A2:[^:]*]]: memref<1x4xf32>, %[[A3:[^:]*]]: memref<1x4xf32>, %[[A4:[^:]*]]: memref<1x4xf32>, %[[R:[^:]*]]: memref<5x4xf32>)
// CHECK-NOT: affine.for
// CHECK: call @__ocannl_nests0_five(%[[A0]], %[[R]], %[[A1]])
// CHECK-NOT: affine.for
// CHECK: call @__ocannl_nests1_five(%[[A2]], %[[R]], %[[A3]])
// CHECK: affine.for
// CHECK-NOT: affine.for
// CHECK: return
// CHECK: func.func private @__ocannl_nests0_five(%[[X:[^:]*]]: memref<1x4xf32>, %[[Y:[^:]*]]: memref<5x4xf32>, %[[Z:[^:]*]]: memref<1x4xf32>) attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK: arith.constant 0 : index
// CHECK-COUNT-2: affine.for
// CHECK-NOT: affine.for
// CHECK: return
// CHECK: func.func private @__ocannl_nests1_five(
// CHECK-COUNT-2: affine.for
// CHECK-NOT: affine.for
// CHECK: return
// CHECK-NOT: func.func private @__ocannl_nests2

// The default bound (64 nests) leaves these functions alone.
// LLVM-NOT: __ocannl_nests
func.func @five(%a: !p, %b: !p, %c: !p, %d: !p, %e: !p) -> !ocannl.tensor<f32, "5,4"> {
  %r = "ocannl.concat"(%a, %b, %c, %d, %e) {spec = "p0,..r..; p1,..r..; p2,..r..; p3,..r..; p4,..r.. => p0^p1^p2^p3^p4,..r.."} : (!p, !p, !p, !p, !p) -> !ocannl.tensor<f32, "5,4">
  return %r : !ocannl.tensor<f32, "5,4">
}

// At most max-nests nests: nothing to outline.
// CHECK-LABEL: func.func @two(
// CHECK-NOT: call
// CHECK-COUNT-2: affine.for
// CHECK: return
func.func @two(%a: !p, %b: !p) -> !ocannl.tensor<f32, "2,4"> {
  %r = "ocannl.concat"(%a, %b) {spec = "p0,..r..; p1,..r.. => p0^p1,..r.."} : (!p, !p) -> !ocannl.tensor<f32, "2,4">
  return %r : !ocannl.tensor<f32, "2,4">
}
