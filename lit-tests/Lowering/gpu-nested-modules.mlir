// The GPU target lowers the functions of the module it runs on: upstream's
// `gpu-map-parallel-loops` and `gpu-kernel-outlining` see only those, so a
// function in a nested module is an error (its grids were once left as host
// loops, exit 0), and running the pipeline on the nested module lowers it,
// with its kernels and the gpu.container_module attribute in that module.
// RUN: ocannl-opt %s -verify-diagnostics -p 'builtin.module(ocannl-to-nvvm)'
// RUN: ocannl-opt %s -verify-diagnostics -p 'builtin.module(ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{target=gpu},ocannl-lower-to-affine)'
// RUN: ocannl-opt %s -p 'builtin.module(builtin.module(ocannl-to-nvvm))' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule,ocannl-lower-to-affine)' | FileCheck %s --check-prefix=CPU

// CHECK-LABEL: func.func @top
// CHECK: ocannl.neg
// CHECK: module @m attributes {gpu.container_module}
// CHECK: func.func @inner
// CHECK: gpu.launch_func
// CHECK-NOT: ocannl.
// CHECK: gpu.binary @inner_kernel

// The CPU target lowers nested functions where they are.
// CPU-LABEL: func.func @top
// CPU: module @m
// CPU: func.func @inner(%{{.*}}: memref<4x3xf32>, %{{.*}}: memref<3x4xf32>, %{{.*}}: memref<3x3xf32>)
// CPU: affine.for

func.func @top(%a: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

module @m {
  // A matrix product: a tiled kernel, the rest grids.
  // expected-error @+1 {{function in a nested module: with target=gpu, ocannl-lower-to-affine (and ocannl-to-nvvm) lower the functions of the module they run on, whose kernels the upstream GPU passes outline there; run the pipeline on the nested module (e.g. -p 'builtin.module(builtin.module(ocannl-to-nvvm))')}}
  func.func @inner(%x: !ocannl.tensor<f32, "3->4">, %w: !ocannl.tensor<f32, "4->3">) -> !ocannl.tensor<f32, "...->..."> {
    %0 = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "4->3">, !ocannl.tensor<f32, "3->4">) -> !ocannl.tensor<f32, "...->...">
    %1 = "ocannl.relu"(%0) : (!ocannl.tensor<f32, "...->...">) -> !ocannl.tensor<f32, "...->...">
    return %1 : !ocannl.tensor<f32, "...->...">
  }
}
