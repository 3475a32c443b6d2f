// Calls that shape inference cannot follow: errors at the call, before the
// IR changes.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-infer-shapes)'

// Recursion: each function is solved once, so a function cannot call
// itself (directly or through others).
func.func @down(%x: !ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n"> {
  // expected-error @+1 {{recursive call to '@down': ocannl-infer-shapes does not support recursion (OCANNL shapes are monomorphic: each function is solved once)}}
  %0 = func.call @down(%x) : (!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
  return %0 : !ocannl.tensor<f32, "n">
}

// -----

// Monomorphic: two calls with different shapes conflict.
func.func @id(%x: !ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "..."> {
  return %x : !ocannl.tensor<f32, "...">
}
func.func @twice(%a: !ocannl.tensor<f32, "2">, %b: !ocannl.tensor<f32, "3">) {
  // expected-note @+1 {{constrained here}}
  %u = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...">
  // expected-error @+1 {{shape inference failed: size mismatch: size 3 does not broadcast to size 2}}
  %v = "ocannl.neg"(%b) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...">
  %0 = func.call @id(%u) : (!ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "...">
  %1 = func.call @id(%v) : (!ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "...">
  return
}
