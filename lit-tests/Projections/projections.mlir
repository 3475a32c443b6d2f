// Projections of each op kind after shape inference: the loop nest
// (product space, iterator types) and one affine map per operand and for
// the result, over axes in memory order (batch, output, input).
// RUN: ocannl-opt %s --mlir-print-local-scope -p 'builtin.module(ocannl-infer-shapes,ocannl-infer-projections)' | FileCheck %s

// CHECK-LABEL: func.func @pointwise_broadcast
// CHECK: "ocannl.add"
// CHECK-SAME: ocannl.indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: ocannl.iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ocannl.product_space = array<i64: 2, 3>
func.func @pointwise_broadcast(%a: !ocannl.tensor<f32, "2,3">, %b: !ocannl.tensor<f32, "1,3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.add"(%a, %b) : (!ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "1,3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Inputs of the weights contract with the outputs of the data.
// CHECK-LABEL: func.func @matmul
// CHECK: "ocannl.matmul"
// CHECK-SAME: ocannl.indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME: ocannl.iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ocannl.product_space = array<i64: 2, 4, 3>
func.func @matmul(%w: !ocannl.tensor<f32, "3->4">, %x: !ocannl.tensor<f32, "2|3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "3->4">, !ocannl.tensor<f32, "2|3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// CHECK-LABEL: func.func @transpose
// CHECK: "ocannl.transpose"
// CHECK-SAME: ocannl.indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
func.func @transpose(%x: !ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.transpose"(%x) : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// CHECK-LABEL: func.func @einsums
// Permute.
// CHECK: "ocannl.einsum"
// CHECK-SAME: ocannl.indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// Reduce.
// CHECK: "ocannl.einsum"
// CHECK-SAME: ocannl.indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>]
// CHECK-SAME: ocannl.iterator_types = ["parallel", "reduction"]
// Outer product.
// CHECK: "ocannl.einsum"
// CHECK-SAME: ocannl.indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// Diagonal.
// CHECK: "ocannl.einsum"
// CHECK-SAME: ocannl.indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0, d0)>]
// Fixed index.
// CHECK: "ocannl.einsum"
// CHECK-SAME: ocannl.indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0, 0)>]
func.func @einsums(%h: !ocannl.tensor<f32, "2|3->4">, %m: !ocannl.tensor<f32, "2,3">, %u: !ocannl.tensor<f32, "2">, %v: !ocannl.tensor<f32, "3">) {
  %0 = "ocannl.einsum"(%h) {spec = "b|i->o => o|b->i"} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  %1 = "ocannl.einsum"(%m) {spec = "i,j => i"} : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "_">
  %2 = "ocannl.einsum"(%u, %v) {spec = "i; j => i,j"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "_,_">
  %3 = "ocannl.einsum"(%v) {spec = "i => i,i"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "_,_">
  %4 = "ocannl.einsum"(%v) {spec = "i => i,0"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3,2">
  return
}

// CHECK-LABEL: func.func @batch_slice
// CHECK: "ocannl.batch_slice"
// CHECK-SAME: ocannl.indexing_maps = [affine_map<(d0, d1, d2) -> (2, d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME: ocannl.product_space = array<i64: 4, 2, 3>
func.func @batch_slice(%x: !ocannl.tensor<f32, "8,4|3->2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.batch_slice"(%x) {index = 2 : i64} : (!ocannl.tensor<f32, "8,4|3->2">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}
