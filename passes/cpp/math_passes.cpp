//===- math_passes.cpp - ocannl-math-approximation, ocannl-gpu-math -------===//
//
// Math ops on the way to code: upstream's polynomial approximations on the
// CPU (they vectorise), LLVM intrinsics instead of libdevice calls on the
// GPU.
//
//===----------------------------------------------------------------------===//

#include "shim.h"

namespace {

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

/// `math.absi` as `arith.maxsi(x, 0 - x)` (|INT_MIN| stays INT_MIN, as
/// `llvm.abs` without poison gives): `convert-gpu-to-nvvm` has no pattern
/// for it, and the kernel would not translate to LLVM IR. NVPTX selects
/// `abs.s32` (`.s64`, `.s16`) from the pair.
struct ExpandAbsI : public mlir::OpRewritePattern<mlir::math::AbsIOp> {
  using mlir::OpRewritePattern<mlir::math::AbsIOp>::OpRewritePattern;
  mlir::LogicalResult matchAndRewrite(mlir::math::AbsIOp op,
                                      mlir::PatternRewriter &rewriter) const override {
    mlir::Location loc = op.getLoc();
    mlir::Value x = op.getOperand();
    mlir::Value zero = mlir::arith::ConstantOp::create(
        rewriter, loc, x.getType(), mlir::cast<mlir::TypedAttr>(rewriter.getZeroAttr(x.getType())));
    mlir::Value negated = mlir::arith::SubIOp::create(rewriter, loc, zero, x);
    rewriter.replaceOpWithNewOp<mlir::arith::MaxSIOp>(op, x, negated);
    return mlir::success();
  }
};

/// `ocannl-gpu-math`: the math ops NVPTX computes in one instruction (`fma`,
/// `sqrt`, `absf`, `floor`, `ceil`, `trunc`, `roundeven`, `copysign`) on
/// `f32`/`f64` become calls of their LLVM intrinsics before
/// `convert-gpu-to-nvvm`, which would otherwise call libdevice's
/// `__nv_fmaf` and kin: PTX that `ptxas` refuses without libdevice linked
/// ("Unresolved extern function"). `absi` becomes arith ([`ExpandAbsI`]).
struct GpuMathPass : public mlir::PassWrapper<GpuMathPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(GpuMathPass)

  llvm::StringRef getArgument() const override { return "ocannl-gpu-math"; }
  llvm::StringRef getDescription() const override {
    return "fma, sqrt, absf, floor, ceil, trunc, roundeven and copysign on f32/f64 to LLVM "
           "intrinsic calls (native NVPTX instructions instead of libdevice calls); absi to "
           "arith (no NVVM conversion has it)";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::LLVM::LLVMDialect, mlir::arith::ArithDialect>();
  }
  void runOnOperation() override {
    mlir::MLIRContext *ctx = &getContext();
    mlir::RewritePatternSet patterns(ctx);
    patterns.add<ExpandAbsI>(ctx);
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

void ocannl::registerMathPasses() {
  mlir::registerPass([]() -> std::unique_ptr<mlir::Pass> {
    return std::make_unique<MathApproximationPass>();
  });
  mlir::registerPass([]() -> std::unique_ptr<mlir::Pass> {
    return std::make_unique<GpuMathPass>();
  });
}
