//===- align_workgroup.cpp - ocannl-align-workgroup -----------------------===//
//
// Workgroup (shared) memory buffers of outlined kernels aligned to 16
// bytes, so that the tiled kernels' `vector.load`s of four `f32` from them
// (`{alignment = 16}`) are single 128-bit loads (`ld.shared.v4.f32`).
// `convert-gpu-to-nvvm` gives a workgroup attribution the alignment of its
// `llvm.align` attribute, and otherwise that of its element type (4 for
// `f32`), which would make such a load misaligned.
//
//===----------------------------------------------------------------------===//

#include "shim.h"

namespace {

/// The alignment given to workgroup buffers: one 128-bit vector.
constexpr int64_t kWorkgroupAlign = 16;

/// `ocannl-align-workgroup`: every workgroup attribution of every
/// `gpu.func` without an `llvm.align` attribute gets `llvm.align = 16`
/// (an attribution that has one keeps it).
struct AlignWorkgroupPass
    : public mlir::PassWrapper<AlignWorkgroupPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AlignWorkgroupPass)
  llvm::StringRef getArgument() const override { return "ocannl-align-workgroup"; }
  llvm::StringRef getDescription() const override {
    return "workgroup buffers of gpu.func kernels aligned to 16 bytes (llvm.align), for "
           "128-bit loads from shared memory";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::gpu::GPUDialect, mlir::LLVM::LLVMDialect>();
  }
  void runOnOperation() override {
    mlir::MLIRContext *ctx = &getContext();
    llvm::StringRef name = mlir::LLVM::LLVMDialect::getAlignAttrName();
    auto align = mlir::IntegerAttr::get(mlir::IntegerType::get(ctx, 64), kWorkgroupAlign);
    getOperation().walk([&](mlir::gpu::GPUFuncOp func) {
      for (unsigned i = 0, e = func.getNumWorkgroupAttributions(); i < e; ++i)
        if (!func.getWorkgroupAttributionAttr(i, name))
          func.setWorkgroupAttributionAttr(i, name, align);
    });
  }
};

} // namespace

void ocannl::registerAlignWorkgroup() {
  mlir::registerPass([]() -> std::unique_ptr<mlir::Pass> {
    return std::make_unique<AlignWorkgroupPass>();
  });
}
