// Every op of the dialect, printed, re-parsed and printed again by
// ocannl-opt; the same input is parsed by stock mlir-opt from the checked-in
// IRDL definition.
// RUN: ocannl-opt %s | ocannl-opt | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify)' | FileCheck %s
// RUN: mlir-opt --irdl-file=%irdl %s | mlir-opt --irdl-file=%irdl | FileCheck %s

// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: (%[[A:.*]]: !ocannl.tensor<f32, "b|i->o">, %[[B:.*]]: !ocannl.tensor<f32, "o">)
func.func @pointwise(%a: !ocannl.tensor<f32, "b|i->o">, %b: !ocannl.tensor<f32, "o">) -> !ocannl.tensor<f32, "b|i->o"> {
  // CHECK: %[[N:.*]] = "ocannl.neg"(%[[A]]) : (!ocannl.tensor<f32, "b|i->o">) -> !ocannl.tensor<f32, "b|i->o">
  %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "b|i->o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.relu"(%[[N]])
  %1 = "ocannl.relu"(%0) : (!ocannl.tensor<f32, "b|i->o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.exp"
  %2 = "ocannl.exp"(%1) : (!ocannl.tensor<f32, "b|i->o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.log"
  %3 = "ocannl.log"(%2) : (!ocannl.tensor<f32, "b|i->o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.sqrt"
  %4 = "ocannl.sqrt"(%3) : (!ocannl.tensor<f32, "b|i->o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.tanh"
  %5 = "ocannl.tanh"(%4) : (!ocannl.tensor<f32, "b|i->o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.sin"
  %6 = "ocannl.sin"(%5) : (!ocannl.tensor<f32, "b|i->o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.cos"
  %7 = "ocannl.cos"(%6) : (!ocannl.tensor<f32, "b|i->o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.abs"
  %8 = "ocannl.abs"(%7) : (!ocannl.tensor<f32, "b|i->o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.recip"
  %9 = "ocannl.recip"(%8) : (!ocannl.tensor<f32, "b|i->o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.add"(%{{.*}}, %[[B]]) : (!ocannl.tensor<f32, "b|i->o">, !ocannl.tensor<f32, "o">) -> !ocannl.tensor<f32, "b|i->o">
  %10 = "ocannl.add"(%9, %b) : (!ocannl.tensor<f32, "b|i->o">, !ocannl.tensor<f32, "o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.sub"
  %11 = "ocannl.sub"(%10, %b) : (!ocannl.tensor<f32, "b|i->o">, !ocannl.tensor<f32, "o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.mul"
  %12 = "ocannl.mul"(%11, %b) : (!ocannl.tensor<f32, "b|i->o">, !ocannl.tensor<f32, "o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.div"
  %13 = "ocannl.div"(%12, %b) : (!ocannl.tensor<f32, "b|i->o">, !ocannl.tensor<f32, "o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.max"
  %14 = "ocannl.max"(%13, %b) : (!ocannl.tensor<f32, "b|i->o">, !ocannl.tensor<f32, "o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.min"
  %15 = "ocannl.min"(%14, %b) : (!ocannl.tensor<f32, "b|i->o">, !ocannl.tensor<f32, "o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.pow"
  %16 = "ocannl.pow"(%15, %b) : (!ocannl.tensor<f32, "b|i->o">, !ocannl.tensor<f32, "o">) -> !ocannl.tensor<f32, "b|i->o">
  // CHECK: "ocannl.where"
  %17 = "ocannl.where"(%16, %a, %b) : (!ocannl.tensor<f32, "b|i->o">, !ocannl.tensor<f32, "b|i->o">, !ocannl.tensor<f32, "o">) -> !ocannl.tensor<f32, "b|i->o">
  return %17 : !ocannl.tensor<f32, "b|i->o">
}

// CHECK-LABEL: func.func @structural
func.func @structural(%w: !ocannl.tensor<f32, "784->h">, %x: !ocannl.tensor<f32, "b|784">,
                      %c: !ocannl.tensor<f32, "h">) -> !ocannl.tensor<f32, "h->b"> {
  // CHECK: "ocannl.matmul"({{.*}}) : (!ocannl.tensor<f32, "784->h">, !ocannl.tensor<f32, "b|784">) -> !ocannl.tensor<f32, "b|h">
  %0 = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "784->h">, !ocannl.tensor<f32, "b|784">) -> !ocannl.tensor<f32, "b|h">
  // CHECK: "ocannl.fma"
  %1 = "ocannl.fma"(%w, %x, %c) : (!ocannl.tensor<f32, "784->h">, !ocannl.tensor<f32, "b|784">, !ocannl.tensor<f32, "h">) -> !ocannl.tensor<f32, "b|h">
  // CHECK: "ocannl.einsum"({{.*}}) {spec = "b|->h => h->b"}
  %2 = "ocannl.einsum"(%1) {spec = "b|->h => h->b"} : (!ocannl.tensor<f32, "b|h">) -> !ocannl.tensor<f32, "h->b">
  return %2 : !ocannl.tensor<f32, "h->b">
}

// CHECK-LABEL: func.func @einsum_and_friends
func.func @einsum_and_friends(%a: !ocannl.tensor<f32, "2|3->4">, %b: !ocannl.tensor<f32, "2|4->5">,
                              %x: !ocannl.tensor<f32, "8,4|3->2">) -> !ocannl.tensor<f32, "2,2|3->5"> {
  // CHECK: "ocannl.einsum"({{.*}}) {accum = "add", combine = "mul", spec = "a|i->h; b|h->o => ab|i->o"}
  %0 = "ocannl.einsum"(%a, %b) {spec = "a|i->h; b|h->o => ab|i->o", accum = "add", combine = "mul"} : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "2|4->5">) -> !ocannl.tensor<f32, "2,2|3->5">
  // CHECK: "ocannl.transpose"
  %1 = "ocannl.transpose"(%a) : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "2|4->3">
  // CHECK: "ocannl.batch_slice"({{.*}}) {index = 2 : i64}
  %2 = "ocannl.batch_slice"(%x) {index = 2 : i64} : (!ocannl.tensor<f32, "8,4|3->2">) -> !ocannl.tensor<f32, "4|3->2">
  // CHECK: "ocannl.concat"({{.*}}) {spec = "a; b => a^b"}
  %3 = "ocannl.concat"(%a, %b) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "2|4->5">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "2,2|3->5">
}

// CHECK-LABEL: func.func @terminals
func.func @terminals(%t: tensor<2x3xf32>) -> tensor<6xf32> {
  // CHECK: "ocannl.constant"() {value = 1.000000e+00 : f32} : () -> !ocannl.tensor<f32, "3->4">
  %0 = "ocannl.constant"() {value = 1.0 : f32} : () -> !ocannl.tensor<f32, "3->4">
  // CHECK: "ocannl.constant"() {spec = "2", value = dense<[1, 2]> : tensor<2xi32>} : () -> !ocannl.tensor<i32, "n">
  %1 = "ocannl.constant"() {value = dense<[1, 2]> : tensor<2xi32>, spec = "2"} : () -> !ocannl.tensor<i32, "n">
  // CHECK: "ocannl.range"() {spec = "20"} : () -> !ocannl.tensor<f64, "20">
  %2 = "ocannl.range"() {spec = "20"} : () -> !ocannl.tensor<f64, "20">
  // CHECK: "ocannl.reshape"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<6xf32>
  %3 = "ocannl.reshape"(%t) : (tensor<2x3xf32>) -> tensor<6xf32>
  return %3 : tensor<6xf32>
}

// Builtin tensors mix with ocannl tensors; specs of every form survive.
// CHECK-LABEL: func.func @builtin_and_specs
// CHECK-SAME: !ocannl.tensor<f32, "batch,seq|..r..,64->128">
// CHECK-SAME: !ocannl.tensor<f16, "rgb=3,h,w">
// CHECK-SAME: !ocannl.tensor<i8, "">
// CHECK-SAME: !ocannl.tensor<f32, "..b..,_|...->a,...">
func.func @builtin_and_specs(%a: !ocannl.tensor<f32, "batch,seq|..r..,64->128">, %b: !ocannl.tensor<f16, "rgb=3,h,w">,
                             %s: !ocannl.tensor<i8, "">, %c: !ocannl.tensor<f32, "..b..,_|...->a,...">,
                             %t: tensor<4x?xf32>, %u: tensor<*xf32>) -> tensor<*xf32> {
  // CHECK: "ocannl.add"(%{{.*}}, %{{.*}}) : (tensor<4x?xf32>, tensor<*xf32>) -> tensor<*xf32>
  %0 = "ocannl.add"(%t, %u) : (tensor<4x?xf32>, tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
