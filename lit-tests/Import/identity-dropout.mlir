// Identity and inference-mode Dropout import as their input's value
// (onnx/src/translate/elementwise.rs; Inputs/identity-dropout.onnx, made by
// Inputs/make_inputs.py): 'relu' -> 'drop' -> 'ident' -> 'neg', and the
// graph output 'out', an Identity of 'neg''s result, which keeps its copy
// (the function returns a buffer of its own). 'drop''s declared shape is
// checked on the relu that computes it. Its mask is named but no node reads
// it: the importer writes it, ocannl-erase-dead-ops erases it
// (Schedule/dead-ops.mlir).
// RUN: ocannl-import-onnx %S/Inputs/identity-dropout.onnx | FileCheck %s
// RUN: ocannl-import-onnx %S/Inputs/identity-dropout.onnx | ocannl-opt -p 'builtin.module(ocannl-infer-shapes,ocannl-infer-projections,ocannl-erase-dead-ops,ocannl-plan-schedule)' | FileCheck %s --check-prefix=PLANNED
// RUN: ocannl-import-onnx %S/Inputs/identity-dropout.onnx -o %t.mlir && ocannl-run %t.mlir --inputs %S/Inputs/identity-dropout-x.npy | FileCheck %s --check-prefix=VALUES

// CHECK: %[[R:.*]] = "ocannl.relu"(%arg0) {ocannl.declared_shape = "2,3"} {{.*}} 'relu' (Relu)
// CHECK: "ocannl.cast"{{.*}} -> !ocannl.tensor<i1, {{.*}} 'drop' (Dropout)
// CHECK-NEXT: %[[N:.*]] = "ocannl.neg"(%[[R]]) {{.*}} 'neg' (Neg)
// CHECK-NEXT: %[[O:.*]] = "ocannl.einsum"(%[[N]]) {spec = "..r.. => ..r..{{,?}}", ocannl.declared_shape = "2,3"} {{.*}} 'out' (Identity)
// CHECK-NEXT: return %[[O]]

// PLANNED-NOT: ocannl.cast
// PLANNED-NOT: combine = "where"
// PLANNED: "ocannl.relu"
// PLANNED-NEXT: "ocannl.neg"
// PLANNED-NEXT: "ocannl.einsum"
// PLANNED-NEXT: return

// x = [[1, -2, 3], [-4, 5, -6]]: -relu(x) = [[-1, -0, -3], [-0, -5, -0]].
// VALUES: result #0: float32[2, 3]
// VALUES-NEXT: min -5.000000 max -0.000000 mean -1.500000 cells [-1.000000, -0.000000, -3.000000, -0.000000, -5.000000, -0.000000]
