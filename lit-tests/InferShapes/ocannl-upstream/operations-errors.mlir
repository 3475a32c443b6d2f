// Ported from OCANNL's own tests (github.com/ahrefs/ocannl, commit
// c338ea3fbb8bf9f405291968ef5d50d4de341fd4): label (basis) conflicts.
// (only-expected: the notes naming the constraining ops are this project's
// own provenance; only the errors are checked.)
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics=only-expected -p 'builtin.module(ocannl-infer-shapes)'

// test/einsum/test_dimension_labels.ml, Test 2: `("batch", 4)` + `("features",
// 4)`; expected "PASS: got expected Shape_error: solved dimensions for axis:
// different bases".
func.func @conflicting_labels_same_size(%t1: !ocannl.tensor<f32, "batch=4">, %t2: !ocannl.tensor<f32, "features=4">) {
  // expected-error @+1 {{label mismatch}}
  %0 = "ocannl.add"(%t1, %t2) : (!ocannl.tensor<f32, "batch=4">, !ocannl.tensor<f32, "features=4">) -> !ocannl.tensor<f32, "...|...->...">
  return
}

// -----

// test_dimension_labels.ml, Test 5: v = 4 (unlabelled), v = 4_batch, then
// v = 4_features; expected "Shape_error" ("different bases"). The batch vs
// features conflict is an error under either reading of unlabelled axes.
func.func @variable_mediated_conflict(%d: !ocannl.tensor<f32, "4">, %b: !ocannl.tensor<f32, "batch=4">, %f: !ocannl.tensor<f32, "features=4">) {
  %0 = "ocannl.einsum"(%d) {spec = "i=>i"} : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "v">
  %1 = "ocannl.einsum"(%b) {spec = "i=>i"} : (!ocannl.tensor<f32, "batch=4">) -> !ocannl.tensor<f32, "v">
  // expected-error @+1 {{label mismatch}}
  %2 = "ocannl.einsum"(%f) {spec = "i=>i"} : (!ocannl.tensor<f32, "features=4">) -> !ocannl.tensor<f32, "v">
  return
}

// -----

// test_dimension_labels.ml, Test 18: "GLB with conflicting bases -- strict
// equality raises": mutual inequalities x=4 ⊒ y=4 and y=4 ⊒ x=4; expected
// "PASS: conflicting bases in mutual inequality correctly raises: dimension
// comparison for axis: different bases".
func.func @mutual_conflicting_labels(%a: !ocannl.tensor<f32, "y=4">, %b: !ocannl.tensor<f32, "x=4">) {
  // expected-error @+1 {{label mismatch}}
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "y=4">) -> !ocannl.tensor<f32, "x=4">
  %1 = "ocannl.neg"(%b) : (!ocannl.tensor<f32, "x=4">) -> !ocannl.tensor<f32, "y=4">
  return
}
