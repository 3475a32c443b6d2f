// Ported from OCANNL's test/einsum/test_einsum_capture.ml (github.com/ahrefs/ocannl,
// commit c338ea3fbb8bf9f405291968ef5d50d4de341fd4): the dim/row variable name clash (fixed in issue 15, disagreement #1:
// the solver used to accept these specs; OCANNL rejects them). See
// capture.mlir for how captures, `set_dim` and `set_equal` are translated.
// (only-expected: the notes naming the constraining ops are this project's own
// provenance, which OCANNL does not have; only the errors are checked.)
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics=only-expected -p 'builtin.module(ocannl-infer-shapes)'

// test_dim_row_var_name_clash, Test 1: `x1 +* "..d.., d; d, e => ..d.., e" y1`
// (x1 2,3, y1 3,4); expected "Test 1 - PASS: Caught name clash for 'd': Name
// 'd' is used as both a dimension variable and a row variable in spec:
// ..d.., d; d, e => ..d.., e".
func.func @name_clash_binary(%x1: !ocannl.tensor<f32, "2,3">, %y1: !ocannl.tensor<f32, "3,4">) {
  // expected-error @+1 {{used as both a dimension variable and a row variable}}
  %0 = "ocannl.einsum"(%x1, %y1) {spec = "..d.., d; d, e => ..d.., e"} : (!ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "...|...->...">
  return
}

// -----

// test_dim_row_var_name_clash, Test 2: `x2 ++ "..v.., v => v, ..v.."` (x2
// 2,3,4); expected "Name 'v' is used as both a dimension variable and a row
// variable in spec: ..v.., v => v, ..v..".
func.func @name_clash_permute(%x2: !ocannl.tensor<f32, "2,3,4">) {
  // expected-error @+1 {{used as both a dimension variable and a row variable}}
  %0 = "ocannl.einsum"(%x2) {spec = "..v.., v => v, ..v.."} : (!ocannl.tensor<f32, "2,3,4">) -> !ocannl.tensor<f32, "...|...->...">
  return
}

// -----

// test_dim_row_var_name_clash, Test 4: `Shape.of_spec "..x.., x"` (a shape
// spec, not an einsum spec); expected "Name 'x' is used as both a dimension
// variable and a row variable in spec: ..x.., x". Shape specs are this
// dialect's tensor types.
func.func @name_clash_shape_spec(%x: !ocannl.tensor<f32, "2,3,4">) {
  // expected-error @+1 {{used as both a dimension variable and a row variable}}
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "2,3,4">) -> !ocannl.tensor<f32, "..x.., x">
  return
}
