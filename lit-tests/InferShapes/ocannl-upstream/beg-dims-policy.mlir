// Ported from OCANNL's test/einsum/test_row_self_reference.ml
// (github.com/ahrefs/ocannl, commit c338ea3fbb8bf9f405291968ef5d50d4de341fd4).
// See beg-dims.mlir for how upstream `Row` constraints are translated to ops.
//
// "eq, mirror cross surpluses then rho2 ~ [] (trailing guard rejects)":
// <rho1>.[5] = [3,5].<rho2>, then rho2 ~ []; OCANNL expects "Shape_error:
// Number of axes mismatch", and its own comment calls this "a placement-
// sensitive policy rejection" of a store that is satisfiable when rows are
// read as lists of axes (rho1 = [3]).
// DEPARTURE (on purpose): this project reads a row equation as an equation
// of axis lists, so the store has the solution rho1 = [3], rho2 = [], and
// inference finds it: a row equation has no broadcasting, so where the
// leading axes sit does not matter (leading axes only matter in
// broadcasts: leading-axes.mlir, beg-dims-left-alignment.mlir).
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// CHECK-LABEL: func.func @eq_mirror_cross_surpluses_pinned
// CHECK-SAME: (%arg0: !ocannl.tensor<f32, "3,5">, %arg1: !ocannl.tensor<f32, "">) -> (!ocannl.tensor<f32, "3,5">, !ocannl.tensor<f32, "">)
func.func @eq_mirror_cross_surpluses_pinned(%x: !ocannl.tensor<f32, "..p..,5">, %s: !ocannl.tensor<f32, "">) -> (!ocannl.tensor<f32, "3,5,..q..">, !ocannl.tensor<f32, "..q..">) {
  %0 = "ocannl.einsum"(%x) {spec = "... => ..."} : (!ocannl.tensor<f32, "..p..,5">) -> !ocannl.tensor<f32, "3,5,..q..">
  %1 = "ocannl.einsum"(%s) {spec = "... => ..."} : (!ocannl.tensor<f32, "">) -> !ocannl.tensor<f32, "..q..">
  return %0, %1 : !ocannl.tensor<f32, "3,5,..q..">, !ocannl.tensor<f32, "..q..">
}
