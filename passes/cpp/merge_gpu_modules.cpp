//===- merge_gpu_modules.cpp - ocannl-merge-gpu-modules -------------------===//
//
// The kernels `gpu-kernel-outlining` puts one per `gpu.module` moved into
// one module, so that a program's kernels are one PTX (or cubin) module:
// one file for `ocannl-run --emit ptx -o FILE`, one module load for a run.
//
//===----------------------------------------------------------------------===//

#include "shim.h"

#include "llvm/ADT/StringMap.h"

namespace {

/// `ocannl-merge-gpu-modules`: the `gpu.module`s of a module, when there
/// are several and none carries attributes other than its name (a target
/// attached, an offloading handler: a module chosen by hand), become one
/// module named after the first. Each symbol keeps its name where that is
/// free in the merged module; a kernel whose name is taken (every outlined
/// kernel of `@main` is `@main_kernel`, in modules `@main_kernel`,
/// `@main_kernel_0`, ...) takes its old module's name, unique among the
/// modules, and any other symbol a fresh suffix. Uses inside the old
/// module and the host's `gpu.launch_func` follow the new names.
struct MergeGpuModulesPass
    : public mlir::PassWrapper<MergeGpuModulesPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MergeGpuModulesPass)

  llvm::StringRef getArgument() const override { return "ocannl-merge-gpu-modules"; }
  llvm::StringRef getDescription() const override {
    return "the gpu.modules of a module (kernels outlined one per module) merged into one, "
           "kernel names made unique";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::gpu::GPUDialect>();
  }

  /// A name free in `table`: `want`, else `want_<k>` for the first free k.
  static std::string freeName(mlir::SymbolTable &table, llvm::StringRef want) {
    if (!table.lookup(want))
      return want.str();
    for (unsigned k = 0;; ++k) {
      std::string name = (want + "_" + llvm::Twine(k)).str();
      if (!table.lookup(name))
        return name;
    }
  }

  void runOnOperation() override {
    mlir::ModuleOp top = getOperation();
    llvm::SmallVector<mlir::gpu::GPUModuleOp> modules;
    for (mlir::gpu::GPUModuleOp m : top.getOps<mlir::gpu::GPUModuleOp>()) {
      if (m->getAttrs().size() != 1) // more than its symbol name
        return;
      modules.push_back(m);
    }
    if (modules.size() < 2)
      return;
    mlir::gpu::GPUModuleOp merged = modules.front();
    mlir::SymbolTable into(merged);
    mlir::MLIRContext *ctx = &getContext();
    // (old module, old kernel) -> new kernel name.
    llvm::StringMap<llvm::StringMap<std::string>> renamed;
    for (mlir::gpu::GPUModuleOp m : llvm::ArrayRef(modules).drop_front()) {
      mlir::SymbolTable from(m);
      auto &names = renamed[m.getName()];
      for (mlir::Operation &op : llvm::make_early_inc_range(m.getBody()->getOperations())) {
        mlir::StringAttr old = mlir::SymbolTable::getSymbolName(&op);
        if (!old) // gpu.module's body has only symbols, but be safe
          continue;
        std::string name = old.str();
        if (into.lookup(name))
          name = freeName(into, mlir::isa<mlir::gpu::GPUFuncOp>(op) ? m.getName() : old.getValue());
        if (name != old.getValue() &&
            mlir::failed(from.rename(&op, mlir::StringAttr::get(ctx, name)))) {
          op.emitError("cannot rename '") << old.getValue() << "' to merge the kernel modules";
          return signalPassFailure();
        }
        names[old.getValue()] = name;
        op.remove();
        into.insert(&op);
      }
    }
    top.walk([&](mlir::gpu::LaunchFuncOp launch) {
      auto module = renamed.find(launch.getKernelModuleName().getValue());
      if (module == renamed.end())
        return;
      auto kernel = module->second.find(launch.getKernelName().getValue());
      if (kernel == module->second.end())
        return;
      launch.setKernelAttr(mlir::SymbolRefAttr::get(
          ctx, merged.getName(), {mlir::FlatSymbolRefAttr::get(ctx, kernel->second)}));
    });
    for (mlir::gpu::GPUModuleOp m : llvm::ArrayRef(modules).drop_front())
      m.erase();
  }
};

} // namespace

void ocannl::registerMergeGpuModules() {
  mlir::registerPass([]() -> std::unique_ptr<mlir::Pass> {
    return std::make_unique<MergeGpuModulesPass>();
  });
}
