//===- ocannl/Dialect.h - The ocannl dialect for C++ MLIR compilers -------===//
//
// Part of ocannl-mlir (Apache-2.0 WITH LLVM-exception).
//
// CMake: find_package(OcannlMLIR CONFIG REQUIRED), then link
// OcannlMLIR::Dialect.
//
//===----------------------------------------------------------------------===//

#ifndef OCANNL_DIALECT_H
#define OCANNL_DIALECT_H

#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "ocannl-c/Ocannl.h"

namespace ocannl {

/// Registers the ocannl dialect in `registry`. It is an IRDL-defined
/// dynamic dialect: a context that appends `registry` loads it (ops and
/// `!ocannl.tensor<ELEM, "SPEC">`) when it first parses an `ocannl` op or
/// type. Registering twice is a no-op.
inline void registerOcannlDialect(mlir::DialectRegistry &registry) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__ocannl__(), wrap(&registry));
}

/// Loads the ocannl dialect into `context` now; null if it cannot be
/// loaded.
inline mlir::Dialect *loadOcannlDialect(mlir::MLIRContext &context) {
  return unwrap(mlirDialectHandleLoadDialect(mlirGetDialectHandle__ocannl__(), wrap(&context)));
}

} // namespace ocannl

#endif // OCANNL_DIALECT_H
