//===- rust_pass.cpp - Rust passes and pipelines in MLIR's registry -------===//
//
// `RustPass` is an mlir::Pass whose body is a Rust callback. Its options are
// real MLIR pass options (so `ocannl-infer-shapes{close=false}` and `--help`
// work) and it clones with its option values like any pass.
// `ocannlRegisterPass` registers one such pass by its argument;
// `ocannlRegisterPipeline` a named pipeline with `$(name)` options.
//
//===----------------------------------------------------------------------===//

#include "shim.h"

#include "llvm/Support/FileSystem.h"

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

} // namespace

extern "C" {

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
/// `ocannl-infer-shapes,lower-affine`. With `nvptxTarget`, its options
/// `chip` and `features` name an NVPTX target, checked (and `features=auto`
/// resolved) by `ocannl::resolveNvptxTarget` before any pass runs.
void ocannlRegisterPipeline(const char *argument, const char *description,
                            const char *passes, const char *optionSpec, bool nvptxTarget) {
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
      [text, defaults, nvptxTarget](mlir::OpPassManager &pm, llvm::StringRef options,
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
        if (nvptxTarget) {
          auto value = [&](llvm::StringRef name) -> std::string & {
            return std::find_if(values.begin(), values.end(),
                                [&](const auto &v) { return v.first == name; })
                ->second;
          };
          std::string resolved, error;
          if (!ocannl::resolveNvptxTarget(value("chip"), value("features"), resolved, error))
            return errorHandler(error);
          value("features") = resolved;
          // MLIR's serialiser reports a missing libdevice as an error but
          // lets the pass succeed (exit 0): checked here instead.
          const std::string &toolkit = value("toolkit");
          if (!toolkit.empty() &&
              !llvm::sys::fs::is_regular_file(toolkit + "/nvvm/libdevice/libdevice.10.bc"))
            return errorHandler("toolkit '" + toolkit +
                                "' has no nvvm/libdevice/libdevice.10.bc (give a CUDA toolkit, "
                                "or the nvidia/cuda_nvcc directory of PyPI's "
                                "nvidia-cuda-nvcc-cu12)");
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

} // extern "C"
