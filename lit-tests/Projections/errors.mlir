// Projections need solved shapes.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-infer-projections)'

func.func @unsolved(%a: !ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n"> {
  // expected-error @+1 {{'ocannl.neg' op: cannot infer projections: the operand #0 shape is not concrete: projections need solved shapes (run ocannl-infer-shapes first)}}
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
  return %0 : !ocannl.tensor<f32, "n">
}

// -----

// A part of a concatenation used again in the same tensor: its iterator is
// active only where the concatenation reads it, so the other axis would
// never be indexed (the op used to lower to a loop nest writing nothing).
func.func @concat_part_reused(%x: !ocannl.tensor<f32, "5,3">) -> !ocannl.tensor<f32, "2"> {
  // expected-error @+1 {{'ocannl.concat' op: cannot infer projections: the label 'b' is a part of the concatenation 'a^b' and also indexes another axis of the same tensor}}
  %0 = "ocannl.concat"(%x) {spec = "a^b,b => a"} : (!ocannl.tensor<f32, "5,3">) -> !ocannl.tensor<f32, "2">
  return %0 : !ocannl.tensor<f32, "2">
}

// -----

// Two operands would write the same cells: a block spec must give each
// cell of the result at most one writer.
func.func @ambiguous_concat(%x: !ocannl.tensor<f32, "3">, %y: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'ocannl.concat' op: cannot infer projections: operands #0 and #1 would both write the same cells of the result (ambiguous concatenation)}}
  %0 = "ocannl.concat"(%x, %y) {spec = "a; a => a"} : (!ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// -----

// The types contradict the spec: 2 and 3 do not make 6.
func.func @concat_types_mismatch(%x: !ocannl.tensor<f32, "2">, %y: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "6"> {
  // expected-error @+1 {{'ocannl.concat' op: cannot infer projections: block: the concatenated axis 'a^b' has size 6, but its parts sum to 5}}
  %0 = "ocannl.concat"(%x, %y) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "6">
  return %0 : !ocannl.tensor<f32, "6">
}
