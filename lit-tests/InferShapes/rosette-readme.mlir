// Conformance case from shared/conformance/rosette-readme.mlir. Shape inference
// (ocannl-infer-shapes) lands with issue 3; until then this is an expected
// failure, and lit reports it as an error the moment it starts to pass.
// XFAIL: *
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes)' | FileCheck %s
// T1 = Gemm((3,4), I1, (3,5)); T2 = Add(T1, I2); T3 = Gemm(T2, I3, (3,7)).
// ONNX (M,N) is OCANNL "N->M". Solution: I1 = (4,5), I3 = (5,7), T1 = T2 = (3,5), T3 = (3,7).
// I2 is under-determined; OCANNL closes a terminal to its least upper bound, (3,5).

// CHECK-LABEL: func.func @readme
// CHECK-SAME: %{{.*}}: !ocannl.tensor<f32, "5->4">
// CHECK-SAME: %{{.*}}: !ocannl.tensor<f32, "5->3">
// CHECK-SAME: %{{.*}}: !ocannl.tensor<f32, "7->5">
// CHECK: "ocannl.fma"{{.*}}-> !ocannl.tensor<f32, "5->3">
// CHECK: "ocannl.add"{{.*}}-> !ocannl.tensor<f32, "5->3">
// CHECK: "ocannl.fma"{{.*}}-> !ocannl.tensor<f32, "7->3">
func.func @readme(%a: !ocannl.tensor<f32, "4->3">, %c1: !ocannl.tensor<f32, "5->3">, %c3: !ocannl.tensor<f32, "7->3">,
                  %i1: !ocannl.tensor<f32, "...|...->...">, %i2: !ocannl.tensor<f32, "...|...->...">, %i3: !ocannl.tensor<f32, "...|...->...">)
    -> !ocannl.tensor<f32, "...|...->..."> {
  %t1 = "ocannl.fma"(%a, %i1, %c1) : (!ocannl.tensor<f32, "4->3">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "5->3">) -> !ocannl.tensor<f32, "...|...->...">
  %t2 = "ocannl.add"(%t1, %i2) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %t3 = "ocannl.fma"(%t2, %i3, %c3) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "7->3">) -> !ocannl.tensor<f32, "...|...->...">
  return %t3 : !ocannl.tensor<f32, "...|...->...">
}
