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
#include <algorithm>
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
  if (!isFloatTensor(op->getOperand(0)))
    return success();
  operandGradients[0] =
      fn(op->getLoc(), resultGradients[0], op->getOperand(0), op->getResult(0));
  return success();
}

template <typename Fn>
LogicalResult binaryVJP(Operation *op, OpBuilder &b, ValueRange resultGradients,
                        SmallVectorImpl<Value> &operandGradients, Fn fn) {
  if (!isFloatTensor(op->getResult(0)))
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
  operandGradients[0] = b.create<ReshapeOp>(
      op->getLoc(), resultGradients[0],
      b.getDenseI64ArrayAttr(
          cast<RankedTensorType>(op->getOperand(0).getType()).getShape()));
  return success();
}

/// An i64 vector constant.
Value indexConstant(OpBuilder &b, Location loc, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getI64Type());
  return b.create<ConstantOp>(loc, DenseElementsAttr::get(type, values));
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
  if (!isFloatTensor(getResult()))
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
  if (!isFloatTensor(getInput()))
    return success();
  RankedTensorType in = getInput().getType();
  Value g = keptDims(b, getLoc(), resultGradients[0], in, getAxes());
  operandGradients[0] = b.create<BroadcastToOp>(
      getLoc(), g, b.getDenseI64ArrayAttr(in.getShape()));
  return success();
}

LogicalResult ReduceMeanOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                     SmallVectorImpl<Value> &operandGradients) {
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
  if (!isFloatTensor(input))
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
  if (!isFloatTensor(getResult()))
    return success();
  Location loc = getLoc();
  Value g = resultGradients[0];
  // dA = g B^T, dB = A^T g, each summed over the batch dimensions its
  // operand was broadcast along.
  operandGradients[0] =
      grad(b, loc, b.create<MatmulOp>(loc, g, transposeLast2(b, loc, getRhs())),
           getLhs());
  auto lhsType = cast<RankedTensorType>(getLhs().getType());
  auto gType = cast<RankedTensorType>(g.getType());
  if (getRhs().getType().getRank() == 2 && lhsType.getRank() > 2 &&
      lhsType.hasStaticShape() && gType.hasStaticShape()) {
    // A weight under a batch of rows: one GEMM over all the rows, not a
    // batched product and a sum over its batch.
    int64_t rows = lhsType.getNumElements() / lhsType.getShape().back();
    auto flat = [&](Value v, int64_t cols) -> Value {
      return b.create<ReshapeOp>(loc, v, b.getDenseI64ArrayAttr({rows, cols}));
    };
    Value a = flat(getLhs(), lhsType.getShape().back());
    Value gFlat = flat(g, gType.getShape().back());
    operandGradients[1] = b.create<MatmulOp>(
        loc, b.create<TransposeOp>(loc, a, b.getDenseI64ArrayAttr({1, 0})),
        gFlat);
    return success();
  }
  operandGradients[1] =
      grad(b, loc, b.create<MatmulOp>(loc, transposeLast2(b, loc, getLhs()), g),
           getRhs());
  return success();
}

LogicalResult TransposeOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &operandGradients) {
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
  operandGradients[0] = grad(b, getLoc(), resultGradients[0], getInput());
  return success();
}

//===----------------------------------------------------------------------===//
// Normalisations
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                  SmallVectorImpl<Value> &operandGradients) {
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
  if (!isFloatTensor(getInput()) || !isFloatTensor(getResult()))
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
  if (!isFloatTensor(getInput()))
    return success();
  Location loc = getLoc();
  Value g = resultGradients[0];
  RankedTensorType in = getInput().getType();
  ArrayRef<int64_t> offsets = getOffsets(), sizes = getSizes(),
                    strides = getStrides();
  // Along a strided dimension element i came from offset + i * stride:
  // scatter it back there. The other dimensions are a window: pad g with
  // zeros back to the input's extent.
  SmallVector<int64_t> low, high;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t n = in.getDimSize(d);
    if (strides[d] != 1) {
      SmallVector<int64_t> src;
      for (int64_t i = 0; i < sizes[d]; ++i)
        src.push_back(offsets[d] + i * strides[d]);
      g = b.create<ScatterAddOp>(loc, g, indexConstant(b, loc, src), d, n);
      low.push_back(0);
      high.push_back(0);
      continue;
    }
    // An empty slice may have any offset.
    low.push_back(std::clamp<int64_t>(offsets[d], 0, n - sizes[d]));
    high.push_back(n - low.back() - sizes[d]);
  }
  if (llvm::any_of(low, [](int64_t v) { return v != 0; }) ||
      llvm::any_of(high, [](int64_t v) { return v != 0; }))
    g = b.create<PadOp>(
        loc, g, b.getDenseI64ArrayAttr(low), b.getDenseI64ArrayAttr(high),
        PadModeAttr::get(b.getContext(), PadMode::Constant), TypedAttr());
  operandGradients[0] = g;
  return success();
}

LogicalResult GatherOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                 SmallVectorImpl<Value> &operandGradients) {
  if (!isFloatTensor(getData()))
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
  // Each update lands on one row: its gradient is that row's.
  operandGradients[0] =
      b.create<GatherOp>(getLoc(), resultGradients[0], getIndices(), getAxis());
  return success();
}

LogicalResult SplitOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                SmallVectorImpl<Value> &operandGradients) {
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

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// `g` (`[N, C, O...]`) placed on a zero tensor whose spatial dimensions
/// (from 2 on) have extents `target`: element `o` of spatial dimension `i`
/// lands at `low[i] + o * strides[i]`; what lands outside `[0, target)` is
/// dropped. Built from reshape, pad and slice: the transpose of reading a
/// window position of every strided window.
static Value placeStrided(OpBuilder &b, Location loc, Value g,
                          ArrayRef<int64_t> strides, ArrayRef<int64_t> low,
                          ArrayRef<int64_t> target) {
  auto type = cast<RankedTensorType>(g.getType());
  int64_t rank = type.getRank();
  size_t spatial = rank - 2;
  // Interleave zeros: [N, C, O1, 1, O2, 1, ...] padded to [.., O1, s1, ..]
  // and merged, so that element o sits at o * s.
  SmallVector<int64_t> lengths;
  for (size_t i = 0; i < spatial; ++i)
    lengths.push_back(type.getDimSize(2 + i) * strides[i]);
  if (llvm::any_of(strides, [](int64_t s) { return s != 1; })) {
    SmallVector<int64_t> split(type.getShape().take_front(2)), padHigh(2, 0);
    for (size_t i = 0; i < spatial; ++i) {
      split.append({type.getDimSize(2 + i), 1});
      padHigh.append({0, strides[i] - 1});
    }
    Value v = b.create<ReshapeOp>(loc, g, b.getDenseI64ArrayAttr(split));
    v = b.create<PadOp>(
        loc, v, b.getDenseI64ArrayAttr(SmallVector<int64_t>(padHigh.size(), 0)),
        b.getDenseI64ArrayAttr(padHigh),
        PadModeAttr::get(b.getContext(), PadMode::Constant), TypedAttr());
    SmallVector<int64_t> merged(type.getShape().take_front(2));
    llvm::append_range(merged, lengths);
    g = b.create<ReshapeOp>(loc, v, b.getDenseI64ArrayAttr(merged));
  }
  // Shift by `low` and fit to `target`: pad what is missing, then slice.
  SmallVector<int64_t> padLow(2, 0), padHigh(2, 0), offsets(2, 0),
      sizes(type.getShape().take_front(2)), ones(rank, 1);
  bool pad = false, slice = false;
  for (size_t i = 0; i < spatial; ++i) {
    int64_t lo = std::max<int64_t>(low[i], 0);
    int64_t hi = std::max<int64_t>(target[i] - lengths[i] - low[i], 0);
    padLow.push_back(lo);
    padHigh.push_back(hi);
    offsets.push_back(std::max<int64_t>(-low[i], 0));
    sizes.push_back(target[i]);
    pad |= lo || hi;
    slice |= offsets.back() || lo + lengths[i] + hi != target[i];
  }
  if (pad)
    g = b.create<PadOp>(
        loc, g, b.getDenseI64ArrayAttr(padLow), b.getDenseI64ArrayAttr(padHigh),
        PadModeAttr::get(b.getContext(), PadMode::Constant), TypedAttr());
  if (slice)
    g = b.create<SliceOp>(loc, g, b.getDenseI64ArrayAttr(offsets),
                          b.getDenseI64ArrayAttr(sizes),
                          b.getDenseI64ArrayAttr(ones));
  return g;
}

LogicalResult Conv2dOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                 SmallVectorImpl<Value> &operandGradients) {
  Location loc = getLoc();
  Value g = resultGradients[0], x = getInput(), w = getFilter();
  RankedTensorType xt = getInput().getType(), wt = getFilter().getType();
  int64_t n = xt.getDimSize(0), c = xt.getDimSize(1), o = wt.getDimSize(0);
  int64_t groups = getGroups(), cg = c / groups, og = o / groups;
  ArrayRef<int64_t> strides = getStrides(), pads = getPadding(),
                    dilations = getDilations();
  int64_t kh = wt.getDimSize(2), kw = wt.getDimSize(3);
  auto i64s = [&](ArrayRef<int64_t> v) { return b.getDenseI64ArrayAttr(v); };

  // d input: g scattered back through every window. Placing g at its
  // windows' strided starts (shifted by the kernel's span less the
  // leading padding) and correlating with the filter flipped in space
  // and transposed per group ([C, O / groups, KH, KW]) is that sum.
  SmallVector<int64_t> low, target;
  for (int i = 0; i < 2; ++i) {
    int64_t span = (wt.getDimSize(2 + i) - 1) * dilations[i];
    low.push_back(span - pads[i]);
    target.push_back(xt.getDimSize(2 + i) + span);
  }
  Value placed = placeStrided(b, loc, g, strides, low, target);
  Value wg = b.create<ReshapeOp>(loc, w, i64s({groups, og, cg, kh, kw}));
  wg = b.create<TransposeOp>(loc, wg, i64s({0, 2, 1, 3, 4}));
  wg = b.create<ReshapeOp>(loc, wg, i64s({c, og, kh, kw}));
  wg = b.create<SliceOp>(loc, wg, i64s({0, 0, kh - 1, kw - 1}),
                         i64s({c, og, kh, kw}), i64s({1, 1, -1, -1}));
  operandGradients[0] = b.create<Conv2dOp>(
      loc, placed, wg, Value(), i64s({1, 1}), i64s({0, 0, 0, 0}),
      i64s(dilations), b.getI64IntegerAttr(groups));

  // d filter: the input correlated with g, batch and channels swapped
  // ([C / groups, groups * N, H, W] against [O, N, OH, OW]), strides and
  // dilations swapped; trailing rows the windows never reached are cut.
  Value xs = b.create<ReshapeOp>(
      loc, x, i64s({n, groups, cg, xt.getDimSize(2), xt.getDimSize(3)}));
  xs = b.create<TransposeOp>(loc, xs, i64s({2, 1, 0, 3, 4}));
  xs = b.create<ReshapeOp>(
      loc, xs, i64s({cg, groups * n, xt.getDimSize(2), xt.getDimSize(3)}));
  Value gs = b.create<TransposeOp>(loc, g, i64s({1, 0, 2, 3}));
  Value dw =
      b.create<Conv2dOp>(loc, xs, gs, Value(), i64s(dilations), i64s(pads),
                         i64s(strides), b.getI64IntegerAttr(groups));
  auto dwt = cast<RankedTensorType>(dw.getType());
  if (dwt.getDimSize(2) != kh || dwt.getDimSize(3) != kw)
    dw = b.create<SliceOp>(loc, dw, i64s({0, 0, 0, 0}), i64s({cg, o, kh, kw}),
                           i64s({1, 1, 1, 1}));
  operandGradients[1] = b.create<TransposeOp>(loc, dw, i64s({1, 0, 2, 3}));

  if (getBias())
    operandGradients[2] =
        b.create<ReduceSumOp>(loc, g, i64s({0, 2, 3}), b.getBoolAttr(false));
  return success();
}

/// The gradient of a max pool with the positions of its maxima
/// (`indices`, row-major in each `[spatial...]` plane, -1 for a window
/// over no input): each result gradient added at its maximum, through one
/// scatter over the flattened input.
static Value maxPoolGradient(OpBuilder &b, Location loc, Value g, Value indices,
                             RankedTensorType input, const PoolWindow &window) {
  auto gt = cast<RankedTensorType>(g.getType());
  if (input.getNumElements() == 0)
    return b.create<ConstantOp>(
        loc, DenseElementsAttr::get(input,
                                    b.getFloatAttr(input.getElementType(), 0)));
  int64_t n = input.getDimSize(0), c = input.getDimSize(1);
  int64_t plane = 1, outputs = 1;
  for (int64_t d = 2; d < input.getRank(); ++d) {
    plane *= input.getDimSize(d);
    outputs *= gt.getDimSize(d);
  }
  Type i64 = b.getI64Type();
  // Plane p = n * C + c starts at p * plane in the flattened input.
  Value starts = b.create<RangeOp>(loc, b.getI64IntegerAttr(0),
                                   b.getI64IntegerAttr(n * c * plane),
                                   b.getI64IntegerAttr(plane));
  SmallVector<int64_t> startShape{n, c};
  startShape.append(gt.getRank() - 2, 1);
  starts = b.create<ReshapeOp>(loc, starts, b.getDenseI64ArrayAttr(startShape));
  Value flat = b.create<AddOp>(loc, indices, starts);
  // A window over no input (possible only with dilation) has index -1:
  // its gradient goes nowhere.
  if (llvm::any_of(window.dilations, [](int64_t d) { return d != 1; })) {
    Value zero = b.create<ConstantOp>(
        loc, DenseElementsAttr::get(RankedTensorType::get({}, i64),
                                    b.getIntegerAttr(i64, 0)));
    g = select(b, loc, CompareDirection::GE, indices, zero, g,
               scalarLike(b, loc, g, 0));
  }
  int64_t count = n * c * outputs;
  flat = b.create<ReshapeOp>(loc, flat, b.getDenseI64ArrayAttr({count}));
  g = b.create<ReshapeOp>(loc, g, b.getDenseI64ArrayAttr({count}));
  Value dx = b.create<ScatterAddOp>(loc, g, flat, int64_t(0), n * c * plane);
  return b.create<ReshapeOp>(loc, dx, b.getDenseI64ArrayAttr(input.getShape()));
}

LogicalResult MaxPoolOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                  SmallVectorImpl<Value> &operandGradients) {
  if (!isFloatTensor(getInput()))
    return success();
  // The same pool with the positions of its maxima (the first of equal
  // maxima wins).
  auto withIndices = b.create<MaxPoolWithIndicesOp>(
      getLoc(), getInput(), getKernelAttr(), getStridesAttr(), getPaddingAttr(),
      getDilationsAttr(), getCeilModeAttr(),
      IndexOrderAttr::get(b.getContext(), IndexOrder::RowMajor));
  operandGradients[0] =
      maxPoolGradient(b, getLoc(), resultGradients[0], withIndices.getIndices(),
                      getInput().getType(), getWindow());
  return success();
}

LogicalResult
MaxPoolWithIndicesOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                               SmallVectorImpl<Value> &operandGradients) {
  if (!isFloatTensor(getInput()))
    return success();
  Value indices = getIndices();
  if (getOrder() != IndexOrder::RowMajor)
    indices = b.create<MaxPoolWithIndicesOp>(
                   getLoc(), getInput(), getKernelAttr(), getStridesAttr(),
                   getPaddingAttr(), getDilationsAttr(), getCeilModeAttr(),
                   IndexOrderAttr::get(b.getContext(), IndexOrder::RowMajor))
                  .getIndices();
  operandGradients[0] = maxPoolGradient(
      b, getLoc(), resultGradients[0], indices,
      cast<RankedTensorType>(getInput().getType()), getWindow());
  return success();
}

LogicalResult AvgPoolOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                  SmallVectorImpl<Value> &operandGradients) {
  Location loc = getLoc();
  RankedTensorType in = getInput().getType();
  auto out = cast<RankedTensorType>(getResult().getType());
  PoolWindow w = getWindow();
  size_t spatial = w.rank();
  // g over each window's divisor: a constant [1, 1, O...] of reciprocals
  // (0 for a window over no input, whose gradient reaches nothing).
  SmallVector<SmallVector<int64_t>> counts;
  SmallVector<int64_t> outShape{1, 1};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t outputs = out.getDimSize(2 + i);
    outShape.push_back(outputs);
    counts.push_back(w.averageCounts(i, outputs, in.getDimSize(2 + i),
                                     getCountIncludePad()));
  }
  auto scaleType = RankedTensorType::get(outShape, in.getElementType());
  SmallVector<APFloat> scales;
  auto semantics = &cast<FloatType>(in.getElementType()).getFloatSemantics();
  for (int64_t flat = 0; flat < scaleType.getNumElements(); ++flat) {
    int64_t rest = flat, count = 1;
    for (size_t i = spatial; i-- > 0;) {
      count *= counts[i][rest % outShape[2 + i]];
      rest /= outShape[2 + i];
    }
    APFloat v(count ? 1.0 / double(count) : 0.0);
    bool lost;
    v.convert(*semantics, APFloat::rmNearestTiesToEven, &lost);
    scales.push_back(v);
  }
  Value g =
      mul(b, loc, resultGradients[0],
          b.create<ConstantOp>(loc, DenseElementsAttr::get(scaleType, scales)));
  // Each window position k reads input o * stride + k * dilation - pad:
  // place g there, for every k, and add up.
  SmallVector<int64_t> target;
  for (size_t i = 0; i < spatial; ++i)
    target.push_back(in.getDimSize(2 + i));
  SmallVector<int64_t> k(spatial, 0);
  Value sum;
  while (true) {
    SmallVector<int64_t> low;
    for (size_t i = 0; i < spatial; ++i)
      low.push_back(k[i] * w.dilations[i] - w.padding[i]);
    Value placed = placeStrided(b, loc, g, w.strides, low, target);
    sum = sum ? Value(b.create<AddOp>(loc, sum, placed)) : placed;
    size_t i = spatial;
    while (i > 0 && ++k[i - 1] == w.kernel[i - 1])
      k[--i] = 0;
    if (i == 0)
      break;
  }
  operandGradients[0] = sum;
  return success();
}

LogicalResult
GlobalAvgPool2dOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                            SmallVectorImpl<Value> &operandGradients) {
  Location loc = getLoc();
  RankedTensorType in = getInput().getType();
  double count = double(in.getDimSize(2) * in.getDimSize(3));
  Value g = b.create<DivOp>(loc, resultGradients[0],
                            scalarLike(b, loc, resultGradients[0], count));
  operandGradients[0] =
      b.create<BroadcastToOp>(loc, g, b.getDenseI64ArrayAttr(in.getShape()));
  return success();
}

LogicalResult
GlobalMaxPool2dOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                            SmallVectorImpl<Value> &operandGradients) {
  return extremeVJP(*this, b, getInput(), getResult(), {2, 3}, resultGradients,
                    operandGradients);
}

//===----------------------------------------------------------------------===//
// Normalisation and data movement with a fixed index map
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                    SmallVectorImpl<Value> &operandGradients) {
  Location loc = getLoc();
  Value g = resultGradients[0];
  RankedTensorType type = getInput().getType();
  // The per-channel operands as [1, C, 1...], and the sum over all but
  // the channel dimension back to [C].
  SmallVector<int64_t> channelShape(type.getRank(), 1), others;
  channelShape[1] = type.getDimSize(1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != 1)
      others.push_back(d);
  auto perChannel = [&](Value v) -> Value {
    return b.create<ReshapeOp>(loc, v, b.getDenseI64ArrayAttr(channelShape));
  };
  auto sum = [&](Value v) -> Value {
    return b.create<ReduceSumOp>(loc, v, b.getDenseI64ArrayAttr(others),
                                 b.getBoolAttr(false));
  };
  // y = (x - mean) * rstd * scale + bias, rstd = 1 / sqrt(var + epsilon).
  Value rstd = b.create<RsqrtOp>(
      loc,
      b.create<AddOp>(loc, getVariance(),
                      scalarLike(b, loc, g, getEpsilon().convertToDouble())));
  Value scaled = mul(b, loc, rstd, getScale());
  Value centered = b.create<SubOp>(loc, getInput(), perChannel(getMean()));
  Value gSum = sum(g);
  Value gCentered = sum(mul(b, loc, g, centered));
  operandGradients[0] = mul(b, loc, g, perChannel(scaled));
  operandGradients[1] = mul(b, loc, gCentered, rstd);
  operandGradients[2] = gSum;
  operandGradients[3] = b.create<NegOp>(loc, mul(b, loc, gSum, scaled));
  // d/dvar = -0.5 sum(g (x - mean)) scale rstd^3
  operandGradients[4] =
      mul(b, loc, mul(b, loc, gCentered, scaled),
          mul(b, loc, mul(b, loc, rstd, rstd), scalarLike(b, loc, g, -0.5)));
  return success();
}

LogicalResult PadOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                              SmallVectorImpl<Value> &operandGradients) {
  if (!isFloatTensor(getInput()))
    return success();
  Location loc = getLoc();
  Value g = resultGradients[0];
  RankedTensorType in = getInput().getType();
  int64_t rank = in.getRank();
  ArrayRef<int64_t> low = getLow(), high = getHigh();
  if (getMode() == PadMode::Constant) {
    // The padding is constant: the input's part of g.
    operandGradients[0] = b.create<SliceOp>(
        loc, g, b.getDenseI64ArrayAttr(low),
        b.getDenseI64ArrayAttr(in.getShape()),
        b.getDenseI64ArrayAttr(SmallVector<int64_t>(rank, 1)));
    return success();
  }
  // Reflect, edge and wrap padding read, along each dimension, input
  // position src(j) at output position j: a gather along the dimension
  // with fixed indices, whose gradient scatters back.
  for (int64_t d = 0; d < rank; ++d) {
    if (!low[d] && !high[d])
      continue;
    int64_t n = in.getDimSize(d);
    SmallVector<int64_t> src;
    for (int64_t j = 0; j < low[d] + n + high[d]; ++j) {
      int64_t p = j - low[d];
      switch (getMode()) {
      case PadMode::Reflect:
        p = p < 0 ? -p : (p >= n ? 2 * (n - 1) - p : p);
        break;
      case PadMode::Edge:
        p = std::clamp<int64_t>(p, 0, n - 1);
        break;
      case PadMode::Wrap:
        p = ((p % n) + n) % n;
        break;
      case PadMode::Constant:
        break;
      }
      src.push_back(p);
    }
    g = b.create<ScatterAddOp>(loc, g, indexConstant(b, loc, src), d, n);
  }
  operandGradients[0] = g;
  return success();
}

LogicalResult TriluOp::buildVJP(OpBuilder &b, ValueRange resultGradients,
                                SmallVectorImpl<Value> &operandGradients) {
  if (!isFloatTensor(getInput()))
    return success();
  // Linear: the gradient keeps the same triangle.
  operandGradients[0] = b.create<TriluOp>(getLoc(), resultGradients[0],
                                          getUpperAttr(), getKAttr());
  return success();
}
