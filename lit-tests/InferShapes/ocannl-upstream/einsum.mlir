// Ported from OCANNL's own tests (github.com/ahrefs/ocannl, commit
// c338ea3fbb8bf9f405291968ef5d50d4de341fd4): einsum shape inference.
// OCANNL prints shapes axis-by-axis as `index:size` in memory order (batch @
// output @ input), e.g. `0:4|2:2->1:3`; the CHECK lines give the same shape as
// a `batch|input->output` spec ("4|2->3"). `TDSL.range_of_shape ~batch_dims
// ~input_dims ~output_dims` and `Tensor.ndarray` terminals become arguments of
// that known type; `t ++ "spec"` is a one-operand `ocannl.einsum`, `a +* "spec"
// b` a two-operand one.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// test/einsum/einsum_trivia_exec.ml (first block), `ho = hey ++ "b|i->o => o|b->i"`;
// expected `0:4|2:2->1:3`.
// CHECK-LABEL: func.func @trivia_permute
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4|2->3">
func.func @trivia_permute(%hey: !ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%hey) {spec = "b|i->o => o|b->i"} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// einsum_trivia_exec.ml, `ho2 = hey2 ++ "ab|cd->ef => cf|ae->db"`;
// expected `0:4,1:7|4:2,5:6->2:5,3:3`.
// CHECK-LABEL: func.func @trivia_permute2
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4,7|2,6->5,3">
func.func @trivia_permute2(%hey2: !ocannl.tensor<f32, "2,3|4,5->6,7">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%hey2) {spec = "ab|cd->ef => cf|ae->db"} : (!ocannl.tensor<f32, "2,3|4,5->6,7">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// einsum_trivia_exec.ml, `c = a +* "...|i->1; ...|...->i => ...|i" b` with a
// 3|4->2 and b 3|1->4 (a fixed index 1 on a's output); expected `0:3|1:4`
// (printed three times in the file, same shape each time).
// CHECK-LABEL: func.func @trivia_fixed_index_contraction
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3|4">
func.func @trivia_fixed_index_contraction(%a: !ocannl.tensor<f32, "3|4->2">, %b: !ocannl.tensor<f32, "3|1->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a, %b) {spec = "...|i->1; ...|...->i => ...|i"} : (!ocannl.tensor<f32, "3|4->2">, !ocannl.tensor<f32, "3|1->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// einsum_trivia_exec.ml, `c = a +* "...|i->...; ...|...->i => ...|i" b`; expected `0:3|1:4`.
// CHECK-LABEL: func.func @trivia_row_contraction
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3|4">
func.func @trivia_row_contraction(%a: !ocannl.tensor<f32, "3|4->2">, %b: !ocannl.tensor<f32, "3|1->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a, %b) {spec = "...|i->...; ...|...->i => ...|i"} : (!ocannl.tensor<f32, "3|4->2">, !ocannl.tensor<f32, "3|1->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// einsum_trivia_exec.ml (second block), `ho = hey ++ "b|i->o => b|i"`
// (reduce the output axis); expected `0:2|1:3`.
// CHECK-LABEL: func.func @trivia_reduce_output
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2|3">
func.func @trivia_reduce_output(%hey: !ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%hey) {spec = "b|i->o => b|i"} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// einsum_trivia_exec.ml, `ho2 = hey2 ++ "ab|cd->ef => c|a->d"`; expected `0:4|2:2->1:5`.
// CHECK-LABEL: func.func @trivia_permute_sum
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4|2->5">
func.func @trivia_permute_sum(%hey2: !ocannl.tensor<f32, "2,3|4,5->6,7">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%hey2) {spec = "ab|cd->ef => c|a->d"} : (!ocannl.tensor<f32, "2,3|4,5->6,7">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// einsum_trivia_exec.ml (third block), `c = a + 1 +* "i; j => i->j" b` with a
// = range 2, b = range 3 (an outer product into input/output rows); expected
// `1:2->0:3`. `a + 1` is a pointwise add of the scalar constant 1.
// CHECK-LABEL: func.func @trivia_outer_product
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "2">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2->3">
func.func @trivia_outer_product(%a: !ocannl.tensor<f32, "2">, %b: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %one = "ocannl.constant"() {value = 1.0 : f32} : () -> !ocannl.tensor<f32, "">
  %a1 = "ocannl.add"(%a, %one) : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "">) -> !ocannl.tensor<f32, "...|...->...">
  %0 = "ocannl.einsum"(%a1, %b) {spec = "i; j => i->j"} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// einsum_trivia_exec.ml, `c = a +* "i|j->k; l|m->n => il|jm->kn" b` with a
// 2|3->4, b 5|6->7; expected `0:2,1:5|4:3,5:6->2:4,3:7`.
// CHECK-LABEL: func.func @trivia_outer_all_rows
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2,5|3,6->4,7">
func.func @trivia_outer_all_rows(%a: !ocannl.tensor<f32, "2|3->4">, %b: !ocannl.tensor<f32, "5|6->7">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a, %b) {spec = "i|j->k; l|m->n => il|jm->kn"} : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "5|6->7">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// einsum_trivia_exec.ml (fourth block): a 2|3->4, b 2|4->5.
//   a2 = a +* "b|i->o; b|i->o => b|i->o" a   expected `0:2|2:3->1:4`
//   c  = b +* "b|h->o; b|i->h => b|i->o" a   expected `0:2|2:3->1:5`
//   d  = a +* "a|i->h; b|h->o => ab|i->o" b  expected `0:2,1:2|3:3->2:5`
//   e  = a +* "b|i->h; b|h->o => i->o" b     expected `1:3->0:5`
//   f  = a +* "a|i->h; b|h->o => i->o" b     expected `1:3->0:5`
// CHECK-LABEL: func.func @trivia_binary_specs
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2|3->4">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2|3->5">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2,2|3->5">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3->5">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3->5">
func.func @trivia_binary_specs(%a: !ocannl.tensor<f32, "2|3->4">, %b: !ocannl.tensor<f32, "2|4->5">) -> (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) {
  %a2 = "ocannl.einsum"(%a, %a) {spec = "b|i->o; b|i->o => b|i->o"} : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  %c = "ocannl.einsum"(%b, %a) {spec = "b|h->o; b|i->h => b|i->o"} : (!ocannl.tensor<f32, "2|4->5">, !ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  %d = "ocannl.einsum"(%a, %b) {spec = "a|i->h; b|h->o => ab|i->o"} : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "2|4->5">) -> !ocannl.tensor<f32, "...|...->...">
  %e = "ocannl.einsum"(%a, %b) {spec = "b|i->h; b|h->o => i->o"} : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "2|4->5">) -> !ocannl.tensor<f32, "...|...->...">
  %f = "ocannl.einsum"(%a, %b) {spec = "a|i->h; b|h->o => i->o"} : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "2|4->5">) -> !ocannl.tensor<f32, "...|...->...">
  return %a2, %c, %d, %e, %f : !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">
}

// einsum_trivia_exec.ml (fifth block), row variables: hey 2|3->4,
// hey2 2,3|4,5->6,7, hey3 3,4, hey4 2->3,4.
//   ho  = hey ++ "...|i->o => ...|o->i"                       expected `0:2|2:4->1:3`
//   ho2 = hey ++ "b|...->o => o|...->b"                       expected `0:4|2:3->1:2`
//   ho3 = hey2 ++ "...b|...i->...o => ...i|...o->...b"        expected `0:2,1:5|4:4,5:7->2:6,3:3`
//   ho4 = hey2 ++ "...b|...i->...o => i|o->b"                 expected `0:5|2:7->1:3`
//   ho5 = hey ++ "...|...->...o => o"                         expected `0:4`
//   ho6 = hey3 ++ "...|...->...o => o"                        expected `0:4`
//   ho7 = hey4 ++ "i->...o => ...io" (broadcast with a shift) expected `0:3,1:2,2:4`
// CHECK-LABEL: func.func @trivia_row_variables
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2|4->3">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4|3->2">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2,5|4,7->6,3">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "5|7->3">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3,2,4">
func.func @trivia_row_variables(%hey: !ocannl.tensor<f32, "2|3->4">, %hey2: !ocannl.tensor<f32, "2,3|4,5->6,7">, %hey3: !ocannl.tensor<f32, "3,4">, %hey4: !ocannl.tensor<f32, "2->3,4">) -> (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) {
  %ho = "ocannl.einsum"(%hey) {spec = "...|i->o => ...|o->i"} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  %ho2 = "ocannl.einsum"(%hey) {spec = "b|...->o => o|...->b"} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  %ho3 = "ocannl.einsum"(%hey2) {spec = "...b|...i->...o => ...i|...o->...b"} : (!ocannl.tensor<f32, "2,3|4,5->6,7">) -> !ocannl.tensor<f32, "...|...->...">
  %ho4 = "ocannl.einsum"(%hey2) {spec = "...b|...i->...o => i|o->b"} : (!ocannl.tensor<f32, "2,3|4,5->6,7">) -> !ocannl.tensor<f32, "...|...->...">
  %ho5 = "ocannl.einsum"(%hey) {spec = "...|...->...o => o"} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  %ho6 = "ocannl.einsum"(%hey3) {spec = "...|...->...o => o"} : (!ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "...|...->...">
  %ho7 = "ocannl.einsum"(%hey4) {spec = "i->...o => ...io"} : (!ocannl.tensor<f32, "2->3,4">) -> !ocannl.tensor<f32, "...|...->...">
  return %ho, %ho2, %ho3, %ho4, %ho5, %ho6, %ho7 : !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">
}

// einsum_trivia_exec.ml (sixth block), `f = d +* "i->...;j->... => ...ij" e`
// with d 2->3, e 4->3 (broadcast with a shift); expected `0:3,1:2,2:4`.
// CHECK-LABEL: func.func @trivia_shifted_outer
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3,2,4">
func.func @trivia_shifted_outer(%d: !ocannl.tensor<f32, "2->3">, %e: !ocannl.tensor<f32, "4->3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%d, %e) {spec = "i->...;j->... => ...ij"} : (!ocannl.tensor<f32, "2->3">, !ocannl.tensor<f32, "4->3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// einsum_trivia_exec.ml (seventh block), fixed indices: hey 2|3->4, hey2 2->3.
//   ho  = hey ++ "...|1->... => ...|..."        expected `0:2|1:4`
//   ho2 = hey ++ "...|...->... => ...|...->0"   expected `0:2|2:3->1:1`
//   ho3 = hey2 ++ "...|...->... => 0"           expected `0:1`
//   ho4 = hey2 ++ "i->j => i0j"                 expected `0:2,1:1,2:3`
// CHECK-LABEL: func.func @trivia_fixed_indices
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2|4">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2|3->1">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "1">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2,1,3">
func.func @trivia_fixed_indices(%hey: !ocannl.tensor<f32, "2|3->4">, %hey2: !ocannl.tensor<f32, "2->3">) -> (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) {
  %ho = "ocannl.einsum"(%hey) {spec = "...|1->... => ...|..."} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  %ho2 = "ocannl.einsum"(%hey) {spec = "...|...->... => ...|...->0"} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  %ho3 = "ocannl.einsum"(%hey2) {spec = "...|...->... => 0"} : (!ocannl.tensor<f32, "2->3">) -> !ocannl.tensor<f32, "...|...->...">
  %ho4 = "ocannl.einsum"(%hey2) {spec = "i->j => i0j"} : (!ocannl.tensor<f32, "2->3">) -> !ocannl.tensor<f32, "...|...->...">
  return %ho, %ho2, %ho3, %ho4 : !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">
}

// einsum_trivia_exec.ml (ninth block): a fixed index on a result axis only
// forces a lower bound; the axes grow to what the uses need.
//   ti = range 4 ++ "i=>i0"; then `ti =: 0 ++ "i=>i2"` writes position 2
//   tj = range 5 ++ "j=>j1";  tk = range 6 ++ "k=>k2"
//   positions = outer_sum "ijl;kl=>ijkl" (outer_sum "il;jl=>ijl" ti tj) tk
// expected: positions `0:4,1:5,2:6,3:3`, ti `0:4,1:3`, tk `0:6,1:3`.
// The `%cd` assignment `ti =: 0 ++ "i=>i2"` (ti on the left of an einsum with
// spec lhs `i2`) has no MLIR counterpart (ops do not assign into existing
// values); it is translated as a read of ti through the same row `i2`
// (`ti ++ "i2=>i"`), which puts the same constraint on ti's shape.
// `outer_sum` is an einsum with combine = add.
// CHECK-LABEL: func.func @trivia_fixed_index_lower_bounds
// CHECK: %[[TI:.*]] = "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4,3">
// CHECK: "ocannl.einsum"(%[[TI]]) {{.*}} -> !ocannl.tensor<f32, "4">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "5,3">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "6,3">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4,5,3">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4,5,6,3">
func.func @trivia_fixed_index_lower_bounds(%ri: !ocannl.tensor<f32, "4">, %rj: !ocannl.tensor<f32, "5">, %rk: !ocannl.tensor<f32, "6">) -> (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) {
  %ti = "ocannl.einsum"(%ri) {spec = "i=>i0"} : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->...">
  %w = "ocannl.einsum"(%ti) {spec = "i2=>i"} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %tj = "ocannl.einsum"(%rj) {spec = "j=>j1"} : (!ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "...|...->...">
  %tk = "ocannl.einsum"(%rk) {spec = "k=>k2"} : (!ocannl.tensor<f32, "6">) -> !ocannl.tensor<f32, "...|...->...">
  %ij = "ocannl.einsum"(%ti, %tj) {spec = "il;jl=>ijl", combine = "add"} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %pos = "ocannl.einsum"(%ij, %tk) {spec = "ijl;kl=>ijkl", combine = "add"} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %pos, %w : !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">
}

// einsum_trivia_exec.ml (tenth block), `c = a +* "...|i->1; ...|j...->i => ...|ij" b`
// with a 3|4->2, b 3|2,3->4 (`j...`: a leading axis before the row
// variable); expected `0:3|1:4,2:2`.
// CHECK-LABEL: func.func @trivia_leading_axis_in_spec
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3|4,2">
func.func @trivia_leading_axis_in_spec(%a: !ocannl.tensor<f32, "3|4->2">, %b: !ocannl.tensor<f32, "3|2,3->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a, %b) {spec = "...|i->1; ...|j...->i => ...|ij"} : (!ocannl.tensor<f32, "3|4->2">, !ocannl.tensor<f32, "3|2,3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// einsum_trivia_exec.ml (last block), `c = a +* "i->1; ij...->0 => ...->ji" b`
// with a 2->2, b 2,3,4->2; expected `2:4->0:3,1:2`.
// CHECK-LABEL: func.func @trivia_leading_axes_input_row
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4->3,2">
func.func @trivia_leading_axes_input_row(%a: !ocannl.tensor<f32, "2->2">, %b: !ocannl.tensor<f32, "2,3,4->2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a, %b) {spec = "i->1; ij...->0 => ...->ji"} : (!ocannl.tensor<f32, "2->2">, !ocannl.tensor<f32, "2,3,4->2">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test/einsum/test_surjectivity.ml, test_diagonal_tensor: `range 5 ++ "i=>ii"`;
// expected `0:5,1:5`. Same in test_accumulation_semantics.ml and
// test_virtual_diagonal.ml (`+_consumer shape 0:5,1:5`).
// CHECK-LABEL: func.func @surjectivity_diagonal
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "5,5">
func.func @surjectivity_diagonal(%input: !ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%input) {spec = "i=>ii"} : (!ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_surjectivity.ml, test_sparse_fixed_index: `range 4 ++ "i=>i0"`; expected `0:4,1:1`.
// CHECK-LABEL: func.func @surjectivity_sparse
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4,1">
func.func @surjectivity_sparse(%input: !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%input) {spec = "i=>i0"} : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test_surjectivity.ml, test_multi_sparse: `range_of_shape [3; 4] ++ "ij=>i1j"`;
// expected `0:3,1:2,2:4` (fixed index 1 needs an axis of at least 2).
// CHECK-LABEL: func.func @surjectivity_multi_sparse
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3,2,4">
func.func @surjectivity_multi_sparse(%input: !ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%input) {spec = "ij=>i1j"} : (!ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// test/einsum/test_accumulation_semantics.ml: input 2|3->4.
//   `input ++ "b|i->o => b|i"`                          expected `0:2|1:3`
//   sparse = range 4 ++ "i=>i0"; _ = sparse ++ "i2=>i"  expected sparse `0:4,1:3`
//   `range_of_shape [3; 4] ++ "ij=>ji"`                 expected `0:4,1:3`
// CHECK-LABEL: func.func @accumulation_semantics
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2|3">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4,3">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4,3">
func.func @accumulation_semantics(%input: !ocannl.tensor<f32, "2|3->4">, %r4: !ocannl.tensor<f32, "4">, %r34: !ocannl.tensor<f32, "3,4">) -> (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) {
  %0 = "ocannl.einsum"(%input) {spec = "b|i->o => b|i"} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  %sparse = "ocannl.einsum"(%r4) {spec = "i=>i0"} : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->...">
  %1 = "ocannl.einsum"(%sparse) {spec = "i2=>i"} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %2 = "ocannl.einsum"(%r34) {spec = "ij=>ji"} : (!ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0, %1, %2 : !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">
}

// test/einsum/test_virtual_diagonal.ml, partially diagonal
// `partial = range_of_shape [3; 4] ++ "ij=>iji"` then `partial + 1`;
// expected `+_consumer shape 0:3,1:4,2:3`.
// CHECK-LABEL: func.func @partial_diagonal
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3,4,3">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "3,4,3">
func.func @partial_diagonal(%input: !ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %one = "ocannl.constant"() {value = 1.0 : f32} : () -> !ocannl.tensor<f32, "">
  %0 = "ocannl.einsum"(%input) {spec = "ij=>iji"} : (!ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "...|...->...">
  %1 = "ocannl.add"(%0, %one) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "">) -> !ocannl.tensor<f32, "...|...->...">
  return %1 : !ocannl.tensor<f32, "...|...->...">
}

// test/einsum/gnn_broadcast.ml (no .expected file; the expected shapes are
// stated in its comments): src, dst of output 3,4 (nodes 3, features 4).
//   pairwise "i, f; j, f => i, j, f"                        "Expected output row: i, j, f = 3, 3, 4"
//   pairwise_batched "..g.. | i, f; ..g.. | j, f => ..g.. | i, j, f" with b = [2]
//                                                           "batch g = 2, output i, j, f = 3, 3, 4"
//   aggregate "..g.. | v, u; ..g.. | u, f => ..g.. | v, f" with adj 2|3,3, h 2|3,4
//                                                           "batch g = 2, output v, f = 3, 4"
// CHECK-LABEL: func.func @gnn_broadcast
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3,3,4">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2|3,3,4">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2|3,4">
func.func @gnn_broadcast(%src: !ocannl.tensor<f32, "3,4">, %dst: !ocannl.tensor<f32, "3,4">, %src_b: !ocannl.tensor<f32, "2|3,4">, %dst_b: !ocannl.tensor<f32, "2|3,4">, %adj: !ocannl.tensor<f32, "2|3,3">, %h: !ocannl.tensor<f32, "2|3,4">) -> (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) {
  %edges = "ocannl.einsum"(%src, %dst) {spec = "i, f; j, f => i, j, f"} : (!ocannl.tensor<f32, "3,4">, !ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "...|...->...">
  %edges_b = "ocannl.einsum"(%src_b, %dst_b) {spec = "..g.. | i, f; ..g.. | j, f => ..g.. | i, j, f"} : (!ocannl.tensor<f32, "2|3,4">, !ocannl.tensor<f32, "2|3,4">) -> !ocannl.tensor<f32, "...|...->...">
  %out = "ocannl.einsum"(%adj, %h) {spec = "..g.. | v, u; ..g.. | u, f => ..g.. | v, f"} : (!ocannl.tensor<f32, "2|3,3">, !ocannl.tensor<f32, "2|3,4">) -> !ocannl.tensor<f32, "...|...->...">
  return %edges, %edges_b, %out : !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">
}

// test/operations/test_einsum3.ml, Tests 1 and 6: `einsum3 "ij;jk;km=>im"` of
// three 2x2 tensors (4 result values printed: 2x2). Test 2: batched
// `einsum3 "bij;bjk;bkm=>bim"` of three 2,2,2 tensors (8 values: 2x2x2).
// Test 8: `where ~spec:"ij;ij;ij=>i"` of 2x2 tensors reduces j (2 values
// printed, `[12 43]`): an einsum of three operands with the spec (the
// dialect's `where` has no spec; the shape logic is the einsum's).
// CHECK-LABEL: func.func @einsum3
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2,2">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2,2,2">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2">
func.func @einsum3(%a: !ocannl.tensor<f32, "2,2">, %b: !ocannl.tensor<f32, "2,2">, %c: !ocannl.tensor<f32, "2,2">, %a3: !ocannl.tensor<f32, "2,2,2">, %b3: !ocannl.tensor<f32, "2,2,2">, %c3: !ocannl.tensor<f32, "2,2,2">) -> (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) {
  %0 = "ocannl.einsum"(%a, %b, %c) {spec = "ij;jk;km=>im"} : (!ocannl.tensor<f32, "2,2">, !ocannl.tensor<f32, "2,2">, !ocannl.tensor<f32, "2,2">) -> !ocannl.tensor<f32, "...|...->...">
  %1 = "ocannl.einsum"(%a3, %b3, %c3) {spec = "bij;bjk;bkm=>bim"} : (!ocannl.tensor<f32, "2,2,2">, !ocannl.tensor<f32, "2,2,2">, !ocannl.tensor<f32, "2,2,2">) -> !ocannl.tensor<f32, "...|...->...">
  %2 = "ocannl.einsum"(%a, %b, %c) {spec = "ij;ij;ij=>i"} : (!ocannl.tensor<f32, "2,2">, !ocannl.tensor<f32, "2,2">, !ocannl.tensor<f32, "2,2">) -> !ocannl.tensor<f32, "...|...->...">
  return %0, %1, %2 : !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">
}

// test/einsum/test_inference_counterexamples.ml, "cyclic row permute added to
// original, concrete periodic shape" (expect `Success): x of output 3,5,3,
// `y = x + (x ++ "a,b,..r.. => ..r..,b,a")`. The file has no .expected;
// the success shape follows: a = 3, b = 5, r = [3], the permute is 3,5,3.
// CHECK-LABEL: func.func @cyclic_row_permute_concrete
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3,5,3">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "3,5,3">
func.func @cyclic_row_permute_concrete(%x: !ocannl.tensor<f32, "3,5,3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %p = "ocannl.einsum"(%x) {spec = "a,b,..r.. => ..r..,b,a"} : (!ocannl.tensor<f32, "3,5,3">) -> !ocannl.tensor<f32, "...|...->...">
  %y = "ocannl.add"(%x, %p) : (!ocannl.tensor<f32, "3,5,3">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %y : !ocannl.tensor<f32, "...|...->...">
}

// test/einsum/test_einsum_parser.ml and test_conv_syntax.ml parse specs and
// count axes; the counts are checked here through inference:
//   'abc' -> 3 output axes (single-char mode)
//   'a, b, c' -> 3 output axes; 'a, b,' -> 2 output axes (trailing comma)
//   'b|i->o' -> batch:1 input:1 output:1
//   '...|ij' (ellipsis in batch axes), 'j...' (matching on beginning axes),
//   '...|j...->i', 'i->j' parse in single-char mode
// CHECK-LABEL: func.func @parser_axis_counts
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4,3,2">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4,3,2">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "3,2">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4|3->2">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "5,7">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "2">
// CHECK: "ocannl.einsum"{{.*}} -> !ocannl.tensor<f32, "4|3,5->2">
func.func @parser_axis_counts(%x: !ocannl.tensor<f32, "2,3,4">, %y: !ocannl.tensor<f32, "2|3->4">, %z: !ocannl.tensor<f32, "6|5,7">, %w: !ocannl.tensor<f32, "2,3,4">, %v: !ocannl.tensor<f32, "4|2,3,5->2">) -> (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) {
  %0 = "ocannl.einsum"(%x) {spec = "abc=>cba"} : (!ocannl.tensor<f32, "2,3,4">) -> !ocannl.tensor<f32, "...|...->...">
  %1 = "ocannl.einsum"(%x) {spec = "a, b, c => c, b, a"} : (!ocannl.tensor<f32, "2,3,4">) -> !ocannl.tensor<f32, "...|...->...">
  %2 = "ocannl.einsum"(%x) {spec = "a, b, ...  => b, a,"} : (!ocannl.tensor<f32, "2,3,4">) -> !ocannl.tensor<f32, "...|...->...">
  %3 = "ocannl.einsum"(%y) {spec = "b|i->o => o|i->b"} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  %4 = "ocannl.einsum"(%z) {spec = "...|ij => ij"} : (!ocannl.tensor<f32, "6|5,7">) -> !ocannl.tensor<f32, "...|...->...">
  %5 = "ocannl.einsum"(%w) {spec = "j... => j"} : (!ocannl.tensor<f32, "2,3,4">) -> !ocannl.tensor<f32, "...|...->...">
  %6 = "ocannl.einsum"(%v) {spec = "...|j...->i => ...|...->i"} : (!ocannl.tensor<f32, "4|2,3,5->2">) -> !ocannl.tensor<f32, "...|...->...">
  return %0, %1, %2, %3, %4, %5, %6 : !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">
}
