//===- outline_nests.cpp - ocannl-outline-nests ---------------------------===//
//
// Functions with many loop nests are split into `noinline` helpers of a
// bounded number of nests each, so that LLVM's superlinear passes see
// functions of a bounded size.
//
//===----------------------------------------------------------------------===//

#include "shim.h"

namespace {

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
/// that only allocate): a helper runs where its last nest was; the calls of
/// `ocannl-profile-ops`'s timer move with the nests they bracket. What the
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

  /// A call of the timer of `ocannl-profile-ops` (`__ocannl_profile_begin`,
  /// `__ocannl_profile_end`): it moves with the nests around it, so that it
  /// still brackets them, and counts as no nest.
  static bool isTimer(mlir::Operation *op) {
    auto call = mlir::dyn_cast<mlir::func::CallOp>(op);
    return call && call.getCallee().starts_with("__ocannl_profile_");
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
      unsigned inGroup = 0; // the nests of `group` (not its timer calls)
      auto flush = [&]() {
        if (inGroup > 1)
          groups.push_back(group);
        group.clear();
        inGroup = 0;
      };
      for (mlir::Block &block : f.getBody())
        for (mlir::Operation &op : block) {
          if (isNest(&op)) {
            group.push_back(&op);
            if (++inGroup == limit)
              flush();
          } else if (isTimer(&op)) {
            group.push_back(&op);
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

} // namespace

void ocannl::registerOutlineNests() {
  mlir::registerPass([]() -> std::unique_ptr<mlir::Pass> {
    return std::make_unique<OutlineNestsPass>();
  });
}
