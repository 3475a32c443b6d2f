// Conformance case from shared/conformance/ocannl-infer-from-usage.mlir. Shape inference
// (ocannl-infer-shapes) lands with issue 3; until then this is an expected
// failure, and lit reports it as an error the moment it starts to pass.
// XFAIL: *
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes)' | FileCheck %s
// OCANNL: (param "hey" * range 20) + range 20  gives hey the shape 20->20.

// CHECK-LABEL: func.func @hey
// CHECK-SAME: !ocannl.tensor<f32, "20->20">
func.func @hey(%hey: !ocannl.tensor<f32, "...|...->...">, %x: !ocannl.tensor<f32, "20">, %y: !ocannl.tensor<f32, "20">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.matmul"(%hey, %x) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "20">) -> !ocannl.tensor<f32, "...|...->...">
  %1 = "ocannl.add"(%0, %y) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "20">) -> !ocannl.tensor<f32, "...|...->...">
  return %1 : !ocannl.tensor<f32, "...|...->...">
}
