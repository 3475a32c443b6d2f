// Derived from OCANNL's tests (github.com/ahrefs/ocannl, commit
// c338ea3fbb8bf9f405291968ef5d50d4de341fd4), not a verbatim port: one open
// axis bounded by two results of size 4 with different labels. OCANNL's rule
// for conflicting upper bounds of one variable is to demote it to the
// broadcast top, size 1 (test/operations/test_concat_dim_solver.ml,
// test_ac1_glb_merge_incompatible_demotes: "operand demoted to broadcast-top
// (size 1)"; test/operations/row_beg_dims_regression.ml, Tests 4b/4c:
// "conflict demotes to unbased Dim 1"), and bases conflict like sizes
// (test/einsum/test_dimension_labels.ml, Tests 2 and 18). A disagreement (now fixed)
// found while porting: the solver used to answer a = y=4, which its
// independent checker (ocannl-check-shapes) rejects ("y=4 does not broadcast
// to x=4"): the solver's solution is unsound here.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// CHECK-LABEL: func.func @glb_conflicting_labels_demote
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "1">)
func.func @glb_conflicting_labels_demote(%v: !ocannl.tensor<f32, "a">) -> (!ocannl.tensor<f32, "x=4">, !ocannl.tensor<f32, "y=4">) {
  %0 = "ocannl.neg"(%v) : (!ocannl.tensor<f32, "a">) -> !ocannl.tensor<f32, "x=4">
  %1 = "ocannl.neg"(%v) : (!ocannl.tensor<f32, "a">) -> !ocannl.tensor<f32, "y=4">
  return %0, %1 : !ocannl.tensor<f32, "x=4">, !ocannl.tensor<f32, "y=4">
}
