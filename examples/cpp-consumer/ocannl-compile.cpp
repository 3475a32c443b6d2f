//===- ocannl-compile.cpp - A C++ compiler driver on the ocannl passes ----===//
//
// Parses an MLIR file with ocannl ops (shapes may be unknown), runs the
// ocannl-to-affine passes through a PassManager built here, and prints the
// affine loop nests. Errors are MLIR's located diagnostics; exit code 1.
//
//   ocannl-compile INPUT.mlir [-o OUTPUT.mlir]
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include "ocannl/Dialect.h"
#include "ocannl/Passes.h"

#include <string>

int main(int argc, char **argv) {
  std::string input, output = "-";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-o" && i + 1 < argc)
      output = argv[++i];
    else if (input.empty() && (arg == "-" || arg[0] != '-'))
      input = arg;
    else {
      llvm::errs() << "usage: ocannl-compile INPUT.mlir [-o OUTPUT.mlir]\n";
      return 1;
    }
  }
  if (input.empty()) {
    llvm::errs() << "usage: ocannl-compile INPUT.mlir [-o OUTPUT.mlir]\n";
    return 1;
  }

  // Upstream dialects (func, arith, ...) and the ocannl dialect.
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  ocannl::registerOcannlDialect(registry);
  mlir::MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(input, &error);
  if (!file) {
    llvm::errs() << "ocannl-compile: error: " << error << "\n";
    return 1;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  // ocannl-to-affine, pass by pass.
  mlir::PassManager pm(&context);
  pm.addPass(ocannl::createVerifyPass());
  pm.addPass(ocannl::createInferShapesPass());
  pm.addPass(ocannl::createInferProjectionsPass());
  pm.addPass(ocannl::createPlanSchedulePass());
  pm.addPass(ocannl::createLowerToAffinePass());
  if (mlir::failed(pm.run(*module)))
    return 1;

  std::unique_ptr<llvm::ToolOutputFile> out = mlir::openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << "ocannl-compile: error: " << error << "\n";
    return 1;
  }
  module->print(out->os());
  out->os() << "\n";
  out->os().flush();
  if (out->os().has_error()) {
    llvm::errs() << "ocannl-compile: error: cannot write '" << output << "'\n";
    out->os().clear_error();
    return 1;
  }
  out->keep();
  return 0;
}
