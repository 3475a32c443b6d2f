// ocannl-plan-schedule writes each op's schedule (ocannl.schedule) from its
// projections and the target; ocannl-lower-to-affine obeys it. The cache
// sizes are pinned so that the tiles do not depend on the machine. The
// types are solved already: only the projections are inferred first.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{l1-bytes=49152 l2-bytes=1048576})' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{vector-bytes=64 parallel=true l1-bytes=49152 l2-bytes=1048576})' | FileCheck %s --check-prefix=AVX512
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{schedule=false})' | FileCheck %s --check-prefix=LOOPS
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{target=gpu})' | FileCheck %s --check-prefix=GPU
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{target=gpu block-size=128 shared-tiles=false})' | FileCheck %s --check-prefix=GRID
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{target=gpu shared-tiles=emulate})' | FileCheck %s --check-prefix=EMU
// The schedules are a fixed point: planning again keeps them.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{l1-bytes=49152 l2-bytes=1048576})' | ocannl-opt -p 'builtin.module(ocannl-plan-schedule{schedule=false})' | FileCheck %s
// Generated checks: scripts/bless.py lit-tests/Schedule/plan.mlir rewrites them.
// BLESS-DEFAULT /"(ocannl\.[a-z_]+)".*?(ocannl\.schedule = \{[^}]*\})/

// A matrix product: lanes along the result's contiguous axis (d1), a
// register block of 2 vectors × 6 rows (d0), the reduction d2 inside.
// BLESS CHECK AVX512 LOOPS GPU GRID EMU
// CHECK-LABEL: func.func @matmul(
// CHECK: ocannl.einsum{{.*}}ocannl.schedule = {kind = "cpu", lanes = "result", outer = array<i64>, reductions = array<i64: 2>, unroll = [array<i64: 1, 2, 0>, array<i64: 0, 6, 0>], vector = 1 : i64, width = 8 : i64}
// AVX512-LABEL: func.func @matmul(
// AVX512: ocannl.einsum{{.*}}ocannl.schedule = {kind = "cpu", lanes = "result", outer = array<i64>, parallel = true, reductions = array<i64: 2>, unroll = [array<i64: 1, 2, 0>, array<i64: 0, 8, 0>], vector = 1 : i64, width = 16 : i64}
// LOOPS-LABEL: func.func @matmul(
// LOOPS: ocannl.einsum{{.*}}ocannl.schedule = {kind = "loops"}
// GPU-LABEL: func.func @matmul(
// GPU: ocannl.einsum{{.*}}ocannl.schedule = {block = 256 : i64, kind = "tiled"}
// GRID-LABEL: func.func @matmul(
// GRID: ocannl.einsum{{.*}}ocannl.schedule = {block = 128 : i64, kind = "grid"}
// EMU-LABEL: func.func @matmul(
// EMU: ocannl.einsum{{.*}}ocannl.schedule = {block = 256 : i64, emulate = true, kind = "tiled"}
func.func @matmul(%a: !ocannl.tensor<f32, "64,128">, %b: !ocannl.tensor<f32, "128,32">) -> !ocannl.tensor<f32, "64,32"> {
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j"} : (!ocannl.tensor<f32, "64,128">, !ocannl.tensor<f32, "128,32">) -> !ocannl.tensor<f32, "64,32">
  return %c : !ocannl.tensor<f32, "64,32">
}

// A large one: the reduction tiled (k_tile) and the block's iterators
// tiled for the caches (their panels packed). Its result (4 MiB) overflows
// L2 and streams once per reduction tile: tiles of 512, not 256.
// BLESS CHECK
// CHECK-LABEL: func.func @big_matmul(
// CHECK: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 2, 512>, kind = "cpu", lanes = "result", outer = array<i64>, reductions = array<i64: 2>, unroll = [array<i64: 1, 2, 1024>, array<i64: 0, 6, 60>], vector = 1 : i64, width = 8 : i64}
func.func @big_matmul(%a: !ocannl.tensor<f32, "1024,1024">, %b: !ocannl.tensor<f32, "1024,1024">) -> !ocannl.tensor<f32, "1024,1024"> {
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j"} : (!ocannl.tensor<f32, "1024,1024">, !ocannl.tensor<f32, "1024,1024">) -> !ocannl.tensor<f32, "1024,1024">
  return %c : !ocannl.tensor<f32, "1024,1024">
}

// A convolution in OCANNL's layout (channels last, the weight's input
// channel last): the lanes run along the input channels (a reduction).
// BLESS CHECK GPU
// CHECK-LABEL: func.func @conv(
// CHECK: ocannl.einsum{{.*}}ocannl.schedule = {kind = "cpu", lanes = "reduction", outer = array<i64: 0>, reductions = array<i64: 4, 5, 3>, unroll = [array<i64: 2, 4, 0>, array<i64: 1, 3, 0>], vector = 3 : i64, width = 8 : i64}
// GPU-LABEL: func.func @conv(
// GPU: ocannl.einsum{{.*}}ocannl.schedule = {block = 256 : i64, kind = "tiled"}
func.func @conv(%x: !ocannl.tensor<f32, "8,8,16">, %w: !ocannl.tensor<f32, "32,3,3,16">) -> !ocannl.tensor<f32, "6,6,32"> {
  %y = "ocannl.einsum"(%x, %w) {spec = "o0+k0,o1+k1,c; m,k0,k1,c => o0,o1,m"} : (!ocannl.tensor<f32, "8,8,16">, !ocannl.tensor<f32, "32,3,3,16">) -> !ocannl.tensor<f32, "6,6,32">
  return %y : !ocannl.tensor<f32, "6,6,32">
}

// A channels-last convolution with the output channels last in the
// weight (the layout ocannl.layout gives the importer's convolutions): lanes
// along the output channels (d2), the block's rows along the output width
// (d1, whose pixels are neighbours in memory, their windows overlapping),
// the output rows (d0) outside. On AVX-512, 28 pixels × 32 vectors of 512
// channels get 7 rows × 2 vectors: 4 rows × 2 vectors (8 accumulators)
// ran 1.25× slower on this convolution. The result (1.6 MB) overflows half
// of the pinned 1 MB L2: the output rows are tiled by 7 around the
// reduction's tile loop (outer_tile), so that 7 rows' cells stay in L2
// across the tiles of input channels; with no threads to split, that tile
// loop runs outermost (split_outer) and the rows inside each block column
// (outer_in_block), where that column's weights stay in L1.
// BLESS CHECK AVX512
// CHECK-LABEL: func.func @conv_channels_last(
// CHECK: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 40>, kind = "cpu", lanes = "result", outer = array<i64: 0>, outer_in_block = true, outer_tile = 7 : i64, reductions = array<i64: 3, 5, 4>, split_outer = true, unroll = [array<i64: 2, 2, 1456>, array<i64: 1, 6, 816>], vector = 2 : i64, width = 8 : i64}
// AVX512-LABEL: func.func @conv_channels_last(
// AVX512: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 8>, kind = "cpu", lanes = "result", outer = array<i64: 0>, outer_in_block = true, outer_tile = 7 : i64, parallel = true, reductions = array<i64: 3, 5, 4>, split_outer = true, unroll = [array<i64: 2, 4, 7232>, array<i64: 1, 4, 4096>], vector = 2 : i64, width = 16 : i64}
func.func @conv_channels_last(%x: !ocannl.tensor<f32, "30,30,512">, %w: !ocannl.tensor<f32, "3,3,512,512">) -> !ocannl.tensor<f32, "28,28,512"> {
  %y = "ocannl.einsum"(%x, %w) {spec = "o0+k0,o1+k1,c; k0,k1,c,m => o0,o1,m"} : (!ocannl.tensor<f32, "30,30,512">, !ocannl.tensor<f32, "3,3,512,512">) -> !ocannl.tensor<f32, "28,28,512">
  return %y : !ocannl.tensor<f32, "28,28,512">
}

// The same on 7² (ResNet-50's last stage): the result fits in L2, so no
// outer_tile; the weights one reduction tile reads for the whole tile of
// output channels (16 × 9 × 512 cells on AVX-512, 40 × 9 × 512 on AVX2)
// overflow L1 and are read in place (not packed per tile): the output rows
// run inside each block column's loop (outer_in_block), where that block
// column's weights stay in L1 across them. On AVX-512 its 49 pixels make
// the register block fill every register (7 × 4, not 7 × 3) and the
// micro-panel take the whole L1 (16 channels a tile, not 8).
// BLESS CHECK AVX512
// CHECK-LABEL: func.func @conv_small_image(
// CHECK: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 40>, kind = "cpu", lanes = "result", outer = array<i64: 0>, outer_in_block = true, reductions = array<i64: 3, 5, 4>, unroll = [array<i64: 2, 2, 1456>, array<i64: 1, 6, 816>], vector = 2 : i64, width = 8 : i64}
// AVX512-LABEL: func.func @conv_small_image(
// AVX512: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 16>, kind = "cpu", lanes = "result", outer = array<i64: 0>, outer_in_block = true, parallel = true, reductions = array<i64: 3, 5, 4>, unroll = [array<i64: 2, 4, 3584>, array<i64: 1, 7, 2044>], vector = 2 : i64, width = 16 : i64}
func.func @conv_small_image(%x: !ocannl.tensor<f32, "9,9,512">, %w: !ocannl.tensor<f32, "3,3,512,512">) -> !ocannl.tensor<f32, "7,7,512"> {
  %y = "ocannl.einsum"(%x, %w) {spec = "o0+k0,o1+k1,c; k0,k1,c,m => o0,o1,m"} : (!ocannl.tensor<f32, "9,9,512">, !ocannl.tensor<f32, "3,3,512,512">) -> !ocannl.tensor<f32, "7,7,512">
  return %y : !ocannl.tensor<f32, "7,7,512">
}

// A row reduction (softmax's sum): the lanes along the reduced axis, a
// block of 4 rows.
// BLESS CHECK GPU
// CHECK-LABEL: func.func @row_sum(
// CHECK: ocannl.einsum{{.*}}ocannl.schedule = {kind = "cpu", lanes = "reduction", outer = array<i64>, reductions = array<i64: 1>, unroll = [array<i64: 0, 4, 0>], vector = 1 : i64, width = 8 : i64}
// GPU-LABEL: func.func @row_sum(
// GPU: ocannl.einsum{{.*}}ocannl.schedule = {block = 256 : i64, kind = "grid"}
func.func @row_sum(%x: !ocannl.tensor<f32, "16,64">) -> !ocannl.tensor<f32, "16"> {
  %s = "ocannl.einsum"(%x) {spec = "i,j => i"} : (!ocannl.tensor<f32, "16,64">) -> !ocannl.tensor<f32, "16">
  return %s : !ocannl.tensor<f32, "16">
}

// A fused chain: the add's nest computes the relu and the mul by a value
// computed before it as its epilogue (each marked with the operand that
// carries the chain); the exp, read twice, keeps its own nest.
// BLESS CHECK GPU
// CHECK-LABEL: func.func @chain(
// CHECK: ocannl.exp{{.*}}ocannl.schedule = {kind = "cpu", lanes = "result", outer = array<i64: 0>, reductions = array<i64>, unroll = [array<i64: 1, 1, 0>], vector = 1 : i64, width = 8 : i64}
// CHECK: ocannl.add{{.*}}ocannl.schedule = {kind = "cpu", lanes = "result", outer = array<i64: 0>, reductions = array<i64>, unroll = [array<i64: 1, 1, 0>], vector = 1 : i64, width = 8 : i64}
// CHECK: ocannl.relu{{.*}}ocannl.schedule = {kind = "epilogue", operand = 0 : i64}
// CHECK: ocannl.mul{{.*}}ocannl.schedule = {kind = "epilogue", operand = 1 : i64}
// CHECK: ocannl.neg{{.*}}ocannl.schedule = {kind = "cpu", lanes = "result", outer = array<i64: 0>, reductions = array<i64>, unroll = [array<i64: 1, 1, 0>], vector = 1 : i64, width = 8 : i64}
// GPU-LABEL: func.func @chain(
// GPU: ocannl.exp{{.*}}ocannl.schedule = {block = 256 : i64, kind = "grid"}
// GPU: ocannl.add{{.*}}ocannl.schedule = {block = 256 : i64, kind = "grid"}
// GPU: ocannl.relu{{.*}}ocannl.schedule = {kind = "epilogue", operand = 0 : i64}
// GPU: ocannl.mul{{.*}}ocannl.schedule = {kind = "epilogue", operand = 1 : i64}
// GPU: ocannl.neg{{.*}}ocannl.schedule = {block = 256 : i64, kind = "grid"}
func.func @chain(%x: !ocannl.tensor<f32, "4,16">, %b: !ocannl.tensor<f32, "16">) -> (!ocannl.tensor<f32, "4,16">, !ocannl.tensor<f32, "4,16">) {
  %e = "ocannl.exp"(%x) : (!ocannl.tensor<f32, "4,16">) -> !ocannl.tensor<f32, "4,16">
  %s = "ocannl.add"(%x, %b) : (!ocannl.tensor<f32, "4,16">, !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "4,16">
  %r = "ocannl.relu"(%s) : (!ocannl.tensor<f32, "4,16">) -> !ocannl.tensor<f32, "4,16">
  %m = "ocannl.mul"(%e, %r) : (!ocannl.tensor<f32, "4,16">, !ocannl.tensor<f32, "4,16">) -> !ocannl.tensor<f32, "4,16">
  %n = "ocannl.neg"(%e) : (!ocannl.tensor<f32, "4,16">) -> !ocannl.tensor<f32, "4,16">
  return %m, %n : !ocannl.tensor<f32, "4,16">, !ocannl.tensor<f32, "4,16">
}

// What is not planned gets plain loops on the CPU and grids on a GPU target:
// integers, constants, concatenations.
// BLESS CHECK GRID
// CHECK-LABEL: func.func @unplanned(
// CHECK: ocannl.range{{.*}}ocannl.schedule = {kind = "loops"}
// CHECK: ocannl.add{{.*}}ocannl.schedule = {kind = "loops"}
// CHECK: ocannl.concat{{.*}}ocannl.schedule = {kind = "loops"}
// GRID-LABEL: func.func @unplanned(
// GRID: ocannl.range{{.*}}ocannl.schedule = {block = 128 : i64, kind = "grid"}
// GRID: ocannl.add{{.*}}ocannl.schedule = {block = 128 : i64, kind = "grid"}
// GRID: ocannl.concat{{.*}}ocannl.schedule = {block = 128 : i64, kind = "grid"}
func.func @unplanned(%x: !ocannl.tensor<i32, "3">) -> !ocannl.tensor<i32, "6"> {
  %r = "ocannl.range"() {spec = "3"} : () -> !ocannl.tensor<i32, "3">
  %s = "ocannl.add"(%x, %r) : (!ocannl.tensor<i32, "3">, !ocannl.tensor<i32, "3">) -> !ocannl.tensor<i32, "3">
  %c = "ocannl.concat"(%s, %x) {spec = "a; b => a^b"} : (!ocannl.tensor<i32, "3">, !ocannl.tensor<i32, "3">) -> !ocannl.tensor<i32, "6">
  return %c : !ocannl.tensor<i32, "6">
}
