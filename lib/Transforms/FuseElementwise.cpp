//===- FuseElementwise.cpp - Fuse elementwise producers into readers ------===//

#include "loom/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace loom {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;

namespace {
size_t bodySize(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic ? generic.getBody()->getOperations().size() : 1;
}

struct FuseElementwisePass
    : loom::impl::FuseElementwiseBase<FuseElementwisePass> {
  using FuseElementwiseBase::FuseElementwiseBase;

  void runOnOperation() override {
    // Each fusion clones both bodies into a new op, so fusing a chain of N
    // ops one at a time costs O(N^2) without a cap on the fused body.
    size_t maxBody = maxBodyOps;
    RewritePatternSet patterns(&getContext());
    linalg::ControlFusionFn control = [maxBody](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
      if (!producer || !consumer || !producer->hasOneUse())
        return false;
      if (bodySize(producer) + bodySize(consumer) > maxBody)
        return false;
      AffineMap map = consumer.getMatchingIndexingMap(operand);
      return map.isPermutation();
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
