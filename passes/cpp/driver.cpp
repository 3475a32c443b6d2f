//===- driver.cpp - MlirOptMain, registration, diagnostics, parsing -------===//
//
// `ocannlOptMain` runs MlirOptMain with every upstream dialect, extension
// and pass registered, with output errors handled; diagnostics and parsing
// as `mlir-opt` does them, for `ocannl-run`.
//
//===----------------------------------------------------------------------===//

#include "shim.h"

extern "C" {

/// Registers the C++ passes of the shim (`ocannl-math-approximation`,
/// `ocannl-gpu-math`, `ocannl-outline-nests`, `ocannl-merge-gpu-modules`,
/// `ocannl-align-workgroup`).
void ocannlRegisterShimPasses() {
  // Registered already (a second copy of this library in the process):
  // registering a name twice is a fatal error in MLIR.
  if (mlir::PassInfo::lookup("ocannl-math-approximation"))
    return;
  ocannl::registerMathPasses();
  ocannl::registerOutlineNests();
  ocannl::registerMergeGpuModules();
  ocannl::registerAlignWorkgroup();
}

/// Registers every upstream dialect, extension and pass.
void ocannlRegisterAllUpstream(MlirDialectRegistry registry) {
  mlir::registerAllDialects(*unwrap(registry));
  mlir::registerAllExtensions(*unwrap(registry));
  // What `gpu-module-to-binary` translates (the kernels' LLVM and NVVM
  // dialects, the GPU dialect's modules), as mlir-opt registers them.
  mlir::registerAllToLLVMIRTranslations(*unwrap(registry));
  mlir::registerAllPasses();
}

namespace {
/// Whether file descriptor 1 was closed when the process started (`tool >&-`).
/// Read by a static initialiser, so before `main`: Rust's runtime and
/// `llvm::InitLLVM` both reopen a closed descriptor 0-2 on `/dev/null`, after
/// which the output would vanish and the tool would exit 0.
const bool stdoutClosedAtStart = fcntl(1, F_GETFD) == -1 && errno == EBADF;
} // namespace

extern "C" bool ocannlStdoutClosedAtStart() { return stdoutClosedAtStart; }

/// MlirOptMain with every upstream dialect, extension and pass, and the
/// dialects `registerDialects` adds (the ocannl dialect, from Rust); returns
/// the process exit code.
///
/// This is `mlir::MlirOptMain(argc, argv, toolName, registry)` unrolled to
/// its output stream, for two differences: a write error on the output (a
/// closed pipe, a full disk) is a one-line error and exit code 1 instead of
/// LLVM's fatal "IO failure on output stream" report, and SIGPIPE keeps the
/// disposition the process gave it (ignored: writes then fail with EPIPE)
/// instead of InitLLVM's exit with code 74. A standard output that was
/// closed at start-up is an error too when the output goes there.
int ocannlOptMain(int argc, char **argv, const char *toolName,
                  void (*registerDialects)(MlirDialectRegistry)) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registerDialects(wrap(&registry));
  mlir::registerAllPasses();
  auto [inputFilename, outputFilename] =
      mlir::registerAndParseCLIOptions(argc, argv, toolName, registry);
  if (outputFilename == "-" && stdoutClosedAtStart) {
    llvm::errs() << "ocannl-opt: error: cannot write the output to '-': standard output is "
                    "closed\n";
    return 1;
  }
  llvm::InitLLVM init(argc, argv, /*InstallPipeSignalExitHandler=*/false);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (inputFilename == "-" && llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file = mlir::openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  mlir::LogicalResult result = mlir::MlirOptMain(output->os(), std::move(file), registry, config);
  output->os().flush();
  if (output->os().has_error()) {
    llvm::errs() << "ocannl-opt: error: cannot write the output to '" << outputFilename
                 << "': " << output->os().error().message() << "\n";
    output->os().clear_error();
    return 1;
  }
  if (mlir::failed(result))
    return 1;
  output->keep();
  return 0;
}

/// Diagnostics printed the way `mlir-opt` prints them (with the source
/// line and a caret) for the lifetime of the handle.
struct OcannlDiagnostics {
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> handler;
};

void *ocannlDiagnosticsCreate(MlirContext context) {
  auto *d = new OcannlDiagnostics;
  d->handler = std::make_unique<mlir::SourceMgrDiagnosticHandler>(d->sourceMgr, unwrap(context));
  return d;
}

void ocannlDiagnosticsDestroy(void *diagnostics) {
  delete static_cast<OcannlDiagnostics *>(diagnostics);
}

/// Parses the file `path` into a module; null (with the error reported)
/// when the file cannot be read or does not parse.
MlirOperation ocannlParseSourceFile(MlirContext context, const char *path, void *diagnostics) {
  auto *d = static_cast<OcannlDiagnostics *>(diagnostics);
  mlir::MLIRContext *ctx = unwrap(context);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    mlir::emitError(mlir::UnknownLoc::get(ctx))
        << "cannot read '" << path << "': " << buffer.getError().message();
    return MlirOperation{nullptr};
  }
  d->sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  mlir::ParserConfig config(ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(d->sourceMgr, config);
  if (!module)
    return MlirOperation{nullptr};
  return wrap(module.release().getOperation());
}

} // extern "C"
