// Ported from OCANNL's own tests (github.com/ahrefs/ocannl, commit
// c338ea3fbb8bf9f405291968ef5d50d4de341fd4): rank cycles and incompatible
// bounds. Upstream drives `Row.solve_inequalities` on hand-built constraints;
// `Row_ineq/Dim_ineq {res; opnd}` (res ⊒ opnd) is a unary pointwise op from a
// tensor of type opnd to one of type res, a shared variable is one type
// variable name (see rows.mlir, beg-dims.mlir).
// Errors are expected at the op where this project reports them (the last
// constraint of the cycle or conflict).
// (only-expected: the notes naming the constraining ops are this project's
// own provenance; only the errors are checked.)
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics=only-expected -p 'builtin.module(ocannl-infer-shapes)'

// test/einsum/test_row_rank_cycle.ml, "two-variable rank cycle":
// {<rho1> ⊒ <rho2>.[2], <rho2> ⊒ <rho1>.[3]}; expected "Shape_error: Infinite
// number of axes by rank cycle among row variables".
func.func @two_variable_rank_cycle(%x: !ocannl.tensor<f32, "..q..,2">, %y: !ocannl.tensor<f32, "..p..,3">) {
  // expected-error @+1 {{rank cycle}}
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "..q..,2">) -> !ocannl.tensor<f32, "..p..">
  %1 = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "..p..,3">) -> !ocannl.tensor<f32, "..q..">
  return
}

// -----

// test_row_rank_cycle.ml, "three-variable rank cycle" (used to diverge):
// {<rho1> ⊒ <rho2>.[2], <rho2> ⊒ <rho3>.[3], <rho3> ⊒ <rho1>.[4]}; expected
// "Shape_error: Infinite number of axes by rank cycle among row variables".
func.func @three_variable_rank_cycle(%x: !ocannl.tensor<f32, "..q..,2">, %y: !ocannl.tensor<f32, "..s..,3">, %z: !ocannl.tensor<f32, "..p..,4">) {
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "..q..,2">) -> !ocannl.tensor<f32, "..p..">
  %1 = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "..s..,3">) -> !ocannl.tensor<f32, "..q..">
  // expected-error @+1 {{rank cycle}}
  %2 = "ocannl.neg"(%z) : (!ocannl.tensor<f32, "..p..,4">) -> !ocannl.tensor<f32, "..s..">
  return
}

// -----

// test_row_rank_cycle.ml, "two-variable rank cycle via leading flank":
// {<rho1> ⊒ [2].<rho2>, <rho2> ⊒ [3].<rho1>}; expected "Shape_error: Infinite
// number of axes by rank cycle among row variables".
func.func @rank_cycle_leading_flank(%x: !ocannl.tensor<f32, "2,..q..">, %y: !ocannl.tensor<f32, "3,..p..">) {
  // expected-error @+1 {{rank cycle}}
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "2,..q..">) -> !ocannl.tensor<f32, "..p..">
  %1 = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "3,..p..">) -> !ocannl.tensor<f32, "..q..">
  return
}

// -----

// test_row_rank_cycle.ml, "mixed-sign rank cycle via cap discharge":
// {<rho1> ⊒ <rho2>.[2,3], <rho2>.[4] ⊒ <rho1>}, i.e. rank(rho1) >= rank(rho2)
// + 2 and rank(rho2) >= rank(rho1) - 1; expected "Shape_error: Infinite
// number of axes by rank cycle among row variables". The same store also
// has a direct size conflict (rho1 = w.[2,3] against rho2.[4]: 3 vs 4), which
// this project reports instead; only the failure is checked.
func.func @mixed_sign_rank_cycle(%x: !ocannl.tensor<f32, "..q..,2,3">, %y: !ocannl.tensor<f32, "..p..">) {
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "..q..,2,3">) -> !ocannl.tensor<f32, "..p..">
  // expected-error @+1 {{shape inference failed}}
  %1 = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "..p..">) -> !ocannl.tensor<f32, "..q..,4">
  return
}

// -----

// test/einsum/test_closing_order.ml, incompatible_upper_bounds_example:
// {3 ⊒ alpha, 5 ⊒ beta, gamma ⊒ alpha, gamma ⊒ beta}, alpha and beta
// terminal; expected for every order "Shape_error: solved dimensions for
// axis: mismatch". (OCANNL's comment: the store is satisfiable by raising a
// terminal to the broadcast top, but its deterministic downward leaf closing
// commits alpha = 3 and beta = 5, then fails at gamma.)
func.func @incompatible_upper_bounds(%x: !ocannl.tensor<f32, "a">, %y: !ocannl.tensor<f32, "b">) {
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "a">) -> !ocannl.tensor<f32, "3">
  %1 = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "b">) -> !ocannl.tensor<f32, "5">
  %2 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "a">) -> !ocannl.tensor<f32, "g">
  // expected-error @+1 {{mismatch}}
  %3 = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "b">) -> !ocannl.tensor<f32, "g">
  return
}
