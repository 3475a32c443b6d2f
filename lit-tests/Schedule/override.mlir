// A hand-written schedule is honoured: ocannl-plan-schedule keeps it and
// ocannl-lower-to-affine obeys it (here 4 lanes instead of 8, one vector
// and 3 rows per register block, a tile of 8 columns); the other ops are
// planned as usual (the exp fused into the product). Each pass is checked alone: the input already carries
// solved types, projections and (for the second run) every schedule.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{l1-bytes=32768 l2-bytes=1048576})' | FileCheck %s --check-prefix=PLAN
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{l1-bytes=32768 l2-bytes=1048576},ocannl-lower-to-affine)' | FileCheck %s

// PLAN-LABEL: func.func @hand(
// PLAN: ocannl.schedule = {kind = "cpu", lanes = "result", outer = array<i64>, reductions = array<i64: 2>, unroll = [array<i64: 1, 1, 8>, array<i64: 0, 3, 0>], vector = 1 : i64, width = 4 : i64}
// PLAN: ocannl.exp{{.*}}ocannl.schedule = {kind = "epilogue", operand = 0 : i64}
// PLAN: ocannl.neg{{.*}}ocannl.schedule = {kind = "cpu", lanes = "result", outer = array<i64: 0>, reductions = array<i64>, unroll = [array<i64: 1, 1, 0>], vector = 1 : i64, width = 8 : i64}

// CHECK-LABEL: func.func @hand(
// The product, with the exp fused into it: a tile of 8 columns, 4-lane
// vectors, 3 rows of accumulators.
// CHECK: affine.for %[[JT:.*]] = 0 to 32 step 8 {
// CHECK-NEXT: affine.for %{{.*}} = #map(%[[JT]]) to min #map1(%[[JT]]) step 4 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 12 step 3 {
// CHECK: %{{.*}}:3 = affine.for %{{.*}} = 0 to 16 iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK: math.exp %{{.*}} : vector<4xf32>
// The relu as written, the neg as planned: 8 lanes.
// CHECK: arith.maximumf {{.*}} : vector<8xf32>
// CHECK: arith.negf {{.*}} : vector<8xf32>
func.func @hand(%a: !ocannl.tensor<f32, "12,16">, %b: !ocannl.tensor<f32, "16,32">) -> (!ocannl.tensor<f32, "12,32">, !ocannl.tensor<f32, "12,32">) {
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j", ocannl.schedule = {kind = "cpu", lanes = "result", width = 4, vector = 1, outer = array<i64>, unroll = [array<i64: 1, 1, 8>, array<i64: 0, 3, 0>], reductions = array<i64: 2>}} : (!ocannl.tensor<f32, "12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32">
  %e = "ocannl.exp"(%c) : (!ocannl.tensor<f32, "12,32">) -> !ocannl.tensor<f32, "12,32">
  %r = "ocannl.relu"(%e) {ocannl.schedule = {kind = "cpu", lanes = "result", width = 8, vector = 1, outer = array<i64: 0>, unroll = [array<i64: 1, 1, 0>], reductions = array<i64>}} : (!ocannl.tensor<f32, "12,32">) -> !ocannl.tensor<f32, "12,32">
  %n = "ocannl.neg"(%e) : (!ocannl.tensor<f32, "12,32">) -> !ocannl.tensor<f32, "12,32">
  return %r, %n : !ocannl.tensor<f32, "12,32">, !ocannl.tensor<f32, "12,32">
}
