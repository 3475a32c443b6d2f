// Integer division never traps (x86's idiv raises SIGFPE on x / 0 and on
// MIN / -1): the divisor is made 1 there and the result selected, x / 0
// being 0 and MIN / -1 being MIN. tools/tests/run/differential.py
// (i32_div_by_zero, i64_div_by_zero) runs it against NumPy.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-affine)' | FileCheck %s

// CHECK-LABEL: func.func @div(
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[MONE:.*]] = arith.constant -1 : i32
// CHECK-DAG: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK: %[[BYZERO:.*]] = arith.cmpi eq, %[[Y:.*]], %[[ZERO]] : i32
// CHECK: %[[TRAP:.*]] = arith.ori %[[BYZERO]], %{{.*}} : i1
// CHECK: %[[D:.*]] = arith.select %[[TRAP]], %[[ONE]], %[[Y]] : i32
// CHECK: %[[Q:.*]] = arith.divsi %{{.*}}, %[[D]] : i32
// CHECK: arith.select %[[BYZERO]], %[[ZERO]], %[[Q]] : i32
func.func @div(%a: !ocannl.tensor<i32, "4">, %b: !ocannl.tensor<i32, "4">) -> !ocannl.tensor<i32, "4"> {
  %0 = "ocannl.div"(%a, %b) : (!ocannl.tensor<i32, "4">, !ocannl.tensor<i32, "4">) -> !ocannl.tensor<i32, "4">
  return %0 : !ocannl.tensor<i32, "4">
}
