// Pointwise ops (ocannl.neg, ocannl.add, ocannl.where, ...) whose operands
// and results are all builtin tensors follow MLIR's Broadcastable trait
// exactly: the cases of llvm-project mlir/test/Dialect/traits.mlir on ocannl
// ops, then more for unary and ternary ops, dynamic dims and ranks. The
// wording is MLIR's (mlir/lib/Dialect/Traits.cpp).
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-verify)'

func.func @scalar_scalar_scalar(%a: tensor<i32>, %b: tensor<i32>) -> tensor<i32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @tensor_scalar_tensor(%a: tensor<4xi32>, %b: tensor<i32>) -> tensor<4xi32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// One dimension has size 1.
func.func @one_size_one(%a: tensor<4x3x2xi32>, %b: tensor<3x1xi32>) -> tensor<4x3x2xi32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<4x3x2xi32>, tensor<3x1xi32>) -> tensor<4x3x2xi32>
  return %0 : tensor<4x3x2xi32>
}

// -----

// Several dimensions have size 1, and the ranks differ.
func.func @several_size_one(%a: tensor<8x1x6x1xi32>, %b: tensor<7x1x5xi32>) -> tensor<8x7x6x5xi32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<8x1x6x1xi32>, tensor<7x1x5xi32>) -> tensor<8x7x6x5xi32>
  return %0 : tensor<8x7x6x5xi32>
}

// -----

// A leading dynamic dimension.
func.func @leading_dynamic(%a: tensor<?x1x6x1xi32>, %b: tensor<7x1x5xi32>) -> tensor<?x7x6x5xi32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<?x1x6x1xi32>, tensor<7x1x5xi32>) -> tensor<?x7x6x5xi32>
  return %0 : tensor<?x7x6x5xi32>
}

// -----

// A dynamic dimension in the middle.
func.func @middle_dynamic(%a: tensor<8x1x?x1xi32>, %b: tensor<7x1x5xi32>) -> tensor<8x7x?x5xi32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<8x1x?x1xi32>, tensor<7x1x5xi32>) -> tensor<8x7x?x5xi32>
  return %0 : tensor<8x7x?x5xi32>
}

// -----

// Static operand dimensions that differ and are not 1.
func.func @operands_incompatible(%a: tensor<4x3x2xi32>, %b: tensor<3x3xi32>) -> tensor<4x3x2xi32> {
  // expected-error @+1 {{'ocannl.add' op operands don't have broadcast-compatible shapes}}
  %0 = "ocannl.add"(%a, %b) : (tensor<4x3x2xi32>, tensor<3x3xi32>) -> tensor<4x3x2xi32>
  return %0 : tensor<4x3x2xi32>
}

// -----

// The result disagrees with the broadcast shape in a static dimension.
func.func @result_incompatible(%a: tensor<4x3x2xi32>, %b: tensor<3x1xi32>) -> tensor<4x3x3xi32> {
  // expected-error @+1 {{'ocannl.add' op result type '4x3x3' not broadcast compatible with broadcasted operands's shapes '4x3x2'}}
  %0 = "ocannl.add"(%a, %b) : (tensor<4x3x2xi32>, tensor<3x1xi32>) -> tensor<4x3x3xi32>
  return %0 : tensor<4x3x3xi32>
}

// -----

// A result dimension of 1 where the operands broadcast to 5.
func.func @result_size_one(%a: tensor<8x1x6x1xi32>, %b: tensor<7x1x5xi32>) -> tensor<8x7x6x1xi32> {
  // expected-error @+1 {{'ocannl.add' op result type '8x7x6x1' not broadcast compatible with broadcasted operands's shapes '8x7x6x5'}}
  %0 = "ocannl.add"(%a, %b) : (tensor<8x1x6x1xi32>, tensor<7x1x5xi32>) -> tensor<8x7x6x1xi32>
  return %0 : tensor<8x7x6x1xi32>
}

// -----

// An unranked result is not checked.
func.func @unranked_result(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<*xi32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<2xi32>, tensor<2xi32>) -> tensor<*xi32>
  return %0 : tensor<*xi32>
}

// -----

// A dynamic operand dimension takes the other operand's size.
func.func @dynamic_operand(%a: tensor<4x3x2xi32>, %b: tensor<?xi32>) -> tensor<4x3x2xi32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<4x3x2xi32>, tensor<?xi32>) -> tensor<4x3x2xi32>
  return %0 : tensor<4x3x2xi32>
}

// -----

// An implicit dynamic-to-static cast: the broadcast shape is '?', the result
// is static. MLIR accepts it (its prose reference does not).
func.func @dynamic_to_static(%a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<2xi32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<?xi32>, tensor<?xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @dynamic_and_unranked(%a: tensor<?x6x1xi32>, %b: tensor<*xi32>) -> tensor<?x6x?xi32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<?x6x1xi32>, tensor<*xi32>) -> tensor<?x6x?xi32>
  return %0 : tensor<?x6x?xi32>
}

// -----

// All operands unranked: any ranked result.
func.func @unranked_operands(%a: tensor<*xi32>, %b: tensor<*xi32>) -> tensor<2xi32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<*xi32>, tensor<*xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// An unranked operand is skipped; the result has an extra leading dimension
// (only its trailing dimensions are compared).
func.func @unranked_operand_extra_result_dim(%c: tensor<3x2xi1>, %a: tensor<3x2xi32>, %b: tensor<*xi32>) -> tensor<4x3x2xi32> {
  %0 = "ocannl.where"(%c, %a, %b) : (tensor<3x2xi1>, tensor<3x2xi32>, tensor<*xi32>) -> tensor<4x3x2xi32>
  return %0 : tensor<4x3x2xi32>
}

// -----

// A result of lower rank than the broadcast shape.
func.func @result_rank_too_low(%a: tensor<3x2xi32>, %b: tensor<*xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{'ocannl.add' op result type '2' not broadcast compatible with broadcasted operands's shapes '3x2'}}
  %0 = "ocannl.add"(%a, %b) : (tensor<3x2xi32>, tensor<*xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// Broadcasting does not apply to the result: operands of size 1 do not
// broadcast to a result of size 5.
func.func @no_broadcast_to_result(%a: tensor<1xi32>, %b: tensor<1xi32>) -> tensor<5xi32> {
  // expected-error @+1 {{'ocannl.add' op result type '5' not broadcast compatible with broadcasted operands's shapes '1'}}
  %0 = "ocannl.add"(%a, %b) : (tensor<1xi32>, tensor<1xi32>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

// Element types are not constrained.
func.func @different_result_element_type(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi1> {
  %0 = "ocannl.add"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// A dynamic dimension against a static one greater than 1 takes the static
// size (TensorFlow's rule), in either order.
func.func @dynamic_against_static(%a: tensor<?x3xf32>, %b: tensor<4x?xf32>) -> tensor<4x3xf32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<?x3xf32>, tensor<4x?xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// ... so the result must have that static size.
func.func @dynamic_against_static_bad_result(%a: tensor<?xf32>, %b: tensor<5xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{'ocannl.add' op result type '6' not broadcast compatible with broadcasted operands's shapes '5'}}
  %0 = "ocannl.add"(%a, %b) : (tensor<?xf32>, tensor<5xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// A dynamic dimension against 1 stays dynamic: any result size.
func.func @dynamic_against_one(%a: tensor<?xf32>, %b: tensor<1xf32>) -> tensor<7xf32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<?xf32>, tensor<1xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

// A dynamic result dimension accepts any inferred size.
func.func @dynamic_result(%a: tensor<4x1xf32>, %b: tensor<3xf32>) -> tensor<?x?xf32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A size-0 dimension broadcasts like any static size.
func.func @size_zero(%a: tensor<0x3xf32>, %b: tensor<1x3xf32>) -> tensor<0x3xf32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<0x3xf32>, tensor<1x3xf32>) -> tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

// -----

func.func @size_zero_incompatible(%a: tensor<0xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'ocannl.add' op operands don't have broadcast-compatible shapes}}
  %0 = "ocannl.add"(%a, %b) : (tensor<0xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A scalar result against a ranked broadcast shape; the scalar prints as ''.
func.func @scalar_result(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<f32> {
  // expected-error @+1 {{'ocannl.mul' op result type '' not broadcast compatible with broadcasted operands's shapes '2'}}
  %0 = "ocannl.mul"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Unary: the result may add leading dimensions to the operand's.
func.func @unary_rank_expansion(%a: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = "ocannl.neg"(%a) : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @unary_dynamic(%a: tensor<?x3xf32>, %b: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<?x?xf32>) {
  %0 = "ocannl.neg"(%a) : (tensor<?x3xf32>) -> tensor<4x3xf32>
  %1 = "ocannl.exp"(%b) : (tensor<4x3xf32>) -> tensor<?x?xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<?x?xf32>
}

// -----

func.func @unary_unranked(%a: tensor<*xf32>, %b: tensor<4xf32>) -> (tensor<4x3xf32>, tensor<*xf32>) {
  %0 = "ocannl.neg"(%a) : (tensor<*xf32>) -> tensor<4x3xf32>
  %1 = "ocannl.neg"(%b) : (tensor<4xf32>) -> tensor<*xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<*xf32>
}

// -----

func.func @unary_mismatch(%a: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ocannl.neg' op result type '4' not broadcast compatible with broadcasted operands's shapes '3'}}
  %0 = "ocannl.neg"(%a) : (tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// As for binary ops, a static 1 does not broadcast to the result.
func.func @unary_one_to_result(%a: tensor<1x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'ocannl.relu' op result type '4x3' not broadcast compatible with broadcasted operands's shapes '1x3'}}
  %0 = "ocannl.relu"(%a) : (tensor<1x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Ternary: all three operands broadcast together.
func.func @ternary(%c: tensor<1x3xi1>, %a: tensor<2x1xf32>, %b: tensor<3xf32>) -> tensor<5x2x3xf32> {
  %0 = "ocannl.where"(%c, %a, %b) : (tensor<1x3xi1>, tensor<2x1xf32>, tensor<3xf32>) -> tensor<5x2x3xf32>
  return %0 : tensor<5x2x3xf32>
}

// -----

func.func @ternary_dynamic(%c: tensor<?x1xi1>, %a: tensor<1x?xf32>, %b: tensor<*xf32>) -> tensor<6x7xf32> {
  %0 = "ocannl.where"(%c, %a, %b) : (tensor<?x1xi1>, tensor<1x?xf32>, tensor<*xf32>) -> tensor<6x7xf32>
  return %0 : tensor<6x7xf32>
}

// -----

// The third operand conflicts with the first two.
func.func @ternary_operands_incompatible(%c: tensor<2xi1>, %a: tensor<1xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'ocannl.where' op operands don't have broadcast-compatible shapes}}
  %0 = "ocannl.where"(%c, %a, %b) : (tensor<2xi1>, tensor<1xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @ternary_result_incompatible(%c: tensor<2x1xi1>, %a: tensor<?xf32>, %b: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'ocannl.where' op result type '2x4' not broadcast compatible with broadcasted operands's shapes '2x3'}}
  %0 = "ocannl.where"(%c, %a, %b) : (tensor<2x1xi1>, tensor<?xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Each op is checked on its own: one error per offending op.
func.func @two_ops(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'ocannl.sub' op operands don't have broadcast-compatible shapes}}
  %0 = "ocannl.sub"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = "ocannl.sub"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  // expected-error @+1 {{'ocannl.max' op result type '3' not broadcast compatible with broadcasted operands's shapes '2'}}
  %2 = "ocannl.max"(%a, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----

// An op with an !ocannl.tensor operand or result is not subject to MLIR's
// rule (under which 1 does not broadcast to 5): OCANNL's row-based
// broadcasting applies to it instead.
func.func @ocannl_tensor_not_subject(%a: !ocannl.tensor<f32, "1">, %b: tensor<1xf32>) -> (tensor<5xf32>, !ocannl.tensor<f32, "5">) {
  %0 = "ocannl.add"(%a, %b) : (!ocannl.tensor<f32, "1">, tensor<1xf32>) -> tensor<5xf32>
  %1 = "ocannl.add"(%b, %b) : (tensor<1xf32>, tensor<1xf32>) -> !ocannl.tensor<f32, "5">
  return %0, %1 : tensor<5xf32>, !ocannl.tensor<f32, "5">
}
