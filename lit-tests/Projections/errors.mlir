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
