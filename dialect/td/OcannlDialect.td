//===- OcannlDialect.td - the ocannl dialect ---------------*- tablegen -*-===//
//
// The one definition of the ocannl dialect. `dialect/build.rs` reads these
// files with the `tblgen` crate and generates the IRDL module
// (`dialect/ocannl.irdl.mlir`) and the Rust op catalog from them.
//
//===----------------------------------------------------------------------===//

#ifndef OCANNL_DIALECT
#define OCANNL_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Ocannl_Dialect : Dialect {
  let name = "ocannl";
  let cppNamespace = "::ocannl";
  let summary = "Tensor ops whose shapes are OCANNL row-variable shapes";
  let description = [{
    Ops on tensors whose shapes have three rows of axes, `batch|input->output`,
    with dimension variables, row variables and broadcasting expressed as
    inequalities (OCANNL's shape inference). Every op carries a *shape logic*
    (Pointwise_bin, Compose, Einsum, ...) that `ocannl-infer-shapes` turns into
    constraints. Ops accept `!ocannl.tensor<ELEM, "SPEC">` as well as builtin
    tensor types.
  }];
}

#endif // OCANNL_DIALECT
