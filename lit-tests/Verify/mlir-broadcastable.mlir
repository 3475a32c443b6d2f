// Conformance case from shared/conformance/mlir-broadcastable.mlir. The
// Broadcastable check of ocannl-verify lands with issue 3; until then this is
// an expected failure (lit errors out as soon as it passes).
// XFAIL: *
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-verify)'
// Ops with builtin tensor types follow MLIR's Broadcastable trait exactly.

func.func @valid(%a: tensor<8x1x6x1xi32>, %b: tensor<7x1x5xi32>) -> tensor<8x7x6x5xi32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<8x1x6x1xi32>, tensor<7x1x5xi32>) -> tensor<8x7x6x5xi32>
  return %0 : tensor<8x7x6x5xi32>
}

// -----

func.func @dynamic(%a: tensor<?x1x6x1xi32>, %b: tensor<7x1x5xi32>) -> tensor<?x7x6x5xi32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<?x1x6x1xi32>, tensor<7x1x5xi32>) -> tensor<?x7x6x5xi32>
  return %0 : tensor<?x7x6x5xi32>
}

// -----

func.func @unranked(%a: tensor<?x6x1xi32>, %b: tensor<*xi32>) -> tensor<?x6x?xi32> {
  %0 = "ocannl.add"(%a, %b) : (tensor<?x6x1xi32>, tensor<*xi32>) -> tensor<?x6x?xi32>
  return %0 : tensor<?x6x?xi32>
}

// -----

func.func @operands_incompatible(%a: tensor<4x3x2xi32>, %b: tensor<3x3xi32>) -> tensor<4x3x2xi32> {
  // expected-error @+1 {{broadcast}}
  %0 = "ocannl.add"(%a, %b) : (tensor<4x3x2xi32>, tensor<3x3xi32>) -> tensor<4x3x2xi32>
  return %0 : tensor<4x3x2xi32>
}

// -----

func.func @result_incompatible(%a: tensor<4x3x2xi32>, %b: tensor<3x1xi32>) -> tensor<4x3x3xi32> {
  // expected-error @+1 {{broadcast}}
  %0 = "ocannl.add"(%a, %b) : (tensor<4x3x2xi32>, tensor<3x1xi32>) -> tensor<4x3x3xi32>
  return %0 : tensor<4x3x3xi32>
}
