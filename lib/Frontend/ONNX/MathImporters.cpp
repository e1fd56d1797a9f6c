//===- MathImporters.cpp - ONNX math operators to nn ops ------------------===//
//
// Elementwise arithmetic, comparisons and casts, the contractions (MatMul,
// Gemm), the reductions and softmax, per opset version where their
// semantics changed.
//
//===----------------------------------------------------------------------===//

#include "OpImporters.h"

#include <cmath>

using namespace mlir;
using namespace loom;
using namespace loom::onnx_import;

namespace loom::onnx_import {

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

LogicalResult importClip(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  Type element = getElementTypeOrSelf(x.getType());
  Value lo, hi;
  if (n.opset < 11) {
    ASSIGN_OR_FAIL(min, n.typedAttr("min", onnx::AttributeProto::FLOAT));
    ASSIGN_OR_FAIL(max, n.typedAttr("max", onnx::AttributeProto::FLOAT));
    if (min)
      lo = n.scalar(element, min->f());
    if (max)
      hi = n.scalar(element, max->f());
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
  if (!n.attr("to"))
    return n.error() << "missing attribute 'to'";
  ASSIGN_OR_FAIL(element, n.dataTypeAttr("to", 0, "Cast target"));
  // `saturate` (opset 19) matters only for 8-bit float targets.
  ASSIGN_OR_FAIL(saturate, n.intAttr("saturate", 1));
  if (saturate != 0 || getElementTypeOrSelf(x.getType()) == element)
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
  ASSIGN_OR_FAIL(alpha32, n.floatAttr("alpha", 1.0f));
  ASSIGN_OR_FAIL(beta32, n.floatAttr("beta", 1.0f));
  ASSIGN_OR_FAIL(transA, n.intAttr("transA", 0));
  ASSIGN_OR_FAIL(transB, n.intAttr("transB", 0));
  double alpha = alpha32, beta = beta32;
  if (transA) {
    ASSIGN_OR_FAIL(t, n.transpose(a, {1, 0}));
    a = t;
  }
  if (transB) {
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
    ASSIGN_OR_FAIL(a, n.intsAttr("axes"));
    given = a;
  }
  ASSIGN_OR_FAIL(keepdims, n.intAttr("keepdims", 1));
  ASSIGN_OR_FAIL(noop, n.intAttr("noop_with_empty_axes", 0));
  bool keep = keepdims != 0;
  SmallVector<int64_t> axes;
  if (!given || given->empty()) {
    if (noop)
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

template <typename OpTy> LogicalResult importSoftmax(Node &n) {
  ASSIGN_OR_FAIL(x, n.required(0, "input"));
  auto type = n.typeOf(0);
  int64_t rank = type.getRank();
  if (rank == 0)
    return n.error() << "input must have rank 1 or more";
  // Before opset 13 the input is flattened to 2-D at `axis` (default 1).
  ASSIGN_OR_FAIL(given, n.intAttr("axis", n.opset >= 13 ? -1 : 1));
  ASSIGN_OR_FAIL(axis, n.axis(given, rank));
  if (n.opset >= 13)
    return done(n, n.make<OpTy>(x, axis));
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

// The instances the registration table names.
template LogicalResult unary<nn::AbsOp>(Node &);
template LogicalResult unary<nn::ErfOp>(Node &);
template LogicalResult unary<nn::ExpOp>(Node &);
template LogicalResult unary<nn::LogOp>(Node &);
template LogicalResult unary<nn::NegOp>(Node &);
template LogicalResult unary<nn::ReciprocalOp>(Node &);
template LogicalResult unary<nn::ReluOp>(Node &);
template LogicalResult unary<nn::SigmoidOp>(Node &);
template LogicalResult unary<nn::SqrtOp>(Node &);
template LogicalResult unary<nn::TanhOp>(Node &);
template LogicalResult unary<nn::CosOp>(Node &);
template LogicalResult unary<nn::SinOp>(Node &);
template LogicalResult binary<nn::AddOp>(Node &);
template LogicalResult binary<nn::DivOp>(Node &);
template LogicalResult binary<nn::MulOp>(Node &);
template LogicalResult binary<nn::SubOp>(Node &);
template LogicalResult variadic<nn::MaxOp>(Node &);
template LogicalResult variadic<nn::MinOp>(Node &);
template LogicalResult importCompare<nn::CompareDirection::EQ>(Node &);
template LogicalResult importCompare<nn::CompareDirection::GT>(Node &);
template LogicalResult importCompare<nn::CompareDirection::GE>(Node &);
template LogicalResult importCompare<nn::CompareDirection::LT>(Node &);
template LogicalResult importCompare<nn::CompareDirection::LE>(Node &);
template LogicalResult importSoftmax<nn::SoftmaxOp>(Node &);
template LogicalResult importSoftmax<nn::LogSoftmaxOp>(Node &);

} // namespace loom::onnx_import
