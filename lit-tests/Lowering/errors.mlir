// Errors of ocannl-lower-to-affine, located at the op or argument at fault.
// Every one is found before the IR changes.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-plan-schedule,ocannl-lower-to-affine)'

// Shapes must be concrete: lowering comes after ocannl-infer-shapes.
func.func @open_shape(
    // expected-error @+1 {{argument #0 !ocannl.tensor<f32, "b|3"> does not have a concrete shape: run ocannl-infer-shapes first}}
    %x: !ocannl.tensor<f32, "b|3">) {
  return
}

// -----

func.func @open_result(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'ocannl.neg' op: result #0 !ocannl.tensor<f32, "..."> does not have a concrete shape: run ocannl-infer-shapes first}}
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...">
  return %x : !ocannl.tensor<f32, "3">
}

// -----

func.func @foreign_op(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'tensor.empty' op cannot be lowered: functions on ocannl tensors may hold only ocannl ops, func.call to functions on ocannl tensors and func.return (control flow and other dialects are not lowered)}}
  %0 = tensor.empty() : tensor<3xf32>
  return %x : !ocannl.tensor<f32, "3">
}

// -----

// A call to a function that is not lowered (no ocannl tensors).
func.func private @helper(tensor<3xf32>) -> tensor<3xf32>
func.func @foreign_call(%x: !ocannl.tensor<f32, "3">, %t: tensor<3xf32>) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'func.call' op cannot be lowered}}
  %0 = func.call @helper(%t) : (tensor<3xf32>) -> tensor<3xf32>
  return %x : !ocannl.tensor<f32, "3">
}

// -----

func.func @int_exp(%x: !ocannl.tensor<i32, "3">) -> !ocannl.tensor<i32, "3"> {
  // expected-error @+1 {{'ocannl.exp' op: 'exp' is not lowered for element type i32}}
  %0 = "ocannl.exp"(%x) {ocannl.product_space = array<i64: 3>, ocannl.iterator_types = ["parallel"], ocannl.indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]} : (!ocannl.tensor<i32, "3">) -> !ocannl.tensor<i32, "3">
  return %0 : !ocannl.tensor<i32, "3">
}

// -----

func.func @mixed_elements(%x: !ocannl.tensor<f32, "3">, %y: !ocannl.tensor<f64, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'ocannl.add' op: operand #1 has element type f64 but the result has f32}}
  %0 = "ocannl.add"(%x, %y) : (!ocannl.tensor<f32, "3">, !ocannl.tensor<f64, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// -----

// Control flow is not lowered: the error names the construct.
func.func @blocks(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'cf.br' op cannot be lowered}}
  cf.br ^next
^next:
  return %x : !ocannl.tensor<f32, "3">
}

// -----

func.func @wrong_maps(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'ocannl.neg' op: malformed ocannl.product_space / ocannl.indexing_maps attributes: operand #0's map, axis 0: only iterators, constants and strided or convolution sums are lowered}}
  %0 = "ocannl.neg"(%x) {ocannl.product_space = array<i64: 3>, ocannl.indexing_maps = [affine_map<(d0) -> (d0 floordiv 2)>, affine_map<(d0) -> (d0)>]} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// -----

func.func @strided_result(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "6"> {
  // expected-error @+1 {{'ocannl.einsum' op: strided or convolution indices of the result are not lowered}}
  %0 = "ocannl.einsum"(%x) {spec = "o => o", ocannl.product_space = array<i64: 3>, ocannl.indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0 * 2)>]} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "6">
  return %0 : !ocannl.tensor<f32, "6">
}

// -----

// Hand-written projections that contradict the types would store out of
// bounds: they are checked against the buffers.
func.func @maps_out_of_bounds(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'ocannl.neg' op: ocannl.indexing_maps contradicts the types: the result's axis 0 has size 3 but its index takes the values 0..=7}}
  %0 = "ocannl.neg"(%x) {ocannl.product_space = array<i64: 8>, ocannl.indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// -----

func.func @maps_wrong_rank(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'ocannl.neg' op: malformed ocannl.product_space / ocannl.indexing_maps attributes: the result's map has 2 results but the tensor has 1 axes}}
  %0 = "ocannl.neg"(%x) {ocannl.product_space = array<i64: 3>, ocannl.indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0, d0)>]} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// -----

func.func @maps_negative_space(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'ocannl.neg' op: malformed ocannl.product_space / ocannl.indexing_maps attributes: iterator 0 has size -3}}
  %0 = "ocannl.neg"(%x) {ocannl.product_space = array<i64: -3>, ocannl.indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// -----

// Element types LLVM cannot generate code for on every host.
func.func @f80_tensor(
    // expected-error @+1 {{argument #0: element type f80 is not supported by the lowering (f16, bf16, f32, f64, i1, i8, i16, i32, i64, ui8, ui16, ui32 and ui64 are)}}
    %x: !ocannl.tensor<f80, "3">) {
  return
}

// -----

// expected-error @+1 {{result #0: element type f128 is not supported by the lowering}}
func.func @f128_result() -> !ocannl.tensor<f128, "2"> {
  // expected-error @+1 {{'ocannl.range' op: result #0: element type f128 is not supported by the lowering}}
  %0 = "ocannl.range"() {spec = "2"} : () -> !ocannl.tensor<f128, "2">
  return %0 : !ocannl.tensor<f128, "2">
}

// -----

// A buffer must fit in 2^63 bytes (sizes and addresses are 64-bit).
func.func @too_big(
    // expected-error @+1 {{argument #0 !ocannl.tensor<f32, "100000,100000,100000,100000"> is too large: its buffer would exceed 9223372036854775807 bytes}}
    %x: !ocannl.tensor<f32, "100000,100000,100000,100000">) {
  return
}

// -----

// A scalar constant must fit its element type.
func.func @constant_overflow() -> !ocannl.tensor<i32, "2"> {
  // expected-error @+1 {{'ocannl.constant' op: 'value' 1.000000e+20 : f64 does not fit the element type i32}}
  %0 = "ocannl.constant"() {value = 1.0e20 : f64} : () -> !ocannl.tensor<i32, "2">
  return %0 : !ocannl.tensor<i32, "2">
}

// -----

func.func @constant_fraction() -> !ocannl.tensor<i8, "2"> {
  // expected-error @+1 {{'ocannl.constant' op: 'value' 3.500000e+00 : f64 does not fit the element type i8}}
  %0 = "ocannl.constant"() {value = 3.5 : f64} : () -> !ocannl.tensor<i8, "2">
  return %0 : !ocannl.tensor<i8, "2">
}

// -----

func.func @constant_f16_overflow() -> !ocannl.tensor<f16, "2"> {
  // expected-error @+1 {{'ocannl.constant' op: 'value' 1.000000e+05 : f64 does not fit the element type f16}}
  %0 = "ocannl.constant"() {value = 1.0e5 : f64} : () -> !ocannl.tensor<f16, "2">
  return %0 : !ocannl.tensor<f16, "2">
}

// -----

// Names the lowered code uses itself, or that belong to the compiler.
// expected-error @+1 {{function name '@malloc' is reserved: the lowered code calls the C library function of that name}}
func.func @malloc(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  return %x : !ocannl.tensor<f32, "3">
}

// -----

// expected-error @+1 {{function name '@llvm.exp' is reserved: names starting with 'llvm.' belong to the compiler and its runtime}}
func.func @llvm.exp(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  return %x : !ocannl.tensor<f32, "3">
}

// -----

// expected-error @+1 {{a lowered function needs a name}}
func.func @""(%x: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  return %x : !ocannl.tensor<f32, "3">
}

// -----

// ocannl ops must be inside a function.
module {
  // expected-error @+1 {{'ocannl.range' op outside a function cannot be lowered: ocannl-lower-to-affine lowers ocannl ops inside func.func}}
  %0 = "ocannl.range"() {spec = "2"} : () -> !ocannl.tensor<f32, "2">
}

// -----

// Recursion through calls that pass no tensors (inference never sees it):
// without control flow it could only run forever.
func.func @ping() {
  %0 = "ocannl.range"() {spec = "2"} : () -> !ocannl.tensor<f32, "2">
  func.call @pong() : () -> ()
  return
}
func.func @pong() {
  %0 = "ocannl.range"() {spec = "2"} : () -> !ocannl.tensor<f32, "2">
  // expected-error @+1 {{recursive call: a function on ocannl tensors has no control flow, so its recursion never ends}}
  func.call @ping() : () -> ()
  return
}
