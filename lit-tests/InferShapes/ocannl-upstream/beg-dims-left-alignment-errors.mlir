// Ported from OCANNL's own tests (github.com/ahrefs/ocannl, commit
// c338ea3fbb8bf9f405291968ef5d50d4de341fd4): leading axes before a row
// variable (beg_dims) align from the LEFT (a disagreement fixed in issue 15:
// the solver used to align the whole operand from the right and accept
// these). See
// beg-dims.mlir for how upstream `Row` constraints are translated to ops.
// (only-expected: the notes naming the constraining ops are this project's
// own provenance; only the errors are checked.)
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics=only-expected -p 'builtin.module(ocannl-infer-shapes)'

// test/einsum/test_beg_dims_alignment.ml, test_spec_outer_left_mismatch, and
// test/operations/row_beg_dims_regression.ml, Test 1 (the same constraint):
// res = 5,2|4 (closed), opnd = 2,..rho..,4, res ⊒ opnd. Outer-left, the
// operand's leading 2 faces the result's leading 5; expected "PASS: got
// Shape_error: dimension comparison for axis: mismatch".
func.func @outer_left_mismatch(%x: !ocannl.tensor<f32, "2,..r..,4">) -> !ocannl.tensor<f32, "5,2,4"> {
  // expected-error @+1 {{mismatch}}
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "2,..r..,4">) -> !ocannl.tensor<f32, "5,2,4">
  return %0 : !ocannl.tensor<f32, "5,2,4">
}
