// The GPU target: `ocannl-plan-schedule{target=gpu},ocannl-lower-to-affine` makes every nest a
// grid (an affine.parallel over blocks holding one over threads, one result
// cell per thread, the last axis fastest so a warp's threads touch adjacent
// cells), reductions in a register (iter_args, one store per cell); the
// `ocannl-to-nvvm` pipeline maps the grids to gpu.launch_func with static
// sizes and serialises the kernels (PTX with format=isa: no CUDA needed).
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{target=gpu shared-tiles=false},ocannl-lower-to-affine)' | FileCheck %s --check-prefix=GRID
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{target=gpu},ocannl-lower-to-affine)' | FileCheck %s --check-prefix=TILED
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{target=gpu shared-tiles=emulate},ocannl-lower-to-affine)' | FileCheck %s --check-prefix=EMU
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-nvvm)' | FileCheck %s --check-prefix=NVVM
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-nvvm)' | FileCheck %s --check-prefix=ONEMOD
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-nvvm{chip=sm_90 features=+ptx80 opt-level=2})' | FileCheck %s --check-prefix=SM90
// RUN: not ocannl-opt %s -p 'builtin.module(ocannl-to-nvvm{chips=sm_90})' 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-plan-schedule{target=tpu},ocannl-lower-to-affine)' 2>&1 | FileCheck %s --check-prefix=BADTARGET

// A matmul: 70 x 20 cells on 6 blocks of 256 threads (the last block's
// overhang guarded); the reduction over 300 in a register, one store.
// GRID-LABEL: func.func @matmul(
// GRID-NOT: affine.store
// GRID: affine.parallel (%[[B:.*]]) = (0) to (6) {
// GRID-NEXT: affine.parallel (%[[T:.*]]) = (0) to (256) {
// GRID-NEXT: %[[L:.*]] = affine.apply #{{.*}}(%[[B]], %[[T]])
// GRID-NEXT: affine.if #{{.*}}(%[[L]]) {
// GRID: %[[I:.*]] = affine.apply #{{.*}}(%[[L]])
// GRID-NEXT: %[[J:.*]] = affine.apply #{{.*}}(%[[L]])
// GRID: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// GRID-NEXT: %[[S:.*]] = affine.for %[[K:.*]] = 0 to 300 iter_args(%[[ACC:.*]] = %[[Z]]) -> (f32) {
// GRID: math.fma %{{.*}}, %{{.*}}, %[[ACC]] : f32
// GRID-NEXT: affine.yield
// GRID-NEXT: }
// GRID-NEXT: affine.store %[[S]], %arg2[%[[I]], %[[J]]] : memref<70x20xf32>
// With shared tiles (the default), the matrix product is a tiled kernel
// instead: 16 x 16 threads per block, each block a 64 x 64 tile of C and
// each thread 4 x 4 cells of it (16 accumulators); per step of 16 along
// k, a 64 x 16 tile of A (x, read along its contiguous k by threadIdx.x),
// stored transposed and padded to 16 x 68, and a 16 x 64 tile of B
// (OCANNL's w, [20, 300]: also read along k) in workgroup memory,
// barriers around the products; each step of the products reads a
// thread's 4 rows of A and 4 columns of B with one 128-bit load each.
// TILED-LABEL: func.func @matmul(
// TILED-NEXT: call @[[K:__ocannl_tiled[_0-9]*]](%arg1, %arg0, %arg2)
// TILED-LABEL: func.func private @__ocannl_tiled(
// TILED: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}} = %c2, {{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c16, {{.*}} = %c16, {{.*}} = %c1{{.*}}) workgroup(%[[AS:.*]] : memref<16x68xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// TILED: scf.for {{.*}} = %c0 to %c300 step %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// TILED: memref.load %arg0
// TILED: memref.store %{{.*}}, %[[AS]][%{{.*}}, %{{.*}}]
// TILED: memref.load %arg1
// TILED: memref.store %{{.*}}, %[[BS]][%{{.*}}, %{{.*}}]
// TILED: gpu.barrier
// TILED-NEXT: scf.for {{.*}} iter_args(%[[S:[^ ]*]] = {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// TILED-NEXT: vector.load %[[AS]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<16x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// TILED-NEXT: vector.load %[[BS]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<16x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// TILED-NOT: memref.load
// TILED: math.fma %{{.*}}, %{{.*}}, %[[S]] : f32
// TILED-COUNT-15: math.fma
// TILED: gpu.barrier
// TILED-COUNT-16: memref.store %{{.*}}, %arg2
// TILED: gpu.terminator
// Every kernel of the module in one gpu.module, hence one gpu.binary (one
// PTX module: ocannl-merge-gpu-modules, named after the first), each
// kernel named after its outlined module (unique); max.NaN for relu's
// NaN-propagating maximum; no libdevice call.
// ONEMOD: gpu.binary @__ocannl_tiled_kernel
// ONEMOD-SAME: .visible .entry bias_relu_kernel(
// ONEMOD-SAME: max.NaN.f32
// ONEMOD-SAME: .visible .entry row_max_kernel(
// ONEMOD-NOT: __nv_
// ONEMOD-NOT: gpu.binary

// NVVM-LABEL: func.func @matmul(
// NVVM: call @__ocannl_tiled
// NVVM-LABEL: func.func private @__ocannl_tiled(
// NVVM: gpu.launch_func @__ocannl_tiled_kernel::@__ocannl_tiled_kernel blocks in (%c1, %c2, %c1) threads in (%c16, %c16, %c1) args(%arg0 : memref<70x300xf32>, %arg1 : memref<20x300xf32>, %arg2 : memref<70x20xf32>)
// Its kernel as PTX: two shared tiles aligned to 16 bytes
// (ocannl-align-workgroup), barriers, 128-bit loads from them, the
// products as FMAs.
// NVVM: gpu.binary @__ocannl_tiled_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
// NVVM-SAME: .target sm_80
// NVVM-SAME: .visible .entry __ocannl_tiled_kernel(
// NVVM-SAME: .shared .align 16 .b8 __wg___ocannl_tiled_kernel_0[4352]
// NVVM-SAME: bar.sync
// NVVM-SAME: ld.shared.v4.b32
// NVVM-SAME: fma.rn.f32
// NVVM-SAME: bar.sync
// NVVM-SAME: st.global.b32
// The same kernel's steps as CPU loops (`ocannl-run --target grid-on-cpu`
// runs them: the differential tests check its indices and guards): the
// threads of a block looped between the barriers' places, tiles and
// accumulators in block-sized buffers.
// EMU-LABEL: func.func private @__ocannl_tiled(
// EMU-NOT: gpu.
// EMU: memref.alloca() {alignment = 16 : i64} : memref<16x68xf32>
// EMU: scf.for %{{.*}} = %c0{{.*}} to %c300 step %c16{{.*}} {
// EMU-NOT: gpu.
// EMU: return
// SM90-LABEL: func.func @matmul(
// SM90: gpu.binary @__ocannl_tiled_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, properties = {{.*}} O = 2 : i32}
// SM90-SAME: .target sm_90
func.func @matmul(%w: !ocannl.tensor<f32, "300->20">, %x: !ocannl.tensor<f32, "70|300">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "300->20">, !ocannl.tensor<f32, "70|300">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// A broadcast add with its relu fused: one kernel, no intermediate.
// GRID-LABEL: func.func @bias_relu(
// GRID-SAME: ocannl.intermediate_bytes = 0
// GRID: affine.parallel
// GRID: %[[X:.*]] = affine.load %arg0
// GRID-NEXT: %[[B:.*]] = affine.load %arg1
// GRID-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[B]] : f32
// GRID: %[[R:.*]] = arith.maximumf %[[S]]
// GRID-NEXT: affine.store %[[R]], %arg2
// GRID-NOT: affine.parallel
// GRID: return
// NVVM-LABEL: func.func @bias_relu(
// NVVM: gpu.launch_func @__ocannl_tiled_kernel::@bias_relu_kernel blocks in (%c8, %c1, %c1) threads in (%c256, %c1, %c1)
// NVVM-NOT: gpu.launch_func
// NVVM: return
func.func @bias_relu(%x: !ocannl.tensor<f32, "50,40">, %b: !ocannl.tensor<f32, "40">) -> !ocannl.tensor<f32, "...|...->..."> {
  %s = "ocannl.add"(%x, %b) : (!ocannl.tensor<f32, "50,40">, !ocannl.tensor<f32, "40">) -> !ocannl.tensor<f32, "...|...->...">
  %r = "ocannl.relu"(%s) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %r : !ocannl.tensor<f32, "...|...->...">
}

// A padded convolution: three reductions carry the accumulator; reads
// outside the input are guarded (the padding reads 0).
// GRID-LABEL: func.func @conv(
// GRID: affine.for {{.*}} = 0 to 3 iter_args
// GRID-NEXT: affine.for {{.*}} = 0 to 3 iter_args
// GRID-NEXT: affine.for {{.*}} = 0 to 3 iter_args
// GRID: affine.if {{.*}} -> f32 {
// GRID: math.fma
// With shared tiles it is an implicit GEMM: rows (oh, ow) = 64, columns
// co = 4, reduction (kh, kw, ci) = 27, the input read through the padded
// window with its bounds checked.
// TILED-LABEL: func.func @conv(
// TILED-NEXT: call @__ocannl_tiled_{{[0-9]+}}(%arg0, %arg1, %arg2)
// TILED-LABEL: func.func private @__ocannl_tiled_{{[0-9]+}}(
// TILED: gpu.launch
// TILED: scf.for {{.*}} to %c27
// TILED: arith.cmpi sge
// TILED: arith.cmpi slt
// TILED: memref.load %arg0
// NVVM-LABEL: func.func @conv(
// NVVM: call @__ocannl_tiled_{{[0-9]+}}(%arg0, %arg1, %arg2)
// NVVM: gpu.launch_func @__ocannl_tiled_kernel::@__ocannl_tiled_{{[0-9]+}}_kernel blocks in (%c1, %c1, %c1) threads in (%c16, %c16, %c1)
func.func @conv(%x: !ocannl.tensor<f32, "8,8,3">, %k: !ocannl.tensor<f32, "3,3,3->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %y = "ocannl.einsum"(%x, %k) {spec = "oh=+kh,ow=+kw,ci; kh,kw,ci->co => oh,ow,co"} : (!ocannl.tensor<f32, "8,8,3">, !ocannl.tensor<f32, "3,3,3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %y : !ocannl.tensor<f32, "...|...->...">
}

// A row max, then exp fused after the reduction (its f32 polynomial: no
// libdevice call). 33 rows: one block of 64 threads.
// GRID-LABEL: func.func @row_max(
// GRID: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// GRID-NEXT: affine.for {{.*}} = 0 to 64 iter_args(%[[M:.*]] = %[[NEG]]) -> (f32) {
// GRID: arith.maximumf %[[M]]
// GRID: math.exp
// NVVM-LABEL: func.func @row_max(
// NVVM: threads in (%c64, %c1, %c1)
func.func @row_max(%x: !ocannl.tensor<f32, "33,64">) -> !ocannl.tensor<f32, "...|...->..."> {
  %m = "ocannl.einsum"(%x) {spec = "r,c => r", accum = "max"} : (!ocannl.tensor<f32, "33,64">) -> !ocannl.tensor<f32, "...|...->...">
  %e = "ocannl.exp"(%m) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %e : !ocannl.tensor<f32, "...|...->...">
}

// A concatenation: one kernel per block, each writing its part.
// NVVM-LABEL: func.func @concat(
// NVVM: gpu.launch_func @__ocannl_tiled_kernel::@concat_kernel blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%arg0 : memref<2x5xf32>, %arg2 : memref<5x5xf32>)
// NVVM-NEXT: gpu.launch_func @__ocannl_tiled_kernel::@concat_kernel_0 blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%arg1 : memref<3x5xf32>, %arg2 : memref<5x5xf32>)
func.func @concat(%a: !ocannl.tensor<f32, "2,5">, %b: !ocannl.tensor<f32, "3,5">) -> !ocannl.tensor<f32, "...|...->..."> {
  %c = "ocannl.concat"(%a, %b) {spec = "a,c; b,c => a^b,c"} : (!ocannl.tensor<f32, "2,5">, !ocannl.tensor<f32, "3,5">) -> !ocannl.tensor<f32, "...|...->...">
  return %c : !ocannl.tensor<f32, "...|...->...">
}

// A batched product: the batch on the grid's z.
// NVVM-LABEL: func.func private @__ocannl_tiled_{{[0-9]+}}(
// NVVM: gpu.launch_func @__ocannl_tiled_kernel::@__ocannl_tiled_{{[0-9]+}}_kernel blocks in (%c1, %c1, %c3) threads in (%c16, %c16, %c1) args(%arg0 : memref<3x30x20xf32>, %arg1 : memref<3x20x40xf32>, %arg2 : memref<3x30x40xf32>)
func.func @batched(%a: !ocannl.tensor<f32, "3|20->30">, %b: !ocannl.tensor<f32, "3|40->20">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.matmul"(%a, %b) : (!ocannl.tensor<f32, "3|20->30">, !ocannl.tensor<f32, "3|40->20">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Terminals: dense data is a host constant copied into the device buffer
// (the runner uploads it), a range is a kernel.
// NVVM-LABEL: func.func @terminals(
// NVVM: %[[G:.*]] = memref.get_global @__ocannl_constant : memref<2x3xf32>
// NVVM-NEXT: memref.copy %[[G]], %[[V:.*]] : memref<2x3xf32> to memref<2x3xf32>
// NVVM: gpu.launch_func @__ocannl_tiled_kernel::@terminals_kernel blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%[[R:.*]] : memref<3xf32>)
// NVVM-NEXT: gpu.launch_func @__ocannl_tiled_kernel::@terminals_kernel_{{[0-9]+}} blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%arg0 : memref<2x3xf32>, %[[V]] : memref<2x3xf32>, %[[R]] : memref<3xf32>, %arg1 : memref<2x3xf32>)
func.func @terminals(%x: !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %c = "ocannl.constant"() {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>} : () -> !ocannl.tensor<f32, "2,3">
  %r = "ocannl.range"() {spec = "3"} : () -> !ocannl.tensor<f32, "...|...->...">
  %s = "ocannl.add"(%x, %c) : (!ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...|...->...">
  %t = "ocannl.add"(%s, %r) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %t : !ocannl.tensor<f32, "...|...->...">
}

// A strided max-pool: the window constant filled by a kernel, then the
// pool with its max in a register.
// GRID-LABEL: func.func @pool(
// GRID: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// GRID: affine.for {{.*}} iter_args(%{{.*}} = %[[NEG]])
// GRID: arith.maximumf
// NVVM-LABEL: func.func @pool(
// NVVM: gpu.launch_func @__ocannl_tiled_kernel::@pool_kernel blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
// NVVM-NEXT: gpu.launch_func @__ocannl_tiled_kernel::@pool_kernel_{{[0-9]+}} blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%arg0 : memref<8x8x4xf32>, %{{.*}} : memref<2x2xf32>, %arg1 : memref<4x4x4xf32>)
func.func @pool(%x: !ocannl.tensor<f32, "8,8,4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %w = "ocannl.constant"() {value = 0.0 : f32} : () -> !ocannl.tensor<f32, "2,2">
  %y = "ocannl.einsum"(%x, %w) {spec = "2*ph<+wh,2*pw<+ww,c; wh,ww => ph,pw,c", accum = "max", combine = "add"} : (!ocannl.tensor<f32, "8,8,4">, !ocannl.tensor<f32, "2,2">) -> !ocannl.tensor<f32, "...|...->...">
  return %y : !ocannl.tensor<f32, "...|...->...">
}

// A reshape (a copy kernel) and a transpose.
// NVVM-LABEL: func.func @reshape(
// NVVM: gpu.launch_func @__ocannl_tiled_kernel::@reshape_kernel blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%arg0 : memref<4x6xf32>, %[[Y:.*]] : memref<3x8xf32>)
// NVVM-NEXT: gpu.launch_func @__ocannl_tiled_kernel::@reshape_kernel_{{[0-9]+}} blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%[[Y]] : memref<3x8xf32>, %arg1 : memref<3x8xf32>)
func.func @reshape(%x: !ocannl.tensor<f32, "4,6">) -> !ocannl.tensor<f32, "...|...->..."> {
  %y = "ocannl.reshape"(%x) : (!ocannl.tensor<f32, "4,6">) -> !ocannl.tensor<f32, "3,8">
  %t = "ocannl.transpose"(%y) : (!ocannl.tensor<f32, "3,8">) -> !ocannl.tensor<f32, "...|...->...">
  return %t : !ocannl.tensor<f32, "...|...->...">
}

// BADOPT: unknown option 'chips' (options: chip, features, format, opt-level, toolkit)
// BADTARGET: option 'target' must be 'cpu' or 'gpu' (got 'tpu')
