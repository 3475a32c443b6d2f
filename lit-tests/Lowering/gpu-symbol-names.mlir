// With target=gpu, kernels are named after their function
// (`gpu-kernel-outlining`: `<function>_kernel`), and LLVM's NVPTX printer
// aborts the process on a symbol that is no PTX identifier: such a function
// name is a located error, exit 1 (found by ocannl-fuzz, class symbol-name).
// RUN: not ocannl-opt %s -p 'builtin.module(ocannl-to-nvvm)' 2>&1 | FileCheck %s
// RUN: ocannl-opt %s -verify-diagnostics -p 'builtin.module(ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{target=gpu},ocannl-lower-to-affine)'
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule,ocannl-lower-to-affine)' | FileCheck %s --check-prefix=CPU

// CHECK: gpu-symbol-names.mlir:{{[0-9]+}}:1: error: function name 'a-b' is not a PTX identifier
// CHECK: gpu-symbol-names.mlir:{{[0-9]+}}:1: error: function name '9lives' is not a PTX identifier

// The CPU target takes any name.
// CPU: func.func @"a-b"
// expected-error @+1 {{function name 'a-b' is not a PTX identifier}}
func.func @"a-b"(%a: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  %0 = "ocannl.relu"(%a) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// expected-error @+1 {{function name '9lives' is not a PTX identifier}}
func.func @"9lives"(%a: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// A valid name with '$' and '_' lowers (no diagnostic: -verify-diagnostics).
func.func @ok_$1(%a: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}
