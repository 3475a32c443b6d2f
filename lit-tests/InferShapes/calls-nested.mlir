// Run on one function (a nested pipeline), the pass cannot read the
// callee (other functions may be rewritten in parallel): inferring through
// a call needs the module.
// RUN: ocannl-opt %s -verify-diagnostics -p 'builtin.module(func.func(ocannl-infer-shapes))'

func.func private @g(!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
func.func @f(%a: !ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n"> {
  // expected-error @+1 {{'func.call' op passes tensors to another function: run ocannl-infer-shapes on the module (not on one function) to infer shapes across calls}}
  %0 = func.call @g(%a) : (!ocannl.tensor<f32, "n">) -> !ocannl.tensor<f32, "n">
  return %0 : !ocannl.tensor<f32, "n">
}
