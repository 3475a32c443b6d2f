// OCANNL's shapes are monomorphic: a function is solved together with the
// functions it calls (one problem per component of the call graph). A
// call's arguments and results are its callee's signature.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes{close=false})' | FileCheck %s --check-prefix=OPEN

// The callee learns its shapes from its caller, the caller its result
// from the callee.
// CHECK-LABEL: func.func @layer(
// CHECK-SAME: %{{.*}}: !ocannl.tensor<f32, "3->5">, %{{.*}}: !ocannl.tensor<f32, "2|3">) -> !ocannl.tensor<f32, "2|5">
// CHECK: "ocannl.matmul"
// CHECK-SAME: -> !ocannl.tensor<f32, "2|5">
// CHECK: "ocannl.relu"
// CHECK-SAME: -> !ocannl.tensor<f32, "2|5">
// OPEN-LABEL: func.func @layer(
// OPEN-SAME: %{{.*}}: !ocannl.tensor<f32, "3->5">, %{{.*}}: !ocannl.tensor<f32, "2|3">) -> !ocannl.tensor<f32, "2|5">
func.func @layer(%w: !ocannl.tensor<f32, "i->o">, %x: !ocannl.tensor<f32, "b|i">) -> !ocannl.tensor<f32, "b|o"> {
  %0 = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "i->o">, !ocannl.tensor<f32, "b|i">) -> !ocannl.tensor<f32, "b|o">
  %1 = "ocannl.relu"(%0) : (!ocannl.tensor<f32, "b|o">) -> !ocannl.tensor<f32, "b|o">
  return %1 : !ocannl.tensor<f32, "b|o">
}

// Variable names are scoped to their function: `i`, `o` and `b` here are
// not the callee's (the call's types are the callee's signature, so its
// text is the same).
// CHECK-LABEL: func.func @model(
// CHECK-SAME: %{{.*}}: !ocannl.tensor<f32, "3->5">, %{{.*}}: !ocannl.tensor<f32, "2|3">) -> !ocannl.tensor<f32, "2|5">
// CHECK: call @layer(%{{.*}}, %{{.*}}) : (!ocannl.tensor<f32, "3->5">, !ocannl.tensor<f32, "2|3">) -> !ocannl.tensor<f32, "2|5">
func.func @model(%w: !ocannl.tensor<f32, "i->o">, %x: !ocannl.tensor<f32, "b|i">) -> !ocannl.tensor<f32, "b|o"> {
  %k = "ocannl.range"() {spec = "2|3"} : () -> !ocannl.tensor<f32, "b|i">
  %x2 = "ocannl.add"(%x, %k) : (!ocannl.tensor<f32, "b|i">, !ocannl.tensor<f32, "b|i">) -> !ocannl.tensor<f32, "b|i">
  %y = func.call @layer(%w, %x2) : (!ocannl.tensor<f32, "i->o">, !ocannl.tensor<f32, "b|i">) -> !ocannl.tensor<f32, "b|o">
  %o = "ocannl.range"() {spec = "2|5"} : () -> !ocannl.tensor<f32, "b|o">
  %z = "ocannl.add"(%y, %o) : (!ocannl.tensor<f32, "b|o">, !ocannl.tensor<f32, "b|o">) -> !ocannl.tensor<f32, "b|o">
  return %z : !ocannl.tensor<f32, "b|o">
}

// A declaration's signature takes part too.
// CHECK-LABEL: func.func private @external(!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "4">
// CHECK-LABEL: func.func @caller(
// CHECK: call @external(%{{.*}}) : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "4">
func.func private @external(!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
func.func @caller(%a: !ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n"> {
  %r = "ocannl.range"() {spec = "4"} : () -> !ocannl.tensor<f32, "n">
  %s = "ocannl.add"(%a, %r) : (!ocannl.tensor<f32, "n">, !ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
  %0 = func.call @external(%s) : (!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
  return %0 : !ocannl.tensor<f32, "n">
}
