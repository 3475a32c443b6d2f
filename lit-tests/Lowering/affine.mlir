// The affine loop nests each op kind lowers to (ocannl-to-affine = verify,
// infer-shapes, infer-projections, lower-to-affine). Functions take one
// memref per argument, then one per result (destination passing); buffers
// are in memory order batch, output, input. Each op's loop nests end their
// own block (a `cf.br` to the next), so the lowering to branches stays
// linear in the number of ops.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-affine)' | FileCheck %s
// The same nests through the upstream passes to the LLVM dialect, which
// mlir-translate turns into LLVM IR (bare pointers: one per buffer).
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-llvm)' | FileCheck %s --check-prefix=LLVM
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-to-llvm)' | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=IR

// LLVM-NOT: ocannl.
// LLVM-NOT: affine.
// LLVM-NOT: memref.
// LLVM-LABEL: llvm.func @pointwise_broadcast(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr)
// IR-LABEL: define void @pointwise_broadcast(ptr %0, ptr %1, ptr %2)
// IR-LABEL: define void @matmul(ptr %0, ptr %1, ptr %2)

// Broadcast: the size-1 axis of %b is read at index 0.
// CHECK-LABEL: func.func @pointwise_broadcast(
// CHECK-SAME: %[[A:.*]]: memref<2x3xf32>, %[[B:.*]]: memref<1x3xf32>, %[[R:.*]]: memref<2x3xf32>) attributes {ocannl.intermediate_bytes = 0 : i64} {
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT: %[[X:.*]] = affine.load %[[A]][%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK-NEXT: %[[Y:.*]] = affine.load %[[B]][0, %[[J]]] : memref<1x3xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: affine.store %[[S]], %[[R]][%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK: return
func.func @pointwise_broadcast(%a: !ocannl.tensor<f32, "2,3">, %b: !ocannl.tensor<f32, "1,3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.add"(%a, %b) : (!ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "1,3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// A reduction: the result is filled with 0, then accumulates; the reduced
// iterator is innermost.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[W:.*]]: memref<4x3xf32>, %[[X:.*]]: memref<2x3xf32>, %[[R:.*]]: memref<2x4xf32>) attributes {ocannl.intermediate_bytes = 0 : i64} {
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 4 {
// CHECK-NEXT: affine.store %[[ZERO]], %[[R]][%[[I]], %[[J]]]
// CHECK: affine.for %[[B:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[O:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to 3 {
// CHECK-NEXT: %[[L:.*]] = affine.load %[[W]][%[[O]], %[[K]]]
// CHECK-NEXT: %[[RH:.*]] = affine.load %[[X]][%[[B]], %[[K]]]
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[L]], %[[RH]] : f32
// CHECK-NEXT: %[[OLD:.*]] = affine.load %[[R]][%[[B]], %[[O]]]
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]], %[[P]] : f32
// CHECK-NEXT: affine.store %[[NEW]], %[[R]][%[[B]], %[[O]]]
func.func @matmul(%w: !ocannl.tensor<f32, "3->4">, %x: !ocannl.tensor<f32, "2|3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "3->4">, !ocannl.tensor<f32, "2|3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// CHECK-LABEL: func.func @transpose(
// CHECK-SAME: %[[X:.*]]: memref<2x4x3xf32>, %[[R:.*]]: memref<2x3x4xf32>) attributes {ocannl.intermediate_bytes = 0 : i64} {
// CHECK-NEXT: affine.for %[[B:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT: affine.for %[[O:.*]] = 0 to 4 {
// CHECK-NEXT: %[[V:.*]] = affine.load %[[X]][%[[B]], %[[O]], %[[I]]]
// CHECK-NEXT: affine.store %[[V]], %[[R]][%[[B]], %[[I]], %[[O]]]
func.func @transpose(%x: !ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.transpose"(%x) : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Intermediates live in one arena: a view per buffer at a static offset,
// reused once the buffer's last reader has run (here each result is unread,
// so all five share offset 0); the arena is as large as the largest.
// CHECK-LABEL: func.func @einsums(
// CHECK-SAME: %[[H:.*]]: memref<2x4x3xf32>, %[[M:.*]]: memref<2x3xf32>, %[[U:.*]]: memref<2xf32>, %[[V:.*]]: memref<3xf32>) attributes {ocannl.intermediate_bytes = 128 : i64} {
// CHECK-NEXT: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<128xi8>
// Permute: one store per cell, no fill.
// CHECK-NEXT: %[[O0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[P:.*]] = memref.view %[[ARENA]][%[[O0]]][] : memref<128xi8> to memref<4x3x2xf32>
// CHECK-NEXT: affine.for %[[A:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[B:.*]] = 0 to 3 {
// CHECK-NEXT: affine.for %[[C:.*]] = 0 to 2 {
// CHECK-NEXT: %[[X:.*]] = affine.load %[[H]][%[[C]], %[[A]], %[[B]]]
// CHECK-NEXT: affine.store %[[X]], %[[P]][%[[A]], %[[B]], %[[C]]]
// CHECK: cf.br
// Reduce: fill with 0, accumulate over the inner iterator.
// CHECK: %[[S:.*]] = memref.view %[[ARENA]][%{{.*}}][] : memref<128xi8> to memref<2xf32>
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT: affine.store %[[Z]], %[[S]][%[[I]]]
// CHECK: affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT: %[[X:.*]] = affine.load %[[M]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[OLD:.*]] = affine.load %[[S]][%[[I]]]
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]], %[[X]] : f32
// CHECK-NEXT: affine.store %[[NEW]], %[[S]][%[[I]]]
// Outer product: bijective store, no fill.
// CHECK: %[[O:.*]] = memref.view %[[ARENA]][%{{.*}}][] : memref<128xi8> to memref<2x3xf32>
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT: %[[X:.*]] = affine.load %[[U]][%[[I]]]
// CHECK-NEXT: %[[Y:.*]] = affine.load %[[V]][%[[J]]]
// CHECK-NEXT: %[[XY:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: affine.store %[[XY]], %[[O]][%[[I]], %[[J]]]
// Diagonal: the store is not surjective, so a fill with 0 precedes it.
// CHECK: %[[D:.*]] = memref.view %[[ARENA]][%{{.*}}][] : memref<128xi8> to memref<3x3xf32>
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT: affine.store %[[Z]], %[[D]][%[[I]], %[[J]]]
// CHECK: affine.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT: %[[X:.*]] = affine.load %[[V]][%[[I]]]
// CHECK-NEXT: affine.store %[[X]], %[[D]][%[[I]], %[[I]]]
// Fixed index: likewise, then a store at column 0.
// CHECK: %[[F:.*]] = memref.view %[[ARENA]][%{{.*}}][] : memref<128xi8> to memref<3x2xf32>
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 2 {
// CHECK-NEXT: affine.store %[[Z]], %[[F]][%[[I]], %[[J]]]
// CHECK: affine.for %[[I:.*]] = 0 to 3 {
// CHECK-NEXT: %[[X:.*]] = affine.load %[[V]][%[[I]]]
// CHECK-NEXT: affine.store %[[X]], %[[F]][%[[I]], 0]
// The arena is freed before returning.
// CHECK: memref.dealloc %[[ARENA]]
// CHECK-NEXT: return
func.func @einsums(%h: !ocannl.tensor<f32, "2|3->4">, %m: !ocannl.tensor<f32, "2,3">, %u: !ocannl.tensor<f32, "2">, %v: !ocannl.tensor<f32, "3">) {
  %0 = "ocannl.einsum"(%h) {spec = "b|i->o => o|b->i"} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  %1 = "ocannl.einsum"(%m) {spec = "i,j => i"} : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "_">
  %2 = "ocannl.einsum"(%u, %v) {spec = "i; j => i,j"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "_,_">
  %3 = "ocannl.einsum"(%v) {spec = "i => i,i"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "_,_">
  %4 = "ocannl.einsum"(%v) {spec = "i => i,0"} : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3,2">
  return
}

// CHECK-LABEL: func.func @batch_slice(
// CHECK-SAME: %[[X:.*]]: memref<8x4x2x3xf32>, %[[R:.*]]: memref<4x2x3xf32>) attributes {ocannl.intermediate_bytes = 0 : i64} {
// CHECK-NEXT: affine.for %[[A:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[B:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[C:.*]] = 0 to 3 {
// CHECK-NEXT: %[[V:.*]] = affine.load %[[X]][2, %[[A]], %[[B]], %[[C]]]
// CHECK-NEXT: affine.store %[[V]], %[[R]][%[[A]], %[[B]], %[[C]]]
func.func @batch_slice(%x: !ocannl.tensor<f32, "8,4|3->2">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.batch_slice"(%x) {index = 2 : i64} : (!ocannl.tensor<f32, "8,4|3->2">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// fma starts from the addend (read on the parallel iterators), then
// accumulates the products.
// CHECK-LABEL: func.func @fma(
// CHECK-SAME: %[[W:.*]]: memref<4x3xf32>, %[[X:.*]]: memref<2x3xf32>, %[[C:.*]]: memref<4xf32>, %[[R:.*]]: memref<2x4xf32>) attributes {ocannl.intermediate_bytes = 0 : i64} {
// CHECK-NEXT: affine.for %[[B:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[O:.*]] = 0 to 4 {
// CHECK-NEXT: %[[V:.*]] = affine.load %[[C]][%[[O]]]
// CHECK-NEXT: affine.store %[[V]], %[[R]][%[[B]], %[[O]]]
// CHECK: affine.for %[[K:.*]] = 0 to 3 {
// CHECK: arith.mulf
// CHECK-NEXT: affine.load %[[R]]
// CHECK-NEXT: arith.addf
// CHECK-NEXT: affine.store
func.func @fma(%w: !ocannl.tensor<f32, "3->4">, %x: !ocannl.tensor<f32, "2|3">, %b: !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.fma"(%w, %x, %b) : (!ocannl.tensor<f32, "3->4">, !ocannl.tensor<f32, "2|3">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// accum = "max": the neutral element is -inf.
// CHECK-LABEL: func.func @max_reduce(
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: affine.store
// CHECK: affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT: affine.load %{{.*}}[%[[I]], %[[J]]]
// CHECK-NEXT: affine.load %{{.*}}[%[[J]]]
// CHECK-NEXT: arith.maximumf
func.func @max_reduce(%x: !ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%x) {spec = "i,j => j", accum = "max"} : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// CHECK-LABEL: func.func @where_exp(
// CHECK: math.exp
// CHECK: arith.cmpf une
// CHECK-NEXT: arith.select
func.func @where_exp(%c: !ocannl.tensor<f32, "3">, %a: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->..."> {
  %e = "ocannl.exp"(%a) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...|...->...">
  %0 = "ocannl.where"(%c, %a, %e) : (!ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Terminals: a scalar fill, dense values from a private global, a range
// (linear index), and a reshape (delinearised reads).
// CHECK-LABEL: func.func @terminals(
// CHECK-SAME: %[[C:.*]]: memref<2x3xf32>, %[[D:.*]]: memref<2x2xi32>, %[[R:.*]]: memref<2x3xf32>, %[[S:.*]]: memref<3x2xf32>)
// CHECK: arith.constant 1.500000e+00 : f32
// CHECK: %[[G:.*]] = memref.get_global @__ocannl_constant : memref<2x2xi32>
// CHECK-NEXT: memref.copy %[[G]], %[[D]]
// CHECK: affine.apply
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: arith.sitofp
// CHECK: affine.load %[[R]][((%{{.*}} * 2 + %{{.*}}) floordiv 3) mod 2, (%{{.*}} * 2 + %{{.*}}) mod 3]
// CHECK: memref.global "private" constant @__ocannl_constant : memref<2x2xi32> = dense<{{\[\[}}1, 2], [3, 4]]>
func.func @terminals() -> (!ocannl.tensor<f32, "2,3">, !ocannl.tensor<i32, "2->2">, !ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "3,2">) {
  %c = "ocannl.constant"() {value = 1.5 : f32} : () -> !ocannl.tensor<f32, "2,3">
  %d = "ocannl.constant"() {value = dense<[1, 2, 3, 4]> : tensor<4xi32>} : () -> !ocannl.tensor<i32, "2->2">
  %r = "ocannl.range"() {spec = "2,3"} : () -> !ocannl.tensor<f32, "2,3">
  %s = "ocannl.reshape"(%r) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "3,2">
  return %c, %d, %r, %s : !ocannl.tensor<f32, "2,3">, !ocannl.tensor<i32, "2->2">, !ocannl.tensor<f32, "2,3">, !ocannl.tensor<f32, "3,2">
}

// A returned argument, and a value returned twice, are copied.
// CHECK-LABEL: func.func @pass_through(
// CHECK-SAME: %[[X:.*]]: memref<3xf32>, %[[R0:.*]]: memref<3xf32>, %[[R1:.*]]: memref<3xf32>, %[[R2:.*]]: memref<3xf32>) attributes {ocannl.intermediate_bytes = 0 : i64} {
// CHECK: arith.negf
// CHECK-NEXT: affine.store %{{.*}}, %[[R1]]
// CHECK: cf.br ^[[NEXT:.*]]
// CHECK-NEXT: ^[[NEXT]]:
// CHECK-NEXT: memref.copy %[[X]], %[[R0]]
// CHECK-NEXT: memref.copy %[[R1]], %[[R2]]
// CHECK-NEXT: return
func.func @pass_through(%x: !ocannl.tensor<f32, "3">) -> (!ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "...">, !ocannl.tensor<f32, "...">) {
  %n = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "...">
  return %x, %n, %n : !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "...">, !ocannl.tensor<f32, "...">
}

// Functions without ocannl tensors are left alone.
// CHECK-LABEL: func.func @untouched(%{{.*}}: f32) -> f32
func.func @untouched(%x: f32) -> f32 {
  return %x : f32
}
