//===- Recompute.cpp - What a backward unit recomputes --------------------===//
//
// The cut rule of `full` is the planner's segment rule (lib/Planner,
// Model::buildSegments): after an op where exactly one microbatch-dependent
// value is still needed by later forward ops, and the segment since the
// previous cut did real work (a matrix product or a convolution). In a
// transformer that is the residual stream between blocks, so a backward
// unit recomputes one block at a time from its kept input.
//
//===----------------------------------------------------------------------===//

#include "Recompute.h"
#include "loom/Dialect/NN/NNOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace loom;
using namespace loom::dist;

namespace {
bool isHeavy(Operation *op) { return isa<nn::MatmulOp, nn::Conv2dOp>(op); }

bool isForward(Operation &op) {
  return !op.hasAttr(kBackwardAttrName) &&
         !op.hasTrait<OpTrait::IsTerminator>();
}
} // namespace

RecomputePlan::RecomputePlan(Block &body, Recompute mode) {
  unsigned index = 0;
  for (Operation &op : body)
    positions[&op] = index++;
  if (mode == Recompute::Off)
    return;

  // The forward ops that depend on the microbatch, in order.
  llvm::DenseSet<Value> fromData(body.args_begin(), body.args_end());
  SmallVector<Operation *> nodes;
  llvm::DenseMap<Operation *, int> node;
  for (Operation &op : body) {
    if (!isForward(op))
      continue;
    bool depends = isa<RecvOp>(op) ||
                   llvm::any_of(op.getOperands(),
                                [&](Value v) { return fromData.contains(v); });
    if (!depends)
      continue;
    fromData.insert(op.result_begin(), op.result_end());
    node[&op] = nodes.size();
    nodes.push_back(&op);
  }

  // What may be recomputed: pure forward ops that depend on the microbatch.
  SmallVector<Value> candidates;
  for (Operation *op : nodes)
    if (isMemoryEffectFree(op))
      llvm::append_range(candidates, op->getResults());

  if (mode == Recompute::Selective) {
    for (Value v : candidates) {
      if (isHeavy(v.getDefiningOp()))
        kept.insert(v);
      else
        recomputed.insert(v);
    }
    return;
  }

  // Full: the values live across each cut are kept.
  int n = nodes.size();
  SmallVector<int> delta(n + 1, 0);
  SmallVector<std::pair<Value, std::pair<int, int>>> spans;
  auto addSpan = [&](Value v, int def) {
    int last = def;
    for (Operation *user : v.getUsers()) {
      Operation *top = body.findAncestorOpInBlock(*user);
      auto it = top ? node.find(top) : node.end();
      if (it != node.end())
        last = std::max(last, it->second);
    }
    if (last <= def)
      return;
    spans.push_back({v, {def, last}});
    delta[std::max(def, 0)] += 1;
    delta[last] -= 1;
  };
  for (BlockArgument arg : body.getArguments())
    addSpan(arg, -1);
  for (auto [i, op] : llvm::enumerate(nodes))
    for (Value r : op->getResults())
      addSpan(r, i);
  int live = 0;
  bool heavy = false;
  for (int i = 0; i < n; ++i) {
    live += delta[i];
    heavy |= isHeavy(nodes[i]);
    if (live != 1 || !heavy || i + 1 == n)
      continue;
    for (auto &[v, span] : spans)
      if (span.first <= i && i < span.second)
        kept.insert(v);
    heavy = false;
  }
  for (Value v : candidates)
    if (!kept.contains(v))
      recomputed.insert(v);
}
