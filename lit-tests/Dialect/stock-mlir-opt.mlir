// Stock mlir-opt, with nothing of ours but the checked-in IRDL file, parses
// every lit input that uses only the dialect (and prints what ocannl-opt
// prints).
// RUN: mlir-opt --irdl-file=%irdl %S/ops.mlir -o /dev/null
// RUN: mlir-opt --irdl-file=%irdl %S/../Verify/errors.mlir -split-input-file -o /dev/null
// RUN: mlir-opt --irdl-file=%irdl %S/../Verify/mlir-broadcastable.mlir -split-input-file -o /dev/null
// RUN: mlir-opt --irdl-file=%irdl %S/../InferShapes/ocannl-einsum.mlir -o /dev/null
// RUN: mlir-opt --irdl-file=%irdl %S/../InferShapes/ocannl-infer-from-usage.mlir -o /dev/null
// RUN: mlir-opt --irdl-file=%irdl %S/../InferShapes/rosette-readme.mlir -o /dev/null
// RUN: mlir-opt --irdl-file=%irdl %s | FileCheck %s
// RUN: ocannl-opt %s | FileCheck %s

// CHECK-LABEL: func.func @mixed
// CHECK: "ocannl.matmul"(%{{.*}}, %{{.*}}) : (!ocannl.tensor<f32, "784->h">, tensor<?x784xf32>) -> !ocannl.tensor<f32, "b|h">
func.func @mixed(%w: !ocannl.tensor<f32, "784->h">, %x: tensor<?x784xf32>) -> !ocannl.tensor<f32, "b|h"> {
  %0 = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "784->h">, tensor<?x784xf32>) -> !ocannl.tensor<f32, "b|h">
  return %0 : !ocannl.tensor<f32, "b|h">
}

// IRDL binds a variadic group to its first operand's type: stock mlir-opt
// rejects three operands of different types, which ocannl-opt accepts
// (variadic.mlir).
// RUN: not mlir-opt --irdl-file=%irdl %S/variadic.mlir 2>&1 | FileCheck %s --check-prefix=STOCK
// STOCK: error: expected '!ocannl.tensor<f32, "2|4->5">' but got '!ocannl.tensor<f32, "8,4|3->2">'
