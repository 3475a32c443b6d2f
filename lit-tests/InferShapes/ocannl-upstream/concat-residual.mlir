// Ported from OCANNL's test/operations/test_block_tensor.ml
// (github.com/ahrefs/ocannl, commit c338ea3fbb8bf9f405291968ef5d50d4de341fd4),
// Test 5e: a concatenation whose last part is unknown while the total is
// known through broadcasting (issue 15; the solver did
// not subtract the known parts from the total).
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// `concat_resid = (a_e, b_e, { c_e }) ++^ "ii; jj; kk => ii^jj^kk" + fixed7`
// with a_e of output 2, b_e of output 3, c_e a parameter of unknown shape and
// fixed7 of output 7; expected "concat_resid (output axis 7 = 2 + 3 + kk, so
// kk inferred = 2)", `+_concat_resid shape 0:7`.
// CHECK-LABEL: func.func @concat_residual
// CHECK-SAME: %arg2: !ocannl.tensor<f32, "2">
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "7">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "7">
func.func @concat_residual(%a_e: !ocannl.tensor<f32, "2">, %b_e: !ocannl.tensor<f32, "3">, %c_e: !ocannl.tensor<f32, "...|...->...">, %fixed7: !ocannl.tensor<f32, "7">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%a_e, %b_e, %c_e) {spec = "ii; jj; kk => ii^jj^kk"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %1 = "ocannl.add"(%0, %fixed7) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "7">) -> !ocannl.tensor<f32, "...|...->...">
  return %1 : !ocannl.tensor<f32, "...|...->...">
}
