//===- shim.h - What the files of the C++ shim share ----------*- C++ -*-===//
//
// The C++ shim of the passes crate (linked into every tool through
// `passes/build.rs`), one concept per file:
//  - `rust_pass.cpp`: `RustPass`, an mlir::Pass whose body is a Rust
//    callback, with real MLIR pass options; registering Rust passes and
//    named pipelines in the global registry;
//  - `math_passes.cpp`: `ocannl-math-approximation` and `ocannl-gpu-math`;
//  - `outline_nests.cpp`: `ocannl-outline-nests`;
//  - `merge_gpu_modules.cpp`: `ocannl-merge-gpu-modules`;
//  - `align_workgroup.cpp`: `ocannl-align-workgroup`;
//  - `driver.cpp`: registering the C++ passes and every upstream dialect and
//    pass, `ocannlOptMain` (MlirOptMain with output errors handled),
//    diagnostics and parsing as `mlir-opt` does them;
//  - `nvptx_target.cpp`: an NVPTX chip and PTX version checked against
//    the linked LLVM;
//  - `flow.cpp`: control-flow edges and call targets from MLIR's
//    interfaces, for shape inference across regions and calls.
// The MLIR C API can create passes but cannot register them in the global
// registry, give them options, or run MlirOptMain: hence this shim.
//
//===----------------------------------------------------------------------===//

#ifndef OCANNL_PASSES_SHIM_H
#define OCANNL_PASSES_SHIM_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/ExtensibleDialect.h"
#include "mlir/IR/SymbolTable.h"
#include <functional>
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/TypeID.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include <cerrno>
#include <fcntl.h>
#include <memory>
#include <string>
#include <vector>

extern "C" {
/// One option of a Rust pass. `isBool` selects `bool`, otherwise `string`.
typedef struct {
  const char *name;
  const char *description;
  bool isBool;
  const char *defaultValue;
} OcannlPassOptionDef;

/// The body of a Rust pass: returns false to signal pass failure. Option
/// values arrive as strings in declaration order (`true`/`false` for bools).
typedef bool (*OcannlPassRunFn)(MlirOperation op, const MlirStringRef *optionValues,
                                intptr_t numOptions, const void *userData);
}

namespace ocannl {
/// Registers `ocannl-math-approximation` and `ocannl-gpu-math`.
void registerMathPasses();
/// Registers `ocannl-outline-nests`.
void registerOutlineNests();
/// Registers `ocannl-merge-gpu-modules`.
void registerMergeGpuModules();
/// Registers `ocannl-align-workgroup`.
void registerAlignWorkgroup();
/// Checks an NVPTX `chip` and `features` (`+ptxNN` or `auto`) against the
/// linked LLVM; writes the features to use into `resolved`, or the reason
/// into `error` (`nvptx_target.cpp`).
bool resolveNvptxTarget(llvm::StringRef chip, llvm::StringRef features, std::string &resolved,
                        std::string &error);
} // namespace ocannl

#endif // OCANNL_PASSES_SHIM_H
