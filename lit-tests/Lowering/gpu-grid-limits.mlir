// Grids past CUDA's limits and grids without cells (issue 42). A grid
// launches at most 2^31 - 1 blocks (CUDA's limit on a grid's x dimension):
// past it, each thread loops over the cells one grid apart (a grid-stride
// loop). A reduction over an axis of size 0 leaves each cell at its start
// (no read of the empty operand), and a nest without cells launches nothing.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{target=gpu},ocannl-lower-to-affine)' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-nvvm)' | FileCheck %s --check-prefix=NVVM

// 600000 * 1000001 cells of i8 (not a multiple of 1024: one cell per
// thread) on blocks of 256 threads: 2343752344 blocks are needed,
// 2147483647 launched, two rounds per thread, the overhang guarded.
// CHECK-LABEL: func.func @huge(
// CHECK: affine.parallel (%[[B:.*]]) = (0) to (2147483647) {
// CHECK-NEXT: affine.parallel (%[[T:.*]]) = (0) to (256) {
// CHECK-NEXT: affine.for %[[R:.*]] = 0 to 2 {
// CHECK-NEXT: %[[L:.*]] = affine.apply #{{.*}}(%[[B]], %[[T]], %[[R]])
// CHECK-NEXT: affine.if #{{.*}}(%[[L]]) {
// NVVM-LABEL: func.func @huge(
// NVVM: gpu.launch_func @{{.*}} blocks in (%[[G:.*]], %{{.*}}, %{{.*}}) threads in (%[[TH:.*]], %{{.*}}, %{{.*}})
// NVVM-NOT: 2343752344
func.func @huge(%a: !ocannl.tensor<i8, "600000,1000001">) -> !ocannl.tensor<i8, "600000,1000001"> {
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<i8, "600000,1000001">) -> !ocannl.tensor<i8, "600000,1000001">
  return %0 : !ocannl.tensor<i8, "600000,1000001">
}

// A pointwise op whose cells are a multiple of 4 blocks of 256 threads:
// four cells per thread, one grid (2048 cells) apart, every load before
// the first store.
// CHECK-LABEL: func.func @four_cells(
// CHECK: affine.parallel (%[[B4:.*]]) = (0) to (8) {
// CHECK-NEXT: affine.parallel (%[[T4:.*]]) = (0) to (256) {
// CHECK: affine.apply #[[M2048:.*]](%[[B4]], %[[T4]])
// CHECK: affine.apply #{{.*}}(%[[B4]], %[[T4]])
// CHECK: affine.apply #{{.*}}(%[[B4]], %[[T4]])
// CHECK-NOT: affine.store
// CHECK-COUNT-8: affine.load
// CHECK-NOT: affine.load
// CHECK-COUNT-4: affine.store
// NVVM-LABEL: func.func @four_cells(
// NVVM: gpu.launch_func @{{.*}} blocks in (%[[G4:.*]], %{{.*}}, %{{.*}}) threads in
func.func @four_cells(%x: !ocannl.tensor<f32, "1024,8">, %y: !ocannl.tensor<f32, "1024,8">) -> !ocannl.tensor<f32, "1024,8"> {
  %s = "ocannl.add"(%x, %y) : (!ocannl.tensor<f32, "1024,8">, !ocannl.tensor<f32, "1024,8">) -> !ocannl.tensor<f32, "1024,8">
  return %s : !ocannl.tensor<f32, "1024,8">
}

// A matrix product over an axis of size 0: each of the 3 cells is the
// sum's start, 0; the reduction loop never runs.
// CHECK-LABEL: func.func @empty_sum(
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: affine.for %{{.*}} = 0 to 0 iter_args(
// NVVM-LABEL: func.func @empty_sum(
// NVVM: gpu.launch_func
func.func @empty_sum(%w: !ocannl.tensor<f32, "0->3">, %x: !ocannl.tensor<f32, "0">) -> !ocannl.tensor<f32, "3"> {
  %0 = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "0->3">, !ocannl.tensor<f32, "0">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}
