// An ONNX graph whose recorded shapes contradict each other
// (Inputs/contradiction.onnx): 'widen' negates the (2, 3) result of
// 'first' but records (2, 4). Kept on import, the shapes meet in
// inference: the error names the node where they meet and the operand
// whose size disagrees, and a note names the node that produced that
// operand with its stated size.
// RUN: ocannl-import-onnx %S/Inputs/contradiction.onnx | not ocannl-opt -p 'builtin.module(ocannl-infer-shapes)' 2>&1 | FileCheck %s

// CHECK: contradiction.onnx, node 'widen' (Neg):2:1: error: shape inference failed: size mismatch: size 3 does not broadcast to size 4 at output axis 1 (from the end) of the result vs output axis 1 of operand #0
// CHECK-NEXT: contradiction.onnx, node 'first' (Relu):1:1: note: operand #0 is produced here, with type !ocannl.tensor<f32, "2,3">
