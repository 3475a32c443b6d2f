// ocannl-profile-ops declares the timer's functions: a function of the
// module that takes one of their names otherwise is an error.
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule,ocannl-profile-mark,ocannl-lower-to-affine,ocannl-profile-ops)' -verify-diagnostics

// expected-error@+1 {{symbol '@__ocannl_profile_end' is reserved: ocannl-profile-ops declares it as the timer's `func.func private @__ocannl_profile_end(i64)`}}
func.func @__ocannl_profile_end(%id: i64) {
  return
}

func.func @f(%x: !ocannl.tensor<f32, "4,16">) -> !ocannl.tensor<f32, "...|...->..."> {
  %n = "ocannl.neg"(%x) : (!ocannl.tensor<f32, "4,16">) -> !ocannl.tensor<f32, "...|...->...">
  return %n : !ocannl.tensor<f32, "...|...->...">
}
