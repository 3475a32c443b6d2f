// close=false runs only the online stage: what the constraints force is
// written back, the remaining variables stay visible (named as written, or
// with generated names), and a second run with closing finishes the job.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes{close=false})' | FileCheck %s --check-prefix=OPEN
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes{close=false})' | ocannl-opt -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s --check-prefix=CLOSED

// OPEN-LABEL: func.func @forced_from_usage
// OPEN-SAME: !ocannl.tensor<f32, "b|784">
// OPEN-SAME: !ocannl.tensor<f32, "..[[R:r[0-9_]+]]..|..{{r[0-9_]+}}..,784->..{{r[0-9_]+}}..">
// OPEN: "ocannl.matmul"{{.*}} -> !ocannl.tensor<f32, "..{{r[0-9_]+}}..,{{d[0-9_]+}}|..{{r[0-9_]+}}..->..{{r[0-9_]+}}..">
// CLOSED-LABEL: func.func @forced_from_usage
// CLOSED-SAME: !ocannl.tensor<f32, "1|784">, %{{.*}}: !ocannl.tensor<f32, "1|784->">
func.func @forced_from_usage(%x: !ocannl.tensor<f32, "b|784">, %w: !ocannl.tensor<f32, "...|...->...">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "...|...->...">, !ocannl.tensor<f32, "b|784">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// Named variables that nothing determines keep their names.
// OPEN-LABEL: func.func @named
// OPEN-SAME: (%{{.*}}: !ocannl.tensor<f32, "n->m">) -> !ocannl.tensor<f32, "m->n">
// CLOSED-LABEL: func.func @named
// CLOSED-SAME: (%{{.*}}: !ocannl.tensor<f32, "1->1">) -> !ocannl.tensor<f32, "1->1">
func.func @named(%x: !ocannl.tensor<f32, "n->m">) -> !ocannl.tensor<f32, "m->n"> {
  %0 = "ocannl.transpose"(%x) : (!ocannl.tensor<f32, "n->m">) -> !ocannl.tensor<f32, "m->n">
  return %0 : !ocannl.tensor<f32, "m->n">
}
