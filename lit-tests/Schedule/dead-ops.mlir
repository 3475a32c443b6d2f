// ocannl-erase-dead-ops (passes/src/dead_ops.rs): the ops whose results
// nothing reads are erased, last first, so that an op read only by erased
// ones goes too. An unread op then no longer counts as a second reader:
// below, the relu becomes the matrix product's epilogue once the unread
// 'where' is gone. Without the pass, the planner plans what is written
// (NOERASE). ocannl-run's pipeline runs the pass (VALUES, and the unread
// nests do not show in its profile: PROFILE).
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-erase-dead-ops,ocannl-plan-schedule{vector-bytes=64})' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule{vector-bytes=64})' | FileCheck %s --check-prefix=NOERASE
// RUN: ocannl-run %s --entry main --profile | FileCheck %s --check-prefix=PROFILE
// RUN: ocannl-run %s --entry main | FileCheck %s --check-prefix=VALUES
// UNSUPPORTED: plugin

// CHECK-LABEL: func.func @main
// CHECK: "ocannl.einsum"(%0, %1)
// CHECK-NEXT: "ocannl.relu"{{.*}}ocannl.schedule = {kind = "epilogue", operand = 0 : i64}
// CHECK-NOT: ocannl.cast
// CHECK-NOT: combine = "where"
// CHECK-NOT: "ocannl.exp"
// CHECK: return
// NOERASE-LABEL: func.func @main
// NOERASE: "ocannl.relu"{{.*}}ocannl.schedule = {kind = "cpu"
// NOERASE: "ocannl.cast"
// NOERASE: "ocannl.exp"

// PROFILE-NOT: ocannl.exp
// PROFILE-NOT: ocannl.cast
// PROFILE: ocannl.einsum + ocannl.relu
// PROFILE-NOT: ocannl.exp
// PROFILE-NOT: ocannl.cast

// A returned result is read (by the return): kept.
// CHECK-LABEL: func.func @returned
// CHECK: "ocannl.neg"
// CHECK: return

// relu(x . w) with w all ones: rows of 6 and of 0 (-6 before the relu).
// VALUES: result #0: float32[2, 4]
// VALUES-NEXT: min 0.000000 max 6.000000 mean 3.000000
func.func @main() -> !ocannl.tensor<f32, "2,4"> {
  %x = "ocannl.constant"() {value = dense<[[1.0, 2.0, 3.0], [-1.0, -2.0, -3.0]]> : tensor<2x3xf32>} : () -> !ocannl.tensor<f32, "2,3">
  %w = "ocannl.constant"() {value = dense<1.0> : tensor<3x4xf32>} : () -> !ocannl.tensor<f32, "3,4">
  %p = "ocannl.einsum"(%x, %w) {spec = "i,k; k,j => i,j"} : (!ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "3,4">) -> !ocannl.tensor<f32, "2,4">
  %r = "ocannl.relu"(%p) : (!ocannl.tensor<f32, "2,4">) -> !ocannl.tensor<f32, "2,4">
  %one = "ocannl.constant"() {value = 1.0 : f32} : () -> !ocannl.tensor<f32, "">
  %ones = "ocannl.einsum"(%p, %one, %one) {spec = "..r..; ; => ..r..", combine = "where"} : (!ocannl.tensor<f32, "2,4">, !ocannl.tensor<f32, "">, !ocannl.tensor<f32, "">) -> !ocannl.tensor<f32, "2,4">
  %mask = "ocannl.cast"(%ones) : (!ocannl.tensor<f32, "2,4">) -> !ocannl.tensor<i1, "2,4">
  %e = "ocannl.exp"(%x) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "2,3">
  return %r : !ocannl.tensor<f32, "2,4">
}

func.func @returned(%x: !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "4"> {
  %n = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "4">
  return %n : !ocannl.tensor<f32, "4">
}
