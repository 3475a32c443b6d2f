// The back half of `ocannl-run`, stage by stage, in stock MLIR/LLVM 22
// (libMLIR.so, libLLVM.so): nothing of ocannl-mlir. It reads a module in
// the LLVM dialect (what `ocannl-opt -p 'builtin.module(ocannl-to-llvm)'`
// writes, or the pipeline `ocannl-run` runs) and prints each stage's wall
// time and the process's CPU time for it, in seconds:
//
//   parse, translate to LLVM IR, LLVM O3 (the JIT's
//   `makeOptimizingTransformer(3)`), code generation to an object in memory
//   (O3, host CPU), deleting the LLVM module and context
//
// or, with --engine, MLIR's ExecutionEngine as `mlirExecutionEngineCreate`
// sets it up: create (translation and O3), the first lookup (code
// generation and linking), three runs of `@main(input, output0, output1)`
// on data of ResNet-50's shapes (made up, or the raw float32 cells of the
// file $LLVM_STAGES_INPUT; the second output's cells go to
// $LLVM_STAGES_OUTPUT), a checksum of the outputs, destroy.
//
// Options: --flatten (every constant global's nested array type made flat,
// as `ocannl_runtime`'s `flatten_constant_globals` does to those of many
// rows), --bind (with --engine: constants of 4 KiB or more, or
// --bind-at-least=BYTES, become declarations bound to copies of their
// bytes laid out one after the other, as `bind_constants`), --bind-in-place
// (bound to the attributes' own bytes, a copy only where they are less
// aligned than the global asks), --zero-globals (every array initializer
// replaced by zeros after translation: the cost of the code alone),
// --time-passes (LLVM's pass timings), --no-unroll (LLVM's loop unrolling
// off: `PipelineTuningOptions::LoopUnrolling`, which also limits full
// unrolling to loops whose metadata asks), -O0..-O3 (the optimiser's level;
// with --engine the code generator's too, as MLIR's C API does).
//
// Build: g++ -O2 -std=c++17 -fno-rtti tools/bench/llvm_stages.cpp
//   -I/usr/lib/llvm-22/include -L/usr/lib/llvm-22/lib -lMLIR -lLLVM
//   -Wl,-rpath,/usr/lib/llvm-22/lib -o /tmp/llvm_stages
// Figures: docs/performance.md, "Compile time of ResNet-50 (issue 41)".
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/CoreContainers.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;
static Clock::time_point t0;
static double cpu0;

// The process's CPU time (user and system), in seconds: on a shared
// machine it moves less than the wall time.
static double cpu() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void lap(const char *what) {
  auto t = Clock::now();
  double c = cpu();
  fprintf(stderr, "%-30s %8.3f s wall %8.3f s cpu\n", what,
          std::chrono::duration<double>(t - t0).count(), c - cpu0);
  t0 = t;
  cpu0 = c;
}

static void flatten(mlir::ModuleOp m) {
  for (auto g : m.getOps<mlir::LLVM::GlobalOp>()) {
    auto dense =
        llvm::dyn_cast_or_null<mlir::DenseElementsAttr>(g.getValueOrNull());
    if (!dense || dense.isSplat() || dense.getType().getRank() < 2)
      continue;
    auto elem = dense.getElementType();
    auto n = dense.getNumElements();
    g.setValueAttr(dense.reshape(mlir::RankedTensorType::get({n}, elem)));
    g.setGlobalType(mlir::LLVM::LLVMArrayType::get(elem, n));
  }
}

static size_t bindAtLeast = 4096;
static bool inPlace = false;

static std::vector<std::pair<std::string, const void *>>
bind(mlir::ModuleOp m) {
  struct Bound {
    std::string name;
    const char *data;
    size_t size;
  };
  std::vector<Bound> found;
  for (auto g : m.getOps<mlir::LLVM::GlobalOp>()) {
    auto dense =
        llvm::dyn_cast_or_null<mlir::DenseElementsAttr>(g.getValueOrNull());
    if (!dense || dense.isSplat() || !g.getConstant() ||
        dense.getRawData().size() < bindAtLeast)
      continue;
    found.push_back({g.getSymName().str(), dense.getRawData().data(),
                     dense.getRawData().size()});
    g.removeValueAttr();
    g.setLinkage(mlir::LLVM::Linkage::External);
  }
  // As `bind_constants`: every constant copied, one after the other (as
  // the JIT's data section would hold them); with --bind-in-place a copy
  // only where the bytes are less aligned than the globals ask (64 at
  // most). The copies are never freed (the process ends).
  size_t misaligned = 0;
  if (!inPlace) {
    size_t total = 0;
    for (auto &b : found)
      total += (b.size + 63) / 64 * 64;
    char *buffer = static_cast<char *>(
        std::aligned_alloc(4096, (total + 4095) / 4096 * 4096 + 4096));
    for (auto &b : found) {
      memcpy(buffer, b.data, b.size);
      b.data = buffer;
      buffer += (b.size + 63) / 64 * 64;
    }
  } else {
    for (auto &b : found)
      if (reinterpret_cast<uintptr_t>(b.data) % 64 != 0) {
        ++misaligned;
        char *copy = static_cast<char *>(
            std::aligned_alloc(64, (b.size + 63) / 64 * 64));
        memcpy(copy, b.data, b.size);
        b.data = copy;
      }
  }
  fprintf(stderr, "%zu constants bound, %zu copied to be 64-byte aligned\n",
          found.size(), misaligned);
  std::vector<std::pair<std::string, const void *>> out;
  for (auto &b : found)
    out.push_back({b.name, b.data});
  return out;
}

static bool noUnroll = false;

// LLVM's default pipeline at `level` for `tm`, as
// `mlir::makeOptimizingTransformer`, with LLVM's loop unrolling off when
// --no-unroll (and the pass timer's callbacks with --time-passes).
static llvm::Error optimise(llvm::Module *m, unsigned level,
                           llvm::TargetMachine *tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassInstrumentationCallbacks pic;
  llvm::TimePassesHandler timer(llvm::TimePassesIsEnabled);
  timer.registerCallbacks(pic);
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = !noUnroll;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = tuning.SLPVectorization = level > 1;
  llvm::PassBuilder pb(tm, tuning, std::nullopt, &pic);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  pb.buildPerModuleDefaultPipeline(levels[level > 3 ? 3 : level]).run(*m, mam);
  if (llvm::TimePassesIsEnabled)
    timer.print();
  return llvm::Error::success();
}

static int engine(mlir::ModuleOp m, bool doBind, unsigned level) {
  auto bound = doBind ? bind(m)
                      : std::vector<std::pair<std::string, const void *>>{};
  // As MLIR's C API (`mlirExecutionEngineCreate`): the optimiser tuned
  // for the host's target machine.
  static auto tm = cantFail(
      cantFail(llvm::orc::JITTargetMachineBuilder::detectHost())
          .createTargetMachine());
  static std::function<llvm::Error(llvm::Module *)> transformer =
      noUnroll ? std::function<llvm::Error(llvm::Module *)>(
                     [level](llvm::Module *m) {
                       return optimise(m, level, tm.get());
                     })
               : mlir::makeOptimizingTransformer(level, 0, tm.get());
  mlir::ExecutionEngineOptions opts;
  opts.transformer = transformer;
  // As MLIR's C API: code generation at the optimiser's level.
  opts.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(level);
  auto e = mlir::ExecutionEngine::create(m, opts);
  if (!e) {
    llvm::errs() << e.takeError() << "\n";
    return 1;
  }
  (*e)->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    for (auto &[name, p] : bound)
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(p),
                             llvm::JITSymbolFlags::Exported};
    return map;
  });
  lap("engine create");
  auto f = (*e)->lookupPacked("main");
  if (!f) {
    llvm::errs() << f.takeError() << "\n";
    return 1;
  }
  lap("engine lookup (code)");
  std::vector<float> in(3 * 224 * 224), o1(1000), o2(1000);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = float((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
  if (const char *input = getenv("LLVM_STAGES_INPUT")) {
    // Raw float32 cells of the input (e.g. numpy's `tofile`).
    FILE *f = fopen(input, "rb");
    if (!f || fread(in.data(), sizeof(float), in.size(), f) != in.size()) {
      fprintf(stderr, "cannot read %s\n", input);
      return 1;
    }
    fclose(f);
  }
  float *a0 = in.data(), *a1 = o1.data(), *a2 = o2.data();
  void *args[] = {&a0, &a1, &a2};
  for (int r = 0; r < 3; ++r) {
    (*f)(args);
    lap("run");
  }
  double s1 = 0, s2 = 0;
  for (int i = 0; i < 1000; ++i) {
    s1 += o1[i] * (i + 1);
    s2 += o2[i] * (i + 1);
  }
  fprintf(stderr, "checksum %.9g %.9g\n", s1, s2);
  if (const char *output = getenv("LLVM_STAGES_OUTPUT")) {
    // The second result's raw float32 cells.
    FILE *f = fopen(output, "wb");
    fwrite(o2.data(), sizeof(float), o2.size(), f);
    fclose(f);
  }
  e->reset();
  lap("engine destroy");
  return 0;
}

int main(int argc, char **argv) {
  bool doFlatten = false, useEngine = false, doBind = false, zero = false;
  unsigned level = 3;
  const char *path = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--flatten"))
      doFlatten = true;
    else if (!strcmp(argv[i], "--engine"))
      useEngine = true;
    else if (!strcmp(argv[i], "--bind"))
      doBind = true;
    else if (!strncmp(argv[i], "--bind-at-least=", 16))
      bindAtLeast = strtoull(argv[i] + 16, nullptr, 10);
    else if (!strcmp(argv[i], "--no-unroll"))
      noUnroll = true;
    else if (!strcmp(argv[i], "--bind-in-place"))
      doBind = inPlace = true;
    else if (!strcmp(argv[i], "--zero-globals"))
      zero = true;
    else if (!strcmp(argv[i], "--time-passes"))
      llvm::TimePassesIsEnabled = true;
    else if (!strncmp(argv[i], "-O", 2))
      level = atoi(argv[i] + 2);
    else
      path = argv[i];
  }
  if (!path) {
    fprintf(stderr, "usage: llvm_stages FILE.mlir [--flatten] [--engine "
                    "[--bind | --bind-in-place] [--bind-at-least=BYTES]] "
                    "[--zero-globals] [--time-passes] [--no-unroll] [-ON]\n");
    return 2;
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::DialectRegistry registry;
  registry.insert<mlir::LLVM::LLVMDialect>();
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::MLIRContext ctx(registry);
  t0 = Clock::now();
  cpu0 = cpu();
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(path, &ctx);
  if (!module)
    return 1;
  lap("parse");
  if (doFlatten) {
    flatten(*module);
    lap("flatten globals");
  }
  if (useEngine)
    return engine(*module, doBind, level);
  auto tmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  tmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto tm = cantFail(tmb->createTargetMachine());
  {
    llvm::LLVMContext llctx;
    auto llmod = mlir::translateModuleToLLVMIR(*module, llctx);
    lap("translate to LLVM IR");
    size_t functions = 0, instructions = 0;
    for (auto &f : *llmod)
      if (!f.isDeclaration()) {
        ++functions;
        instructions += f.getInstructionCount();
      }
    fprintf(stderr, "%zu functions, %zu instructions\n", functions,
            instructions);
    if (zero)
      for (auto &g : llmod->globals())
        if (g.hasInitializer() && g.getValueType()->isArrayTy())
          g.setInitializer(llvm::ConstantAggregateZero::get(g.getValueType()));
    llmod->setDataLayout(tm->createDataLayout());
    llmod->setTargetTriple(tm->getTargetTriple());
    if (llvm::TimePassesIsEnabled || noUnroll) {
      // The JIT's pipeline, with the pass timer's callbacks.
      if (auto err = optimise(llmod.get(), level, tm.get())) {
        llvm::errs() << err << "\n";
        return 1;
      }
    } else if (auto err =
                   mlir::makeOptimizingTransformer(level, 0, tm.get())(
                       llmod.get())) {
      llvm::errs() << err << "\n";
      return 1;
    }
    lap("LLVM optimisation");
    llvm::SmallVector<char, 0> object;
    {
      llvm::raw_svector_ostream os(object);
      llvm::legacy::PassManager pm;
      tm->addPassesToEmitFile(pm, os, nullptr,
                              llvm::CodeGenFileType::ObjectFile);
      pm.run(*llmod);
    }
    lap("code generation (object)");
    fprintf(stderr, "object: %zu bytes\n", object.size());
    if (llvm::TimePassesIsEnabled)
      llvm::reportAndResetTimings(&llvm::errs());
    llmod.reset();
    lap("delete LLVM module");
  }
  lap("delete LLVM context");
  return 0;
}
