// `!ocannl.tensor` prints exactly as IRDL's own printer prints it: ocannl-opt
// (and the plugin) print the spec string in one piece when nothing in it
// needs escaping (dialect/cpp/dialect_shim.cpp, `printTensorParams`), and
// through IRDL's printer otherwise. Stock mlir-opt, with the dialect from
// the IRDL file, prints every parameter IRDL's way: the outputs must match
// byte for byte, for plain specs, empty ones, characters that are escaped
// (quote, backslash, control, non-ASCII), a typed string and element
// parameters that are not types (IRDL's `elem` is any attribute); as
// function arguments, results, op types and type attributes.
// RUN: ocannl-opt %s > %t.ours
// RUN: mlir-opt --irdl-file=%irdl %s > %t.irdl
// RUN: diff %t.ours %t.irdl
// RUN: FileCheck %s < %t.ours

// CHECK-LABEL: func.func @specs
// CHECK-SAME: !ocannl.tensor<f32, "b|i->o">
// CHECK-SAME: !ocannl.tensor<f16, "">
// CHECK-SAME: !ocannl.tensor<bf16, "a\22b">
// CHECK-SAME: !ocannl.tensor<i32, "back\\slash">
// CHECK-SAME: !ocannl.tensor<f64, "tab\09x">
// CHECK-SAME: !ocannl.tensor<i1, "\C3\A9">
// CHECK-SAME: !ocannl.tensor<f32, "typed" : i32>
// CHECK-SAME: !ocannl.tensor<i8, "..b..|2,..i..->o=3">
// CHECK-SAME: !ocannl.tensor<5 : i64, "x">
// CHECK-SAME: !ocannl.tensor<"elem", "x">
// CHECK-SAME: !ocannl.tensor<[1, 2], "~!@#$%^&*()_+`{}[]:;',.<>?/ ">
func.func @specs(%a: !ocannl.tensor<f32, "b|i->o">, %b: !ocannl.tensor<f16, "">,
                 %c: !ocannl.tensor<bf16, "a\"b">, %d: !ocannl.tensor<i32, "back\\slash">,
                 %e: !ocannl.tensor<f64, "tab\09x">, %f: !ocannl.tensor<i1, "é">,
                 %g: !ocannl.tensor<f32, "typed" : i32>,
                 %h: !ocannl.tensor<i8, "..b..|2,..i..->o=3">,
                 %i: !ocannl.tensor<5, "x">, %j: !ocannl.tensor<"elem", "x">,
                 %k: !ocannl.tensor<[1, 2], "~!@#$%^&*()_+`{}[]:;',.<>?/ ">)
    -> (!ocannl.tensor<f32, "b|i->o">, !ocannl.tensor<bf16, "a\"b">) {
  return %a, %c : !ocannl.tensor<f32, "b|i->o">, !ocannl.tensor<bf16, "a\"b">
}

// CHECK-LABEL: func.func @in_ops
// CHECK: "ocannl.neg"(%{{.*}}) {note = !ocannl.tensor<f32, "in an attribute">, other = !ocannl.tensor<f32, "q\22">}
// CHECK-SAME: : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
func.func @in_ops(%x: !ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->..."> {
  %0 = "ocannl.neg"(%x) {note = !ocannl.tensor<f32, "in an attribute">, other = !ocannl.tensor<f32, "q\"">} : (!ocannl.tensor<f32, "2|3->4">) -> !ocannl.tensor<f32, "...|...->...">
  return %0 : !ocannl.tensor<f32, "...|...->...">
}
