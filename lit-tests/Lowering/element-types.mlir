// Conversions, comparisons and unsigned integers in the lowering
// (docs/decisions/0047-unsigned-integers.md): a ui8 tensor is an i8 buffer
// and the op computes unsigned; float-to-integer casts saturate through
// i64 (no poison), comparisons give i1.
// RUN: ocannl-opt %s -split-input-file -p 'builtin.module(ocannl-to-affine)' | FileCheck %s

// CHECK-LABEL: func.func @cast_f32_to_i32(
// CHECK-SAME: memref<4xf32>
// CHECK-DAG: arith.cmpf oge
// CHECK-DAG: arith.cmpf uno
// CHECK: arith.fptosi %{{.*}} : f32 to i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
func.func @cast_f32_to_i32(%x: !ocannl.tensor<f32, "4">) -> !ocannl.tensor<i32, "4"> {
  %0 = "ocannl.cast"(%x) : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<i32, "4">
  return %0 : !ocannl.tensor<i32, "4">
}

// -----

// CHECK-LABEL: func.func @cast_unsigned(
// CHECK-SAME: memref<4xi8>
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.extui %{{.*}} : i1 to i8
func.func @cast_unsigned(%x: !ocannl.tensor<ui8, "4">, %b: !ocannl.tensor<i1, "4">) -> (!ocannl.tensor<f32, "4">, !ocannl.tensor<i32, "4">, !ocannl.tensor<i8, "4">) {
  %0 = "ocannl.cast"(%x) : (!ocannl.tensor<ui8, "4">) -> !ocannl.tensor<f32, "4">
  %1 = "ocannl.cast"(%x) : (!ocannl.tensor<ui8, "4">) -> !ocannl.tensor<i32, "4">
  %2 = "ocannl.cast"(%b) : (!ocannl.tensor<i1, "4">) -> !ocannl.tensor<i8, "4">
  return %0, %1, %2 : !ocannl.tensor<f32, "4">, !ocannl.tensor<i32, "4">, !ocannl.tensor<i8, "4">
}

// -----

// CHECK-LABEL: func.func @to_bool(
// CHECK: arith.cmpf une
// CHECK: arith.cmpi ne
func.func @to_bool(%x: !ocannl.tensor<f32, "4">, %y: !ocannl.tensor<i64, "4">) -> (!ocannl.tensor<i1, "4">, !ocannl.tensor<i1, "4">) {
  %0 = "ocannl.cast"(%x) : (!ocannl.tensor<f32, "4">) -> !ocannl.tensor<i1, "4">
  %1 = "ocannl.cast"(%y) : (!ocannl.tensor<i64, "4">) -> !ocannl.tensor<i1, "4">
  return %0, %1 : !ocannl.tensor<i1, "4">, !ocannl.tensor<i1, "4">
}

// -----

// Broadcasting like ocannl.add; floats compare ordered, unsigned unsigned.
// CHECK-LABEL: func.func @compare(
// CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i8
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i8
func.func @compare(%a: !ocannl.tensor<f32, "2,3">, %b: !ocannl.tensor<f32, "3">, %u: !ocannl.tensor<ui8, "3">, %s: !ocannl.tensor<i8, "3">) -> (!ocannl.tensor<i1, "2,3">, !ocannl.tensor<i1, "3">, !ocannl.tensor<i1, "3">) {
  %0 = "ocannl.lt"(%a, %b) : (!ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<i1, "2,3">
  %1 = "ocannl.lt"(%u, %u) : (!ocannl.tensor<ui8, "3">, !ocannl.tensor<ui8, "3">) -> !ocannl.tensor<i1, "3">
  %2 = "ocannl.lt"(%s, %s) : (!ocannl.tensor<i8, "3">, !ocannl.tensor<i8, "3">) -> !ocannl.tensor<i1, "3">
  return %0, %1, %2 : !ocannl.tensor<i1, "2,3">, !ocannl.tensor<i1, "3">, !ocannl.tensor<i1, "3">
}

// -----

// An i1 condition selects between the branches.
// CHECK-LABEL: func.func @select(
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i1
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
func.func @select(%c: !ocannl.tensor<i1, "3">, %a: !ocannl.tensor<f32, "3">, %b: !ocannl.tensor<f32, "1">) -> !ocannl.tensor<f32, "3"> {
  %0 = "ocannl.where"(%c, %a, %b) : (!ocannl.tensor<i1, "3">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "1">) -> !ocannl.tensor<f32, "3">
  return %0 : !ocannl.tensor<f32, "3">
}

// -----

// Unsigned division, max and shifts; integer remainders never trap.
// CHECK-LABEL: func.func @unsigned_ops(
// CHECK: arith.divui
// CHECK: arith.maxui
// CHECK: arith.shrui
// CHECK: arith.remui
func.func @unsigned_ops(%a: !ocannl.tensor<ui8, "3">, %b: !ocannl.tensor<ui8, "3">) -> (!ocannl.tensor<ui8, "3">, !ocannl.tensor<ui8, "3">, !ocannl.tensor<ui8, "3">, !ocannl.tensor<ui8, "3">) {
  %0 = "ocannl.div"(%a, %b) : (!ocannl.tensor<ui8, "3">, !ocannl.tensor<ui8, "3">) -> !ocannl.tensor<ui8, "3">
  %1 = "ocannl.max"(%a, %b) : (!ocannl.tensor<ui8, "3">, !ocannl.tensor<ui8, "3">) -> !ocannl.tensor<ui8, "3">
  %2 = "ocannl.shr"(%a, %b) : (!ocannl.tensor<ui8, "3">, !ocannl.tensor<ui8, "3">) -> !ocannl.tensor<ui8, "3">
  %3 = "ocannl.mod"(%a, %b) : (!ocannl.tensor<ui8, "3">, !ocannl.tensor<ui8, "3">) -> !ocannl.tensor<ui8, "3">
  return %0, %1, %2, %3 : !ocannl.tensor<ui8, "3">, !ocannl.tensor<ui8, "3">, !ocannl.tensor<ui8, "3">, !ocannl.tensor<ui8, "3">
}

// -----

// Floored integer remainder: the divisor's sign.
// CHECK-LABEL: func.func @int_mod(
// CHECK: arith.remsi
// CHECK: arith.xori
// CHECK: arith.addi
// CHECK: arith.select
func.func @int_mod(%a: !ocannl.tensor<i32, "3">, %b: !ocannl.tensor<i32, "3">) -> !ocannl.tensor<i32, "3"> {
  %0 = "ocannl.mod"(%a, %b) : (!ocannl.tensor<i32, "3">, !ocannl.tensor<i32, "3">) -> !ocannl.tensor<i32, "3">
  return %0 : !ocannl.tensor<i32, "3">
}

// -----

// CHECK-LABEL: func.func @float_functions(
// CHECK: math.floor
// CHECK: math.roundeven
// CHECK: math.atan
// CHECK: math.log1p
// CHECK: math.copysign
func.func @float_functions(%x: !ocannl.tensor<f32, "3">) -> (!ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "3">) {
  %0 = "ocannl.floor"(%x) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  %1 = "ocannl.round"(%x) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  %2 = "ocannl.atan"(%x) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  %3 = "ocannl.asinh"(%x) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3">
  return %0, %1, %2, %3 : !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "3">
}

// -----

// Max and min accumulation of unsigned integers and booleans (true is 1)
// compare unsigned, starting from 0 and from all ones.
// CHECK-LABEL: func.func @unsigned_reductions(
// CHECK-DAG: arith.constant 0 : i8
// CHECK-DAG: arith.constant true
// CHECK-DAG: arith.maxui %{{.*}}, %{{.*}} : i8
// CHECK-DAG: arith.minui %{{.*}}, %{{.*}} : i1
func.func @unsigned_reductions(%a: !ocannl.tensor<ui8, "2,3">, %b: !ocannl.tensor<i1, "2,3">) -> (!ocannl.tensor<ui8, "2">, !ocannl.tensor<i1, "2">) {
  %0 = "ocannl.einsum"(%a) {spec = "i,j => i", accum = "max"} : (!ocannl.tensor<ui8, "2,3">) -> !ocannl.tensor<ui8, "2">
  %1 = "ocannl.einsum"(%b) {spec = "i,j => i", accum = "min"} : (!ocannl.tensor<i1, "2,3">) -> !ocannl.tensor<i1, "2">
  return %0, %1 : !ocannl.tensor<ui8, "2">, !ocannl.tensor<i1, "2">
}
