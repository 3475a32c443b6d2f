// How the threads share a tiled convolution (choose/split.rs): tiles of
// the output channels (the vector iterator; each thread reads all of the
// input and its share of the weights), or whole tiles of the output rows
// (split_outer: each thread reads its share of the input and all of the
// weights), when the input is at least half as large as the weights, when
// the channels are too few to split, when the channels' blocks would load
// the threads less evenly than the rows, or when weights read in place
// would be streamed once per L2 tile of rows (then one tile per thread),
// and when the rows divide among the threads. Two threads on AVX-512, the
// cache sizes pinned.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{vector-bytes=64 parallel=true threads=2 l1-bytes=49152 l2-bytes=2097152})' | FileCheck %s
// One thread: no thread split (split_outer only comes with an L2 outer_tile, none here).
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{vector-bytes=64 parallel=true threads=1 l1-bytes=49152 l2-bytes=2097152})' | FileCheck %s --check-prefix=ONE
// The schedules are a fixed point: planning again keeps them.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{vector-bytes=64 parallel=true threads=2 l1-bytes=49152 l2-bytes=2097152})' | ocannl-opt -p 'builtin.module(ocannl-plan-schedule{schedule=false})' | FileCheck %s
// Generated checks: scripts/bless.py lit-tests/Schedule/threads.mlir rewrites them.
// BLESS-DEFAULT /"(ocannl\.[a-z_]+)".*?(ocannl\.schedule = \{[^}]*\})/

// A 1x1 convolution from 512 to 128 channels on 28²: the input (1.6 MB)
// is 6x the weights: the rows are split, 14 per thread (split_outer,
// outer_tile), the channels' tile is whole.
// BLESS CHECK ONE
// CHECK-LABEL: func.func @wide_input(
// CHECK: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 192>, kind = "cpu", lanes = "result", outer = array<i64: 0>, outer_tile = 14 : i64, parallel = true, reductions = array<i64: 3>, split_outer = true, unroll = [array<i64: 2, 2, 5440>, array<i64: 1, 7, 336>], vector = 2 : i64, width = 16 : i64}
// ONE-LABEL: func.func @wide_input(
// ONE: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 192>, kind = "cpu", lanes = "result", outer = array<i64: 0>, parallel = true, reductions = array<i64: 3>, unroll = [array<i64: 2, 2, 5440>, array<i64: 1, 7, 336>], vector = 2 : i64, width = 16 : i64}
func.func @wide_input(%x: !ocannl.tensor<f32, "28,28,512">, %w: !ocannl.tensor<f32, "512,128">) -> !ocannl.tensor<f32, "28,28,128"> {
  %y = "ocannl.einsum"(%x, %w) {spec = "o0,o1,c; c,m => o0,o1,m"} : (!ocannl.tensor<f32, "28,28,512">, !ocannl.tensor<f32, "512,128">) -> !ocannl.tensor<f32, "28,28,128">
  return %y : !ocannl.tensor<f32, "28,28,128">
}

// From 512 to 1024 channels on 14²: the input (400 KB) is a fifth of the
// weights (2 MB): each thread takes half of the output channels.
// BLESS CHECK ONE
// CHECK-LABEL: func.func @heavy_weights(
// CHECK: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 192>, kind = "cpu", lanes = "result", outer = array<i64: 0>, parallel = true, reductions = array<i64: 3>, unroll = [array<i64: 2, 2, 512>, array<i64: 1, 7, 336>], vector = 2 : i64, width = 16 : i64}
// ONE-LABEL: func.func @heavy_weights(
// ONE: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 192>, kind = "cpu", lanes = "result", outer = array<i64: 0>, parallel = true, reductions = array<i64: 3>, unroll = [array<i64: 2, 2, 5440>, array<i64: 1, 7, 336>], vector = 2 : i64, width = 16 : i64}
func.func @heavy_weights(%x: !ocannl.tensor<f32, "14,14,512">, %w: !ocannl.tensor<f32, "512,1024">) -> !ocannl.tensor<f32, "14,14,1024"> {
  %y = "ocannl.einsum"(%x, %w) {spec = "o0,o1,c; c,m => o0,o1,m"} : (!ocannl.tensor<f32, "14,14,512">, !ocannl.tensor<f32, "512,1024">) -> !ocannl.tensor<f32, "14,14,1024">
  return %y : !ocannl.tensor<f32, "14,14,1024">
}

// From 512 to 64 channels on 7²: the input (100 KB) is more than half of
// the weights (131 KB), but 7 rows do not divide between two threads and
// are too few for the shortfall not to matter: each thread takes half of
// the output channels.
// BLESS CHECK ONE
// CHECK-LABEL: func.func @odd_rows(
// CHECK: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 192>, kind = "cpu", lanes = "result", outer = array<i64: 0>, parallel = true, reductions = array<i64: 3>, unroll = [array<i64: 2, 2, 32>, array<i64: 1, 7, 336>], vector = 2 : i64, width = 16 : i64}
// ONE-LABEL: func.func @odd_rows(
// ONE: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 192>, kind = "cpu", lanes = "result", outer = array<i64: 0>, parallel = true, reductions = array<i64: 3>, unroll = [array<i64: 2, 2, 5440>, array<i64: 1, 7, 336>], vector = 2 : i64, width = 16 : i64}
func.func @odd_rows(%x: !ocannl.tensor<f32, "7,7,512">, %w: !ocannl.tensor<f32, "512,64">) -> !ocannl.tensor<f32, "7,7,64"> {
  %y = "ocannl.einsum"(%x, %w) {spec = "o0,o1,c; c,m => o0,o1,m"} : (!ocannl.tensor<f32, "7,7,512">, !ocannl.tensor<f32, "512,64">) -> !ocannl.tensor<f32, "7,7,64">
  return %y : !ocannl.tensor<f32, "7,7,64">
}

// From 2048 to 32 channels on 2²: the input (32 KB) is an eighth of the
// weights, but 32 channels are one block column, too few to split: the
// rows are split, one per thread.
// BLESS CHECK ONE
// CHECK-LABEL: func.func @narrow(
// CHECK: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 192>, kind = "cpu", lanes = "result", outer = array<i64: 0>, outer_tile = 1 : i64, parallel = true, reductions = array<i64: 3>, split_outer = true, unroll = [array<i64: 2, 2, 5440>, array<i64: 1, 2, 340>], vector = 2 : i64, width = 16 : i64}
// ONE-LABEL: func.func @narrow(
// ONE: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 192>, kind = "cpu", lanes = "result", outer = array<i64: 0>, parallel = true, reductions = array<i64: 3>, unroll = [array<i64: 2, 2, 5440>, array<i64: 1, 2, 340>], vector = 2 : i64, width = 16 : i64}
func.func @narrow(%x: !ocannl.tensor<f32, "2,2,2048">, %w: !ocannl.tensor<f32, "2048,32">) -> !ocannl.tensor<f32, "2,2,32"> {
  %y = "ocannl.einsum"(%x, %w) {spec = "o0,o1,c; c,m => o0,o1,m"} : (!ocannl.tensor<f32, "2,2,2048">, !ocannl.tensor<f32, "2048,32">) -> !ocannl.tensor<f32, "2,2,32">
  return %y : !ocannl.tensor<f32, "2,2,32">
}

// A 3x3 convolution from 128 to 128 channels on 28² (input 460 KB,
// weights 590 KB): the rows are split, and each block column's weights
// stay in L1 across the thread's rows (outer_in_block).
// BLESS CHECK ONE
// CHECK-LABEL: func.func @conv3x3(
// CHECK: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 8>, kind = "cpu", lanes = "result", outer = array<i64: 0>, outer_in_block = true, outer_tile = 14 : i64, parallel = true, reductions = array<i64: 3, 5, 4>, split_outer = true, unroll = [array<i64: 2, 4, 14528>, array<i64: 1, 4, 8192>], vector = 2 : i64, width = 16 : i64}
// ONE-LABEL: func.func @conv3x3(
// ONE: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 8>, kind = "cpu", lanes = "result", outer = array<i64: 0>, outer_in_block = true, parallel = true, reductions = array<i64: 3, 5, 4>, unroll = [array<i64: 2, 4, 14528>, array<i64: 1, 4, 8192>], vector = 2 : i64, width = 16 : i64}
func.func @conv3x3(%x: !ocannl.tensor<f32, "30,30,128">, %w: !ocannl.tensor<f32, "3,3,128,128">) -> !ocannl.tensor<f32, "28,28,128"> {
  %y = "ocannl.einsum"(%x, %w) {spec = "o0+k0,o1+k1,c; k0,k1,c,m => o0,o1,m"} : (!ocannl.tensor<f32, "30,30,128">, !ocannl.tensor<f32, "3,3,128,128">) -> !ocannl.tensor<f32, "28,28,128">
  return %y : !ocannl.tensor<f32, "28,28,128">
}

// A 3x3 convolution from 256 to 256 channels on 14² (ResNet-50's third
// stage): weights 2.4 MB, 9x the input, but its 7 x 3 block (48 channels)
// would split the channels 144 + 112, and the 14 rows split evenly: the
// rows are split (split.rs, uneven channels).
// BLESS CHECK ONE
// CHECK-LABEL: func.func @conv3x3_uneven(
// CHECK: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 8>, kind = "cpu", lanes = "result", outer = array<i64: 0>, outer_in_block = true, outer_tile = 7 : i64, parallel = true, reductions = array<i64: 3, 5, 4>, split_outer = true, unroll = [array<i64: 2, 3, 14544>, array<i64: 1, 7, 8190>], vector = 2 : i64, width = 16 : i64}
// ONE-LABEL: func.func @conv3x3_uneven(
// ONE: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 8>, kind = "cpu", lanes = "result", outer = array<i64: 0>, outer_in_block = true, parallel = true, reductions = array<i64: 3, 5, 4>, unroll = [array<i64: 2, 3, 14544>, array<i64: 1, 7, 8190>], vector = 2 : i64, width = 16 : i64}
func.func @conv3x3_uneven(%x: !ocannl.tensor<f32, "16,16,256">, %w: !ocannl.tensor<f32, "3,3,256,256">) -> !ocannl.tensor<f32, "14,14,256"> {
  %y = "ocannl.einsum"(%x, %w) {spec = "o0+k0,o1+k1,c; k0,k1,c,m => o0,o1,m"} : (!ocannl.tensor<f32, "16,16,256">, !ocannl.tensor<f32, "3,3,256,256">) -> !ocannl.tensor<f32, "14,14,256">
  return %y : !ocannl.tensor<f32, "14,14,256">
}

// A 3x3 convolution from 1024 to 1024 channels on 28²: the weights (38
// MB, read in place) are 10x the input and overflow L2, so the rows are
// split, in one tile per thread (14 rows, past L2's tile of 7 at one
// thread), each thread streaming all of the weights once (split.rs,
// Split::Whole).
// BLESS CHECK ONE
// CHECK-LABEL: func.func @conv3x3_heavy(
// CHECK: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 8>, kind = "cpu", lanes = "result", outer = array<i64: 0>, outer_in_block = true, outer_tile = 14 : i64, parallel = true, reductions = array<i64: 3, 5, 4>, split_outer = true, unroll = [array<i64: 2, 4, 14528>, array<i64: 1, 4, 8192>], vector = 2 : i64, width = 16 : i64}
// ONE-LABEL: func.func @conv3x3_heavy(
// ONE: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 8>, kind = "cpu", lanes = "result", outer = array<i64: 0>, outer_in_block = true, outer_tile = 7 : i64, parallel = true, reductions = array<i64: 3, 5, 4>, split_outer = true, unroll = [array<i64: 2, 4, 14528>, array<i64: 1, 4, 8192>], vector = 2 : i64, width = 16 : i64}
func.func @conv3x3_heavy(%x: !ocannl.tensor<f32, "30,30,1024">, %w: !ocannl.tensor<f32, "3,3,1024,1024">) -> !ocannl.tensor<f32, "28,28,1024"> {
  %y = "ocannl.einsum"(%x, %w) {spec = "o0+k0,o1+k1,c; k0,k1,c,m => o0,o1,m"} : (!ocannl.tensor<f32, "30,30,1024">, !ocannl.tensor<f32, "3,3,1024,1024">) -> !ocannl.tensor<f32, "28,28,1024">
  return %y : !ocannl.tensor<f32, "28,28,1024">
}

// VGG-19's 512 -> 512 on 28²: 9.4 MB of weights past L2, though each
// thread's half of the result (0.8 MB) fits half of it: the rows are
// split too (channels split, measured 15% slower at 2 threads).
// BLESS CHECK ONE
// CHECK-LABEL: func.func @conv3x3_vgg(
// CHECK: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 8>, kind = "cpu", lanes = "result", outer = array<i64: 0>, outer_in_block = true, outer_tile = 14 : i64, parallel = true, reductions = array<i64: 3, 5, 4>, split_outer = true, unroll = [array<i64: 2, 4, 14528>, array<i64: 1, 4, 8192>], vector = 2 : i64, width = 16 : i64}
// ONE-LABEL: func.func @conv3x3_vgg(
// ONE: ocannl.einsum{{.*}}ocannl.schedule = {k_tile = array<i64: 3, 8>, kind = "cpu", lanes = "result", outer = array<i64: 0>, outer_in_block = true, outer_tile = 14 : i64, parallel = true, reductions = array<i64: 3, 5, 4>, split_outer = true, unroll = [array<i64: 2, 4, 14528>, array<i64: 1, 4, 8192>], vector = 2 : i64, width = 16 : i64}
func.func @conv3x3_vgg(%x: !ocannl.tensor<f32, "30,30,512">, %w: !ocannl.tensor<f32, "3,3,512,512">) -> !ocannl.tensor<f32, "28,28,512"> {
  %y = "ocannl.einsum"(%x, %w) {spec = "o0+k0,o1+k1,c; k0,k1,c,m => o0,o1,m"} : (!ocannl.tensor<f32, "30,30,512">, !ocannl.tensor<f32, "3,3,512,512">) -> !ocannl.tensor<f32, "28,28,512">
  return %y : !ocannl.tensor<f32, "28,28,512">
}
