//===- NNPrintShardingRules.cpp - Report sharding rules -------------------===//

#include "loom/Interfaces/Interfaces.h"
#include "loom/Passes/NN/Passes.h"

namespace loom {
#define GEN_PASS_DEF_NNPRINTSHARDINGRULES
#include "NN/NNPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {
struct NNPrintShardingRulesPass
    : loom::impl::NNPrintShardingRulesBase<NNPrintShardingRulesPass> {
  void runOnOperation() override {
    bool broken = false;
    getOperation()->walk([&](ShardingRuleOpInterface op) {
      ShardingRule rule = op.getShardingRule();
      std::string why;
      if (failed(rule.verify(op, &why))) {
        op->emitError("inconsistent sharding rule ")
            << rule.str() << ": " << why;
        broken = true;
        return;
      }
      op->emitRemark() << op->getName() << ": " << rule.str();
    });
    if (broken)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
