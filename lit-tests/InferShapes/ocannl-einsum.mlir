// Conformance case from shared/conformance/ocannl-einsum.mlir. Shape inference
// (ocannl-infer-shapes) lands with issue 3; until then this is an expected
// failure, and lit reports it as an error the moment it starts to pass.
// XFAIL: *
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-infer-shapes)' | FileCheck %s
// Expected shapes from OCANNL's einsum tests (batch|input->output).

// CHECK-LABEL: func.func @permute_all
// CHECK: "ocannl.einsum"{{.*}}-> !ocannl.tensor<f32, "4|2->3">
func.func @permute_all(%hey: !ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%hey) {spec = "b|i->o => o|b->i"} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// CHECK-LABEL: func.func @permute_sum
// CHECK: "ocannl.einsum"{{.*}}-> !ocannl.tensor<f32, "4|2->5">
func.func @permute_sum(%hey2: !ocannl.tensor<f32, "2,3|4,5->6,7">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%hey2) {spec = "ab|cd->ef => c|a->d"} : (!ocannl.tensor<f32, "2,3|4,5->6,7">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}

// CHECK-LABEL: func.func @binary
// CHECK: "ocannl.einsum"{{.*}}-> !ocannl.tensor<f32, "2,2|3->5">
func.func @binary(%a: !ocannl.tensor<f32, "2|3->4">, %b: !ocannl.tensor<f32, "2|4->5">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.einsum"(%a, %b) {spec = "a|i->h; b|h->o => ab|i->o"} : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "2|4->5">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}
