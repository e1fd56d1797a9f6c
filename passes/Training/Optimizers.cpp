//===- Optimizers.cpp - The update of every trained parameter -------------===//
//
// One nn.sgd_update or nn.adamw_update per trained parameter, reading its
// gradient, its optimizer state (new zero-initialised parameters) and the
// step's scalars. How they compute is -nn-expand-optimizers' business; how
// they are laid out over a mesh is -dist-zero-layouts'.
//
//===----------------------------------------------------------------------===//

#include "TrainingStep.h"

using namespace mlir;
using namespace loom;
using namespace loom::training;

namespace {
/// New optimizer state `PREFIX NAME` for `t`: zeros of its type, right
/// after the parameter.
nn::ParameterOp addState(OpBuilder &b, Trained t, StringRef prefix) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfter(t.param);
  auto type = cast<ShapedType>(t.param.getType());
  auto op = b.create<nn::ParameterOp>(
      t.param.getLoc(), type, b.getStringAttr(prefix + t.name),
      DenseElementsAttr::get(type, b.getFloatAttr(type.getElementType(), 0)));
  op->setAttr(nn::kZeroInitAttrName, b.getUnitAttr());
  return op;
}
} // namespace

SmallVector<std::pair<std::string, Value>>
loom::training::buildOptimizerUpdates(OpBuilder &b, Location loc,
                                      ArrayRef<Trained> trained,
                                      const OptimizerOptions &options,
                                      const OptimizerScalars &scalars) {
  SmallVector<std::pair<std::string, Value>> updates;
  APFloat weightDecay(options.weightDecay);
  for (Trained t : trained) {
    Value p = t.param.getResult();
    if (options.kind == nn::Optimizer::SGD) {
      nn::ParameterOp buf;
      if (options.momentum > 0)
        buf = addState(b, t, "sgd.momentum:");
      auto update = b.create<nn::SGDUpdateOp>(
          loc, p, t.grad, buf ? buf.getResult() : Value(), scalars.lr,
          scalars.clip, APFloat(options.momentum), weightDecay);
      if (buf)
        updates.push_back({buf.getName().str(), update.getNewMomentumBuffer()});
      updates.push_back({t.name, update.getNewParam()});
      continue;
    }
    nn::ParameterOp m = addState(b, t, "adamw.m:");
    nn::ParameterOp v = addState(b, t, "adamw.v:");
    auto update = b.create<nn::AdamWUpdateOp>(
        loc, p, t.grad, m.getResult(), v.getResult(), scalars.lr,
        scalars.biasCorrection1, scalars.biasCorrection2, scalars.clip,
        APFloat(options.beta1), APFloat(options.beta2), APFloat(options.eps),
        weightDecay);
    updates.push_back({m.getName().str(), update.getNewExpAvg()});
    updates.push_back({v.getName().str(), update.getNewExpAvgSq()});
    updates.push_back({t.name, update.getNewParam()});
  }
  return updates;
}
