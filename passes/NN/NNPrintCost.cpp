//===- NNPrintCost.cpp - Print per-op cost --------------------------------===//

#include "loom/CostModel/CostReport.h"
#include "loom/Passes/NN/Passes.h"
#include "llvm/Support/raw_ostream.h"

namespace loom {
#define GEN_PASS_DEF_NNPRINTCOST
#include "NN/NNPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {
struct NNPrintCostPass : loom::impl::NNPrintCostBase<NNPrintCostPass> {
  using NNPrintCostBase::NNPrintCostBase;

  void runOnOperation() override {
    CostSummary summary = printCostReport(getOperation(), llvm::errs(), perOp);
    numPriced += summary.numPriced;
    numUnpriced += summary.numUnpriced;
    markAllAnalysesPreserved();
  }
};
} // namespace
