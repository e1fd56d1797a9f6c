//===- ScalarConversion.cpp - nn.cast on scalars --------------------------===//
//
// Converts one scalar between nn element types as nn.cast does, storage
// types included: 8-bit floats are decoded from and encoded to their bits
// with integer arithmetic (LLVM has no 8-bit floats), 4-bit integers clamp.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace loom;
using namespace loom::nn;
using namespace loom::nn_to_linalg;

namespace {

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

} // namespace

namespace loom::nn_to_linalg {

Value convertScalar(OpBuilder &b, Location loc, Value v, Type from, Type to,
                    bool saturate) {
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

Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  return convertScalar(b, loc, v, v.getType(), to);
}

} // namespace loom::nn_to_linalg
