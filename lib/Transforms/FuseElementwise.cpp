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
struct FuseElementwisePass
    : loom::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::ControlFusionFn control = [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
      if (!producer || !consumer || !producer->hasOneUse())
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
