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
// Whether fusing `producer` into `consumer` would make a body of more than
// `limit` operations; counts no further than the limit (a block's size is a
// walk over its list).
bool fusedBodyExceeds(Operation *producer, Operation *consumer, size_t limit) {
  size_t count = 0;
  for (Operation *op : {producer, consumer}) {
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic) {
      ++count;
      continue;
    }
    for (Operation &inner : generic.getBody()->getOperations()) {
      (void)inner;
      if (++count > limit)
        return true;
    }
  }
  return count > limit;
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
      if (fusedBodyExceeds(producer, consumer, maxBody))
        return false;
      AffineMap map = consumer.getMatchingIndexingMap(operand);
      return map.isPermutation();
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    // Fusion leaves the control flow as it was: simplifying every region
    // after each sweep only costs time on large graphs.
    GreedyRewriteConfig config;
    config.enableRegionSimplification = GreedySimplifyRegionLevel::Disabled;
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns),
                                            config)))
      signalPassFailure();
  }
};
} // namespace
