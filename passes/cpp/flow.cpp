//===- flow.cpp - Control-flow edges and call targets ---------------------===//
//
// What shape inference needs of MLIR's interfaces: the pairs of values
// control flow makes equal (region branches, branches, calls) and the
// callees of calls, through symbol tables kept across lookups.
//
//===----------------------------------------------------------------------===//

#include "shim.h"

extern "C" {

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
