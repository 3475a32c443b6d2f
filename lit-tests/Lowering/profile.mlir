// ocannl-profile-mark (before the lowering) and ocannl-profile-ops (after
// it), which `ocannl-run --profile` runs: the nests of each op with a nest
// of its own are bracketed by the timer's calls with the op's id, the ops
// fused into a nest are named on its producer's entry of the table
// (`ocannl.profile`: [op, location, fused ops...]), calls between the ops
// stay outside the timed regions, every location is restored, and
// ocannl-outline-nests moves the timer's calls with their nests.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule,ocannl-profile-mark,ocannl-lower-to-affine,ocannl-profile-ops)' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule,ocannl-profile-mark,ocannl-lower-to-affine,ocannl-profile-ops)' -mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule,ocannl-profile-mark,ocannl-lower-to-affine,ocannl-profile-ops,ocannl-outline-nests{max-nests=2})' | FileCheck %s --check-prefix=OUTLINE

// CHECK: module attributes {ocannl.profile = {{\[}}["ocannl.neg", "{{.*}}profile.mlir:[[#@LINE+10]]:8"], ["ocannl.add", "{{.*}}profile.mlir:[[#@LINE+33]]:8", "ocannl.relu"], ["ocannl.mul", "{{.*}}profile.mlir:[[#@LINE+36]]:8"], ["ocannl.neg", {{.*}}], ["ocannl.add", {{.*}}], ["ocannl.mul", {{.*}}]]}

// CHECK-LABEL: func.func private @g(
// CHECK: %[[ID0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @__ocannl_profile_begin(%[[ID0]]) : (i64) -> ()
// CHECK: affine.for
// CHECK: arith.negf
// CHECK: call @__ocannl_profile_end(%[[ID0]]) : (i64) -> ()
// CHECK-NEXT: cf.br
func.func private @g(%x: !ocannl.tensor<f32, "4,16">) -> !ocannl.tensor<f32, "4,16"> {
  %n = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "4,16">) -> !ocannl.tensor<f32, "4,16">
  return %n : !ocannl.tensor<f32, "4,16">
}

// The relu is the add's epilogue: one nest, one id. The call of @g and its
// result's buffer come before the mul's timed region.
// CHECK-LABEL: func.func @f(
// CHECK: memref.alloc
// CHECK-NEXT: %[[ID1:.*]] = arith.constant 1 : i64
// CHECK-NEXT: call @__ocannl_profile_begin(%[[ID1]])
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: call @__ocannl_profile_end(%[[ID1]])
// CHECK-NEXT: cf.br
// CHECK: call @g(
// CHECK-NEXT: %[[ID2:.*]] = arith.constant 2 : i64
// CHECK-NEXT: call @__ocannl_profile_begin(%[[ID2]])
// CHECK: arith.mulf
// CHECK: call @__ocannl_profile_end(%[[ID2]])
// CHECK-NEXT: cf.br
// CHECK: memref.dealloc
// CHECK-NEXT: return
func.func @f(%x: !ocannl.tensor<f32, "4,16">, %b: !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "...|...->..."> {
  %s = "ocannl.add"(%x, %b) : (!ocannl.tensor<f32, "4,16">, !ocannl.tensor<f32, "16">) -> !ocannl.tensor<f32, "4,16">
  %r = "ocannl.relu"(%s) : (!ocannl.tensor<f32, "4,16">) -> !ocannl.tensor<f32, "4,16">
  %c = func.call @g(%r) : (!ocannl.tensor<f32, "4,16">) -> !ocannl.tensor<f32, "4,16">
  %m = "ocannl.mul"(%c, %c) : (!ocannl.tensor<f32, "4,16">, !ocannl.tensor<f32, "4,16">) -> !ocannl.tensor<f32, "...|...->...">
  return %m : !ocannl.tensor<f32, "...|...->...">
}

// Three nests (each value read twice: nothing fuses). With max-nests=2 the
// first two move into a helper with their timer's calls; the end of the
// second's region follows the helper's call.
// OUTLINE-LABEL: func.func @h(
// OUTLINE: %[[ID4:.*]] = arith.constant 4 : i64
// OUTLINE: call @__ocannl_nests0_h(
// OUTLINE-NEXT: call @__ocannl_profile_end(%[[ID4]])
// OUTLINE: call @__ocannl_profile_begin(%[[ID5:.*]]) :
// OUTLINE: arith.mulf
// OUTLINE: call @__ocannl_profile_end(%[[ID5]])
// OUTLINE-LABEL: func.func private @__ocannl_nests0_h(
// OUTLINE: %[[H3:.*]] = arith.constant 3 : i64
// OUTLINE: %[[H4:.*]] = arith.constant 4 : i64
// OUTLINE: call @__ocannl_profile_begin(%[[H3]])
// OUTLINE: arith.negf
// OUTLINE: call @__ocannl_profile_end(%[[H3]])
// OUTLINE-NEXT: call @__ocannl_profile_begin(%[[H4]])
// OUTLINE: arith.addf
// OUTLINE-NOT: __ocannl_profile
// OUTLINE: return
func.func @h(%x: !ocannl.tensor<f32, "4,16">) -> !ocannl.tensor<f32, "...|...->..."> {
  %a = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "4,16">) -> !ocannl.tensor<f32, "...|...->...">
  %b = "ocannl.add"(%a, %a) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  %c = "ocannl.mul"(%b, %b) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %c : !ocannl.tensor<f32, "...|...->...">
}

// CHECK-DAG: func.func private @__ocannl_profile_begin(i64)
// CHECK-DAG: func.func private @__ocannl_profile_end(i64)

// No marked location is left, on ops or on loops' induction variables.
// LOC-NOT: loc(fused
