//===- Elementwise.cpp - Elementwise nn ops to linalg.generic -------------===//
//
// Unary and binary math, compare, where and cast become parallel
// linalg.generics whose indexing maps broadcast the operands; constants
// and parameters become arith.constant, range an indexed generic.
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

//===----------------------------------------------------------------------===//
// Integer helpers
//===----------------------------------------------------------------------===//

/// Unsigned division that cannot trap: x / 0 is 0.
Value safeDivUI(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  Value zero = intConst(b, loc, t, 0), one = intConst(b, loc, t, 1);
  Value isZero =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, y, zero);
  Value divisor = b.create<arith::SelectOp>(loc, isZero, one, y);
  Value q = b.create<arith::DivUIOp>(loc, x, divisor);
  return b.create<arith::SelectOp>(loc, isZero, zero, q);
}

/// Integer division that cannot trap: x / 0 is 0 and MIN / -1 wraps, where
/// the hardware would raise SIGFPE on input the model never promised.
Value safeDivSI(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  Value zero = intConst(b, loc, t, 0), one = intConst(b, loc, t, 1),
        minusOne = intConst(b, loc, t, -1);
  Value isZero =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, y, zero);
  Value isMinusOne =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, y, minusOne);
  Value bad = b.create<arith::OrIOp>(loc, isZero, isMinusOne);
  Value divisor = b.create<arith::SelectOp>(loc, bad, one, y);
  Value q = b.create<arith::DivSIOp>(loc, x, divisor);
  Value negated = b.create<arith::SubIOp>(loc, zero, x);
  Value r = b.create<arith::SelectOp>(loc, isMinusOne, negated, q);
  return b.create<arith::SelectOp>(loc, isZero, zero, r);
}

/// Integer power by repeated squaring (math.ipowi), wrapping on overflow.
/// A negative exponent gives the truncated 1 / x^-y: 0 unless |x| = 1, and
/// 0 for x = 0, where math.ipowi would divide by zero.
Value safeIPowI(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = x.getType();
  Value zero = intConst(b, loc, t, 0), one = intConst(b, loc, t, 1);
  Value negative =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, y, zero);
  // x^y for |x| = 1 depends only on y's parity, which y & 1 keeps.
  Value exponent = b.create<arith::SelectOp>(
      loc, negative, b.create<arith::AndIOp>(loc, y, one), y);
  Value power = b.create<math::IPowIOp>(loc, x, exponent);
  Value notUnit = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                          b.create<math::AbsIOp>(loc, x), one);
  Value vanishes = b.create<arith::AndIOp>(loc, negative, notUnit);
  return b.create<arith::SelectOp>(loc, vanishes, zero, power);
}

/// Unsigned x^y mod 2^w. math.ipowi reads y as signed (a negative one
/// divides), so y is first brought below 2^(w-1) without changing the
/// result: odd x have x^(2^(w-2)) = 1 mod 2^w, and even x give 0 for any
/// y >= w, which 2^(w-2) also is for w >= 8.
Value unsignedIPowI(OpBuilder &b, Location loc, Value x, Value y) {
  Type t = y.getType();
  unsigned w = t.getIntOrFloatBitWidth();
  Value period = b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(t, APInt::getOneBitSet(w, w - 2)));
  Value mask = b.create<arith::SubIOp>(loc, period, intConst(b, loc, t, 1));
  Value reduced = b.create<arith::OrIOp>(
      loc, b.create<arith::AndIOp>(loc, y, mask), period);
  Value small =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, y, period);
  Value exponent = b.create<arith::SelectOp>(loc, small, y, reduced);
  return b.create<math::IPowIOp>(loc, x, exponent);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// Lowers an elementwise nn op through a scalar function of its operands.
template <typename OpTy> struct ElementwisePattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  virtual Value scalar(OpTy op, OpBuilder &b, Location loc,
                       ValueRange args) const = 0;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Value r =
        buildElementwise(rewriter, op.getLoc(), resultType, op->getOperands(),
                         [&](OpBuilder &b, Location loc, ValueRange args) {
                           return scalar(op, b, loc, args);
                         });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// Float unary math: computed in f32 for halves.
template <typename OpTy> struct FloatUnaryPattern : ElementwisePattern<OpTy> {
  using ElementwisePattern<OpTy>::ElementwisePattern;
  virtual Value compute(OpBuilder &b, Location loc, Value x) const = 0;
  Value scalar(OpTy, OpBuilder &b, Location loc,
               ValueRange args) const override {
    Type et = args[0].getType();
    return fromCompute(b, loc, compute(b, loc, toCompute(b, loc, args[0])), et);
  }
};

#define LOOM_FLOAT_UNARY(NAME, OP, BODY)                                       \
  struct NAME : FloatUnaryPattern<OP> {                                        \
    using FloatUnaryPattern<OP>::FloatUnaryPattern;                            \
    Value compute(OpBuilder &b, Location loc, Value x) const override { BODY } \
  };

LOOM_FLOAT_UNARY(ExpLowering, ExpOp, return b.create<math::ExpOp>(loc, x);)
LOOM_FLOAT_UNARY(LogLowering, LogOp, {
  if (!x.getType().isF32())
    return b.create<math::LogOp>(loc, x);
  // The f32 polynomial log is wrong below the smallest normal number:
  // scale subnormals up by 2^24 and subtract 24 ln 2.
  Value small = b.create<arith::CmpFOp>(
      loc, arith::CmpFPredicate::OLT, b.create<math::AbsFOp>(loc, x),
      floatConst(b, loc, x.getType(), 1.1754943508222875e-38));
  Value scaled = b.create<arith::MulFOp>(
      loc, x, floatConst(b, loc, x.getType(), 16777216.0));
  Value y = b.create<math::LogOp>(
      loc, b.create<arith::SelectOp>(loc, small, scaled, x));
  return b.create<arith::SubFOp>(
      loc, y,
      b.create<arith::SelectOp>(
          loc, small, floatConst(b, loc, x.getType(), 16.635532333438686),
          floatConst(b, loc, x.getType(), 0.0)));
})
LOOM_FLOAT_UNARY(SqrtLowering, SqrtOp, return b.create<math::SqrtOp>(loc, x);)
LOOM_FLOAT_UNARY(RsqrtLowering, RsqrtOp,
                 return b.create<math::RsqrtOp>(loc, x);)
LOOM_FLOAT_UNARY(TanhLowering, TanhOp, return b.create<math::TanhOp>(loc, x);)
// In f64: the f32 polynomial sine and cosine reduce the argument in f32,
// which is 7e-4 off at |x| = 1e4 (rotary tables of long sequences reach
// such arguments); these ops compute small tables, so exactness is cheap.
template <typename MathOp>
static Value inF64(OpBuilder &b, Location loc, Value x) {
  if (!x.getType().isF32())
    return b.create<MathOp>(loc, x);
  Value wide = b.create<arith::ExtFOp>(loc, b.getF64Type(), x);
  return b.create<arith::TruncFOp>(loc, x.getType(),
                                   b.create<MathOp>(loc, wide));
}
LOOM_FLOAT_UNARY(CosLowering, CosOp, return inF64<math::CosOp>(b, loc, x);)
LOOM_FLOAT_UNARY(SinLowering, SinOp, return inF64<math::SinOp>(b, loc, x);)
LOOM_FLOAT_UNARY(ErfLowering, ErfOp, return b.create<math::ErfOp>(loc, x);)
LOOM_FLOAT_UNARY(ReciprocalLowering, ReciprocalOp,
                 return b.create<arith::DivFOp>(
                     loc, floatConst(b, loc, x.getType(), 1.0), x);)
LOOM_FLOAT_UNARY(SigmoidLowering, SigmoidOp, {
  Type t = x.getType();
  Value one = floatConst(b, loc, t, 1.0);
  Value e = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x));
  return b.create<arith::DivFOp>(loc, one,
                                 b.create<arith::AddFOp>(loc, one, e));
})
#undef LOOM_FLOAT_UNARY

struct GeluLowering : FloatUnaryPattern<GeluOp> {
  using FloatUnaryPattern<GeluOp>::FloatUnaryPattern;
  Value scalar(GeluOp op, OpBuilder &b, Location loc,
               ValueRange args) const override {
    Type et = args[0].getType();
    Value x = toCompute(b, loc, args[0]);
    Type t = x.getType();
    Value half = floatConst(b, loc, t, 0.5), one = floatConst(b, loc, t, 1.0);
    Value inner;
    if (op.getApproximate() == GeluApproximation::Tanh) {
      Value x3 =
          b.create<arith::MulFOp>(loc, x, b.create<arith::MulFOp>(loc, x, x));
      Value poly = b.create<arith::AddFOp>(
          loc, x,
          b.create<arith::MulFOp>(loc, floatConst(b, loc, t, 0.044715), x3));
      inner = b.create<math::TanhOp>(
          loc, b.create<arith::MulFOp>(
                   loc, floatConst(b, loc, t, 0.7978845608028654), poly));
    } else {
      inner = b.create<math::ErfOp>(
          loc, b.create<arith::MulFOp>(
                   loc, x, floatConst(b, loc, t, 0.7071067811865476)));
    }
    Value r =
        b.create<arith::MulFOp>(loc, b.create<arith::MulFOp>(loc, half, x),
                                b.create<arith::AddFOp>(loc, one, inner));
    return fromCompute(b, loc, r, et);
  }
  Value compute(OpBuilder &, Location, Value) const override {
    llvm_unreachable("gelu overrides scalar()");
  }
};

struct NegLowering : ElementwisePattern<NegOp> {
  using ElementwisePattern::ElementwisePattern;
  Value scalar(NegOp, OpBuilder &b, Location loc, ValueRange a) const override {
    if (isa<FloatType>(a[0].getType()))
      return b.create<arith::NegFOp>(loc, a[0]);
    return b.create<arith::SubIOp>(loc, zeroOf(b, loc, a[0].getType()), a[0]);
  }
};

struct AbsLowering : ElementwisePattern<AbsOp> {
  using ElementwisePattern::ElementwisePattern;
  Value scalar(AbsOp op, OpBuilder &b, Location loc,
               ValueRange a) const override {
    if (isa<FloatType>(a[0].getType()))
      return b.create<math::AbsFOp>(loc, a[0]);
    if (isUnsigned(op))
      return a[0];
    return b.create<math::AbsIOp>(loc, a[0]);
  }
};

struct ReluLowering : ElementwisePattern<ReluOp> {
  using ElementwisePattern::ElementwisePattern;
  Value scalar(ReluOp op, OpBuilder &b, Location loc,
               ValueRange a) const override {
    return maxValues(b, loc, a[0], zeroOf(b, loc, a[0].getType()),
                     isUnsigned(op));
  }
};

/// Binary arithmetic: float ops in the compute type, integer ops as is.
template <typename OpTy> struct BinaryPattern : ElementwisePattern<OpTy> {
  using ElementwisePattern<OpTy>::ElementwisePattern;
  virtual Value floatOp(OpBuilder &b, Location loc, Value x, Value y) const = 0;
  virtual Value intOp(OpBuilder &b, Location loc, Value x, Value y,
                      bool u) const = 0;
  Value scalar(OpTy op, OpBuilder &b, Location loc,
               ValueRange a) const override {
    Type et = a[0].getType();
    if (!isa<FloatType>(et))
      return intOp(b, loc, a[0], a[1], isUnsigned(op));
    Value r = floatOp(b, loc, toCompute(b, loc, a[0]), toCompute(b, loc, a[1]));
    return fromCompute(b, loc, r, et);
  }
};

#define LOOM_BINARY(NAME, OP, FLOAT, INT)                                      \
  struct NAME : BinaryPattern<OP> {                                            \
    using BinaryPattern<OP>::BinaryPattern;                                    \
    Value floatOp(OpBuilder &b, Location loc, Value x,                         \
                  Value y) const override{FLOAT} Value                         \
        intOp(OpBuilder &b, Location loc, Value x, Value y,                    \
              bool u) const override {                                         \
      INT                                                                      \
    }                                                                          \
  };

LOOM_BINARY(AddLowering, AddOp, return b.create<arith::AddFOp>(loc, x, y);
            , return b.create<arith::AddIOp>(loc, x, y);)
LOOM_BINARY(SubLowering, SubOp, return b.create<arith::SubFOp>(loc, x, y);
            , return b.create<arith::SubIOp>(loc, x, y);)
LOOM_BINARY(MulLowering, MulOp, return b.create<arith::MulFOp>(loc, x, y);
            , return b.create<arith::MulIOp>(loc, x, y);)
LOOM_BINARY(DivLowering, DivOp, return b.create<arith::DivFOp>(loc, x, y);
            , return u ? safeDivUI(b, loc, x, y) : safeDivSI(b, loc, x, y);)
LOOM_BINARY(PowLowering, PowOp, return b.create<math::PowFOp>(loc, x, y);
            , return u ? unsignedIPowI(b, loc, x, y) : safeIPowI(b, loc, x, y);)
LOOM_BINARY(MaxLowering, MaxOp, return b.create<arith::MaximumFOp>(loc, x, y);
            , return maxValues(b, loc, x, y, u);)
LOOM_BINARY(MinLowering, MinOp, return b.create<arith::MinimumFOp>(loc, x, y);
            , return minValues(b, loc, x, y, u);)
#undef LOOM_BINARY

struct CompareLowering : ElementwisePattern<CompareOp> {
  using ElementwisePattern::ElementwisePattern;
  Value scalar(CompareOp op, OpBuilder &b, Location loc,
               ValueRange a) const override {
    // Indexed by CompareDirection (eq, ne, lt, le, gt, ge). Float compares
    // are ordered except `ne`, which is true for NaN.
    static constexpr arith::CmpFPredicate floatPredicates[] = {
        arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE,
        arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE,
        arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE};
    static constexpr arith::CmpIPredicate intPredicates[] = {
        arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,
        arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
        arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge};
    static constexpr arith::CmpIPredicate unsignedPredicates[] = {
        arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,
        arith::CmpIPredicate::ult, arith::CmpIPredicate::ule,
        arith::CmpIPredicate::ugt, arith::CmpIPredicate::uge};
    auto d = static_cast<unsigned>(op.getDirection());
    if (isa<FloatType>(a[0].getType()))
      return b.create<arith::CmpFOp>(loc, floatPredicates[d], a[0], a[1]);
    return b.create<arith::CmpIOp>(
        loc, isUnsigned(op) ? unsignedPredicates[d] : intPredicates[d], a[0],
        a[1]);
  }
};

struct WhereLowering : ElementwisePattern<WhereOp> {
  using ElementwisePattern::ElementwisePattern;
  Value scalar(WhereOp, OpBuilder &b, Location loc,
               ValueRange a) const override {
    return b.create<arith::SelectOp>(loc, a[0], a[1], a[2]);
  }
};

struct CastLowering : ElementwisePattern<CastOp> {
  using ElementwisePattern::ElementwisePattern;
  Value scalar(CastOp op, OpBuilder &b, Location loc,
               ValueRange a) const override {
    Type from = a[0].getType();
    if (auto original = op->getAttrOfType<TypeAttr>(
            NNDialect::CastFromAttrHelper::getNameStr()))
      from = original.getValue();
    return convertScalar(b, loc, a[0], from, op.getTo(), op.getSaturate());
  }
};

/// nn.constant, and nn.parameter left in the body (the CPU target moves
/// parameters to arguments first), become arith.constant.
template <typename OpTy> struct ElementsLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, cast<TypedAttr>(op.getValue()));
    return success();
  }
};

struct RangeLowering : OpRewritePattern<RangeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RangeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type et = type.getElementType();
    Value r = buildIndexed(
        rewriter, op.getLoc(), type,
        [&](OpBuilder &b, Location loc, ArrayRef<Value> idx) -> Value {
          Value start = b.create<arith::ConstantOp>(loc, op.getStart());
          Value step = b.create<arith::ConstantOp>(loc, op.getDelta());
          Value i = b.create<arith::IndexCastOp>(loc, b.getI64Type(), idx[0]);
          if (auto ft = dyn_cast<FloatType>(et)) {
            Type ct = computeType(et);
            Value fi = b.create<arith::SIToFPOp>(loc, ct, i);
            Value v = b.create<arith::AddFOp>(
                loc, toCompute(b, loc, start),
                b.create<arith::MulFOp>(loc, fi, toCompute(b, loc, step)));
            return fromCompute(b, loc, v, et);
          }
          Value ii = convertScalar(b, loc, i, et);
          return b.create<arith::AddIOp>(
              loc, start, b.create<arith::MulIOp>(loc, ii, step));
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void loom::nn_to_linalg::populateNNToLinalgElementwisePatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<ExpLowering, LogLowering, SqrtLowering, RsqrtLowering, TanhLowering,
           CosLowering, SinLowering, ErfLowering, ReciprocalLowering,
           SigmoidLowering, GeluLowering, NegLowering, AbsLowering,
           ReluLowering, AddLowering, SubLowering, MulLowering, DivLowering,
           PowLowering, MaxLowering, MinLowering, CompareLowering,
           WhereLowering, CastLowering, ElementsLowering<ConstantOp>,
           ElementsLowering<ParameterOp>, RangeLowering>(patterns.getContext());
}
