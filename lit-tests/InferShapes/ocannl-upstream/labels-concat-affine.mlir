// Ported from OCANNL's test/einsum/test_dimension_labels.ml
// (github.com/ahrefs/ocannl, commit c338ea3fbb8bf9f405291968ef5d50d4de341fd4),
// Tests 9, 11, 12, 14-17: the label (OCANNL's "basis") of a concatenated axis
// and of a strided / convolution axis. Upstream solves hand-built
// `Dim_eq {Var; Concat/Affine}` constraints; here the Concat is an
// `ocannl.concat` and the Affine an einsum axis. A disagreement found while
// porting (not one of the three known ones): the solver used to drop labels
// through concatenation and strides/convolutions (it prints `5`, `8`, `6`,
// `4` without `x=`). The reference spec (shared/reference) does not say what
// label such an axis gets; upstream OCANNL propagates it.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// Test 9: Concat [comp; 3_x] with comp = 2_x; expected "Solved to d=5,
// basis=\"x\"".
// CHECK-LABEL: func.func @concat_consistent_labels
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "x=5">
func.func @concat_consistent_labels(%c: !ocannl.tensor<f32, "x=2">, %d: !ocannl.tensor<f32, "x=3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%c, %d) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "x=2">, !ocannl.tensor<f32, "x=3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Test 11: Concat [comp; 3 (unlabelled)] with comp = 2_x; expected "Solved to
// d=5, basis=\"x\"" ("concat preserved basis \"x\" from based component").
// CHECK-LABEL: func.func @concat_mixed_labels
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "x=5">
func.func @concat_mixed_labels(%c: !ocannl.tensor<f32, "x=2">, %d: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.concat"(%c, %d) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "x=2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Test 12: Affine {stride 1; over = 4_x; kernel 3_x; valid}: expected "Solved
// to d=6, basis=\"x\"" (1 * (4 - 1) + 3).
// CHECK-LABEL: func.func @affine_matching_labels
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "x=6">
func.func @affine_matching_labels(%in: !ocannl.tensor<f32, "...|...->...">, %k: !ocannl.tensor<f32, "x=3">) -> !ocannl.tensor<f32, "x=4"> {
  %0 = "ocannl.einsum"(%in, %k) {spec = "o<+k; k => o"} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "x=3">) -> !ocannl.tensor<f32, "x=4">
  return %0 : !ocannl.tensor<f32, "x=4">
}

// Test 14: Affine {stride 2; over = 4_x} (no convolution); expected "Solved to
// d=8, basis=\"x\"".
// CHECK-LABEL: func.func @stride_forward_label
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "x=8">)
func.func @stride_forward_label(%in: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "x=4"> {
  %0 = "ocannl.einsum"(%in) {spec = "2*o => o"} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "x=4">
  return %0 : !ocannl.tensor<f32, "x=4">
}

// Test 15: 8_x = Affine {stride 2; over = v}; expected "Solved over to d=4,
// basis=\"x\"".
// CHECK-LABEL: func.func @stride_reverse_label
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "x=4">
func.func @stride_reverse_label(%in: !ocannl.tensor<f32, "x=8">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%in) {spec = "2*o => o"} : (!ocannl.tensor<f32, "x=8">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Test 16: Affine {stride 1; over = 4_x; kernel 3 (unlabelled); valid};
// expected "Solved to d=6, basis=\"x\"".
// CHECK-LABEL: func.func @conv_forward_label
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "x=6">
func.func @conv_forward_label(%in: !ocannl.tensor<f32, "...|...->...">, %k: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "x=4"> {
  %0 = "ocannl.einsum"(%in, %k) {spec = "o<+k; k => o"} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "x=4">
  return %0 : !ocannl.tensor<f32, "x=4">
}

// Test 17: 6_x = Affine {stride 1; over = v; kernel 3; valid}; expected
// "Solved over to d=4, basis=\"x\"".
// CHECK-LABEL: func.func @conv_reverse_label
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "x=4">
func.func @conv_reverse_label(%in: !ocannl.tensor<f32, "x=6">, %k: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%in, %k) {spec = "o<+k; k => o"} : (!ocannl.tensor<f32, "x=6">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}
