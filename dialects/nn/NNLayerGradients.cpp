//===- NNLayerGradients.cpp - Vector-Jacobian products of nn layers -------===//
//
// The buildVJPs of the layer ops: softmax and log_softmax, the
// normalisations, GELU, cross entropy, convolution and the pools, built out
// of other nn ops like those in NNGradients.cpp.
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
