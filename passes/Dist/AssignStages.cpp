//===- AssignStages.cpp - Cut a model into pipeline stages ----------------===//
//
// -dist-assign-stages: the forward ops, in program order, are cut into runs
// of about equal cost. Each cut goes where the fewest bytes cross it near
// its ideal point, which in a transformer is between layers (only the
// residual stream is live there), so the stages exchange one activation
// per microbatch.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Interfaces/Cost.h"
#include "loom/Interfaces/Interfaces.h"
#include "loom/Passes/Dist/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace loom {
#define GEN_PASS_DEF_DISTASSIGNSTAGES
#include "Dist/DistPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

/// Whether `op` computes from the function's inputs or parameters (given
/// which values do): ops that compute from constants alone run on every
/// stage instead of crossing.
bool computesFromData(Operation *op, const llvm::DenseSet<Value> &fromData) {
  if (isa<nn::ParameterOp>(op))
    return true;
  return llvm::any_of(op->getOperands(),
                      [&](Value v) { return fromData.contains(v); });
}

LogicalResult checkMarked(func::FuncOp fn, int64_t stages) {
  WalkResult result = fn.walk([&](Operation *op) {
    auto stage = op->getAttrOfType<IntegerAttr>(dist::kStageAttrName);
    if (stage && stage.getInt() >= stages) {
      op->emitError("op is marked for pipeline stage ")
          << stage.getInt() << " but there are " << stages << " stages";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult assign(func::FuncOp fn, int64_t stages) {
  Block &body = fn.getBody().front();
  llvm::DenseSet<Value> fromData(body.args_begin(), body.args_end());
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator()) {
    if (!computesFromData(&op, fromData))
      continue;
    fromData.insert(op.result_begin(), op.result_end());
    if (!isa<nn::ParameterOp>(op))
      ops.push_back(&op);
  }
  if (static_cast<int64_t>(ops.size()) < stages)
    return fn.emitError("cannot cut '")
           << fn.getName() << "' into " << stages << " pipeline stages: it has "
           << ops.size() << " ops";
  // A stage without a matrix product or convolution would only pass its
  // input on.
  int64_t heavy = llvm::count_if(
      ops, [](Operation *op) { return isa<nn::MatmulOp, nn::Conv2dOp>(op); });
  if (heavy > 0 && heavy < stages)
    return fn.emitError("cannot cut '")
           << fn.getName() << "' into " << stages << " pipeline stages: it has "
           << heavy
           << " matrix products and convolutions, and each stage needs one "
              "(use at most "
           << heavy << " stages, counting virtual stages)";
  // Cost before each position, and the bytes live across each cut.
  size_t n = ops.size();
  llvm::DenseMap<Operation *, size_t> position;
  for (auto [i, op] : llvm::enumerate(ops))
    position[op] = i;
  SmallVector<double> before(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    double cost = 1; // every op counts a little, free ones too
    if (auto costed = dyn_cast<CostOpInterface>(ops[i]))
      if (FailureOr<OpCost> c = costed.getCost(); succeeded(c))
        cost += c->flops;
    before[i + 1] = before[i] + cost;
  }
  // crossing[c]: bytes of values made before position c and used at or
  // after it (a cut at c puts ops [0, c) before the boundary).
  SmallVector<int64_t> delta(n + 2, 0);
  for (size_t i = 0; i < n; ++i)
    for (Value r : ops[i]->getResults()) {
      size_t last = i;
      for (Operation *user : r.getUsers()) {
        Operation *top = body.findAncestorOpInBlock(*user);
        auto it = top ? position.find(top) : position.end();
        last = std::max(last, it == position.end() ? n : it->second);
      }
      if (last > i) {
        int64_t bytes = getTensorBytes(r.getType());
        delta[i + 1] += bytes;
        delta[last + 1] -= bytes;
      }
    }
  SmallVector<int64_t> crossing(n + 1, 0);
  for (size_t c = 1; c <= n; ++c)
    crossing[c] = crossing[c - 1] + delta[c];

  double total = before[n], window = total / double(stages) / 8;
  SmallVector<size_t> cuts{0};
  for (int64_t k = 1; k < stages; ++k) {
    double ideal = total * double(k) / double(stages);
    size_t lo = cuts.back() + 1, hi = n - size_t(stages - k);
    size_t best = 0;
    for (size_t c = lo; c <= hi; ++c) {
      if (std::abs(before[c] - ideal) > window)
        continue;
      if (!best || crossing[c] < crossing[best] ||
          (crossing[c] == crossing[best] &&
           std::abs(before[c] - ideal) < std::abs(before[best] - ideal)))
        best = c;
    }
    if (!best) { // no cut in the window: the nearest one
      best = lo;
      for (size_t c = lo; c <= hi; ++c)
        if (std::abs(before[c] - ideal) < std::abs(before[best] - ideal))
          best = c;
    }
    cuts.push_back(best);
  }
  cuts.push_back(n);
  Builder b(fn.getContext());
  for (int64_t k = 0; k < stages; ++k)
    for (size_t i = cuts[k]; i < cuts[k + 1]; ++i)
      ops[i]->setAttr(dist::kStageAttrName, b.getI64IntegerAttr(k));
  return success();
}

struct DistAssignStagesPass
    : loom::impl::DistAssignStagesBase<DistAssignStagesPass> {
  using Base::Base;
  void runOnOperation() override {
    int64_t stages = this->stages;
    if (stages < 1) {
      getOperation().emitError("-dist-assign-stages: stages must be at least "
                               "1, got ")
          << stages;
      return signalPassFailure();
    }
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!fn.isPublic() || fn.isExternal())
        continue;
      bool marked = false;
      fn.walk(
          [&](Operation *op) { marked |= op->hasAttr(dist::kStageAttrName); });
      if (failed(marked       ? checkMarked(fn, stages)
                 : stages > 1 ? assign(fn, stages)
                              : success()))
        return signalPassFailure();
    }
  }
};
} // namespace
