//===- OcannlMLIRPlugin.cpp - The ocannl dialect and passes for mlir-opt --===//
//
// Part of ocannl-mlir (Apache-2.0 WITH LLVM-exception).
//
// One plugin for stock `mlir-opt` (and any tool built on MlirOptMain):
//
//   mlir-opt --load-dialect-plugin=OcannlMLIRPlugin.so \
//            --load-pass-plugin=OcannlMLIRPlugin.so \
//            -p 'builtin.module(ocannl-to-llvm)' input.mlir
//
// The dialect entry point registers the ocannl dialect in the tool's
// registry; the pass entry point registers every ocannl pass and named
// pipeline. The code is in libOcannlMLIR.so, which shares the tool's
// libMLIR.so. Loading the plugin twice, or only one of its halves, is safe:
// every registration is idempotent.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "ocannl/Dialect.h"
#include "ocannl/Passes.h"

#ifndef OCANNL_MLIR_VERSION
#error "OCANNL_MLIR_VERSION must be defined by the build (cmake/CMakeLists.txt)"
#endif

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Ocannl", OCANNL_MLIR_VERSION,
          [](mlir::DialectRegistry *registry) { ocannl::registerOcannlDialect(*registry); }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "OcannlPasses", OCANNL_MLIR_VERSION,
          []() { ocannl::registerOcannlPasses(); }};
}
