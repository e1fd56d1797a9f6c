//===- ExpandOptimizers.cpp - Optimizer updates as elementwise ops --------===//
//
// -nn-expand-optimizers: nn.sgd_update and nn.adamw_update become the nn
// ops of their formulas, in PyTorch's order of operations, so that a step
// can be checked against torch.optim to the bit. The ops' cost
// (NNOptimizerOps.cpp) counts exactly what is built here.
//
//===----------------------------------------------------------------------===//

#include "Math.h"
#include "loom/Dialect/NN/NNOps.h"
#include "loom/Passes/Training/Passes.h"

namespace loom {
#define GEN_PASS_DEF_NNEXPANDOPTIMIZERS
#include "Training/TrainingPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using training::Math;

namespace {
Math mathAt(OpBuilder &b, Operation *op, Value param) {
  auto elem = cast<FloatType>(getElementTypeOrSelf(param.getType()));
  return Math{b, op->getLoc(), elem};
}

/// torch.optim.SGD: d = g + wd p; buf = momentum buf + d; p -= lr buf.
void expand(nn::SGDUpdateOp op) {
  OpBuilder b(op);
  Math m = mathAt(b, op, op.getParam());
  Value p = op.getParam(), g = op.getGrad();
  if (Value clip = op.getClip())
    g = m.mul(g, clip);
  double weightDecay = op.getWeightDecay().convertToDouble();
  double momentum = op.getMomentum().convertToDouble();
  if (weightDecay > 0)
    g = m.add(g, m.mul(p, weightDecay));
  if (Value buf = op.getMomentumBuffer()) {
    g = m.add(m.mul(buf, momentum), g);
    op.getNewMomentumBuffer().replaceAllUsesWith(g);
  }
  op.getNewParam().replaceAllUsesWith(m.sub(p, m.mul(g, op.getLr())));
  op.erase();
}

/// torch.optim.AdamW: p *= 1 - lr wd; m.lerp_(g, 1 - beta1);
/// v = beta2 v + (1 - beta2) g g; p -= (lr / bc1) m / (sqrt(v) / sqrt(bc2)
/// + eps).
void expand(nn::AdamWUpdateOp op) {
  OpBuilder b(op);
  Math m = mathAt(b, op, op.getParam());
  Value p = op.getParam(), g = op.getGrad(), lr = op.getLr();
  if (Value clip = op.getClip())
    g = m.mul(g, clip);
  double weightDecay = op.getWeightDecay().convertToDouble();
  double beta1 = op.getBeta1().convertToDouble();
  double beta2 = op.getBeta2().convertToDouble();
  double eps = op.getEps().convertToDouble();
  if (weightDecay > 0)
    p = m.mul(p, m.sub(m.scalar(1.0), m.mul(lr, weightDecay)));
  // exp_avg.lerp_(grad, 1 - beta1)
  Value mv = op.getExpAvg();
  Value mNew = m.add(mv, m.mul(m.sub(g, mv), 1.0 - beta1));
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  Value vNew =
      m.add(m.mul(op.getExpAvgSq(), beta2), m.mul(m.mul(g, g), 1.0 - beta2));
  Value stepSize = m.div(lr, op.getBiasCorrection1());
  Value denom = m.add(m.div(m.sqrt(vNew), m.sqrt(op.getBiasCorrection2())),
                      m.scalar(eps));
  Value pNew = m.sub(p, m.mul(m.div(mNew, denom), stepSize));
  op.getNewExpAvg().replaceAllUsesWith(mNew);
  op.getNewExpAvgSq().replaceAllUsesWith(vNew);
  op.getNewParam().replaceAllUsesWith(pNew);
  op.erase();
}

struct NNExpandOptimizersPass
    : loom::impl::NNExpandOptimizersBase<NNExpandOptimizersPass> {
  void runOnOperation() override {
    SmallVector<Operation *> updates;
    getOperation()->walk(
        [&](nn::OptimizerUpdateOpInterface op) { updates.push_back(op); });
    for (Operation *op : updates) {
      if (auto sgd = dyn_cast<nn::SGDUpdateOp>(op))
        expand(sgd);
      else
        expand(cast<nn::AdamWUpdateOp>(op));
    }
  }
};
} // namespace
