// The lowering unrolls its register blocks itself, a few taps of the
// innermost reduction included, and marks the loops that hold one not to
// be unrolled again by LLVM (ocannl-loop-hints: llvm.loop.unroll.disable):
// LLVM's unrollers had doubled the code O3 and code generation work on.
// RUN: ocannl-opt %s --split-input-file -p 'builtin.module(ocannl-to-affine)' | FileCheck %s --check-prefix=TAPS
// RUN: ocannl-opt %s --split-input-file -p 'builtin.module(ocannl-to-llvm)' | FileCheck %s --check-prefix=LLVM
// RUN: ocannl-opt %s --split-input-file -p 'builtin.module(ocannl-to-llvm)' | mlir-translate --split-input-file --mlir-to-llvmir | FileCheck %s --check-prefix=IR

// A 3×3 convolution with lanes along the output channels: the channel
// loop, then the kernel rows, carry the accumulators; the kernel column's
// three taps are three steps of the block, with no loop of their own.
// TAPS-LABEL: func.func @conv(
// TAPS: affine.for %{{.*}} = 0 to 16 iter_args(
// TAPS-NEXT: affine.for %{{.*}} = 0 to 3 iter_args(
// TAPS-NOT: affine.for
// TAPS: affine.yield
// TAPS: affine.yield
// LLVM-DAG: #[[U:.*]] = #llvm.loop_unroll<disable = true>
// LLVM-DAG: #[[A:.*]] = #llvm.loop_annotation<unroll = #[[U]]>
// LLVM-LABEL: llvm.func @conv(
// LLVM: llvm.br ^{{.*}} {loop_annotation = #[[A]]}
// LLVM-NOT: llvm.loop_annotation
// IR-LABEL: define void @conv(
// IR: br label %{{.*}}, !llvm.loop ![[L:[0-9]+]]
// IR: ![[L]] = distinct !{![[L]], ![[D:[0-9]+]]}
// IR: ![[D]] = !{!"llvm.loop.unroll.disable"}
func.func @conv(%x: !ocannl.tensor<f32, "1,10,34,16">, %w: !ocannl.tensor<f32, "3,3,16,32">) -> !ocannl.tensor<f32, "1,8,32,32"> {
  %c = "ocannl.einsum"(%x, %w) {spec = "n,1*o0@0,0+k0,1*o1@0,0+k1,c; k0,k1,c,m => n,o0,o1,m"} : (!ocannl.tensor<f32, "1,10,34,16">, !ocannl.tensor<f32, "3,3,16,32">) -> !ocannl.tensor<f32, "1,8,32,32">
  return %c : !ocannl.tensor<f32, "1,8,32,32">
}

// -----

// A small loop (under 32 ops: no register block) keeps LLVM's own
// choice, and a loop that already carries an annotation keeps it.
// LLVM-DAG: #[[FOUR:.*]] = #llvm.loop_unroll<count = 4 : i64>
// LLVM-DAG: #[[KEPT:.*]] = #llvm.loop_annotation<unroll = #[[FOUR]]>
// LLVM-LABEL: llvm.func @kept(
// LLVM-NOT: loop_annotation
// LLVM: llvm.br ^{{.*}} {loop_annotation = #[[KEPT]]}
// LLVM-NOT: loop_annotation
// IR-LABEL: define void @kept(
// IR: !{!"llvm.loop.unroll.count", i32 4}
func.func @kept(%m: memref<100xf32>) {
  affine.for %i = 0 to 100 {
    %v = affine.load %m[%i] : memref<100xf32>
    affine.store %v, %m[%i] : memref<100xf32>
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  scf.for %i = %c0 to %c100 step %c1 {
    %v = memref.load %m[%i] : memref<100xf32>
    memref.store %v, %m[%i] : memref<100xf32>
  } {llvm.loop_annotation = #llvm.loop_annotation<unroll = <count = 4>>}
  return
}
