//===- OcannlOps.td - ocannl ops ---------------------------*- tablegen -*-===//
//
// Every op names its OCANNL shape logic (`shapeLogic`, see
// ../shared/reference/ocannl-shape-inference.md, "Inference strategy") and
// what it computes (`computes`, `scalarFn`, `accum`, `initOperand`). The
// Rust catalog generated from this file maps op name -> shape logic,
// semantics, operands and attributes; the passes read only the catalog,
// never op names.
//
//===----------------------------------------------------------------------===//

#ifndef OCANNL_OPS
#define OCANNL_OPS

include "OcannlTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// An accumulation operator (OCANNL's `accum` of an assignment): how values
/// reaching one result cell combine, with its neutral element (what a cell
/// starts from, and what reads outside an operand, padding, give).
class Ocannl_Accumulator<string fn, string neutralValue> {
  /// The binary scalar function (a `scalarFn` name).
  string accumFn = fn;
  /// `0`, `1`, `-inf` or `inf`.
  string neutral = neutralValue;
}
def Ocannl_AccumulateAdd : Ocannl_Accumulator<"add", "0">;
def Ocannl_AccumulateMul : Ocannl_Accumulator<"mul", "1">;
def Ocannl_AccumulateMax : Ocannl_Accumulator<"max", "-inf">;
def Ocannl_AccumulateMin : Ocannl_Accumulator<"min", "inf">;

/// Base class of every ocannl op.
///  - `logic`: the OCANNL shape logic (`Pointwise_un`, `Pointwise_bin`,
///    `Pointwise_tern`, `Compose`, `Compose_accumulate`, `Transpose`,
///    `Einsum`, `Block`, `Batch_slice`, `Terminal`).
///  - `minOperands`/`maxOperands`: arity bounds for ops with a variadic
///    operand group (`-1`: no upper bound).
///  - `computes`: `nest` (a loop nest over the op's product space, from its
///    projections), `blocks` (one nest per block of a concatenation),
///    `gather` (a nest over the result reading one axis at run-time
///    indices), or a
///    terminal's own kind: `constant`, `range`, `reshape` (cells copied in
///    memory order).
///  - `scalarFn`: for a nest, the function of the operands' cells at each
///    point: a unary or binary function (`neg`, `relu`, `add`, `pow`, ...),
///    `identity`, `where` (`c != 0 ? a : b`), or `combine` (the `combine`
///    attribute, by default `mul` of two operands, `fma` of three, the
///    identity of one).
///  - `accum`: the accumulator (an `Ocannl_Accumulator`'s function) for
///    cells reached more than once; `attr`: the `accum` attribute (default
///    `add`).
///  - `initOperand`: the operand the result starts from (`fma`'s addend);
///    -1: the accumulator's neutral element where cells are reached more
///    than once or not at all.
class Ocannl_Op<string mnemonic, string logic, list<Trait> traits = []>
    : Op<Ocannl_Dialect, mnemonic, !listconcat([Pure], traits)> {
  string shapeLogic = logic;
  int minOperands = -1;
  int maxOperands = -1;
  string computes = "nest";
  string scalarFn = mnemonic;
  string accum = "add";
  int initOperand = -1;
  let results = (outs Ocannl_AnyTensor:$result);
}

//===----------------------------------------------------------------------===//
// Pointwise_un: the result has the operand's shape (broadcasting allowed).
//===----------------------------------------------------------------------===//

class Ocannl_UnaryOp<string mnemonic, string what>
    : Ocannl_Op<mnemonic, "Pointwise_un"> {
  let summary = "elementwise " # what;
  let description = [{
    Applies the function elementwise. Shape logic `Pointwise_un`: the result
    shape is at least the operand shape in each row (the operand broadcasts).

    ```mlir
    %r = "ocannl.}] # mnemonic # [{"(%x) : (!ocannl.tensor<f32, "b|i->o">) -> !ocannl.tensor<f32, "b|i->o">
    ```
  }];
  let arguments = (ins Ocannl_AnyTensor:$operand);
}

def Ocannl_NegOp : Ocannl_UnaryOp<"neg", "negation `-x`">;
def Ocannl_ReluOp : Ocannl_UnaryOp<"relu", "rectified linear unit `max(x, 0)`">;
def Ocannl_ExpOp : Ocannl_UnaryOp<"exp", "exponential `e^x`">;
def Ocannl_LogOp : Ocannl_UnaryOp<"log", "natural logarithm">;
def Ocannl_SqrtOp : Ocannl_UnaryOp<"sqrt", "square root">;
def Ocannl_TanhOp : Ocannl_UnaryOp<"tanh", "hyperbolic tangent">;
def Ocannl_SinOp : Ocannl_UnaryOp<"sin", "sine">;
def Ocannl_CosOp : Ocannl_UnaryOp<"cos", "cosine">;
def Ocannl_AbsOp : Ocannl_UnaryOp<"abs", "absolute value">;
def Ocannl_RecipOp : Ocannl_UnaryOp<"recip", "reciprocal `1/x`">;
def Ocannl_ErfOp : Ocannl_UnaryOp<"erf", "error function `erf(x)` (ONNX's Erf and Gelu)">;
def Ocannl_FloorOp : Ocannl_UnaryOp<"floor", "floor (ONNX's Floor)">;
def Ocannl_CeilOp : Ocannl_UnaryOp<"ceil", "ceiling (ONNX's Ceil)">;
def Ocannl_RoundOp : Ocannl_UnaryOp<"round", "rounding half to even (ONNX's Round)">;
def Ocannl_SignOp : Ocannl_UnaryOp<"sign", "sign: -1, 0 or 1 (NaN stays NaN; ONNX's Sign)">;
def Ocannl_TanOp : Ocannl_UnaryOp<"tan", "tangent">;
def Ocannl_AtanOp : Ocannl_UnaryOp<"atan", "arctangent">;
def Ocannl_AsinOp : Ocannl_UnaryOp<"asin", "arcsine">;
def Ocannl_AcosOp : Ocannl_UnaryOp<"acos", "arccosine">;
def Ocannl_SinhOp : Ocannl_UnaryOp<"sinh", "hyperbolic sine">;
def Ocannl_CoshOp : Ocannl_UnaryOp<"cosh", "hyperbolic cosine">;
def Ocannl_AsinhOp : Ocannl_UnaryOp<"asinh", "inverse hyperbolic sine">;
def Ocannl_AcoshOp : Ocannl_UnaryOp<"acosh", "inverse hyperbolic cosine">;
def Ocannl_AtanhOp : Ocannl_UnaryOp<"atanh", "inverse hyperbolic tangent">;
def Ocannl_NotOp : Ocannl_UnaryOp<"not",
    "bitwise complement of an integer; logical not of `i1` (ONNX's Not and BitwiseNot)">;

def Ocannl_CastOp : Ocannl_Op<"cast", "Pointwise_un"> {
  let summary = "elementwise conversion to the result's element type";
  let description = [{
    Converts each cell to the result's element type (ONNX's Cast,
    onnx.ai/onnx/operators/onnx__Cast.html). Shape logic `Pointwise_un`.
    Floats to integers truncate toward zero; out-of-range values and NaN
    give an unspecified value of the type but never trap. Numbers to `i1`
    are `x != 0` (NaN is true); `i1` to numbers is 0 or 1. Integers
    convert by their signedness (`ui8` zero-extends, `i8` sign-extends).

    ```mlir
    %r = "ocannl.cast"(%x) : (!ocannl.tensor<f32, "b|3">) -> !ocannl.tensor<i32, "b|3">
    ```
  }];
  let arguments = (ins Ocannl_AnyTensor:$operand);
}

//===----------------------------------------------------------------------===//
// Pointwise_bin: NumPy-style broadcasting per row.
//===----------------------------------------------------------------------===//

class Ocannl_BinaryOp<string mnemonic, string what>
    : Ocannl_Op<mnemonic, "Pointwise_bin"> {
  let summary = "elementwise " # what;
  let description = [{
    Shape logic `Pointwise_bin`: the batch, input and output rows of both
    operands broadcast to the result's (an axis of size 1 broadcasts, a
    row variable stands for more leading axes).

    ```mlir
    %r = "ocannl.}] # mnemonic # [{"(%a, %b) : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "4">) -> !ocannl.tensor<f32, "2|3->4">
    ```
  }];
  let arguments = (ins Ocannl_AnyTensor:$lhs, Ocannl_AnyTensor:$rhs);
}

def Ocannl_AddOp : Ocannl_BinaryOp<"add", "addition">;
def Ocannl_SubOp : Ocannl_BinaryOp<"sub", "subtraction">;
def Ocannl_MulOp : Ocannl_BinaryOp<"mul", "multiplication (pointwise)">;
def Ocannl_DivOp : Ocannl_BinaryOp<"div", "division">;
def Ocannl_MaxOp : Ocannl_BinaryOp<"max", "maximum">;
def Ocannl_MinOp : Ocannl_BinaryOp<"min", "minimum">;
def Ocannl_PowOp : Ocannl_BinaryOp<"pow", "power `a^b`">;
def Ocannl_ModOp : Ocannl_BinaryOp<"mod",
    "remainder with the divisor's sign (Python's `%`, floored; ONNX's Mod with fmod = 0); `x mod 0` is 0 for integers">;
def Ocannl_RemOp : Ocannl_BinaryOp<"rem",
    "remainder with the dividend's sign (C's `fmod`, truncated; ONNX's Mod with fmod = 1); `x rem 0` is 0 for integers">;
def Ocannl_AndOp : Ocannl_BinaryOp<"and", "bitwise and (logical on `i1`)">;
def Ocannl_OrOp : Ocannl_BinaryOp<"or", "bitwise or (logical on `i1`)">;
def Ocannl_XorOp : Ocannl_BinaryOp<"xor", "bitwise exclusive or (logical on `i1`)">;
def Ocannl_ShlOp : Ocannl_BinaryOp<"shl",
    "shift left by `b` bits (0 when `b` is at least the width; ONNX's BitShift LEFT)">;
def Ocannl_ShrOp : Ocannl_BinaryOp<"shr",
    "shift right by `b` bits, logical for unsigned and arithmetic for signed integers (ONNX's BitShift RIGHT)">;

/// A comparison: the operands share an element type, the result is `i1`.
class Ocannl_CompareOp<string mnemonic, string what>
    : Ocannl_Op<mnemonic, "Pointwise_bin"> {
  let summary = "elementwise comparison " # what # " with an `i1` result";
  let description = [{
    Shape logic `Pointwise_bin` (broadcasting as `ocannl.add`). The result
    is `i1`; floats compare ordered (a NaN operand gives false), except
    `ne`, which is true for NaN. Unsigned integers compare unsigned (ONNX's
    Equal, Less, LessOrEqual, Greater, GreaterOrEqual).

    ```mlir
    %r = "ocannl.}] # mnemonic # [{"(%a, %b) : (!ocannl.tensor<f32, "2|3">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<i1, "2|3">
    ```
  }];
  let arguments = (ins Ocannl_AnyTensor:$lhs, Ocannl_AnyTensor:$rhs);
}

def Ocannl_EqOp : Ocannl_CompareOp<"eq", "`a == b`">;
def Ocannl_NeOp : Ocannl_CompareOp<"ne", "`a != b`">;
def Ocannl_LtOp : Ocannl_CompareOp<"lt", "`a < b`">;
def Ocannl_LeOp : Ocannl_CompareOp<"le", "`a <= b`">;
def Ocannl_GtOp : Ocannl_CompareOp<"gt", "`a > b`">;
def Ocannl_GeOp : Ocannl_CompareOp<"ge", "`a >= b`">;

//===----------------------------------------------------------------------===//
// The remaining shape logics.
//===----------------------------------------------------------------------===//

def Ocannl_WhereOp : Ocannl_Op<"where", "Pointwise_tern"> {
  let summary = "elementwise select `cond ? a : b`";
  let description = [{
    Shape logic `Pointwise_tern`: all three operands broadcast to the result.
    The condition has any element type (`i1` from a comparison, or a number:
    nonzero, and NaN, is true); the branches have the result's (ONNX's Where).

    ```mlir
    %r = "ocannl.where"(%c, %a, %b) : (!ocannl.tensor<i1, "3">, !ocannl.tensor<f32, "3">, !ocannl.tensor<f32, "1">) -> !ocannl.tensor<f32, "3">
    ```
  }];
  let arguments = (ins Ocannl_AnyTensor:$condition, Ocannl_AnyTensor:$on_true,
                       Ocannl_AnyTensor:$on_false);
}

def Ocannl_MatmulOp : Ocannl_Op<"matmul", "Compose"> {
  let scalarFn = "mul";
  let summary = "composition (OCANNL `*`): matrix multiplication generalised to rows";
  let description = [{
    Shape logic `Compose`: the output row of `rhs` feeds the input row of
    `lhs` (the shape of `fun x -> lhs(rhs(x))`); batch rows broadcast; the
    result has the inputs of `rhs` and the outputs of `lhs`.

    ```mlir
    %y = "ocannl.matmul"(%w, %x) : (!ocannl.tensor<f32, "784->128">, !ocannl.tensor<f32, "b|784">) -> !ocannl.tensor<f32, "b|128">
    ```
  }];
  let arguments = (ins Ocannl_AnyTensor:$lhs, Ocannl_AnyTensor:$rhs);
}

def Ocannl_FmaOp : Ocannl_Op<"fma", "Compose_accumulate"> {
  let scalarFn = "mul";
  let initOperand = 2;
  let summary = "fused `a * b + c` (Gemm): composition plus a broadcast addend";
  let description = [{
    Shape logic `Compose_accumulate`: `a` composed with `b` as in
    `ocannl.matmul`, and `c` broadcasts to the result.

    ```mlir
    %y = "ocannl.fma"(%a, %b, %c) : (!ocannl.tensor<f32, "4->3">, !ocannl.tensor<f32, "5->4">, !ocannl.tensor<f32, "5->3">) -> !ocannl.tensor<f32, "5->3">
    ```
  }];
  let arguments = (ins Ocannl_AnyTensor:$a, Ocannl_AnyTensor:$b, Ocannl_AnyTensor:$c);
}

def Ocannl_TransposeOp : Ocannl_Op<"transpose", "Transpose"> {
  let scalarFn = "identity";
  let summary = "swap the input and output rows";
  let description = [{
    Shape logic `Transpose`: the result's input row is the operand's output
    row and vice versa; the batch row is kept.

    ```mlir
    %t = "ocannl.transpose"(%x) : (!ocannl.tensor<f32, "b|3->4">) -> !ocannl.tensor<f32, "b|4->3">
    ```
  }];
  let arguments = (ins Ocannl_AnyTensor:$operand);
}

def Ocannl_EinsumOp : Ocannl_Op<"einsum", "Einsum"> {
  let scalarFn = "combine";
  let accum = "attr";
  let summary = "OCANNL extended einsum with 1 to 3 operands";
  let description = [{
    `spec = "rhs1[;rhs2[;rhs3]]=>lhs"` in OCANNL's extended einsum notation:
    per-row axis labels, row variables (`...`, `..r..`), fixed indices,
    strided and convolution axes (`stride*o+k`, `o=+k`, `o<+k`) and `_`.
    With one operand this is OCANNL's Permute, with two Einsum, with three
    Einsum_tern. Einsum equates shapes (no broadcasting). `accum` reduces
    over labels absent from `lhs` (default `add`); `combine` joins the
    operands (default `mul` for two, `fma` for three).

    ```mlir
    %r = "ocannl.einsum"(%a, %b) {spec = "a|i->h; b|h->o => ab|i->o"} : (!ocannl.tensor<f32, "2|3->4">, !ocannl.tensor<f32, "2|4->5">) -> !ocannl.tensor<f32, "2,2|3->5">
    ```
  }];
  let arguments = (ins Variadic<Ocannl_AnyTensor>:$inputs,
                       Ocannl_EinsumSpecAttr:$spec,
                       OptionalAttr<Ocannl_AccumAttr>:$accum,
                       OptionalAttr<Ocannl_CombineAttr>:$combine);
  let minOperands = 1;
  let maxOperands = 3;
}

def Ocannl_GatherOp : Ocannl_Op<"gather", "Einsum"> {
  let computes = "gather";
  let scalarFn = "identity";
  let summary = "cells picked by run-time indices (ONNX Gather, embedding lookups)";
  let description = [{
    `spec = "data; indices => result"` in the einsum notation with exactly
    one label of `data` absent from the result: the gathered axis. Shape
    logic `Einsum` (labels equate sizes, so shapes infer as for an einsum);
    the result cell at the other labels reads `data` at those labels and,
    on the gathered axis, at the integer held by `indices` there. An index
    `k < 0` reads `k + n` (ONNX's negative indices, `n` the axis size); an
    index still outside `[0, n)` gives 0 (never a read out of bounds).

    ```mlir
    %e = "ocannl.gather"(%table, %ids) {spec = "v,e; b,s => b,s,e"} : (!ocannl.tensor<f32, "100,16">, !ocannl.tensor<i64, "2,7">) -> !ocannl.tensor<f32, "2,7,16">
    ```
  }];
  let arguments = (ins Ocannl_AnyTensor:$data, Ocannl_AnyTensor:$indices,
                       Ocannl_EinsumSpecAttr:$spec);
}

def Ocannl_ConcatOp : Ocannl_Op<"concat", "Block"> {
  let computes = "blocks";
  let scalarFn = "identity";
  let summary = "concatenation, stacking and slicing of axes (`a^b`)";
  let description = [{
    `spec = "rhs1; ...; rhsN => lhs"` where an axis `a^b` is the
    concatenation of the axes labelled `a` and `b`. Components on one side
    that the other side projects away may have size 0 (OCANNL's Block logic).

    ```mlir
    %r = "ocannl.concat"(%x, %y) {spec = "a; b => a^b"} : (!ocannl.tensor<f32, "2">, !ocannl.tensor<f32, "3">) -> !ocannl.tensor<f32, "5">
    ```
  }];
  let arguments = (ins Variadic<Ocannl_AnyTensor>:$inputs, Ocannl_BlockSpecAttr:$spec);
  let minOperands = 1;
}

def Ocannl_BatchSliceOp : Ocannl_Op<"batch_slice", "Batch_slice"> {
  let scalarFn = "identity";
  let summary = "take one element of the leftmost batch axis";
  let description = [{
    Shape logic `Batch_slice`: the result is the operand without its leftmost
    batch axis; `index` selects the position along that axis.

    ```mlir
    %s = "ocannl.batch_slice"(%x) {index = 2 : i64} : (!ocannl.tensor<f32, "8,4|3->2">) -> !ocannl.tensor<f32, "4|3->2">
    ```
  }];
  let arguments = (ins Ocannl_AnyTensor:$operand, I64Attr:$index);
}

def Ocannl_ConstantOp : Ocannl_Op<"constant", "Terminal"> {
  let computes = "constant";
  let scalarFn = "identity";
  let summary = "a tensor filled with a value or with given values";
  let description = [{
    A terminal. `value` is a scalar (every cell gets it) or a dense elements
    attribute (the cells in memory order; its element count constrains the
    shape). The optional `spec` is a shape spec the result must have.

    ```mlir
    %c = "ocannl.constant"() {value = 1.0 : f32} : () -> !ocannl.tensor<f32, "3->4">
    ```
  }];
  let arguments = (ins AnyAttr:$value, OptionalAttr<Ocannl_ShapeSpecAttr>:$spec);
}

def Ocannl_RangeOp : Ocannl_Op<"range", "Terminal"> {
  let computes = "range";
  let scalarFn = "identity";
  let summary = "the cells numbered 0, 1, 2, ... in memory order";
  let description = [{
    A terminal whose cells hold their linear index. `spec` is the shape spec
    of the result.

    ```mlir
    %r = "ocannl.range"() {spec = "20"} : () -> !ocannl.tensor<f32, "20">
    ```
  }];
  let arguments = (ins Ocannl_ShapeSpecAttr:$spec);
}

def Ocannl_ReshapeOp : Ocannl_Op<"reshape", "Terminal"> {
  let computes = "reshape";
  let scalarFn = "identity";
  let summary = "the same cells in memory order under another shape";
  let description = [{
    The result is a terminal shape that has as many elements as the operand
    (OCANNL's `Total_elems` constraint); the cells keep their memory order.

    ```mlir
    %r = "ocannl.reshape"(%x) : (!ocannl.tensor<f32, "2,3">) -> !ocannl.tensor<f32, "6">
    ```
  }];
  let arguments = (ins Ocannl_AnyTensor:$operand);
}

#endif // OCANNL_OPS
