// Ported from OCANNL's own tests (github.com/ahrefs/ocannl, commit
// c338ea3fbb8bf9f405291968ef5d50d4de341fd4): leading axes before a row
// variable align from the LEFT against the other side's axes (a disagreement
// fixed in issue 15: the solver used to align them from the right, so this
// case failed). See beg-dims.mlir for how the upstream `Row` constraints are
// translated to ops.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// row_beg_dims_regression.ml, Test 5: rho is bounded by 4|7, then
// rho := 4,..rho'.. (the leading 4 agrees with the bound's): no error
// (expected "PASS"). OCANNL aligns the leading 4 of 4,..rho'.. with the
// leading 4 of the bound 4,7 (outer-left), whatever rho' closes to.
// CHECK-LABEL: func.func @monotonicity_compatible
// CHECK: "ocannl.neg"{{.*}} -> !ocannl.tensor<f32, "4,7">
func.func @monotonicity_compatible(%x: !ocannl.tensor<f32, "..r..">) -> (!ocannl.tensor<f32, "4,7">, !ocannl.tensor<f32, "4,..s..">) {
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "..r..">) -> !ocannl.tensor<f32, "4,7">
  %1 = "ocannl.einsum"(%x) {spec = "... => ..."} : (!ocannl.tensor<f32, "..r..">) -> !ocannl.tensor<f32, "4,..s..">
  return %0, %1 : !ocannl.tensor<f32, "4,7">, !ocannl.tensor<f32, "4,..s..">
}

