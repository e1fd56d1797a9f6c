//===- Reductions.cpp - Reductions and normalisations to linalg -----------===//
//
// Reductions become `linalg.reduce` whose adds carry `reassoc`, so that
// LLVM vectorises them; softmax, log_softmax and layer_norm read their
// input three times and write nothing of its size in between; halves
// accumulate in f32.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace loom;
using namespace loom::nn;
using namespace loom::nn_to_linalg;

namespace {

/// Reduces `input` over `axes` with `combine`, starting from `init`; the
/// result drops the reduced dimensions.
Value reduce(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
    TypedAttr init,
    llvm::function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  RankedTensorType t = tensorType(input);
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < t.getRank(); ++i)
    if (!llvm::is_contained(axes, i))
      shape.push_back(t.getDimSize(i));
  auto resultType = RankedTensorType::get(shape, init.getType());
  Value acc = filledTensor(b, loc, resultType, init);
  auto op = b.create<linalg::ReduceOp>(
      loc, input, acc, axes,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        nb.create<linalg::YieldOp>(nloc, combine(nb, nloc, args[0], args[1]));
      });
  return op.getResult(0);
}

/// Sums over `axes`, accumulating in the compute type (f32 for halves,
/// whose 8- or 11-bit mantissas stop growing after 256 or 2048 ones); the
/// result has the compute type.
Value reduceSum(OpBuilder &b, Location loc, Value input,
                ArrayRef<int64_t> axes) {
  Type et = tensorType(input).getElementType();
  Type ct = computeType(et);
  if (ct != et)
    input = mapWithStats(b, loc, input, {}, {}, {}, {}, ct,
                         [](OpBuilder &nb, Location l, ValueRange a) {
                           return toCompute(nb, l, a[0]);
                         });
  return reduce(b, loc, input, axes, cast<TypedAttr>(b.getZeroAttr(ct)),
                [](OpBuilder &nb, Location l, Value x, Value acc) {
                  return addValues(nb, l, x, acc, /*reassoc=*/true);
                });
}

Value reduceMax(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> axes,
                bool u = false) {
  Type et = tensorType(input).getElementType();
  return reduce(b, loc, input, axes, extremeAttr(b, et, /*lowest=*/true, u),
                [u](OpBuilder &nb, Location l, Value x, Value acc) {
                  return maxValues(nb, l, x, acc, u);
                });
}

/// Softmax statistics along `axis`: the row maximum (0 for a row of -inf,
/// which would otherwise give inf - inf = NaN) in the storage type, and
/// sum(exp(x - max)) in the compute type, both lacking the axis. The sum is
/// one reduction that computes exp on the fly, so x is read three times in
/// all (max, sum, result) and nothing of x's size is written in between.
std::pair<Value, Value> softmaxParts(OpBuilder &b, Location loc, Value x,
                                     int64_t axis) {
  RankedTensorType t = tensorType(x);
  Type et = t.getElementType(), ct = computeType(et);
  int64_t rank = t.getRank();
  Value rawMax = reduceMax(b, loc, x, {axis});
  Value m = mapWithStats(
      b, loc, rawMax, {}, {}, {}, {}, et,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value isInf = nb.create<arith::CmpFOp>(
            l, arith::CmpFPredicate::OEQ, a[0],
            nb.create<arith::ConstantOp>(l, extremeAttr(nb, et, true)));
        return nb.create<arith::SelectOp>(l, isInf, zeroOf(nb, l, et), a[0]);
      });
  SmallVector<int64_t> rowShape;
  for (int64_t i = 0; i < rank; ++i)
    if (i != axis)
      rowShape.push_back(t.getDimSize(i));
  auto sumType = RankedTensorType::get(rowShape, ct);
  Value init =
      filledTensor(b, loc, sumType, cast<TypedAttr>(b.getZeroAttr(ct)));
  AffineMap row = projectionMap(b, rank, [&](int64_t i) { return i != axis; });
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(rank), row, row};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators[axis] = utils::IteratorType::reduction;
  Value sum = b.create<linalg::GenericOp>(
                   loc, sumType, ValueRange{x, m}, init, maps, iterators,
                   [&](OpBuilder &nb, Location l, ValueRange a) {
                     Value e = nb.create<math::ExpOp>(
                         l, nb.create<arith::SubFOp>(l, toCompute(nb, l, a[0]),
                                                     toCompute(nb, l, a[1])));
                     nb.create<linalg::YieldOp>(
                         l, addValues(nb, l, a[2], e, /*reassoc=*/true));
                   })
                  .getResult(0);
  return {m, sum};
}

/// Reductions; keepdims reinserts the reduced dimensions as 1s.
template <typename OpTy> struct ReduceLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  virtual Value reduceAxes(OpBuilder &b, Location loc, Value x,
                           ArrayRef<int64_t> axes, bool u) const = 0;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Value r = reduceAxes(rewriter, op.getLoc(), op.getInput(), op.getAxes(),
                         isUnsigned(op));
    rewriter.replaceOp(
        op, reshapeTo(rewriter, op.getLoc(), r, resultType.getShape()));
    return success();
  }
};

struct ReduceSumLowering : ReduceLowering<ReduceSumOp> {
  using ReduceLowering::ReduceLowering;
  Value reduceAxes(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes,
                   bool u) const override {
    return truncateTo(b, loc, reduceSum(b, loc, x, axes),
                      tensorType(x).getElementType());
  }
};

struct ReduceMaxLowering : ReduceLowering<ReduceMaxOp> {
  using ReduceLowering::ReduceLowering;
  Value reduceAxes(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes,
                   bool u) const override {
    return reduceMax(b, loc, x, axes, u);
  }
};

struct ReduceMinLowering : ReduceLowering<ReduceMinOp> {
  using ReduceLowering::ReduceLowering;
  Value reduceAxes(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes,
                   bool u) const override {
    Type et = tensorType(x).getElementType();
    return reduce(b, loc, x, axes, extremeAttr(b, et, /*lowest=*/false, u),
                  [u](OpBuilder &nb, Location l, Value v, Value acc) {
                    return minValues(nb, l, v, acc, u);
                  });
  }
};

/// The mean over `axes`, in the storage type or, with `keepCompute`, in the
/// compute type.
Value reduceMean(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes,
                 bool keepCompute = false) {
  RankedTensorType t = tensorType(x);
  Type et = t.getElementType();
  Type rt = keepCompute ? computeType(et) : et;
  int64_t count = 1;
  for (int64_t a : axes)
    count *= t.getDimSize(a);
  Value sum = reduceSum(b, loc, x, axes);
  return mapWithStats(
      b, loc, sum, {}, {}, {}, {}, rt,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value v = nb.create<arith::DivFOp>(
            l, a[0],
            floatConst(nb, l, a[0].getType(), static_cast<double>(count)));
        return fromCompute(nb, l, v, rt);
      });
}

struct ReduceMeanLowering : ReduceLowering<ReduceMeanOp> {
  using ReduceLowering::ReduceLowering;
  Value reduceAxes(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> axes,
                   bool u) const override {
    return reduceMean(b, loc, x, axes);
  }
};

/// Global pools reduce the spatial dimensions of NCHW, keeping them as 1s.
template <typename OpTy> struct GlobalPoolLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Value r = std::is_same_v<OpTy, GlobalMaxPool2dOp>
                  ? reduceMax(rewriter, op.getLoc(), op.getInput(), {2, 3},
                              isUnsigned(op))
                  : reduceMean(rewriter, op.getLoc(), op.getInput(), {2, 3});
    rewriter.replaceOp(
        op, reshapeTo(rewriter, op.getLoc(), r, resultType.getShape()));
    return success();
  }
};

struct SoftmaxLowering : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    Type et = tensorType(op.getInput()).getElementType();
    auto [max, sum] = softmaxParts(rewriter, loc, op.getInput(), axis);
    Value r =
        mapWithStats(rewriter, loc, op.getInput(), ValueRange{max, sum}, {axis},
                     {}, {}, et, [&](OpBuilder &b, Location l, ValueRange a) {
                       Value e = b.create<math::ExpOp>(
                           l, b.create<arith::SubFOp>(l, toCompute(b, l, a[0]),
                                                      toCompute(b, l, a[1])));
                       Value v = b.create<arith::DivFOp>(l, e, a[2]);
                       return fromCompute(b, l, v, et);
                     });
    rewriter.replaceOp(op, r);
    return success();
  }
};

Value logSoftmax(OpBuilder &b, Location loc, Value x, int64_t axis) {
  Type et = tensorType(x).getElementType();
  auto [max, sum] = softmaxParts(b, loc, x, axis);
  return mapWithStats(b, loc, x, ValueRange{max, sum}, {axis}, {}, {}, et,
                      [&](OpBuilder &nb, Location l, ValueRange a) {
                        Value shifted = nb.create<arith::SubFOp>(
                            l, toCompute(nb, l, a[0]), toCompute(nb, l, a[1]));
                        Value v = nb.create<arith::SubFOp>(
                            l, shifted, nb.create<math::LogOp>(l, a[2]));
                        return fromCompute(nb, l, v, et);
                      });
}

struct LogSoftmaxLowering : OpRewritePattern<LogSoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LogSoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, logSoftmax(rewriter, op.getLoc(), op.getInput(), op.getAxis()));
    return success();
  }
};

struct LayerNormLowering : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    RankedTensorType t = tensorType(x);
    Type et = t.getElementType();
    int64_t rank = t.getRank(), axis = op.getAxis();
    SmallVector<int64_t> axes;
    for (int64_t i = axis; i < rank; ++i)
      axes.push_back(i);
    Value mean = reduceMean(rewriter, loc, x, axes, /*keepCompute=*/true);
    // sum((x - mean)^2) in one reduction: nothing of x's size is written
    // before the result.
    Type ct = computeType(et);
    int64_t count = 1;
    for (int64_t a : axes)
      count *= t.getDimSize(a);
    auto rowType = cast<RankedTensorType>(mean.getType());
    Value init = filledTensor(rewriter, loc, rowType,
                              cast<TypedAttr>(rewriter.getZeroAttr(ct)));
    AffineMap row =
        projectionMap(rewriter, rank, [&](int64_t i) { return i < axis; });
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    for (int64_t i : axes)
      iterators[i] = utils::IteratorType::reduction;
    Value squares =
        rewriter
            .create<linalg::GenericOp>(
                loc, rowType, ValueRange{x, mean}, init,
                ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank), row,
                                    row},
                iterators,
                [&](OpBuilder &b, Location l, ValueRange a) {
                  Value d =
                      b.create<arith::SubFOp>(l, toCompute(b, l, a[0]), a[1]);
                  Value sq = b.create<arith::MulFOp>(l, d, d);
                  b.create<linalg::YieldOp>(
                      l, addValues(b, l, a[2], sq, /*reassoc=*/true));
                })
            .getResult(0);
    AffineMap trailing =
        projectionMap(rewriter, rank, [&](int64_t i) { return i >= axis; });
    SmallVector<Value> extras;
    SmallVector<AffineMap> extraMaps;
    if (op.getScale()) {
      extras.push_back(op.getScale());
      extraMaps.push_back(trailing);
    }
    if (op.getBias()) {
      extras.push_back(op.getBias());
      extraMaps.push_back(trailing);
    }
    double eps = op.getEpsilon().convertToDouble();
    bool hasScale = op.getScale() != nullptr;
    bool hasBias = op.getBias() != nullptr;
    Value r = mapWithStats(
        rewriter, loc, x, ValueRange{mean, squares}, axes, extras, extraMaps,
        et, [&](OpBuilder &b, Location l, ValueRange a) {
          Value var = b.create<arith::MulFOp>(
              l, a[2], floatConst(b, l, ct, 1.0 / static_cast<double>(count)));
          Value inv = b.create<math::RsqrtOp>(
              l, b.create<arith::AddFOp>(l, var, floatConst(b, l, ct, eps)));
          Value v = b.create<arith::MulFOp>(
              l, b.create<arith::SubFOp>(l, toCompute(b, l, a[0]), a[1]), inv);
          unsigned next = 3;
          if (hasScale)
            v = b.create<arith::MulFOp>(l, v, toCompute(b, l, a[next++]));
          if (hasBias)
            v = b.create<arith::AddFOp>(l, v, toCompute(b, l, a[next++]));
          return fromCompute(b, l, v, et);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct BatchNormLowering : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType t = tensorType(op.getInput());
    Type et = t.getElementType();
    int64_t rank = t.getRank();
    AffineMap channel = AffineMap::get(rank, 0, rewriter.getAffineDimExpr(1),
                                       rewriter.getContext());
    double eps = op.getEpsilon().convertToDouble();
    SmallVector<Value> extras{op.getScale(), op.getBias(), op.getMean(),
                              op.getVariance()};
    SmallVector<AffineMap> maps(4, channel);
    Value r = mapWithStats(
        rewriter, loc, op.getInput(), {}, {}, extras, maps, et,
        [&](OpBuilder &b, Location l, ValueRange a) {
          SmallVector<Value> v;
          for (Value x : a)
            v.push_back(toCompute(b, l, x));
          Type ct = v[0].getType();
          Value inv = b.create<math::RsqrtOp>(
              l, b.create<arith::AddFOp>(l, v[4], floatConst(b, l, ct, eps)));
          Value y =
              b.create<arith::MulFOp>(l, b.create<arith::SubFOp>(l, v[0], v[3]),
                                      b.create<arith::MulFOp>(l, inv, v[1]));
          return fromCompute(b, l, b.create<arith::AddFOp>(l, y, v[2]), et);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct CrossEntropyLowering : OpRewritePattern<CrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CrossEntropyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value labels = op.getLabels();
    RankedTensorType lt = tensorType(op.getLogits()),
                     labelType = tensorType(labels);
    Type et = lt.getElementType(), ct = computeType(et);
    int64_t axis = op.getClassAxis(), rank = labelType.getRank();
    int64_t classes = lt.getDimSize(axis);
    if (classes == 0 && labelType.getNumElements() != 0)
      return rewriter.notifyMatchFailure(op, "no classes");
    Value lsm = logSoftmax(rewriter, loc, op.getLogits(), axis);
    std::optional<int64_t> ignore = op.getIgnoreIndex();
    // One pass over the labels accumulates the loss and the count.
    auto scalarType = RankedTensorType::get({}, ct);
    Value zero = filledTensor(rewriter, loc, scalarType,
                              cast<TypedAttr>(rewriter.getZeroAttr(ct)));
    SmallVector<AffineMap> maps{
        rewriter.getMultiDimIdentityMap(rank),
        AffineMap::get(rank, 0, {}, rewriter.getContext()),
        AffineMap::get(rank, 0, {}, rewriter.getContext())};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::reduction);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{scalarType, scalarType}, labels, ValueRange{zero, zero},
        maps, iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value label = args[0];
          Value valid = b.create<arith::ConstantIntOp>(l, 1, 1);
          if (ignore)
            valid = b.create<arith::CmpIOp>(
                l, arith::CmpIPredicate::ne, label,
                intConst(b, l, label.getType(), *ignore));
          Value cls = clampIndex(b, l, label, classes, /*wrapNegative=*/false);
          SmallVector<Value> coords;
          for (int64_t i = 0; i < rank; ++i) {
            if (i == axis)
              coords.push_back(cls);
            coords.push_back(b.create<linalg::IndexOp>(l, i));
          }
          if (axis == rank)
            coords.push_back(cls);
          Value v = toCompute(
              b, l, b.create<tensor::ExtractOp>(l, lsm, coords).getResult());
          Value zeroC = floatConst(b, l, ct, 0.0);
          Value loss = b.create<arith::SelectOp>(
              l, valid, b.create<arith::NegFOp>(l, v), zeroC);
          Value one = b.create<arith::SelectOp>(
              l, valid, floatConst(b, l, ct, 1.0), zeroC);
          auto sum = b.create<arith::AddFOp>(l, args[1], loss);
          sum.setFastmathAttr(reductionFlags(b));
          auto count = b.create<arith::AddFOp>(l, args[2], one);
          b.create<linalg::YieldOp>(l, ValueRange{sum, count});
        });
    auto resultType = cast<RankedTensorType>(op.getType());
    Value r = buildElementwise(
        rewriter, loc, resultType,
        ValueRange{generic.getResult(0), generic.getResult(1)},
        [&](OpBuilder &b, Location l, ValueRange a) {
          return fromCompute(b, l, b.create<arith::DivFOp>(l, a[0], a[1]), et);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void loom::nn_to_linalg::populateNNToLinalgReductionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ReduceSumLowering, ReduceMaxLowering, ReduceMinLowering,
               ReduceMeanLowering, GlobalPoolLowering<GlobalAvgPool2dOp>,
               GlobalPoolLowering<GlobalMaxPool2dOp>, SoftmaxLowering,
               LogSoftmaxLowering, LayerNormLowering, BatchNormLowering,
               CrossEntropyLowering>(patterns.getContext());
}
