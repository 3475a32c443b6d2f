// One name is a row variable or a dimension variable within a spec, never
// both (OCANNL's test/einsum/test_einsum_capture.ml: "Name 'd' is used as
// both a dimension variable and a row variable in spec"): an error at the
// type or the op, naming the variable and both positions.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-infer-shapes)'

// expected-error @+1 {{invalid shape spec in type !ocannl.tensor<f32, "..d..,d">: name 'd' is used as both a dimension variable and a row variable (as a row variable at position 2) at position 6}}
func.func @in_a_type(%a: !ocannl.tensor<f32, "..d..,d">) -> !ocannl.tensor<f32, "..."> {
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "..d..,d">) -> !ocannl.tensor<f32, "...">
  return %0 : !ocannl.tensor<f32, "...">
}

// -----

func.func @in_an_einsum(%a: !ocannl.tensor<f32, "2,3">, %b: !ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "..."> {
  // expected-error @+1 {{'ocannl.einsum' op invalid einsum spec: name 'd' is used as both a dimension variable and a row variable (as a row variable at position 2) at position 7}}
  %0 = "ocannl.einsum"(%a, %b) {spec = "..d.., d; d, e => ..d.., e"} : (!ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "...">
  return %0 : !ocannl.tensor<f32, "...">
}

// -----

func.func @swapped(%a: !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "..."> {
  // expected-error @+1 {{name 'v' is used as both a dimension variable and a row variable (as a row variable at position 2) at position 7}}
  %0 = "ocannl.einsum"(%a) {spec = "..v.., v => v, ..v.."} : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...">
  return %0 : !ocannl.tensor<f32, "...">
}

// -----

// Distinct names are two variables: the row variable takes the leading
// axis, `d` the last.
func.func @distinct(%a: !ocannl.tensor<f32, "2,3">, %b: !ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "2,4"> {
  %0 = "ocannl.einsum"(%a, %b) {spec = "..r.., d; d, e => ..r.., e"} : (!ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "2,4">
  return %0 : !ocannl.tensor<f32, "2,4">
}
