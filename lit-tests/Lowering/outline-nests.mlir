// ocannl-outline-nests (first pass of the upstream part of ocannl-to-llvm):
// a function with more than max-nests top-level loop nests has them moved,
// max-nests at a time, into private noinline helpers it calls in their
// place (LLVM's passes are superlinear in one function's size). The count
// of nests per function is what keeps the compile time linear: each helper
// holds at most max-nests of them, and the caller none of the outlined.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-affine,ocannl-outline-nests{max-nests=2})' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-llvm)' | FileCheck %s --check-prefix=LLVM

!p = !ocannl.tensor<f32, "1,4">

// Five parts, five nests (rows of 2 cells: loop nests): two helpers of
// two, the fifth stays (a group of one is not worth a call). Constants are
// cloned into the helpers (the subscripts stay constant); buffers become
// arguments.
// CHECK-LABEL: func.func @five(
// CHECK-SAME: %[[A0:[^:]*]]: memref<2x2xf32>, %[[A1:[^:]*]]: memref<2x2xf32>, %[[A2:[^:]*]]: memref<2x2xf32>, %[[A3:[^:]*]]: memref<2x2xf32>, %[[A4:[^:]*]]: memref<2x2xf32>, %[[R:[^:]*]]: memref<2x10xf32>)
// CHECK-NOT: affine.for
// CHECK: call @__ocannl_nests0_five(%[[A0]], %[[R]], %[[A1]])
// CHECK-NOT: affine.for
// CHECK: call @__ocannl_nests1_five(%[[A2]], %[[R]], %[[A3]])
// CHECK: affine.store {{.*}} + 8] :
// CHECK-NOT: affine.store
// CHECK: return
// CHECK: func.func private @__ocannl_nests0_five(%[[X:[^:]*]]: memref<2x2xf32>, %[[Y:[^:]*]]: memref<2x10xf32>, %[[Z:[^:]*]]: memref<2x2xf32>) attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK: affine.store {{.*}}[%{{[^ ]*}}, %{{[^ ]*}}] :
// CHECK: affine.store {{.*}} + 2] :
// CHECK-NOT: affine.store
// CHECK: return
// CHECK: func.func private @__ocannl_nests1_five(
// CHECK-COUNT-2: affine.store
// CHECK-NOT: affine.store
// CHECK: return
// CHECK-NOT: func.func private @__ocannl_nests2_five

// Five whole parts, five copies (`memref.copy` of flat views, no loops):
// outlined the same way; the flat views are made again in the helper from
// the buffers, which it takes as arguments.
// CHECK-LABEL: func.func @five_copies(
// CHECK-SAME: %[[A0:[^:]*]]: memref<1x4xf32>, %[[A1:[^:]*]]: memref<1x4xf32>, %[[A2:[^:]*]]: memref<1x4xf32>, %[[A3:[^:]*]]: memref<1x4xf32>, %[[A4:[^:]*]]: memref<1x4xf32>, %[[R:[^:]*]]: memref<5x4xf32>)
// CHECK-NEXT: call @__ocannl_nests2_five_copies(%[[A0]], %[[R]], %[[A1]])
// CHECK-NEXT: call @__ocannl_nests3_five_copies(%[[A2]], %[[R]], %[[A3]])
// CHECK-NEXT: memref.reinterpret_cast %[[A4]]
// CHECK-NEXT: memref.reinterpret_cast %[[R]] to offset: [16]
// CHECK-NEXT: memref.copy
// CHECK-NOT: memref.
// CHECK: func.func private @__ocannl_nests2_five_copies(%[[X:[^:]*]]: memref<1x4xf32>, %[[Y:[^:]*]]: memref<5x4xf32>, %[[Z:[^:]*]]: memref<1x4xf32>)
// CHECK-NEXT: %[[X1:.*]] = memref.reinterpret_cast %[[X]] to offset: [0], sizes: [4], strides: [1]
// CHECK-NEXT: %[[Y1:.*]] = memref.reinterpret_cast %[[Y]] to offset: [0], sizes: [4], strides: [1]
// CHECK-NEXT: %[[Z1:.*]] = memref.reinterpret_cast %[[Z]] to offset: [0], sizes: [4], strides: [1]
// CHECK-NEXT: %[[Y2:.*]] = memref.reinterpret_cast %[[Y]] to offset: [4], sizes: [4], strides: [1]
// CHECK-NEXT: memref.copy %[[X1]], %[[Y1]]
// CHECK-NEXT: memref.copy %[[Z1]], %[[Y2]]
// CHECK-NEXT: return

// The default bound (64 nests) leaves these functions alone.
// LLVM-NOT: __ocannl_nests
!q = !ocannl.tensor<f32, "2,2">
func.func @five(%a: !q, %b: !q, %c: !q, %d: !q, %e: !q) -> !ocannl.tensor<f32, "2,10"> {
  %r = "ocannl.concat"(%a, %b, %c, %d, %e) {spec = "n,p0; n,p1; n,p2; n,p3; n,p4 => n,p0^p1^p2^p3^p4"} : (!q, !q, !q, !q, !q) -> !ocannl.tensor<f32, "2,10">
  return %r : !ocannl.tensor<f32, "2,10">
}

func.func @five_copies(%a: !p, %b: !p, %c: !p, %d: !p, %e: !p) -> !ocannl.tensor<f32, "5,4"> {
  %r = "ocannl.concat"(%a, %b, %c, %d, %e) {spec = "p0,..r..; p1,..r..; p2,..r..; p3,..r..; p4,..r.. => p0^p1^p2^p3^p4,..r.."} : (!p, !p, !p, !p, !p) -> !ocannl.tensor<f32, "5,4">
  return %r : !ocannl.tensor<f32, "5,4">
}


// At most max-nests nests: nothing to outline.
// CHECK-LABEL: func.func @two(
// CHECK-NOT: call
// CHECK-COUNT-2: memref.copy
// CHECK: return
func.func @two(%a: !p, %b: !p) -> !ocannl.tensor<f32, "2,4"> {
  %r = "ocannl.concat"(%a, %b) {spec = "p0,..r..; p1,..r.. => p0^p1,..r.."} : (!p, !p) -> !ocannl.tensor<f32, "2,4">
  return %r : !ocannl.tensor<f32, "2,4">
}
