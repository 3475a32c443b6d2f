// Ported from OCANNL's test/einsum/test_einsum_capture.ml (github.com/ahrefs/ocannl,
// commit c338ea3fbb8bf9f405291968ef5d50d4de341fd4): the error cases. See
// capture.mlir for how captures, `set_dim` and `set_equal` are translated.
// (only-expected: the notes naming the constraining ops are this project's own
// provenance, which OCANNL does not have; only the errors are checked.)
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics=only-expected -p 'builtin.module(ocannl-infer-shapes)'

// test_set_dim_and_set_equal, Test 4: `set_dim var6 50`, `set_dim var7 75`,
// `set_equal var6 var7`; expected "set_equal error case: Correctly caught
// exception: Cannot set equal dimensions for variable references with
// different values". Both pins write one variable `v`.
func.func @set_equal_conflict(%n50: !ocannl.tensor<f32, "50">, %n75: !ocannl.tensor<f32, "75">) {
  %0 = "ocannl.einsum"(%n50) {spec = "x=>x"} : (!ocannl.tensor<f32, "50">) -> !ocannl.tensor<f32, "v">
  // expected-error @+1 {{size mismatch}}
  %1 = "ocannl.einsum"(%n75) {spec = "x=>x"} : (!ocannl.tensor<f32, "75">) -> !ocannl.tensor<f32, "v">
  return
}
