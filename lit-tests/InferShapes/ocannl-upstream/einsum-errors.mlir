// Ported from OCANNL's own tests (github.com/ahrefs/ocannl, commit
// c338ea3fbb8bf9f405291968ef5d50d4de341fd4): einsum error cases.
// (only-expected: the notes naming the constraining ops are this project's own
// provenance, which OCANNL does not have; only the errors are checked.)
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics=only-expected -p 'builtin.module(ocannl-infer-shapes)'

// test/operations/test_einsum3.ml, Test 7: `einsum3 "ij;jk=>im"` with three
// operands; expected "got expected Shape_error: Invalid einsum spec (expected
// three arguments): ij;jk=>im". (Here the op verifier rejects it before
// inference, with its own wording.)
func.func @einsum3_wrong_arity(%a: !ocannl.tensor<f32, "2,2">, %b: !ocannl.tensor<f32, "2,2">, %c: !ocannl.tensor<f32, "2,2">) {
  // expected-error @+1 {{needs 2 operand(s), got 3}}
  %0 = "ocannl.einsum"(%a, %b, %c) {spec = "ij;jk=>im"} : (!ocannl.tensor<f32, "2,2">, !ocannl.tensor<f32, "2,2">, !ocannl.tensor<f32, "2,2">) -> !ocannl.tensor<f32, "...">
  return
}

// -----

// test/einsum/test_inference_counterexamples.ml, "cyclic row permute added to
// original, abstract param shape" (expect `Shape_error, a documented
// incompleteness probe): x with no shape, `y = x + (x ++ "a,b,..r.. =>
// ..r..,b,a" ["a";"b";"r"])`, `set_dim a 3`, `set_dim b 5`. The captures are
// exposed by an observer einsum and pinned (see capture.mlir).
func.func @cyclic_row_permute_abstract(%x: !ocannl.tensor<f32, "...|...->...">, %n3: !ocannl.tensor<f32, "3">, %n5: !ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "...|...->..."> {
  %p = "ocannl.einsum"(%x) {spec = "a,b,..r.. => ..r..,b,a"} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  // expected-error @+1 {{shape inference failed}}
  %y = "ocannl.add"(%x, %p) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v = "ocannl.einsum"(%x) {spec = "a,b,..r.. => a,b"} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "a,b">
  %pa = "ocannl.einsum"(%n3) {spec = "i=>i"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "a">
  %pb = "ocannl.einsum"(%n5) {spec = "i=>i"} : (!ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "b">
  return %y : !ocannl.tensor<f32, "...|...->...">
}
