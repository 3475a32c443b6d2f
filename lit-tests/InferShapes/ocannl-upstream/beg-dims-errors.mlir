// Ported from OCANNL's own tests (github.com/ahrefs/ocannl, commit
// c338ea3fbb8bf9f405291968ef5d50d4de341fd4): unsatisfiable rows with leading
// axes or a row variable on both sides. See beg-dims.mlir for how upstream
// `Row` constraints are translated to ops.
// (only-expected: the notes naming the constraining ops are this project's
// own provenance; only the errors are checked.)
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics=only-expected -p 'builtin.module(ocannl-infer-shapes)'

// test/operations/row_beg_dims_regression.ml, Test 5b: rho is bounded by 4|7,
// then rho := 5,..rho'..; expected "PASS: banked fact rejected the conflict
// at substitution time" (a Shape_error). Unsatisfiable whichever way the
// leading 5 is aligned. (The error is expected at the bound's op, where this
// project reports it; OCANNL reports it when the substitution is solved.)
func.func @monotonicity_conflict(%x: !ocannl.tensor<f32, "..r..">) -> (!ocannl.tensor<f32, "4,7">, !ocannl.tensor<f32, "5,..s..">) {
  // expected-error @+1 {{mismatch}}
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "..r..">) -> !ocannl.tensor<f32, "4,7">
  %1 = "ocannl.einsum"(%x) {spec = "... => ..."} : (!ocannl.tensor<f32, "..r..">) -> !ocannl.tensor<f32, "5,..s..">
  return %0, %1 : !ocannl.tensor<f32, "4,7">, !ocannl.tensor<f32, "5,..s..">
}

// -----

// test/einsum/test_row_self_reference.ml, "eq, shifted flanks, conflicting
// dims (unsatisfiable)": [3].<v> = <v>.[5]; expected "Shape_error: solved
// dimensions for axis: mismatch".
func.func @eq_shifted_conflicting(%x: !ocannl.tensor<f32, "3,..v..">) -> !ocannl.tensor<f32, "..v..,5"> {
  // expected-error @+1 {{mismatch}}
  %0 = "ocannl.einsum"(%x) {spec = "... => ..."} : (!ocannl.tensor<f32, "3,..v..">) -> !ocannl.tensor<f32, "..v..,5">
  return %0 : !ocannl.tensor<f32, "..v..,5">
}

// -----

// test_row_self_reference.ml, "eq, aligned flanks, conflicting dims":
// <v>.[3] = <v>.[5]; expected "Shape_error: solved dimensions for axis: mismatch".
func.func @eq_aligned_conflicting(%x: !ocannl.tensor<f32, "..v..,3">) -> !ocannl.tensor<f32, "..v..,5"> {
  // expected-error @+1 {{mismatch}}
  %0 = "ocannl.einsum"(%x) {spec = "... => ..."} : (!ocannl.tensor<f32, "..v..,3">) -> !ocannl.tensor<f32, "..v..,5">
  return %0 : !ocannl.tensor<f32, "..v..,5">
}

// -----

// test_row_self_reference.ml, "ineq, closed-closed shifted, conflicting dims
// (unsatisfiable)": [3] ⊒ [5]; expected "Shape_error: dimension comparison for
// axis: mismatch".
func.func @ineq_closed_closed_conflicting(%x: !ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{mismatch}}
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// -----

// test_row_self_reference.ml, "ineq, same-var shifted, conflicting dims
// (unsatisfiable)": [3].<v> ⊒ <v>.[5]; expected "Shape_error: dimension
// comparison for axis: mismatch".
func.func @ineq_same_var_shifted_conflicting(%x: !ocannl.tensor<f32, "..v..,5">) -> !ocannl.tensor<f32, "3,..v.."> {
  // expected-error @+1 {{mismatch}}
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "..v..,5">) -> !ocannl.tensor<f32, "3,..v..">
  return %0 : !ocannl.tensor<f32, "3,..v..">
}
