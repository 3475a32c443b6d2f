//===- Ocannl.td - the whole ocannl dialect ----------------*- tablegen -*-===//
// The entry point that build.rs and melior's `dialect!` read.

include "OcannlOps.td"
