//===- CopyAliasedResults.cpp - A buffer of its own for every result ------===//

#include "loom/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace loom {
#define GEN_PASS_DEF_COPYALIASEDRESULTS
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;

namespace {
struct CopyAliasedResultsPass
    : loom::impl::CopyAliasedResultsBase<CopyAliasedResultsPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal() || fn.isPrivate())
        continue;
      auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
      OpBuilder builder(ret);
      llvm::SmallPtrSet<Value, 8> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        if (!isa<BlockArgument>(v) && seen.insert(v).second)
          continue;
        auto rt = dyn_cast<RankedTensorType>(v.getType());
        if (!rt || !rt.hasStaticShape())
          continue;
        Value init = builder.create<tensor::EmptyOp>(
            ret.getLoc(), rt.getShape(), rt.getElementType());
        operand.set(
            builder.create<linalg::CopyOp>(ret.getLoc(), v, init).getResult(0));
      }
    }
  }
};
} // namespace
