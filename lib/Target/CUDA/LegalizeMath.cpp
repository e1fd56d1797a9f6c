//===- LegalizeMath.cpp - Math ops NVVM has no lowering for ---------------===//
//
// The CPU target reaches these through convert-math-to-funcs and LLVM's
// intrinsics; in a gpu.module there is no place for helper functions and
// NVPTX selects none of those intrinsics, so they become plain arithmetic.
//
//===----------------------------------------------------------------------===//

#include "loom/Target/CUDA/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace loom::cuda {
#define GEN_PASS_DEF_LEGALIZEMATH
#include "Target/CUDA/Passes.h.inc"
} // namespace loom::cuda

using namespace mlir;

namespace {

/// math.ipowi by squaring; a negative exponent gives 0 but for bases 1
/// and -1, as convert-math-to-funcs defines it.
struct ExpandIPowI : OpRewritePattern<math::IPowIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IPowIOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<IntegerType>(op.getType());
    if (!type)
      return failure();
    Location loc = op.getLoc();
    auto c = [&](int64_t v) -> Value {
      return rewriter.create<arith::ConstantIntOp>(loc, v, type);
    };
    Value zero = c(0), one = c(1), minusOne = c(-1);
    Value base = op.getLhs(), exp = op.getRhs();
    Value negative = rewriter.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::slt, exp, zero);
    Value start = rewriter.create<arith::SelectOp>(loc, negative, zero, exp);
    auto loop = rewriter.create<scf::WhileOp>(
        loc, TypeRange{type, type, type}, ValueRange{one, base, start},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value more = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::ne,
                                               args[2], zero);
          b.create<scf::ConditionOp>(l, more, args);
        },
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value odd = b.create<arith::CmpIOp>(
              l, arith::CmpIPredicate::ne,
              b.create<arith::AndIOp>(l, args[2], one), zero);
          Value times = b.create<arith::MulIOp>(l, args[0], args[1]);
          Value result = b.create<arith::SelectOp>(l, odd, times, args[0]);
          Value square = b.create<arith::MulIOp>(l, args[1], args[1]);
          Value rest = b.create<arith::ShRUIOp>(l, args[2], one);
          b.create<scf::YieldOp>(l, ValueRange{result, square, rest});
        });
    Value isOne = rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                                 base, one);
    Value isMinusOne = rewriter.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::eq, base, minusOne);
    Value oddExp = rewriter.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::ne,
        rewriter.create<arith::AndIOp>(loc, exp, one), zero);
    Value minusOnePower =
        rewriter.create<arith::SelectOp>(loc, oddExp, minusOne, one);
    Value negativeResult = rewriter.create<arith::SelectOp>(
        loc, isOne, one,
        rewriter.create<arith::SelectOp>(loc, isMinusOne, minusOnePower, zero));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, negative, negativeResult,
                                                 loop.getResult(0));
    return success();
  }
};

/// math.absi as a select (NVVM lowers no math.absi).
struct ExpandAbsI : OpRewritePattern<math::AbsIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AbsIOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<IntegerType>(op.getType());
    if (!type)
      return failure();
    Location loc = op.getLoc();
    Value zero = rewriter.create<arith::ConstantIntOp>(loc, 0, type);
    Value x = op.getOperand();
    Value negative =
        rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x, zero);
    Value negated = rewriter.create<arith::SubIOp>(loc, zero, x);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, negative, negated, x);
    return success();
  }
};

/// math.copysign on the bits: the magnitude of one, the sign of the other.
struct ExpandCopySign : OpRewritePattern<math::CopySignOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::CopySignOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<FloatType>(op.getType());
    if (!type)
      return failure();
    Location loc = op.getLoc();
    unsigned width = type.getWidth();
    auto bits = rewriter.getIntegerType(width);
    APInt sign = APInt::getSignMask(width);
    Value signMask = rewriter.create<arith::ConstantOp>(
        loc, rewriter.getIntegerAttr(bits, sign));
    Value magnitudeMask = rewriter.create<arith::ConstantOp>(
        loc, rewriter.getIntegerAttr(bits, ~sign));
    Value a = rewriter.create<arith::BitcastOp>(loc, bits, op.getLhs());
    Value b = rewriter.create<arith::BitcastOp>(loc, bits, op.getRhs());
    Value result = rewriter.create<arith::OrIOp>(
        loc, rewriter.create<arith::AndIOp>(loc, a, magnitudeMask),
        rewriter.create<arith::AndIOp>(loc, b, signMask));
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, type, result);
    return success();
  }
};

struct LegalizeMathPass : loom::cuda::impl::LegalizeMathBase<LegalizeMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandIPowI, ExpandAbsI, ExpandCopySign>(&getContext());
    populateExpandRoundEvenPattern(patterns);
    populateExpandRoundFPattern(patterns);
    populateExpandFPowIPattern(patterns);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
