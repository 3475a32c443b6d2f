// Builtin tensors take part in inference: `?` becomes a size and `*` a
// ranked tensor where the solution determines them. A builtin tensor is one
// output row.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes{close=false})' | FileCheck %s --check-prefix=OPEN

// CHECK-LABEL: func.func @refine
// CHECK-SAME: (%{{.*}}: tensor<4x3xf32>, %{{.*}}: tensor<4x1xf32>, %{{.*}}: tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: "ocannl.add"{{.*}} -> tensor<4x3xf32>
// CHECK: "ocannl.mul"{{.*}} -> tensor<4x3xf32>
// OPEN-LABEL: func.func @refine
// OPEN-SAME: (%{{.*}}: tensor<?x3xf32>, %{{.*}}: tensor<4x1xf32>, %{{.*}}: tensor<*xf32>) -> tensor<*xf32>
func.func @refine(%a: tensor<?x3xf32>, %b: tensor<4x1xf32>, %c: tensor<*xf32>) -> tensor<*xf32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<?x3xf32>, tensor<4x1xf32>) -> tensor<*xf32>
  %1 = "ocannl.mul"(%0, %c) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return %1 : tensor<*xf32>
}

// Mixed with ocannl tensors: the builtin result is the output row.
// CHECK-LABEL: func.func @mixed
// CHECK: "ocannl.matmul"{{.*}} : (!ocannl.tensor<f32, "3->5">, tensor<3xf32>) -> tensor<5xf32>
func.func @mixed(%w: !ocannl.tensor<f32, "3->5">, %x: tensor<?xf32>) -> tensor<*xf32> {
  %0 = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "3->5">, tensor<?xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
