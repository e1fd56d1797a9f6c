//===- NNToLinalg.cpp - Lower nn ops to linalg, tensor, arith and math ----===//
//
// Every nn op becomes linalg/tensor/arith/math on tensors, so that upstream
// elementwise fusion, one-shot bufferization and the LLVM lowering apply.
// Elementwise ops become `linalg.generic`s whose indexing maps do the
// numpy broadcasting, which lets fusion merge whole chains into one loop
// nest. Contractions stay named ops (`linalg.matmul`, `batch_matmul`,
// `*_transpose_b`) so that a later pass can hand them to a BLAS library.
//
// f16 and bf16 arithmetic is done in f32 (extended on load, truncated on
// store): x86 has no native half arithmetic and the ONNX references compute
// the same way.
//
// arith computes on signless integers and LLVM has no 8-bit floats, so the
// pass first stores unsigned integers as signless ones of the same width,
// and 8-bit floats and 4-bit integers as i8 (raw bits; the value, sign- or
// zero-extended), marking the ops whose meaning depended on the erased type
// (`nn.unsigned`, `nn.cast_from`). nn.cast converts them bit by bit.
//
//===----------------------------------------------------------------------===//

#include "loom/Conversion/Passes.h"
#include "loom/Dialect/NN/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

namespace loom {
#define GEN_PASS_DEF_CONVERTNNTOLINALG
#include "loom/Conversion/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::nn;

namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

bool isHalf(Type t) { return t.isF16() || t.isBF16(); }

/// Whether `op`'s integer operands were unsigned before the pass stored
/// them as signless.
bool isUnsigned(Operation *op) {
  return op->hasAttr(NNDialect::UnsignedAttrHelper::getNameStr());
}

/// The type arithmetic on `t` is carried out in.
Type computeType(Type t) {
  return isHalf(t) ? Float32Type::get(t.getContext()) : t;
}

Value toCompute(OpBuilder &b, Location loc, Value v) {
  if (isHalf(v.getType()))
    return b.create<arith::ExtFOp>(loc, b.getF32Type(), v);
  return v;
}

Value fromCompute(OpBuilder &b, Location loc, Value v, Type storage) {
  if (v.getType() != storage)
    return b.create<arith::TruncFOp>(loc, storage, v);
  return v;
}

Value floatConst(OpBuilder &b, Location loc, Type t, double v) {
  return b.create<arith::ConstantOp>(loc, b.getFloatAttr(t, v));
}

Value intConst(OpBuilder &b, Location loc, Type t, int64_t v) {
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(t, v));
}

/// `0` of any element type.
Value zeroOf(OpBuilder &b, Location loc, Type t) {
  return b.create<arith::ConstantOp>(loc, b.getZeroAttr(t));
}

/// The identity of max (lowest) or min (highest) for `t`, whose integers
/// are unsigned if `u`.
TypedAttr extremeAttr(OpBuilder &b, Type t, bool lowest, bool u = false) {
  if (auto ft = dyn_cast<FloatType>(t))
    return b.getFloatAttr(
        t, APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/lowest));
  unsigned w = t.getIntOrFloatBitWidth();
  if (u)
    return b.getIntegerAttr(t, lowest ? APInt::getMinValue(w)
                                      : APInt::getMaxValue(w));
  return b.getIntegerAttr(t, lowest ? APInt::getSignedMinValue(w)
                                    : APInt::getSignedMaxValue(w));
}

/// Reassociation and contraction let LLVM vectorise reductions and use FMAs.
arith::FastMathFlagsAttr reductionFlags(OpBuilder &b) {
  return arith::FastMathFlagsAttr::get(b.getContext(),
                                       arith::FastMathFlags::reassoc |
                                           arith::FastMathFlags::contract);
}

Value addValues(OpBuilder &b, Location loc, Value x, Value y,
                bool reassoc = false) {
  if (isa<FloatType>(x.getType())) {
    auto op = b.create<arith::AddFOp>(loc, x, y);
    if (reassoc)
      op.setFastmathAttr(reductionFlags(b));
    return op;
  }
  return b.create<arith::AddIOp>(loc, x, y);
}

Value maxValues(OpBuilder &b, Location loc, Value x, Value y, bool u = false) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::MaximumFOp>(loc, x, y);
  if (u)
    return b.create<arith::MaxUIOp>(loc, x, y);
  return b.create<arith::MaxSIOp>(loc, x, y);
}

Value minValues(OpBuilder &b, Location loc, Value x, Value y, bool u = false) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::MinimumFOp>(loc, x, y);
  if (u)
    return b.create<arith::MinUIOp>(loc, x, y);
  return b.create<arith::MinSIOp>(loc, x, y);
}

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

/// f64 -> f32 rounded to odd: truncated toward zero, with the last bit set
/// if anything was lost. Rounding that again to nearest even in a format at
/// least two bits narrower (bf16, the 8-bit floats) rounds once, as a direct
/// conversion would; LLVM lowers direct f64 -> bf16 to __truncdfbf2, which
/// libgcc 12 lacks.
Value truncF64ToF32Odd(OpBuilder &b, Location loc, Value x) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value nearest = b.create<arith::TruncFOp>(loc, f32, x);
  Value back = b.create<arith::ExtFOp>(loc, b.getF64Type(), nearest);
  Value bits = b.create<arith::BitcastOp>(loc, i32, nearest);
  // Rounded away from zero: step the magnitude back by one ulp.
  Value away = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT,
                                       b.create<math::AbsFOp>(loc, back),
                                       b.create<math::AbsFOp>(loc, x));
  Value one = b.create<arith::ConstantIntOp>(loc, 1, 32);
  bits = b.create<arith::SelectOp>(
      loc, away, b.create<arith::SubIOp>(loc, bits, one), bits);
  Value inexact =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::ONE, back, x);
  bits = b.create<arith::SelectOp>(
      loc, inexact, b.create<arith::OrIOp>(loc, bits, one), bits);
  Value odd = b.create<arith::BitcastOp>(loc, f32, bits);
  // NaN and infinities pass through the first truncation unchanged.
  Value special = b.create<arith::CmpFOp>(
      loc, arith::CmpFPredicate::UEQ, b.create<math::AbsFOp>(loc, x),
      floatConst(b, loc, b.getF64Type(), INFINITY));
  return b.create<arith::SelectOp>(loc, special, nearest, odd);
}

bool isFloat8(Type t) {
  return isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
             Float8E5M2FNUZType>(t);
}

bool isInt4(Type t) { return t.isInteger(4); }

/// The signless type that stores element type `t` in the lowering, or null
/// when `t` is computed on as it is.
Type storageOf(Type t) {
  MLIRContext *ctx = t.getContext();
  if (isStorageOnlyType(t))
    return IntegerType::get(ctx, 8);
  if (t.isUnsignedInteger())
    return IntegerType::get(ctx, t.getIntOrFloatBitWidth());
  return {};
}

Type storageOrSelf(Type t) {
  Type s = storageOf(t);
  return s ? s : t;
}

/// An 8-bit float format: mantissa bits, exponent bias, the largest finite
/// magnitude's code, and its special values. `uz` formats have one NaN,
/// 0x80, and no negative zero.
struct Float8Format {
  unsigned mantissa;
  int bias;
  uint32_t maxCode;
  bool hasInf, uz;
};

Float8Format float8Format(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return {3, 7, 0x7e, false, false};
  if (isa<Float8E4M3FNUZType>(t))
    return {3, 8, 0x7f, false, true};
  if (isa<Float8E5M2Type>(t))
    return {2, 15, 0x7b, true, false};
  return {2, 16, 0x7f, false, true}; // f8E5M2FNUZ
}

/// The f32 value of the 8-bit float of type `t` whose bits `v` (i8) holds.
Value decodeFloat8(OpBuilder &b, Location loc, Value v, Type t) {
  Float8Format f = float8Format(t);
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto c = [&](int64_t x) { return intConst(b, loc, i32, x); };
  auto eq = [&](Value x, Value y) {
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, x, y);
  };
  Value bits = b.create<arith::ExtUIOp>(loc, i32, v);
  Value mag = b.create<arith::AndIOp>(loc, bits, c(0x7f));
  Value e = b.create<arith::ShRUIOp>(loc, mag, c(f.mantissa));
  Value m = b.create<arith::AndIOp>(loc, mag, c((1 << f.mantissa) - 1));
  Value sub = eq(e, c(0));
  // Subnormals have exponent 1 and no implicit leading one.
  Value sig = b.create<arith::SelectOp>(
      loc, sub, m, b.create<arith::OrIOp>(loc, m, c(1 << f.mantissa)));
  Value exp = b.create<arith::SelectOp>(loc, sub, c(1), e);
  // 2^(exp - bias - mantissa) as f32 bits: always a normal f32.
  Value scaleBits = b.create<arith::ShLIOp>(
      loc, b.create<arith::AddIOp>(loc, exp, c(127 - f.bias - int(f.mantissa))),
      c(23));
  Value value =
      b.create<arith::MulFOp>(loc, b.create<arith::SIToFPOp>(loc, f32, sig),
                              b.create<arith::BitcastOp>(loc, f32, scaleBits));
  Value negative =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::uge, bits, c(0x80));
  value = b.create<arith::SelectOp>(loc, negative,
                                    b.create<arith::NegFOp>(loc, value), value);
  Value nan = floatConst(b, loc, f32, NAN);
  if (f.uz)
    return b.create<arith::SelectOp>(loc, eq(bits, c(0x80)), nan, value);
  Value allOnes = eq(e, c((0x7f >> f.mantissa)));
  if (!f.hasInf) // E4M3FN: only S.1111.111 is NaN.
    return b.create<arith::SelectOp>(loc, eq(mag, c(0x7f)), nan, value);
  Value inf = b.create<arith::SelectOp>(loc, negative,
                                        floatConst(b, loc, f32, -INFINITY),
                                        floatConst(b, loc, f32, INFINITY));
  Value special = b.create<arith::SelectOp>(loc, eq(m, c(0)), inf, nan);
  return b.create<arith::SelectOp>(loc, allOnes, special, value);
}

/// The bits (i8) of the 8-bit float of type `t` nearest (ties to even) to
/// the f32 `x`; beyond the largest finite value, that value if `saturate`,
/// else infinity or NaN.
Value encodeFloat8(OpBuilder &b, Location loc, Value x, Type t, bool saturate) {
  Float8Format f = float8Format(t);
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) { return intConst(b, loc, i32, v); };
  auto cmp = [&](arith::CmpIPredicate p, Value l, Value r) {
    return b.create<arith::CmpIOp>(loc, p, l, r);
  };
  auto select = [&](Value cond, Value l, Value r) {
    return b.create<arith::SelectOp>(loc, cond, l, r);
  };
  using P = arith::CmpIPredicate;
  Value bits = b.create<arith::BitcastOp>(loc, i32, x);
  Value sign = b.create<arith::AndIOp>(
      loc, b.create<arith::ShRUIOp>(loc, bits, c(24)), c(0x80));
  Value abs = b.create<arith::AndIOp>(loc, bits, c(0x7fffffff));
  Value biased = b.create<arith::ShRUIOp>(loc, abs, c(23));
  unsigned shift = 23 - f.mantissa;
  // Normal in the target: round the f32 bits at the target's last mantissa
  // bit (a carry moves into the exponent), then rebias.
  Value odd = b.create<arith::AndIOp>(
      loc, b.create<arith::ShRUIOp>(loc, abs, c(shift)), c(1));
  Value rounded = b.create<arith::AddIOp>(
      loc, abs, b.create<arith::AddIOp>(loc, c((1 << (shift - 1)) - 1), odd));
  Value normal = b.create<arith::SubIOp>(
      loc, b.create<arith::ShRUIOp>(loc, rounded, c(shift)),
      c((127 - f.bias) << f.mantissa));
  // Subnormal (or zero) in the target: shift the significand right by
  // `s` bits, rounding to nearest even.
  Value sig = select(
      cmp(P::eq, biased, c(0)), b.create<arith::AndIOp>(loc, abs, c(0x7fffff)),
      b.create<arith::OrIOp>(
          loc, b.create<arith::AndIOp>(loc, abs, c(0x7fffff)), c(0x800000)));
  Value s = b.create<arith::SubIOp>(loc, c(shift + 1 + 127 - f.bias), biased);
  s = b.create<arith::MinUIOp>(loc, s, c(31));
  Value q = b.create<arith::ShRUIOp>(loc, sig, s);
  Value rem =
      b.create<arith::SubIOp>(loc, sig, b.create<arith::ShLIOp>(loc, q, s));
  Value half =
      b.create<arith::ShLIOp>(loc, c(1), b.create<arith::SubIOp>(loc, s, c(1)));
  Value up = b.create<arith::OrIOp>(
      loc, cmp(P::ugt, rem, half),
      b.create<arith::AndIOp>(
          loc, cmp(P::eq, rem, half),
          cmp(P::ne, b.create<arith::AndIOp>(loc, q, c(1)), c(0))));
  Value subnormal =
      b.create<arith::AddIOp>(loc, q, b.create<arith::ExtUIOp>(loc, i32, up));
  Value code =
      select(cmp(P::uge, biased, c(127 - f.bias + 1)), normal, subnormal);
  Value nanCode = f.uz ? c(0x80) : b.create<arith::OrIOp>(loc, sign, c(0x7f));
  Value beyond; // What overflow and infinity become.
  if (saturate)
    beyond = b.create<arith::OrIOp>(loc, sign, c(f.maxCode));
  else if (f.hasInf)
    beyond = b.create<arith::OrIOp>(loc, sign, c(0x7c));
  else
    beyond = nanCode;
  Value finite = b.create<arith::OrIOp>(loc, sign, code);
  if (f.uz) // No negative zero.
    finite = select(cmp(P::eq, code, c(0)), c(0), finite);
  Value result = select(cmp(P::ugt, code, c(f.maxCode)), beyond, finite);
  result = select(cmp(P::uge, abs, c(0x7f800000)), beyond, result);
  result = select(cmp(P::ugt, abs, c(0x7f800000)), nanCode, result);
  return b.create<arith::TruncIOp>(loc, b.getI8Type(), result);
}

/// Converts a scalar between nn element types with nn.cast's semantics.
/// `v` holds a `from` in its storage type; the result holds a `to` in its
/// storage type.
Value convertScalar(OpBuilder &b, Location loc, Value v, Type from, Type to,
                    bool saturate = true) {
  if (from == to)
    return v;
  Type f32 = b.getF32Type();
  if (isFloat8(from)) {
    v = decodeFloat8(b, loc, v, from);
    from = f32;
    if (to == f32)
      return v;
  }
  // 4-bit integers are stored as their (extended) value.
  if (isInt4(from))
    from = IntegerType::get(b.getContext(), 8,
                            from.isUnsignedInteger() ? IntegerType::Unsigned
                                                     : IntegerType::Signless);
  bool fromUnsigned = from.isUnsignedInteger() || from.isInteger(1);
  if (isFloat8(to)) {
    // Every conversion to f32 here is exact or rounds to odd, so the
    // result is rounded once.
    if (from.isF64())
      v = truncF64ToF32Odd(b, loc, v);
    else if (isHalf(from))
      v = b.create<arith::ExtFOp>(loc, f32, v);
    else if (fromUnsigned && from != f32)
      v = b.create<arith::UIToFPOp>(loc, f32, v);
    else if (from != f32)
      v = b.create<arith::SIToFPOp>(loc, f32, v);
    return encodeFloat8(b, loc, v, to, saturate);
  }
  if (isInt4(to)) {
    bool u = to.isUnsignedInteger();
    Type i8 = b.getI8Type();
    int64_t lo = u ? 0 : -8, hi = u ? 15 : 7;
    if (auto ft = dyn_cast<FloatType>(from)) {
      Type ct = computeType(ft);
      Value x = b.create<math::RoundEvenOp>(loc, toCompute(b, loc, v));
      x = b.create<arith::MaximumFOp>(loc, x, floatConst(b, loc, ct, lo));
      x = b.create<arith::MinimumFOp>(loc, x, floatConst(b, loc, ct, hi));
      Value isNaN =
          b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, x, x);
      Value r = b.create<arith::FPToSIOp>(loc, i8, x);
      return b.create<arith::SelectOp>(loc, isNaN, intConst(b, loc, i8, 0), r);
    }
    // Integers clamp in a type wide enough for both ranges.
    Type wide = b.getI64Type();
    Value x = v;
    if (from.getIntOrFloatBitWidth() < 64)
      x = fromUnsigned ? Value(b.create<arith::ExtUIOp>(loc, wide, v))
                       : Value(b.create<arith::ExtSIOp>(loc, wide, v));
    if (!from.isInteger(1)) {
      x = fromUnsigned
              ? Value(b.create<arith::MinUIOp>(loc, x,
                                               intConst(b, loc, wide, hi)))
              : Value(b.create<arith::MaxSIOp>(loc, x,
                                               intConst(b, loc, wide, lo)));
      if (!fromUnsigned)
        x = b.create<arith::MinSIOp>(loc, x, intConst(b, loc, wide, hi));
    }
    return b.create<arith::TruncIOp>(loc, i8, x);
  }
  Type toS = storageOrSelf(to);
  if (to.isInteger(1)) {
    if (isa<FloatType>(from))
      return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, v,
                                     zeroOf(b, loc, from));
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v,
                                   zeroOf(b, loc, v.getType()));
  }
  if (auto toF = dyn_cast<FloatType>(to)) {
    if (auto fromF = dyn_cast<FloatType>(from)) {
      if (from.isF64() && to.isBF16())
        return b.create<arith::TruncFOp>(loc, to, truncF64ToF32Odd(b, loc, v));
      if (fromF.getWidth() == toF.getWidth()) // f16 <-> bf16
        return b.create<arith::TruncFOp>(loc, to,
                                         b.create<arith::ExtFOp>(loc, f32, v));
      if (fromF.getWidth() < toF.getWidth())
        return b.create<arith::ExtFOp>(loc, to, v);
      return b.create<arith::TruncFOp>(loc, to, v);
    }
    if (fromUnsigned)
      return b.create<arith::UIToFPOp>(loc, to, v);
    return b.create<arith::SIToFPOp>(loc, to, v);
  }
  // To a wider or narrower integer.
  if (isa<FloatType>(from))
    return to.isUnsignedInteger()
               ? Value(b.create<arith::FPToUIOp>(loc, toS, v))
               : Value(b.create<arith::FPToSIOp>(loc, toS, v));
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return fromUnsigned ? Value(b.create<arith::ExtUIOp>(loc, toS, v))
                        : Value(b.create<arith::ExtSIOp>(loc, toS, v));
  if (fw > tw)
    return b.create<arith::TruncIOp>(loc, toS, v);
  return v; // iN <-> uiN: the same bits.
}

/// Converts a signless scalar as a value of the same type.
Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  return convertScalar(b, loc, v, v.getType(), to);
}

//===----------------------------------------------------------------------===//
// Tensor helpers
//===----------------------------------------------------------------------===//

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType t) {
  return b.create<tensor::EmptyOp>(loc, t.getShape(), t.getElementType());
}

Value filledTensor(OpBuilder &b, Location loc, RankedTensorType t,
                   TypedAttr value) {
  Value init = emptyTensor(b, loc, t);
  Value v = b.create<arith::ConstantOp>(loc, value);
  return b.create<linalg::FillOp>(loc, v, init).getResult(0);
}

/// The map reading an operand of `operandType` broadcast (numpy rules) to a
/// loop nest over `resultRank` dimensions.
AffineMap broadcastMap(OpBuilder &b, RankedTensorType operandType,
                       ArrayRef<int64_t> resultShape) {
  int64_t rank = operandType.getRank(), resultRank = resultShape.size();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = resultRank - rank + i;
    if (operandType.getDimSize(i) == 1 && resultShape[d] != 1)
      exprs.push_back(b.getAffineConstantExpr(0));
    else
      exprs.push_back(b.getAffineDimExpr(d));
  }
  return AffineMap::get(resultRank, 0, exprs, b.getContext());
}

/// A map over `rank` loops that keeps the dimensions `keep` says.
AffineMap projectionMap(OpBuilder &b, int64_t rank,
                        llvm::function_ref<bool(int64_t)> keep) {
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i)
    if (keep(i))
      exprs.push_back(b.getAffineDimExpr(i));
  return AffineMap::get(rank, 0, exprs, b.getContext());
}

using ScalarFn = llvm::function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// One parallel `linalg.generic` producing `resultType` from `operands`
/// broadcast to it; `fn` maps the operands' scalars to the result scalar.
/// Constant i1 operands (masks) are read as i8: LLVM vectorises byte loads,
/// but assembles vectors of i1 loaded from memory one bit at a time.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange operands, ScalarFn fn) {
  SmallVector<Value> inputs(operands);
  SmallVector<bool> widened(inputs.size(), false);
  for (auto [i, v] : llvm::enumerate(inputs)) {
    DenseElementsAttr mask;
    if (!tensorType(v).getElementType().isInteger(1) ||
        !matchPattern(v, m_Constant(&mask)))
      continue;
    auto bytes = RankedTensorType::get(tensorType(v).getShape(), b.getI8Type());
    SmallVector<int8_t> values;
    for (bool bit : mask.getValues<bool>())
      values.push_back(bit);
    v = b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(bytes, ArrayRef<int8_t>(values)));
    widened[i] = true;
  }
  SmallVector<AffineMap> maps;
  for (Value v : inputs)
    maps.push_back(broadcastMap(b, tensorType(v), resultType.getShape()));
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      loc, resultType, inputs, emptyTensor(b, loc, resultType), maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> scalars(args.drop_back());
        for (auto [i, w] : llvm::enumerate(widened))
          if (w)
            scalars[i] =
                nb.create<arith::TruncIOp>(nloc, nb.getI1Type(), scalars[i]);
        Value r = fn(nb, nloc, scalars);
        nb.create<linalg::YieldOp>(nloc, r);
      });
  return generic.getResult(0);
}

/// A generic over the result's index space that computes each element from
/// its indices (`linalg.index`), reading other tensors with tensor.extract.
Value buildIndexed(
    OpBuilder &b, Location loc, RankedTensorType resultType,
    llvm::function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> fn) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      loc, resultType, ValueRange{}, emptyTensor(b, loc, resultType), maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange) {
        SmallVector<Value> idx;
        for (int64_t i = 0; i < rank; ++i)
          idx.push_back(nb.create<linalg::IndexOp>(nloc, i));
        nb.create<linalg::YieldOp>(nloc, fn(nb, nloc, idx));
      });
  return generic.getResult(0);
}

/// `v` with the sign bit of every (integer) element flipped.
Value flipSignBit(OpBuilder &b, Location loc, Value v) {
  RankedTensorType t = tensorType(v);
  unsigned w = t.getElementType().getIntOrFloatBitWidth();
  return buildElementwise(
      b, loc, t, v, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value bit = nb.create<arith::ConstantOp>(
            l, nb.getIntegerAttr(a[0].getType(), APInt::getSignMask(w)));
        return nb.create<arith::XOrIOp>(l, a[0], bit);
      });
}

/// Reshapes `v` to `shape` (same element count, row-major).
Value reshapeTo(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  RankedTensorType from = tensorType(v);
  auto to = RankedTensorType::get(shape, from.getElementType());
  if (from == to)
    return v;
  if (to.getRank() < from.getRank()) {
    if (auto reassoc =
            getReassociationIndicesForCollapse(from.getShape(), to.getShape()))
      return b.create<tensor::CollapseShapeOp>(loc, to, v, *reassoc);
  } else if (to.getRank() > from.getRank()) {
    if (auto reassoc =
            getReassociationIndicesForCollapse(to.getShape(), from.getShape()))
      return b.create<tensor::ExpandShapeOp>(loc, to, v, *reassoc);
  }
  // Through rank 1 (or rank 0 for one-element tensors).
  int64_t n = from.getNumElements();
  auto flat = RankedTensorType::get({n}, from.getElementType());
  Value mid = v;
  if (from.getRank() != 1) {
    SmallVector<ReassociationIndices> all;
    if (from.getRank() > 0) {
      all.emplace_back();
      for (int64_t i = 0; i < from.getRank(); ++i)
        all.back().push_back(i);
      mid = b.create<tensor::CollapseShapeOp>(loc, flat, v, all);
    } else {
      mid = b.create<tensor::ExpandShapeOp>(loc, flat, v, all);
    }
  }
  if (to.getRank() == 1)
    return mid;
  SmallVector<ReassociationIndices> all;
  if (to.getRank() > 0) {
    all.emplace_back();
    for (int64_t i = 0; i < to.getRank(); ++i)
      all.back().push_back(i);
    return b.create<tensor::ExpandShapeOp>(loc, to, mid, all);
  }
  return b.create<tensor::CollapseShapeOp>(loc, to, mid, all);
}

/// Materialises `v` broadcast to `shape` (numpy rules).
Value broadcastTo(OpBuilder &b, Location loc, Value v,
                  ArrayRef<int64_t> shape) {
  RankedTensorType t = tensorType(v);
  if (t.getShape() == shape)
    return v;
  auto resultType = RankedTensorType::get(shape, t.getElementType());
  return buildElementwise(
      b, loc, resultType, v,
      [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

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

Value mapWithStats(OpBuilder &b, Location loc, Value x, ValueRange stats,
                   ArrayRef<int64_t> axes, ValueRange extras,
                   ArrayRef<AffineMap> extraMaps, Type resultElement,
                   ScalarFn fn);

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

/// Converts a tensor of the compute type back to `storage` (a no-op unless
/// the storage type is a half type).
Value truncateTo(OpBuilder &b, Location loc, Value v, Type storage) {
  if (tensorType(v).getElementType() == storage)
    return v;
  return mapWithStats(b, loc, v, {}, {}, {}, {}, storage,
                      [&](OpBuilder &nb, Location l, ValueRange a) {
                        return fromCompute(nb, l, a[0], storage);
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

/// A generic computing `fn(x, stats...)` over x's shape, where each stat is
/// `x` reduced over `axes` (read without the reduced dimensions).
Value mapWithStats(OpBuilder &b, Location loc, Value x, ValueRange stats,
                   ArrayRef<int64_t> axes, ValueRange extras,
                   ArrayRef<AffineMap> extraMaps, Type resultElement,
                   ScalarFn fn) {
  RankedTensorType t = tensorType(x);
  int64_t rank = t.getRank();
  auto resultType = RankedTensorType::get(t.getShape(), resultElement);
  SmallVector<Value> inputs{x};
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(rank)};
  AffineMap statMap = projectionMap(
      b, rank, [&](int64_t i) { return !llvm::is_contained(axes, i); });
  for (Value s : stats) {
    inputs.push_back(s);
    maps.push_back(statMap);
  }
  llvm::append_range(inputs, extras);
  llvm::append_range(maps, extraMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, resultType, inputs, emptyTensor(b, loc, resultType), maps,
          iterators,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            nb.create<linalg::YieldOp>(nloc, fn(nb, nloc, args.drop_back()));
          })
      .getResult(0);
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

/// True when `perm` swaps the last two dimensions and keeps the others.
bool isLastTwoSwap(ArrayRef<int64_t> perm) {
  int64_t n = perm.size();
  if (n < 2 || perm[n - 1] != n - 2 || perm[n - 2] != n - 1)
    return false;
  for (int64_t i = 0; i + 2 < n; ++i)
    if (perm[i] != i)
      return false;
  return true;
}

struct MatmulLowering : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    Value lhs = op.getLhs(), rhs = op.getRhs();
    // matmul(x, transpose(w)) reads w transposed instead of moving it.
    bool transB = false;
    if (auto t = rhs.getDefiningOp<TransposeOp>())
      if (isLastTwoSwap(t.getPermutation())) {
        rhs = t.getInput();
        transB = true;
      }
    RankedTensorType lt = tensorType(lhs), rt = tensorType(rhs);
    int64_t m = lt.getDimSize(lt.getRank() - 2),
            k = lt.getDimSize(lt.getRank() - 1);
    int64_t n = resultType.getDimSize(resultType.getRank() - 1);
    ArrayRef<int64_t> batchShape = resultType.getShape().drop_back(2);
    int64_t batch = 1;
    for (int64_t d : batchShape)
      batch *= d;
    // Halves accumulate in f32 (linalg extends the operands).
    Type acc = computeType(et);
    Value zero = zeroOf(rewriter, loc, acc);
    auto gemm = [&](Value a, Value bm, int64_t rows) -> Value {
      auto t = RankedTensorType::get({rows, n}, acc);
      Value init =
          rewriter
              .create<linalg::FillOp>(loc, zero, emptyTensor(rewriter, loc, t))
              .getResult(0);
      if (transB)
        return rewriter
            .create<linalg::MatmulTransposeBOp>(loc, t, ValueRange{a, bm}, init)
            .getResult(0);
      return rewriter.create<linalg::MatmulOp>(loc, t, ValueRange{a, bm}, init)
          .getResult(0);
    };
    Value result;
    if (rt.getRank() == 2) {
      // A shared 2-D right operand: fold every batch dimension into M.
      Value a = reshapeTo(rewriter, loc,
                          broadcastTo(rewriter, loc, lhs,
                                      [&] {
                                        SmallVector<int64_t> s(batchShape);
                                        s.push_back(m);
                                        s.push_back(k);
                                        return s;
                                      }()),
                          {batch * m, k});
      result = gemm(a, rhs, batch * m);
    } else {
      auto full = [&](Value v, int64_t r0, int64_t r1) {
        SmallVector<int64_t> s(batchShape);
        s.push_back(r0);
        s.push_back(r1);
        Value bv = broadcastTo(rewriter, loc, v, s);
        return reshapeTo(rewriter, loc, bv, {batch, r0, r1});
      };
      Value a = full(lhs, m, k);
      Value bm = transB ? full(rhs, n, k) : full(rhs, k, n);
      auto t = RankedTensorType::get({batch, m, n}, acc);
      Value init =
          rewriter
              .create<linalg::FillOp>(loc, zero, emptyTensor(rewriter, loc, t))
              .getResult(0);
      if (transB)
        result = rewriter
                     .create<linalg::BatchMatmulTransposeBOp>(
                         loc, t, ValueRange{a, bm}, init)
                     .getResult(0);
      else
        result =
            rewriter
                .create<linalg::BatchMatmulOp>(loc, t, ValueRange{a, bm}, init)
                .getResult(0);
    }
    result = truncateTo(rewriter, loc, result, et);
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, result, resultType.getShape()));
    return success();
  }
};

/// Pads the spatial dimensions of an [N, C, spatial...] tensor with `value`,
/// `low[i]` and `high[i]` elements around spatial dimension `i`.
Value padSpatial(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> low,
                 ArrayRef<int64_t> high, TypedAttr value) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return x;
  RankedTensorType t = tensorType(x);
  SmallVector<int64_t> shape(t.getShape());
  SmallVector<OpFoldResult> lo(2, b.getIndexAttr(0)), hi(2, b.getIndexAttr(0));
  for (size_t i = 0; i < low.size(); ++i) {
    shape[2 + i] += low[i] + high[i];
    lo.push_back(b.getIndexAttr(low[i]));
    hi.push_back(b.getIndexAttr(high[i]));
  }
  auto type = RankedTensorType::get(shape, t.getElementType());
  Value pad = b.create<arith::ConstantOp>(loc, value);
  return b.create<tensor::PadOp>(loc, type, x, lo, hi, pad);
}

/// The padding of a pool's input: the window's explicit padding, plus at
/// the end whatever `ceil_mode` windows overhang the padded input.
std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
poolPadding(RankedTensorType in, RankedTensorType out, const PoolWindow &w) {
  size_t spatial = w.rank();
  SmallVector<int64_t> low(w.padding.begin(), w.padding.begin() + spatial);
  SmallVector<int64_t> high(w.padding.begin() + spatial, w.padding.end());
  for (size_t i = 0; i < spatial; ++i) {
    int64_t needed = (out.getDimSize(2 + i) - 1) * w.strides[i] + w.extent(i);
    int64_t have = in.getDimSize(2 + i) + low[i] + high[i];
    high[i] += std::max<int64_t>(0, needed - have);
  }
  return {low, high};
}

template <typename OpTy>
Value namedPool(OpBuilder &b, Location loc, ValueRange ins, Value init,
                const PoolWindow &w) {
  return b
      .create<OpTy>(loc, init.getType(), ins, init,
                    b.getI64TensorAttr(w.strides),
                    b.getI64TensorAttr(w.dilations))
      .getResult(0);
}

/// Pools the padded input `x` into `init` over windows `w`, by maximum or
/// by sum (accumulating in init's element type): linalg's named NCW and
/// NCHW pools, and for 3-D windows (linalg's are channels-last only) the
/// same loops as a linalg.generic.
Value poolWindows(OpBuilder &b, Location loc, Value x, Value init,
                  const PoolWindow &w, bool max) {
  Value window =
      b.create<tensor::EmptyOp>(loc, w.kernel, tensorType(x).getElementType());
  SmallVector<Value> ins{x, window};
  if (w.rank() == 1)
    return max ? namedPool<linalg::PoolingNcwMaxOp>(b, loc, ins, init, w)
               : namedPool<linalg::PoolingNcwSumOp>(b, loc, ins, init, w);
  if (w.rank() == 2)
    return max ? namedPool<linalg::PoolingNchwMaxOp>(b, loc, ins, init, w)
               : namedPool<linalg::PoolingNchwSumOp>(b, loc, ins, init, w);
  // Loops (n, c, outputs..., window...): the input is read at
  // output * stride + window * dilation.
  int64_t spatial = w.rank(), loops = 2 + 2 * spatial;
  SmallVector<AffineExpr> in{b.getAffineDimExpr(0), b.getAffineDimExpr(1)};
  SmallVector<AffineExpr> win;
  for (int64_t i = 0; i < spatial; ++i) {
    AffineExpr o = b.getAffineDimExpr(2 + i);
    AffineExpr k = b.getAffineDimExpr(2 + spatial + i);
    in.push_back(o * w.strides[i] + k * w.dilations[i]);
    win.push_back(k);
  }
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps{
      AffineMap::get(loops, 0, in, ctx), AffineMap::get(loops, 0, win, ctx),
      projectionMap(b, loops, [&](int64_t d) { return d < 2 + spatial; })};
  SmallVector<utils::IteratorType> iterators(2 + spatial,
                                             utils::IteratorType::parallel);
  iterators.append(spatial, utils::IteratorType::reduction);
  return b
      .create<linalg::GenericOp>(
          loc, init.getType(), ins, init, maps, iterators,
          [&](OpBuilder &nb, Location l, ValueRange a) {
            Value v = max ? maxValues(nb, l, a[0], a[2])
                          : addValues(nb, l, toCompute(nb, l, a[0]), a[2]);
            nb.create<linalg::YieldOp>(l, v);
          })
      .getResult(0);
}

struct Conv2dLowering : OpRewritePattern<Conv2dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2dOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    ArrayRef<int64_t> p = op.getPadding();
    Value x =
        padSpatial(rewriter, loc, op.getInput(), p.take_front(2),
                   p.drop_front(2), cast<TypedAttr>(rewriter.getZeroAttr(et)));
    auto strides = rewriter.getI64TensorAttr(op.getStrides());
    auto dilations = rewriter.getI64TensorAttr(op.getDilations());
    int64_t groups = op.getGroups();
    Type ct = computeType(et);
    auto accType = RankedTensorType::get(resultType.getShape(), ct);
    Value zero = zeroOf(rewriter, loc, ct);
    Value result;
    if (groups == 1) {
      Value acc = rewriter
                      .create<linalg::FillOp>(
                          loc, zero, emptyTensor(rewriter, loc, accType))
                      .getResult(0);
      result = rewriter
                   .create<linalg::Conv2DNchwFchwOp>(
                       loc, accType, ValueRange{x, op.getFilter()}, acc,
                       strides, dilations)
                   .getResult(0);
    } else {
      RankedTensorType xt = tensorType(x), ft = tensorType(op.getFilter());
      int64_t n = xt.getDimSize(0), c = xt.getDimSize(1);
      int64_t o = ft.getDimSize(0);
      Value xg = reshapeTo(
          rewriter, loc, x,
          {n, groups, c / groups, xt.getDimSize(2), xt.getDimSize(3)});
      Value fg = reshapeTo(rewriter, loc, op.getFilter(),
                           {groups, o / groups, ft.getDimSize(1),
                            ft.getDimSize(2), ft.getDimSize(3)});
      auto gt = RankedTensorType::get({n, groups, o / groups,
                                       resultType.getDimSize(2),
                                       resultType.getDimSize(3)},
                                      ct);
      Value acc =
          rewriter
              .create<linalg::FillOp>(loc, zero, emptyTensor(rewriter, loc, gt))
              .getResult(0);
      Value r = rewriter
                    .create<linalg::Conv2DNgchwGfchwOp>(
                        loc, gt, ValueRange{xg, fg}, acc, strides, dilations)
                    .getResult(0);
      result = reshapeTo(rewriter, loc, r, accType.getShape());
    }
    if (Value bias = op.getBias()) {
      AffineMap channel = AffineMap::get(4, 0, rewriter.getAffineDimExpr(1),
                                         rewriter.getContext());
      result = mapWithStats(
          rewriter, loc, result, {}, {}, bias, channel, et,
          [&](OpBuilder &b, Location l, ValueRange a) {
            return fromCompute(
                b, l, addValues(b, l, a[0], toCompute(b, l, a[1])), et);
          });
    }
    rewriter.replaceOp(op, truncateTo(rewriter, loc, result, et));
    return success();
  }
};

struct MaxPoolLowering : OpRewritePattern<MaxPoolOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPoolOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    PoolWindow w = op.getWindow();
    auto [low, high] = poolPadding(tensorType(op.getInput()), resultType, w);
    // linalg's max pools are signed: flipping the sign bit maps unsigned
    // order onto signed order. Padding holds the lowest value: it never wins.
    bool u = isUnsigned(op);
    TypedAttr lowest = extremeAttr(rewriter, et, /*lowest=*/true);
    Value input = u ? flipSignBit(rewriter, loc, op.getInput()) : op.getInput();
    Value x = padSpatial(rewriter, loc, input, low, high, lowest);
    Value acc = filledTensor(rewriter, loc, resultType, lowest);
    Value r = poolWindows(rewriter, loc, x, acc, w, /*max=*/true);
    rewriter.replaceOp(op, u ? flipSignBit(rewriter, loc, r) : r);
    return success();
  }
};

/// Whether candidate `v` at row-major position `pos` beats the best so far,
/// `acc` at `accPos`: a greater value (NaN the greatest), or an equal one
/// earlier. The order is total, so the winner does not depend on the order
/// a window is visited in. `accPos` -1 (none yet) compares as the largest
/// position.
Value beatsBest(OpBuilder &b, Location loc, Value v, Value pos, Value acc,
                Value accPos, bool u) {
  Value greater, equal;
  if (isa<FloatType>(v.getType())) {
    Value cv = toCompute(b, loc, v), ca = toCompute(b, loc, acc);
    auto cmp = [&](arith::CmpFPredicate p, Value x, Value y) {
      return b.create<arith::CmpFOp>(loc, p, x, y);
    };
    Value vNaN = cmp(arith::CmpFPredicate::UNO, cv, cv);
    Value aNaN = cmp(arith::CmpFPredicate::UNO, ca, ca);
    Value aNumber = cmp(arith::CmpFPredicate::ORD, ca, ca);
    greater =
        b.create<arith::OrIOp>(loc, cmp(arith::CmpFPredicate::OGT, cv, ca),
                               b.create<arith::AndIOp>(loc, vNaN, aNumber));
    equal = b.create<arith::OrIOp>(loc, cmp(arith::CmpFPredicate::OEQ, cv, ca),
                                   b.create<arith::AndIOp>(loc, vNaN, aNaN));
  } else {
    greater = b.create<arith::CmpIOp>(
        loc, u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt, v, acc);
    equal = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, v, acc);
  }
  Value earlier =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, pos, accPos);
  return b.create<arith::OrIOp>(loc, greater,
                                b.create<arith::AndIOp>(loc, equal, earlier));
}

/// Max pooling with the position of each maximum: one generic over
/// (n, c, outputs..., window...) reading the padded input and carrying the
/// best value and its row-major position in the input's spatial plane.
/// Padded positions (explicit padding and the ceil_mode overhang) are not
/// candidates, so a window without input positions keeps (lowest, -1).
/// Column-major indices are renumbered from the row-major ones afterwards,
/// so that ties always go to the first position in row-major order.
struct MaxPoolWithIndicesLowering : OpRewritePattern<MaxPoolWithIndicesOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPoolWithIndicesOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType inType = tensorType(op.getInput());
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    auto indexType = cast<RankedTensorType>(op.getIndices().getType());
    Type et = resultType.getElementType();
    PoolWindow w = op.getWindow();
    int64_t spatial = w.rank(), loops = 2 + 2 * spatial;
    ArrayRef<int64_t> extents = inType.getShape().drop_front(2);
    bool u = isUnsigned(op);
    TypedAttr lowest = extremeAttr(rewriter, et, /*lowest=*/true, u);
    auto [low, high] = poolPadding(inType, resultType, w);
    Value x = padSpatial(rewriter, loc, op.getInput(), low, high, lowest);
    Value window = rewriter.create<tensor::EmptyOp>(loc, w.kernel, et);
    Value values = filledTensor(rewriter, loc, resultType, lowest);
    Value indices =
        filledTensor(rewriter, loc, indexType, rewriter.getI64IntegerAttr(-1));
    SmallVector<AffineExpr> in{rewriter.getAffineDimExpr(0),
                               rewriter.getAffineDimExpr(1)};
    SmallVector<AffineExpr> win;
    for (int64_t i = 0; i < spatial; ++i) {
      AffineExpr o = rewriter.getAffineDimExpr(2 + i);
      AffineExpr k = rewriter.getAffineDimExpr(2 + spatial + i);
      in.push_back(o * w.strides[i] + k * w.dilations[i]);
      win.push_back(k);
    }
    MLIRContext *ctx = rewriter.getContext();
    AffineMap out = projectionMap(rewriter, loops,
                                  [&](int64_t d) { return d < 2 + spatial; });
    SmallVector<AffineMap> maps{AffineMap::get(loops, 0, in, ctx),
                                AffineMap::get(loops, 0, win, ctx), out, out};
    SmallVector<utils::IteratorType> iterators(2 + spatial,
                                               utils::IteratorType::parallel);
    iterators.append(spatial, utils::IteratorType::reduction);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{resultType, indexType}, ValueRange{x, window},
        ValueRange{values, indices}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange a) {
          auto index = [&](int64_t v) {
            return b.create<arith::ConstantIndexOp>(l, v);
          };
          auto scale = [&](Value v, int64_t c) -> Value {
            return c == 1 ? v : b.create<arith::MulIOp>(l, v, index(c));
          };
          // The input position read, p = o * stride + k * dilation - low,
          // per spatial dimension; it is inside unless padding put it out.
          Value inside, pos;
          for (int64_t i = 0; i < spatial; ++i) {
            Value o = b.create<linalg::IndexOp>(l, 2 + i);
            Value k = b.create<linalg::IndexOp>(l, 2 + spatial + i);
            Value p = b.create<arith::AddIOp>(l, scale(o, w.strides[i]),
                                              scale(k, w.dilations[i]));
            SmallVector<Value> checks;
            if (low[i]) {
              p = b.create<arith::SubIOp>(l, p, index(low[i]));
              checks.push_back(b.create<arith::CmpIOp>(
                  l, arith::CmpIPredicate::sge, p, index(0)));
            }
            if (high[i])
              checks.push_back(b.create<arith::CmpIOp>(
                  l, arith::CmpIPredicate::slt, p, index(extents[i])));
            for (Value c : checks)
              inside = inside ? b.create<arith::AndIOp>(l, inside, c) : c;
            pos =
                pos ? b.create<arith::AddIOp>(l, scale(pos, extents[i]), p) : p;
          }
          pos = b.create<arith::IndexCastOp>(l, b.getI64Type(), pos);
          Value better = beatsBest(b, l, a[0], pos, a[2], a[3], u);
          if (inside)
            better = b.create<arith::AndIOp>(l, inside, better);
          b.create<linalg::YieldOp>(
              l, ValueRange{b.create<arith::SelectOp>(l, better, a[0], a[2]),
                            b.create<arith::SelectOp>(l, better, pos, a[3])});
        });
    // An empty plane leaves every index -1 (and must not be divided by).
    Value idx = generic.getResult(1);
    if (op.getOrder() == IndexOrder::ColumnMajor && spatial > 1 &&
        llvm::all_of(extents, [](int64_t e) { return e > 0; }))
      idx = buildElementwise(
          rewriter, loc, indexType, idx,
          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
            // Row-major coordinates, last dimension first, renumbered with
            // the first dimension varying fastest; -1 stays -1.
            Type i64 = b.getI64Type();
            Value rest = a[0], col;
            SmallVector<int64_t> strides{1};
            for (int64_t e : extents.drop_back())
              strides.push_back(strides.back() * e);
            for (int64_t i = spatial - 1; i >= 0; --i) {
              Value c = rest;
              if (i) {
                Value e = intConst(b, l, i64, extents[i]);
                c = b.create<arith::RemSIOp>(l, rest, e);
                rest = b.create<arith::DivSIOp>(l, rest, e);
              }
              Value term = strides[i] == 1
                               ? c
                               : b.create<arith::MulIOp>(
                                     l, c, intConst(b, l, i64, strides[i]));
              col = col ? b.create<arith::AddIOp>(l, col, term) : term;
            }
            Value none = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt,
                                                 a[0], intConst(b, l, i64, 0));
            return b.create<arith::SelectOp>(l, none, a[0], col);
          });
    rewriter.replaceOp(op, {generic.getResult(0), idx});
    return success();
  }
};

struct AvgPoolLowering : OpRewritePattern<AvgPoolOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AvgPoolOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    RankedTensorType inType = tensorType(op.getInput());
    Type et = resultType.getElementType(), ct = computeType(et);
    PoolWindow w = op.getWindow();
    size_t spatial = w.rank();
    auto [low, high] = poolPadding(inType, resultType, w);
    Value x = padSpatial(rewriter, loc, op.getInput(), low, high,
                         cast<TypedAttr>(rewriter.getZeroAttr(et)));
    auto sumType = RankedTensorType::get(resultType.getShape(), ct);
    Value acc = filledTensor(rewriter, loc, sumType,
                             cast<TypedAttr>(rewriter.getZeroAttr(ct)));
    Value sum = poolWindows(rewriter, loc, x, acc, w, /*max=*/false);
    // The divisor is the number of window positions inside the input, or
    // with count_include_pad all of them. It is a product over the spatial
    // dimensions: a constant factor for the dimensions where every window
    // counts the same, and a vector of counts for the others.
    double uniform = 1;
    SmallVector<Value> counts;
    SmallVector<AffineMap> countMaps;
    int64_t rank = resultType.getRank();
    for (size_t i = 0; i < spatial; ++i) {
      int64_t outputs = resultType.getDimSize(2 + i);
      SmallVector<int64_t> n = w.averageCounts(
          i, outputs, inType.getDimSize(2 + i), op.getCountIncludePad());
      if (llvm::all_equal(n)) {
        uniform *= n.empty() ? 1 : static_cast<double>(n.front());
        continue;
      }
      SmallVector<Attribute> values;
      for (int64_t c : n)
        values.push_back(rewriter.getFloatAttr(ct, static_cast<double>(c)));
      auto type = RankedTensorType::get({outputs}, ct);
      counts.push_back(rewriter.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(type, values)));
      countMaps.push_back(AffineMap::get(
          rank, 0, rewriter.getAffineDimExpr(2 + i), rewriter.getContext()));
    }
    Value r = mapWithStats(
        rewriter, loc, sum, {}, {}, counts, countMaps, et,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value divisor;
          if (uniform != 1 || a.size() == 1)
            divisor = floatConst(b, l, ct, uniform);
          for (Value c : a.drop_front())
            divisor =
                divisor ? Value(b.create<arith::MulFOp>(l, divisor, c)) : c;
          // A window that covers no input position is 0 / 0 = NaN, the
          // mean of nothing.
          Value v = b.create<arith::DivFOp>(l, a[0], divisor);
          return fromCompute(b, l, v, et);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

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

/// Clamps an index read from a tensor into [0, extent): out-of-range
/// indices in user data must not read outside the buffer. Negative indices
/// count from the end first (`wrapNegative`).
Value clampIndex(OpBuilder &b, Location loc, Value i, int64_t extent,
                 bool wrapNegative) {
  Value idx = b.create<arith::IndexCastOp>(loc, b.getIndexType(), i);
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  if (wrapNegative) {
    Value neg =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, idx, zero);
    Value wrapped = b.create<arith::AddIOp>(
        loc, idx, b.create<arith::ConstantIndexOp>(loc, extent));
    idx = b.create<arith::SelectOp>(loc, neg, wrapped, idx);
  }
  idx = b.create<arith::MaxSIOp>(loc, idx, zero);
  return b.create<arith::MinSIOp>(
      loc, idx,
      b.create<arith::ConstantIndexOp>(loc, std::max<int64_t>(extent - 1, 0)));
}

struct GatherLowering : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Value data = op.getData(), indices = op.getIndices();
    RankedTensorType dt = tensorType(data), it = tensorType(indices);
    int64_t axis = op.getAxis(), ir = it.getRank(), rank = resultType.getRank();
    if (dt.getDimSize(axis) == 0 && resultType.getNumElements() != 0)
      return rewriter.notifyMatchFailure(op, "gather from an empty axis");
    SmallVector<AffineExpr> idxExprs;
    for (int64_t i = 0; i < ir; ++i)
      idxExprs.push_back(rewriter.getAffineDimExpr(axis + i));
    SmallVector<AffineMap> maps{
        AffineMap::get(rank, 0, idxExprs, rewriter.getContext()),
        rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, resultType, indices, emptyTensor(rewriter, loc, resultType), maps,
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value at = clampIndex(b, l, args[0], dt.getDimSize(axis),
                                /*wrapNegative=*/true);
          SmallVector<Value> coords;
          for (int64_t i = 0; i < axis; ++i)
            coords.push_back(b.create<linalg::IndexOp>(l, i));
          coords.push_back(at);
          for (int64_t i = axis + 1; i < dt.getRank(); ++i)
            coords.push_back(b.create<linalg::IndexOp>(l, i - 1 + ir));
          b.create<linalg::YieldOp>(
              l, b.create<tensor::ExtractOp>(l, data, coords).getResult());
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// nn.scatter_add: zeros, then a loop nest over the updates that adds each
/// one at its clamped index (linalg has no scatter; the loops carry the
/// result tensor, which bufferizes in place). The outer loops run over the
/// dimensions up to the indices' last and read the index once; the inner
/// ones over the trailing, contiguous dimensions. O(elements of updates).
struct ScatterAddLowering : OpRewritePattern<ScatterAddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScatterAddOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Value updates = op.getUpdates(), indices = op.getIndices();
    RankedTensorType ut = tensorType(updates), it = tensorType(indices);
    Type et = resultType.getElementType();
    int64_t axis = op.getAxis(), ir = it.getRank(), ur = ut.getRank();
    int64_t extent = resultType.getDimSize(axis);
    Value zeros = filledTensor(rewriter, loc, resultType,
                               cast<TypedAttr>(rewriter.getZeroAttr(et)));
    if (resultType.getNumElements() == 0 || ut.getNumElements() == 0) {
      rewriter.replaceOp(op, zeros);
      return success();
    }
    // Loop bounds over dimensions [from, to) of the updates.
    auto bounds = [&](int64_t from, int64_t to, SmallVectorImpl<Value> &lbs,
                      SmallVectorImpl<Value> &ubs,
                      SmallVectorImpl<Value> &steps) {
      for (int64_t d = from; d < to; ++d) {
        lbs.push_back(rewriter.create<arith::ConstantIndexOp>(loc, 0));
        ubs.push_back(
            rewriter.create<arith::ConstantIndexOp>(loc, ut.getDimSize(d)));
        steps.push_back(rewriter.create<arith::ConstantIndexOp>(loc, 1));
      }
    };
    SmallVector<Value> outerLbs, outerUbs, outerSteps, innerLbs, innerUbs,
        innerSteps;
    bounds(0, axis + ir, outerLbs, outerUbs, outerSteps);
    bounds(axis + ir, ur, innerLbs, innerUbs, innerSteps);
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, outerLbs, outerUbs, outerSteps, zeros,
        [&](OpBuilder &b, Location l, ValueRange outer,
            ValueRange outerAcc) -> scf::ValueVector {
          Value raw =
              b.create<tensor::ExtractOp>(l, indices, outer.drop_front(axis));
          Value at = clampIndex(b, l, raw, extent, /*wrapNegative=*/true);
          scf::LoopNest inner = scf::buildLoopNest(
              b, l, innerLbs, innerUbs, innerSteps, outerAcc,
              [&](OpBuilder &ib, Location il, ValueRange ivs,
                  ValueRange acc) -> scf::ValueVector {
                SmallVector<Value> from(outer), to(outer.take_front(axis));
                llvm::append_range(from, ivs);
                to.push_back(at);
                llvm::append_range(to, ivs);
                Value u = toCompute(
                    ib, il, ib.create<tensor::ExtractOp>(il, updates, from));
                Value old = toCompute(
                    ib, il, ib.create<tensor::ExtractOp>(il, acc[0], to));
                Value sum = fromCompute(
                    ib, il, ib.create<arith::AddFOp>(il, old, u), et);
                return {ib.create<tensor::InsertOp>(il, sum, acc[0], to)
                            .getResult()};
              });
          return inner.results;
        });
    rewriter.replaceOp(op, nest.results);
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

template <typename OpTy> struct ReshapeLikeLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), op->getOperand(0),
                                     resultType.getShape()));
    return success();
  }
};

struct TransposeLowering : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Value init = emptyTensor(rewriter, op.getLoc(), resultType);
    rewriter.replaceOp(op, rewriter
                               .create<linalg::TransposeOp>(op.getLoc(),
                                                            op.getInput(), init,
                                                            op.getPermutation())
                               .getResult()[0]);
    return success();
  }
};

struct BroadcastToLowering : OpRewritePattern<BroadcastToOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastToOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    rewriter.replaceOp(op, broadcastTo(rewriter, op.getLoc(), op.getInput(),
                                       resultType.getShape()));
    return success();
  }
};

/// The static offsets, sizes and strides of the slice [offset, offset +
/// size) along `axis` of a tensor of `shape` (whole along the others).
struct SliceAlong {
  SmallVector<int64_t> offsets, sizes, strides;
  SliceAlong(ArrayRef<int64_t> shape, int64_t axis, int64_t offset,
             int64_t size)
      : offsets(shape.size(), 0), sizes(shape), strides(shape.size(), 1) {
    offsets[axis] = offset;
    sizes[axis] = size;
  }
};

struct ConcatLowering : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t axis = op.getAxis();
    Value acc = emptyTensor(rewriter, loc, resultType);
    int64_t offset = 0;
    for (Value in : op.getInputs()) {
      RankedTensorType t = tensorType(in);
      int64_t size = t.getDimSize(axis);
      SliceAlong slice(t.getShape(), axis, offset, size);
      offset += size;
      acc = rewriter.create<tensor::InsertSliceOp>(
          loc, in, acc, ValueRange{}, ValueRange{}, ValueRange{}, slice.offsets,
          slice.sizes, slice.strides);
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

struct SliceLowering : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> offsets = op.getOffsets(), sizes = op.getSizes(),
                      strides = op.getStrides();
    if (llvm::all_of(strides, [](int64_t s) { return s > 0; })) {
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, resultType, op.getInput(), ValueRange{}, ValueRange{},
          ValueRange{}, offsets, sizes, strides);
      return success();
    }
    Value input = op.getInput();
    Value r = buildIndexed(
        rewriter, loc, resultType,
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx) -> Value {
          SmallVector<Value> coords;
          for (size_t d = 0; d < idx.size(); ++d)
            coords.push_back(b.create<arith::AddIOp>(
                l, b.create<arith::ConstantIndexOp>(l, offsets[d]),
                b.create<arith::MulIOp>(
                    l, idx[d],
                    b.create<arith::ConstantIndexOp>(l, strides[d]))));
          return b.create<tensor::ExtractOp>(l, input, coords);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct SplitLowering : OpRewritePattern<SplitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SplitOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType t = tensorType(op.getInput());
    int64_t axis = op.getAxis(), offset = 0;
    SmallVector<Value> results;
    for (auto [size, result] : llvm::zip(op.getSizes(), op.getResults())) {
      SliceAlong slice(t.getShape(), axis, offset, size);
      offset += size;
      results.push_back(rewriter.create<tensor::ExtractSliceOp>(
          op.getLoc(), cast<RankedTensorType>(result.getType()), op.getInput(),
          ValueRange{}, ValueRange{}, ValueRange{}, slice.offsets, slice.sizes,
          slice.strides));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct PadLowering : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    RankedTensorType in = tensorType(op.getInput());
    Type et = in.getElementType();
    ArrayRef<int64_t> low = op.getLow(), high = op.getHigh();
    if (op.getMode() == PadMode::Constant) {
      TypedAttr value = op.getValueAttr()
                            ? op.getValueAttr()
                            : cast<TypedAttr>(rewriter.getZeroAttr(et));
      Value pad = rewriter.create<arith::ConstantOp>(loc, value);
      SmallVector<OpFoldResult> lo, hi;
      for (auto [l, h] : llvm::zip(low, high)) {
        lo.push_back(rewriter.getIndexAttr(l));
        hi.push_back(rewriter.getIndexAttr(h));
      }
      // Pads are non-negative (the importer turns crops into nn.slice).
      rewriter.replaceOpWithNewOp<tensor::PadOp>(op, resultType, op.getInput(),
                                                 lo, hi, pad);
      return success();
    }
    if (resultType.getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, resultType));
      return success();
    }
    if (in.getNumElements() == 0)
      return op.emitError("cannot ")
             << stringifyPadMode(op.getMode())
             << "-pad an empty tensor to a non-empty one";
    // Reflect and edge read the input at a mirrored or clamped index, wrap
    // at the index modulo the dimension.
    bool reflect = op.getMode() == PadMode::Reflect;
    bool wrap = op.getMode() == PadMode::Wrap;
    Value input = op.getInput();
    Value r = buildIndexed(
        rewriter, loc, resultType,
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx) -> Value {
          SmallVector<Value> coords;
          for (size_t d = 0; d < idx.size(); ++d) {
            int64_t n = in.getDimSize(d);
            if (wrap) {
              if (low[d] == 0 && high[d] == 0) {
                coords.push_back(idx[d]);
                continue;
              }
              // (idx - low) mod n, shifted by a multiple of n to stay
              // non-negative.
              int64_t shift = (low[d] + n - 1) / n * n - low[d];
              Value i = b.create<arith::AddIOp>(
                  l, idx[d], b.create<arith::ConstantIndexOp>(l, shift));
              coords.push_back(b.create<arith::RemUIOp>(
                  l, i, b.create<arith::ConstantIndexOp>(l, n)));
              continue;
            }
            Value zero = b.create<arith::ConstantIndexOp>(l, 0);
            Value last = b.create<arith::ConstantIndexOp>(l, n - 1);
            Value i = b.create<arith::SubIOp>(
                l, idx[d], b.create<arith::ConstantIndexOp>(l, low[d]));
            if (reflect) {
              // -i before the start, 2(n-1) - i after the end.
              i = b.create<arith::SelectOp>(
                  l,
                  b.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, i,
                                          zero),
                  b.create<arith::SubIOp>(l, zero, i), i);
              Value twice = b.create<arith::ConstantIndexOp>(l, 2 * (n - 1));
              i = b.create<arith::SelectOp>(
                  l,
                  b.create<arith::CmpIOp>(l, arith::CmpIPredicate::sgt, i,
                                          last),
                  b.create<arith::SubIOp>(l, twice, i), i);
            }
            i = b.create<arith::MinSIOp>(
                l, b.create<arith::MaxSIOp>(l, i, zero), last);
            coords.push_back(i);
          }
          return b.create<tensor::ExtractOp>(l, input, coords);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct TriluLowering : OpRewritePattern<TriluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TriluOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank(), k = op.getK();
    bool upper = op.getUpper();
    Type et = type.getElementType();
    Value r = mapWithStats(
        rewriter, op.getLoc(), op.getInput(), {}, {}, {}, {}, et,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value row = b.create<linalg::IndexOp>(l, rank - 2);
          Value col = b.create<linalg::IndexOp>(l, rank - 1);
          Value diff = b.create<arith::SubIOp>(l, col, row);
          Value kc = b.create<arith::ConstantIndexOp>(l, k);
          Value keep = b.create<arith::CmpIOp>(
              l, upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
              diff, kc);
          return b.create<arith::SelectOp>(l, keep, a[0], zeroOf(b, l, et))
              .getResult();
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Storage types
//===----------------------------------------------------------------------===//

Type eraseType(Type t) {
  if (auto rt = dyn_cast<RankedTensorType>(t))
    if (Type s = storageOf(rt.getElementType()))
      return rt.clone(s);
  if (Type s = storageOf(t))
    return s;
  return t;
}

/// `attr` with its element type erased; 4-bit values are extended to
/// bytes by their signedness.
Attribute eraseAttr(Attribute attr) {
  if (auto i = dyn_cast<IntegerAttr>(attr)) {
    Type s = storageOf(i.getType());
    if (!s)
      return attr;
    APInt v = i.getValue();
    unsigned w = s.getIntOrFloatBitWidth();
    return IntegerAttr::get(
        s, i.getType().isUnsignedInteger() ? v.zext(w) : v.sextOrTrunc(w));
  }
  auto elements = dyn_cast<ElementsAttr>(attr);
  if (!elements)
    return attr;
  auto type = cast<ShapedType>(elements.getType());
  Type et = type.getElementType(), s = storageOf(et);
  if (!s)
    return attr;
  auto to = RankedTensorType::get(type.getShape(), s);
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
    if (et.getIntOrFloatBitWidth() == s.getIntOrFloatBitWidth())
      return DenseResourceElementsAttr::get(to, resource.getRawHandle());
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return {};
  if (et.getIntOrFloatBitWidth() == s.getIntOrFloatBitWidth())
    return dense.bitcast(s);
  bool zext = et.isUnsignedInteger();
  return dense.mapValues(
      s, [&](const APInt &v) { return zext ? v.zext(8) : v.sext(8); });
}

/// Stores unsigned integers, 8-bit floats and 4-bit integers in signless
/// types throughout `fn`, marking the nn ops whose meaning depended on the
/// erased types.
LogicalResult eraseStorageTypes(func::FuncOp fn) {
  // Mark first: erasing a value's type changes what its users see.
  fn.walk([&](Operation *op) {
    if (!isa<NNDialect>(op->getDialect()) || op->getNumOperands() == 0)
      return;
    Type input = getElementTypeOrSelf(op->getOperand(0).getType());
    if (auto cast = dyn_cast<CastOp>(op)) {
      // Either side erased: the op's types no longer say what it does.
      if (storageOf(input) || storageOf(cast.getTo()))
        op->setAttr(NNDialect::CastFromAttrHelper::getNameStr(),
                    TypeAttr::get(input));
    } else if (llvm::any_of(op->getOperandTypes(), [](Type t) {
                 return getElementTypeOrSelf(t).isUnsignedInteger();
               })) {
      op->setAttr(NNDialect::UnsignedAttrHelper::getNameStr(),
                  UnitAttr::get(op->getContext()));
    }
  });
  auto erased = [](TypeRange types) {
    return llvm::map_to_vector(types, eraseType);
  };
  FunctionType type = fn.getFunctionType();
  fn.setType(FunctionType::get(fn.getContext(), erased(type.getInputs()),
                               erased(type.getResults())));
  for (BlockArgument arg : fn.getArguments())
    arg.setType(eraseType(arg.getType()));
  WalkResult r = fn.walk([&](Operation *op) -> WalkResult {
    if (isa<NNDialect>(op->getDialect())) {
      for (NamedAttribute named : op->getAttrs()) {
        if (isa<TypeAttr>(named.getValue()))
          continue;
        Attribute a = eraseAttr(named.getValue());
        if (!a)
          return op->emitError("cannot store attribute '")
                 << named.getName().strref() << "' in a signless type";
        if (a != named.getValue())
          op->setAttr(named.getName(), a);
      }
    }
    for (Value result : op->getResults())
      result.setType(eraseType(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(eraseType(arg.getType()));
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

struct ConvertNNToLinalg
    : loom::impl::ConvertNNToLinalgBase<ConvertNNToLinalg> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<NNDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect, func::FuncDialect>();
    // The patterns build static shapes only.
    WalkResult dynamic = getOperation()->walk([](Operation *op) {
      if (!isa<NNDialect>(op->getDialect()))
        return WalkResult::advance();
      SmallVector<Type> types(op->getOperandTypes());
      llvm::append_range(types, op->getResultTypes());
      for (Type t : types)
        if (auto rt = dyn_cast<RankedTensorType>(t);
            rt && !rt.hasStaticShape()) {
          op->emitError("cannot lower an op on a tensor of dynamic shape (")
              << rt << ") to linalg; fix the model's input shapes";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (dynamic.wasInterrupted())
      return signalPassFailure();
    WalkResult erased = getOperation()->walk([](func::FuncOp fn) {
      return failed(eraseStorageTypes(fn)) ? WalkResult::interrupt()
                                           : WalkResult::advance();
    });
    if (erased.wasInterrupted())
      return signalPassFailure();
    RewritePatternSet patterns(ctx);
    populateNNToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void loom::populateNNToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<
      ExpLowering, LogLowering, SqrtLowering, RsqrtLowering, TanhLowering,
      ErfLowering, ReciprocalLowering, SigmoidLowering, GeluLowering,
      NegLowering, AbsLowering, ReluLowering, AddLowering, SubLowering,
      MulLowering, DivLowering, PowLowering, MaxLowering, MinLowering,
      CompareLowering, WhereLowering, CastLowering,
      ElementsLowering<ConstantOp>, ElementsLowering<ParameterOp>,
      RangeLowering, MatmulLowering, Conv2dLowering, MaxPoolLowering,
      MaxPoolWithIndicesLowering, AvgPoolLowering, ReduceSumLowering,
      ReduceMaxLowering, ReduceMinLowering, ReduceMeanLowering,
      GlobalPoolLowering<GlobalAvgPool2dOp>,
      GlobalPoolLowering<GlobalMaxPool2dOp>, SoftmaxLowering,
      LogSoftmaxLowering, LayerNormLowering, BatchNormLowering, GatherLowering,
      ScatterAddLowering, CrossEntropyLowering, ReshapeLikeLowering<ReshapeOp>,
      ReshapeLikeLowering<SqueezeOp>, ReshapeLikeLowering<UnsqueezeOp>,
      TransposeLowering, BroadcastToLowering, ConcatLowering, SliceLowering,
      SplitLowering, PadLowering, TriluLowering>(patterns.getContext());
}
