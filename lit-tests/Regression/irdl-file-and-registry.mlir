// The ocannl dialect defined twice: by the tool's registry (ocannl-opt, or
// the mlir-opt plugin) and by an IRDL file naming the same dialect. The
// IRDL file's definition is used; defining the ops a second time crashed
// MLIR (RegisteredOperationName::insert on a name already taken).
// RUN: ocannl-opt --irdl-file=%irdl %s -p 'builtin.module(ocannl-to-affine)' | FileCheck %s

// CHECK-LABEL: func.func @double
// CHECK: affine.for
func.func @double(%a: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.add"(%a, %a) : (!ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}
