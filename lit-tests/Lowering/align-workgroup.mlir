// ocannl-align-workgroup: each workgroup buffer of a kernel gets
// `llvm.align = 16` (the tiled kernels' 128-bit loads from shared memory);
// one that has an alignment keeps it; convert-gpu-to-nvvm then gives the
// shared global that alignment.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-align-workgroup)' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-align-workgroup,gpu.module(convert-gpu-to-nvvm))' | FileCheck %s --check-prefix=NVVM

// CHECK-LABEL: gpu.func @k(
// CHECK-SAME: workgroup(%{{.*}} : memref<16xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<8xf64, #gpu.address_space<workgroup>> {llvm.align = 32 : i64})
// NVVM: llvm.mlir.global internal @__wg_k_0() {addr_space = 3 : i32, alignment = 16 : i64}
// NVVM: llvm.mlir.global internal @__wg_k_1() {addr_space = 3 : i32, alignment = 32 : i64}
gpu.module @m {
  gpu.func @k(%o: memref<4xf32>) workgroup(%a : memref<16xf32, #gpu.address_space<workgroup>>, %b : memref<8xf64, #gpu.address_space<workgroup>> {llvm.align = 32 : i64}) kernel {
    %c0 = arith.constant 0 : index
    %v = vector.load %a[%c0] {alignment = 16} : memref<16xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    vector.store %v, %o[%c0] : memref<4xf32>, vector<4xf32>
    gpu.return
  }
}
