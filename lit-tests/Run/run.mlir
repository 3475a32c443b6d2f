// ocannl-run compiles a function (shapes inferred) and runs it on the host.
// These functions take no arguments: ranges and constants give the data,
// so the printed results are exact.
// Only ocannl-run here: nothing to run through the mlir-opt plugin.
// UNSUPPORTED: plugin
// RUN: ocannl-run %s --entry matmul_ranges | FileCheck %s --check-prefix=MATMUL
// RUN: ocannl-run %s --entry einsums | FileCheck %s --check-prefix=EINSUM
// RUN: ocannl-run %s --entry terminals | FileCheck %s --check-prefix=TERMINALS
// RUN: ocannl-run %s --entry matmul_ranges --bench 3 | FileCheck %s --check-prefix=BENCH
// Generated code for the host: LLVM IR, assembly, an object file.
// RUN: ocannl-run %s --entry matmul_ranges --emit llvm -o %t.ll && FileCheck %s --check-prefix=LL < %t.ll
// RUN: ocannl-run %s --entry matmul_ranges --emit asm -o %t.s && FileCheck %s --check-prefix=ASM < %t.s
// RUN: ocannl-run %s --entry matmul_ranges --emit obj -o %t.o && llvm-nm %t.o | FileCheck %s --check-prefix=OBJ

// w = [[0, 1, 2], [3, 4, 5]] (output 2, input 3), x = [0, 1, 2]:
// w x = [5, 14].
// MATMUL: result #0: float32[2] (spec "2")
// MATMUL-NEXT: min 5.000000 max 14.000000 mean 9.500000 cells [5.000000, 14.000000]
// BENCH: bench: 3 runs of '@matmul_ranges', median
// LL: define void @matmul_ranges(ptr {{.*}}%0)
// ASM: matmul_ranges:
// OBJ: T matmul_ranges
func.func @matmul_ranges() -> !ocannl.tensor<f32, "...|...->..."> {
  %w = "ocannl.range"() {spec = "3->2"} : () -> !ocannl.tensor<f32, "3->2">
  %x = "ocannl.range"() {spec = "3"} : () -> !ocannl.tensor<f32, "3">
  %y = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "3->2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  return %y : !ocannl.tensor<f32, "...|...->...">
}

// v = [0, 1, 2]: the diagonal, v at column 0 of a 3x2, the max over rows
// of a 2x3 range, and a transpose-by-permutation.
// EINSUM: result #0: float32[3, 3] (spec "3,3")
// EINSUM-NEXT: cells [0.000000, 0.000000, 0.000000, 0.000000, 1.000000, 0.000000, ...]
// EINSUM: result #1: float32[3, 2] (spec "3,2")
// EINSUM-NEXT: cells [0.000000, 0.000000, 1.000000, 0.000000, 2.000000, 0.000000]
// EINSUM: result #2: float32[3] (spec "3")
// EINSUM-NEXT: cells [3.000000, 4.000000, 5.000000]
// EINSUM: result #3: float32[3, 2] (spec "3,2")
// EINSUM-NEXT: cells [0.000000, 3.000000, 1.000000, 4.000000, 2.000000, 5.000000]
func.func @einsums() -> (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "3,2">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">) {
  %v = "ocannl.range"() {spec = "3"} : () -> !ocannl.tensor<f32, "3">
  %m = "ocannl.range"() {spec = "2,3"} : () -> !ocannl.tensor<f32, "2,3">
  %d = "ocannl.einsum"(%v) {spec = "i => i,i"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %f = "ocannl.einsum"(%v) {spec = "i => i,0"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3,2">
  %r = "ocannl.einsum"(%m) {spec = "i,j => j", accum = "max"} : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...|...->...">
  %t = "ocannl.einsum"(%m) {spec = "i,j => j,i"} : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...|...->...">
  return %d, %f, %r, %t : !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "3,2">, !ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "...|...->...">
}

// TERMINALS: result #0: int32[2, 2] (spec "2->2")
// TERMINALS-NEXT: cells [1.000000, 2.000000, 3.000000, 4.000000]
// TERMINALS: result #1: float64[3, 2] (spec "3,2")
// TERMINALS-NEXT: cells [0.000000, 1.000000, 2.000000, 3.000000, 4.000000, 5.000000]
// TERMINALS: result #2: float64[2, 3] (spec "2,3")
// TERMINALS-NEXT: min 2.500000 max 7.500000 mean 5.000000
func.func @terminals() -> (!ocannl.tensor<i32, "2->2">, !ocannl.tensor<f64, "3,2">, !ocannl.tensor<f64, "...|...->...">) {
  %d = "ocannl.constant"() {value = dense<[1, 2, 3, 4]> : tensor<4xi32>} : () -> !ocannl.tensor<i32, "2->2">
  %r = "ocannl.range"() {spec = "2,3"} : () -> !ocannl.tensor<f64, "2,3">
  %s = "ocannl.reshape"(%r) : (!ocannl.tensor<f64, "2,3">) -> !ocannl.tensor<f64, "3,2">
  %c = "ocannl.constant"() {value = 2.5 : f64} : () -> !ocannl.tensor<f64, "2,3">
  %a = "ocannl.add"(%r, %c) : (!ocannl.tensor<f64, "2,3">, !ocannl.tensor<f64, "2,3">) -> !ocannl.tensor<f64, "...|...->...">
  return %d, %s, %a : !ocannl.tensor<i32, "2->2">, !ocannl.tensor<f64, "3,2">, !ocannl.tensor<f64, "...|...->...">
}
