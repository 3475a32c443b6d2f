// Ported from OCANNL's own tests (github.com/ahrefs/ocannl, commit
// c338ea3fbb8bf9f405291968ef5d50d4de341fd4): leading axes before a row
// variable (OCANNL's `Row.beg_dims`, e.g. `3, ..rho.., 7`) and rows that share
// a row variable on both sides of a constraint.
//
// The upstream tests drive `Row.solve_inequalities` on hand-built rows. They
// are translated to ops: `Row_ineq {res; opnd}` (res ⊒ opnd, broadcasting) is
// a unary pointwise op with operand type opnd and result type res;
// `Row_eq {r1; r2}` is `einsum "... => ..."` from a tensor of type r1 to one
// of type r2 (einsum equates); a row variable shared by both sides is one
// type variable name (type variables are shared across a function);
// "rho ~ []" is an einsum from a scalar to a tensor of type `..rho..`. Rows
// built closed with an explicit leading/trailing split (`Broadcastable` with
// non-empty `beg_dims`) have no type syntax: only a row variable's row keeps
// the split; closed rows are written flat. Type specs without a comma are
// single-char, so the row variable `rho` is `..r..` in the types.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// test/einsum/test_beg_dims_alignment.ml, test_parser_places_leading_in_beg_dims
// and test_spec_substitution_preserves_leading: spec "3, ..rho.., 7" has
// leading [3] and trailing [7]; substituting rho := [4] gives 3,4,7
// (expected "PASS": beg_dims=[3], dims=[4;7]).
// CHECK-LABEL: func.func @substitution_preserves_leading
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "3,4,7">
func.func @substitution_preserves_leading(%x: !ocannl.tensor<f32, "3, ..r.., 7">, %four: !ocannl.tensor<f32, "4">) -> (!ocannl.tensor<f32, "3, ..r.., 7">, !ocannl.tensor<f32, "..r..">) {
  %rho = "ocannl.einsum"(%four) {spec = "... => ..."} : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "..r..">
  return %x, %rho : !ocannl.tensor<f32, "3, ..r.., 7">, !ocannl.tensor<f32, "..r..">
}

// test/operations/row_beg_dims_regression.ml, Test 2: in_ = 3,..rho..;
// rho := [4] gives 3,4 (expected "PASS").
// CHECK-LABEL: func.func @substitution_composes_beg_dims
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "3,4">
func.func @substitution_composes_beg_dims(%x: !ocannl.tensor<f32, "3,..r..">, %four: !ocannl.tensor<f32, "4">) -> (!ocannl.tensor<f32, "3,..r..">, !ocannl.tensor<f32, "..r..">) {
  %rho = "ocannl.einsum"(%four) {spec = "... => ..."} : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "..r..">
  return %x, %rho : !ocannl.tensor<f32, "3,..r..">, !ocannl.tensor<f32, "..r..">
}

// row_beg_dims_regression.ml, Test 3: closing 7,..rho.. with nothing else
// known closes rho to no axes and keeps the leading 7 (expected "PASS").
// CHECK-LABEL: func.func @closing_preserves_beg_dims
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "7">) -> !ocannl.tensor<f32, "7">
func.func @closing_preserves_beg_dims(%x: !ocannl.tensor<f32, "7,..r..">) -> !ocannl.tensor<f32, "7,..r.."> {
  return %x : !ocannl.tensor<f32, "7,..r..">
}

// row_beg_dims_regression.ml, Test 4b: two upper bounds 3|7 and 5|7 on one
// row variable; the conflicting leading axes demote to 1 (expected row
// beg_dims=[1], dims=[7]). The bounds are written flat (3,7 and 5,7).
// CHECK-LABEL: func.func @glb_leading_conflict_demotes
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "1,7">)
func.func @glb_leading_conflict_demotes(%x: !ocannl.tensor<f32, "..r..">) -> (!ocannl.tensor<f32, "3,7">, !ocannl.tensor<f32, "5,7">) {
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "..r..">) -> !ocannl.tensor<f32, "3,7">
  %1 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "..r..">) -> !ocannl.tensor<f32, "5,7">
  return %0, %1 : !ocannl.tensor<f32, "3,7">, !ocannl.tensor<f32, "5,7">
}

// row_beg_dims_regression.ml, Test 4c: bounds 3|7 and 3|11; the conflicting
// trailing axes demote to 1 (expected beg_dims=[3], dims=[1]).
// CHECK-LABEL: func.func @glb_trailing_conflict_demotes
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "3,1">)
func.func @glb_trailing_conflict_demotes(%x: !ocannl.tensor<f32, "..r..">) -> (!ocannl.tensor<f32, "3,7">, !ocannl.tensor<f32, "3,11">) {
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "..r..">) -> !ocannl.tensor<f32, "3,7">
  %1 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "..r..">) -> !ocannl.tensor<f32, "3,11">
  return %0, %1 : !ocannl.tensor<f32, "3,7">, !ocannl.tensor<f32, "3,11">
}

// test/einsum/test_row_self_reference.ml, "eq, shifted flanks, conjugate dims
// (least-material resolution)": [3].<v> = <v>.[3]; expected "no error" (v
// closes to no axes).
// CHECK-LABEL: func.func @eq_shifted_conjugate
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
func.func @eq_shifted_conjugate(%x: !ocannl.tensor<f32, "3,..v..">) -> !ocannl.tensor<f32, "..v..,3"> {
  %0 = "ocannl.einsum"(%x) {spec = "... => ..."} : (!ocannl.tensor<f32, "3,..v..">) -> !ocannl.tensor<f32, "..v..,3">
  return %0 : !ocannl.tensor<f32, "..v..,3">
}

// test_row_self_reference.ml, "eq, aligned flanks, matching dims (legitimate
// no-op)": <v>.[3] = <v>.[3]; expected "no error".
// CHECK-LABEL: func.func @eq_aligned_matching
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
func.func @eq_aligned_matching(%x: !ocannl.tensor<f32, "..v..,3">) -> !ocannl.tensor<f32, "..v..,3"> {
  %0 = "ocannl.einsum"(%x) {spec = "... => ..."} : (!ocannl.tensor<f32, "..v..,3">) -> !ocannl.tensor<f32, "..v..,3">
  return %0 : !ocannl.tensor<f32, "..v..,3">
}

// test_row_self_reference.ml, "ineq, closed-closed shifted, matching dims
// (satisfiable)": [3] ⊒ [3]; and "ineq, closed-closed, result surplus faces
// inserted padding (satisfiable)": [3|5] ⊒ [5]; expected "no error" for both.
// CHECK-LABEL: func.func @ineq_closed_closed
// CHECK: "ocannl.neg"{{.*}} -> !ocannl.tensor<f32, "3">
// CHECK: "ocannl.neg"{{.*}} -> !ocannl.tensor<f32, "3,5">
func.func @ineq_closed_closed(%x: !ocannl.tensor<f32, "3">, %y: !ocannl.tensor<f32, "5">) -> (!ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "3,5">) {
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  %1 = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "3,5">
  return %0, %1 : !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "3,5">
}

// test_row_self_reference.ml, "ineq, same-var shifted, matching dims
// (satisfiable)": [3].<v> ⊒ <v>.[3]; expected "no error".
// CHECK-LABEL: func.func @ineq_same_var_shifted_matching
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
func.func @ineq_same_var_shifted_matching(%x: !ocannl.tensor<f32, "..v..,3">) -> !ocannl.tensor<f32, "3,..v.."> {
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "..v..,3">) -> !ocannl.tensor<f32, "3,..v..">
  return %0 : !ocannl.tensor<f32, "3,..v..">
}

// test_row_self_reference.ml, "eq, cross surpluses alone (satisfiable, family
// binding)": [5].<rho1> = <rho2>.[5,3]; expected "no error".
// CHECK-LABEL: func.func @eq_cross_surpluses
// CHECK: "ocannl.einsum"
func.func @eq_cross_surpluses(%x: !ocannl.tensor<f32, "5,..p..">) -> !ocannl.tensor<f32, "..q..,5,3"> {
  %0 = "ocannl.einsum"(%x) {spec = "... => ..."} : (!ocannl.tensor<f32, "5,..p..">) -> !ocannl.tensor<f32, "..q..,5,3">
  return %0 : !ocannl.tensor<f32, "..q..,5,3">
}

// test_row_self_reference.ml, "eq, cross surpluses then rho2 ~ [] (satisfiable
// only sporadically)" and "eq, rho2 ~ [] then cross surpluses (same store,
// pinned first)": with rho2 = [], [5].<rho1> = [5,3] gives rho1 = [3];
// expected "no error" for both orders.
// CHECK-LABEL: func.func @eq_cross_surpluses_pinned
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "5,3">
// CHECK-LABEL: func.func @eq_cross_surpluses_pinned_first
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "5,3">
func.func @eq_cross_surpluses_pinned(%x: !ocannl.tensor<f32, "5,..p..">, %s: !ocannl.tensor<f32, "">) -> (!ocannl.tensor<f32, "..q..,5,3">, !ocannl.tensor<f32, "..q..">) {
  %0 = "ocannl.einsum"(%x) {spec = "... => ..."} : (!ocannl.tensor<f32, "5,..p..">) -> !ocannl.tensor<f32, "..q..,5,3">
  %1 = "ocannl.einsum"(%s) {spec = "... => ..."} : (!ocannl.tensor<f32, "">) -> !ocannl.tensor<f32, "..q..">
  return %0, %1 : !ocannl.tensor<f32, "..q..,5,3">, !ocannl.tensor<f32, "..q..">
}
func.func @eq_cross_surpluses_pinned_first(%x: !ocannl.tensor<f32, "5,..p..">, %s: !ocannl.tensor<f32, "">) -> (!ocannl.tensor<f32, "..q..,5,3">, !ocannl.tensor<f32, "..q..">) {
  %1 = "ocannl.einsum"(%s) {spec = "... => ..."} : (!ocannl.tensor<f32, "">) -> !ocannl.tensor<f32, "..q..">
  %0 = "ocannl.einsum"(%x) {spec = "... => ..."} : (!ocannl.tensor<f32, "5,..p..">) -> !ocannl.tensor<f32, "..q..,5,3">
  return %0, %1 : !ocannl.tensor<f32, "..q..,5,3">, !ocannl.tensor<f32, "..q..">
}
