// The Broadcastable idea over OCANNL rows: for ops with !ocannl.tensor
// types (and non-pointwise logics), ocannl-verify solves the op's own
// constraints. An operand axis of size 1 broadcasts; a row variable stands
// for an unknown number of axes; a dimension variable for an unknown size.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-verify)'

func.func @valid(%a: !ocannl.tensor<f32, "2|1->4">, %b: !ocannl.tensor<f32, "3->1">, %c: !ocannl.tensor<f32, "...|n">) -> !ocannl.tensor<f32, "2|3->4"> {
  %0 = "ocannl.add"(%a, %b) : (!ocannl.tensor<f32, "2|1->4">, !ocannl.tensor<f32, "3->1">) -> !ocannl.tensor<f32, "2|3->4">
  %1 = "ocannl.mul"(%0, %c) : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "...|n">) -> !ocannl.tensor<f32, "2|3->4">
  %2 = "ocannl.matmul"(%1, %b) : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "3->1">) -> !ocannl.tensor<f32, "2|3->4">
  return %2 : !ocannl.tensor<f32, "2|3->4">
}

// -----

func.func @operands_incompatible(%a: !ocannl.tensor<f32, "2|3->4">, %b: !ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "2|3->4"> {
  // expected-error @+1 {{'ocannl.add' op types violate its Pointwise_bin shape logic: size mismatch: size 5 does not broadcast to size 4 at output axis 1 (from the end) of the result vs output axis 1 of operand #1}}
  %0 = "ocannl.add"(%a, %b) : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "5">) -> !ocannl.tensor<f32, "2|3->4">
  return %0 : !ocannl.tensor<f32, "2|3->4">
}

// -----

func.func @result_too_short(%a: !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'ocannl.neg' op types violate its Pointwise_un shape logic: too few axes}}
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// -----

func.func @compose_mismatch(%w: !ocannl.tensor<f32, "784->10">, %x: !ocannl.tensor<f32, "b|100">) -> !ocannl.tensor<f32, "b|10"> {
  // expected-error @+1 {{'ocannl.matmul' op types violate its Compose shape logic: size mismatch}}
  %0 = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "784->10">, !ocannl.tensor<f32, "b|100">) -> !ocannl.tensor<f32, "b|10">
  return %0 : !ocannl.tensor<f32, "b|10">
}

// -----

func.func @einsum_types(%a: !ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "4|3->2"> {
  // expected-error @+1 {{'ocannl.einsum' op types violate its Einsum shape logic: size mismatch}}
  %0 = "ocannl.einsum"(%a) {spec = "b|i->o => o|b->i"} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "4|3->2">
  return %0 : !ocannl.tensor<f32, "4|3->2">
}
