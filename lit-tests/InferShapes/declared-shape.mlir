// `ocannl.declared_shape`: a shape an op's result must have once solved (an
// importer's record of the file), checked after closing, never a
// constraint. A pointwise result typed "4,3" would broadcast [1,3] + [1,3]
// up to [4,3]; declared "4,3", it is an error at the op with a note at each
// operand's producer.
// RUN: not ocannl-opt %s -split-input-file -p 'builtin.module(ocannl-infer-shapes)' 2>/dev/null | FileCheck %s
// RUN: not ocannl-opt %s -split-input-file -p 'builtin.module(ocannl-infer-shapes)' 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR
// Left open, nothing is compared:
// RUN: ocannl-opt %s -split-input-file -p 'builtin.module(ocannl-infer-shapes{close=false})' 2>&1 | FileCheck %s --check-prefix=OPEN
// OPEN-NOT: error

// CHECK-LABEL: func.func @agrees
// CHECK: "ocannl.add"{{.*}}ocannl.declared_shape = "2,3"{{.*}}-> !ocannl.tensor<f32, "2,3">
func.func @agrees(%a: !ocannl.tensor<f32, "1,3">, %b: !ocannl.tensor<f32, "2,1">) -> !ocannl.tensor<f32, "..."> {
  %r = "ocannl.add"(%a, %b) {ocannl.declared_shape = "2,3"} : (!ocannl.tensor<f32, "1,3">, !ocannl.tensor<f32, "2,1">) -> !ocannl.tensor<f32, "...">
  return %r : !ocannl.tensor<f32, "...">
}

// -----

// ERR: error: the result's declared shape "4,3" is not the shape the op computes, "1,3"
// ERR: note: operand #0 is produced here, with shape "1,3"
// ERR-NOT: note
func.func @widens(%x: !ocannl.tensor<f32, "1,3">) -> !ocannl.tensor<f32, "..."> {
  %a = "ocannl.relu"(%x) : (!ocannl.tensor<f32, "1,3">) -> !ocannl.tensor<f32, "...">
  %r = "ocannl.add"(%a, %a) {ocannl.declared_shape = "4,3"} : (!ocannl.tensor<f32, "...">, !ocannl.tensor<f32, "...">) -> !ocannl.tensor<f32, "...">
  return %r : !ocannl.tensor<f32, "...">
}

// -----

// ERR: error: attribute 'ocannl.declared_shape' = "4->(": {{.*}}
func.func @bad_spec(%x: !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "..."> {
  %r = "ocannl.neg"(%x) {ocannl.declared_shape = "4->("} : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...">
  return %r : !ocannl.tensor<f32, "...">
}

// -----

// ERR: error: attribute 'ocannl.declared_shape' must be a string, got 4 : i64
func.func @not_a_string(%x: !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "..."> {
  %r = "ocannl.neg"(%x) {ocannl.declared_shape = 4} : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...">
  return %r : !ocannl.tensor<f32, "...">
}

// -----

// An empty spec is the scalar's.
// ERR: error: the result's declared shape "" is not the shape the op computes, "4"
func.func @empty(%x: !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "..."> {
  %r = "ocannl.neg"(%x) {ocannl.declared_shape = ""} : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...">
  return %r : !ocannl.tensor<f32, "...">
}
