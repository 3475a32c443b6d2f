// With schedule=false the lowering emits plain affine nests: constant
// bounds, affine maps, one buffer per value, for pipelines that schedule
// with upstream passes. Upstream affine passes tile and vectorise them,
// and the result still lowers to LLVM.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{schedule=false},ocannl-lower-to-affine,func.func(affine-loop-tile{tile-size=4}))' | FileCheck %s --check-prefix=TILE
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{schedule=false},ocannl-lower-to-affine,func.func(affine-super-vectorize{virtual-vector-size=8}))' | FileCheck %s --check-prefix=VEC
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{schedule=false},ocannl-lower-to-affine,func.func(affine-loop-tile{tile-size=4},affine-super-vectorize{virtual-vector-size=8}),lower-affine,convert-vector-to-scf,convert-vector-to-llvm,convert-scf-to-cf,finalize-memref-to-llvm,convert-arith-to-llvm,convert-math-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)' | FileCheck %s --check-prefix=LLVM

// TILE-LABEL: func.func @layer
// The addend's nest (batch, output), then the matmul's (batch, output,
// reduction), each tiled by 4.
// TILE: affine.for %[[B:[a-z0-9]+]] = 0 to 8 step 4 {
// TILE-NEXT: affine.for %{{.*}} = 0 to 16 step 4 {
// TILE-NEXT: affine.for %{{.*}} = #{{.*}}(%[[B]]) to #{{.*}}(%[[B]]) {
// TILE: affine.for %[[B:[a-z0-9]+]] = 0 to 8 step 4 {
// TILE-NEXT: affine.for %{{.*}} = 0 to 16 step 4 {
// TILE-NEXT: affine.for %{{.*}} = 0 to 32 step 4 {
// TILE-NEXT: affine.for %{{.*}} = #{{.*}}(%[[B]]) to #{{.*}}(%[[B]]) {
// VEC-LABEL: func.func @layer
// VEC: vector.transfer_read {{.*}} : memref<16xf32>, vector<8xf32>
// VEC: vector.transfer_write {{.*}} : vector<8xf32>, memref<8x16xf32>
// LLVM: llvm.func @layer
// LLVM: llvm.fmul {{.*}} : vector<8xf32>
func.func @layer(%x: !ocannl.tensor<f32, "8|32">, %w: !ocannl.tensor<f32, "|...->...">, %b: !ocannl.tensor<f32, "|...->...">) -> !ocannl.tensor<f32, "...|16"> {
  %h = "ocannl.fma"(%w, %x, %b) : (!ocannl.tensor<f32, "|...->...">, !ocannl.tensor<f32, "8|32">, !ocannl.tensor<f32, "|...->...">) -> !ocannl.tensor<f32, "...|16">
  %r = "ocannl.relu"(%h) : (!ocannl.tensor<f32, "...|16">) -> !ocannl.tensor<f32, "...|16">
  return %r : !ocannl.tensor<f32, "...|16">
}
