// ocannl-lower-to-affine alone, from IR that already carries solved types,
// projections and schedules: it obeys them and calls no other pass's code.
// Without a schedule, or without projections, it says which pass to run.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-lower-to-affine)' | FileCheck %s

// A layer `relu(x · wᵀ + b)`: the lanes along the reduction d2, a block of
// 4 × 3 accumulators, the relu applied to each finished sum.
// CHECK-LABEL: func.func @layer(
// CHECK-SAME: attributes {ocannl.intermediate_bytes = 0 : i64}
// CHECK: affine.for %{{.*}} = 0 to 16 step 4 {
// CHECK: affine.for %{{.*}} = 0 to 6 step 3 {
// CHECK: iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: arith.maximumf
// CHECK: return
func.func @layer(%x: !ocannl.tensor<f32, "8|32">, %w: !ocannl.tensor<f32, "32->16">, %b: !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "8|16"> {
  %h = "ocannl.fma"(%w, %x, %b) {ocannl.indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], ocannl.iterator_types = ["parallel", "parallel", "reduction"], ocannl.product_space = array<i64: 8, 16, 32>, ocannl.schedule = {kind = "cpu", lanes = "reduction", outer = array<i64>, reductions = array<i64: 2>, unroll = [array<i64: 1, 4, 0>, array<i64: 0, 3, 0>], vector = 2 : i64, width = 8 : i64}} : (!ocannl.tensor<f32, "32->16">, !ocannl.tensor<f32, "8|32">, !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "8|16">
  %r = "ocannl.relu"(%h) {ocannl.indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], ocannl.iterator_types = ["parallel", "parallel"], ocannl.product_space = array<i64: 8, 16>, ocannl.schedule = {kind = "epilogue", operand = 0 : i64}} : (!ocannl.tensor<f32, "8|16">) -> !ocannl.tensor<f32, "8|16">
  return %r : !ocannl.tensor<f32, "8|16">
}

// -----

func.func @no_schedule(%x: !ocannl.tensor<f32, "8">) -> !ocannl.tensor<f32, "8"> {
  // expected-error @+1 {{'ocannl.neg' op has no schedule (ocannl.schedule): run ocannl-plan-schedule first (or a named pipeline such as ocannl-to-affine)}}
  %r = "ocannl.neg"(%x) {ocannl.indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], ocannl.iterator_types = ["parallel"], ocannl.product_space = array<i64: 8>} : (!ocannl.tensor<f32, "8">) -> !ocannl.tensor<f32, "8">
  return %r : !ocannl.tensor<f32, "8">
}

// -----

func.func @no_projections(%x: !ocannl.tensor<f32, "8">) -> !ocannl.tensor<f32, "8"> {
  // expected-error @+1 {{'ocannl.neg' op: has no projections: run ocannl-infer-projections first (or a named pipeline such as ocannl-to-affine)}}
  %r = "ocannl.neg"(%x) {ocannl.schedule = {kind = "loops"}} : (!ocannl.tensor<f32, "8">) -> !ocannl.tensor<f32, "8">
  return %r : !ocannl.tensor<f32, "8">
}

// -----

// A concatenation reads its blocks (ocannl.blocks), checked against the
// types: a block reading past its operand is an error.
func.func @bad_block(%x: !ocannl.tensor<f32, "3">, %y: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "6"> {
  // expected-error @+1 {{'ocannl.concat' op: ocannl.indexing_maps contradicts the types: block #1: operand #1's axis 0 has size 3 but its index takes the values 3..=5}}
  %c = "ocannl.concat"(%x, %y) {spec = "a; b => a^b", ocannl.blocks = [{iterators = array<i64: 0>, maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], operand = 0 : i64}, {iterators = array<i64: 1>, maps = [affine_map<(d0) -> (d0 + 3)>, affine_map<(d0) -> (d0 + 3)>], operand = 1 : i64}], ocannl.components = [array<i64: 0, 1>], ocannl.iterator_types = ["parallel", "parallel"], ocannl.product_space = array<i64: 3, 3>, ocannl.schedule = {kind = "loops"}} : (!ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "6">
  return %c : !ocannl.tensor<f32, "6">
}
