/*===-- ocannl-c/Ocannl.h - C API of the ocannl dialect and passes --*- C -*-===*\
|*                                                                            *|
|* Part of ocannl-mlir (Apache-2.0 WITH LLVM-exception).                      *|
|*                                                                            *|
|* The ocannl dialect (tensors with OCANNL row-variable shapes) and its       *|
|* passes, for C programs and language bindings, in the conventions of the    *|
|* MLIR C API. Link `OcannlMLIR::Dialect` / `OcannlMLIR::Passes` (CMake       *|
|* package `OcannlMLIR`); the library shares the host's libMLIR.so.           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef OCANNL_C_OCANNL_H
#define OCANNL_C_OCANNL_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The dialect's handle: `mlirDialectHandleInsertDialect(handle, registry)`
 * registers it (a context appending that registry loads it, from its IRDL
 * definition, when it first parses an `ocannl` op or type), and
 * `mlirDialectHandleLoadDialect(handle, context)` loads it now. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Ocannl, ocannl);

/* Registers every ocannl pass (ocannl-verify, ocannl-infer-shapes,
 * ocannl-check-shapes, ocannl-infer-projections, ocannl-lower-to-affine,
 * ocannl-math-approximation, ocannl-gpu-math, ocannl-outline-nests) and
 * named pipeline (ocannl-to-affine, ocannl-to-llvm, ocannl-to-nvvm) with
 * their options in MLIR's global pass registry, so textual pipelines
 * (`mlirParsePassPipeline`, `mlirOpPassManagerAddPipeline`) name them.
 * Idempotent. ocannl-to-llvm and ocannl-to-nvvm also name upstream passes:
 * register those too (`mlirRegisterAllPasses`, or C++
 * `mlir::registerAllPasses()`). */
MLIR_CAPI_EXPORTED void mlirRegisterOcannlPasses(void);

/* One pass each, with default options (a textual pipeline sets options:
 * `ocannl-plan-schedule{target=gpu}`). Ownership passes to the caller
 * (usually straight to `mlirPassManagerAddOwnedPass`). */
MLIR_CAPI_EXPORTED MlirPass mlirCreateOcannlVerify(void);
MLIR_CAPI_EXPORTED MlirPass mlirCreateOcannlInferShapes(void);
MLIR_CAPI_EXPORTED MlirPass mlirCreateOcannlCheckShapes(void);
MLIR_CAPI_EXPORTED MlirPass mlirCreateOcannlInferProjections(void);
MLIR_CAPI_EXPORTED MlirPass mlirCreateOcannlPlanSchedule(void);
MLIR_CAPI_EXPORTED MlirPass mlirCreateOcannlLowerToAffine(void);

#ifdef __cplusplus
}
#endif

#endif /* OCANNL_C_OCANNL_H */
