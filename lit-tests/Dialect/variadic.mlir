// The operands of a variadic op (einsum, concat) are checked one by one, so
// they may all have different types: IRDL alone binds a variadic group to
// its first operand's type (stock `mlir-opt --irdl-file` rejects this file;
// see stock-mlir-opt.mlir), and ocannl-opt replaces that check.
// RUN: ocannl-opt %s | FileCheck %s
// RUN: ocannl-opt %s -p 'builtin.module(ocannl-verify)' -o /dev/null

// CHECK-LABEL: func.func @heterogeneous
func.func @heterogeneous(%a: !ocannl.tensor<f32, "2|3->4">, %b: !ocannl.tensor<f32, "2|4->5">,
                         %x: !ocannl.tensor<f32, "8,4|3->2">, %t: tensor<6xf32>) {
  // CHECK: "ocannl.concat"({{.*}}) {spec = "...|a->...; ...|b->...; ...|c->... => ...|a^b^c->..."}
  %0 = "ocannl.concat"(%a, %b, %x) {spec = "...|a->...; ...|b->...; ...|c->... => ...|a^b^c->..."} : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "2|4->5">, !ocannl.tensor<f32, "8,4|3->2">) -> !ocannl.tensor<f32, "...|...->...">
  // CHECK: "ocannl.concat"({{.*}}) {spec = "a; b; c; d => a^b^c^d"}
  %1 = "ocannl.concat"(%a, %b, %x, %t) {spec = "a; b; c; d => a^b^c^d"} : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "2|4->5">, !ocannl.tensor<f32, "8,4|3->2">, tensor<6xf32>) -> !ocannl.tensor<f32, "...|...->...">
  // CHECK: "ocannl.einsum"({{.*}}) {spec = "..p..|i->o; ..q..|..r..->..s..; ..t..|..u..->..v.. => ..p..|i->o"}
  %2 = "ocannl.einsum"(%a, %b, %x) {spec = "..p..|i->o; ..q..|..r..->..s..; ..t..|..u..->..v.. => ..p..|i->o"} : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "2|4->5">, !ocannl.tensor<f32, "8,4|3->2">) -> !ocannl.tensor<f32, "...|...->...">
  return
}
