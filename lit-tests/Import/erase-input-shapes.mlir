// The Rosette README's problem as an ONNX graph (Inputs/rosette.onnx, made
// by Inputs/make_inputs.py): T1 = Gemm(A, I1, C1); T2 = Add(T1, I2);
// T3 = Gemm(T2, I3, C3), with the shapes of I1, I2 and I3 erased on import.
// Inference gets them back from their uses: I1 = (4, 5), I3 = (5, 7); I2
// is under-determined and closes to its least upper bound, (3, 5).
// RUN: ocannl-import-onnx %S/Inputs/rosette.onnx --erase-shapes --erase-input-shapes I1,I2,I3 | FileCheck %s --check-prefix=IMPORT
// RUN: ocannl-import-onnx %S/Inputs/rosette.onnx --erase-shapes --erase-input-shapes I1,I2,I3 \
// RUN:   | ocannl-opt -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// IMPORT: func.func @main(%arg0: !ocannl.tensor<f32, "3,4">, %arg1: !ocannl.tensor<f32, "3,5">, %arg2: !ocannl.tensor<f32, "3,7">, %arg3: !ocannl.tensor<f32, "...">, %arg4: !ocannl.tensor<f32, "...">, %arg5: !ocannl.tensor<f32, "...">) -> (!ocannl.tensor<f32, "..v{{[0-9]+}}..,">)
// IMPORT: "ocannl.einsum"(%arg0, %arg3) {spec = "m,k; k,n => m,n"}
// IMPORT: "ocannl.add"
// IMPORT: "ocannl.add"

// CHECK: func.func @main(%arg0: !ocannl.tensor<f32, "3,4">, %arg1: !ocannl.tensor<f32, "3,5">, %arg2: !ocannl.tensor<f32, "3,7">, %arg3: !ocannl.tensor<f32, "4,5">, %arg4: !ocannl.tensor<f32, "3,5">, %arg5: !ocannl.tensor<f32, "5,7">) -> !ocannl.tensor<f32, "3,7">

// An erased name that is not a graph input.
// RUN: not ocannl-import-onnx %S/Inputs/rosette.onnx --erase-input-shapes T1 2>&1 | FileCheck %s --check-prefix=NOT-INPUT
// NOT-INPUT: rosette.onnx: error: --erase-input-shapes: 'T1' is not a graph input
