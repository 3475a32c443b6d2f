// Empty string attributes are ordinary invalid values: located errors, not
// an abort (melior's StringRef::as_str panics on MLIR's empty strings; the
// passes read strings through ocannl_dialect::ir).
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-verify)'

func.func @einsum_spec(%a: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2"> {
  // expected-error @+1 {{'ocannl.einsum' op attribute 'spec': invalid einsum spec "": expected `|`, `->`, `;` or `=>`, found end of input at position 0}}
  %0 = "ocannl.einsum"(%a) {spec = ""} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return %0 : !ocannl.tensor<f32, "2">
}

// -----

func.func @accum(%a: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2"> {
  // expected-error @+1 {{'ocannl.einsum' op attribute 'accum' must be one of "add", "mul", "max", "min", got ""}}
  %0 = "ocannl.einsum"(%a) {spec = "i=>i", accum = ""} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return %0 : !ocannl.tensor<f32, "2">
}

// -----

func.func @combine(%a: !ocannl.tensor<f32, "2">, %b: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2"> {
  // expected-error @+1 {{'ocannl.einsum' op attribute 'combine' must be one of}}
  %0 = "ocannl.einsum"(%a, %b) {spec = "i;i=>i", combine = ""} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return %0 : !ocannl.tensor<f32, "2">
}

// -----

func.func @block_spec(%a: !ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2"> {
  // expected-error @+1 {{'ocannl.concat' op attribute 'spec': invalid block spec ""}}
  %0 = "ocannl.concat"(%a) {spec = ""} : (!ocannl.tensor<f32, "2">) -> !ocannl.tensor<f32, "2">
  return %0 : !ocannl.tensor<f32, "2">
}

// -----

// An empty shape spec is a scalar: valid.
func.func @scalar_range() -> !ocannl.tensor<f32, ""> {
  %0 = "ocannl.range"() {spec = ""} : () -> !ocannl.tensor<f32, "">
  return %0 : !ocannl.tensor<f32, "">
}
