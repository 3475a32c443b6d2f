//===- ocannl/Passes.h - The ocannl passes for C++ MLIR compilers ---------===//
//
// Part of ocannl-mlir (Apache-2.0 WITH LLVM-exception).
//
// CMake: find_package(OcannlMLIR CONFIG REQUIRED), then link
// OcannlMLIR::Passes.
//
//===----------------------------------------------------------------------===//

#ifndef OCANNL_PASSES_H
#define OCANNL_PASSES_H

#include <memory>

#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "ocannl-c/Ocannl.h"

namespace ocannl {

/// Registers every ocannl pass and named pipeline (`ocannl-to-affine`,
/// `ocannl-to-llvm`, `ocannl-to-nvvm`) with their options in MLIR's global
/// pass registry, for `mlir::parsePassPipeline` and `MlirOptMain`.
/// Idempotent. `ocannl-to-llvm` and `ocannl-to-nvvm` also name upstream
/// passes: call `mlir::registerAllPasses()` (or register those) too.
inline void registerOcannlPasses() { mlirRegisterOcannlPasses(); }

namespace detail {
inline std::unique_ptr<mlir::Pass> own(MlirPass pass) {
  return std::unique_ptr<mlir::Pass>(unwrap(pass));
}
} // namespace detail

/// The passes with their default options (set options through a textual
/// pipeline: `ocannl-plan-schedule{target=gpu}`).
inline std::unique_ptr<mlir::Pass> createVerifyPass() {
  return detail::own(mlirCreateOcannlVerify());
}
inline std::unique_ptr<mlir::Pass> createInferShapesPass() {
  return detail::own(mlirCreateOcannlInferShapes());
}
inline std::unique_ptr<mlir::Pass> createCheckShapesPass() {
  return detail::own(mlirCreateOcannlCheckShapes());
}
inline std::unique_ptr<mlir::Pass> createInferProjectionsPass() {
  return detail::own(mlirCreateOcannlInferProjections());
}
inline std::unique_ptr<mlir::Pass> createPlanSchedulePass() {
  return detail::own(mlirCreateOcannlPlanSchedule());
}
inline std::unique_ptr<mlir::Pass> createLowerToAffinePass() {
  return detail::own(mlirCreateOcannlLowerToAffine());
}

/// Appends the named pipeline `ocannl-to-affine` (verify, infer shapes,
/// infer projections, plan schedules, lower to affine) to `pm`, a pass manager on
/// `builtin.module`; the error (if any) goes to `errors`.
inline mlir::LogicalResult buildToAffinePipeline(mlir::OpPassManager &pm,
                                                 llvm::raw_ostream &errors = llvm::errs()) {
  registerOcannlPasses();
  return mlir::parsePassPipeline("ocannl-to-affine", pm, errors);
}

} // namespace ocannl

#endif // OCANNL_PASSES_H
