// Files the importer rejects, each with a message naming the file (and
// the nodes), exit 1. Inputs/make_inputs.py writes them.
// RUN: not ocannl-import-onnx %S/Inputs/truncated.onnx 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: truncated.onnx: error: not an ONNX model (protobuf: a length past the end of the data)

// RUN: not ocannl-import-onnx %S/Inputs/future-opset.onnx 2>&1 | FileCheck %s --check-prefix=OPSET
// OPSET: future-opset.onnx: error: unknown opset: ai.onnx version 99 (supported: 6 to 28)

// RUN: not ocannl-import-onnx %S/Inputs/bad-initializer.onnx 2>&1 | FileCheck %s --check-prefix=INIT
// INIT: bad-initializer.onnx: error: initializer 'W': dims [2, 3] need 6 values, the file has 3

// RUN: not ocannl-import-onnx %S/Inputs/cycle.onnx 2>&1 | FileCheck %s --check-prefix=CYCLE
// CYCLE: cycle.onnx: error: node 'b' (Relu), node 'a' (Add): the graph has a cycle through these nodes

// RUN: not ocannl-import-onnx %S/Inputs/unsupported-op.onnx 2>&1 | FileCheck %s --check-prefix=OP
// OP: unsupported-op.onnx: error: node 'uniq' (Unique): the op Unique is not supported

// RUN: not ocannl-import-onnx %S/Inputs/missing.onnx 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: missing.onnx: error: cannot read the model: No such file or directory
