//===- Clipping.cpp - Unscaled gradients, their norm, clipping ------------===//
//
// The gradients are of `loss * loss_scale`: they are divided by the scale,
// their global L2 norm is a result of the step, and
// torch.nn.utils.clip_grad_norm_'s coefficient scales them in the update.
//
//===----------------------------------------------------------------------===//

#include "Math.h"
#include "TrainingStep.h"

using namespace mlir;
using namespace loom;
using namespace loom::training;

GradientNorm loom::training::buildGradientNorm(OpBuilder &b, Location loc,
                                               Value lossScale,
                                               MutableArrayRef<Trained> trained,
                                               double maxNorm) {
  Math m{b, loc, b.getF32Type()};
  Value invScale = m.div(m.scalar(1.0), lossScale);
  Value sumSquares;
  for (Trained &t : trained) {
    if (!t.grad)
      t.grad = b.create<nn::ConstantOp>(
          loc, DenseElementsAttr::get(
                   cast<ShapedType>(t.param.getType()),
                   b.getFloatAttr(t.param.getType().getElementType(), 0)));
    t.grad = m.mul(t.grad, invScale);
    Value s = m.sumAll(m.mul(t.grad, t.grad));
    sumSquares = sumSquares ? m.add(sumSquares, s) : s;
  }
  GradientNorm result;
  result.norm = m.sqrt(sumSquares);
  if (maxNorm > 0)
    result.clip =
        m.min(m.scalar(1.0),
              m.div(m.scalar(maxNorm), m.add(result.norm, m.scalar(1e-6))));
  return result;
}
