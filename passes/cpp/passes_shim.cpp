//===- passes_shim.cpp - Rust passes in MLIR's registry, and MlirOptMain --===//
//
// The MLIR C API can create passes (mlirCreateExternalPass) but cannot
// register them in the global pass registry, give them options, or run
// MlirOptMain. This shim does those three things:
//  - `RustPass` is an mlir::Pass whose body is a Rust callback. Its options
//    are real MLIR pass options (so `ocannl-infer-shapes{close=false}` and
//    `--help` work) and it clones with its option values like any pass.
//  - `ocannlRegisterPass` registers one such pass by its argument.
//  - `ocannlOptMain` runs MlirOptMain with every upstream dialect, extension
//    and pass registered.
//
//===----------------------------------------------------------------------===//

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

namespace {

struct OptionDef {
  std::string name, description, defaultValue;
  bool isBool;
};

struct RustPassInfo {
  std::string argument, description, opName;
  std::vector<OptionDef> options;
  OcannlPassRunFn run;
  const void *userData;
  mlir::SelfOwningTypeID typeID;
};

/// Infos live for the whole process (passes refer to them).
std::vector<std::unique_ptr<RustPassInfo>> &passInfos() {
  static std::vector<std::unique_ptr<RustPassInfo>> infos;
  return infos;
}

class RustPass : public mlir::Pass {
public:
  explicit RustPass(const RustPassInfo &info)
      : mlir::Pass(info.typeID.getTypeID(),
                   info.opName.empty() ? std::nullopt
                                       : std::optional<llvm::StringRef>(info.opName)),
        info(info) {
    for (const OptionDef &o : info.options) {
      if (o.isBool) {
        auto opt = std::make_unique<Option<bool>>(*this, o.name, llvm::cl::desc(o.description),
                                                  llvm::cl::init(o.defaultValue == "true"));
        Option<bool> *raw = opt.get();
        getters.push_back([raw] { return std::string(raw->getValue() ? "true" : "false"); });
        boolOptions.push_back(std::move(opt));
      } else {
        auto opt = std::make_unique<Option<std::string>>(
            *this, o.name, llvm::cl::desc(o.description), llvm::cl::init(o.defaultValue));
        Option<std::string> *raw = opt.get();
        getters.push_back([raw] { return raw->getValue(); });
        stringOptions.push_back(std::move(opt));
      }
    }
  }

  llvm::StringRef getName() const override { return info.argument; }
  llvm::StringRef getArgument() const override { return info.argument; }
  llvm::StringRef getDescription() const override { return info.description; }

  bool canScheduleOn(mlir::RegisteredOperationName opName) const override {
    return info.opName.empty() || opName.getStringRef() == info.opName;
  }

  /// The dialects ocannl passes create ops of (lowering: `cf.br` between
  /// an op's blocks, `scf` and `gpu` in the GPU target's tiled kernels):
  /// loaded before any pass runs, as MLIR requires. A host that registers
  /// only the dialects of its input (a C API user) relies on this.
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                    mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                    mlir::gpu::GPUDialect, mlir::math::MathDialect,
                    mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                    mlir::vector::VectorDialect>();
  }

  std::unique_ptr<mlir::Pass> clonePass() const override {
    auto copy = std::make_unique<RustPass>(info);
    copy->copyOptionValuesFrom(this);
    return copy;
  }

  void runOnOperation() override {
    std::vector<std::string> values;
    values.reserve(getters.size());
    for (auto &get : getters)
      values.push_back(get());
    std::vector<MlirStringRef> refs;
    refs.reserve(values.size());
    for (const std::string &v : values)
      refs.push_back(MlirStringRef{v.data(), v.size()});
    if (!info.run(wrap(getOperation()), refs.data(), static_cast<intptr_t>(refs.size()),
                  info.userData))
      signalPassFailure();
  }

private:
  const RustPassInfo &info;
  std::vector<std::unique_ptr<Option<bool>>> boolOptions;
  std::vector<std::unique_ptr<Option<std::string>>> stringOptions;
  std::vector<std::function<std::string()>> getters;
};

/// `ocannl-math-approximation`: upstream's polynomial approximations of
/// `exp`, `expm1`, `log`, `log1p`, `log2`, `tanh` and `erf` on `f32`
/// scalars and vectors (`populateMathPolynomialApproximationPatterns`),
/// so that vectorised code stays vectorised instead of calling libm once
/// per lane. Upstream registers these patterns only as a test pass.
/// `sin`/`cos` are left to libm (the approximations' range reduction is
/// only accurate near 0).
struct MathApproximationPass
    : public mlir::PassWrapper<MathApproximationPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MathApproximationPass)

  llvm::StringRef getArgument() const override { return "ocannl-math-approximation"; }
  llvm::StringRef getDescription() const override {
    return "Polynomial approximations of exp, expm1, log, log1p, log2, tanh and erf on f32 "
           "(upstream's patterns), which vectorise";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::arith::ArithDialect, mlir::math::MathDialect,
                    mlir::vector::VectorDialect>();
  }
  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    mlir::populateMathPolynomialApproximationPatterns(patterns, [](llvm::StringRef name) {
      return name == "math.exp" || name == "math.expm1" || name == "math.log" ||
             name == "math.log1p" || name == "math.log2" || name == "math.tanh" ||
             name == "math.erf";
    });
    if (mlir::failed(mlir::applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

/// `ocannl-outline-nests`: a function with more than `max-nests` top-level
/// loop nests (`affine.for`, `affine.parallel`, `scf.for`, ... without
/// results) has them moved, `max-nests` at a time, into private helper
/// functions (`__ocannl_nests<k>_<function>`, internal linkage, `noinline`)
/// that it calls in their place. LLVM's optimiser and code generator are
/// superlinear in the size of one function (loop rotation and deletion
/// update the dominator tree of everything after each loop, the machine
/// scheduler orders every memory access of a block against the others): a
/// concatenation of 4,000 parts, one small nest each, took a minute in
/// `ocannl-run`; helpers of a bounded size keep the time linear.
///
/// Only a straight-line body is split (blocks joined by `cf.br`, the last
/// returning), and nests move only past ops without memory effects (or
/// that only allocate): a helper runs where its last nest was. What the
/// nests use from the function becomes the helper's arguments, except
/// constants, which are cloned (the loops keep their constant bounds and
/// subscripts); a group whose nests use a value of another type than an
/// integer, index, float or memref of static shape and identity layout
/// (what the bare-pointer convention passes) stays in place.
struct OutlineNestsPass
    : public mlir::PassWrapper<OutlineNestsPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(OutlineNestsPass)

  OutlineNestsPass() = default;
  OutlineNestsPass(const OutlineNestsPass &other) : PassWrapper(other) {}

  llvm::StringRef getArgument() const override { return "ocannl-outline-nests"; }
  llvm::StringRef getDescription() const override {
    return "Move the top-level loop nests of a function with more than max-nests of them into "
           "noinline helper functions of max-nests nests each (LLVM's passes are superlinear in "
           "a function's size)";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::func::FuncDialect, mlir::LLVM::LLVMDialect>();
  }

  Option<unsigned> maxNests{*this, "max-nests",
                            llvm::cl::desc("The most top-level loop nests a function keeps "
                                           "(and a helper gets)"),
                            llvm::cl::init(64)};

  /// A loop nest (or a `memref.copy`, which becomes a `memcpy`: a
  /// concatenation of thousands of parts copies each with one) that can
  /// move into a helper.
  static bool isNest(mlir::Operation *op) {
    if (mlir::isa<mlir::memref::CopyOp>(op))
      return true;
    if (op->getNumRegions() == 0 || op->getNumResults() != 0)
      return false;
    return mlir::isa<mlir::affine::AffineForOp, mlir::affine::AffineParallelOp,
                     mlir::affine::AffineIfOp, mlir::scf::ForOp, mlir::scf::ParallelOp,
                     mlir::scf::IfOp, mlir::scf::ForallOp, mlir::memref::AllocaScopeOp>(op);
  }

  /// An op a nest may move past (later in the same straight line).
  static bool canPass(mlir::Operation *op) {
    return mlir::isMemoryEffectFree(op) ||
           mlir::hasSingleEffect<mlir::MemoryEffects::Allocate>(op);
  }

  /// A value the bare-pointer convention passes as an argument.
  static bool passable(mlir::Type t) {
    if (auto m = mlir::dyn_cast<mlir::MemRefType>(t))
      return m.hasStaticShape() && mlir::isa<mlir::AffineMapAttr>(m.getLayout()) &&
             m.getLayout().isIdentity(); // not `strided<[1]>`: that keeps a descriptor
    return t.isIntOrIndexOrFloat();
  }

  /// The blocks of `f` form one straight line: every block but the last
  /// ends in a `cf.br` without operands to the next, and only the entry
  /// block has arguments.
  static bool straightLine(mlir::func::FuncOp f) {
    mlir::Region &body = f.getBody();
    for (mlir::Block &block : body) {
      if (&block != &body.front() && block.getNumArguments() != 0)
        return false;
      mlir::Operation *term = block.getTerminator();
      if (&block == &body.back()) {
        if (!mlir::isa<mlir::func::ReturnOp>(term))
          return false;
      } else {
        auto br = mlir::dyn_cast<mlir::cf::BranchOp>(term);
        if (!br || br.getDest() != block.getNextNode() || br.getNumOperands() != 0)
          return false;
      }
    }
    return true;
  }

  /// Moves `group` into a new helper called where its last nest was; the
  /// helper goes after `after`, and becomes it.
  void outline(mlir::func::FuncOp f, llvm::ArrayRef<mlir::Operation *> group,
               mlir::SymbolTable &symbols, unsigned &counter, mlir::Operation *&after) {
    llvm::SetVector<mlir::Value> used;
    for (mlir::Operation *nest : group) {
      used.insert(nest->operand_begin(), nest->operand_end());
      mlir::getUsedValuesDefinedAbove(nest->getRegions(), used);
    }
    llvm::SetVector<mlir::Value> arguments;
    llvm::SmallVector<mlir::Operation *> constants;
    // Values of other types made by ops without memory effects or regions
    // (the flat views of a copy) are made again in the helper from their
    // operands; `clones` lists those ops operands first.
    llvm::SetVector<mlir::Operation *> clones;
    std::function<bool(mlir::Value)> take = [&](mlir::Value v) -> bool {
      mlir::Operation *def = v.getDefiningOp();
      if (def && def->hasTrait<mlir::OpTrait::ConstantLike>() && def->getNumResults() == 1) {
        if (!llvm::is_contained(constants, def))
          constants.push_back(def);
        return true;
      }
      if (passable(v.getType())) {
        arguments.insert(v);
        return true;
      }
      if (!def || def->getNumRegions() != 0 || !mlir::isMemoryEffectFree(def) ||
          def->getParentRegion() != &f.getBody())
        return false;
      if (clones.contains(def))
        return true;
      for (mlir::Value operand : def->getOperands())
        if (!take(operand))
          return false;
      clones.insert(def);
      return true;
    };
    for (mlir::Value v : used)
      if (!take(v))
        return;
    mlir::MLIRContext *ctx = f.getContext();
    mlir::Location loc = group.back()->getLoc();
    mlir::OpBuilder builder(ctx);
    builder.setInsertionPointAfter(after);
    llvm::SmallVector<mlir::Type> types;
    for (mlir::Value v : arguments)
      types.push_back(v.getType());
    auto helper = mlir::func::FuncOp::create(
        builder, loc, ("__ocannl_nests" + llvm::Twine(counter++) + "_" + f.getName()).str(),
        builder.getFunctionType(types, {}));
    helper.setPrivate();
    helper->setAttr("passthrough", builder.getArrayAttr({builder.getStringAttr("noinline")}));
    helper->setAttr("llvm.linkage",
                    mlir::LLVM::LinkageAttr::get(ctx, mlir::LLVM::Linkage::Internal));
    symbols.insert(helper); // already in the module: uniques its name
    after = helper;
    mlir::Block *entry = helper.addEntryBlock();
    builder.setInsertionPointToEnd(entry);
    auto ret = mlir::func::ReturnOp::create(builder, loc);
    // Constants first, then the values in the helper.
    mlir::IRMapping map;
    builder.setInsertionPointToStart(entry);
    for (mlir::Operation *c : constants)
      builder.clone(*c, map);
    for (auto [v, arg] : llvm::zip(arguments, entry->getArguments()))
      map.map(v, arg);
    for (mlir::Operation *c : clones)
      builder.clone(*c, map);
    builder.setInsertionPoint(group.back());
    mlir::func::CallOp::create(builder, loc, helper, arguments.getArrayRef());
    for (mlir::Operation *nest : group) {
      nest->moveBefore(ret);
      nest->walk([&](mlir::Operation *op) {
        for (mlir::OpOperand &operand : op->getOpOperands())
          if (mlir::Value to = map.lookupOrNull(operand.get()))
            operand.set(to);
      });
    }
    // The ops made again in the helper, left without uses.
    for (mlir::Operation *c : llvm::reverse(clones))
      if (c->use_empty())
        c->erase();
  }

  void runOnOperation() override {
    unsigned limit = std::max(1u, static_cast<unsigned>(maxNests));
    mlir::ModuleOp module = getOperation();
    mlir::SymbolTable symbols(module);
    llvm::SmallVector<mlir::func::FuncOp> functions(module.getOps<mlir::func::FuncOp>());
    unsigned counter = 0;
    for (mlir::func::FuncOp f : functions) {
      if (f.isExternal() || !straightLine(f))
        continue;
      size_t nests = 0;
      for (mlir::Block &block : f.getBody())
        for (mlir::Operation &op : block)
          nests += isNest(&op);
      if (nests <= limit)
        continue;
      // Groups of at most `limit` consecutive nests, with only ops they may
      // pass between them; a helper for each group of two nests or more.
      llvm::SmallVector<mlir::Operation *> group;
      llvm::SmallVector<llvm::SmallVector<mlir::Operation *>> groups;
      auto flush = [&]() {
        if (group.size() > 1)
          groups.push_back(group);
        group.clear();
      };
      for (mlir::Block &block : f.getBody())
        for (mlir::Operation &op : block) {
          if (isNest(&op)) {
            group.push_back(&op);
            if (group.size() == limit)
              flush();
          } else if (!mlir::isa<mlir::cf::BranchOp>(op) && !canPass(&op)) {
            flush();
          }
        }
      flush();
      mlir::Operation *after = f;
      for (auto &g : groups)
        outline(f, g, symbols, counter, after);
    }
  }
};

/// A math op on an `f32`/`f64` scalar as a call of the LLVM intrinsic
/// `llvm.<name>.f32` (or `.f64`). `llvm.call_intrinsic` is left alone by
/// `convert-gpu-to-nvvm`, which turns `llvm.intr.floor` and kin into
/// libdevice calls; NVPTX has an instruction for each of these.
template <typename From>
struct ToIntrinsic : public mlir::OpRewritePattern<From> {
  ToIntrinsic(mlir::MLIRContext *ctx, const char *name)
      : mlir::OpRewritePattern<From>(ctx), name(name) {}
  mlir::LogicalResult matchAndRewrite(From op, mlir::PatternRewriter &rewriter) const override {
    mlir::Type ty = op->getResult(0).getType();
    const char *suffix = ty.isF32() ? "f32" : ty.isF64() ? "f64" : nullptr;
    if (!suffix)
      return mlir::failure();
    std::string intrinsic = std::string("llvm.") + name + "." + suffix;
    rewriter.replaceOpWithNewOp<mlir::LLVM::CallIntrinsicOp>(
        op, ty, rewriter.getStringAttr(intrinsic), op->getOperands());
    return mlir::success();
  }
  const char *name;
};

/// `ocannl-gpu-math`: the math ops NVPTX computes in one instruction (`fma`,
/// `sqrt`, `absf`, `floor`, `ceil`, `trunc`, `roundeven`, `copysign`) on
/// `f32`/`f64` become calls of their LLVM intrinsics before
/// `convert-gpu-to-nvvm`, which would otherwise call libdevice's
/// `__nv_fmaf` and kin: PTX that `ptxas` refuses without libdevice linked
/// ("Unresolved extern function").
struct GpuMathPass : public mlir::PassWrapper<GpuMathPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(GpuMathPass)

  llvm::StringRef getArgument() const override { return "ocannl-gpu-math"; }
  llvm::StringRef getDescription() const override {
    return "fma, sqrt, absf, floor, ceil, trunc, roundeven and copysign on f32/f64 to LLVM "
           "intrinsic calls (native NVPTX instructions instead of libdevice calls)";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::LLVM::LLVMDialect>();
  }
  void runOnOperation() override {
    mlir::MLIRContext *ctx = &getContext();
    mlir::RewritePatternSet patterns(ctx);
    patterns.add<ToIntrinsic<mlir::math::FmaOp>>(ctx, "fma");
    patterns.add<ToIntrinsic<mlir::math::SqrtOp>>(ctx, "sqrt");
    patterns.add<ToIntrinsic<mlir::math::AbsFOp>>(ctx, "fabs");
    patterns.add<ToIntrinsic<mlir::math::FloorOp>>(ctx, "floor");
    patterns.add<ToIntrinsic<mlir::math::CeilOp>>(ctx, "ceil");
    patterns.add<ToIntrinsic<mlir::math::TruncOp>>(ctx, "trunc");
    patterns.add<ToIntrinsic<mlir::math::RoundEvenOp>>(ctx, "roundeven");
    patterns.add<ToIntrinsic<mlir::math::CopySignOp>>(ctx, "copysign");
    if (mlir::failed(mlir::applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

extern "C" {

/// Registers the C++ passes of the shim (`ocannl-math-approximation`,
/// `ocannl-gpu-math`, `ocannl-outline-nests`).
void ocannlRegisterShimPasses() {
  // Registered already (a second copy of this library in the process):
  // registering a name twice is a fatal error in MLIR.
  if (mlir::PassInfo::lookup("ocannl-math-approximation"))
    return;
  mlir::registerPass([]() -> std::unique_ptr<mlir::Pass> {
    return std::make_unique<MathApproximationPass>();
  });
  mlir::registerPass([]() -> std::unique_ptr<mlir::Pass> {
    return std::make_unique<GpuMathPass>();
  });
  mlir::registerPass([]() -> std::unique_ptr<mlir::Pass> {
    return std::make_unique<OutlineNestsPass>();
  });
}

/// Registers a Rust pass under `argument` in MLIR's global pass registry.
/// `opName` (may be null or empty) restricts the ops it runs on. All strings
/// are copied.
void ocannlRegisterPass(const char *argument, const char *description, const char *opName,
                        const OcannlPassOptionDef *options, intptr_t numOptions,
                        OcannlPassRunFn run, const void *userData) {
  if (mlir::PassInfo::lookup(argument))
    return; // a second copy of this library: see ocannlRegisterShimPasses
  auto info = std::make_unique<RustPassInfo>();
  info->argument = argument;
  info->description = description;
  info->opName = opName ? opName : "";
  for (intptr_t i = 0; i < numOptions; ++i)
    info->options.push_back(OptionDef{options[i].name, options[i].description,
                                      options[i].defaultValue ? options[i].defaultValue : "",
                                      options[i].isBool});
  info->run = run;
  info->userData = userData;
  const RustPassInfo &ref = *info;
  passInfos().push_back(std::move(info));
  mlir::registerPass([&ref]() -> std::unique_ptr<mlir::Pass> {
    return std::make_unique<RustPass>(ref);
  });
}

/// Registers the named pipeline `argument` (e.g. `ocannl-to-llvm`) whose
/// passes are the textual pipeline `passes` (without an anchor op), e.g.
/// `ocannl-infer-shapes,lower-affine`. It takes no options.
void ocannlRegisterPipeline(const char *argument, const char *description,
                            const char *passes, const char *optionSpec) {
  if (mlir::PassPipelineInfo::lookup(argument))
    return; // a second copy of this library: see ocannlRegisterShimPasses
  std::string text = passes;
  // `optionSpec`: `name=default` entries separated by ';'. The pipeline's
  // options (`name=value`, separated by spaces) replace `$(name)` in the
  // text; absent ones take their default.
  std::vector<std::pair<std::string, std::string>> defaults;
  llvm::SmallVector<llvm::StringRef> entries;
  llvm::StringRef(optionSpec).split(entries, ';', -1, false);
  for (llvm::StringRef e : entries) {
    auto [name, value] = e.split('=');
    defaults.emplace_back(name.str(), value.str());
  }
  mlir::registerPassPipeline(
      argument, description,
      [text, defaults](mlir::OpPassManager &pm, llvm::StringRef options,
                       llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler) {
        auto values = defaults;
        llvm::SmallVector<llvm::StringRef> given;
        options.split(given, ' ', -1, false);
        for (llvm::StringRef g : given) {
          auto [optName, value] = g.trim().split('=');
          llvm::StringRef name = optName;
          if (name.empty())
            continue;
          auto it = std::find_if(values.begin(), values.end(),
                                 [&](const auto &v) { return v.first == name; });
          if (it == values.end()) {
            std::string known;
            for (const auto &v : values)
              known += (known.empty() ? "" : ", ") + v.first;
            return errorHandler("unknown option '" + name + "'" +
                                (known.empty() ? llvm::Twine(" (this pipeline takes no options)")
                                               : llvm::Twine(" (options: ") + known + ")"));
          }
          if (value.empty() || value.find_first_of("{},$ \t") != llvm::StringRef::npos)
            return errorHandler("option '" + name + "' needs a value without spaces, commas or braces");
          it->second = value.str();
        }
        std::string expanded = text;
        for (const auto &[name, value] : values) {
          std::string key = "$(" + name + ")";
          for (size_t at = expanded.find(key); at != std::string::npos;
               at = expanded.find(key, at + value.size()))
            expanded.replace(at, key.size(), value);
        }
        std::string message;
        llvm::raw_string_ostream os(message);
        if (mlir::failed(mlir::parsePassPipeline(expanded, pm, os)))
          return errorHandler(message);
        return mlir::success();
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)>) {});
}

/// A new instance of a registered Rust pass (for pass managers built from
/// Rust); null when no pass has that argument.
MlirPass ocannlCreateRegisteredPass(const char *argument) {
  for (const auto &info : passInfos())
    if (info->argument == argument)
      return wrap(static_cast<mlir::Pass *>(new RustPass(*info)));
  return MlirPass{nullptr};
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

/// Called for each pair of values whose types control flow makes equal;
/// `at` is the op whose control flow relates them.
typedef void (*OcannlEdgeFn)(MlirValue from, MlirValue to, MlirOperation at, void *data);

/// Calls `edge` for every pair of values inside `root` (a function) that
/// control flow passes from one to the other, so that their types must be
/// the same: a branch's forwarded operands and its successor's block
/// arguments (`BranchOpInterface`: cf.br, cf.cond_br, ...), and a region
/// op's entry operands, region arguments, yielded values and results
/// (`RegionBranchOpInterface` and its terminators: scf.if, scf.for,
/// scf.while, ...). Returns the first op that branches through no
/// `BranchOpInterface`, or hands tensors to its regions' block arguments
/// through no `RegionBranchOpInterface` (a null op when there is none):
/// shapes cannot be related through it.
MlirOperation ocannlForEachControlFlowEdge(MlirOperation root, OcannlEdgeFn edge, void *data) {
  mlir::Operation *unsupported = nullptr;
  auto pairs = [&](mlir::ValueRange from, mlir::ValueRange to, mlir::Operation *at) {
    for (size_t i = 0, n = std::min(from.size(), to.size()); i < n; ++i)
      edge(wrap(from[i]), wrap(to[i]), wrap(at), data);
  };
  mlir::Operation *top = unwrap(root);
  top->walk([&](mlir::Operation *op) -> mlir::WalkResult {
    if (op->getNumSuccessors() > 0) {
      auto branch = llvm::dyn_cast<mlir::BranchOpInterface>(op);
      if (!branch) {
        unsupported = op;
        return mlir::WalkResult::interrupt();
      }
      for (unsigned i = 0; i < op->getNumSuccessors(); ++i) {
        mlir::SuccessorOperands operands = branch.getSuccessorOperands(i);
        mlir::Block *dest = op->getSuccessor(i);
        unsigned produced = operands.getProducedOperandCount();
        mlir::OperandRange forwarded = operands.getForwardedOperands();
        if (produced > dest->getNumArguments())
          continue;
        pairs(forwarded, dest->getArguments().drop_front(produced), op);
      }
    }
    if (op == top || op->getNumRegions() == 0)
      return mlir::WalkResult::advance();
    if (auto branch = llvm::dyn_cast<mlir::RegionBranchOpInterface>(op)) {
      llvm::SmallVector<mlir::RegionSuccessor> successors;
      branch.getSuccessorRegions(mlir::RegionBranchPoint::parent(), successors);
      for (mlir::RegionSuccessor &s : successors)
        pairs(branch.getEntrySuccessorOperands(s), s.getSuccessorInputs(), op);
      for (mlir::Region &region : op->getRegions())
        for (mlir::Block &block : region) {
          if (block.empty())
            continue;
          auto terminator =
              llvm::dyn_cast<mlir::RegionBranchTerminatorOpInterface>(block.back());
          if (!terminator)
            continue;
          llvm::SmallVector<mlir::RegionSuccessor> next;
          branch.getSuccessorRegions(mlir::RegionBranchPoint(terminator), next);
          for (mlir::RegionSuccessor &s : next)
            pairs(terminator.getSuccessorOperands(s), s.getSuccessorInputs(), terminator);
        }
      return mlir::WalkResult::advance();
    }
    // Functions and modules nested here are scopes of their own; any other
    // op with regions must not hand tensors to them through block arguments.
    if (llvm::isa<mlir::FunctionOpInterface>(op) || op->hasTrait<mlir::OpTrait::SymbolTable>())
      return mlir::WalkResult::skip();
    bool carries = false;
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments())
          if (llvm::isa<mlir::TensorType, mlir::DynamicType>(arg.getType()))
            carries = true;
    if (carries) {
      unsupported = op;
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return wrap(unsupported);
}

/// A cache of the symbol tables calls are resolved in (MLIR's
/// SymbolTableCollection): each table is built once, so resolving a call is
/// a hash lookup, not a scan of the module (`resolveCallable` without one
/// made resolving every call of a module quadratic). Freed with
/// `ocannlSymbolTablesDestroy`; the symbols must not change meanwhile.
void *ocannlSymbolTablesCreate() { return new mlir::SymbolTableCollection(); }

void ocannlSymbolTablesDestroy(void *tables) {
  delete static_cast<mlir::SymbolTableCollection *>(tables);
}

/// Whether `op` is a call (`CallOpInterface`). When it is, `*callee` is the
/// function it calls (null when it cannot be resolved: an indirect call or
/// a missing symbol, or when `tables` is null: no lookup) and
/// `[*firstArg, *firstArg + *numArgs)` are the operands passed as arguments.
bool ocannlCallInfo(MlirOperation op, void *tables, MlirOperation *callee, intptr_t *firstArg,
                    intptr_t *numArgs) {
  auto call = llvm::dyn_cast<mlir::CallOpInterface>(unwrap(op));
  if (!call)
    return false;
  mlir::Operation *target =
      tables ? call.resolveCallableInTable(static_cast<mlir::SymbolTableCollection *>(tables))
             : nullptr;
  *callee = wrap(target && llvm::isa<mlir::FunctionOpInterface>(target) ? target : nullptr);
  mlir::OperandRange args = call.getArgOperands();
  *firstArg = args.empty() ? 0 : static_cast<intptr_t>(args.getBeginOperandIndex());
  *numArgs = static_cast<intptr_t>(args.size());
  return true;
}

} // extern "C"
