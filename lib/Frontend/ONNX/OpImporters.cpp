//===- OpImporters.cpp - ONNX operators to nn ops -------------------------===//
//
// One function per ONNX operator, following each operator's semantics per
// opset version where it changed (attributes that became inputs: axes of the
// reductions, Squeeze/Unsqueeze and Split, Slice/Pad/Clip bounds; Softmax's
// axis meaning before opset 13). Inputs that determine shapes must be
// constants after folding; the importer folds shape subgraphs as it goes.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace loom;
using namespace loom::onnx_import;

// Unwraps a FailureOr into `lhs`, returning failure from the importer.
#define ASSIGN_OR_FAIL(lhs, expr)                                              \
  auto lhs##OrFailure = (expr);                                                \
  if (failed(lhs##OrFailure))                                                  \
    return failure();                                                          \
  auto lhs = *lhs##OrFailure

namespace {
using Node = NodeImporter;

LogicalResult done(Node &n, Value v) {
  n.results.push_back(v);
  return success();
}

LogicalResult done(Node &n, FailureOr<Value> v) {
  if (failed(v))
    return failure();
  n.results.push_back(*v);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <typename OpTy> LogicalResult unary(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "X"));
  return done(n, n.make<OpTy>(x));
}

template <typename OpTy> LogicalResult binary(Node &n) {
  ASSIGN_OR_FAIL(a, n.required(0, "A"));
  ASSIGN_OR_FAIL(b, n.required(1, "B"));
  if (getElementTypeOrSelf(a.getType()) != getElementTypeOrSelf(b.getType()))
    return n.error() << "operands have different element types (" << a.getType()
                     << " and " << b.getType() << ")";
  return done(n, n.make<OpTy>(a, b));
}

LogicalResult importPow(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "X"));
  ASSIGN_OR_FAIL(y, n.required(1, "Y"));
  Type base = getElementTypeOrSelf(x.getType());
  Type exponent = getElementTypeOrSelf(y.getType());
  if (base.isInteger(1))
    return n.error() << "the base must be a number, not a boolean";
  // The result has the base's type; nn.pow takes operands of one type.
  if (isa<FloatType>(base)) {
    ASSIGN_OR_FAIL(e, n.castTo(y, base));
    return done(n, n.make<nn::PowOp>(x, e));
  }
  if (isa<FloatType>(exponent)) {
    // An integer to a floating-point power is computed in f64 (exact for
    // every i32 base, as numpy promotes it) and rounded toward zero.
    Type f64 = n.b.getF64Type();
    ASSIGN_OR_FAIL(xf, n.castTo(x, f64));
    ASSIGN_OR_FAIL(yf, n.castTo(y, f64));
    ASSIGN_OR_FAIL(p, n.make<nn::PowOp>(xf, yf));
    return done(n, n.castTo(p, base));
  }
  // Integer powers wrap, so the power in the wider of the two types,
  // truncated, is the power in the base's type; a wide exponent is never
  // truncated, nor an unsigned one of the base's width (it would turn
  // negative), which computes in its own type: the same bits.
  unsigned ew = exponent.getIntOrFloatBitWidth(),
           bw = base.getIntOrFloatBitWidth();
  if (ew < bw ||
      (ew == bw && exponent.isUnsignedInteger() == base.isUnsignedInteger())) {
    ASSIGN_OR_FAIL(e, n.castTo(y, base));
    return done(n, n.make<nn::PowOp>(x, e));
  }
  ASSIGN_OR_FAIL(wide, n.castTo(x, exponent));
  ASSIGN_OR_FAIL(p, n.make<nn::PowOp>(wide, y));
  return done(n, n.castTo(p, base));
}

/// Max and Min take one or more inputs.
template <typename OpTy> LogicalResult variadic(Node &n) {
  Value acc;
  for (unsigned i = 0; i < n.inputs.size(); ++i) {
    Value v = n.input(i);
    if (!v)
      continue;
    if (!acc) {
      acc = v;
      continue;
    }
    if (getElementTypeOrSelf(acc.getType()) !=
        getElementTypeOrSelf(v.getType()))
      return n.error() << "operands have different element types";
    ASSIGN_OR_FAIL(next, n.make<OpTy>(acc, v));
    acc = next;
  }
  if (!acc)
    return n.error() << "needs at least one input";
  return done(n, acc);
}

LogicalResult importLeakyRelu(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "X"));
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  double alpha = n.floatAttr("alpha", 0.01f);
  // x < 0 ? alpha * x : x
  ASSIGN_OR_FAIL(negative, n.make<nn::CompareOp>(nn::CompareDirection::LT, x,
                                                 n.scalar(element, 0)));
  ASSIGN_OR_FAIL(scaled, n.make<nn::MulOp>(x, n.scalar(element, alpha)));
  return done(n, n.make<nn::WhereOp>(negative, scaled, x));
}

LogicalResult importGelu(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "X"));
  std::string approximate = n.stringAttr("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return n.error() << "approximate must be 'none' or 'tanh', got '"
                     << approximate << "'";
  return done(n, n.make<nn::GeluOp>(x, approximate == "tanh"
                                           ? nn::GeluApproximation::Tanh
                                           : nn::GeluApproximation::None));
}

LogicalResult importClip(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  Type element = getElementTypeOrSelf(x.getType());
  Value lo, hi;
  if (n.opset < 11) {
    if (const auto *a = n.attr("min"))
      lo = n.scalar(element, a->f());
    if (const auto *a = n.attr("max"))
      hi = n.scalar(element, a->f());
  } else {
    lo = n.input(1);
    hi = n.input(2);
  }
  Value result = x;
  if (lo) {
    ASSIGN_OR_FAIL(clipped, n.make<nn::MaxOp>(result, lo));
    result = clipped;
  }
  if (hi) {
    ASSIGN_OR_FAIL(clipped, n.make<nn::MinOp>(result, hi));
    result = clipped;
  }
  return done(n, result);
}

LogicalResult importCast(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  const onnx::AttributeProto *to = n.attr("to");
  if (!to)
    return n.error() << "missing attribute 'to'";
  ASSIGN_OR_FAIL(element,
                 convertElementType(n.state, n.loc, to->i(), "Cast target"));
  // `saturate` (opset 19) matters only for 8-bit float targets.
  const onnx::AttributeProto *saturate = n.attr("saturate");
  if (!saturate || saturate->i() != 0 ||
      getElementTypeOrSelf(x.getType()) == element)
    return done(n, n.castTo(x, element));
  return done(
      n, n.make<nn::CastOp>(x, TypeAttr::get(element), n.b.getBoolAttr(false)));
}

template <nn::CompareDirection direction> LogicalResult importCompare(Node &n) {
  ASSIGN_OR_FAIL(a, n.required(0, "A"));
  ASSIGN_OR_FAIL(b, n.required(1, "B"));
  if (getElementTypeOrSelf(a.getType()) != getElementTypeOrSelf(b.getType()))
    return n.error() << "operands have different element types";
  // nn.compare takes numbers; booleans compare as 0/1.
  if (getElementTypeOrSelf(a.getType()).isInteger(1)) {
    Type i8 = IntegerType::get(n.b.getContext(), 8);
    ASSIGN_OR_FAIL(a8, n.castTo(a, i8));
    ASSIGN_OR_FAIL(b8, n.castTo(b, i8));
    a = a8;
    b = b8;
  }
  return done(n, n.make<nn::CompareOp>(direction, a, b));
}

LogicalResult importWhere(Node &n) {
  ASSIGN_OR_FAIL(c, n.required(0, "condition"));
  ASSIGN_OR_FAIL(x, n.required(1, "X"));
  ASSIGN_OR_FAIL(y, n.required(2, "Y"));
  return done(n, n.make<nn::WhereOp>(c, x, y));
}

LogicalResult importIdentity(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  return done(n, x);
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
  if (n.opset < 7 && n.intAttr("is_test", 0) == 0)
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

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult importMatMul(Node &n) {
  ASSIGN_OR_FAIL(a, n.required(0, "A"));
  ASSIGN_OR_FAIL(b, n.required(1, "B"));
  int64_t ra = n.typeOf(0).getRank(), rb = n.typeOf(1).getRank();
  if (ra == 0 || rb == 0)
    return n.error() << "operands must have rank 1 or more";
  // numpy semantics: a rank-1 lhs gains a leading 1, a rank-1 rhs a
  // trailing 1, removed again from the result.
  if (ra == 1) {
    ASSIGN_OR_FAIL(a2, n.unsqueeze(a, {0}));
    a = a2;
  }
  if (rb == 1) {
    ASSIGN_OR_FAIL(b2, n.unsqueeze(b, {1}));
    b = b2;
  }
  ASSIGN_OR_FAIL(product, n.make<nn::MatmulOp>(a, b));
  int64_t rank = cast<RankedTensorType>(product.getType()).getRank();
  SmallVector<int64_t> drop;
  if (ra == 1)
    drop.push_back(rank - 2);
  if (rb == 1)
    drop.push_back(rank - 1);
  if (drop.empty())
    return done(n, product);
  return done(n, n.squeeze(product, drop));
}

LogicalResult importGemm(Node &n) {
  ASSIGN_OR_FAIL(a, n.required(0, "A"));
  ASSIGN_OR_FAIL(b, n.required(1, "B"));
  if (n.typeOf(0).getRank() != 2 || n.typeOf(1).getRank() != 2)
    return n.error() << "A and B must be matrices";
  double alpha = n.floatAttr("alpha", 1.0f), beta = n.floatAttr("beta", 1.0f);
  if (n.intAttr("transA", 0)) {
    ASSIGN_OR_FAIL(t, n.transpose(a, {1, 0}));
    a = t;
  }
  if (n.intAttr("transB", 0)) {
    ASSIGN_OR_FAIL(t, n.transpose(b, {1, 0}));
    b = t;
  }
  ASSIGN_OR_FAIL(y, n.make<nn::MatmulOp>(a, b));
  Type element = getElementTypeOrSelf(y.getType());
  if (isa<IntegerType>(element) &&
      (alpha != std::trunc(alpha) || beta != std::trunc(beta)))
    return n.unsupported() << "fractional alpha or beta on integer tensors "
                              "is not supported";
  if (alpha != 1.0) {
    ASSIGN_OR_FAIL(scaled, n.make<nn::MulOp>(y, n.scalar(element, alpha)));
    y = scaled;
  }
  // With beta = 0, C does not take part at all (not even its NaNs).
  if (Value c = n.input(2); c && beta != 0.0) {
    if (beta != 1.0) {
      ASSIGN_OR_FAIL(scaled, n.make<nn::MulOp>(c, n.scalar(element, beta)));
      c = scaled;
    }
    ASSIGN_OR_FAIL(sum, n.make<nn::AddOp>(y, c));
    y = sum;
  }
  return done(n, y);
}

/// Explicit [begin..., end...] pads for a window op, from `pads` or
/// `auto_pad`.
FailureOr<SmallVector<int64_t>> windowPads(Node &n, ArrayRef<int64_t> input,
                                           ArrayRef<int64_t> kernel,
                                           ArrayRef<int64_t> strides,
                                           ArrayRef<int64_t> dilations) {
  size_t rank = kernel.size();
  std::string autoPad = n.stringAttr("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    SmallVector<int64_t> pads =
        n.intsAttr("pads").value_or(SmallVector<int64_t>(2 * rank, 0));
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
  SmallVector<int64_t> strides =
      n.intsAttr("strides").value_or(SmallVector<int64_t>(spatial, 1));
  SmallVector<int64_t> dilations =
      n.intsAttr("dilations").value_or(SmallVector<int64_t>(spatial, 1));
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

LogicalResult importConv(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "X"));
  ASSIGN_OR_FAIL(w, n.required(1, "W"));
  RankedTensorType wt = n.typeOf(1);
  if (wt.getRank() != n.typeOf(0).getRank())
    return n.error() << "X and W must have the same rank";
  std::optional<SmallVector<int64_t>> kernel = n.intsAttr("kernel_shape");
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
                        n.b.getI64IntegerAttr(n.intAttr("group", 1))));
  if (oneD)
    return done(n, n.squeeze(y, {2}));
  return done(n, y);
}

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
  int64_t storageOrder = n.intAttr("storage_order", 0);
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

template <typename OpTy> LogicalResult importPool(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "X"));
  ASSIGN_OR_FAIL(win, window(n, n.typeOf(0), n.intsAttr("kernel_shape")));
  auto kernel = n.b.getDenseI64ArrayAttr(win.kernel);
  DenseI64ArrayAttr strides = unlessAll(n, win.strides, 1),
                    pads = unlessAll(n, win.pads, 0),
                    dilations = unlessAll(n, win.dilations, 1);
  BoolAttr ceil = n.b.getBoolAttr(n.intAttr("ceil_mode", 0) != 0);
  if constexpr (std::is_same_v<OpTy, nn::MaxPoolOp>) {
    // storage_order only numbers the Indices output.
    if (n.hasOutput(1))
      return importMaxPoolWithIndices(n, x, kernel, strides, pads, dilations,
                                      ceil);
    return done(
        n, n.make<nn::MaxPoolOp>(x, kernel, strides, pads, dilations, ceil));
  } else {
    BoolAttr includePad =
        n.b.getBoolAttr(n.intAttr("count_include_pad", 0) != 0);
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

//===----------------------------------------------------------------------===//
// Reductions and normalisations
//===----------------------------------------------------------------------===//

/// Opset from which the op takes its axes as an input.
template <typename OpTy>
LogicalResult importReduce(Node &n, int64_t axesInputSince) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  int64_t rank = n.typeOf(0).getRank();
  std::optional<SmallVector<int64_t>> given;
  if (n.opset >= axesInputSince) {
    if (n.input(1)) {
      ASSIGN_OR_FAIL(a, n.constantInts(1, "axes"));
      given = a;
    }
  } else {
    given = n.intsAttr("axes");
  }
  bool keep = n.intAttr("keepdims", 1) != 0;
  SmallVector<int64_t> axes;
  if (!given || given->empty()) {
    if (n.intAttr("noop_with_empty_axes", 0))
      return done(n, x);
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  } else {
    ASSIGN_OR_FAIL(normalized, n.axes(*given, rank));
    axes = normalized;
  }
  if constexpr (std::is_same_v<OpTy, nn::ReduceMaxOp> ||
                std::is_same_v<OpTy, nn::ReduceMinOp>) {
    // Boolean max and min (any and all) reduce 0s and 1s.
    if (n.typeOf(0).getElementType().isInteger(1)) {
      ASSIGN_OR_FAIL(bytes, n.castTo(x, n.b.getI8Type()));
      ASSIGN_OR_FAIL(r, n.make<OpTy>(bytes, axes, keep));
      return done(n, n.castTo(r, n.b.getI1Type()));
    }
  }
  return done(n, n.make<OpTy>(x, axes, keep));
}

template <typename OpTy> LogicalResult importSoftmax(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  auto type = n.typeOf(0);
  int64_t rank = type.getRank();
  if (rank == 0)
    return n.error() << "input must have rank 1 or more";
  if (n.opset >= 13) {
    ASSIGN_OR_FAIL(axis, n.axis(n.intAttr("axis", -1), rank));
    return done(n, n.make<OpTy>(x, axis));
  }
  // Before opset 13 the input is flattened to 2-D at `axis` (default 1).
  ASSIGN_OR_FAIL(axis, n.axis(n.intAttr("axis", 1), rank));
  if (axis == rank - 1)
    return done(n, n.make<OpTy>(x, axis));
  if (failed(n.requireStatic(0, "softmax before opset 13")))
    return failure();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < axis ? outer : inner) *= type.getDimSize(d);
  ASSIGN_OR_FAIL(flat, n.reshape(x, {outer, inner}));
  ASSIGN_OR_FAIL(y, n.make<OpTy>(flat, 1));
  return done(n, n.reshape(y, type.getShape()));
}

LogicalResult importLayerNorm(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "X"));
  ASSIGN_OR_FAIL(scale, n.required(1, "Scale"));
  auto type = n.typeOf(0);
  ASSIGN_OR_FAIL(axis, n.axis(n.intAttr("axis", -1), type.getRank()));
  double epsilon = n.floatAttr("epsilon", 1e-5f);
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
  ASSIGN_OR_FAIL(stash,
                 convertElementType(n.state, n.loc, n.intAttr("stash_type", 1),
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
  bool training = n.intAttr("training_mode", 0) != 0;
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
  FloatAttr epsilon = n.b.getF64FloatAttr(n.floatAttr("epsilon", 1e-5f));
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
  double momentum = n.floatAttr("momentum", 0.9f);
  Value keep = n.scalar(element, momentum),
        take = n.scalar(element, 1 - momentum);
  for (auto [running, current] :
       {std::pair{in[3], batchMean}, std::pair{in[4], batchVar}}) {
    ASSIGN_OR_FAIL(kept, n.make<nn::MulOp>(running, keep));
    ASSIGN_OR_FAIL(taken, n.make<nn::MulOp>(current, take));
    ASSIGN_OR_FAIL(updated, n.make<nn::AddOp>(kept, taken));
    n.results.push_back(updated);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Shapes and data movement
//===----------------------------------------------------------------------===//

LogicalResult importShape(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  (void)x;
  if (failed(n.requireStatic(0, "Shape")))
    return failure();
  ArrayRef<int64_t> shape = n.typeOf(0).getShape();
  int64_t rank = shape.size();
  auto clampIndex = [&](int64_t i) {
    if (i < 0)
      i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  int64_t start = clampIndex(n.intAttr("start", 0));
  int64_t end = n.attr("end") ? clampIndex(n.intAttr("end", rank)) : rank;
  SmallVector<int64_t> dims;
  for (int64_t i = start; i < end; ++i)
    dims.push_back(shape[i]);
  auto type = RankedTensorType::get({(int64_t)dims.size()}, n.b.getI64Type());
  return done(n, n.b.create<nn::ConstantOp>(
                        n.loc, cast<ElementsAttr>(DenseElementsAttr::get(
                                   type, ArrayRef<int64_t>(dims))))
                     .getResult());
}

LogicalResult importSize(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  (void)x;
  if (failed(n.requireStatic(0, "Size")))
    return failure();
  return done(n, n.scalar(n.b.getI64Type(), n.typeOf(0).getNumElements()));
}

LogicalResult importConstant(Node &n) {
  if (n.node.attribute_size() != 1)
    return n.error() << "needs exactly one value attribute";
  const onnx::AttributeProto *a = &n.node.attribute(0);
  MLIRContext *ctx = n.b.getContext();
  Attribute value;
  if (a->name() == "value") {
    ASSIGN_OR_FAIL(t, convertTensor(n.state, n.loc, a->t(), false));
    value = t;
  } else if (a->name() == "value_float") {
    value = DenseElementsAttr::get(
        RankedTensorType::get({}, Float32Type::get(ctx)), a->f());
  } else if (a->name() == "value_floats") {
    SmallVector<float> v(a->floats().begin(), a->floats().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({(int64_t)v.size()}, Float32Type::get(ctx)),
        ArrayRef<float>(v));
  } else if (a->name() == "value_int") {
    value = DenseElementsAttr::get(
        RankedTensorType::get({}, IntegerType::get(ctx, 64)), a->i());
  } else if (a->name() == "value_ints") {
    SmallVector<int64_t> v(a->ints().begin(), a->ints().end());
    value = DenseElementsAttr::get(
        RankedTensorType::get({(int64_t)v.size()}, IntegerType::get(ctx, 64)),
        ArrayRef<int64_t>(v));
  } else {
    return n.unsupported() << "constant attribute '" << a->name()
                           << "' is not supported";
  }
  return done(
      n,
      n.b.create<nn::ConstantOp>(n.loc, cast<ElementsAttr>(value)).getResult());
}

LogicalResult importConstantOfShape(Node &n) {
  ASSIGN_OR_FAIL(shape, n.constantInts(0, "input"));
  for (int64_t d : shape)
    if (d < 0)
      return n.error() << "shape has negative dimension " << d;
  if (!withinElementLimit(shape))
    return n.error() << "the result would have more than 2^48 elements";
  Attribute fill;
  Type element = n.b.getF32Type();
  if (const onnx::AttributeProto *a = n.attr("value")) {
    ASSIGN_OR_FAIL(t, convertTensor(n.state, n.loc, a->t(), false));
    auto dense = dyn_cast<DenseElementsAttr>(t);
    if (!dense || dense.getNumElements() != 1)
      return n.error() << "value must hold one element";
    fill = dense.getSplatValue<Attribute>();
    element = dense.getElementType();
  } else {
    fill = n.b.getF32FloatAttr(0);
  }
  auto type = RankedTensorType::get(shape, element);
  return done(
      n, n.b.create<nn::ConstantOp>(
                n.loc, cast<ElementsAttr>(DenseElementsAttr::get(type, fill)))
             .getResult());
}

LogicalResult importFlatten(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  if (failed(n.requireStatic(0, "Flatten")))
    return failure();
  auto type = n.typeOf(0);
  int64_t rank = type.getRank();
  int64_t axis = n.intAttr("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return n.error() << "axis " << n.intAttr("axis", 1)
                     << " is out of range for rank " << rank;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < axis ? outer : inner) *= type.getDimSize(d);
  return done(n, n.reshape(x, {outer, inner}));
}

LogicalResult importReshape(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  ASSIGN_OR_FAIL(target, n.constantInts(1, "shape"));
  auto type = n.typeOf(0);
  bool allowZero = n.intAttr("allowzero", 0) != 0;
  SmallVector<int64_t> shape;
  int64_t inferred = -1;
  for (auto [i, d] : llvm::enumerate(target)) {
    if (d == 0 && !allowZero) {
      if ((int64_t)i >= type.getRank())
        return n.error() << "shape entry " << i
                         << " copies a dimension the input does not have";
      if (type.isDynamicDim(i) && failed(n.requireStatic(0, "Reshape")))
        return failure();
      shape.push_back(type.getDimSize(i));
    } else if (d == -1) {
      if (inferred >= 0)
        return n.error() << "shape has more than one -1";
      inferred = i;
      shape.push_back(1);
    } else if (d < 0) {
      return n.error() << "shape has invalid dimension " << d;
    } else {
      shape.push_back(d);
    }
  }
  if (inferred >= 0) {
    if (failed(n.requireStatic(0, "Reshape with -1")))
      return failure();
    int64_t known = 1;
    for (auto [i, d] : llvm::enumerate(shape))
      if ((int64_t)i != inferred && llvm::MulOverflow(known, d, known))
        return n.error() << "shape has more than 2^63 elements";
    if (known == 0 || type.getNumElements() % known != 0)
      return n.error() << "cannot infer the -1 dimension: "
                       << type.getNumElements() << " elements do not divide by "
                       << known;
    shape[inferred] = type.getNumElements() / known;
  }
  return done(n, n.reshape(x, shape));
}

LogicalResult importTranspose(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  int64_t rank = n.typeOf(0).getRank();
  SmallVector<int64_t> perm;
  if (auto given = n.intsAttr("perm")) {
    perm = *given;
  } else {
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  }
  return done(n, n.transpose(x, perm));
}

LogicalResult importConcat(Node &n) {
  SmallVector<Value> inputs;
  for (Value v : n.inputs)
    if (v)
      inputs.push_back(v);
  if (inputs.empty())
    return n.error() << "needs at least one input";
  if (!n.attr("axis"))
    return n.error() << "missing attribute 'axis'";
  int64_t rank = cast<RankedTensorType>(inputs[0].getType()).getRank();
  ASSIGN_OR_FAIL(axis, n.axis(n.intAttr("axis", 0), rank));
  return done(n, n.make<nn::ConcatOp>(ValueRange(inputs), axis));
}

LogicalResult importSplit(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  auto type = n.typeOf(0);
  ASSIGN_OR_FAIL(axis, n.axis(n.intAttr("axis", 0), type.getRank()));
  int64_t outputs = n.node.output_size();
  if (outputs < 1)
    return n.error() << "needs at least one output";
  SmallVector<int64_t> sizes;
  if (n.opset >= 13 && n.input(1)) {
    ASSIGN_OR_FAIL(s, n.constantInts(1, "split"));
    sizes = s;
  } else if (n.opset < 13 && n.attr("split")) {
    sizes = *n.intsAttr("split");
  } else {
    int64_t dim = type.getDimSize(axis);
    if (ShapedType::isDynamic(dim) &&
        failed(n.requireStatic(0, "Split without sizes")))
      return failure();
    int64_t parts = n.opset >= 18 && n.attr("num_outputs")
                        ? n.intAttr("num_outputs", outputs)
                        : outputs;
    if (parts != outputs)
      return n.error() << "num_outputs is " << parts << " but the node has "
                       << outputs << " outputs";
    // Equal parts; from opset 18 the last one may be smaller.
    int64_t chunk = llvm::divideCeil(dim, parts);
    if (n.opset < 18 && dim % parts != 0)
      return n.error() << "dimension " << dim << " does not split into "
                       << parts << " equal parts";
    for (int64_t i = 0; i < parts; ++i)
      sizes.push_back(std::max<int64_t>(std::min(chunk, dim - i * chunk), 0));
  }
  if ((int64_t)sizes.size() != outputs)
    return n.error() << "split gives " << sizes.size() << " sizes for "
                     << outputs << " outputs";
  ASSIGN_OR_FAIL(parts, n.build<nn::SplitOp>(outputs, x, axis, sizes));
  llvm::append_range(n.results, parts);
  return success();
}

LogicalResult importSlice(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  auto type = n.typeOf(0);
  int64_t rank = type.getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (n.opset >= 10) {
    ASSIGN_OR_FAIL(s, n.constantInts(1, "starts"));
    ASSIGN_OR_FAIL(e, n.constantInts(2, "ends"));
    starts = s;
    ends = e;
    if (n.input(3)) {
      ASSIGN_OR_FAIL(a, n.constantInts(3, "axes"));
      axes = a;
    }
    if (n.input(4)) {
      ASSIGN_OR_FAIL(st, n.constantInts(4, "steps"));
      steps = st;
    }
  } else {
    starts = n.intsAttr("starts").value_or(SmallVector<int64_t>());
    ends = n.intsAttr("ends").value_or(SmallVector<int64_t>());
    axes = n.intsAttr("axes").value_or(SmallVector<int64_t>());
  }
  if (starts.size() != ends.size())
    return n.error() << "starts and ends differ in length";
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return n.error() << "starts, ends, axes and steps differ in length";
  SmallVector<int64_t> offsets(rank, 0), sizes(type.getShape()),
      strides(rank, 1);
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    ASSIGN_OR_FAIL(a, n.axis(axes[i], rank));
    if (seen[a])
      return n.error() << "axis " << axes[i] << " is repeated";
    seen[a] = true;
    int64_t dim = type.getDimSize(a), step = steps[i];
    if (step == 0)
      return n.error() << "step of axis " << axes[i] << " is zero";
    if (ShapedType::isDynamic(dim) && failed(n.requireStatic(0, "Slice")))
      return failure();
    // ONNX clamping: indices count from the end when negative; starts clamp
    // to [0, dim] (or [0, dim - 1] going backwards), ends to [0, dim] (or
    // [-1, dim - 1]).
    auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0)
        v = v < INT64_MIN + dim ? lo : v + dim;
      return std::clamp(v, lo, hi);
    };
    if (dim == 0) { // nothing to select, in either direction
      offsets[a] = sizes[a] = 0;
      strides[a] = step;
      continue;
    }
    int64_t start =
        step > 0 ? clamp(starts[i], 0, dim) : clamp(starts[i], 0, dim - 1);
    int64_t end =
        step > 0 ? clamp(ends[i], 0, dim) : clamp(ends[i], -1, dim - 1);
    if (step == INT64_MIN)
      return n.error() << "step of axis " << axes[i] << " is out of range";
    // Written so that no intermediate overflows.
    int64_t size = step > 0 ? (end > start ? (end - start - 1) / step + 1 : 0)
                            : (start > end ? (start - end - 1) / -step + 1 : 0);
    offsets[a] = size > 0 ? start : 0;
    sizes[a] = size;
    strides[a] = step;
  }
  return done(n, n.make<nn::SliceOp>(x, offsets, sizes, strides));
}

LogicalResult importSqueeze(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  auto type = n.typeOf(0);
  std::optional<SmallVector<int64_t>> given;
  if (n.opset >= 13) {
    if (n.input(1)) {
      ASSIGN_OR_FAIL(a, n.constantInts(1, "axes"));
      given = a;
    }
  } else {
    given = n.intsAttr("axes");
  }
  SmallVector<int64_t> axes;
  if (!given) {
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (type.isDynamicDim(d) &&
          failed(n.requireStatic(0, "Squeeze without axes")))
        return failure();
      if (type.getDimSize(d) == 1)
        axes.push_back(d);
    }
  } else {
    ASSIGN_OR_FAIL(normalized, n.axes(*given, type.getRank()));
    axes = normalized;
  }
  return done(n, n.squeeze(x, axes));
}

LogicalResult importUnsqueeze(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  SmallVector<int64_t> given;
  if (n.opset >= 13) {
    ASSIGN_OR_FAIL(a, n.constantInts(1, "axes"));
    given = a;
  } else {
    given = n.intsAttr("axes").value_or(SmallVector<int64_t>());
  }
  int64_t rank = n.typeOf(0).getRank() + given.size();
  ASSIGN_OR_FAIL(axes, n.axes(given, rank));
  return done(n, n.unsqueeze(x, axes));
}

LogicalResult importGather(Node &n) {
  ASSIGN_OR_FAIL(data, n.required(0, "data"));
  ASSIGN_OR_FAIL(indices, n.required(1, "indices"));
  ASSIGN_OR_FAIL(axis, n.axis(n.intAttr("axis", 0), n.typeOf(0).getRank()));
  return done(n, n.make<nn::GatherOp>(data, indices, axis));
}

LogicalResult importExpand(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  ASSIGN_OR_FAIL(shape, n.constantInts(1, "shape"));
  // Expand broadcasts both ways: the result is the broadcast of the two.
  ArrayRef<int64_t> in = n.typeOf(0).getShape();
  size_t rank = std::max(in.size(), shape.size());
  SmallVector<int64_t> target(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - in.size() ? 1 : in[i - (rank - in.size())];
    int64_t b = i < rank - shape.size() ? 1 : shape[i - (rank - shape.size())];
    if (ShapedType::isDynamic(a))
      return n.requireStatic(0, "Expand");
    if (a != b && a != 1 && b != 1)
      return n.error() << "cannot expand dimension " << i << " of size " << a
                       << " to " << b;
    target[i] = a == 1 ? b : a;
  }
  return done(n, n.make<nn::BroadcastToOp>(x, target));
}

LogicalResult importTile(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  ASSIGN_OR_FAIL(repeats, n.constantInts(1, "repeats"));
  auto type = n.typeOf(0);
  if ((int64_t)repeats.size() != type.getRank())
    return n.error() << "repeats has " << repeats.size() << " entries for rank "
                     << type.getRank();
  if (failed(n.requireStatic(0, "Tile")))
    return failure();
  // tile(x, r) = reshape(broadcast(reshape(x, [1, d0, 1, d1, ...]),
  //                                [r0, d0, r1, d1, ...]), [r0*d0, ...])
  SmallVector<int64_t> interleaved, broadcast, result;
  for (auto [d, r] : llvm::zip(type.getShape(), repeats)) {
    int64_t tiled;
    if (r < 0 || llvm::MulOverflow(r, d, tiled))
      return n.error() << "repeats must be non-negative and small enough";
    interleaved.append({1, d});
    broadcast.append({r, d});
    result.push_back(tiled);
  }
  ASSIGN_OR_FAIL(spread, n.reshape(x, interleaved));
  ASSIGN_OR_FAIL(tiled, n.make<nn::BroadcastToOp>(spread, broadcast));
  return done(n, n.reshape(tiled, result));
}

LogicalResult importPad(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "data"));
  auto type = n.typeOf(0);
  int64_t rank = type.getRank();
  std::string mode = n.stringAttr("mode", "constant");
  SmallVector<int64_t> pads;
  Type element = type.getElementType();
  // The padding value, exactly as given (an int64 may not fit a double).
  TypedAttr padValue;
  SmallVector<int64_t> axes;
  if (n.opset >= 11) {
    ASSIGN_OR_FAIL(p, n.constantInts(1, "pads"));
    pads = p;
    if (n.input(2)) {
      ASSIGN_OR_FAIL(v, n.constant(2, "constant_value"));
      if (v.getNumElements() != 1)
        return n.error() << "input 'constant_value' must hold one value, it "
                            "holds "
                         << v.getNumElements();
      if (v.getElementType() != element)
        return n.error() << "constant_value has type " << v.getElementType()
                         << ", the data " << element;
      padValue = cast<TypedAttr>(*v.getValues<Attribute>().begin());
    }
    if (n.input(3)) {
      ASSIGN_OR_FAIL(a, n.constantInts(3, "axes"));
      for (int64_t v : a) {
        ASSIGN_OR_FAIL(normalized, n.axis(v, rank));
        axes.push_back(normalized);
      }
    }
  } else {
    pads = n.intsAttr("pads").value_or(SmallVector<int64_t>());
    if (isa<FloatType>(element))
      padValue = n.b.getFloatAttr(element, n.floatAttr("value", 0.0f));
  }
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  if (pads.size() != 2 * axes.size())
    return n.error() << "pads has " << pads.size() << " entries for "
                     << axes.size() << " axes";
  for (int64_t p : pads)
    if (p < -kMaxElements || p > kMaxElements)
      return n.error() << "pad " << p << " is out of range";
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    low[axes[i]] = pads[i];
    high[axes[i]] = pads[i + axes.size()];
  }
  // Negative pads crop: slice first, then pad by what is left.
  bool crops = llvm::any_of(low, [](int64_t v) { return v < 0; }) ||
               llvm::any_of(high, [](int64_t v) { return v < 0; });
  if (crops) {
    if (failed(n.requireStatic(0, "Pad with negative pads")))
      return failure();
    SmallVector<int64_t> offsets(rank), sizes(rank), strides(rank, 1);
    for (int64_t d = 0; d < rank; ++d) {
      offsets[d] = std::max<int64_t>(-low[d], 0);
      sizes[d] =
          type.getDimSize(d) - offsets[d] - std::max<int64_t>(-high[d], 0);
      if (sizes[d] < 0)
        return n.error() << "pads crop dimension " << d << " below zero";
      low[d] = std::max<int64_t>(low[d], 0);
      high[d] = std::max<int64_t>(high[d], 0);
    }
    ASSIGN_OR_FAIL(cropped, n.make<nn::SliceOp>(x, offsets, sizes, strides));
    x = cropped;
  }
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(high, [](int64_t v) { return v == 0; }))
    return done(n, x);
  nn::PadMode padMode;
  if (mode == "constant")
    padMode = nn::PadMode::Constant;
  else if (mode == "reflect")
    padMode = nn::PadMode::Reflect;
  else if (mode == "edge")
    padMode = nn::PadMode::Edge;
  else if (mode == "wrap")
    padMode = nn::PadMode::Wrap;
  else
    return n.unsupported() << "pad mode '" << mode << "' is not supported";
  // Zero is the default; it need not be spelled out.
  if (padValue &&
      (padMode != nn::PadMode::Constant || matchPattern(padValue, m_Zero()) ||
       matchPattern(padValue, m_AnyZeroFloat())))
    padValue = {};
  return done(
      n, n.make<nn::PadOp>(
             x, n.b.getDenseI64ArrayAttr(low), n.b.getDenseI64ArrayAttr(high),
             nn::PadModeAttr::get(n.b.getContext(), padMode), padValue));
}

LogicalResult importTrilu(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  int64_t k = 0;
  if (n.input(1)) {
    ASSIGN_OR_FAIL(v, n.constantScalar(1, "k"));
    k = int64_t(v);
  }
  bool upper = n.intAttr("upper", 1) != 0;
  return done(n, n.make<nn::TriluOp>(x, upper ? n.b.getUnitAttr() : UnitAttr(),
                                     n.b.getI64IntegerAttr(k)));
}

LogicalResult importRange(Node &n) {
  SmallVector<Attribute> bounds;
  Type element;
  static const StringRef names[] = {"start", "limit", "delta"};
  for (auto [i, name] : llvm::enumerate(names)) {
    ASSIGN_OR_FAIL(attr, n.constant(i, name));
    if (attr.getNumElements() != 1)
      return n.error() << name << " must be a scalar";
    if (element && attr.getElementType() != element)
      return n.error() << "start, limit and delta must have the same type";
    element = attr.getElementType();
    bounds.push_back(attr.getSplatValue<Attribute>());
  }
  if (element.isInteger(1) ||
      (!isa<FloatType>(element) && !isa<IntegerType>(element)))
    return n.error() << "bounds must be numbers";
  return done(n, n.make<nn::RangeOp>(cast<TypedAttr>(bounds[0]),
                                     cast<TypedAttr>(bounds[1]),
                                     cast<TypedAttr>(bounds[2])));
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

LogicalResult importReduceMean(Node &n) {
  return importReduce<nn::ReduceMeanOp>(n, 18);
}
LogicalResult importReduceSum(Node &n) {
  return importReduce<nn::ReduceSumOp>(n, 13);
}
LogicalResult importReduceMax(Node &n) {
  return importReduce<nn::ReduceMaxOp>(n, 18);
}
LogicalResult importReduceMin(Node &n) {
  return importReduce<nn::ReduceMinOp>(n, 18);
}

const OpImporter kImporters[] = {
    {"Abs", 6, unary<nn::AbsOp>},
    {"Add", 7, binary<nn::AddOp>},
    {"AveragePool", 7, importPool<nn::AvgPoolOp>},
    {"BatchNormalization", 9, importBatchNorm},
    {"Cast", 6, importCast},
    {"Clip", 6, importClip},
    {"Concat", 4, importConcat},
    {"Constant", 9, importConstant},
    {"ConstantOfShape", 9, importConstantOfShape},
    {"Conv", 1, importConv},
    {"Div", 7, binary<nn::DivOp>},
    {"Dropout", 1, importDropout},
    {"Equal", 7, importCompare<nn::CompareDirection::EQ>},
    {"Erf", 9, unary<nn::ErfOp>},
    {"Exp", 6, unary<nn::ExpOp>},
    {"Expand", 8, importExpand},
    {"Flatten", 1, importFlatten},
    {"Gather", 1, importGather},
    {"Gelu", 20, importGelu},
    {"Gemm", 7, importGemm},
    {"GlobalAveragePool", 1,
     importGlobalPool<nn::GlobalAvgPool2dOp, nn::ReduceMeanOp>},
    {"GlobalMaxPool", 1,
     importGlobalPool<nn::GlobalMaxPool2dOp, nn::ReduceMaxOp>},
    {"Greater", 7, importCompare<nn::CompareDirection::GT>},
    {"GreaterOrEqual", 12, importCompare<nn::CompareDirection::GE>},
    {"Identity", 1, importIdentity},
    {"LayerNormalization", 17, importLayerNorm},
    {"LeakyRelu", 6, importLeakyRelu},
    {"Less", 7, importCompare<nn::CompareDirection::LT>},
    {"LessOrEqual", 12, importCompare<nn::CompareDirection::LE>},
    {"Log", 6, unary<nn::LogOp>},
    {"LogSoftmax", 1, importSoftmax<nn::LogSoftmaxOp>},
    {"MatMul", 1, importMatMul},
    {"Max", 8, variadic<nn::MaxOp>},
    {"MaxPool", 8, importPool<nn::MaxPoolOp>},
    {"Min", 8, variadic<nn::MinOp>},
    {"Mul", 7, binary<nn::MulOp>},
    {"Neg", 6, unary<nn::NegOp>},
    {"Pad", 2, importPad},
    {"Pow", 7, importPow},
    {"Range", 11, importRange},
    {"Reciprocal", 6, unary<nn::ReciprocalOp>},
    {"ReduceMax", 1, importReduceMax},
    {"ReduceMean", 1, importReduceMean},
    {"ReduceMin", 1, importReduceMin},
    {"ReduceSum", 1, importReduceSum},
    {"Relu", 6, unary<nn::ReluOp>},
    {"Reshape", 5, importReshape},
    {"Shape", 1, importShape},
    {"Sigmoid", 6, unary<nn::SigmoidOp>},
    {"Size", 1, importSize},
    {"Slice", 1, importSlice},
    {"Softmax", 1, importSoftmax<nn::SoftmaxOp>},
    {"Split", 2, importSplit},
    {"Sqrt", 6, unary<nn::SqrtOp>},
    {"Squeeze", 1, importSqueeze},
    {"Sub", 7, binary<nn::SubOp>},
    {"Tanh", 6, unary<nn::TanhOp>},
    {"Tile", 6, importTile},
    {"Transpose", 1, importTranspose},
    {"Trilu", 14, importTrilu},
    {"Unsqueeze", 1, importUnsqueeze},
    {"Where", 9, importWhere},
};
} // namespace

const OpImporter *loom::onnx_import::lookupOpImporter(StringRef opType) {
  for (const OpImporter &importer : kImporters)
    if (importer.opType == opType)
      return &importer;
  return nullptr;
}

ArrayRef<StringRef> loom::onnx_import::supportedOperators() {
  static const SmallVector<StringRef> names = [] {
    SmallVector<StringRef> result;
    for (const OpImporter &importer : kImporters)
      result.push_back(importer.opType);
    return result;
  }();
  return names;
}
