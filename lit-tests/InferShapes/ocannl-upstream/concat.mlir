// Ported from OCANNL's own tests (github.com/ahrefs/ocannl, commit
// c338ea3fbb8bf9f405291968ef5d50d4de341fd4): concatenation (`++^`, OCANNL's
// Block logic) and block-tensor stacking.
//
// test/operations/test_block_tensor.ml builds block tensors with the %op
// literal syntax: `[a; b]` stacks on a new leading OUTPUT axis, `[|a; b|]` on
// a BATCH axis, `(a, b)` on an INPUT axis. The ppx expands them to
// `Operation.stack` (tensor/operation.ml): each operand is unsqueezed by an
// einsum (`...|...->... => ...|...->0,...` for output) and the results are
// concatenated with `...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,...`.
// The translation spells out that expansion, with the same specs.
// `Tensor.ndarray ~output_dims` terminals are arguments of that type; `sin`
// is `ocannl.sin`; `t + u` is `ocannl.add`.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// test_block_tensor.ml, Test 1: `[x1; x2]` (x1, x2 of output 3); expected
// `++^_stacked shape 0:2,1:3`. Also Test 14 (`TDSL.O.stack `Output [|x1; x2|]`,
// `0:2,1:3`) and Test 17 (the same tensor).
// CHECK-LABEL: func.func @list_output_axis
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2,3">
func.func @list_output_axis(%x1: !ocannl.tensor<f32, "3">, %x2: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.concat"(%v1, %v2) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v3 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 2: `[|x3; x4|]` (output 2 each); expected
// `++^_batched shape 0:2|1:2`.
// CHECK-LABEL: func.func @array_batch_axis
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2|2">
func.func @array_batch_axis(%x3: !ocannl.tensor<f32, "2">, %x4: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.einsum"(%x3) {spec = "...|...->... => 0,...|...->..."} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.einsum"(%x4) {spec = "...|...->... => 0,...|...->..."} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.concat"(%v1, %v2) {spec = "bt0,...|...->...; bt1,...|...->... => bt0^bt1,...|...->..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v3 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 3: `(x1, x2)` (output 3 each); expected
// `++^_input_stack shape 1:2->0:3`.
// CHECK-LABEL: func.func @tuple_input_axis
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2->3">
func.func @tuple_input_axis(%x1: !ocannl.tensor<f32, "3">, %x2: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|0,...->..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|0,...->..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.concat"(%v1, %v2) {spec = "...|bt0,...->...; ...|bt1,...->... => ...|bt0^bt1,...->..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v3 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 4: `[x1; x2; x5]` (output 3 each); expected
// `++^_triple shape 0:3,1:3`.
// CHECK-LABEL: func.func @three_way_list
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "3,3">
func.func @three_way_list(%x1: !ocannl.tensor<f32, "3">, %x2: !ocannl.tensor<f32, "3">, %x5: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.einsum"(%x5) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v4 = "ocannl.concat"(%v1, %v2, %v3) {spec = "...|...-> bt0,...; ...|...-> bt1,...; ...|...-> bt2,... => ...|...-> bt0^bt1^bt2,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v4 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 5: `[[x1; x2]; [x1; x2]]`; expected
// `++^_nested shape 0:2,1:2,2:3`.
// CHECK-LABEL: func.func @nested_list
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2,3">
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2,3">
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2,2,3">
func.func @nested_list(%x1: !ocannl.tensor<f32, "3">, %x2: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.concat"(%v1, %v2) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v4 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v5 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v6 = "ocannl.concat"(%v4, %v5) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v7 = "ocannl.einsum"(%v3) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v8 = "ocannl.einsum"(%v6) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v9 = "ocannl.concat"(%v7, %v8) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v9 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 5b: `[[[x1; x2]; [x1; x2]]; [[x1; x2]; [x1; x2]]]`;
// expected `++^_nested3 shape 0:2,1:2,2:2,3:3`.
// CHECK-LABEL: func.func @nested_list_3_levels
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2,2,2,3">
// CHECK-NEXT: return
func.func @nested_list_3_levels(%x1: !ocannl.tensor<f32, "3">, %x2: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.concat"(%v1, %v2) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v4 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v5 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v6 = "ocannl.concat"(%v4, %v5) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v7 = "ocannl.einsum"(%v3) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v8 = "ocannl.einsum"(%v6) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v9 = "ocannl.concat"(%v7, %v8) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v10 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v11 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v12 = "ocannl.concat"(%v10, %v11) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v13 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v14 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v15 = "ocannl.concat"(%v13, %v14) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v16 = "ocannl.einsum"(%v12) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v17 = "ocannl.einsum"(%v15) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v18 = "ocannl.concat"(%v16, %v17) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v19 = "ocannl.einsum"(%v9) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v20 = "ocannl.einsum"(%v18) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v21 = "ocannl.concat"(%v19, %v20) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v21 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 5c: `[ (x1, x2); (x1, x2) ]` (tuple innermost:
// input axis; list: output axis); expected `++^_cross shape 2:2->0:2,1:3`.
// CHECK-LABEL: func.func @cross_output_input
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2->3">
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2->3">
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2->2,3">
func.func @cross_output_input(%x1: !ocannl.tensor<f32, "3">, %x2: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|0,...->..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|0,...->..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.concat"(%v1, %v2) {spec = "...|bt0,...->...; ...|bt1,...->... => ...|bt0^bt1,...->..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v4 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|0,...->..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v5 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|0,...->..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v6 = "ocannl.concat"(%v4, %v5) {spec = "...|bt0,...->...; ...|bt1,...->... => ...|bt0^bt1,...->..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v7 = "ocannl.einsum"(%v3) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v8 = "ocannl.einsum"(%v6) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v9 = "ocannl.concat"(%v7, %v8) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v9 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 5c2: `[| [x1; x2]; [x1; x2] |]`; expected
// `++^_cross_b shape 0:2|1:2,2:3`.
// CHECK-LABEL: func.func @cross_batch_output
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2,3">
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2,3">
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2|2,3">
func.func @cross_batch_output(%x1: !ocannl.tensor<f32, "3">, %x2: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.concat"(%v1, %v2) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v4 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v5 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v6 = "ocannl.concat"(%v4, %v5) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v7 = "ocannl.einsum"(%v3) {spec = "...|...->... => 0,...|...->..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v8 = "ocannl.einsum"(%v6) {spec = "...|...->... => 0,...|...->..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v9 = "ocannl.concat"(%v7, %v8) {spec = "bt0,...|...->...; bt1,...|...->... => bt0^bt1,...|...->..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v9 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 5c3: `[| [ (x1, x2); (x1, x2) ]; [ (x1, x2); (x1, x2) ] |]`;
// expected `++^_cross3 shape 0:2|3:2->1:2,2:3`.
// CHECK-LABEL: func.func @cross_three_way
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2|2->2,3">
// CHECK-NEXT: return
func.func @cross_three_way(%x1: !ocannl.tensor<f32, "3">, %x2: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|0,...->..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|0,...->..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.concat"(%v1, %v2) {spec = "...|bt0,...->...; ...|bt1,...->... => ...|bt0^bt1,...->..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v4 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|0,...->..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v5 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|0,...->..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v6 = "ocannl.concat"(%v4, %v5) {spec = "...|bt0,...->...; ...|bt1,...->... => ...|bt0^bt1,...->..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v7 = "ocannl.einsum"(%v3) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v8 = "ocannl.einsum"(%v6) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v9 = "ocannl.concat"(%v7, %v8) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v10 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|0,...->..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v11 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|0,...->..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v12 = "ocannl.concat"(%v10, %v11) {spec = "...|bt0,...->...; ...|bt1,...->... => ...|bt0^bt1,...->..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v13 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|0,...->..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v14 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|0,...->..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v15 = "ocannl.concat"(%v13, %v14) {spec = "...|bt0,...->...; ...|bt1,...->... => ...|bt0^bt1,...->..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v16 = "ocannl.einsum"(%v12) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v17 = "ocannl.einsum"(%v15) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v18 = "ocannl.concat"(%v16, %v17) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v19 = "ocannl.einsum"(%v9) {spec = "...|...->... => 0,...|...->..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v20 = "ocannl.einsum"(%v18) {spec = "...|...->... => 0,...|...->..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v21 = "ocannl.concat"(%v19, %v20) {spec = "bt0,...|...->...; bt1,...|...->... => bt0^bt1,...|...->..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v21 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 5d: `[[x1; x2]; {c}]` with `c` a parameter of
// unknown shape; expected `++^_mixed shape 0:2,1:2,2:3` and `c shape 0:2,1:3`
// (c acquires the sibling's stacked rank).
// CHECK-LABEL: func.func @mixed_rank
// CHECK-SAME: %arg2: !ocannl.tensor<f32, "2,3">
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2,2,3">
func.func @mixed_rank(%x1: !ocannl.tensor<f32, "3">, %x2: !ocannl.tensor<f32, "3">, %c: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.einsum"(%x2) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.concat"(%v1, %v2) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v4 = "ocannl.einsum"(%v3) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v5 = "ocannl.einsum"(%c) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v6 = "ocannl.concat"(%v4, %v5) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v6 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 6: `[x1]`; expected `++^_unsqueezed shape 0:1,1:3`.
// CHECK-LABEL: func.func @unsqueeze_single
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "1,3">
func.func @unsqueeze_single(%x1: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.einsum"(%x1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.concat"(%v1) {spec = "...|...-> bt0,... => ...|...-> bt0,..."} : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v2 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 13: `[m1; m2]` with m1, m2 of input 2, output 2;
// expected `++^_stacked_mat shape 2:2->0:2,1:2`.
// CHECK-LABEL: func.func @list_with_input_dims
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "2->2,2">
func.func @list_with_input_dims(%m1: !ocannl.tensor<f32, "2->2">, %m2: !ocannl.tensor<f32, "2->2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.einsum"(%m1) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "2->2">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.einsum"(%m2) {spec = "...|...->... => ...|...->0,..."} : (!ocannl.tensor<f32, "2->2">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.concat"(%v1, %v2) {spec = "...|...-> bt0,...; ...|...-> bt1,... => ...|...-> bt0^bt1,..."} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v3 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 5f: `fixed5 + ((pf1, pf2) ++^ "ii; jj => ii^jj")`
// (2 + 3); expected `+_concat_2c shape 0:5`.
// CHECK-LABEL: func.func @concat_add_dim_on_lhs
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "5">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "5">
func.func @concat_add_dim_on_lhs(%fixed5: !ocannl.tensor<f32, "5">, %pf1: !ocannl.tensor<f32, "2">, %pf2: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.concat"(%pf1, %pf2) {spec = "ii; jj => ii^jj"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.add"(%fixed5, %v1) : (!ocannl.tensor<f32, "5">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v2 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 5g: `bc_g = (ng2, ng3) ++^ "jj; kk => jj^kk"`,
// `nested = (ng1, bc_g) ++^ "ii; jjkk => ii^jjkk"`, `nested + fixed7g`
// (2 + (3 + 2)); expected `+_nested_dim shape 0:7`.
// CHECK-LABEL: func.func @nested_concat_add
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "5">
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "7">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "7">
func.func @nested_concat_add(%ng1: !ocannl.tensor<f32, "2">, %ng2: !ocannl.tensor<f32, "3">, %ng3: !ocannl.tensor<f32, "2">, %fixed7g: !ocannl.tensor<f32, "7">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.concat"(%ng2, %ng3) {spec = "jj; kk => jj^kk"} : (!ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.concat"(%ng1, %v1) {spec = "ii; jjkk => ii^jjkk"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.add"(%v2, %fixed7g) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "7">) -> !ocannl.tensor<f32, "...|...->...">
  return %v3 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Tests 5e2 and 5h: `(q1, q2, q3) ++^ "ii; jj; kk => ii^jj^kk" + fixed7h`
// with every part known (2, 3, 2); expected `+_concat_g shape 0:7`.
// CHECK-LABEL: func.func @concat3_add
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "7">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "7">
func.func @concat3_add(%q1: !ocannl.tensor<f32, "2">, %q2: !ocannl.tensor<f32, "3">, %q3: !ocannl.tensor<f32, "2">, %fixed7h: !ocannl.tensor<f32, "7">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.concat"(%q1, %q2, %q3) {spec = "ii; jj; kk => ii^jj^kk"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.add"(%v1, %fixed7h) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "7">) -> !ocannl.tensor<f32, "...|...->...">
  return %v2 : !ocannl.tensor<f32, "...|...->...">
}

// test_block_tensor.ml, Test 5i: two 3-part concatenations added,
// `(r1, r2, r3) ++^ "ii; jj; kk => ii^jj^kk" + ((s1, s2, s3) ++^ "pp; qq; rr => pp^qq^rr")`;
// expected `+_glb_result shape 0:7`.
// CHECK-LABEL: func.func @glb_merge_two_concats
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "7">
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "7">
// CHECK: "ocannl.add"{{.*}} -> !ocannl.tensor<f32, "7">
func.func @glb_merge_two_concats(%r1: !ocannl.tensor<f32, "2">, %r2: !ocannl.tensor<f32, "3">, %r3: !ocannl.tensor<f32, "2">, %s1: !ocannl.tensor<f32, "2">, %s2: !ocannl.tensor<f32, "3">, %s3: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.concat"(%r1, %r2, %r3) {spec = "ii; jj; kk => ii^jj^kk"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.concat"(%s1, %s2, %s3) {spec = "pp; qq; rr => pp^qq^rr"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.add"(%v1, %v2) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v3 : !ocannl.tensor<f32, "...|...->...">
}

// test/operations/test_concat_graph.ml: `sin ((x1, x2) ++^ "a; b => a^b")`
// (3 + 2); expected `sin_result shape 0:5`.
// CHECK-LABEL: func.func @concat_graph_two
// CHECK: "ocannl.sin"{{.*}} -> !ocannl.tensor<f32, "5">
func.func @concat_graph_two(%x1: !ocannl.tensor<f32, "3">, %x2: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.concat"(%x1, %x2) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.sin"(%v1) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v2 : !ocannl.tensor<f32, "...|...->...">
}

// test_concat_graph.ml: `sin ((x1, x2, x3) ++^ "a; b; c => a^b^c")` with parts
// 2, 3, 2; expected `sin_result3 shape 0:7`.
// CHECK-LABEL: func.func @concat_graph_three
// CHECK: "ocannl.sin"{{.*}} -> !ocannl.tensor<f32, "7">
func.func @concat_graph_three(%x1: !ocannl.tensor<f32, "2">, %x2: !ocannl.tensor<f32, "3">, %x3: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.concat"(%x1, %x2, %x3) {spec = "a; b; c => a^b^c"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.sin"(%v1) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v2 : !ocannl.tensor<f32, "...|...->...">
}

// test_concat_graph.ml: `sin ((x1, x2, x3) ++^ "a; b; c => a^b^c")` with parts
// 2, 1, 2; expected `sin_result_u shape 0:5`.
// CHECK-LABEL: func.func @concat_graph_unit_part
// CHECK: "ocannl.sin"{{.*}} -> !ocannl.tensor<f32, "5">
func.func @concat_graph_unit_part(%x1: !ocannl.tensor<f32, "2">, %x2: !ocannl.tensor<f32, "1">, %x3: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.concat"(%x1, %x2, %x3) {spec = "a; b; c => a^b^c"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "1">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.sin"(%v1) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v2 : !ocannl.tensor<f32, "...|...->...">
}

// test_concat_graph.ml: `sin ((x1, x2, x3) ++^ "a; b; c => a^b^c")` with parts
// 1, 3, 2; expected `sin_result_b1 shape 0:6`.
// CHECK-LABEL: func.func @concat_graph_unit_first
// CHECK: "ocannl.sin"{{.*}} -> !ocannl.tensor<f32, "6">
func.func @concat_graph_unit_first(%x1: !ocannl.tensor<f32, "1">, %x2: !ocannl.tensor<f32, "3">, %x3: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.concat"(%x1, %x2, %x3) {spec = "a; b; c => a^b^c"} : (!ocannl.tensor<f32, "1">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.sin"(%v1) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v2 : !ocannl.tensor<f32, "...|...->...">
}

// test_concat_graph.ml: `sin ((x1, x2, x3) ++^ "a; b; c => a^b^c")` with parts
// 2, 3, 1; expected `sin_result_l shape 0:6`.
// CHECK-LABEL: func.func @concat_graph_unit_last
// CHECK: "ocannl.sin"{{.*}} -> !ocannl.tensor<f32, "6">
func.func @concat_graph_unit_last(%x1: !ocannl.tensor<f32, "2">, %x2: !ocannl.tensor<f32, "3">, %x3: !ocannl.tensor<f32, "1">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.concat"(%x1, %x2, %x3) {spec = "a; b; c => a^b^c"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "1">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.sin"(%v1) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v2 : !ocannl.tensor<f32, "...|...->...">
}

// test_concat_graph.ml: `inner = (n1, n2) ++^ "a; b => a^b"`,
// `sin ((inner, n3) ++^ "a; b => a^b")` (2, 3, 2); expected `sin_nested shape 0:7`.
// CHECK-LABEL: func.func @concat_graph_nested
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "5">
// CHECK: "ocannl.concat"{{.*}} -> !ocannl.tensor<f32, "7">
// CHECK: "ocannl.sin"{{.*}} -> !ocannl.tensor<f32, "7">
func.func @concat_graph_nested(%n1: !ocannl.tensor<f32, "2">, %n2: !ocannl.tensor<f32, "3">, %n3: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.concat"(%n1, %n2) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.concat"(%v1, %n3) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.sin"(%v2) : (!ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v3 : !ocannl.tensor<f32, "...|...->...">
}

// test/operations/test_concat_dim_solver.ml, test_ac1_glb_merge_compatible:
// one operand variable v under two broadcast bounds Concat 2^3 and Concat
// 1^4 (both size 5); expected "PASS: operand committed to the merged size-5
// GLB" (v = 5). The bounds are concatenations of known parts that v is added
// to (result ⊒ v).
// CHECK-LABEL: func.func @concat_bounds_merge_compatible
// CHECK-SAME: %arg4: !ocannl.tensor<f32, "5">
func.func @concat_bounds_merge_compatible(%p1: !ocannl.tensor<f32, "1">, %p2: !ocannl.tensor<f32, "2">, %p3: !ocannl.tensor<f32, "3">, %p4: !ocannl.tensor<f32, "4">, %v: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.concat"(%p2, %p3) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.concat"(%p1, %p4) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "1">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.add"(%v1, %v) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v4 = "ocannl.add"(%v2, %v) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v5 = "ocannl.add"(%v3, %v4) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v5 : !ocannl.tensor<f32, "...|...->...">
}

// test_concat_dim_solver.ml, test_ac1_glb_merge_incompatible_demotes: bounds
// Concat 2^3 (size 5) and Concat 2^4 (size 6) on one operand variable v;
// expected "PASS: operand demoted to broadcast-top (size 1)" (v = 1).
// CHECK-LABEL: func.func @concat_bounds_merge_incompatible
// CHECK-SAME: %arg3: !ocannl.tensor<f32, "1">
func.func @concat_bounds_merge_incompatible(%p2: !ocannl.tensor<f32, "2">, %p3: !ocannl.tensor<f32, "3">, %p4: !ocannl.tensor<f32, "4">, %v: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->..."> {
  %v1 = "ocannl.concat"(%p2, %p3) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %v2 = "ocannl.concat"(%p2, %p4) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->...">
  %v3 = "ocannl.add"(%v1, %v) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v4 = "ocannl.add"(%v2, %v) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %v5 = "ocannl.concat"(%v3, %v4) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %v5 : !ocannl.tensor<f32, "...|...->...">
}
