//===- NNFolds.cpp - Folding of nn ops ------------------------------------===//
//
// Cheap folds only: identities (reshape to the same type, transpose by the
// identity, ...), compositions (reshape of reshape, transpose of transpose,
// neg of neg) and constant evaluation of tensors of at most kFoldLimit
// elements, which is what ONNX shape-computation subgraphs need. Floats are
// evaluated in their own semantics where APFloat can, otherwise in double
// and rounded once.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/NN/NNOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/APSInt.h"
#include <cmath>

using namespace mlir;
using namespace loom;
using namespace loom::nn;

namespace {
constexpr int64_t kFoldLimit = 1 << 16;

/// A dense constant operand small enough to fold, or null.
DenseElementsAttr foldable(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.getType().hasStaticShape())
    return {};
  if (!dense.isSplat() && dense.getNumElements() > kFoldLimit)
    return {};
  return dense;
}

/// Whether the op's integers are unsigned: by their type, or, after
/// -nn-legalize-storage-types, which stores them as signless, by
/// `nn.unsigned`.
bool isUnsignedOp(Operation *op) {
  if (op->hasAttr(NNDialect::UnsignedAttrHelper::getNameStr()))
    return true;
  return llvm::any_of(op->getOperandTypes(), [](Type t) {
    return getElementTypeOrSelf(t).isUnsignedInteger();
  });
}

bool smallEnough(ShapedType type) {
  return type.hasStaticShape() && type.getNumElements() <= kFoldLimit;
}

/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Multi-index of linear index `linear` in `shape`.
SmallVector<int64_t> unravel(int64_t linear, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> index(shape.size());
  for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
    index[d] = shape[d] ? linear % shape[d] : 0;
    linear = shape[d] ? linear / shape[d] : 0;
  }
  return index;
}

/// For each element of `result`, the linear index of the element of the
/// broadcast operand `operand` it reads.
SmallVector<int64_t> broadcastSources(ArrayRef<int64_t> operand,
                                      ArrayRef<int64_t> result) {
  SmallVector<int64_t> strides = stridesOf(operand);
  int64_t offset = result.size() - operand.size();
  int64_t n = ShapedType::getNumElements(result);
  SmallVector<int64_t> sources(n);
  for (int64_t i = 0; i < n; ++i) {
    SmallVector<int64_t> index = unravel(i, result);
    int64_t src = 0;
    for (size_t d = 0; d < operand.size(); ++d)
      if (operand[d] != 1)
        src += index[d + offset] * strides[d];
    sources[i] = src;
  }
  return sources;
}

/// A constant of `type` whose element i is element sources[i] of `in`.
DenseElementsAttr gatherElements(DenseElementsAttr in, ShapedType type,
                                 ArrayRef<int64_t> sources) {
  if (in.isSplat())
    return DenseElementsAttr::get(type, in.getSplatValue<Attribute>());
  if (isa<FloatType>(in.getElementType())) {
    SmallVector<APFloat> values(in.getValues<APFloat>());
    SmallVector<APFloat> out;
    out.reserve(sources.size());
    for (int64_t s : sources)
      out.push_back(values[s]);
    return DenseElementsAttr::get(type, out);
  }
  SmallVector<APInt> values(in.getValues<APInt>());
  SmallVector<APInt> out;
  out.reserve(sources.size());
  for (int64_t s : sources)
    out.push_back(values[s]);
  return DenseElementsAttr::get(type, out);
}

APFloat fromDouble(double value, const llvm::fltSemantics &semantics) {
  APFloat result(value);
  bool lost;
  result.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
  return result;
}

double toDouble(const APFloat &value) {
  APFloat copy = value;
  bool lost;
  copy.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return copy.convertToDouble();
}

using FloatFn = llvm::function_ref<std::optional<APFloat>(const APFloat &)>;
using IntFn = llvm::function_ref<std::optional<APInt>(const APInt &)>;

/// Maps `fn` over the elements of `in`; null if `fn` declines one.
template <typename ElementT, typename Fn>
OpFoldResult mapElements(DenseElementsAttr in, ShapedType type, Fn fn) {
  if (in.isSplat()) {
    auto r = fn(in.getSplatValue<ElementT>());
    return r ? DenseElementsAttr::get(type, *r) : OpFoldResult();
  }
  SmallVector<ElementT> out;
  for (const ElementT &v : in.getValues<ElementT>()) {
    auto r = fn(v);
    if (!r)
      return {};
    out.push_back(*r);
  }
  return DenseElementsAttr::get(type, out);
}

/// Applies a unary function elementwise to a foldable constant.
OpFoldResult foldUnary(Attribute operand, ShapedType type, FloatFn floatFn,
                       IntFn intFn = nullptr) {
  DenseElementsAttr in = foldable(operand);
  if (!in)
    return {};
  if (isa<FloatType>(in.getElementType()))
    return floatFn ? mapElements<APFloat>(in, type, floatFn) : OpFoldResult();
  return intFn ? mapElements<APInt>(in, type, intFn) : OpFoldResult();
}

/// A unary float function evaluated in double and rounded once.
OpFoldResult foldUnaryDouble(Attribute operand, ShapedType type,
                             double (*fn)(double)) {
  return foldUnary(operand, type,
                   [&](const APFloat &v) -> std::optional<APFloat> {
                     return fromDouble(fn(toDouble(v)), v.getSemantics());
                   });
}

using BinFloatFn = llvm::function_ref<std::optional<APFloat>(const APFloat &,
                                                             const APFloat &)>;
using BinIntFn =
    llvm::function_ref<std::optional<APInt>(const APInt &, const APInt &)>;

/// Element lists of foldable constants broadcast to `type`, or failure.
template <typename ElementT>
FailureOr<SmallVector<SmallVector<ElementT>>>
broadcastValues(ArrayRef<Attribute> operands, ShapedType type) {
  if (!smallEnough(type))
    return failure();
  SmallVector<SmallVector<ElementT>> result;
  for (Attribute attr : operands) {
    DenseElementsAttr in = foldable(attr);
    if (!in)
      return failure();
    SmallVector<ElementT> values;
    if (in.isSplat()) {
      values.assign(type.getNumElements(), in.getSplatValue<ElementT>());
    } else {
      SmallVector<ElementT> all(in.getValues<ElementT>());
      for (int64_t s :
           broadcastSources(in.getType().getShape(), type.getShape()))
        values.push_back(all[s]);
    }
    result.push_back(std::move(values));
  }
  return result;
}

/// Maps `fn` over the broadcast elements of two foldable constants.
template <typename ElementT, typename Fn>
OpFoldResult mapPairs(ArrayRef<Attribute> operands, ShapedType resultType,
                      Fn fn) {
  auto values = broadcastValues<ElementT>(operands, resultType);
  if (failed(values))
    return {};
  SmallVector<ElementT> out;
  for (auto [a, b] : llvm::zip((*values)[0], (*values)[1])) {
    auto r = fn(a, b);
    if (!r)
      return {};
    out.push_back(*r);
  }
  return DenseElementsAttr::get(resultType, out);
}

/// Folds a broadcasting binary op over constants.
OpFoldResult foldBinary(ArrayRef<Attribute> operands, ShapedType resultType,
                        BinFloatFn floatFn, BinIntFn intFn) {
  if (operands.size() != 2 || !operands[0] || !operands[1])
    return {};
  auto lhs = dyn_cast<DenseElementsAttr>(operands[0]);
  if (!lhs)
    return {};
  if (isa<FloatType>(lhs.getElementType()))
    return floatFn ? mapPairs<APFloat>(operands, resultType, floatFn)
                   : OpFoldResult();
  return intFn ? mapPairs<APInt>(operands, resultType, intFn) : OpFoldResult();
}

APFloat applyFloat(APFloat a, const APFloat &b,
                   APFloat::opStatus (APFloat::*op)(const APFloat &,
                                                    APFloat::roundingMode)) {
  (a.*op)(b, APFloat::rmNearestTiesToEven);
  return a;
}
} // namespace

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValueAttr(); }

OpFoldResult RangeOp::fold(FoldAdaptor) {
  RankedTensorType type = getResult().getType();
  if (!smallEnough(type))
    return {};
  int64_t n = type.getNumElements();
  if (auto start = dyn_cast<IntegerAttr>(getStart())) {
    int64_t s = start.getInt(), d = cast<IntegerAttr>(getDelta()).getInt();
    unsigned width = type.getElementTypeBitWidth();
    SmallVector<APInt> values;
    for (int64_t i = 0; i < n; ++i)
      values.push_back(APInt(width, s + i * d, /*isSigned=*/true));
    return DenseElementsAttr::get(type, values);
  }
  double s = cast<FloatAttr>(getStart()).getValueAsDouble();
  double d = cast<FloatAttr>(getDelta()).getValueAsDouble();
  auto &semantics = cast<FloatType>(type.getElementType()).getFloatSemantics();
  SmallVector<APFloat> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(fromDouble(s + i * d, semantics));
  return DenseElementsAttr::get(type, values);
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  return foldUnary(
      adaptor.getInput(), getType(),
      [](const APFloat &v) -> std::optional<APFloat> { return neg(v); },
      [](const APInt &v) -> std::optional<APInt> { return -v; });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  if (isUnsignedOp(*this))
    return getInput();
  return foldUnary(
      adaptor.getInput(), getType(),
      [](const APFloat &v) -> std::optional<APFloat> { return abs(v); },
      [](const APInt &v) -> std::optional<APInt> { return v.abs(); });
}

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  if (isUnsignedOp(*this))
    return getInput();
  return foldUnary(
      adaptor.getInput(), getType(),
      [](const APFloat &v) -> std::optional<APFloat> {
        return v.isNegative() && !v.isNaN() ? APFloat::getZero(v.getSemantics())
                                            : v;
      },
      [](const APInt &v) -> std::optional<APInt> {
        return v.isNegative() ? APInt::getZero(v.getBitWidth()) : v;
      });
}

OpFoldResult ExpOp::fold(FoldAdaptor a) {
  return foldUnaryDouble(a.getInput(), getType(),
                         [](double x) { return std::exp(x); });
}
OpFoldResult LogOp::fold(FoldAdaptor a) {
  return foldUnaryDouble(a.getInput(), getType(),
                         [](double x) { return std::log(x); });
}
OpFoldResult SqrtOp::fold(FoldAdaptor a) {
  return foldUnaryDouble(a.getInput(), getType(),
                         [](double x) { return std::sqrt(x); });
}
OpFoldResult RsqrtOp::fold(FoldAdaptor a) {
  return foldUnaryDouble(a.getInput(), getType(),
                         [](double x) { return 1.0 / std::sqrt(x); });
}
OpFoldResult ReciprocalOp::fold(FoldAdaptor a) {
  return foldUnary(a.getInput(), getType(),
                   [](const APFloat &v) -> std::optional<APFloat> {
                     APFloat one(v.getSemantics(), 1);
                     one.divide(v, APFloat::rmNearestTiesToEven);
                     return one;
                   });
}
OpFoldResult TanhOp::fold(FoldAdaptor a) {
  return foldUnaryDouble(a.getInput(), getType(),
                         [](double x) { return std::tanh(x); });
}
OpFoldResult CosOp::fold(FoldAdaptor a) {
  return foldUnaryDouble(a.getInput(), getType(),
                         [](double x) { return std::cos(x); });
}
OpFoldResult SinOp::fold(FoldAdaptor a) {
  return foldUnaryDouble(a.getInput(), getType(),
                         [](double x) { return std::sin(x); });
}
OpFoldResult SigmoidOp::fold(FoldAdaptor a) {
  return foldUnaryDouble(a.getInput(), getType(),
                         [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
}
OpFoldResult ErfOp::fold(FoldAdaptor a) {
  return foldUnaryDouble(a.getInput(), getType(),
                         [](double x) { return std::erf(x); });
}

OpFoldResult GeluOp::fold(FoldAdaptor a) {
  if (getApproximate() == GeluApproximation::Tanh)
    return foldUnaryDouble(a.getInput(), getType(), [](double x) {
      return 0.5 * x *
             (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    });
  return foldUnaryDouble(a.getInput(), getType(), [](double x) {
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  });
}

//===----------------------------------------------------------------------===//
// Elementwise binary
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor a) {
  return foldBinary(
      a.getOperands(), getType(),
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return applyFloat(x, y, &APFloat::add);
      },
      [](const APInt &x, const APInt &y) -> std::optional<APInt> {
        return x + y;
      });
}

OpFoldResult SubOp::fold(FoldAdaptor a) {
  return foldBinary(
      a.getOperands(), getType(),
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return applyFloat(x, y, &APFloat::subtract);
      },
      [](const APInt &x, const APInt &y) -> std::optional<APInt> {
        return x - y;
      });
}

OpFoldResult MulOp::fold(FoldAdaptor a) {
  // x * 1 is exact for every x, NaN included.
  if (auto one = dyn_cast_or_null<DenseElementsAttr>(a.getRhs()))
    if (one.isSplat() && getLhs().getType() == getType()) {
      if (isa<FloatType>(one.getElementType()) &&
          one.getSplatValue<APFloat>().isExactlyValue(1.0))
        return getLhs();
      if (isa<IntegerType>(one.getElementType()) &&
          one.getSplatValue<APInt>().isOne())
        return getLhs();
    }
  return foldBinary(
      a.getOperands(), getType(),
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return applyFloat(x, y, &APFloat::multiply);
      },
      [](const APInt &x, const APInt &y) -> std::optional<APInt> {
        return x * y;
      });
}

OpFoldResult DivOp::fold(FoldAdaptor a) {
  bool u = isUnsignedOp(*this);
  return foldBinary(
      a.getOperands(), getType(),
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return applyFloat(x, y, &APFloat::divide);
      },
      [u](const APInt &x, const APInt &y) -> std::optional<APInt> {
        bool overflow = false;
        if (y.isZero())
          return std::nullopt;
        if (u)
          return x.udiv(y);
        APInt q = x.sdiv_ov(y, overflow);
        if (overflow)
          return std::nullopt;
        return q;
      });
}

OpFoldResult PowOp::fold(FoldAdaptor a) {
  bool u = isUnsignedOp(*this);
  return foldBinary(
      a.getOperands(), getType(),
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return fromDouble(std::pow(toDouble(x), toDouble(y)), x.getSemantics());
      },
      [u](const APInt &x, const APInt &y) -> std::optional<APInt> {
        // As the lowering: wrapping repeated squaring; a negative exponent
        // truncates 1 / x^-y (0 unless x is 1 or -1).
        unsigned width = x.getBitWidth();
        if (!u && y.isNegative()) {
          if (x.isOne())
            return x;
          if (x.isAllOnes())
            return y[0] ? x : APInt(width, 1);
          return APInt(width, 0);
        }
        APInt result(width, 1), base = x;
        for (unsigned i = 0, n = y.getActiveBits(); i < n; ++i) {
          if (y[i])
            result *= base;
          base *= base;
        }
        return result;
      });
}

OpFoldResult MaxOp::fold(FoldAdaptor a) {
  bool u = isUnsignedOp(*this);
  return foldBinary(
      a.getOperands(), getType(),
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return llvm::maximum(x, y);
      },
      [u](const APInt &x, const APInt &y) -> std::optional<APInt> {
        return (u ? x.uge(y) : x.sge(y)) ? x : y;
      });
}

OpFoldResult MinOp::fold(FoldAdaptor a) {
  bool u = isUnsignedOp(*this);
  return foldBinary(
      a.getOperands(), getType(),
      [](const APFloat &x, const APFloat &y) -> std::optional<APFloat> {
        return llvm::minimum(x, y);
      },
      [u](const APInt &x, const APInt &y) -> std::optional<APInt> {
        return (u ? x.ule(y) : x.sle(y)) ? x : y;
      });
}

static bool compareInts(CompareDirection dir, const APInt &x, const APInt &y,
                        bool u) {
  switch (dir) {
  case CompareDirection::EQ:
    return x.eq(y);
  case CompareDirection::NE:
    return x.ne(y);
  case CompareDirection::LT:
    return u ? x.ult(y) : x.slt(y);
  case CompareDirection::LE:
    return u ? x.ule(y) : x.sle(y);
  case CompareDirection::GT:
    return u ? x.ugt(y) : x.sgt(y);
  case CompareDirection::GE:
    return u ? x.uge(y) : x.sge(y);
  }
  llvm_unreachable("unknown comparison");
}

static bool compareFloats(CompareDirection dir, const APFloat &x,
                          const APFloat &y) {
  APFloat::cmpResult r = x.compare(y);
  switch (dir) {
  case CompareDirection::EQ:
    return r == APFloat::cmpEqual;
  case CompareDirection::NE:
    return r != APFloat::cmpEqual;
  case CompareDirection::LT:
    return r == APFloat::cmpLessThan;
  case CompareDirection::LE:
    return r == APFloat::cmpLessThan || r == APFloat::cmpEqual;
  case CompareDirection::GT:
    return r == APFloat::cmpGreaterThan;
  case CompareDirection::GE:
    return r == APFloat::cmpGreaterThan || r == APFloat::cmpEqual;
  }
  llvm_unreachable("unknown comparison");
}

OpFoldResult CompareOp::fold(FoldAdaptor a) {
  auto lhs = foldable(a.getLhs());
  if (!lhs || !foldable(a.getRhs()))
    return {};
  CompareDirection dir = getDirection();
  ShapedType type = getType();
  SmallVector<bool> out;
  if (isa<FloatType>(lhs.getElementType())) {
    auto values = broadcastValues<APFloat>({a.getLhs(), a.getRhs()}, type);
    if (failed(values))
      return {};
    for (auto [x, y] : llvm::zip((*values)[0], (*values)[1]))
      out.push_back(compareFloats(dir, x, y));
  } else {
    auto values = broadcastValues<APInt>({a.getLhs(), a.getRhs()}, type);
    if (failed(values))
      return {};
    for (auto [x, y] : llvm::zip((*values)[0], (*values)[1]))
      out.push_back(compareInts(dir, x, y, isUnsignedOp(*this)));
  }
  return DenseElementsAttr::get(type, out);
}

OpFoldResult WhereOp::fold(FoldAdaptor a) {
  auto cond = dyn_cast_or_null<DenseElementsAttr>(a.getCondition());
  if (cond && cond.isSplat()) {
    Value chosen = cond.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
    if (chosen.getType() == getType())
      return chosen;
  }
  if (getOnTrue() == getOnFalse() && getOnTrue().getType() == getType())
    return getOnTrue();
  if (!foldable(a.getCondition()) || !foldable(a.getOnTrue()) ||
      !foldable(a.getOnFalse()) || !smallEnough(getType()))
    return {};
  auto mask = broadcastValues<APInt>({a.getCondition()},
                                     getType().clone(cond.getElementType()));
  if (failed(mask))
    return {};
  auto pick = [&](auto values) -> OpFoldResult {
    if (failed(values))
      return {};
    auto out = (*values)[1];
    for (size_t i = 0; i < out.size(); ++i)
      if ((*mask)[0][i].isOne())
        out[i] = (*values)[0][i];
    return DenseElementsAttr::get(getType(), out);
  };
  if (isa<FloatType>(getType().getElementType()))
    return pick(
        broadcastValues<APFloat>({a.getOnTrue(), a.getOnFalse()}, getType()));
  return pick(
      broadcastValues<APInt>({a.getOnTrue(), a.getOnFalse()}, getType()));
}

OpFoldResult CastOp::fold(FoldAdaptor a) {
  // Once storage types are erased to signless integers and the source type
  // is recorded, the op's types no longer say what it does.
  if ((*this)->hasAttr(NNDialect::CastFromAttrHelper::getNameStr()))
    return {};
  Type to = getTo();
  if (getInput().getType() == getType() &&
      getElementTypeOrSelf(getInput().getType()) == to)
    return getInput();
  DenseElementsAttr in = foldable(a.getInput());
  if (!in)
    return {};
  Type from = in.getElementType();
  // 8-bit floats round and saturate as ONNX says, which APFloat does not;
  // 4-bit integers clamp.
  if (isStorageOnlyType(from) || isStorageOnlyType(to))
    return {};
  auto convert = [&](Attribute element) -> Attribute {
    if (auto f = dyn_cast<FloatAttr>(element)) {
      APFloat v = f.getValue();
      if (auto ft = dyn_cast<FloatType>(to)) {
        bool lost;
        v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
        return FloatAttr::get(to, v);
      }
      unsigned width = to.getIntOrFloatBitWidth();
      if (width == 1)
        return IntegerAttr::get(to, APInt(1, !v.isZero()));
      llvm::APSInt result(width, /*isUnsigned=*/to.isUnsignedInteger());
      bool exact;
      if (v.convertToInteger(result, APFloat::rmTowardZero, &exact) &
          APFloat::opInvalidOp)
        return {};
      return IntegerAttr::get(to, result);
    }
    APInt v = cast<IntegerAttr>(element).getValue();
    bool zeroExtend = from.isInteger(1) || from.isUnsignedInteger();
    if (auto ft = dyn_cast<FloatType>(to)) {
      APFloat result(ft.getFloatSemantics());
      result.convertFromAPInt(v, /*IsSigned=*/!zeroExtend,
                              APFloat::rmNearestTiesToEven);
      return FloatAttr::get(to, result);
    }
    unsigned width = to.getIntOrFloatBitWidth();
    if (width == 1)
      return IntegerAttr::get(to, APInt(1, !v.isZero()));
    return IntegerAttr::get(to, zeroExtend ? v.zextOrTrunc(width)
                                           : v.sextOrTrunc(width));
  };
  SmallVector<Attribute> out;
  for (Attribute element :
       in.isSplat() ? SmallVector<Attribute>{in.getSplatValue<Attribute>()}
                    : SmallVector<Attribute>(in.getValues<Attribute>())) {
    Attribute converted = convert(element);
    if (!converted)
      return {};
    out.push_back(converted);
  }
  if (in.isSplat())
    return DenseElementsAttr::get(getType(), out.front());
  return DenseElementsAttr::get(getType(), out);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

static OpFoldResult foldReduce(Operation *op, ArrayRef<int64_t> axes) {
  // Reducing nothing is the identity.
  if (axes.empty() && op->getOperand(0).getType() == op->getResult(0).getType())
    return op->getOperand(0);
  return {};
}

OpFoldResult ReduceSumOp::fold(FoldAdaptor) {
  return foldReduce(*this, getAxes());
}
OpFoldResult ReduceMeanOp::fold(FoldAdaptor) {
  return foldReduce(*this, getAxes());
}
OpFoldResult ReduceMaxOp::fold(FoldAdaptor) {
  return foldReduce(*this, getAxes());
}
OpFoldResult ReduceMinOp::fold(FoldAdaptor) {
  return foldReduce(*this, getAxes());
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// Folds an op that only changes the shape: identity, or a reshaped constant.
static OpFoldResult foldShapeOnly(Value input, Attribute constant,
                                  ShapedType resultType) {
  if (input.getType() == resultType)
    return input;
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(constant))
    if (dense.isSplat() || dense.getNumElements() <= kFoldLimit)
      return dense.reshape(resultType);
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor a) {
  // reshape(reshape(x)) reads x in the same row-major order.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return foldShapeOnly(getInput(), a.getInput(), getType());
}

OpFoldResult SqueezeOp::fold(FoldAdaptor a) {
  return foldShapeOnly(getInput(), a.getInput(), getType());
}

OpFoldResult UnsqueezeOp::fold(FoldAdaptor a) {
  return foldShapeOnly(getInput(), a.getInput(), getType());
}

OpFoldResult TransposeOp::fold(FoldAdaptor a) {
  ArrayRef<int64_t> perm = getPermutation();
  bool identity = llvm::all_of(llvm::enumerate(perm), [](auto p) {
    return (int64_t)p.index() == p.value();
  });
  if (identity)
    return getInput();
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    // transpose(transpose(x, p), q) = transpose(x, p o q).
    SmallVector<int64_t> composed;
    for (int64_t q : perm)
      composed.push_back(inner.getPermutation()[q]);
    getInputMutable().assign(inner.getInput());
    setPermutation(composed);
    return getResult();
  }
  DenseElementsAttr in = foldable(a.getInput());
  if (!in)
    return {};
  ArrayRef<int64_t> inShape = in.getType().getShape();
  SmallVector<int64_t> inStrides = stridesOf(inShape);
  ArrayRef<int64_t> outShape = getType().getShape();
  SmallVector<int64_t> sources;
  for (int64_t i = 0, n = getType().getNumElements(); i < n; ++i) {
    SmallVector<int64_t> index = unravel(i, outShape);
    int64_t src = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      src += index[d] * inStrides[perm[d]];
    sources.push_back(src);
  }
  return gatherElements(in, getType(), sources);
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType())
    return getInput();
  DenseElementsAttr in = foldable(a.getInput());
  if (!in || (!in.isSplat() && !smallEnough(getType())))
    return {};
  return gatherElements(in, getType(),
                        in.isSplat() ? SmallVector<int64_t>{}
                                     : broadcastSources(in.getType().getShape(),
                                                        getType().getShape()));
}

OpFoldResult SliceOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getOffsets(), [](int64_t o) { return o == 0; }) &&
      llvm::all_of(getStrides(), [](int64_t s) { return s == 1; }))
    return getInput();
  DenseElementsAttr in = foldable(a.getInput());
  if (!in || !smallEnough(getType()))
    return {};
  SmallVector<int64_t> inStrides = stridesOf(in.getType().getShape());
  SmallVector<int64_t> sources;
  for (int64_t i = 0, n = getType().getNumElements(); i < n; ++i) {
    SmallVector<int64_t> index = unravel(i, getType().getShape());
    int64_t src = 0;
    for (size_t d = 0; d < index.size(); ++d)
      src += (getOffsets()[d] + index[d] * getStrides()[d]) * inStrides[d];
    sources.push_back(src);
  }
  return gatherElements(in, getType(), sources);
}

OpFoldResult ConcatOp::fold(FoldAdaptor a) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  if (!smallEnough(getType()))
    return {};
  SmallVector<DenseElementsAttr> ins;
  for (Attribute attr : a.getInputs()) {
    DenseElementsAttr in = foldable(attr);
    if (!in)
      return {};
    ins.push_back(in);
  }
  // Element i of the result comes from the input covering its index along
  // the axis; gather over the concatenation of all inputs' elements.
  int64_t axis = getAxis();
  ArrayRef<int64_t> outShape = getType().getShape();
  SmallVector<int64_t> starts, bases;
  int64_t start = 0, base = 0;
  for (DenseElementsAttr in : ins) {
    starts.push_back(start);
    bases.push_back(base);
    start += in.getType().getDimSize(axis);
    base += in.getNumElements();
  }
  SmallVector<int64_t> sources;
  for (int64_t i = 0, n = getType().getNumElements(); i < n; ++i) {
    SmallVector<int64_t> index = unravel(i, outShape);
    size_t k = llvm::upper_bound(starts, index[axis]) - starts.begin() - 1;
    index[axis] -= starts[k];
    SmallVector<int64_t> strides = stridesOf(ins[k].getType().getShape());
    int64_t src = bases[k];
    for (size_t d = 0; d < index.size(); ++d)
      src += index[d] * strides[d];
    sources.push_back(src);
  }
  Type elementType = getType().getElementType();
  if (isa<FloatType>(elementType)) {
    SmallVector<APFloat> all;
    for (DenseElementsAttr in : ins)
      for (int64_t j = 0, n = in.getNumElements(); j < n; ++j)
        all.push_back(in.isSplat() ? in.getSplatValue<APFloat>()
                                   : in.getValues<APFloat>()[j]);
    SmallVector<APFloat> out;
    for (int64_t s : sources)
      out.push_back(all[s]);
    return DenseElementsAttr::get(getType(), out);
  }
  SmallVector<APInt> all;
  for (DenseElementsAttr in : ins)
    for (int64_t j = 0, n = in.getNumElements(); j < n; ++j)
      all.push_back(in.isSplat() ? in.getSplatValue<APInt>()
                                 : in.getValues<APInt>()[j]);
  SmallVector<APInt> out;
  for (int64_t s : sources)
    out.push_back(all[s]);
  return DenseElementsAttr::get(getType(), out);
}

OpFoldResult GatherOp::fold(FoldAdaptor a) {
  DenseElementsAttr data = foldable(a.getData());
  DenseElementsAttr indices = foldable(a.getIndices());
  if (!data || !indices || !smallEnough(getType()))
    return {};
  int64_t axis = getAxis();
  ArrayRef<int64_t> dataShape = data.getType().getShape();
  int64_t extent = dataShape[axis];
  SmallVector<int64_t> idx;
  for (int64_t i = 0, n = indices.getNumElements(); i < n; ++i) {
    int64_t v = indices.isSplat()
                    ? indices.getSplatValue<APInt>().getSExtValue()
                    : indices.getValues<APInt>()[i].getSExtValue();
    if (v < 0)
      v += extent;
    if (v < 0 || v >= extent)
      return {}; // out of range: leave it to the runtime check
    idx.push_back(v);
  }
  SmallVector<int64_t> dataStrides = stridesOf(dataShape);
  int64_t indexRank = indices.getType().getRank();
  ArrayRef<int64_t> indexShape = indices.getType().getShape();
  SmallVector<int64_t> indexStrides = stridesOf(indexShape);
  SmallVector<int64_t> sources;
  for (int64_t i = 0, n = getType().getNumElements(); i < n; ++i) {
    SmallVector<int64_t> out = unravel(i, getType().getShape());
    int64_t flat = 0;
    for (int64_t d = 0; d < indexRank; ++d)
      flat += out[axis + d] * indexStrides[d];
    int64_t src = 0;
    for (int64_t d = 0; d < (int64_t)dataShape.size(); ++d) {
      int64_t coord = d < axis    ? out[d]
                      : d == axis ? idx[flat]
                                  : out[d - 1 + indexRank];
      src += coord * dataStrides[d];
    }
    sources.push_back(src);
  }
  return gatherElements(data, getType(), sources);
}

OpFoldResult TriluOp::fold(FoldAdaptor a) {
  DenseElementsAttr in = foldable(a.getInput());
  if (!in || !smallEnough(getType()))
    return {};
  ArrayRef<int64_t> shape = getType().getShape();
  int64_t rank = shape.size(), k = getK();
  bool upper = getUpper();
  auto keep = [&](int64_t i) {
    SmallVector<int64_t> index = unravel(i, shape);
    int64_t row = index[rank - 2], col = index[rank - 1];
    return upper ? col - row >= k : col - row <= k;
  };
  int64_t n = getType().getNumElements();
  if (isa<FloatType>(getType().getElementType())) {
    SmallVector<APFloat> values =
        in.isSplat() ? SmallVector<APFloat>(n, in.getSplatValue<APFloat>())
                     : SmallVector<APFloat>(in.getValues<APFloat>());
    for (int64_t i = 0; i < n; ++i)
      if (!keep(i))
        values[i] = APFloat::getZero(values[i].getSemantics());
    return DenseElementsAttr::get(getType(), values);
  }
  SmallVector<APInt> values =
      in.isSplat() ? SmallVector<APInt>(n, in.getSplatValue<APInt>())
                   : SmallVector<APInt>(in.getValues<APInt>());
  for (int64_t i = 0; i < n; ++i)
    if (!keep(i))
      values[i] = APInt::getZero(values[i].getBitWidth());
  return DenseElementsAttr::get(getType(), values);
}
