// ocannl-verify does not rely on the IRDL verifier: on IR that was never
// verified (built programmatically, or parsed with verification off) it
// reports unknown ops, wrong arity, missing or ill-typed attributes and
// non-tensor operands itself.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics --mlir-very-unsafe-disable-verifier-on-parsing --verify-each=false -p 'builtin.module(ocannl-verify)'

func.func @unknown_op(%a: !ocannl.tensor<f32, "2">) {
  // expected-error @+1 {{unknown op 'ocannl.frobnicate'}}
  %0 = "ocannl.frobnicate"(%a) : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}

// -----

func.func @arity(%a: !ocannl.tensor<f32, "2">) {
  // expected-error @+1 {{'ocannl.add' op expects 2 operands, got 1}}
  %0 = "ocannl.add"(%a) : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}

// -----

func.func @arity_unary(%a: !ocannl.tensor<f32, "2">) {
  // expected-error @+1 {{'ocannl.neg' op expects 1 operand, got 2}}
  %0 = "ocannl.neg"(%a, %a) : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}

// -----

func.func @concat_no_operands() {
  // expected-error @+2 {{'ocannl.concat' op expects at least 1 operand, got 0}}
  // expected-error @+1 {{'ocannl.concat' op block spec "a => a" has 1 operand spec but the op has 0 operands}}
  %0 = "ocannl.concat"() {spec = "a => a"} : () -> !ocannl.tensor<f32, "2">
  return
}

// -----

func.func @no_result(%a: !ocannl.tensor<f32, "2">) {
  // expected-error @+1 {{'ocannl.neg' op expects 1 result, got 0}}
  "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2">) -> ()
  return
}

// -----

func.func @non_tensor(%a: i32) {
  // expected-error @+2 {{'ocannl.neg' op operand #0 must be an ocannl or builtin tensor, got i32}}
  // expected-error @+1 {{'ocannl.neg' op result #0 must be an ocannl or builtin tensor, got memref<2xf32>}}
  %0 = "ocannl.neg"(%a) : (i32) -> memref<2xf32>
  return
}

// -----

func.func @missing_spec(%a: !ocannl.tensor<f32, "2">) {
  // expected-error @+1 {{'ocannl.einsum' op requires attribute 'spec'}}
  %0 = "ocannl.einsum"(%a) : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}

// -----

func.func @spec_not_string(%a: !ocannl.tensor<f32, "2">) {
  // expected-error @+1 {{'ocannl.einsum' op attribute 'spec' must be a string, got 3 : i64}}
  %0 = "ocannl.einsum"(%a) {spec = 3} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}

// -----

func.func @index_not_integer(%a: !ocannl.tensor<f32, "3|2">) {
  // expected-error @+1 {{'ocannl.batch_slice' op attribute 'index' must be a 64-bit integer, got "two"}}
  %0 = "ocannl.batch_slice"(%a) {index = "two"} : (!ocannl.tensor<f32, "3|2">) -> !ocannl.tensor<f32, "2">
  return
}

// -----

func.func @missing_index(%a: !ocannl.tensor<f32, "3|2">) {
  // expected-error @+1 {{'ocannl.batch_slice' op requires attribute 'index'}}
  %0 = "ocannl.batch_slice"(%a) : (!ocannl.tensor<f32, "3|2">) -> !ocannl.tensor<f32, "2">
  return
}
