// The JIT compiles a function whose nests were outlined into helpers
// (more than 64 nests, `ocannl-outline-nests`) in parts, each defining
// some helpers and compiled by its own engine on its own thread, the
// entry's part bound to the helpers' addresses (`ocannl-run
// --compile-threads N`, default every core; runtime/src/split.rs). The
// code is the same: a chain of 80 products by 1/8 then 1/32 in turn
// (x <- x·w, each row of x constant after the first) ends where it began
// only if every product ran once, in order (one skipped or run twice
// doubles or halves the result).
// Only ocannl-run here: nothing to run through the mlir-opt plugin.
// UNSUPPORTED: plugin
// RUN: ocannl-run %s --threads 1 --compile-threads 1 --bench 1 | FileCheck %s --check-prefixes=CHECK,ONE
// RUN: ocannl-run %s --threads 1 --compile-threads 2 --bench 1 | FileCheck %s --check-prefixes=CHECK,TWO
// RUN: ocannl-run %s --threads 2 --compile-threads 3 --bench 1 | FileCheck %s --check-prefixes=CHECK,THREE
// RUN: not ocannl-run %s --compile-threads 0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not ocannl-run %s --compile-threads 2 --emit llvm -o %t.ll 2>&1 | FileCheck %s --check-prefix=EMIT

// CHECK: result #0: float32[16, 16] (spec "16,16")
// CHECK-NEXT: min 7.500000 max 247.500000 mean 127.500000 cells [7.500000, 7.500000, 7.500000, 7.500000, 7.500000, 7.500000, ...]
// ONE: compiled in {{[0-9.]+}} ms{{$}}
// TWO: compiled in {{[0-9.]+}} ms (the code in 3 parts, one thread each)
// Two helpers (64 nests and 16): no more parts than that, whatever the
// threads.
// THREE: compiled in {{[0-9.]+}} ms (the code in 3 parts, one thread each)
// ZERO: error: --compile-threads needs at least 1 thread
// EMIT: error: --compile-threads sets the threads the JIT compiles host code on: not with --emit or --target cuda

func.func @chain() -> !ocannl.tensor<f32, "16,16"> {
  %x0 = "ocannl.range"() {spec = "16,16"} : () -> !ocannl.tensor<f32, "16,16">
  %up = "ocannl.constant"() {value = 0.125 : f32} : () -> !ocannl.tensor<f32, "16,16">
  %down = "ocannl.constant"() {value = 0.03125 : f32} : () -> !ocannl.tensor<f32, "16,16">
  %x1 = "ocannl.einsum"(%x0, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x2 = "ocannl.einsum"(%x1, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x3 = "ocannl.einsum"(%x2, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x4 = "ocannl.einsum"(%x3, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x5 = "ocannl.einsum"(%x4, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x6 = "ocannl.einsum"(%x5, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x7 = "ocannl.einsum"(%x6, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x8 = "ocannl.einsum"(%x7, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x9 = "ocannl.einsum"(%x8, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x10 = "ocannl.einsum"(%x9, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x11 = "ocannl.einsum"(%x10, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x12 = "ocannl.einsum"(%x11, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x13 = "ocannl.einsum"(%x12, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x14 = "ocannl.einsum"(%x13, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x15 = "ocannl.einsum"(%x14, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x16 = "ocannl.einsum"(%x15, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x17 = "ocannl.einsum"(%x16, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x18 = "ocannl.einsum"(%x17, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x19 = "ocannl.einsum"(%x18, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x20 = "ocannl.einsum"(%x19, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x21 = "ocannl.einsum"(%x20, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x22 = "ocannl.einsum"(%x21, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x23 = "ocannl.einsum"(%x22, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x24 = "ocannl.einsum"(%x23, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x25 = "ocannl.einsum"(%x24, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x26 = "ocannl.einsum"(%x25, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x27 = "ocannl.einsum"(%x26, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x28 = "ocannl.einsum"(%x27, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x29 = "ocannl.einsum"(%x28, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x30 = "ocannl.einsum"(%x29, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x31 = "ocannl.einsum"(%x30, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x32 = "ocannl.einsum"(%x31, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x33 = "ocannl.einsum"(%x32, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x34 = "ocannl.einsum"(%x33, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x35 = "ocannl.einsum"(%x34, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x36 = "ocannl.einsum"(%x35, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x37 = "ocannl.einsum"(%x36, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x38 = "ocannl.einsum"(%x37, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x39 = "ocannl.einsum"(%x38, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x40 = "ocannl.einsum"(%x39, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x41 = "ocannl.einsum"(%x40, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x42 = "ocannl.einsum"(%x41, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x43 = "ocannl.einsum"(%x42, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x44 = "ocannl.einsum"(%x43, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x45 = "ocannl.einsum"(%x44, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x46 = "ocannl.einsum"(%x45, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x47 = "ocannl.einsum"(%x46, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x48 = "ocannl.einsum"(%x47, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x49 = "ocannl.einsum"(%x48, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x50 = "ocannl.einsum"(%x49, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x51 = "ocannl.einsum"(%x50, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x52 = "ocannl.einsum"(%x51, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x53 = "ocannl.einsum"(%x52, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x54 = "ocannl.einsum"(%x53, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x55 = "ocannl.einsum"(%x54, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x56 = "ocannl.einsum"(%x55, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x57 = "ocannl.einsum"(%x56, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x58 = "ocannl.einsum"(%x57, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x59 = "ocannl.einsum"(%x58, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x60 = "ocannl.einsum"(%x59, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x61 = "ocannl.einsum"(%x60, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x62 = "ocannl.einsum"(%x61, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x63 = "ocannl.einsum"(%x62, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x64 = "ocannl.einsum"(%x63, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x65 = "ocannl.einsum"(%x64, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x66 = "ocannl.einsum"(%x65, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x67 = "ocannl.einsum"(%x66, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x68 = "ocannl.einsum"(%x67, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x69 = "ocannl.einsum"(%x68, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x70 = "ocannl.einsum"(%x69, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x71 = "ocannl.einsum"(%x70, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x72 = "ocannl.einsum"(%x71, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x73 = "ocannl.einsum"(%x72, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x74 = "ocannl.einsum"(%x73, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x75 = "ocannl.einsum"(%x74, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x76 = "ocannl.einsum"(%x75, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x77 = "ocannl.einsum"(%x76, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x78 = "ocannl.einsum"(%x77, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x79 = "ocannl.einsum"(%x78, %up) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  %x80 = "ocannl.einsum"(%x79, %down) {spec = "i,j; j,k => i,k"} : (!ocannl.tensor<f32, "16,16">, !ocannl.tensor<f32, "16,16">) -> !ocannl.tensor<f32, "16,16">
  return %x80 : !ocannl.tensor<f32, "16,16">
}
