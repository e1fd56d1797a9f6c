//===- ApproximateMath.cpp - Polynomial f32 math --------------------------===//

#include "loom/Target/CPU/Passes.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace loom::cpu {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "Target/CPU/Passes.h.inc"
} // namespace loom::cpu

using namespace mlir;

namespace {
/// Polynomials vectorise; libm calls would keep the loops around them scalar.
struct ApproximateMathPass
    : loom::cpu::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
