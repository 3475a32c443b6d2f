// An ONNX graph whose recorded shapes contradict each other
// (Inputs/contradiction.onnx): 'widen' negates the (2, 3) result of
// 'first' but records (2, 4). Recorded shapes are checks on import
// (`ocannl.declared_shape`), never constraints: once inference has solved
// the graph, the error names the node whose record disagrees with what it
// computes, and a note names the node that produced its operand, with the
// operand's shape.
// RUN: ocannl-import-onnx %S/Inputs/contradiction.onnx | not ocannl-opt -p 'builtin.module(ocannl-infer-shapes)' 2>&1 | FileCheck %s

// CHECK: contradiction.onnx, node 'widen' (Neg):2:1: error: the result's declared shape "2,4" is not the shape the op computes, "2,3"
// CHECK-NEXT: contradiction.onnx, node 'first' (Relu):1:1: note: operand #0 is produced here, with shape "2,3"
