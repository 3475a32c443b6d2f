// Every kind of shape-inference error: an error at the op whose constraint
// fails, notes at the ops whose constraints fixed the conflicting parts.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-infer-shapes)'

func.func @size_mismatch(%a: !ocannl.tensor<f32, "3">, %b: !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "..."> {
  // expected-note @+1 {{constrained here: output axis 1 (from the end) of the result vs output axis 1 of operand #0}}
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...">
  // expected-error @+1 {{shape inference failed: size mismatch: size 4 does not broadcast to size 3 at output axis 1 (from the end) of the result vs output axis 1 of operand #1}}
  %1 = "ocannl.add"(%0, %b) : (!ocannl.tensor<f32, "...">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...">
  return %1 : !ocannl.tensor<f32, "...">
}

// -----

// The result's written last axis pairs first (axis 1); the axis its row
// variable grows by is axis 2, and the note says so.
func.func @size_mismatch_after_growth(%a: !ocannl.tensor<f32, "3,4">, %b: !ocannl.tensor<f32, "5,4">) -> !ocannl.tensor<f32, "..."> {
  // expected-note @+1 {{constrained here: output axis 2 (from the end) of the result vs output axis 2 of operand #0}}
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "...,4">
  // expected-error @+1 {{size 5 does not broadcast to size 3 at output axis 2 (from the end) of the result vs output axis 2 of operand #1}}
  %1 = "ocannl.add"(%0, %b) : (!ocannl.tensor<f32, "...,4">, !ocannl.tensor<f32, "5,4">) -> !ocannl.tensor<f32, "...">
  return %1 : !ocannl.tensor<f32, "...">
}

// -----

func.func @label_mismatch(%a: !ocannl.tensor<f32, "rgb=3">, %b: !ocannl.tensor<f32, "hsv=3">) -> !ocannl.tensor<f32, "..."> {
  // expected-note @+1 {{constrained here}}
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "rgb=3">) -> !ocannl.tensor<f32, "...">
  // expected-error @+1 {{label mismatch: label rgb vs hsv (both of size 3)}}
  %1 = "ocannl.add"(%0, %b) : (!ocannl.tensor<f32, "...">, !ocannl.tensor<f32, "hsv=3">) -> !ocannl.tensor<f32, "...">
  return %1 : !ocannl.tensor<f32, "...">
}

// -----

// Two ops each need one row to be longer than the other.
func.func @rank_cycle(%x: !ocannl.tensor<f32, "..u..,3">, %y: !ocannl.tensor<f32, "..v..,3">) -> !ocannl.tensor<f32, "..u.."> {
  // expected-error @+1 {{rank cycle: rows grow without bound (more than 256 axes): the inequalities form a cycle}}
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "..u..,3">) -> !ocannl.tensor<f32, "..v..">
  // expected-note @+1 {{constrained here: output row of the result vs output row of operand #0}}
  %1 = "ocannl.neg"(%y) : (!ocannl.tensor<f32, "..v..,3">) -> !ocannl.tensor<f32, "..u..">
  return %1 : !ocannl.tensor<f32, "..u..">
}

// -----

func.func @rank_cycle_in_one_op(%a: !ocannl.tensor<f32, "..r..,2">) -> !ocannl.tensor<f32, "..r.."> {
  // expected-error @+1 {{rank cycle: a row would have to be longer than itself}}
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "..r..,2">) -> !ocannl.tensor<f32, "..r..">
  return %0 : !ocannl.tensor<f32, "..r..">
}

// -----

func.func @einsum_spec_mismatch(%a: !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "..."> {
  // expected-note @+1 {{constrained here: output axis 2 (from the end) of the result vs output axis 2 of operand #0}}
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...">
  // expected-error @+1 {{einsum spec mismatch: a row of at least 2 axes cannot equal a row of 1 axis (output row of operand #0 vs output row of spec slot #0)}}
  %1 = "ocannl.einsum"(%0) {spec = "i => i"} : (!ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "...">
  return %1 : !ocannl.tensor<f32, "...">
}

// -----

func.func @too_few_axes(%a: !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "n"> {
  // expected-error @+1 {{too few axes: a row of 1 axis cannot take a broadcast of a row of 2 axes (output row of the result vs output row of operand #0)}}
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "n">
  return %0 : !ocannl.tensor<f32, "n">
}

// -----

// Backward: the argument's shape comes from two uses that disagree.
func.func @conflicting_uses(%w: !ocannl.tensor<f32, "...|...->...">, %x: !ocannl.tensor<f32, "3">, %y: !ocannl.tensor<f32, "4">) {
  // expected-note @+1 {{constrained here: input axis 1 (from the end) of operand #0 vs output axis 1 of operand #1}}
  %0 = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  // expected-error @+1 {{size mismatch}}
  %1 = "ocannl.matmul"(%w, %y) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->...">
  return
}

// -----

func.func @batch_slice_out_of_range(%x: !ocannl.tensor<f32, "2|3">) {
  // expected-error @+1 {{size mismatch: size 2 is too small: the index needs at least 6}}
  %0 = "ocannl.batch_slice"(%x) {index = 5 : i64} : (!ocannl.tensor<f32, "2|3">) -> !ocannl.tensor<f32, "...|...->...">
  return
}

// -----

func.func @element_count(%x: !ocannl.tensor<f32, "2,3">) {
  // expected-error @+1 {{element count mismatch: the axes have 4 elements, which does not divide 6}}
  %0 = "ocannl.reshape"(%x) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "4,n">
  return
}

// -----

// The row that is too short meets a row forced long by another op.
func.func @too_few_axes_across_ops(%a: !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "n"> {
  // expected-note @+1 {{constrained here}}
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...">
  // expected-error @+1 {{too few axes}}
  %1 = "ocannl.add"(%0, %0) : (!ocannl.tensor<f32, "...">, !ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "n">
  return %1 : !ocannl.tensor<f32, "n">
}

// -----

// A padded convolution with stride 2 needs an even input.
func.func @incompatible_stride(%x: !ocannl.tensor<f32, "2|7,7,3">, %k: !ocannl.tensor<f32, "3,3,3->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  // expected-error @+1 {{shape inference failed: incompatible stride: an axis of size 7 cannot be iterated with stride 2: 7 is not a multiple of 2 at output row of operand #0 vs output row of spec slot #0}}
  %0 = "ocannl.einsum"(%x, %k) {spec = "b|2*oh=+kh,2*ow=+kw,ci; kh,kw,ci->co => b|oh,ow,co"} : (!ocannl.tensor<f32, "2|7,7,3">, !ocannl.tensor<f32, "3,3,3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// -----

// A valid convolution with stride 2: 8 - 3 is odd.
func.func @incompatible_valid_stride(%x: !ocannl.tensor<f32, "8">, %k: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  // expected-error @+1 {{incompatible stride: an axis of size 8 cannot be convolved with a kernel of size 3 (stride 2, dilation 1 (valid convolution)): 8 - 3 is not a multiple of 2}}
  %0 = "ocannl.einsum"(%x, %k) {spec = "2*o<+k; k => o"} : (!ocannl.tensor<f32, "8">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// -----

// Explicit padding: the dilated kernel (5) is wider than the padded axis (2 + 1 + 1).
func.func @explicit_padding_kernel_too_wide(%x: !ocannl.tensor<f32, "2">, %k: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  // expected-error @+1 {{incompatible stride: an axis of size 2 cannot be convolved with a kernel of size 3 (stride 1, dilation 2, padding 1 and 1): the padded axis (4) is shorter than the dilated kernel (5)}}
  %0 = "ocannl.einsum"(%x, %k) {spec = "o@1,1+2*k; k => o"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// -----

// Explicit padding: (8 + 1 + 1 - 3) / 2 + 1 = 4 windows, not 5.
func.func @explicit_padding_against_known_output(%x: !ocannl.tensor<f32, "8">, %k: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "5"> {
  // expected-error @+1 {{incompatible stride: the strided or convolution iteration needs size 4 here, but the axis has size 5}}
  %0 = "ocannl.einsum"(%x, %k) {spec = "2*o@1,1+k; k => o"} : (!ocannl.tensor<f32, "8">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "5">
  return %0 : !ocannl.tensor<f32, "5">
}

// -----

// The output is fixed elsewhere: the input cannot be as wide as it needs.
func.func @stride_against_known_output(%x: !ocannl.tensor<f32, "8">) -> !ocannl.tensor<f32, "5"> {
  // expected-error @+1 {{incompatible stride: the strided or convolution iteration needs size 10 here, but the axis has size 8}}
  %0 = "ocannl.einsum"(%x) {spec = "2*o => o"} : (!ocannl.tensor<f32, "8">) -> !ocannl.tensor<f32, "5">
  return %0 : !ocannl.tensor<f32, "5">
}

// -----

// Concatenating 2 and 3 cannot give 6.
func.func @mismatched_concat(%x: !ocannl.tensor<f32, "2">, %y: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "6"> {
  // expected-error @+1 {{shape inference failed: mismatched concatenation: the concatenated axis has size 6, but its parts sum to 5}}
  %0 = "ocannl.concat"(%x, %y) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "6">
  return %0 : !ocannl.tensor<f32, "6">
}

// -----

// A part bigger than the whole.
func.func @concat_part_too_big(%x: !ocannl.tensor<f32, "7">, %y: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "5"> {
  // expected-error @+1 {{mismatched concatenation: the concatenated axis has size 5, but its known parts already sum to 7}}
  %0 = "ocannl.concat"(%x, %y) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "7">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "5">
  return %0 : !ocannl.tensor<f32, "5">
}

// -----

// `b` is an operand's axis, not a discardable part: it cannot be 0.
func.func @concat_empty_operand(%x: !ocannl.tensor<f32, "5">, %y: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "5"> {
  // expected-error @+1 {{mismatched concatenation: the concatenated axis has size 5; its known parts sum to 5, which leaves 0 for 1 part(s) of one size of at least 1}}
  %0 = "ocannl.concat"(%x, %y) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "5">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "5">
  return %0 : !ocannl.tensor<f32, "5">
}

// -----

// 7 elements cannot fill rows of 2 * n.
func.func @non_divisible_count(%x: !ocannl.tensor<f32, "7">) -> !ocannl.tensor<f32, "2,n"> {
  // expected-error @+1 {{shape inference failed: element count mismatch: the axes have 2 elements, which does not divide 7}}
  %0 = "ocannl.reshape"(%x) : (!ocannl.tensor<f32, "7">) -> !ocannl.tensor<f32, "2,n">
  return %0 : !ocannl.tensor<f32, "2,n">
}

// -----

// The data's axes are 2x3; the declared shape has one axis.
func.func @exact_rank(%x: !ocannl.tensor<f32, "6">) -> !ocannl.tensor<f32, "6"> {
  // expected-error @+1 {{rank mismatch: the rows have 1 axes, but the data has 2 axes}}
  %0 = "ocannl.constant"() {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>} : () -> !ocannl.tensor<f32, "6">
  return %0 : !ocannl.tensor<f32, "6">
}

// -----

// The conflicting size is stated in the type of the producer's result, which
// no op constraint records: a note names the producer of the operand.
func.func @stated_producer(%a: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "4"> {
  // expected-note @+1 {{operand #0 is produced here, with type !ocannl.tensor<f32, "3">}}
  %0 = "ocannl.relu"(%a) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  // expected-error @+1 {{size 3 does not broadcast to size 4}}
  %1 = "ocannl.neg"(%0) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "4">
  return %1 : !ocannl.tensor<f32, "4">
}

// -----

// What is left of a constraint once the last axes of its rows are paired
// keeps their numbering: `[5,4,3] >= ..w..,3` pairs axis 1 and leaves
// `[5,4] >= ..w..`; when `w` is bound later, its axis pairs with axis 2 of
// the rows as written (it was once named axis 1).
func.func @axis_after_a_pair(%a: !ocannl.tensor<f32, "...,3">) {
  // expected-error @+1 {{size 7 does not broadcast to size 4 at output axis 2 (from the end) of the result vs output axis 2 of operand #0}}
  %t = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "...,3">) -> !ocannl.tensor<f32, "5,4,3">
  // expected-note @+1 {{constrained here: output axis 2 (from the end) of the result vs output axis 2 of spec slot #1}}
  %e = "ocannl.einsum"(%a) {spec = "i,j => i,j"} : (!ocannl.tensor<f32, "...,3">) -> !ocannl.tensor<f32, "7,3">
  return
}

// -----

// The same with row variables on both sides: `..a..,3 >= ..w..,3` leaves
// the record `a >= w`, both bound later.
func.func @axis_after_a_pair_of_open_rows(%a: !ocannl.tensor<f32, "...,3">) {
  // expected-error @+1 {{size 7 does not broadcast to size 4 at output axis 2 (from the end) of the result vs output axis 2 of operand #0}}
  %t = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "...,3">) -> !ocannl.tensor<f32, "...,3">
  // expected-note @+1 {{constrained here: output axis 2 (from the end) of the result vs output axis 2 of spec slot #1}}
  %e = "ocannl.einsum"(%t) {spec = "i,j,k => i,j,k"} : (!ocannl.tensor<f32, "...,3">) -> !ocannl.tensor<f32, "5,4,3">
  // expected-note @+1 {{constrained here: output axis 2 (from the end) of the result vs output axis 2 of spec slot #1}}
  %g = "ocannl.einsum"(%a) {spec = "i,j => i,j"} : (!ocannl.tensor<f32, "...,3">) -> !ocannl.tensor<f32, "7,3">
  return
}

// -----

// An equation whose leftovers cross (`i ++ ..r.. ++ j = ..w.. ++ 3,2`
// pairs `j = 2` and leaves `i ++ ..r.. = ..w.. ++ 3`) keeps the numbering
// when `r` is bound later.
func.func @axis_after_a_pair_of_crossing_rows(%a: !ocannl.tensor<f32, "...,3,2">) {
  // expected-error @+1 {{size 4 vs 3 at output axis 2 (from the end) of operand #0 vs output axis 2 of spec slot #0}}
  %e = "ocannl.einsum"(%a) {spec = "i,..r..,j => ..r.."} : (!ocannl.tensor<f32, "...,3,2">) -> !ocannl.tensor<f32, "...">
  // expected-note @+1 {{constrained here: output axis 1 (from the end) of the result vs output axis 1 of spec slot #1}}
  %g = "ocannl.einsum"(%e) {spec = "k => k"} : (!ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "4">
  return
}

// -----

// An operand with leading axes (`2,..rho..,3`, aligned at both ends) too.
func.func @axis_after_a_pair_of_marked_rows(%a: !ocannl.tensor<f32, "2,..rho..,3">) {
  // expected-error @+1 {{size 7 does not broadcast to size 5 at output axis 2 (from the end) of the result vs output axis 2 of operand #0}}
  %t = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2,..rho..,3">) -> !ocannl.tensor<f32, "...,3">
  // expected-note @+1 {{constrained here: output axis 2 (from the end) of the result vs output axis 2 of spec slot #1}}
  %e = "ocannl.einsum"(%t) {spec = "i,j,k => i,j,k"} : (!ocannl.tensor<f32, "...,3">) -> !ocannl.tensor<f32, "2,5,3">
  // expected-note @+1 {{constrained here: output axis 2 (from the end) of the result vs output axis 2 of spec slot #1}}
  %g = "ocannl.einsum"(%a) {spec = "i,j,k => i,j,k"} : (!ocannl.tensor<f32, "2,..rho..,3">) -> !ocannl.tensor<f32, "2,7,3">
  return
}
