//===- NNOps.cpp - nn op type inference and verification ------------------===//
//
// Result types are inferred from operands and attributes, and inference is
// where attribute/shape consistency is checked and reported. MLIR runs the
// inference check after an op's verify() (InferTypeOpInterface verifies with
// regions), so verify() methods only check what inference does not, and
// return early on input that inference will reject.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/NN/NNOps.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace loom;
using namespace loom::nn;

namespace {
using Loc = std::optional<Location>;
using Types = SmallVectorImpl<Type>;

LogicalResult fail(Loc loc, const Twine &message) {
  return emitOptionalError(loc, message);
}

std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << '?';
    else
      os << d;
  });
  os << ']';
  return s;
}

/// Sizes agree unless one is dynamic.
bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

bool compatible(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  return a.size() == b.size() && llvm::all_of(llvm::zip(a, b), [](auto p) {
           return compatible(std::get<0>(p), std::get<1>(p));
         });
}

/// A shape attribute giving a result shape: static and non-negative.
LogicalResult checkTargetShape(Loc loc, ArrayRef<int64_t> shape) {
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return fail(loc, "target shape " + shapeStr(shape) +
                         " must be static and non-negative");
  return success();
}

LogicalResult checkAxis(Loc loc, int64_t axis, int64_t rank, StringRef name) {
  if (axis < 0 || axis >= rank)
    return fail(loc, Twine(name) + " " + Twine(axis) +
                         " is out of range for rank " + Twine(rank));
  return success();
}

/// Output extent of a pooled/convolved spatial dimension.
FailureOr<int64_t> windowOutput(Loc loc, int64_t in, int64_t kernel,
                                int64_t stride, int64_t padLo, int64_t padHi,
                                int64_t dilation, bool ceilMode) {
  if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel))
    return ShapedType::kDynamic;
  // Attributes come from models: every step is overflow-checked.
  int64_t span, padded;
  if (llvm::MulOverflow(dilation, kernel - 1, span) ||
      llvm::AddOverflow(span, int64_t(1), span) ||
      llvm::AddOverflow(in, padLo, padded) ||
      llvm::AddOverflow(padded, padHi, padded)) {
    (void)fail(loc, "window sizes overflow 64-bit arithmetic");
    return failure();
  }
  if (padded < span) {
    (void)fail(loc, "window of extent " + Twine(span) +
                        " is larger than the padded input extent " +
                        Twine(padded));
    return failure();
  }
  int64_t out = ceilMode ? llvm::divideCeil(padded - span, stride) + 1
                         : (padded - span) / stride + 1;
  // A window must start inside the input or its leading padding.
  int64_t lastStart;
  if (ceilMode && !llvm::MulOverflow(out - 1, stride, lastStart) &&
      lastStart >= in + padLo)
    --out;
  return out;
}

/// Whether `values` holds `count` entries, each at least `min`.
bool allAtLeast(ArrayRef<int64_t> values, size_t count, int64_t min) {
  return values.size() == count &&
         llvm::all_of(values, [&](int64_t v) { return v >= min; });
}

/// Validates the window attributes shared by convolution and pooling over
/// `spatial` dimensions.
LogicalResult checkWindow(Loc loc, size_t spatial, ArrayRef<int64_t> strides,
                          ArrayRef<int64_t> padding,
                          ArrayRef<int64_t> dilations) {
  std::string count = " (" + std::to_string(spatial) + "), got ";
  if (!allAtLeast(strides, spatial, 1))
    return fail(loc, "strides must hold one positive integer per spatial "
                     "dimension" +
                         count + shapeStr(strides));
  if (!allAtLeast(padding, 2 * spatial, 0))
    return fail(loc, "padding must hold two non-negative integers per spatial "
                     "dimension, all begins then all ends (" +
                         Twine(2 * spatial) + "), got " + shapeStr(padding));
  if (!allAtLeast(dilations, spatial, 1))
    return fail(loc, "dilations must hold one positive integer per spatial "
                     "dimension" +
                         count + shapeStr(dilations));
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

bool loom::nn::isStorageOnlyType(Type t) {
  return isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
             Float8E5M2FNUZType>(t) ||
         t.isInteger(4);
}

Type loom::nn::getStorageType(Type t) {
  if (isStorageOnlyType(t))
    return IntegerType::get(t.getContext(), 8);
  if (t.isUnsignedInteger())
    return IntegerType::get(t.getContext(), t.getIntOrFloatBitWidth());
  return t;
}

LogicalResult loom::nn::inferBroadcastResult(Loc loc, TypeRange operandTypes,
                                             Type elementType, Types &results) {
  SmallVector<int64_t> shape;
  for (auto [i, type] : llvm::enumerate(operandTypes)) {
    auto t = cast<RankedTensorType>(type);
    SmallVector<int64_t> next;
    if (!OpTrait::util::getBroadcastedShape(shape, t.getShape(), next))
      return fail(loc, "operand shapes " + shapeStr(shape) + " and " +
                           shapeStr(t.getShape()) + " do not broadcast");
    shape = std::move(next);
  }
  results.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

LogicalResult loom::nn::verifyAxes(Operation *op, ArrayRef<int64_t> axes,
                                   int64_t rank, bool requireSorted) {
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank)
      return op->emitOpError("axis ")
             << axis << " is out of range for rank " << rank;
    if (!seen.insert(axis).second)
      return op->emitOpError("axis ") << axis << " is repeated";
  }
  if (requireSorted && !llvm::is_sorted(axes))
    return op->emitOpError("axes must be sorted");
  return success();
}

LogicalResult loom::nn::inferReduceResult(Loc loc, Type inputType,
                                          ArrayRef<int64_t> axes, bool keepdims,
                                          Types &results) {
  auto input = cast<RankedTensorType>(inputType);
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < input.getRank(); ++d) {
    if (!llvm::is_contained(axes, d))
      shape.push_back(input.getDimSize(d));
    else if (keepdims)
      shape.push_back(1);
  }
  for (int64_t axis : axes)
    if (failed(checkAxis(loc, axis, input.getRank(), "axis")))
      return failure();
  results.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, Loc loc,
                                           Adaptor adaptor, Types &types) {
  // The parser and the op's invariants guarantee an elements attribute.
  types.push_back(cast<ElementsAttr>(adaptor.getValueAttr()).getType());
  return success();
}

LogicalResult ParameterOp::inferReturnTypes(MLIRContext *, Loc loc,
                                            Adaptor adaptor, Types &types) {
  types.push_back(cast<ElementsAttr>(adaptor.getValueAttr()).getType());
  return success();
}

LogicalResult ParameterOp::verify() {
  if (getName().empty())
    return emitOpError("needs a non-empty name");
  return success();
}

/// Length of the ONNX Range sequence, or failure with a diagnostic.
static FailureOr<int64_t> rangeLength(Loc loc, TypedAttr start, TypedAttr limit,
                                      TypedAttr delta) {
  if (start.getType() != limit.getType() ||
      start.getType() != delta.getType()) {
    (void)fail(loc, "start, limit and delta must have the same type");
    return failure();
  }
  bool integers = isa<IntegerAttr>(start) && isa<IntegerAttr>(limit) &&
                  isa<IntegerAttr>(delta);
  bool floats =
      isa<FloatAttr>(start) && isa<FloatAttr>(limit) && isa<FloatAttr>(delta);
  if (!integers && !floats) {
    (void)fail(loc, "start, limit and delta must be integers or floats");
    return failure();
  }
  if (integers) {
    int64_t s = cast<IntegerAttr>(start).getInt(),
            l = cast<IntegerAttr>(limit).getInt(),
            d = cast<IntegerAttr>(delta).getInt();
    int64_t span;
    if (d == 0) {
      (void)fail(loc, "delta must not be zero");
      return failure();
    }
    // INT64_MIN / -1 overflows too.
    if (llvm::SubOverflow(l, s, span) || (span == INT64_MIN && d == -1)) {
      (void)fail(loc, "range bounds overflow");
      return failure();
    }
    int64_t n = llvm::divideCeilSigned(span, d);
    if (n > (int64_t(1) << 48)) {
      (void)fail(loc, "range has more than 2^48 elements");
      return failure();
    }
    return std::max<int64_t>(n, 0);
  }
  auto s = cast<FloatAttr>(start), l = cast<FloatAttr>(limit),
       d = cast<FloatAttr>(delta);
  double dv = d.getValueAsDouble();
  if (dv == 0) {
    (void)fail(loc, "delta must not be zero");
    return failure();
  }
  double n = std::ceil((l.getValueAsDouble() - s.getValueAsDouble()) / dv);
  if (n >= double(int64_t(1) << 48)) {
    (void)fail(loc, "range has more than 2^48 elements");
    return failure();
  }
  return n > 0 ? (int64_t)n : 0;
}

LogicalResult RangeOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                        Types &types) {
  auto n = rangeLength(loc, adaptor.getStartAttr(), adaptor.getLimitAttr(),
                       adaptor.getDeltaAttr());
  if (failed(n))
    return failure();
  types.push_back(
      RankedTensorType::get({*n}, adaptor.getStartAttr().getType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::inferReturnTypes(MLIRContext *ctx, Loc loc,
                                          Adaptor adaptor, Types &types) {
  return inferBroadcastResult(loc, adaptor.getOperands().getTypes(),
                              IntegerType::get(ctx, 1), types);
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                        Types &types) {
  Type a = getElementTypeOrSelf(adaptor.getOnTrue().getType());
  Type b = getElementTypeOrSelf(adaptor.getOnFalse().getType());
  if (a != b)
    return fail(loc, "on_true and on_false must have the same element type");
  return inferBroadcastResult(loc, adaptor.getOperands().getTypes(), a, types);
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                       Types &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  Type to = adaptor.getTo();
  // Once -nn-legalize-storage-types has recorded the source type, the cast
  // works on storage types: its result holds `to` in its storage type.
  if (DictionaryAttr attrs = adaptor.getAttributes();
      attrs && attrs.contains(NNDialect::CastFromAttrHelper::getNameStr()))
    to = getStorageType(to);
  types.push_back(input.clone(to));
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions and windows
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *, Loc loc,
                                         Adaptor adaptor, Types &types) {
  auto lhs = cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = cast<RankedTensorType>(adaptor.getRhs().getType());
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return fail(loc, "operands must have rank 2 or more, got ranks " +
                         Twine(lhs.getRank()) + " and " + Twine(rhs.getRank()));
  ArrayRef<int64_t> l = lhs.getShape(), r = rhs.getShape();
  int64_t k = l.back(), k2 = r[r.size() - 2];
  if (!compatible(k, k2))
    return fail(loc, "contracting dimensions differ: lhs " + shapeStr(l) +
                         " has " + Twine(k) + ", rhs " + shapeStr(r) + " has " +
                         Twine(k2));
  SmallVector<int64_t> batch;
  if (!OpTrait::util::getBroadcastedShape(l.drop_back(2), r.drop_back(2),
                                          batch))
    return fail(loc, "batch dimensions " + shapeStr(l.drop_back(2)) + " and " +
                         shapeStr(r.drop_back(2)) + " do not broadcast");
  batch.push_back(l[l.size() - 2]);
  batch.push_back(r.back());
  types.push_back(RankedTensorType::get(batch, lhs.getElementType()));
  return success();
}

LogicalResult Conv2dOp::inferReturnTypes(MLIRContext *, Loc loc,
                                         Adaptor adaptor, Types &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto filter = cast<RankedTensorType>(adaptor.getFilter().getType());
  if (input.getRank() != 4 || filter.getRank() != 4)
    return fail(loc, "input (NCHW) and filter (OIHW) must have rank 4");
  if (failed(checkWindow(loc, 2, adaptor.getStrides(), adaptor.getPadding(),
                         adaptor.getDilations())))
    return failure();
  int64_t groups = adaptor.getGroups();
  if (groups <= 0)
    return fail(loc, "groups must be positive, got " + Twine(groups));
  int64_t c = input.getDimSize(1), o = filter.getDimSize(0),
          cg = filter.getDimSize(1);
  if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(cg) &&
      c != cg * groups)
    return fail(loc, "input has " + Twine(c) +
                         " channels but the filter expects " + Twine(cg) +
                         " per group x " + Twine(groups) + " groups");
  if (!ShapedType::isDynamic(o) && o % groups != 0)
    return fail(loc, "filter has " + Twine(o) +
                         " output channels, not divisible by " + Twine(groups) +
                         " groups");
  SmallVector<int64_t> shape = {input.getDimSize(0), o, 0, 0};
  for (int i = 0; i < 2; ++i) {
    auto out =
        windowOutput(loc, input.getDimSize(2 + i), filter.getDimSize(2 + i),
                     adaptor.getStrides()[i], adaptor.getPadding()[i],
                     adaptor.getPadding()[2 + i], adaptor.getDilations()[i],
                     /*ceilMode=*/false);
    if (failed(out))
      return failure();
    shape[2 + i] = *out;
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult Conv2dOp::verify() {
  if (!getBias() || getFilter().getType().getRank() != 4)
    return success();
  auto bias = getBias().getType();
  int64_t o = getFilter().getType().getDimSize(0);
  if (bias.getRank() != 1 || !compatible(bias.getDimSize(0), o))
    return emitOpError("bias must have shape [") << o << "], got " << bias;
  return success();
}

static SmallVector<int64_t> orFill(std::optional<ArrayRef<int64_t>> values,
                                   size_t count, int64_t fill) {
  if (values)
    return SmallVector<int64_t>(*values);
  return SmallVector<int64_t>(count, fill);
}

SmallVector<int64_t> PoolWindow::averageCounts(size_t i, int64_t outputs,
                                               int64_t inputExtent,
                                               bool countIncludePad) const {
  if (countIncludePad)
    return SmallVector<int64_t>(outputs, kernel[i]);
  SmallVector<int64_t> counts;
  for (int64_t o = 0; o < outputs; ++o) {
    // Positions start + k * dilation for k in [0, kernel); those inside
    // have k in [first, last).
    int64_t start = o * strides[i] - padding[i];
    int64_t first =
        (std::max<int64_t>(-start, 0) + dilations[i] - 1) / dilations[i];
    int64_t last =
        std::min(kernel[i], (std::max<int64_t>(inputExtent - start, 0) +
                             dilations[i] - 1) /
                                dilations[i]);
    counts.push_back(std::max<int64_t>(last - first, 0));
  }
  return counts;
}

PoolWindow::PoolWindow(ArrayRef<int64_t> kernel,
                       std::optional<ArrayRef<int64_t>> strides,
                       std::optional<ArrayRef<int64_t>> padding,
                       std::optional<ArrayRef<int64_t>> dilations)
    : kernel(kernel), strides(orFill(strides, kernel.size(), 1)),
      padding(orFill(padding, 2 * kernel.size(), 0)),
      dilations(orFill(dilations, kernel.size(), 1)) {}

LogicalResult loom::nn::inferPoolResult(Loc loc, Type inputType,
                                        const PoolWindow &window, bool ceilMode,
                                        Types &types) {
  auto input = cast<RankedTensorType>(inputType);
  int64_t rank = input.getRank();
  if (rank < 3 || rank > 5)
    return fail(loc, "input must have rank 3 to 5 (N, C and 1 to 3 spatial "
                     "dimensions), got rank " +
                         Twine(rank));
  size_t spatial = rank - 2;
  if (!allAtLeast(window.kernel, spatial, 1))
    return fail(loc, "kernel must hold one positive integer per spatial "
                     "dimension (" +
                         Twine(spatial) + "), got " + shapeStr(window.kernel));
  if (failed(checkWindow(loc, spatial, window.strides, window.padding,
                         window.dilations)))
    return failure();
  SmallVector<int64_t> shape(input.getShape());
  for (size_t i = 0; i < spatial; ++i) {
    auto out =
        windowOutput(loc, shape[2 + i], window.kernel[i], window.strides[i],
                     window.padding[i], window.padding[spatial + i],
                     window.dilations[i], ceilMode);
    if (failed(out))
      return failure();
    shape[2 + i] = *out;
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult loom::nn::verifyPoolPadding(Operation *op,
                                          const PoolWindow &window) {
  // Inference reports attributes of the wrong length or sign.
  size_t spatial = window.rank();
  if (window.padding.size() != 2 * spatial ||
      window.dilations.size() != spatial ||
      !allAtLeast(window.kernel, spatial, 1) ||
      !allAtLeast(window.dilations, spatial, 1))
    return success();
  for (size_t i = 0; i < spatial; ++i) {
    int64_t span; // inference reports an overflowing extent
    if (llvm::MulOverflow(window.kernel[i] - 1, window.dilations[i], span))
      return success();
    if (window.padding[i] > span || window.padding[spatial + i] > span)
      return op->emitOpError("padding must be smaller than the window extent");
  }
  return success();
}

LogicalResult MaxPoolWithIndicesOp::inferReturnTypes(MLIRContext *ctx, Loc loc,
                                                     Adaptor adaptor,
                                                     Types &types) {
  if (failed(inferPoolResult(
          loc, adaptor.getInput().getType(),
          PoolWindow(adaptor.getKernel(), adaptor.getStrides(),
                     adaptor.getPadding(), adaptor.getDilations()),
          adaptor.getCeilMode(), types)))
    return failure();
  types.push_back(
      cast<RankedTensorType>(types.front()).clone(IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult MaxPoolWithIndicesOp::verify() {
  return verifyPoolPadding(*this, getWindow());
}

static LogicalResult inferGlobalPool(Loc loc, Type inputType, Types &types) {
  auto input = cast<RankedTensorType>(inputType);
  if (input.getRank() != 4)
    return fail(loc, "input must have rank 4 (NCHW), got rank " +
                         Twine(input.getRank()));
  types.push_back(
      RankedTensorType::get({input.getDimSize(0), input.getDimSize(1), 1, 1},
                            input.getElementType()));
  return success();
}

LogicalResult GlobalAvgPool2dOp::inferReturnTypes(MLIRContext *, Loc loc,
                                                  Adaptor adaptor,
                                                  Types &types) {
  return inferGlobalPool(loc, adaptor.getInput().getType(), types);
}

LogicalResult GlobalMaxPool2dOp::inferReturnTypes(MLIRContext *, Loc loc,
                                                  Adaptor adaptor,
                                                  Types &types) {
  return inferGlobalPool(loc, adaptor.getInput().getType(), types);
}

//===----------------------------------------------------------------------===//
// Normalisations
//===----------------------------------------------------------------------===//

static LogicalResult verifyAxisOf(Operation *op, int64_t axis, Type type) {
  int64_t rank = cast<RankedTensorType>(type).getRank();
  if (axis < 0 || axis >= rank)
    return op->emitOpError("axis ")
           << axis << " is out of range for rank " << rank;
  return success();
}

LogicalResult SoftmaxOp::verify() {
  return verifyAxisOf(*this, getAxis(), getInput().getType());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifyAxisOf(*this, getAxis(), getInput().getType());
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *, Loc loc,
                                            Adaptor adaptor, Types &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  if (failed(checkAxis(loc, adaptor.getAxis(), input.getRank(), "axis")))
    return failure();
  types.push_back(input);
  return success();
}

LogicalResult LayerNormOp::verify() {
  // I64Attr getters are unsigned: compare as the signed value it holds.
  int64_t axis = getAxis();
  if (axis < 0 || axis >= getInput().getType().getRank())
    return success();
  ArrayRef<int64_t> normalized =
      getInput().getType().getShape().drop_front(getAxis());
  for (auto [name, value] : {std::pair<StringRef, Value>{"scale", getScale()},
                             {"bias", getBias()}}) {
    if (!value)
      continue;
    auto shape = cast<RankedTensorType>(value.getType()).getShape();
    if (!compatible(shape, normalized))
      return emitOpError() << name << " must have the normalized shape "
                           << shapeStr(normalized) << ", got "
                           << shapeStr(shape);
  }
  if (getEpsilon().convertToDouble() < 0)
    return emitOpError("epsilon must be non-negative");
  return success();
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *, Loc loc,
                                            Adaptor adaptor, Types &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  if (input.getRank() < 2)
    return fail(loc, "input must have rank 2 or more (N, C, ...)");
  types.push_back(input);
  return success();
}

LogicalResult BatchNormOp::verify() {
  if (getInput().getType().getRank() < 2)
    return success();
  int64_t c = getInput().getType().getDimSize(1);
  for (auto [name, value] : {std::pair<StringRef, Value>{"scale", getScale()},
                             {"bias", getBias()},
                             {"mean", getMean()},
                             {"variance", getVariance()}}) {
    auto t = cast<RankedTensorType>(value.getType());
    if (t.getRank() != 1 || !compatible(t.getDimSize(0), c))
      return emitOpError() << name << " must have shape [" << c << "], got "
                           << t;
  }
  if (getEpsilon().convertToDouble() < 0)
    return emitOpError("epsilon must be non-negative");
  return success();
}

LogicalResult CrossEntropyOp::inferReturnTypes(MLIRContext *, Loc loc,
                                               Adaptor adaptor, Types &types) {
  auto logits = cast<RankedTensorType>(adaptor.getLogits().getType());
  if (failed(checkAxis(loc, adaptor.getClassAxis(), logits.getRank(),
                       "class_axis")))
    return failure();
  types.push_back(RankedTensorType::get({}, logits.getElementType()));
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  int64_t classAxis = getClassAxis();
  if (classAxis < 0 || classAxis >= getLogits().getType().getRank())
    return success();
  SmallVector<int64_t> expected(getLogits().getType().getShape());
  expected.erase(expected.begin() + getClassAxis());
  ArrayRef<int64_t> labels = getLabels().getType().getShape();
  if (!compatible(labels, expected))
    return emitOpError("labels must have the logits' shape without the class "
                       "axis, ")
           << shapeStr(expected) << ", got " << shapeStr(labels);
  return success();
}

//===----------------------------------------------------------------------===//
// Indexing and data movement
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *, Loc loc,
                                         Adaptor adaptor, Types &types) {
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, axis, data.getRank(), "axis")))
    return failure();
  SmallVector<int64_t> shape(data.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(axis + 1));
  types.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

/// Checks constant `indices` into dimension `axis` of static size `extent`
/// (negative ones count from the end): an out-of-range index is an error
/// where it is written, not a clamped read at run time.
static LogicalResult verifyConstantIndices(Operation *op, Value indices,
                                           int64_t axis, int64_t extent) {
  DenseElementsAttr values;
  if (ShapedType::isDynamic(extent) ||
      !matchPattern(indices, m_Constant(&values)))
    return success();
  int64_t count = values.isSplat() ? 1 : values.getNumElements();
  for (int64_t i = 0; i < count; ++i) {
    int64_t index = values.getValues<APInt>()[i].getSExtValue();
    if (index < -extent || index >= extent)
      return op->emitOpError("index ")
             << index << " (element " << i
             << " of the constant indices) is out of range [" << -extent << ", "
             << extent - 1 << "] for axis " << axis << " of size " << extent;
  }
  return success();
}

LogicalResult GatherOp::verify() {
  RankedTensorType data = getData().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= data.getRank())
    return success(); // inference reports it
  return verifyConstantIndices(*this, getIndices(), axis,
                               data.getDimSize(axis));
}

LogicalResult ScatterAddOp::inferReturnTypes(MLIRContext *, Loc loc,
                                             Adaptor adaptor, Types &types) {
  auto updates = cast<RankedTensorType>(adaptor.getUpdates().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t axis = adaptor.getAxis(), size = adaptor.getSize();
  int64_t ir = indices.getRank();
  if (failed(checkAxis(loc, axis, updates.getRank() - ir + 1, "axis")))
    return failure();
  if (size < 0)
    return fail(loc, "size " + Twine(size) + " must be non-negative");
  SmallVector<int64_t> shape(updates.getShape().take_front(axis));
  shape.push_back(size);
  llvm::append_range(shape, updates.getShape().drop_front(axis + ir));
  types.push_back(RankedTensorType::get(shape, updates.getElementType()));
  return success();
}

LogicalResult ScatterAddOp::verify() {
  RankedTensorType updates = getUpdates().getType();
  auto indices = cast<RankedTensorType>(getIndices().getType());
  int64_t axis = getAxis(), ir = indices.getRank();
  if (axis < 0 || axis + ir > updates.getRank())
    return success(); // inference reports it
  ArrayRef<int64_t> at = updates.getShape().slice(axis, ir);
  if (!compatible(at, indices.getShape()))
    return emitOpError("updates must have the indices' shape ")
           << shapeStr(indices.getShape()) << " at dimension " << axis
           << ", got " << shapeStr(at);
  return verifyConstantIndices(*this, getIndices(), axis, getSize());
}

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *, Loc loc,
                                          Adaptor adaptor, Types &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> shape = adaptor.getShape();
  if (failed(checkTargetShape(loc, shape)))
    return failure();
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType input = getInput().getType();
  if (!input.hasStaticShape() ||
      llvm::any_of(getShape(), [](int64_t d) { return d < 0; }))
    return success();
  int64_t count = 1;
  for (int64_t d : getShape())
    if (llvm::MulOverflow(count, d, count))
      return emitOpError("target shape ")
             << shapeStr(getShape())
             << " has more elements than fit in 64 bits";
  if (count != input.getNumElements())
    return emitOpError("cannot reshape ")
           << shapeStr(input.getShape()) << " (" << input.getNumElements()
           << " elements) to " << shapeStr(getShape()) << " (" << count
           << " elements)";
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, Loc loc,
                                            Adaptor adaptor, Types &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  int64_t rank = input.getRank();
  SmallVector<bool> seen(rank, false);
  if ((int64_t)perm.size() != rank)
    return fail(loc, "permutation " + shapeStr(perm) + " must have " +
                         Twine(rank) + " entries");
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return fail(loc, shapeStr(perm) + " is not a permutation of [0, " +
                           Twine(rank) + ")");
    seen[p] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(input.getDimSize(p));
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *, Loc loc,
                                         Adaptor adaptor, Types &types) {
  // The op's invariants guarantee at least one input.
  auto first = cast<RankedTensorType>(adaptor.getInputs().front().getType());
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, axis, first.getRank(), "axis")))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, value] : llvm::enumerate(adaptor.getInputs().drop_front())) {
    auto t = cast<RankedTensorType>(value.getType());
    if (t.getRank() != first.getRank())
      return fail(loc, "input #" + Twine(i + 1) + " has rank " +
                           Twine(t.getRank()) + ", expected " +
                           Twine(first.getRank()));
    for (int64_t d = 0; d < t.getRank(); ++d) {
      int64_t size = t.getDimSize(d);
      if (d == axis) {
        if (ShapedType::isDynamic(shape[d]) || ShapedType::isDynamic(size))
          shape[d] = ShapedType::kDynamic;
        else if (llvm::AddOverflow(shape[d], size, shape[d]))
          return fail(loc,
                      "concatenated dimension overflows 64-bit arithmetic");
      } else if (!compatible(shape[d], size)) {
        return fail(loc, "input #" + Twine(i + 1) + " has shape " +
                             shapeStr(t.getShape()) +
                             ", which differs from input #0 " +
                             shapeStr(first.getShape()) +
                             " outside the concatenation axis");
      }
    }
  }
  types.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                        Types &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t rank = input.getRank();
  ArrayRef<int64_t> offsets = adaptor.getOffsets(), sizes = adaptor.getSizes(),
                    strides = adaptor.getStrides();
  if ((int64_t)offsets.size() != rank || (int64_t)sizes.size() != rank ||
      (int64_t)strides.size() != rank)
    return fail(loc, "offsets, sizes and strides must have " + Twine(rank) +
                         " entries each");
  for (int64_t d = 0; d < rank; ++d) {
    if (strides[d] == 0)
      return fail(loc, "stride of dimension " + Twine(d) + " is zero");
    if (sizes[d] < 0)
      return fail(loc, "size of dimension " + Twine(d) + " is negative");
    int64_t dim = input.getDimSize(d);
    if (sizes[d] == 0 || ShapedType::isDynamic(dim))
      continue;
    int64_t last;
    if (llvm::MulOverflow(sizes[d] - 1, strides[d], last) ||
        llvm::AddOverflow(last, offsets[d], last) || offsets[d] < 0 ||
        offsets[d] >= dim || last < 0 || last >= dim)
      return fail(loc, "dimension " + Twine(d) + " reads indices " +
                           Twine(offsets[d]) + " to " + Twine(last) +
                           ", outside [0, " + Twine(dim) + ")");
  }
  types.push_back(RankedTensorType::get(sizes, input.getElementType()));
  return success();
}

LogicalResult SplitOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                        Types &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxis(loc, axis, input.getRank(), "axis")))
    return failure();
  int64_t total = 0;
  for (int64_t size : adaptor.getSizes()) {
    if (size < 0)
      return fail(loc, "split sizes must be non-negative");
    if (llvm::AddOverflow(total, size, total))
      return fail(loc, "split sizes overflow 64-bit arithmetic");
    SmallVector<int64_t> shape(input.getShape());
    shape[axis] = size;
    types.push_back(RankedTensorType::get(shape, input.getElementType()));
  }
  if (adaptor.getSizes().empty())
    return fail(loc, "needs at least one split size");
  if (!compatible(total, input.getDimSize(axis)))
    return fail(loc, "split sizes add up to " + Twine(total) +
                         " but dimension " + Twine(axis) + " has " +
                         Twine(input.getDimSize(axis)));
  return success();
}

LogicalResult BroadcastToOp::inferReturnTypes(MLIRContext *, Loc loc,
                                              Adaptor adaptor, Types &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> shape = adaptor.getShape();
  if (failed(checkTargetShape(loc, shape)))
    return failure();
  int64_t offset = (int64_t)shape.size() - input.getRank();
  if (offset < 0)
    return fail(loc, "cannot broadcast rank " + Twine(input.getRank()) +
                         " to the lower rank " + Twine(shape.size()));
  for (int64_t d = 0; d < input.getRank(); ++d) {
    int64_t size = input.getDimSize(d);
    if (size != 1 && !compatible(size, shape[offset + d]))
      return fail(loc, "cannot broadcast " + shapeStr(input.getShape()) +
                           " to " + shapeStr(shape));
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *, Loc loc,
                                          Adaptor adaptor, Types &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> axes = adaptor.getAxes();
  for (int64_t axis : axes) {
    if (failed(checkAxis(loc, axis, input.getRank(), "axis")))
      return failure();
    if (!compatible(input.getDimSize(axis), 1))
      return fail(loc, "cannot squeeze dimension " + Twine(axis) + " of size " +
                           Twine(input.getDimSize(axis)));
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < input.getRank(); ++d)
    if (!llvm::is_contained(axes, d))
      shape.push_back(input.getDimSize(d));
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult SqueezeOp::verify() {
  return verifyAxes(*this, getAxes(), getInput().getType().getRank(), true);
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *, Loc loc,
                                            Adaptor adaptor, Types &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> axes = adaptor.getAxes();
  int64_t rank = input.getRank() + axes.size();
  for (int64_t axis : axes)
    if (failed(checkAxis(loc, axis, rank, "axis")))
      return failure();
  SmallVector<int64_t> shape;
  ArrayRef<int64_t> in = input.getShape();
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(axes, d)) {
      shape.push_back(1);
    } else if (!in.empty()) { // repeated axes leave fewer; verify() says so
      shape.push_back(in.front());
      in = in.drop_front();
    }
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult UnsqueezeOp::verify() {
  return verifyAxes(*this, getAxes(), getResult().getType().getRank(), true);
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, Loc loc, Adaptor adaptor,
                                      Types &types) {
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> low = adaptor.getLow(), high = adaptor.getHigh();
  int64_t rank = input.getRank();
  if ((int64_t)low.size() != rank || (int64_t)high.size() != rank)
    return fail(loc, "low and high must have " + Twine(rank) + " entries each");
  SmallVector<int64_t> shape(input.getShape());
  for (int64_t d = 0; d < rank; ++d) {
    if (low[d] < 0 || high[d] < 0)
      return fail(loc, "padding of dimension " + Twine(d) +
                           " is negative (use nn.slice to crop)");
    if (!ShapedType::isDynamic(shape[d]) &&
        (llvm::AddOverflow(shape[d], low[d], shape[d]) ||
         llvm::AddOverflow(shape[d], high[d], shape[d])))
      return fail(loc, "padded dimension " + Twine(d) +
                           " overflows 64-bit arithmetic");
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult PadOp::verify() {
  RankedTensorType input = getInput().getType();
  if ((int64_t)getLow().size() != input.getRank() ||
      (int64_t)getHigh().size() != input.getRank())
    return success();
  if (getMode() != PadMode::Constant) {
    if (getValue())
      return emitOpError("a padding value is only allowed in constant mode");
    if (getMode() == PadMode::Reflect)
      for (int64_t d = 0; d < input.getRank(); ++d) {
        int64_t size = input.getDimSize(d);
        if (!ShapedType::isDynamic(size) &&
            (getLow()[d] >= size || getHigh()[d] >= size))
          return emitOpError("reflect padding of dimension ")
                 << d << " must be smaller than its size " << size;
      }
    if (getMode() == PadMode::Edge || getMode() == PadMode::Wrap)
      for (int64_t d = 0; d < input.getRank(); ++d)
        if (input.getDimSize(d) == 0 && (getLow()[d] || getHigh()[d]))
          return emitOpError("cannot ") << stringifyPadMode(getMode())
                                        << "-pad the empty dimension " << d;
    return success();
  }
  if (auto value = getValueAttr())
    if (value.getType() != input.getElementType())
      return emitOpError("padding value type ")
             << value.getType() << " differs from the element type "
             << input.getElementType();
  return success();
}

LogicalResult TriluOp::verify() {
  if (getInput().getType().getRank() < 2)
    return emitOpError("input must have rank 2 or more");
  return success();
}
