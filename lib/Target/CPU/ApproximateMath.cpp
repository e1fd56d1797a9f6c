//===- ApproximateMath.cpp - Polynomial f32 math, bf16 as integers -------===//

#include "loom/Target/CPU/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
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
    // bfloat16 conversions as integer arithmetic: without AVX512-BF16, LLVM
    // calls __truncsfbf2, which Debian 12's libgcc does not have, and the
    // program would not load.
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
