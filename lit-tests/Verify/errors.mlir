// Every error ocannl-verify emits on IR that passes the dialect's IRDL
// verifier: malformed spec strings (in types and attributes), bad element
// types, enum values, einsum/block slot counts, einsum arity, combine arity.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-verify)'

// expected-error @+1 {{block argument #0: invalid shape spec "2|3-4": unexpected character `-` at position 3}}
func.func @bad_arg_spec(%a: !ocannl.tensor<f32, "2|3-4">) {
  return
}

// -----

func.func @bad_result_spec(%a: !ocannl.tensor<f32, "2|3->4">) {
  // expected-error @+1 {{result #0: invalid shape spec "a->b->c": expected end of input, found `->` at position 4}}
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "a->b->c">
  return
}

// -----

// expected-error @+1 {{function input #0: invalid shape spec "..r": expected `..` to close `..r`, found end of input at position 3}}
func.func private @bad_decl_input(!ocannl.tensor<f32, "..r">)

// -----

// expected-error @+1 {{function result #0: invalid shape spec "2|3|4": expected `->` or end of input, found `|` at position 3}}
func.func private @bad_decl_result() -> !ocannl.tensor<f32, "2|3|4">

// -----

// expected-error @+1 {{block argument #0: element type of !ocannl.tensor must be an integer, float or index type, got tensor<2xf32>}}
func.func @bad_element_type(%a: !ocannl.tensor<tensor<2xf32>, "2">) {
  return
}

// -----

func.func @bad_einsum_spec(%a: !ocannl.tensor<f32, "2|3->4">) {
  // expected-error @+1 {{'ocannl.einsum' op attribute 'spec': invalid einsum spec "b|i->o": expected `;` or `=>`, found end of input at position 6}}
  %0 = "ocannl.einsum"(%a) {spec = "b|i->o"} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return
}

// -----

func.func @einsum_slot_count(%a: !ocannl.tensor<f32, "2|3->4">) {
  // expected-error @+1 {{'ocannl.einsum' op einsum spec "a; b => ab" has 2 operand specs but the op has 1 operand}}
  %0 = "ocannl.einsum"(%a) {spec = "a; b => ab"} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return
}

// -----

func.func @einsum_too_many_operands(%a: !ocannl.tensor<f32, "2">) {
  // expected-error @+2 {{'ocannl.einsum' op expects 1 to 3 operands, got 4}}
  // expected-error @+1 {{'ocannl.einsum' op attribute 'spec': invalid einsum spec "a;a;a;a=>a": einsum takes at most 3 operand specs at position 5}}
  %0 = "ocannl.einsum"(%a, %a, %a, %a) {spec = "a;a;a;a=>a"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}

// -----

func.func @bad_accum(%a: !ocannl.tensor<f32, "2">, %b: !ocannl.tensor<f32, "2">) {
  // expected-error @+1 {{'ocannl.einsum' op attribute 'accum' must be one of "add", "mul", "max", "min", got "avg"}}
  %0 = "ocannl.einsum"(%a, %b) {spec = "i; i => i", accum = "avg"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}

// -----

func.func @bad_combine_kind(%a: !ocannl.tensor<f32, "2">, %b: !ocannl.tensor<f32, "2">) {
  // expected-error @+1 {{'ocannl.einsum' op attribute 'combine' must be a string, got 3 : i64}}
  %0 = "ocannl.einsum"(%a, %b) {spec = "i; i => i", combine = 3} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}

// -----

func.func @combine_arity(%a: !ocannl.tensor<f32, "2">, %b: !ocannl.tensor<f32, "2">) {
  // expected-error @+1 {{'ocannl.einsum' op combine "fma" takes 3 operands, the op has 2}}
  %0 = "ocannl.einsum"(%a, %b) {spec = "i; i => i", combine = "fma"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return
}

// -----

func.func @bad_block_spec(%a: !ocannl.tensor<f32, "2">, %b: !ocannl.tensor<f32, "3">) {
  // expected-error @+1 {{'ocannl.concat' op attribute 'spec': invalid block spec "a; b => a^": expected a label after `^`, found end of input at position 10}}
  %0 = "ocannl.concat"(%a, %b) {spec = "a; b => a^"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "5">
  return
}

// -----

func.func @block_slot_count(%a: !ocannl.tensor<f32, "2">, %b: !ocannl.tensor<f32, "3">) {
  // expected-error @+1 {{'ocannl.concat' op block spec "a; b; c => a^b^c" has 3 operand specs but the op has 2 operands}}
  %0 = "ocannl.concat"(%a, %b) {spec = "a; b; c => a^b^c"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "5">
  return
}

// -----

func.func @bad_range_spec() {
  // expected-error @+1 {{'ocannl.range' op attribute 'spec': invalid shape spec "i=>j": expected `|`, `->` or end of input, found `=>` at position 1}}
  %0 = "ocannl.range"() {spec = "i=>j"} : () -> !ocannl.tensor<f32, "20">
  return
}

// -----

func.func @bad_constant_spec() {
  // expected-error @+1 {{'ocannl.constant' op attribute 'spec': invalid shape spec "2*i": affine axes are only allowed in einsum specs at position 0}}
  %0 = "ocannl.constant"() {value = 0.0 : f32, spec = "2*i"} : () -> !ocannl.tensor<f32, "2">
  return
}

// -----

// Concatenated axes need Block logic: only ocannl.concat takes them.
func.func @concat_in_einsum(%a: !ocannl.tensor<f32, "2">, %b: !ocannl.tensor<f32, "3">) {
  // expected-error @+1 {{'ocannl.einsum' op einsum spec "a; b => a^b": concatenated axes (`a^b`) are only allowed in block specs ('ocannl.concat')}}
  %0 = "ocannl.einsum"(%a, %b) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "5">
  return
}
