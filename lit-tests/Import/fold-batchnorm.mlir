// Per-channel affine ops folded into the convolution before them at import
// (onnx/src/translate/fold.rs; Inputs/fold-batchnorm.onnx, made by
// Inputs/make_inputs.py). 'conv1' (weights [1, 2], bias [0.5, -1]) then
// 'bn1' (scale [2, 3], bias [1, 1], mean [0.5, 0], var [3, 0], epsilon 1:
// s = [1, 3]) import as one convolution einsum with W' = W * s = [1, 6] and
// a bias add of (B - mean) * s + bias = [1, -2], at 'conv1''s location, the
// declared shape of 'bn1''s result checked on it. 'conv3' then a Mul by
// [3, 5] and an Add of [4, 6] (both [C, 1, 1]) fold the same way. 'conv2''s
// result is read twice (by 'bn2' and 'relu2'): it keeps its
// BatchNormalization. With --no-fold, every BatchNormalization stays.
// RUN: ocannl-import-onnx %S/Inputs/fold-batchnorm.onnx | FileCheck %s
// RUN: ocannl-import-onnx %S/Inputs/fold-batchnorm.onnx | ocannl-opt -p 'builtin.module(ocannl-infer-shapes,ocannl-check-shapes)' | FileCheck %s --check-prefix=SOLVED
// RUN: ocannl-import-onnx %S/Inputs/fold-batchnorm.onnx --no-fold | FileCheck %s --check-prefix=KEPT

// 1.0 and 6.0; 1.0 and -2.0 (little-endian f32).
// CHECK: %[[W1:.*]] = "ocannl.constant"() {value = dense<"0x0000803F0000C040"> : tensor<2x1x1x1xf32>} {{.*}} loc("fold-batchnorm.onnx, node 'conv1' (Conv)":1:1)
// CHECK-NEXT: %[[B1:.*]] = "ocannl.constant"() {value = dense<"0x0000803F000000C0"> : tensor<2xf32>} {{.*}} loc("fold-batchnorm.onnx, node 'conv1' (Conv)":1:1)
// CHECK-NEXT: %[[C1:.*]] = "ocannl.einsum"(%arg0, %[[W1]]) {spec = "n,c,1*o0@0,0+k0,1*o1@0,0+k1; m,c,k0,k1 => n,m,o0,o1"}
// CHECK-NEXT: %[[Y1:.*]] = "ocannl.einsum"(%[[C1]], %[[B1]]) {spec = "n,m,o0,o1; m => n,m,o0,o1", combine = "add", ocannl.declared_shape = "1,2,2,2"} {{.*}} loc("fold-batchnorm.onnx, node 'conv1' (Conv)":1:1)
// CHECK-NOT: 'bn1'
// The unfolded weights: 1.0 and 2.0.
// CHECK: %[[C2:.*]] = "ocannl.einsum"(%arg0, %{{.*}}) {{.*}} loc("fold-batchnorm.onnx, node 'conv2' (Conv)":3:1)
// 3.0 and 10.0; 4.0 and 6.0.
// CHECK: "ocannl.constant"() {value = dense<"0x0000404000002041"> : tensor<2x1x1x1xf32>} {{.*}} 'conv3' (Conv)
// CHECK-NEXT: "ocannl.constant"() {value = dense<"0x000080400000C040"> : tensor<2xf32>} {{.*}} 'conv3' (Conv)
// CHECK-NEXT: "ocannl.einsum"
// CHECK-NEXT: %[[Y3:.*]] = "ocannl.einsum"({{.*}}) {spec = "n,m,o0,o1; m => n,m,o0,o1", combine = "add", ocannl.declared_shape = "1,2,2,2"} {{.*}} 'conv3' (Conv)
// CHECK-NOT: 'mul3'
// CHECK-NOT: 'add3'
// CHECK: "ocannl.sqrt"{{.*}}'bn2' (BatchNormalization)
// CHECK: %[[Y2:.*]] = "ocannl.einsum"(%[[C2]], {{.*}}) {spec = "n,c,h0,h1; c; c => n,c,h0,h1", combine = "fma"{{.*}}'bn2' (BatchNormalization)
// CHECK: %[[Z2:.*]] = "ocannl.relu"(%[[C2]])
// CHECK: return %[[Y1]], %[[Y2]], %[[Z2]], %[[Y3]]

// SOLVED: func.func @main(%arg0: !ocannl.tensor<f32, "1,1,2,2">) -> (!ocannl.tensor<f32, "1,2,2,2">, !ocannl.tensor<f32, "1,2,2,2">, !ocannl.tensor<f32, "1,2,2,2">, !ocannl.tensor<f32, "1,2,2,2">)

// KEPT: 'bn1' (BatchNormalization)
// KEPT: 'bn2' (BatchNormalization)
// KEPT: "ocannl.mul"{{.*}}'mul3' (Mul)
// KEPT: "ocannl.add"{{.*}}'add3' (Add)
