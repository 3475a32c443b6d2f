// GlobalAveragePool imports as a sum over the spatial axes divided by the
// count of cells summed, the count taken over one channel's spatial axes
// (ones where x[0, 0, ...] is, summed to a scalar: H·W cells of work, not
// N·C·H·W; onnx/src/translate/conv/pool.rs). Inputs/global-average-pool.onnx
// and its input, 0..119 as (2, 3, 4, 5), are made by Inputs/make_inputs.py.
// RUN: ocannl-import-onnx %S/Inputs/global-average-pool.onnx | FileCheck %s
// RUN: ocannl-import-onnx %S/Inputs/global-average-pool.onnx -o %t.mlir && ocannl-run %t.mlir --inputs %S/Inputs/global-average-pool-x.npy | FileCheck %s --check-prefix=VALUES
// RUN: ocannl-import-onnx %S/Inputs/global-average-pool.onnx -o %t.mlir && ocannl-run %t.mlir --inputs %S/Inputs/global-average-pool-x.npy --threads 2 | FileCheck %s --check-prefix=VALUES

// CHECK: %[[S:.*]] = "ocannl.einsum"(%arg0) {spec = "n,c,h0,h1 => n,c,0,0"}
// CHECK: %[[ONES:.*]] = "ocannl.einsum"(%arg0, %[[ONE:.*]], %[[ONE]]) {spec = "0,0,h0,h1; ; => h0,h1", combine = "where"}
// CHECK-NEXT: %[[N:.*]] = "ocannl.einsum"(%[[ONES]]) {spec = "h0,h1 => "} : (!ocannl.tensor<f32, "{{.*}}">) -> !ocannl.tensor<f32, "">
// CHECK-NEXT: "ocannl.div"(%[[S]], %[[N]])

// Each (n, c)'s 20 cells from 20·(3n + c): their mean 20·(3n + c) + 9.5.
// VALUES: result #0: float32[2, 3, 1, 1]
// VALUES-NEXT: min 9.500000 max 109.500000 mean 59.500000 cells [9.500000, 29.500000, 49.500000, 69.500000, 89.500000, 109.500000]
