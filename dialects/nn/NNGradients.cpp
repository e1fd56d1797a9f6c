//===- NNGradients.cpp - Vector-Jacobian products of nn ops ---------------===//
//
// Each buildVJP builds, from the gradient `g` of the op's result, the
// gradients of its floating-point operands out of other nn ops (so they are
// sharded, lowered and differentiated like any other op). Operands that were
// broadcast get the sum of the gradient over the broadcast dimensions.
//
// This file: the elementwise ops, reductions, matmul, casts and data
// movement, and the helpers NNGradientUtils.h shares; NNLayerGradients.cpp
// has the normalisations, losses, convolution and pools.
//
//===----------------------------------------------------------------------===//

#include "NNGradientUtils.h"
#include "mlir/IR/Builders.h"
#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace loom;
using namespace loom::nn;
using namespace loom::nn::vjp;

namespace {
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
} // namespace

bool vjp::isFloatTensor(Value v) {
  return isa<FloatType>(cast<ShapedType>(v.getType()).getElementType());
}

Value vjp::scalar(OpBuilder &b, Location loc, Type element, double value) {
  auto type = RankedTensorType::get({}, element);
  return b.create<ConstantOp>(
      loc, DenseElementsAttr::get(type, b.getFloatAttr(element, value)));
}

Value vjp::scalarLike(OpBuilder &b, Location loc, Value like, double value) {
  return scalar(b, loc, cast<ShapedType>(like.getType()).getElementType(),
                value);
}

Value vjp::grad(OpBuilder &b, Location loc, Value g, Value operand) {
  return sumToShape(b, loc, g, cast<RankedTensorType>(operand.getType()));
}

Value vjp::mul(OpBuilder &b, Location loc, Value x, Value y) {
  return b.create<MulOp>(loc, x, y);
}

Value vjp::select(OpBuilder &b, Location loc, CompareDirection d, Value x,
                  Value y, Value onTrue, Value onFalse) {
  Value cond = b.create<CompareOp>(
      loc, CompareDirectionAttr::get(b.getContext(), d), x, y);
  return b.create<WhereOp>(loc, cond, onTrue, onFalse);
}

namespace {
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
NN_UNARY_VJP(CosOp, {
  return b.create<NegOp>(loc, mul(b, loc, g, b.create<SinOp>(loc, x)));
})
NN_UNARY_VJP(SinOp, { return mul(b, loc, g, b.create<CosOp>(loc, x)); })
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
// Ties go to the left operand, except that a constant bound takes them: the
// gradient of max(x, 0) and of a Clip is zero at the bound, as PyTorch's
// relu, hardtanh and ReLU6 have it (ties there are common after a ReLU).
static bool tiesGoRight(Value x, Value y) {
  return y.getDefiningOp<ConstantOp>() && !x.getDefiningOp<ConstantOp>();
}
NN_BINARY_VJP(MaxOp, {
  Value zero = scalarLike(b, loc, x, 0);
  CompareDirection d =
      tiesGoRight(x, y) ? CompareDirection::GT : CompareDirection::GE;
  return {select(b, loc, d, x, y, g, zero), select(b, loc, d, x, y, zero, g)};
})
NN_BINARY_VJP(MinOp, {
  Value zero = scalarLike(b, loc, x, 0);
  CompareDirection d =
      tiesGoRight(x, y) ? CompareDirection::LT : CompareDirection::LE;
  return {select(b, loc, d, x, y, g, zero), select(b, loc, d, x, y, zero, g)};
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

LogicalResult vjp::extremeVJP(Operation *op, OpBuilder &b, Value input,
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
// Casts and data movement
//===----------------------------------------------------------------------===//

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
