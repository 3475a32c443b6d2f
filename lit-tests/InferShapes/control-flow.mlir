// Values that control flow passes along are one shape: a branch's operands
// and its successor's block arguments (cf), a region op's operands,
// region arguments, yields and results (scf.if, scf.for, scf.while).
// Inference rewrites them all, so the module still verifies.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s

// CHECK-LABEL: func.func @if_else(
// CHECK-SAME: -> !ocannl.tensor<f32, "3">
// CHECK: scf.if %{{.*}} -> (!ocannl.tensor<f32, "3">)
// CHECK: "ocannl.neg"(%{{.*}}) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
// CHECK-NEXT: scf.yield %{{.*}} : !ocannl.tensor<f32, "3">
// CHECK: "ocannl.exp"(%{{.*}}) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
// CHECK-NEXT: scf.yield %{{.*}} : !ocannl.tensor<f32, "3">
func.func @if_else(%c: i1, %a: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "m"> {
  %r = scf.if %c -> !ocannl.tensor<f32, "m"> {
    %0 = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "m">
    scf.yield %0 : !ocannl.tensor<f32, "m">
  } else {
    %1 = "ocannl.exp"(%a) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "m">
    scf.yield %1 : !ocannl.tensor<f32, "m">
  }
  return %r : !ocannl.tensor<f32, "m">
}

// The loop-carried value, the region argument, the yield and the result.
// CHECK-LABEL: func.func @loop(
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (!ocannl.tensor<f32, "2|4">)
// CHECK: "ocannl.exp"(%[[ACC]]) : (!ocannl.tensor<f32, "2|4">) -> !ocannl.tensor<f32, "2|4">
// CHECK: scf.yield %{{.*}} : !ocannl.tensor<f32, "2|4">
// CHECK: "ocannl.relu"(%{{.*}}) : (!ocannl.tensor<f32, "2|4">) -> !ocannl.tensor<f32, "2|4">
func.func @loop(%a: !ocannl.tensor<f32, "..b..|4">, %n: index) -> !ocannl.tensor<f32, "...|k"> {
  %lb = arith.constant 0 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %n step %st iter_args(%acc = %a) -> (!ocannl.tensor<f32, "..b..|4">) {
    %e = "ocannl.exp"(%acc) : (!ocannl.tensor<f32, "..b..|4">) -> !ocannl.tensor<f32, "...|j">
    %m = "ocannl.neg"(%e) : (!ocannl.tensor<f32, "...|j">) -> !ocannl.tensor<f32, "..b..|4">
    scf.yield %m : !ocannl.tensor<f32, "..b..|4">
  }
  %two = "ocannl.range"() {spec = "2|4"} : () -> !ocannl.tensor<f32, "..b..|4">
  %s = "ocannl.add"(%r, %two) : (!ocannl.tensor<f32, "..b..|4">, !ocannl.tensor<f32, "..b..|4">) -> !ocannl.tensor<f32, "..b..|4">
  %o = "ocannl.relu"(%s) : (!ocannl.tensor<f32, "..b..|4">) -> !ocannl.tensor<f32, "...|k">
  return %o : !ocannl.tensor<f32, "...|k">
}

// Branches: successor operands and block arguments.
// CHECK-LABEL: func.func @branches(
// CHECK-SAME: -> !ocannl.tensor<f32, "5">
// CHECK: cf.cond_br %{{.*}}, ^bb1(%{{.*}} : !ocannl.tensor<f32, "5">), ^bb2
// CHECK: ^bb1(%{{.*}}: !ocannl.tensor<f32, "5">):
func.func @branches(%c: i1, %a: !ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "m"> {
  %five = "ocannl.range"() {spec = "5"} : () -> !ocannl.tensor<f32, "n">
  %b = "ocannl.add"(%a, %five) : (!ocannl.tensor<f32, "n">, !ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
  cf.cond_br %c, ^bb1(%b : !ocannl.tensor<f32, "n">), ^bb2
^bb1(%x: !ocannl.tensor<f32, "n">):
  %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "m">
  return %0 : !ocannl.tensor<f32, "m">
^bb2:
  %1 = "ocannl.exp"(%b) : (!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "m">
  return %1 : !ocannl.tensor<f32, "m">
}

// scf.while: before and after regions.
// CHECK-LABEL: func.func @while_loop(
// CHECK: scf.while (%{{.*}} = %{{.*}}) : (!ocannl.tensor<f32, "6">) -> !ocannl.tensor<f32, "6">
func.func @while_loop(%c: i1, %a: !ocannl.tensor<f32, "6">) -> !ocannl.tensor<f32, "r"> {
  %r = scf.while (%x = %a) : (!ocannl.tensor<f32, "6">) -> !ocannl.tensor<f32, "r"> {
    %y = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "6">) -> !ocannl.tensor<f32, "r">
    scf.condition(%c) %y : !ocannl.tensor<f32, "r">
  } do {
  ^bb0(%z: !ocannl.tensor<f32, "r">):
    %w = "ocannl.exp"(%z) : (!ocannl.tensor<f32, "r">) -> !ocannl.tensor<f32, "6">
    scf.yield %w : !ocannl.tensor<f32, "6">
  }
  return %r : !ocannl.tensor<f32, "r">
}
