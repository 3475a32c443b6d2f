// Hand-written schedules that contradict the op's projections (or are
// malformed) are errors located at the op, before the IR changes.
// RUN: ocannl-opt %s -split-input-file -verify-diagnostics -p 'builtin.module(ocannl-infer-projections,ocannl-plan-schedule,ocannl-lower-to-affine)'


// -----

// Lanes per vector: a power of two.
func.func @case0(%a: !ocannl.tensor<f32, "12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op: cannot obey its schedule (ocannl.schedule): 'width' must be a power of two up to 64 (got 3)}}
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j", ocannl.schedule = {kind = "cpu", lanes = "result", width = 3, vector = 1, outer = array<i64>, unroll = [array<i64: 1, 2, 0>, array<i64: 0, 6, 0>], reductions = array<i64: 2>}} : (!ocannl.tensor<f32, "12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32">
  return %c : !ocannl.tensor<f32, "12,32">
}

// -----

// The lanes of a product run along the result's contiguous iterator (d1), not its rows.
func.func @case1(%a: !ocannl.tensor<f32, "12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op: cannot obey its schedule (ocannl.schedule): lanes = "result" run along the result's contiguous iterator, which d0 is not}}
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j", ocannl.schedule = {kind = "cpu", lanes = "result", width = 8, vector = 0, outer = array<i64>, unroll = [array<i64: 0, 2, 0>, array<i64: 1, 6, 0>], reductions = array<i64: 2>}} : (!ocannl.tensor<f32, "12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32">
  return %c : !ocannl.tensor<f32, "12,32">
}

// -----

// Every reduction once.
func.func @case2(%a: !ocannl.tensor<f32, "12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op: cannot obey its schedule (ocannl.schedule): 'reductions' must list the nest's reductions [2] once each (got [])}}
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j", ocannl.schedule = {kind = "cpu", lanes = "result", width = 8, vector = 1, outer = array<i64>, unroll = [array<i64: 1, 2, 0>, array<i64: 0, 6, 0>], reductions = array<i64>}} : (!ocannl.tensor<f32, "12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32">
  return %c : !ocannl.tensor<f32, "12,32">
}

// -----

// Every parallel iterator once: d0 is missing.
func.func @case3(%a: !ocannl.tensor<f32, "12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op: cannot obey its schedule (ocannl.schedule): 'outer' and 'unroll' must name the result's iterators of extent > 1 [0, 1] once each (got [1])}}
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j", ocannl.schedule = {kind = "cpu", lanes = "result", width = 8, vector = 1, outer = array<i64>, unroll = [array<i64: 1, 2, 0>], reductions = array<i64: 2>}} : (!ocannl.tensor<f32, "12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32">
  return %c : !ocannl.tensor<f32, "12,32">
}

// -----

// A factor of 0.
func.func @case4(%a: !ocannl.tensor<f32, "12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op: cannot obey its schedule (ocannl.schedule): the factor of d0 must be from 1 to 16 (got 0)}}
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j", ocannl.schedule = {kind = "cpu", lanes = "result", width = 8, vector = 1, outer = array<i64>, unroll = [array<i64: 1, 2, 0>, array<i64: 0, 0, 0>], reductions = array<i64: 2>}} : (!ocannl.tensor<f32, "12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32">
  return %c : !ocannl.tensor<f32, "12,32">
}

// -----

// Too large a register block.
func.func @case5(%a: !ocannl.tensor<f32, "12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op: cannot obey its schedule (ocannl.schedule): the register block holds 256 accumulators, more than 64}}
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j", ocannl.schedule = {kind = "cpu", lanes = "result", width = 8, vector = 1, outer = array<i64>, unroll = [array<i64: 1, 16, 0>, array<i64: 0, 16, 0>], reductions = array<i64: 2>}} : (!ocannl.tensor<f32, "12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32">
  return %c : !ocannl.tensor<f32, "12,32">
}

// -----

// A tile that is not a multiple of the block step (2 vectors of 8).
func.func @case6(%a: !ocannl.tensor<f32, "12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op: cannot obey its schedule (ocannl.schedule): the tile of d1 must be a multiple of its block step 16 (got 24)}}
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j", ocannl.schedule = {kind = "cpu", lanes = "result", width = 8, vector = 1, outer = array<i64>, unroll = [array<i64: 1, 2, 24>, array<i64: 0, 6, 0>], reductions = array<i64: 2>}} : (!ocannl.tensor<f32, "12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32">
  return %c : !ocannl.tensor<f32, "12,32">
}

// -----

// A reduction tile of a parallel iterator.
func.func @case7(%a: !ocannl.tensor<f32, "12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op: cannot obey its schedule (ocannl.schedule): 'k_tile' must tile a reduction by at least 1 (got d0 by 8)}}
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j", ocannl.schedule = {kind = "cpu", lanes = "result", width = 8, vector = 1, outer = array<i64>, unroll = [array<i64: 1, 2, 0>, array<i64: 0, 6, 0>], reductions = array<i64: 2>, k_tile = array<i64: 0, 8>}} : (!ocannl.tensor<f32, "12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32">
  return %c : !ocannl.tensor<f32, "12,32">
}

// -----

// An outer tile without a reduction tile to order it against.
func.func @outer_tile_alone(%a: !ocannl.tensor<f32, "4,12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "4,12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op: cannot obey its schedule (ocannl.schedule): 'outer_tile' tiles the first 'outer' loop around the 'k_tile' loop: it needs both, and a size of at least 1 (got 2)}}
  %c = "ocannl.einsum"(%a, %b) {spec = "n,i,k; k,j => n,i,j", ocannl.schedule = {kind = "cpu", lanes = "result", width = 8, vector = 2, outer = array<i64: 0>, unroll = [array<i64: 2, 2, 0>, array<i64: 1, 6, 0>], reductions = array<i64: 3>, outer_tile = 2}} : (!ocannl.tensor<f32, "4,12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "4,12,32">
  return %c : !ocannl.tensor<f32, "4,12,32">
}

// -----

// An outer tile of zero iterations.
func.func @outer_tile_zero(%a: !ocannl.tensor<f32, "4,12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "4,12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op: cannot obey its schedule (ocannl.schedule): 'outer_tile' tiles the first 'outer' loop around the 'k_tile' loop: it needs both, and a size of at least 1 (got 0)}}
  %c = "ocannl.einsum"(%a, %b) {spec = "n,i,k; k,j => n,i,j", ocannl.schedule = {kind = "cpu", lanes = "result", width = 8, vector = 2, outer = array<i64: 0>, unroll = [array<i64: 2, 2, 0>, array<i64: 1, 6, 0>], reductions = array<i64: 3>, k_tile = array<i64: 3, 8>, outer_tile = 0}} : (!ocannl.tensor<f32, "4,12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "4,12,32">
  return %c : !ocannl.tensor<f32, "4,12,32">
}

// -----

// outer_in_block without a reduction tile.
func.func @outer_in_block_alone(%a: !ocannl.tensor<f32, "4,12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "4,12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op: cannot obey its schedule (ocannl.schedule): 'outer_in_block' moves the 'outer' loops inside the first block column under a 'k_tile': it needs both, and no 'outer_tile'}}
  %c = "ocannl.einsum"(%a, %b) {spec = "n,i,k; k,j => n,i,j", ocannl.schedule = {kind = "cpu", lanes = "result", width = 8, vector = 2, outer = array<i64: 0>, unroll = [array<i64: 2, 2, 0>, array<i64: 1, 6, 0>], reductions = array<i64: 3>, outer_in_block = true}} : (!ocannl.tensor<f32, "4,12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "4,12,32">
  return %c : !ocannl.tensor<f32, "4,12,32">
}

// -----

// split_outer without an outer tile to split.
func.func @split_outer_untiled(%a: !ocannl.tensor<f32, "4,12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "4,12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op: cannot obey its schedule (ocannl.schedule): 'split_outer' runs the 'outer_tile' loop outermost, shared by the threads: it needs an 'outer_tile'}}
  %c = "ocannl.einsum"(%a, %b) {spec = "n,i,k; k,j => n,i,j", ocannl.schedule = {kind = "cpu", lanes = "result", width = 8, vector = 2, outer = array<i64: 0>, unroll = [array<i64: 2, 2, 0>, array<i64: 1, 6, 0>], reductions = array<i64: 3>, k_tile = array<i64: 3, 8>, split_outer = true, parallel = true}} : (!ocannl.tensor<f32, "4,12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "4,12,32">
  return %c : !ocannl.tensor<f32, "4,12,32">
}

// -----

// Lanes along a reduction the operands do not read contiguously (B reads k on its rows).
func.func @case8(%a: !ocannl.tensor<f32, "12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op: cannot obey its schedule (ocannl.schedule): the lanes cannot run along d2: every operand must read it on its contiguous axis or not at all, and one must read it}}
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j", ocannl.schedule = {kind = "cpu", lanes = "reduction", width = 8, vector = 2, outer = array<i64>, unroll = [array<i64: 1, 4, 0>, array<i64: 0, 3, 0>], reductions = array<i64: 2>}} : (!ocannl.tensor<f32, "12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32">
  return %c : !ocannl.tensor<f32, "12,32">
}

// -----

// An unknown kind.
func.func @case9(%a: !ocannl.tensor<f32, "12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op has a malformed ocannl.schedule: unknown kind 'gpu' (loops, cpu, grid, tiled or epilogue)}}
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j", ocannl.schedule = {kind = "gpu"}} : (!ocannl.tensor<f32, "12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32">
  return %c : !ocannl.tensor<f32, "12,32">
}

// -----

// A field the kind does not have.
func.func @case10(%a: !ocannl.tensor<f32, "12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op has a malformed ocannl.schedule: kind 'loops' has no field 'width'}}
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j", ocannl.schedule = {kind = "loops", width = 8}} : (!ocannl.tensor<f32, "12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32">
  return %c : !ocannl.tensor<f32, "12,32">
}

// -----

// Not a dictionary.
func.func @case11(%a: !ocannl.tensor<f32, "12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op has a malformed ocannl.schedule: it must be a dictionary with a 'kind'}}
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j", ocannl.schedule = "cpu"} : (!ocannl.tensor<f32, "12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32">
  return %c : !ocannl.tensor<f32, "12,32">
}

// -----

// A GPU block size that is not a multiple of 32.
func.func @case12(%a: !ocannl.tensor<f32, "12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op has a GPU schedule of 48 threads per block: a multiple of 32 from 32 to 1024}}
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j", ocannl.schedule = {kind = "grid", block = 48}} : (!ocannl.tensor<f32, "12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32">
  return %c : !ocannl.tensor<f32, "12,32">
}

// -----

// An epilogue of an argument.
func.func @case13(%a: !ocannl.tensor<f32, "12,16">, %b: !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32"> {
  // expected-error @+1 {{'ocannl.einsum' op cannot be computed as an epilogue (ocannl.schedule = {kind = "epilogue", operand = 0}): operand #0 is not computed in this function}}
  %c = "ocannl.einsum"(%a, %b) {spec = "i,k; k,j => i,j", ocannl.schedule = {kind = "epilogue", operand = 0}} : (!ocannl.tensor<f32, "12,16">, !ocannl.tensor<f32, "16,32">) -> !ocannl.tensor<f32, "12,32">
  return %c : !ocannl.tensor<f32, "12,32">
}

// -----

// A tiled GPU kernel asked of an op that is no matrix product.
func.func @tiled_add(%a: !ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8"> {
  // expected-error @+1 {{'ocannl.neg' op: cannot obey its schedule (ocannl.schedule): 'tiled' is for f32/f64 matrix products and convolutions (a sum of products of two operands, the result's contiguous iterator read by one of them only)}}
  %c = "ocannl.neg"(%a) {ocannl.schedule = {kind = "tiled", block = 256}} : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  return %c : !ocannl.tensor<f32, "4,8">
}

// -----

// A CPU plan for a terminal.
func.func @plan_range() -> !ocannl.tensor<f32, "8"> {
  // expected-error @+1 {{'ocannl.range' op: its schedule (ocannl.schedule) is for loop-nest ops: this op gets 'loops' or 'grid'}}
  %r = "ocannl.range"() {spec = "8", ocannl.schedule = {kind = "cpu", lanes = "result", width = 8, vector = 0, outer = array<i64>, unroll = [array<i64: 0, 1, 0>], reductions = array<i64>}} : () -> !ocannl.tensor<f32, "8">
  return %r : !ocannl.tensor<f32, "8">
}

// -----

// A function's ops on two devices.
func.func @mixed(%a: !ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8"> {
  %n = "ocannl.neg"(%a) {ocannl.schedule = {kind = "grid", block = 256}} : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  // expected-error @+1 {{'ocannl.exp' op is scheduled for the CPU but 'ocannl.neg' op, earlier in the function, for the GPU with 256 threads per block: a function's ops run on one device}}
  %e = "ocannl.exp"(%n) {ocannl.schedule = {kind = "loops"}} : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  return %e : !ocannl.tensor<f32, "4,8">
}

// -----

// An epilogue whose operand has another reader: it needs its buffer.
func.func @shared(%a: !ocannl.tensor<f32, "4,8">) -> (!ocannl.tensor<f32, "4,8">, !ocannl.tensor<f32, "4,8">) {
  %n = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  // expected-error @+1 {{'ocannl.exp' op cannot be computed as an epilogue (ocannl.schedule = {kind = "epilogue", operand = 0}): operand #0 has other readers or is returned: it needs a buffer}}
  %e = "ocannl.exp"(%n) {ocannl.schedule = {kind = "epilogue", operand = 0}} : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  %t = "ocannl.tanh"(%n) : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  return %e, %t : !ocannl.tensor<f32, "4,8">, !ocannl.tensor<f32, "4,8">
}

// -----

// An epilogue that is no pointwise op on its operand's cells.
func.func @reduce_epilogue(%a: !ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4"> {
  %n = "ocannl.neg"(%a) : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4,8">
  // expected-error @+1 {{'ocannl.einsum' op cannot be computed as an epilogue (ocannl.schedule = {kind = "epilogue", operand = 0}): it is not a pointwise op on the cells of operand #0 (with its other operand computed before the producer)}}
  %s = "ocannl.einsum"(%n) {spec = "i,j => i", ocannl.schedule = {kind = "epilogue", operand = 0}} : (!ocannl.tensor<f32, "4,8">) -> !ocannl.tensor<f32, "4">
  return %s : !ocannl.tensor<f32, "4">
}
