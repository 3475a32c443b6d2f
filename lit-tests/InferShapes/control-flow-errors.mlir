// An op that hands tensors to its regions through neither
// RegionBranchOpInterface nor BranchOpInterface: shapes cannot be related
// through it. The error names the op; the IR is left as it was.
// RUN: ocannl-opt %s -allow-unregistered-dialect -verify-diagnostics -p 'builtin.module(ocannl-infer-shapes)'

func.func @opaque(%a: !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "3"> {
  // expected-error @+1 {{'test.opaque' op: ocannl-infer-shapes cannot relate the tensors it passes to its regions or successors (it implements neither RegionBranchOpInterface nor BranchOpInterface)}}
  "test.opaque"(%a) ({
  ^bb0(%x: !ocannl.tensor<f32, "n">):
    %0 = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
    "test.done"() : () -> ()
  }) : (!ocannl.tensor<f32, "3">) -> ()
  return %a : !ocannl.tensor<f32, "3">
}
