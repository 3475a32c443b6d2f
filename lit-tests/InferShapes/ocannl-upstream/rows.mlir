// Ported from OCANNL's test/einsum/test_closing_order.ml
// (github.com/ahrefs/ocannl, commit c338ea3fbb8bf9f405291968ef5d50d4de341fd4;
// expected output test_closing_order.expected): closing terminal dimension
// variables to their transitive bounds, in any order.
//
// The upstream test drives `Row.solve_inequalities` through stages 1-7 on
// `Dim_ineq {res; opnd}` (res ⊒ opnd) with `Terminal_dim` alpha and beta.
// Here alpha and beta are dimension variables `a` and `b` of argument types
// (arguments are the terminals), and `Dim_ineq {res; opnd}` is a unary
// pointwise op from a tensor of type opnd to one of type res (type variables
// are shared across a function). The emission orders of the upstream test are
// op orders here.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// interleave_example: {3 ⊒ alpha, alpha ⊒ beta, 5 ⊒ beta}; expected for every
// order "no error, alpha = 3, beta = 1".
// CHECK-LABEL: func.func @interleave_forward
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "3">, %{{.*}}: !ocannl.tensor<f32, "1">)
// CHECK-LABEL: func.func @interleave_reversed
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "3">, %{{.*}}: !ocannl.tensor<f32, "1">)
// CHECK-LABEL: func.func @interleave_beta_first
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "1">, %{{.*}}: !ocannl.tensor<f32, "3">)
func.func @interleave_forward(%x: !ocannl.tensor<f32, "a">, %y: !ocannl.tensor<f32, "b">) {
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "a">) -> !ocannl.tensor<f32, "3">
  %1 = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "b">) -> !ocannl.tensor<f32, "a">
  %2 = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "b">) -> !ocannl.tensor<f32, "5">
  return
}
func.func @interleave_reversed(%x: !ocannl.tensor<f32, "a">, %y: !ocannl.tensor<f32, "b">) {
  %2 = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "b">) -> !ocannl.tensor<f32, "5">
  %1 = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "b">) -> !ocannl.tensor<f32, "a">
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "a">) -> !ocannl.tensor<f32, "3">
  return
}
func.func @interleave_beta_first(%y: !ocannl.tensor<f32, "b">, %x: !ocannl.tensor<f32, "a">) {
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "a">) -> !ocannl.tensor<f32, "3">
  %1 = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "b">) -> !ocannl.tensor<f32, "a">
  %2 = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "b">) -> !ocannl.tensor<f32, "5">
  return
}

// upper_bound_example: {3 ⊒ alpha, beta ⊒ alpha}; expected for every order
// "no error, alpha = 3, beta = 3".
// CHECK-LABEL: func.func @upper_bound_forward
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "3">, %{{.*}}: !ocannl.tensor<f32, "3">)
// CHECK-LABEL: func.func @upper_bound_reversed
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "3">, %{{.*}}: !ocannl.tensor<f32, "3">)
func.func @upper_bound_forward(%x: !ocannl.tensor<f32, "a">, %y: !ocannl.tensor<f32, "b">) {
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "a">) -> !ocannl.tensor<f32, "3">
  %1 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "a">) -> !ocannl.tensor<f32, "b">
  return
}
func.func @upper_bound_reversed(%y: !ocannl.tensor<f32, "b">, %x: !ocannl.tensor<f32, "a">) {
  %1 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "a">) -> !ocannl.tensor<f32, "b">
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "a">) -> !ocannl.tensor<f32, "3">
  return
}
