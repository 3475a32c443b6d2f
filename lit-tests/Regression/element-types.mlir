// Every element type the lowering accepts reaches the LLVM dialect (f16,
// bf16, f32, f64, i1, i8, i16, i32, i64); the others are errors
// (Lowering/errors.mlir), never an abort in LLVM's instruction selection.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-llvm)' | mlir-translate --mlir-to-llvmir | FileCheck %s

// CHECK-LABEL: define void @halves(
// CHECK: half
// CHECK: bfloat
func.func @halves(%a: !ocannl.tensor<f16, "4">, %b: !ocannl.tensor<bf16, "4">) -> (!ocannl.tensor<f16, "4">, !ocannl.tensor<bf16, "4">) {
  %0 = "ocannl.exp"(%a) : (!ocannl.tensor<f16, "4">) -> !ocannl.tensor<f16, "4">
  %1 = "ocannl.tanh"(%b) : (!ocannl.tensor<bf16, "4">) -> !ocannl.tensor<bf16, "4">
  return %0, %1 : !ocannl.tensor<f16, "4">, !ocannl.tensor<bf16, "4">
}

// CHECK-LABEL: define void @small_ints(
// CHECK: i8
// CHECK: i16
// CHECK: i1
func.func @small_ints(%a: !ocannl.tensor<i8, "4">, %b: !ocannl.tensor<i16, "4">, %c: !ocannl.tensor<i1, "4">) -> (!ocannl.tensor<i8, "4">, !ocannl.tensor<i16, "4">, !ocannl.tensor<i1, "4">) {
  %0 = "ocannl.div"(%a, %a) : (!ocannl.tensor<i8, "4">, !ocannl.tensor<i8, "4">) -> !ocannl.tensor<i8, "4">
  %1 = "ocannl.pow"(%b, %b) : (!ocannl.tensor<i16, "4">, !ocannl.tensor<i16, "4">) -> !ocannl.tensor<i16, "4">
  %2 = "ocannl.max"(%c, %c) : (!ocannl.tensor<i1, "4">, !ocannl.tensor<i1, "4">) -> !ocannl.tensor<i1, "4">
  return %0, %1, %2 : !ocannl.tensor<i8, "4">, !ocannl.tensor<i16, "4">, !ocannl.tensor<i1, "4">
}
