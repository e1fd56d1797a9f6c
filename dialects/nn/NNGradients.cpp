//===- NNGradients.cpp - Vector-Jacobian products of nn ops ---------------===//
//
// Each buildVJP builds, from the gradient `g` of the op's result, the
// gradients of its floating-point operands out of other nn ops (so they are
// sharded, lowered and differentiated like any other op). Operands that were
// broadcast get the sum of the gradient over the broadcast dimensions.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/NN/NNOps.h"
#include "mlir/IR/Builders.h"
#include <cmath>

using namespace mlir;
using namespace loom;
using namespace loom::nn;

namespace {
bool isFloatTensor(Value v) {
  return isa<FloatType>(cast<ShapedType>(v.getType()).getElementType());
}

/// A rank-0 constant of `element`'s type.
Value scalar(OpBuilder &b, Location loc, Type element, double value) {
  auto type = RankedTensorType::get({}, element);
  return b.create<ConstantOp>(
      loc, DenseElementsAttr::get(type, b.getFloatAttr(element, value)));
}

Value scalarLike(OpBuilder &b, Location loc, Value like, double value) {
  return scalar(b, loc, cast<ShapedType>(like.getType()).getElementType(),
                value);
}

/// `g` summed over the dimensions `target` was broadcast along.
Value sumToShape(OpBuilder &b, Location loc, Value g, RankedTensorType target) {
  auto type = cast<RankedTensorType>(g.getType());
  if (type.getShape() == target.getShape())
    return g;
  int64_t offset = type.getRank() - target.getRank();
  SmallVector<int64_t> axes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d < offset ||
        (target.getDimSize(d - offset) == 1 && type.getDimSize(d) != 1))
      axes.push_back(d);
  if (!axes.empty())
    g = b.create<ReduceSumOp>(loc, g, b.getDenseI64ArrayAttr(axes),
                              b.getBoolAttr(true));
  if (cast<RankedTensorType>(g.getType()).getShape() != target.getShape())
    g = b.create<ReshapeOp>(loc, g, b.getDenseI64ArrayAttr(target.getShape()));
  return g;
}

Value grad(OpBuilder &b, Location loc, Value g, Value operand) {
  return sumToShape(b, loc, g, cast<RankedTensorType>(operand.getType()));
}

Value mul(OpBuilder &b, Location loc, Value x, Value y) {
  return b.create<MulOp>(loc, x, y);
}

Value select(OpBuilder &b, Location loc, CompareDirection d, Value x, Value y,
             Value onTrue, Value onFalse) {
  Value cond = b.create<CompareOp>(
      loc, CompareDirectionAttr::get(b.getContext(), d), x, y);
  return b.create<WhereOp>(loc, cond, onTrue, onFalse);
}

template <typename Fn>
LogicalResult unaryVJP(Operation *op, OpBuilder &b, ValueRange resultGradients,
                       SmallVectorImpl<Value> &operandGradients, Fn fn) {
  operandGradients.assign(1, Value());
  if (!resultGradients[0] || !isFloatTensor(op->getOperand(0)))
    return success();
  operandGradients[0] =
      fn(op->getLoc(), resultGradients[0], op->getOperand(0), op->getResult(0));
  return success();
}

template <typename Fn>
LogicalResult binaryVJP(Operation *op, OpBuilder &b, ValueRange resultGradients,
                        SmallVectorImpl<Value> &operandGradients, Fn fn) {
  operandGradients.assign(2, Value());
  if (!resultGradients[0] || !isFloatTensor(op->getResult(0)))
    return success();
  Location loc = op->getLoc();
  Value x = op->getOperand(0), y = op->getOperand(1);
  auto [gx, gy] = fn(loc, resultGradients[0], x, y, op->getResult(0));
  operandGradients[0] = grad(b, loc, gx, x);
  operandGradients[1] = grad(b, loc, gy, y);
  return success();
}

/// The gradient of a reduction's result, shaped with the reduced
/// dimensions kept (size 1) so that it broadcasts against the input.
Value keptDims(OpBuilder &b, Location loc, Value g, RankedTensorType input,
               ArrayRef<int64_t> axes) {
  SmallVector<int64_t> shape(input.getShape());
  for (int64_t a : axes)
    shape[a] = 1;
  if (cast<RankedTensorType>(g.getType()).getShape() == ArrayRef(shape))
    return g;
  return b.create<ReshapeOp>(loc, g, b.getDenseI64ArrayAttr(shape));
}

/// The gradient of an op that only reshapes its operand (reshape, squeeze,
/// unsqueeze): the result gradient in the operand's shape.
LogicalResult reshapeBack(Operation *op, OpBuilder &b,
                          ValueRange resultGradients,
                          SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(1, Value());
  if (resultGradients[0])
    operandGradients[0] = b.create<ReshapeOp>(
        op->getLoc(), resultGradients[0],
        b.getDenseI64ArrayAttr(
            cast<RankedTensorType>(op->getOperand(0).getType()).getShape()));
  return success();
}

/// Swaps the last two dimensions.
Value transposeLast2(OpBuilder &b, Location loc, Value v) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    perm.push_back(d);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return b.create<TransposeOp>(loc, v, b.getDenseI64ArrayAttr(perm));
}
} // namespace

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

#define NN_UNARY_VJP(OP, ...)                                                  \
  LogicalResult OP::buildVJP(OpBuilder &b, ValueRange resultGradients,         \
                             SmallVectorImpl<Value> &operandGradients) {       \
    return unaryVJP(*this, b, resultGradients, operandGradients,               \
                    [&](Location loc, Value g, Value x, Value r) -> Value {    \
                      (void)x;                                                 \
                      (void)r;                                                 \
                      __VA_ARGS__                                              \
                    });                                                        \
  }

NN_UNARY_VJP(NegOp, { return b.create<NegOp>(loc, g); })
NN_UNARY_VJP(AbsOp, {
  Value zero = scalarLike(b, loc, x, 0);
  return select(b, loc, CompareDirection::GT, x, zero, g,
                select(b, loc, CompareDirection::LT, x, zero,
                       b.create<NegOp>(loc, g), zero));
})
NN_UNARY_VJP(ExpOp, { return mul(b, loc, g, r); })
NN_UNARY_VJP(LogOp, { return b.create<DivOp>(loc, g, x); })
NN_UNARY_VJP(SqrtOp, {
  return b.create<DivOp>(loc, mul(b, loc, g, scalarLike(b, loc, x, 0.5)), r);
})
NN_UNARY_VJP(RsqrtOp, {
  Value r3 = mul(b, loc, mul(b, loc, r, r), r);
  return mul(b, loc, g, mul(b, loc, r3, scalarLike(b, loc, x, -0.5)));
})
NN_UNARY_VJP(ReciprocalOp, {
  return b.create<NegOp>(loc, mul(b, loc, g, mul(b, loc, r, r)));
})
NN_UNARY_VJP(TanhOp, {
  Value one = scalarLike(b, loc, x, 1);
  return mul(b, loc, g, b.create<SubOp>(loc, one, mul(b, loc, r, r)));
})
NN_UNARY_VJP(SigmoidOp, {
  Value one = scalarLike(b, loc, x, 1);
  return mul(b, loc, g, mul(b, loc, r, b.create<SubOp>(loc, one, r)));
})
NN_UNARY_VJP(ErfOp, {
  // d erf(x) = 2 / sqrt(pi) * exp(-x^2)
  Value e = b.create<ExpOp>(loc, b.create<NegOp>(loc, mul(b, loc, x, x)));
  return mul(b, loc, g,
             mul(b, loc, e, scalarLike(b, loc, x, 2.0 / std::sqrt(M_PI))));
})
NN_UNARY_VJP(ReluOp, {
  Value zero = scalarLike(b, loc, x, 0);
  return select(b, loc, CompareDirection::GT, x, zero, g, zero);
})

#undef NN_UNARY_VJP

//===----------------------------------------------------------------------===//
// Elementwise binary
//===----------------------------------------------------------------------===//

#define NN_BINARY_VJP(OP, ...)                                                 \
  LogicalResult OP::buildVJP(OpBuilder &b, ValueRange resultGradients,         \
                             SmallVectorImpl<Value> &operandGradients) {       \
    return binaryVJP(*this, b, resultGradients, operandGradients,              \
                     [&](Location loc, Value g, Value x, Value y,              \
                         Value r) -> std::pair<Value, Value> {                 \
                       (void)x;                                                \
                       (void)y;                                                \
                       (void)r;                                                \
                       __VA_ARGS__                                             \
                     });                                                       \
  }

NN_BINARY_VJP(AddOp, { return {g, g}; })
NN_BINARY_VJP(SubOp, { return {g, b.create<NegOp>(loc, g)}; })
NN_BINARY_VJP(MulOp, { return {mul(b, loc, g, y), mul(b, loc, g, x)}; })
NN_BINARY_VJP(DivOp, {
  Value gx = b.create<DivOp>(loc, g, y);
  return {gx, b.create<NegOp>(loc, mul(b, loc, gx, r))};
})
NN_BINARY_VJP(PowOp, {
  // d/dx = y x^(y-1); d/dy = x^y log x, defined for x > 0 (0 elsewhere).
  Value one = scalarLike(b, loc, x, 1), zero = scalarLike(b, loc, x, 0);
  Value gx = mul(
      b, loc, g,
      mul(b, loc, y, b.create<PowOp>(loc, x, b.create<SubOp>(loc, y, one))));
  Value positive = select(b, loc, CompareDirection::GT, x, zero, x, one);
  Value gy = mul(b, loc, g, mul(b, loc, r, b.create<LogOp>(loc, positive)));
  gy = select(b, loc, CompareDirection::GT, x, zero, gy, zero);
  return {gx, gy};
})
NN_BINARY_VJP(MaxOp, {
  // Ties go to the left operand.
  Value zero = scalarLike(b, loc, x, 0);
  return {select(b, loc, CompareDirection::GE, x, y, g, zero),
          select(b, loc, CompareDirection::GE, x, y, zero, g)};
})
NN_BINARY_VJP(MinOp, {
  Value zero = scalarLike(b, loc, x, 0);
  return {select(b, loc, CompareDirection::LE, x, y, g, zero),
          select(b, loc, CompareDirection::LE, x, y, zero, g)};
})

#undef NN_BINARY_VJP

LogicalResult WhereOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(3, Value());
  if (!resultGradients[0] || !isFloatTensor(getResult()))
    return success();
  Location loc = getLoc();
  Value g = resultGradients[0];
  Value zero = scalarLike(b, loc, g, 0);
  operandGradients[1] = grad(
      b, loc, b.create<WhereOp>(loc, getCondition(), g, zero), getOnTrue());
  operandGradients[2] = grad(
      b, loc, b.create<WhereOp>(loc, getCondition(), zero, g), getOnFalse());
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

LogicalResult ReduceSumOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(1, Value());
  if (!resultGradients[0] || !isFloatTensor(getInput()))
    return success();
  RankedTensorType in = getInput().getType();
  Value g = keptDims(b, getLoc(), resultGradients[0], in, getAxes());
  operandGradients[0] = b.create<BroadcastToOp>(
      getLoc(), g, b.getDenseI64ArrayAttr(in.getShape()));
  return success();
}

LogicalResult ReduceMeanOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                     SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(1, Value());
  if (!resultGradients[0])
    return success();
  RankedTensorType in = getInput().getType();
  int64_t count = 1;
  for (int64_t a : getAxes())
    count *= in.getDimSize(a);
  Location loc = getLoc();
  Value g = keptDims(b, loc, resultGradients[0], in, getAxes());
  g = b.create<DivOp>(loc, g, scalarLike(b, loc, g, double(count)));
  operandGradients[0] =
      b.create<BroadcastToOp>(loc, g, b.getDenseI64ArrayAttr(in.getShape()));
  return success();
}

/// Max and min send the gradient to the extreme elements, shared equally
/// among ties.
static LogicalResult extremeVJP(Operation *op, OpBuilder &b, Value input,
                                Value result, ArrayRef<int64_t> axes,
                                ValueRange resultGradients,
                                SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(1, Value());
  if (!resultGradients[0] || !isFloatTensor(input))
    return success();
  Location loc = op->getLoc();
  auto in = cast<RankedTensorType>(input.getType());
  Value r = keptDims(b, loc, result, in, axes);
  Value g = keptDims(b, loc, resultGradients[0], in, axes);
  Value hit = b.create<CompareOp>(
      loc, CompareDirectionAttr::get(b.getContext(), CompareDirection::EQ),
      input, r);
  Value one = scalarLike(b, loc, input, 1), zero = scalarLike(b, loc, input, 0);
  Value ones = b.create<WhereOp>(loc, hit, one, zero);
  Value count = b.create<ReduceSumOp>(loc, ones, b.getDenseI64ArrayAttr(axes),
                                      b.getBoolAttr(true));
  operandGradients[0] = b.create<WhereOp>(
      loc, hit,
      b.create<BroadcastToOp>(loc, b.create<DivOp>(loc, g, count),
                              b.getDenseI64ArrayAttr(in.getShape())),
      zero);
  return success();
}

LogicalResult ReduceMaxOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &operandGradients) {
  return extremeVJP(*this, b, getInput(), getResult(), getAxes(),
                    resultGradients, operandGradients);
}

LogicalResult ReduceMinOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &operandGradients) {
  return extremeVJP(*this, b, getInput(), getResult(), getAxes(),
                    resultGradients, operandGradients);
}

//===----------------------------------------------------------------------===//
// Linear algebra and layout
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                 SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(2, Value());
  if (!resultGradients[0] || !isFloatTensor(getResult()))
    return success();
  Location loc = getLoc();
  Value g = resultGradients[0];
  // dA = g B^T, dB = A^T g, each summed over the batch dimensions its
  // operand was broadcast along.
  operandGradients[0] =
      grad(b, loc, b.create<MatmulOp>(loc, g, transposeLast2(b, loc, getRhs())),
           getLhs());
  operandGradients[1] =
      grad(b, loc, b.create<MatmulOp>(loc, transposeLast2(b, loc, getLhs()), g),
           getRhs());
  return success();
}

LogicalResult TransposeOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(1, Value());
  if (!resultGradients[0])
    return success();
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  operandGradients[0] = b.create<TransposeOp>(getLoc(), resultGradients[0],
                                              b.getDenseI64ArrayAttr(inverse));
  return success();
}

LogicalResult ReshapeOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                  SmallVectorImpl<Value> &operandGradients) {
  return reshapeBack(*this, b, resultGradients, operandGradients);
}

LogicalResult
BroadcastToOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                        SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(1, Value());
  if (!resultGradients[0])
    return success();
  operandGradients[0] = grad(b, getLoc(), resultGradients[0], getInput());
  return success();
}

//===----------------------------------------------------------------------===//
// Normalisations
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                  SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(1, Value());
  if (!resultGradients[0])
    return success();
  Location loc = getLoc();
  Value g = resultGradients[0], r = getResult();
  // dx = r (g - sum(g r))
  Value s = b.create<ReduceSumOp>(
      loc, mul(b, loc, g, r),
      b.getDenseI64ArrayAttr({static_cast<int64_t>(getAxis())}),
      b.getBoolAttr(true));
  operandGradients[0] = mul(b, loc, r, b.create<SubOp>(loc, g, s));
  return success();
}

LogicalResult LogSoftmaxOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                     SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(1, Value());
  if (!resultGradients[0])
    return success();
  Location loc = getLoc();
  Value g = resultGradients[0];
  // dx = g - softmax(x) sum(g)
  Value s = b.create<ReduceSumOp>(
      loc, g, b.getDenseI64ArrayAttr({static_cast<int64_t>(getAxis())}),
      b.getBoolAttr(true));
  operandGradients[0] = b.create<SubOp>(
      loc, g, mul(b, loc, b.create<ExpOp>(loc, getResult()), s));
  return success();
}

LogicalResult LayerNormOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(getNumOperands(), Value());
  if (!resultGradients[0])
    return success();
  Location loc = getLoc();
  Value g = resultGradients[0], x = getInput();
  RankedTensorType type = getInput().getType();
  SmallVector<int64_t> axes;
  for (int64_t d = getAxis(); d < type.getRank(); ++d)
    axes.push_back(d);
  auto mean = [&](Value v) -> Value {
    return b.create<ReduceMeanOp>(loc, v, b.getDenseI64ArrayAttr(axes),
                                  b.getBoolAttr(true));
  };
  // Recompute the normalised input: xhat = (x - mu) * rstd.
  Value centered = b.create<SubOp>(loc, x, mean(x));
  Value var = mean(mul(b, loc, centered, centered));
  Value rstd = b.create<RsqrtOp>(
      loc,
      b.create<AddOp>(loc, var,
                      scalarLike(b, loc, x, getEpsilon().convertToDouble())));
  Value xhat = mul(b, loc, centered, rstd);
  unsigned next = 1;
  Value gxhat = g;
  if (getScale()) {
    gxhat = mul(b, loc, g, getScale());
    operandGradients[next++] = grad(b, loc, mul(b, loc, g, xhat), getScale());
  }
  if (getBias())
    operandGradients[next] = grad(b, loc, g, getBias());
  // dx = rstd * (gxhat - mean(gxhat) - xhat * mean(gxhat * xhat))
  Value inner =
      b.create<SubOp>(loc, b.create<SubOp>(loc, gxhat, mean(gxhat)),
                      mul(b, loc, xhat, mean(mul(b, loc, gxhat, xhat))));
  operandGradients[0] = mul(b, loc, rstd, inner);
  return success();
}

LogicalResult GeluOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                               SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(1, Value());
  if (!resultGradients[0])
    return success();
  Location loc = getLoc();
  Value g = resultGradients[0], x = getInput();
  auto c = [&](double v) { return scalarLike(b, loc, x, v); };
  Value derivative;
  if (getApproximate() == GeluApproximation::None) {
    // Phi(x) + x phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2.
    Value phi = mul(
        b, loc, b.create<ExpOp>(loc, mul(b, loc, mul(b, loc, x, x), c(-0.5))),
        c(1.0 / std::sqrt(2 * M_PI)));
    Value cdf = mul(
        b, loc,
        b.create<AddOp>(
            loc, b.create<ErfOp>(loc, mul(b, loc, x, c(1.0 / std::sqrt(2)))),
            c(1)),
        c(0.5));
    derivative = b.create<AddOp>(loc, cdf, mul(b, loc, x, phi));
  } else {
    // 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 a x^2), t = tanh(k (x + a x^3)).
    double k = std::sqrt(2 / M_PI), a = 0.044715;
    Value x2 = mul(b, loc, x, x);
    Value t = b.create<TanhOp>(
        loc,
        mul(b, loc, c(k),
            b.create<AddOp>(loc, x, mul(b, loc, c(a), mul(b, loc, x2, x)))));
    Value left = mul(b, loc, c(0.5), b.create<AddOp>(loc, t, c(1)));
    Value dt = mul(b, loc, b.create<SubOp>(loc, c(1), mul(b, loc, t, t)),
                   mul(b, loc, c(k),
                       b.create<AddOp>(loc, c(1), mul(b, loc, c(3 * a), x2))));
    derivative =
        b.create<AddOp>(loc, left, mul(b, loc, mul(b, loc, c(0.5), x), dt));
  }
  operandGradients[0] = mul(b, loc, g, derivative);
  return success();
}

LogicalResult
CrossEntropyOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                         SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(2, Value());
  if (!resultGradients[0])
    return success();
  Location loc = getLoc();
  RankedTensorType logits = getLogits().getType();
  auto labels = cast<RankedTensorType>(getLabels().getType());
  int64_t axis = getClassAxis(), classes = logits.getDimSize(axis);
  Type element = logits.getElementType();
  // d/dlogits = (softmax(logits) - onehot(labels)) * valid / count * g.
  Value probs = b.create<SoftmaxOp>(loc, getLogits(), axis);
  SmallVector<int64_t> labelShape(labels.getShape());
  labelShape.insert(labelShape.begin() + axis, 1);
  Value expanded =
      b.create<ReshapeOp>(loc, getLabels(), b.getDenseI64ArrayAttr(labelShape));
  SmallVector<int64_t> rangeShape(logits.getRank(), 1);
  rangeShape[axis] = classes;
  Type it = labels.getElementType();
  Value range =
      b.create<RangeOp>(loc, b.getIntegerAttr(it, 0),
                        b.getIntegerAttr(it, classes), b.getIntegerAttr(it, 1));
  range = b.create<ReshapeOp>(loc, range, b.getDenseI64ArrayAttr(rangeShape));
  Value one = scalar(b, loc, element, 1), zero = scalar(b, loc, element, 0);
  Value onehot =
      select(b, loc, CompareDirection::EQ, expanded, range, one, zero);
  Value diff = b.create<SubOp>(loc, probs, onehot);
  Value g = resultGradients[0];
  if (auto ignore = getIgnoreIndex()) {
    Value ignored = b.create<ConstantOp>(
        loc, DenseElementsAttr::get(RankedTensorType::get({}, it),
                                    b.getIntegerAttr(it, *ignore)));
    Value valid =
        select(b, loc, CompareDirection::NE, expanded, ignored, one, zero);
    SmallVector<int64_t> all;
    for (int64_t d = 0; d < logits.getRank(); ++d)
      all.push_back(d);
    Value count = b.create<ReduceSumOp>(
        loc,
        b.create<BroadcastToOp>(loc, valid, b.getDenseI64ArrayAttr(labelShape)),
        b.getDenseI64ArrayAttr(all), b.getBoolAttr(false));
    // All positions ignored: PyTorch's mean is NaN; the gradient is zero.
    count = b.create<MaxOp>(loc, count, one);
    diff = mul(b, loc, diff, valid);
    g = b.create<DivOp>(loc, g, count);
  } else {
    g = b.create<DivOp>(
        loc, g, scalar(b, loc, element, double(labels.getNumElements())));
  }
  operandGradients[0] = mul(b, loc, diff, g);
  return success();
}

LogicalResult CastOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                               SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(1, Value());
  if (!resultGradients[0] || !isFloatTensor(getInput()) ||
      !isFloatTensor(getResult()))
    return success();
  Type back = cast<ShapedType>(getInput().getType()).getElementType();
  operandGradients[0] = b.create<CastOp>(
      getLoc(), resultGradients[0], TypeAttr::get(back), b.getBoolAttr(true));
  return success();
}

LogicalResult SqueezeOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                  SmallVectorImpl<Value> &operandGradients) {
  return reshapeBack(*this, b, resultGradients, operandGradients);
}

LogicalResult UnsqueezeOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &operandGradients) {
  return reshapeBack(*this, b, resultGradients, operandGradients);
}

LogicalResult ConcatOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                 SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(getNumOperands(), Value());
  if (!resultGradients[0])
    return success();
  RankedTensorType type = getResult().getType();
  int64_t axis = getAxis(), offset = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    auto in = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> offsets(type.getRank(), 0), strides(type.getRank(), 1);
    offsets[axis] = offset;
    operandGradients[i] = b.create<SliceOp>(
        getLoc(), resultGradients[0], b.getDenseI64ArrayAttr(offsets),
        b.getDenseI64ArrayAttr(in.getShape()), b.getDenseI64ArrayAttr(strides));
    offset += in.getDimSize(axis);
  }
  return success();
}

LogicalResult SliceOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(1, Value());
  if (!resultGradients[0] || !isFloatTensor(getInput()))
    return success();
  if (llvm::any_of(getStrides(), [](int64_t s) { return s != 1; }))
    return emitOpError("has no gradient rule for strides other than 1 yet");
  // The gradient is g padded with zeros back to the input's extent.
  RankedTensorType in = getInput().getType();
  SmallVector<int64_t> high;
  for (int64_t d = 0; d < in.getRank(); ++d)
    high.push_back(in.getDimSize(d) - getOffsets()[d] - getSizes()[d]);
  operandGradients[0] = b.create<PadOp>(
      getLoc(), resultGradients[0], b.getDenseI64ArrayAttr(getOffsets()),
      b.getDenseI64ArrayAttr(high),
      PadModeAttr::get(b.getContext(), PadMode::Constant), TypedAttr());
  return success();
}

LogicalResult GatherOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                 SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(2, Value());
  if (!resultGradients[0] || !isFloatTensor(getData()))
    return success();
  // Each gathered slice sends its gradient back to the row it was read
  // from; rows read more than once get the sum.
  int64_t axis = getAxis();
  operandGradients[0] =
      b.create<ScatterAddOp>(getLoc(), resultGradients[0], getIndices(), axis,
                             getData().getType().getDimSize(axis));
  return success();
}

LogicalResult ScatterAddOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                     SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(2, Value());
  if (!resultGradients[0])
    return success();
  // Each update lands on one row: its gradient is that row's.
  operandGradients[0] =
      b.create<GatherOp>(getLoc(), resultGradients[0], getIndices(), getAxis());
  return success();
}

LogicalResult SplitOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                SmallVectorImpl<Value> &operandGradients) {
  operandGradients.assign(1, Value());
  if (!isFloatTensor(getInput()))
    return success();
  // Results that do not reach the loss contribute zeros.
  SmallVector<Value> parts;
  for (auto [r, g] : llvm::zip(getResults(), resultGradients)) {
    auto type = cast<RankedTensorType>(r.getType());
    parts.push_back(
        g ? g
          : b.create<ConstantOp>(
                getLoc(), DenseElementsAttr::get(
                              type, b.getFloatAttr(type.getElementType(), 0))));
  }
  operandGradients[0] =
      b.create<ConcatOp>(getLoc(), parts, b.getI64IntegerAttr(getAxis()));
  return success();
}
