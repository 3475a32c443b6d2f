// Element-count constraints (reference, "Preventing Premature Guessing with
// Total_elems Constraints" and the stage table): `ocannl.reshape` shares one
// element count between operand and result (`Total_elems` with a
// `Strided_var` numerator, a count that closing never guesses); a constant's
// dense data fixes the count (`Num_elems`) or, when the data has rank 2 or
// more, the axes in memory order (`Exact`). Confirmed by the checker.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// Forwards: the open result takes the count as one output axis.
// CHECK-LABEL: func.func @forwards
// CHECK: "ocannl.reshape"{{.*}} -> !ocannl.tensor<f32, "6">
func.func @forwards(%x: !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.reshape"(%x) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Backwards: the open argument from the result.
// CHECK-LABEL: func.func @backwards
// CHECK-SAME: %arg0: !ocannl.tensor<f32, "24">
func.func @backwards(%x: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "3|2->4"> {
  %0 = "ocannl.reshape"(%x) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "3|2->4">
  return %0 : !ocannl.tensor<f32, "3|2->4">
}

// A missing factor: 24 / 3.
// CHECK-LABEL: func.func @factor
// CHECK: "ocannl.reshape"{{.*}} -> !ocannl.tensor<f32, "3,8">
func.func @factor(%x: !ocannl.tensor<f32, "4|6">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.reshape"(%x) : (!ocannl.tensor<f32, "4|6">) -> !ocannl.tensor<f32, "3,n">
  %1 = "ocannl.neg"(%0) : (!ocannl.tensor<f32, "3,n">) -> !ocannl.tensor<f32, "...|...->...">
  return %1 : !ocannl.tensor<f32, "...|...->...">
}

// A chain: the count flows back through an open intermediate.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: %arg0: !ocannl.tensor<f32, "10">
// CHECK: "ocannl.reshape"{{.*}} -> !ocannl.tensor<f32, "10">
func.func @chain(%x: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "2,5"> {
  %0 = "ocannl.reshape"(%x) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %1 = "ocannl.reshape"(%0) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "2,5">
  return %1 : !ocannl.tensor<f32, "2,5">
}

// Constants: flat data fixes the count; shaped data fixes the axes.
// CHECK-LABEL: func.func @constants
// CHECK: "ocannl.constant"{{.*}} -> !ocannl.tensor<f32, "3,4">
// CHECK: "ocannl.constant"{{.*}} -> !ocannl.tensor<f32, "2,3">
// CHECK: "ocannl.constant"{{.*}} -> !ocannl.tensor<f32, "2|3">
func.func @constants() -> (!ocannl.tensor<f32, "3,n">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "b|...->...">) {
  %0 = "ocannl.constant"() {value = dense<1.0> : tensor<12xf32>} : () -> !ocannl.tensor<f32, "3,n">
  %1 = "ocannl.constant"() {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>} : () -> !ocannl.tensor<f32, "...|...->...">
  %2 = "ocannl.constant"() {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>} : () -> !ocannl.tensor<f32, "b|...->...">
  return %0, %1, %2 : !ocannl.tensor<f32, "3,n">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "b|...->...">
}
