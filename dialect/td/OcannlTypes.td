//===- OcannlTypes.td - ocannl types -----------------------*- tablegen -*-===//

#ifndef OCANNL_TYPES
#define OCANNL_TYPES

include "OcannlDialect.td"

def Ocannl_TensorType : TypeDef<Ocannl_Dialect, "Tensor"> {
  let mnemonic = "tensor";
  let summary = "A tensor whose shape is an OCANNL shape spec";
  let description = [{
    `!ocannl.tensor<ELEM, "SPEC">`: ELEM is a builtin element type and SPEC
    an OCANNL shape spec `[batch|][input->]output`. Axis entries are sizes
    (`64`), labelled sizes (`rgb=3`), dimension variables (`n`), fresh
    dimensions (`_`), and at most one row variable per row (`...` fresh,
    `..name..` named). Variable names are scoped to the enclosing
    `func.func`. Memory layout is `batch @ output @ input`.

    ```mlir
    !ocannl.tensor<f32, "batch|784->hidden">
    !ocannl.tensor<f32, "2,3|4->5">
    ```
  }];
  let parameters = (ins "::mlir::Type":$elem,
                        StringRefParameter<"OCANNL shape spec">:$spec);
  let assemblyFormat = "`<` $elem `,` $spec `>`";
}

/// Every operand and result of an ocannl op: the dialect's tensor type or a
/// builtin (ranked or unranked) tensor.
def Ocannl_AnyTensor : AnyTypeOf<[Ocannl_TensorType, AnyRankedTensor, AnyUnrankedTensor],
                                 "ocannl or builtin tensor">;

//===----------------------------------------------------------------------===//
// Attribute constraints. The generator maps each of these defs to a kind of
// check in the Rust catalog (`AttrKind`), so `ocannl-verify` knows how to
// validate the attribute.
//===----------------------------------------------------------------------===//

/// A string attribute whose content `ocannl-verify` checks. `ocannlKind`
/// names the check: `shape` (a shape spec), `einsum` (an einsum spec with
/// 1 to 3 operand slots), `block` (a block spec with any number of operand
/// slots) or `enum` (one of `allowedValues`).
class Ocannl_StrAttr<string kind, string descr, list<string> allowed = []>
    : StringBasedAttr<CPred<"::llvm::isa<::mlir::StringAttr>($_self)">, descr> {
  string ocannlKind = kind;
  list<string> allowedValues = allowed;
  let returnType = "::llvm::StringRef";
  let convertFromStorage = "$_self.getValue()";
}

def Ocannl_ShapeSpecAttr : Ocannl_StrAttr<"shape", "OCANNL shape spec `[batch|][input->]output`">;
def Ocannl_EinsumSpecAttr : Ocannl_StrAttr<"einsum", "OCANNL einsum spec `rhs1[;rhs2[;rhs3]]=>lhs`">;
def Ocannl_BlockSpecAttr : Ocannl_StrAttr<"block", "OCANNL block spec `rhs1; ...; rhsN => lhs`">;
def Ocannl_AccumAttr : Ocannl_StrAttr<"enum", "accumulation operator",
                                      ["add", "mul", "max", "min"]>;
def Ocannl_CombineAttr : Ocannl_StrAttr<"enum", "combining operator",
    ["mul", "add", "sub", "div", "max", "min", "pow", "fma", "where"]>;

#endif // OCANNL_TYPES
