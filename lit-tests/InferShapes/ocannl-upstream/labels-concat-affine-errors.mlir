// Ported from OCANNL's test/einsum/test_dimension_labels.ml
// (github.com/ahrefs/ocannl, commit c338ea3fbb8bf9f405291968ef5d50d4de341fd4),
// Tests 10 and 13: conflicting labels (bases) among the parts of a
// concatenated axis and between a convolution's stride and kernel. a disagreement
// found while porting, now fixed: the solver used to ignore labels there
// (see labels-concat-affine.mlir) and accept both.
// (only-expected: the notes naming the constraining ops are this project's
// own provenance; only the errors are checked.)
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics=only-expected -p 'builtin.module(ocannl-infer-shapes)'

// Test 10: Concat [comp; 3_y] with comp = 2_x; expected "PASS: got expected
// Shape_error: concat: conflicting dimension bases".
func.func @concat_conflicting_labels(%c: !ocannl.tensor<f32, "x=2">, %d: !ocannl.tensor<f32, "y=3">) {
  // expected-error @+1 {{shape inference failed}}
  %0 = "ocannl.concat"(%c, %d) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "x=2">, !ocannl.tensor<f32, "y=3">) -> !ocannl.tensor<f32, "...|...->...">
  return
}

// -----

// Test 13: Affine {stride 1; over = 4_x; kernel 3_y; valid}; expected "PASS:
// got expected Shape_error: convolution: conflicting dimension bases between
// stride and kernel".
func.func @affine_conflicting_labels(%in: !ocannl.tensor<f32, "...|...->...">, %k: !ocannl.tensor<f32, "y=3">) {
  // expected-error @+1 {{shape inference failed}}
  %0 = "ocannl.einsum"(%in, %k) {spec = "o<+k; k => o"} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "y=3">) -> !ocannl.tensor<f32, "x=4">
  return
}
