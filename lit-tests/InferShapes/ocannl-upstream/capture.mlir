// Ported from OCANNL's test/einsum/test_einsum_capture.ml (github.com/ahrefs/ocannl,
// commit c338ea3fbb8bf9f405291968ef5d50d4de341fd4; expected output
// test_einsum_capture.expected).
//
// OCANNL "captures" einsum labels into variable references (`x +* "ab;bc=>ac"
// ["a"; "b"; "c"] y`), then constrains them with `Shape.set_dim v n` and
// `Shape.set_equal v w`. The dialect has no variable references; the
// translation names the captured labels as dimension / row variables in the
// op's types (type variables are shared across a function), so:
//   - a capture is the same variable name in the result (or operand) type;
//   - `set_equal v w` is using one name for both;
//   - `set_dim v n` is a pin, `einsum(%n : "n") {spec = "x=>x"} -> "v"`
//     (an equation v = n; `%nN` arguments have the known size N);
//   - a label that appears only in operands is exposed by an observer einsum
//     reading the operand with the same spec slot (`"ij=>j" -> "j"`);
//   - type specs are parsed in single-char mode unless they have a comma, so
//     a multi-letter row variable of a spec (`..row1..`) is a one-letter
//     one in the types (`..u..`);
//   - `set_equal` of a row variable and a dimension variable (equal element
//     counts) is `ocannl.reshape` from a tensor of the row to one of the
//     dimension (OCANNL's Total_elems).
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// capture_for_computation: x 2,3, y 3,4, `z = x +* "ab;bc=>ac" ["a";"b";"c"] y`;
// expected "Dimension a: 2", "b: 3", "c: 4".
// CHECK-LABEL: func.func @capture_for_computation_abc
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2,4">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3">
func.func @capture_for_computation_abc(%x: !ocannl.tensor<f32, "2,3">, %y: !ocannl.tensor<f32, "3,4">) -> (!ocannl.tensor<f32, "a,c">, !ocannl.tensor<f32, "b">) {
  %z = "ocannl.einsum"(%x, %y) {spec = "ab;bc=>ac"} : (!ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "a,c">
  %b = "ocannl.einsum"(%x) {spec = "ab=>b"} : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "b">
  return %z, %b : !ocannl.tensor<f32, "a,c">, !ocannl.tensor<f32, "b">
}

// capture_for_computation: x2 5,7, `y2 = x2 ++ "ij=>ji" ["i";"j"]`;
// expected "Dimension i: 5", "Dimension j: 7".
// CHECK-LABEL: func.func @capture_for_computation_ij
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "7,5">
func.func @capture_for_computation_ij(%x2: !ocannl.tensor<f32, "5,7">) -> !ocannl.tensor<f32, "j,i"> {
  %y2 = "ocannl.einsum"(%x2) {spec = "ij=>ji"} : (!ocannl.tensor<f32, "5,7">) -> !ocannl.tensor<f32, "j,i">
  return %y2 : !ocannl.tensor<f32, "j,i">
}

// capture_for_computation: x3 2,3,4, y3 3,4,5, `z3 = x3 +* "a..r..;..r..b=>ab" ["r"] y3`;
// expected "Row variable r (product of dims): 12" (r = 3,4).
// CHECK-LABEL: func.func @capture_for_computation_row
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2,5">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3,4">
func.func @capture_for_computation_row(%x3: !ocannl.tensor<f32, "2,3,4">, %y3: !ocannl.tensor<f32, "3,4,5">) -> (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "..r..">) {
  %z3 = "ocannl.einsum"(%x3, %y3) {spec = "a..r..;..r..b=>ab"} : (!ocannl.tensor<f32, "2,3,4">, !ocannl.tensor<f32, "3,4,5">) -> !ocannl.tensor<f32, "...|...->...">
  %r = "ocannl.einsum"(%x3) {spec = "a..r.. => ..r.."} : (!ocannl.tensor<f32, "2,3,4">) -> !ocannl.tensor<f32, "..r..">
  return %z3, %r : !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "..r..">
}

// test_set_dim_and_set_equal, Tests 1-3: set_dim var1 42; set_equal var2
// var1 (var2 becomes 42); set_dim var3 42; set_equal var1 var3 (no error).
// CHECK-LABEL: func.func @set_dim_set_equal
// CHECK-SAME: -> (!ocannl.tensor<f32, "42">, !ocannl.tensor<f32, "42">)
func.func @set_dim_set_equal(%n42: !ocannl.tensor<f32, "42">) -> (!ocannl.tensor<f32, "v">, !ocannl.tensor<f32, "v">) {
  %v1 = "ocannl.einsum"(%n42) {spec = "x=>x"} : (!ocannl.tensor<f32, "42">) -> !ocannl.tensor<f32, "v">
  %v3 = "ocannl.einsum"(%n42) {spec = "x=>x"} : (!ocannl.tensor<f32, "42">) -> !ocannl.tensor<f32, "v">
  return %v1, %v3 : !ocannl.tensor<f32, "v">, !ocannl.tensor<f32, "v">
}

// test_set_dim_and_set_equal, Test 5: x_test 3,4, y_test 4,5,
// `x_test +* "pq;qr=>pr" ["p";"q";"r"] y_test`; expected p=3, q=4, r=5.
// CHECK-LABEL: func.func @einsum_variable_capture
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3,5">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4">
func.func @einsum_variable_capture(%x: !ocannl.tensor<f32, "3,4">, %y: !ocannl.tensor<f32, "4,5">) -> (!ocannl.tensor<f32, "p,r">, !ocannl.tensor<f32, "q">) {
  %z = "ocannl.einsum"(%x, %y) {spec = "pq;qr=>pr"} : (!ocannl.tensor<f32, "3,4">, !ocannl.tensor<f32, "4,5">) -> !ocannl.tensor<f32, "p,r">
  %q = "ocannl.einsum"(%x) {spec = "pq=>q"} : (!ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "q">
  return %z, %q : !ocannl.tensor<f32, "p,r">, !ocannl.tensor<f32, "q">
}

// test_set_dim_and_set_equal, Test 6: x_row 2,6, y_row 6,3,
// `z_row = x_row +* "a..s..;..s..b=>ab" ["s"] y_row`, `set_equal s test_dim`;
// expected "Row variable s (product): 6", "Dimension variable test_dim: 6".
// CHECK-LABEL: func.func @row_dim_equality
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2,3">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "6">
// CHECK: "ocannl.reshape"{{.*}} -> !ocannl.tensor<f32, "6">
func.func @row_dim_equality(%x: !ocannl.tensor<f32, "2,6">, %y: !ocannl.tensor<f32, "6,3">) -> (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "t">) {
  %z = "ocannl.einsum"(%x, %y) {spec = "a..s..;..s..b=>ab"} : (!ocannl.tensor<f32, "2,6">, !ocannl.tensor<f32, "6,3">) -> !ocannl.tensor<f32, "...|...->...">
  %s = "ocannl.einsum"(%x) {spec = "a..s.. => ..s.."} : (!ocannl.tensor<f32, "2,6">) -> !ocannl.tensor<f32, "..s..">
  %t = "ocannl.reshape"(%s) : (!ocannl.tensor<f32, "..s..">) -> !ocannl.tensor<f32, "t">
  return %z, %t : !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "t">
}

// capture_for_shape_validation, Test 1: a1 4,6, b1 6,4,
// `c1 = a1 +* "ij;jk=>ik" ["i";"j";"k"] b1`, `set_equal i k`; expected
// "Output c1 shape: 4,4", "Dimension i: 4, k: 4".
// CHECK-LABEL: func.func @validation_i_equals_k
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4,4">
func.func @validation_i_equals_k(%a1: !ocannl.tensor<f32, "4,6">, %b1: !ocannl.tensor<f32, "6,4">) -> !ocannl.tensor<f32, "i,i"> {
  %c1 = "ocannl.einsum"(%a1, %b1) {spec = "ij;jk=>ik"} : (!ocannl.tensor<f32, "4,6">, !ocannl.tensor<f32, "6,4">) -> !ocannl.tensor<f32, "i,i">
  return %c1 : !ocannl.tensor<f32, "i,i">
}

// capture_for_shape_validation, Test 2: x2 3,5,7, y2 5,7,3,
// `z2 = x2 +* "abc;bcd=>ad" y2`, `set_equal a d`, `set_dim fixed_c 7`,
// `set_equal c fixed_c`; expected "Output z2 shape: 3,3", a=3, b=5, c=7, d=3.
// CHECK-LABEL: func.func @validation_multiple_constraints
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3,3">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "7">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "7">
func.func @validation_multiple_constraints(%x2: !ocannl.tensor<f32, "3,5,7">, %y2: !ocannl.tensor<f32, "5,7,3">, %n7: !ocannl.tensor<f32, "7">) -> (!ocannl.tensor<f32, "a,a">, !ocannl.tensor<f32, "c">, !ocannl.tensor<f32, "c">) {
  %z2 = "ocannl.einsum"(%x2, %y2) {spec = "abc;bcd=>ad"} : (!ocannl.tensor<f32, "3,5,7">, !ocannl.tensor<f32, "5,7,3">) -> !ocannl.tensor<f32, "a,a">
  %c = "ocannl.einsum"(%x2) {spec = "abc=>c"} : (!ocannl.tensor<f32, "3,5,7">) -> !ocannl.tensor<f32, "c">
  %pin = "ocannl.einsum"(%n7) {spec = "x=>x"} : (!ocannl.tensor<f32, "7">) -> !ocannl.tensor<f32, "c">
  return %z2, %c, %pin : !ocannl.tensor<f32, "a,a">, !ocannl.tensor<f32, "c">, !ocannl.tensor<f32, "c">
}

// capture_for_shape_validation, Test 3: r1 2,3,4, r2 3,5,
// `r3 = r1 +* "a, ..row1.., b; ..row2.., c => a, ..row1.., c" r2`,
// `set_equal row1 row2` (equal element counts); expected "Output r3 shape:
// 2,3,5", "Row1 total: 3, Row2 total: 3".
// CHECK-LABEL: func.func @validation_row_constraints
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2,3,5">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3">
// CHECK: "ocannl.reshape"{{.*}} -> !ocannl.tensor<f32, "3">
func.func @validation_row_constraints(%r1: !ocannl.tensor<f32, "2,3,4">, %r2: !ocannl.tensor<f32, "3,5">) -> (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "..w..">) {
  %r3 = "ocannl.einsum"(%r1, %r2) {spec = "a, ..row1.., b; ..row2.., c => a, ..row1.., c"} : (!ocannl.tensor<f32, "2,3,4">, !ocannl.tensor<f32, "3,5">) -> !ocannl.tensor<f32, "...|...->...">
  %row1 = "ocannl.einsum"(%r1) {spec = "a, ..row1.., b => ..row1.."} : (!ocannl.tensor<f32, "2,3,4">) -> !ocannl.tensor<f32, "..u..">
  %row2 = "ocannl.einsum"(%r2) {spec = "..row2.., c => ..row2.."} : (!ocannl.tensor<f32, "3,5">) -> !ocannl.tensor<f32, "..w..">
  %eq = "ocannl.reshape"(%row1) : (!ocannl.tensor<f32, "..u..">) -> !ocannl.tensor<f32, "..w..">
  return %r3, %eq : !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "..w..">
}

// capture_for_shape_validation, Test 4: m1 2,4,8,
// `m2 = m1 ++ "..mix.., n => n, ..mix.." ["mix";"n"]`, `set_equal mix n`;
// expected "Output m2 shape: 8,2,4", "Dimension n: 8", "Row mix total: 8".
// CHECK-LABEL: func.func @validation_row_dim_mixed
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "8,2,4">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2,4">
// CHECK: "ocannl.reshape"{{.*}} -> !ocannl.tensor<f32, "8">
func.func @validation_row_dim_mixed(%m1: !ocannl.tensor<f32, "2,4,8">) -> (!ocannl.tensor<f32, "n,..m..">, !ocannl.tensor<f32, "n">) {
  %m2 = "ocannl.einsum"(%m1) {spec = "..mix.., n => n, ..mix.."} : (!ocannl.tensor<f32, "2,4,8">) -> !ocannl.tensor<f32, "n,..m..">
  %mix = "ocannl.einsum"(%m2) {spec = "n, ..mix.. => ..mix.."} : (!ocannl.tensor<f32, "n,..m..">) -> !ocannl.tensor<f32, "..m..">
  %eq = "ocannl.reshape"(%mix) : (!ocannl.tensor<f32, "..m..">) -> !ocannl.tensor<f32, "n">
  return %m2, %eq : !ocannl.tensor<f32, "n,..m..">, !ocannl.tensor<f32, "n">
}

// capture_for_shape_validation, Test 5: chain1 4,5,
// `chain2 = chain1 ++ "a, b => b, a" ["a";"b"]`, chain3 5,6,
// `chain4 = chain2 +* "e, d; e, f => d, f" ["d";"e";"f"] chain3`,
// `set_equal a d`, `set_equal b e`, `set_dim final_size 4`, `set_equal d final_size`;
// expected chain2 5,4, chain4 4,6, a=4, b=5, d=4, e=5, f=6.
// CHECK-LABEL: func.func @validation_chain
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "5,4">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4,6">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4">
func.func @validation_chain(%chain1: !ocannl.tensor<f32, "4,5">, %chain3: !ocannl.tensor<f32, "5,6">, %n4: !ocannl.tensor<f32, "4">) -> (!ocannl.tensor<f32, "a,f">, !ocannl.tensor<f32, "a">) {
  %chain2 = "ocannl.einsum"(%chain1) {spec = "a, b => b, a"} : (!ocannl.tensor<f32, "4,5">) -> !ocannl.tensor<f32, "b,a">
  %chain4 = "ocannl.einsum"(%chain2, %chain3) {spec = "e, d; e, f => d, f"} : (!ocannl.tensor<f32, "b,a">, !ocannl.tensor<f32, "5,6">) -> !ocannl.tensor<f32, "a,f">
  %pin = "ocannl.einsum"(%n4) {spec = "x=>x"} : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "a">
  return %chain4, %pin : !ocannl.tensor<f32, "a,f">, !ocannl.tensor<f32, "a">
}

// capture_for_shape_inference, Test 1: m1, m2 with no shape,
// `result1 = m1 +* "ij;jk=>ik" m2`, i = 3, j = 4, k = 5 (set_dim + set_equal);
// expected m1 3,4, m2 4,5, result1 3,5.
// CHECK-LABEL: func.func @pure_inference_matmul
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "3,4">, %{{.*}}: !ocannl.tensor<f32, "4,5">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3,5">
func.func @pure_inference_matmul(%m1: !ocannl.tensor<f32, "...|...->...">, %m2: !ocannl.tensor<f32, "...|...->...">, %n3: !ocannl.tensor<f32, "3">, %n4: !ocannl.tensor<f32, "4">, %n5: !ocannl.tensor<f32, "5">) -> (!ocannl.tensor<f32, "i,k">, !ocannl.tensor<f32, "j">, !ocannl.tensor<f32, "i">, !ocannl.tensor<f32, "j">, !ocannl.tensor<f32, "k">) {
  %r = "ocannl.einsum"(%m1, %m2) {spec = "ij;jk=>ik"} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "i,k">
  %j = "ocannl.einsum"(%m1) {spec = "ij=>j"} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "j">
  %pi = "ocannl.einsum"(%n3) {spec = "x=>x"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "i">
  %pj = "ocannl.einsum"(%n4) {spec = "x=>x"} : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "j">
  %pk = "ocannl.einsum"(%n5) {spec = "x=>x"} : (!ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "k">
  return %r, %j, %pi, %pj, %pk : !ocannl.tensor<f32, "i,k">, !ocannl.tensor<f32, "j">, !ocannl.tensor<f32, "i">, !ocannl.tensor<f32, "j">, !ocannl.tensor<f32, "k">
}

// capture_for_shape_inference, Test 2: base, multiplied with no shape,
// `transposed = base ++ "ab=>ba"`, `final = transposed +* "ba;bc=>ac" multiplied`,
// a = 6, b = 8, c = 10; expected base 6,8, transposed 8,6, multiplied 8,10, final 6,10.
// CHECK-LABEL: func.func @pure_inference_chain
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "6,8">, %{{.*}}: !ocannl.tensor<f32, "8,10">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "8,6">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "6,10">
func.func @pure_inference_chain(%base: !ocannl.tensor<f32, "...|...->...">, %multiplied: !ocannl.tensor<f32, "...|...->...">, %n6: !ocannl.tensor<f32, "6">, %n8: !ocannl.tensor<f32, "8">, %n10: !ocannl.tensor<f32, "10">) -> (!ocannl.tensor<f32, "a,c">, !ocannl.tensor<f32, "a">, !ocannl.tensor<f32, "b">, !ocannl.tensor<f32, "c">) {
  %t = "ocannl.einsum"(%base) {spec = "ab=>ba"} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "b,a">
  %f = "ocannl.einsum"(%t, %multiplied) {spec = "ba;bc=>ac"} : (!ocannl.tensor<f32, "b,a">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "a,c">
  %pa = "ocannl.einsum"(%n6) {spec = "x=>x"} : (!ocannl.tensor<f32, "6">) -> !ocannl.tensor<f32, "a">
  %pb = "ocannl.einsum"(%n8) {spec = "x=>x"} : (!ocannl.tensor<f32, "8">) -> !ocannl.tensor<f32, "b">
  %pc = "ocannl.einsum"(%n10) {spec = "x=>x"} : (!ocannl.tensor<f32, "10">) -> !ocannl.tensor<f32, "c">
  return %f, %pa, %pb, %pc : !ocannl.tensor<f32, "a,c">, !ocannl.tensor<f32, "a">, !ocannl.tensor<f32, "b">, !ocannl.tensor<f32, "c">
}

// capture_for_shape_inference, Test 3: `result3 = tensor1 +* "xy;yz=>xz" tensor2`,
// x = 7, y = 8, z = 9; expected tensor1 7,8, tensor2 8,9, result3 7,9.
// CHECK-LABEL: func.func @pure_inference_xyz
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "7,8">, %{{.*}}: !ocannl.tensor<f32, "8,9">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "7,9">
func.func @pure_inference_xyz(%t1: !ocannl.tensor<f32, "...|...->...">, %t2: !ocannl.tensor<f32, "...|...->...">, %n7: !ocannl.tensor<f32, "7">, %n8: !ocannl.tensor<f32, "8">, %n9: !ocannl.tensor<f32, "9">) -> (!ocannl.tensor<f32, "x,z">, !ocannl.tensor<f32, "y">, !ocannl.tensor<f32, "x">, !ocannl.tensor<f32, "y">, !ocannl.tensor<f32, "z">) {
  %r = "ocannl.einsum"(%t1, %t2) {spec = "xy;yz=>xz"} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "x,z">
  %y = "ocannl.einsum"(%t2) {spec = "yz=>y"} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "y">
  %px = "ocannl.einsum"(%n7) {spec = "a=>a"} : (!ocannl.tensor<f32, "7">) -> !ocannl.tensor<f32, "x">
  %py = "ocannl.einsum"(%n8) {spec = "a=>a"} : (!ocannl.tensor<f32, "8">) -> !ocannl.tensor<f32, "y">
  %pz = "ocannl.einsum"(%n9) {spec = "a=>a"} : (!ocannl.tensor<f32, "9">) -> !ocannl.tensor<f32, "z">
  return %r, %y, %px, %py, %pz : !ocannl.tensor<f32, "x,z">, !ocannl.tensor<f32, "y">, !ocannl.tensor<f32, "x">, !ocannl.tensor<f32, "y">, !ocannl.tensor<f32, "z">
}

// capture_for_shape_inference, Test 4: `complex1 +* "pqr;rst=>pqst" complex2`,
// p = t = 4, q = s, r = 6, q = 5; expected complex1 4,5,6, complex2 6,5,4,
// result 4,5,5,4.
// CHECK-LABEL: func.func @pure_inference_interdependent
// CHECK-SAME: (%{{.*}}: !ocannl.tensor<f32, "4,5,6">, %{{.*}}: !ocannl.tensor<f32, "6,5,4">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4,5,5,4">
func.func @pure_inference_interdependent(%c1: !ocannl.tensor<f32, "...|...->...">, %c2: !ocannl.tensor<f32, "...|...->...">, %n4: !ocannl.tensor<f32, "4">, %n5: !ocannl.tensor<f32, "5">, %n6: !ocannl.tensor<f32, "6">) -> (!ocannl.tensor<f32, "p,q,q,p">, !ocannl.tensor<f32, "r">, !ocannl.tensor<f32, "p">, !ocannl.tensor<f32, "q">, !ocannl.tensor<f32, "r">) {
  %res = "ocannl.einsum"(%c1, %c2) {spec = "pqr;rst=>pqst"} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "p,q,q,p">
  %r = "ocannl.einsum"(%c1) {spec = "pqr=>r"} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "r">
  %pp = "ocannl.einsum"(%n4) {spec = "a=>a"} : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "p">
  %pq = "ocannl.einsum"(%n5) {spec = "a=>a"} : (!ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "q">
  %pr = "ocannl.einsum"(%n6) {spec = "a=>a"} : (!ocannl.tensor<f32, "6">) -> !ocannl.tensor<f32, "r">
  return %res, %r, %pp, %pq, %pr : !ocannl.tensor<f32, "p,q,q,p">, !ocannl.tensor<f32, "r">, !ocannl.tensor<f32, "p">, !ocannl.tensor<f32, "q">, !ocannl.tensor<f32, "r">
}

// test_dim_row_var_name_clash, Test 3: no clash when dim and row variable
// names differ: x3 2,3,4, y3 3,4,5, `x3 +* "a, ..r..; ..r.., b => a, b" y3`
// succeeds ("Test 3 - PASS").
// CHECK-LABEL: func.func @no_name_clash
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2,5">
func.func @no_name_clash(%x3: !ocannl.tensor<f32, "2,3,4">, %y3: !ocannl.tensor<f32, "3,4,5">) -> !ocannl.tensor<f32, "...|...->..."> {
  %z3 = "ocannl.einsum"(%x3, %y3) {spec = "a, ..r..; ..r.., b => a, b"} : (!ocannl.tensor<f32, "2,3,4">, !ocannl.tensor<f32, "3,4,5">) -> !ocannl.tensor<f32, "...|...->...">
  return %z3 : !ocannl.tensor<f32, "...|...->...">
}
