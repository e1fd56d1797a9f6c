//===- NNImporters.cpp - ONNX neural-network operators to nn ops ----------===//
//
// Activations, dropout, convolution, the pools over 1 to 3 spatial
// dimensions (window attributes and auto_pad resolved here) and the
// normalisations, per opset version where their semantics changed.
//
//===----------------------------------------------------------------------===//

#include "OpImporters.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace loom;
using namespace loom::onnx_import;

namespace loom::onnx_import {

LogicalResult importLeakyRelu(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "X"));
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  ASSIGN_OR_FAIL(alpha, n.floatAttr("alpha", 0.01f));
  // x < 0 ? alpha * x : x
  ASSIGN_OR_FAIL(negative, n.make<nn::CompareOp>(nn::CompareDirection::LT, x,
                                                 n.scalar(element, 0)));
  ASSIGN_OR_FAIL(scaled, n.make<nn::MulOp>(x, n.scalar(element, alpha)));
  return done(n, n.make<nn::WhereOp>(negative, scaled, x));
}

LogicalResult importGelu(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "X"));
  ASSIGN_OR_FAIL(approximate, n.stringAttr("approximate", "none"));
  if (approximate != "none" && approximate != "tanh")
    return n.error() << "approximate must be 'none' or 'tanh', got '"
                     << approximate << "'";
  return done(n, n.make<nn::GeluOp>(x, approximate == "tanh"
                                           ? nn::GeluApproximation::Tanh
                                           : nn::GeluApproximation::None));
}

LogicalResult importDropout(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  // Inference: Dropout is the identity unless training mode is requested.
  if (n.input(2)) {
    DenseElementsAttr mode;
    if (!matchPattern(n.input(2), m_Constant(&mode)))
      return n.unsupported() << "training_mode must be a constant";
    // Training with a constant ratio of 0 drops nothing: the identity too.
    DenseElementsAttr ratio;
    bool dropsNothing =
        n.input(1) && matchPattern(n.input(1), m_Constant(&ratio)) &&
        ratio.getNumElements() == 1 && isa<FloatType>(ratio.getElementType()) &&
        (*ratio.getValues<APFloat>().begin()).isZero();
    if (mode.getNumElements() == 1 && *mode.getValues<bool>().begin() &&
        !dropsNothing)
      return n.unsupported() << "training mode is not supported at import; "
                                "training is compiled by loomc --train";
  }
  ASSIGN_OR_FAIL(isTest, n.intAttr("is_test", 0));
  if (n.opset < 7 && isTest == 0)
    return n.unsupported() << "training mode (is_test = 0) is not supported";
  n.results.push_back(x);
  if (n.hasOutput(1)) {
    // The mask of an inference dropout keeps everything; it is boolean from
    // opset 10 and of the input's type before.
    auto type = cast<RankedTensorType>(x.getType());
    n.results.push_back(
        n.splat(n.opset >= 10 ? type.clone(n.b.getI1Type()) : type, 1));
  }
  return success();
}

namespace {

/// Explicit [begin..., end...] pads for a window op, from `pads` or
/// `auto_pad`.
FailureOr<SmallVector<int64_t>> windowPads(Node &n, ArrayRef<int64_t> input,
                                           ArrayRef<int64_t> kernel,
                                           ArrayRef<int64_t> strides,
                                           ArrayRef<int64_t> dilations) {
  size_t rank = kernel.size();
  ASSIGN_OR_FAIL(autoPad, n.stringAttr("auto_pad", "NOTSET"));
  if (autoPad == "NOTSET") {
    ASSIGN_OR_FAIL(pads, n.intsAttr("pads", SmallVector<int64_t>(2 * rank, 0)));
    if (pads.size() != 2 * rank)
      return n.error() << "pads must have " << 2 * rank << " entries";
    for (int64_t p : pads)
      if (p < 0 || p > (int64_t(1) << 31))
        return n.error() << "pads must lie in [0, 2^31], got " << p;
    return pads;
  }
  if (autoPad == "VALID")
    return SmallVector<int64_t>(2 * rank, 0);
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return n.error() << "unknown auto_pad '" << autoPad << "'";
  SmallVector<int64_t> pads(2 * rank, 0);
  for (size_t i = 0; i < rank; ++i) {
    if (ShapedType::isDynamic(input[i]))
      return n.unsupported()
             << "auto_pad " << autoPad << " needs static spatial dimensions";
    int64_t out = llvm::divideCeil(input[i], strides[i]);
    int64_t total = std::max<int64_t>(
        (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - input[i],
        0);
    int64_t small = total / 2, large = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : large;
    pads[i + rank] = autoPad == "SAME_UPPER" ? large : small;
  }
  return pads;
}

/// Window attributes of Conv and the pools over 1 to 3 spatial dimensions;
/// `pads` is [begin..., end...].
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, pads;
};

FailureOr<Window> window(Node &n, RankedTensorType input,
                         std::optional<SmallVector<int64_t>> kernel) {
  int64_t spatial = input.getRank() - 2;
  if (spatial < 1 || spatial > 3)
    return n.unsupported() << "inputs of rank " << input.getRank()
                           << " are not supported (rank 3 to 5 are: N, C and "
                              "1 to 3 spatial dimensions)";
  if (!kernel || (int64_t)kernel->size() != spatial)
    return n.error() << "kernel_shape must have " << spatial << " entries";
  ASSIGN_OR_FAIL(strides,
                 n.intsAttr("strides", SmallVector<int64_t>(spatial, 1)));
  ASSIGN_OR_FAIL(dilations,
                 n.intsAttr("dilations", SmallVector<int64_t>(spatial, 1)));
  if ((int64_t)strides.size() != spatial ||
      (int64_t)dilations.size() != spatial)
    return n.error() << "strides and dilations must have " << spatial
                     << " entries";
  // Window attributes are bounded so that no window arithmetic overflows.
  constexpr int64_t kMaxWindow = int64_t(1) << 31;
  for (ArrayRef<int64_t> values :
       {ArrayRef<int64_t>(*kernel), ArrayRef<int64_t>(strides),
        ArrayRef<int64_t>(dilations)})
    for (int64_t v : values)
      if (v < 1 || v > kMaxWindow)
        return n.error() << "kernel_shape, strides and dilations must lie in "
                            "[1, 2^31], got "
                         << v;
  ASSIGN_OR_FAIL(pads, windowPads(n, input.getShape().drop_front(2), *kernel,
                                  strides, dilations));
  return Window{*kernel, strides, dilations, pads};
}

} // namespace

LogicalResult importConv(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "X"));
  ASSIGN_OR_FAIL(w, n.required(1, "W"));
  RankedTensorType wt = n.typeOf(1);
  if (wt.getRank() != n.typeOf(0).getRank())
    return n.error() << "X and W must have the same rank";
  ASSIGN_OR_FAIL(kernel, n.intsAttr("kernel_shape"));
  ASSIGN_OR_FAIL(group, n.intAttr("group", 1));
  if (!kernel)
    kernel = SmallVector<int64_t>(wt.getShape().drop_front(2));
  ASSIGN_OR_FAIL(win, window(n, n.typeOf(0), kernel));
  if (win.kernel.size() == 3)
    return n.unsupported() << "3-D convolutions are not supported (1-D and "
                              "2-D are)";
  // nn.conv2d is 2-D: a 1-D convolution is one over [N, C, 1, W].
  bool oneD = win.kernel.size() == 1;
  if (oneD) {
    ASSIGN_OR_FAIL(x2, n.unsqueeze(x, {2}));
    ASSIGN_OR_FAIL(w2, n.unsqueeze(w, {2}));
    x = x2;
    w = w2;
    win.kernel.insert(win.kernel.begin(), 1);
    win.strides.insert(win.strides.begin(), 1);
    win.dilations.insert(win.dilations.begin(), 1);
    win.pads = {0, win.pads[0], 0, win.pads[1]};
  }
  ASSIGN_OR_FAIL(y, n.make<nn::Conv2dOp>(
                        x, w, n.input(2), n.b.getDenseI64ArrayAttr(win.strides),
                        n.b.getDenseI64ArrayAttr(win.pads),
                        n.b.getDenseI64ArrayAttr(win.dilations),
                        n.b.getI64IntegerAttr(group)));
  if (oneD)
    return done(n, n.squeeze(y, {2}));
  return done(n, y);
}

namespace {

/// `values` as an attribute, or none when every entry is `fill` (the
/// default the pool ops assume for an absent attribute).
DenseI64ArrayAttr unlessAll(Node &n, ArrayRef<int64_t> values, int64_t fill) {
  if (llvm::all_of(values, [&](int64_t v) { return v == fill; }))
    return {};
  return n.b.getDenseI64ArrayAttr(values);
}

/// MaxPool with its Indices output: nn.max_pool_with_indices numbers
/// positions within each (n, c) plane; ONNX's indices are flat over the
/// whole input, so each plane's offset (n * C + c) * plane is added.
LogicalResult
importMaxPoolWithIndices(Node &n, Value x, DenseI64ArrayAttr kernel,
                         DenseI64ArrayAttr strides, DenseI64ArrayAttr pads,
                         DenseI64ArrayAttr dilations, BoolAttr ceil) {
  ASSIGN_OR_FAIL(storageOrder, n.intAttr("storage_order", 0));
  if (storageOrder != 0 && storageOrder != 1)
    return n.error() << "storage_order must be 0 (row-major) or 1 "
                        "(column-major), got "
                     << storageOrder;
  if (failed(n.requireStatic(0, "MaxPool's Indices output")))
    return failure();
  auto order = nn::IndexOrderAttr::get(
      n.b.getContext(),
      storageOrder ? nn::IndexOrder::ColumnMajor : nn::IndexOrder::RowMajor);
  ASSIGN_OR_FAIL(pooled,
                 n.build<nn::MaxPoolWithIndicesOp>(2, x, kernel, strides, pads,
                                                   dilations, ceil, order));
  n.results.push_back(pooled[0]);
  RankedTensorType type = n.typeOf(0);
  int64_t planes = type.getDimSize(0) * type.getDimSize(1), plane = 1;
  for (int64_t d : type.getShape().drop_front(2))
    plane *= d;
  if (planes == 1 || plane == 0)
    return done(n, pooled[1]);
  Type i64 = n.b.getI64Type();
  ASSIGN_OR_FAIL(starts,
                 n.make<nn::RangeOp>(n.b.getIntegerAttr(i64, 0),
                                     n.b.getIntegerAttr(i64, planes * plane),
                                     n.b.getIntegerAttr(i64, plane)));
  SmallVector<int64_t> shape(type.getRank(), 1);
  shape[0] = type.getDimSize(0);
  shape[1] = type.getDimSize(1);
  ASSIGN_OR_FAIL(offsets, n.reshape(starts, shape));
  return done(n, n.make<nn::AddOp>(pooled[1], offsets));
}

} // namespace

template <typename OpTy> LogicalResult importPool(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "X"));
  ASSIGN_OR_FAIL(kernelShape, n.intsAttr("kernel_shape"));
  ASSIGN_OR_FAIL(win, window(n, n.typeOf(0), kernelShape));
  auto kernel = n.b.getDenseI64ArrayAttr(win.kernel);
  DenseI64ArrayAttr strides = unlessAll(n, win.strides, 1),
                    pads = unlessAll(n, win.pads, 0),
                    dilations = unlessAll(n, win.dilations, 1);
  ASSIGN_OR_FAIL(ceilMode, n.intAttr("ceil_mode", 0));
  BoolAttr ceil = n.b.getBoolAttr(ceilMode != 0);
  if constexpr (std::is_same_v<OpTy, nn::MaxPoolOp>) {
    // storage_order only numbers the Indices output.
    if (n.hasOutput(1))
      return importMaxPoolWithIndices(n, x, kernel, strides, pads, dilations,
                                      ceil);
    return done(
        n, n.make<nn::MaxPoolOp>(x, kernel, strides, pads, dilations, ceil));
  } else {
    ASSIGN_OR_FAIL(countIncludePad, n.intAttr("count_include_pad", 0));
    BoolAttr includePad = n.b.getBoolAttr(countIncludePad != 0);
    return done(n, n.make<nn::AvgPoolOp>(x, kernel, strides, pads, dilations,
                                         ceil, includePad));
  }
}

template <typename PoolOp, typename ReduceOp>
LogicalResult importGlobalPool(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "X"));
  int64_t rank = n.typeOf(0).getRank();
  if (rank < 3)
    return n.error() << "input must have rank 3 or more (N, C, spatial...)";
  if (rank == 4)
    return done(n, n.make<PoolOp>(x));
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  return done(n, n.make<ReduceOp>(x, axes, true));
}

LogicalResult importLayerNorm(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "X"));
  ASSIGN_OR_FAIL(scale, n.required(1, "Scale"));
  auto type = n.typeOf(0);
  ASSIGN_OR_FAIL(given, n.intAttr("axis", -1));
  ASSIGN_OR_FAIL(axis, n.axis(given, type.getRank()));
  ASSIGN_OR_FAIL(epsilon, n.floatAttr("epsilon", 1e-5f));
  ArrayRef<int64_t> normalized = type.getShape().drop_front(axis);
  // Scale and bias may be given with fewer dimensions; broadcast them.
  auto fit = [&](Value v) -> FailureOr<Value> {
    if (cast<RankedTensorType>(v.getType()).getShape() == normalized)
      return v;
    return n.make<nn::BroadcastToOp>(v, normalized);
  };
  ASSIGN_OR_FAIL(s, fit(scale));
  Value bias;
  if (Value b = n.input(2)) {
    ASSIGN_OR_FAIL(fitted, fit(b));
    bias = fitted;
  }
  ASSIGN_OR_FAIL(y, n.make<nn::LayerNormOp>(x, s, bias,
                                            n.b.getI64IntegerAttr(axis),
                                            n.b.getF64FloatAttr(epsilon)));
  n.results.push_back(y);
  if (!n.hasOutput(1) && !n.hasOutput(2))
    return success();
  // The optional Mean and InvStdDev outputs, with the normalised dimensions
  // kept as size 1, computed in (and typed by) stash_type.
  ASSIGN_OR_FAIL(stash, n.dataTypeAttr("stash_type", onnx::TensorProto::FLOAT,
                                       "stash_type"));
  if (!isa<FloatType>(stash))
    return n.error() << "stash_type must be a floating-point type";
  ASSIGN_OR_FAIL(xs, n.castTo(x, stash));
  SmallVector<int64_t> axes;
  for (int64_t d = axis; d < type.getRank(); ++d)
    axes.push_back(d);
  ASSIGN_OR_FAIL(mean, n.make<nn::ReduceMeanOp>(xs, axes, true));
  ASSIGN_OR_FAIL(centered, n.make<nn::SubOp>(xs, mean));
  ASSIGN_OR_FAIL(squared, n.make<nn::MulOp>(centered, centered));
  ASSIGN_OR_FAIL(variance, n.make<nn::ReduceMeanOp>(squared, axes, true));
  ASSIGN_OR_FAIL(shifted,
                 n.make<nn::AddOp>(variance, n.scalar(stash, epsilon)));
  ASSIGN_OR_FAIL(invStdDev, n.make<nn::RsqrtOp>(shifted));
  n.results.push_back(mean);
  n.results.push_back(invStdDev);
  return success();
}

LogicalResult importBatchNorm(Node &n) {
  // From opset 14 training_mode selects training; before, asking for the
  // statistics outputs did (with other outputs than now).
  if (n.opset < 14 && n.numOutputs() > 1)
    return n.unsupported() << "training mode is not supported before opset 14";
  ASSIGN_OR_FAIL(trainingMode, n.intAttr("training_mode", 0));
  bool training = trainingMode != 0;
  if (!training && n.numOutputs() > 1)
    return n.error() << "running_mean and running_var are outputs of "
                        "training mode only";
  static const StringRef names[] = {"X", "scale", "B", "input_mean",
                                    "input_var"};
  SmallVector<Value> in;
  for (auto [i, name] : llvm::enumerate(names)) {
    ASSIGN_OR_FAIL(v, n.required(i, name));
    in.push_back(v);
  }
  ASSIGN_OR_FAIL(epsilonValue, n.floatAttr("epsilon", 1e-5f));
  ASSIGN_OR_FAIL(momentumValue, n.floatAttr("momentum", 0.9f));
  FloatAttr epsilon = n.b.getF64FloatAttr(epsilonValue);
  if (!training)
    return done(
        n, n.make<nn::BatchNormOp>(in[0], in[1], in[2], in[3], in[4], epsilon));
  // Training normalises with the batch's statistics: the mean and biased
  // variance over every dimension but 1 (channels), which also update the
  // running ones: running = input * momentum + current * (1 - momentum).
  RankedTensorType type = n.typeOf(0);
  if (type.getRank() < 2)
    return n.error() << "X must have rank 2 or more (N, C, ...)";
  Type element = type.getElementType();
  SmallVector<int64_t> axes, channels = {type.getDimSize(1)};
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != 1)
      axes.push_back(d);
  ASSIGN_OR_FAIL(mean, n.make<nn::ReduceMeanOp>(in[0], axes, true));
  ASSIGN_OR_FAIL(centered, n.make<nn::SubOp>(in[0], mean));
  ASSIGN_OR_FAIL(squared, n.make<nn::MulOp>(centered, centered));
  ASSIGN_OR_FAIL(variance, n.make<nn::ReduceMeanOp>(squared, axes, true));
  ASSIGN_OR_FAIL(batchMean, n.reshape(mean, channels));
  ASSIGN_OR_FAIL(batchVar, n.reshape(variance, channels));
  ASSIGN_OR_FAIL(y, n.make<nn::BatchNormOp>(in[0], in[1], in[2], batchMean,
                                            batchVar, epsilon));
  n.results.push_back(y);
  double momentum = momentumValue;
  Value keep = n.scalar(element, momentum),
        take = n.scalar(element, 1 - momentum);
  auto runningUpdate = [&](Value running, Value current) -> FailureOr<Value> {
    ASSIGN_OR_FAIL(kept, n.make<nn::MulOp>(running, keep));
    ASSIGN_OR_FAIL(taken, n.make<nn::MulOp>(current, take));
    return n.make<nn::AddOp>(kept, taken);
  };
  for (auto [running, current] :
       {std::pair{in[3], batchMean}, std::pair{in[4], batchVar}}) {
    ASSIGN_OR_FAIL(updated, runningUpdate(running, current));
    n.results.push_back(updated);
  }
  // Running statistics held in parameters are state a training step keeps.
  // They follow PyTorch, whose running variance is the unbiased one (the
  // ONNX outputs above are the biased one, as the operator defines them).
  auto meanParam = in[3].getDefiningOp<nn::ParameterOp>();
  auto varParam = in[4].getDefiningOp<nn::ParameterOp>();
  if (!meanParam || !varParam || !type.hasStaticShape())
    return success();
  int64_t perChannel =
      type.getNumElements() / std::max<int64_t>(type.getDimSize(1), 1);
  if (perChannel < 2)
    return success();
  Value correction = n.scalar(element, double(perChannel) / (perChannel - 1));
  ASSIGN_OR_FAIL(unbiased, n.make<nn::MulOp>(batchVar, correction));
  ASSIGN_OR_FAIL(newMean, runningUpdate(in[3], batchMean));
  ASSIGN_OR_FAIL(newVar, runningUpdate(in[4], unbiased));
  n.state.stateUpdates.emplace_back(meanParam.getName().str(), newMean);
  n.state.stateUpdates.emplace_back(varParam.getName().str(), newVar);
  return success();
}

// The instances the registration table names.
template LogicalResult importPool<nn::AvgPoolOp>(Node &);
template LogicalResult importPool<nn::MaxPoolOp>(Node &);
template LogicalResult
importGlobalPool<nn::GlobalAvgPool2dOp, nn::ReduceMeanOp>(Node &);
template LogicalResult
importGlobalPool<nn::GlobalMaxPool2dOp, nn::ReduceMaxOp>(Node &);

} // namespace loom::onnx_import
