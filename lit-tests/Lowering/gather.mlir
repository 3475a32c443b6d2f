// `ocannl.gather`: run-time indices (ONNX Gather, embedding lookups). The
// shapes infer as for an einsum (`v` is the gathered axis, the one label
// the result leaves out); the lowering loads each index, wraps a negative
// one, and reads the data with `memref.load` (the index is data, not an
// affine function of the loops), giving 0 for an index out of range.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-to-affine)' | FileCheck %s

// CHECK-LABEL: func.func @embed
// CHECK: affine.for
// CHECK: affine.for
// CHECK: affine.for
// CHECK: %[[ID:.*]] = affine.load %{{.*}} : memref<2x3xi64>
// CHECK: arith.cmpi slt, %[[ID]]
// CHECK: arith.select
// CHECK: %[[AT:.*]] = arith.index_cast
// CHECK: memref.load %{{.*}}[%[[AT]], %{{.*}}] : memref<10x4xf32>
// CHECK: affine.store
func.func @embed(%table: !ocannl.tensor<f32, "10,4">, %ids: !ocannl.tensor<i64, "b,s">) -> !ocannl.tensor<f32, "2,3,4"> {
  %e = "ocannl.gather"(%table, %ids) {spec = "v,e; b,s => b,s,e"} : (!ocannl.tensor<f32, "10,4">, !ocannl.tensor<i64, "b,s">) -> !ocannl.tensor<f32, "2,3,4">
  return %e : !ocannl.tensor<f32, "2,3,4">
}

// -----

// The indices' shape is inferred from the result, as an einsum's would be.
// CHECK-LABEL: func.func @middle_axis
// CHECK-SAME: memref<5xi32>
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<4x6x3xf32>
func.func @middle_axis(%x: !ocannl.tensor<f32, "4,6,3">, %i: !ocannl.tensor<i32, "...">) -> !ocannl.tensor<f32, "4,5,3"> {
  %g = "ocannl.gather"(%x, %i) {spec = "a,v,c; k => a,k,c"} : (!ocannl.tensor<f32, "4,6,3">, !ocannl.tensor<i32, "...">) -> !ocannl.tensor<f32, "4,5,3">
  return %g : !ocannl.tensor<f32, "4,5,3">
}

// -----

func.func @two_axes_left_out(%x: !ocannl.tensor<f32, "4,6">, %i: !ocannl.tensor<i64, "5">) -> !ocannl.tensor<f32, "5"> {
  // expected-error @+1 {{its spec must leave exactly one data axis out of the result (the gathered axis); it leaves 2}}
  %g = "ocannl.gather"(%x, %i) {spec = "a,v; k => k"} : (!ocannl.tensor<f32, "4,6">, !ocannl.tensor<i64, "5">) -> !ocannl.tensor<f32, "5">
  return %g : !ocannl.tensor<f32, "5">
}

// -----

func.func @float_indices(%x: !ocannl.tensor<f32, "4,6">, %i: !ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "5,6"> {
  // expected-error @+1 {{the indices must be integers, not f32}}
  %g = "ocannl.gather"(%x, %i) {spec = "v,e; k => k,e"} : (!ocannl.tensor<f32, "4,6">, !ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "5,6">
  return %g : !ocannl.tensor<f32, "5,6">
}
