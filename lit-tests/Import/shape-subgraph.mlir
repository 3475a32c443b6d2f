// A shape subgraph solved symbolically (Inputs/shape-subgraph.onnx, made by
// Inputs/make_inputs.py): x has the dims (batch, seq, 8), both symbolic.
// `Reshape(p, Concat(Slice(Shape(p), 0, 2), [2, 4]))` splits the MatMul's
// last axis into heads; `Reshape(x, Concat(Shape(x)[0], -1))` is
// x.view(x.size(0), -1). The importer evaluates the Shape, Slice, Gather
// and Concat nodes itself: Shape(p) names p's dims on a view of p (d2, d3,
// d4) and each Reshape gets those dims, never a guess. Inference then ties
// them to x's: both results keep x's batch (and the heads' seq) as the
// same symbolic dims.
// RUN: ocannl-import-onnx %S/Inputs/shape-subgraph.onnx | FileCheck %s --check-prefix=IMPORT
// RUN: ocannl-import-onnx %S/Inputs/shape-subgraph.onnx \
// RUN:   | ocannl-opt -p 'builtin.module(ocannl-infer-shapes{close=false})' | FileCheck %s

// IMPORT: func.func @main(%arg0: !ocannl.tensor<f32, "s_batch,s_seq,8">)
// IMPORT-NOT: Shape
// IMPORT: %[[P:.*]] = "ocannl.einsum"(%arg0, %{{.*}}) {spec = "..b.., m, k; k, n => ..b.., m, n"}
// IMPORT: %[[VIEW:.*]] = "ocannl.einsum"(%[[P]]) {spec = "a0,a1,a2 => a0,a1,a2"} : (!ocannl.tensor<f32, "..v1..,">) -> !ocannl.tensor<f32, "[[B:d[0-9]+]],[[S:d[0-9]+]],d{{[0-9]+}}">
// IMPORT: "ocannl.reshape"(%arg0) : (!ocannl.tensor<f32, "s_batch,s_seq,8">) -> !ocannl.tensor<f32, "s_batch,d{{[0-9]+}}"> loc({{.*}}'view' (Reshape)
// IMPORT: "ocannl.reshape"(%[[VIEW]]) : {{.*}} -> !ocannl.tensor<f32, "[[B]],[[S]],2,4"> loc({{.*}}'split' (Reshape)

// CHECK: func.func @main(%arg0: !ocannl.tensor<f32, "[[B:d[0-9]+]],[[S:d[0-9]+]],8">) -> (!ocannl.tensor<f32, "[[B]],2,[[S]],4">, !ocannl.tensor<f32, "[[B]],d{{[0-9]+}}">)

// With the sizes bound (as ocannl-run binds them from the inputs), every
// dim is known.
// RUN: ocannl-import-onnx %S/Inputs/shape-subgraph.onnx | sed -e 's/s_batch/3/g; s/s_seq/5/g' \
// RUN:   | ocannl-opt -p 'builtin.module(ocannl-infer-shapes)' | FileCheck %s --check-prefix=BOUND
// BOUND: func.func @main(%arg0: !ocannl.tensor<f32, "3,5,8">) -> (!ocannl.tensor<f32, "3,2,5,4">, !ocannl.tensor<f32, "3,40">)
