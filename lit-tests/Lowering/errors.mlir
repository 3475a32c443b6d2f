// Errors of ocannl-lower-to-affine, located at the op or argument at fault.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-lower-to-affine)'

// Shapes must be concrete: lowering comes after ocannl-infer-shapes.
func.func @open_shape(
    // expected-error @+1 {{argument #0 !ocannl.tensor<f32, "b|3"> does not have a concrete shape: run ocannl-infer-shapes first}}
    %x: !ocannl.tensor<f32, "b|3">) {
  return
}

// -----

func.func @open_result(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'ocannl.neg' op: result !ocannl.tensor<f32, "..."> does not have a concrete shape: run ocannl-infer-shapes first}}
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...">
  return %x : !ocannl.tensor<f32, "3">
}

// -----

func.func @foreign_op(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'func.call' op cannot be lowered by ocannl-lower-to-affine: functions on ocannl tensors may hold only ocannl ops}}
  %0 = func.call @foreign_op(%x) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// -----

// Two operands would write the same cells: a block spec must give each
// cell of the result at most one writer.
func.func @ambiguous_concat(%x: !ocannl.tensor<f32, "3">, %y: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'ocannl.concat' op: operands #0 and #1 would both write the same cells of the result (ambiguous concatenation)}}
  %0 = "ocannl.concat"(%x, %y) {spec = "a; a => a"} : (!ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// -----

// The types contradict the spec: 2 and 3 do not make 6.
func.func @concat_types_mismatch(%x: !ocannl.tensor<f32, "2">, %y: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "6"> {
  // expected-error @+1 {{'ocannl.concat' op: cannot infer projections: block: the concatenated axis 'a^b' has size 6, but its parts sum to 5}}
  %0 = "ocannl.concat"(%x, %y) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "6">
  return %0 : !ocannl.tensor<f32, "6">
}

// -----

func.func @int_exp(%x: !ocannl.tensor<i32, "3">) -> !ocannl.tensor<i32, "3"> {
  // expected-error @+1 {{'ocannl.exp' op: 'exp' is not lowered for element type i32}}
  %0 = "ocannl.exp"(%x) : (!ocannl.tensor<i32, "3">) -> !ocannl.tensor<i32, "3">
  return %0 : !ocannl.tensor<i32, "3">
}

// -----

func.func @mixed_elements(%x: !ocannl.tensor<f32, "3">, %y: !ocannl.tensor<f64, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'ocannl.add' op: operand #1 has element type f64 but the result has f32}}
  %0 = "ocannl.add"(%x, %y) : (!ocannl.tensor<f32, "3">, !ocannl.tensor<f64, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// -----

// expected-error @+1 {{cannot lower a function declaration on ocannl tensors}}
func.func private @declaration(!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">

// -----

// expected-error @+1 {{cannot lower a function with more than one block on ocannl tensors}}
func.func @blocks(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  cf.br ^next
^next:
  return %x : !ocannl.tensor<f32, "3">
}

// -----

func.func @wrong_maps(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'ocannl.neg' op: indexing maps other than iterators, constants and strided or convolution sums are not lowered}}
  %0 = "ocannl.neg"(%x) {ocannl.product_space = array<i64: 3>, ocannl.indexing_maps = [affine_map<(d0) -> (d0 floordiv 2)>, affine_map<(d0) -> (d0)>]} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// -----

func.func @strided_result(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "6"> {
  // expected-error @+1 {{'ocannl.einsum' op: strided or convolution indices of the result are not lowered}}
  %0 = "ocannl.einsum"(%x) {spec = "o => o", ocannl.product_space = array<i64: 3>, ocannl.indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0 * 2)>]} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "6">
  return %0 : !ocannl.tensor<f32, "6">
}
