// ocannl-erase-dead-ops before the lowering, on ops with hand-written
// schedules and no planner (Schedule/dead-ops.mlir has the planner): the
// unread exp, and the where read only by the unread cast, get no nest;
// without the pass, the lowering lowers them as written (KEPT).
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-erase-dead-ops,ocannl-lower-to-affine)' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-projections,ocannl-lower-to-affine)' | FileCheck %s --check-prefix=KEPT
// RUN: ocannl-run %s | FileCheck %s --check-prefix=VALUES
// UNSUPPORTED: plugin

// CHECK-LABEL: func.func @main
// CHECK-NOT: math.exp
// CHECK-NOT: arith.select
// CHECK-NOT: arith.cmpf
// CHECK: return

// KEPT: math.exp

// -x: [[-1, -2, -3], [1, 2, 3]].
// VALUES: result #0: float32[2, 3]
// VALUES-NEXT: min -3.000000 max 3.000000 mean 0.000000
func.func @main() -> !ocannl.tensor<f32, "2,3"> {
  %x = "ocannl.constant"() {value = dense<[[1.0, 2.0, 3.0], [-1.0, -2.0, -3.0]]> : tensor<2x3xf32>, ocannl.schedule = {kind = "loops"}} : () -> !ocannl.tensor<f32, "2,3">
  %one = "ocannl.constant"() {value = 1.0 : f32, ocannl.schedule = {kind = "loops"}} : () -> !ocannl.tensor<f32, "">
  %n = "ocannl.neg"(%x) {ocannl.schedule = {kind = "loops"}} : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "2,3">
  %ones = "ocannl.einsum"(%x, %one, %one) {spec = "..r..; ; => ..r..", combine = "where", ocannl.schedule = {kind = "loops"}} : (!ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "">, !ocannl.tensor<f32, "">) -> !ocannl.tensor<f32, "2,3">
  %mask = "ocannl.cast"(%ones) {ocannl.schedule = {kind = "loops"}} : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<i1, "2,3">
  %e = "ocannl.exp"(%x) {ocannl.schedule = {kind = "loops"}} : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "2,3">
  return %n : !ocannl.tensor<f32, "2,3">
}
