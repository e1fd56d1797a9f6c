//===- NNRecognizeIdioms.cpp - Raise exported decompositions --------------===//

#include "loom/Dialect/NN/NNOps.h"
#include "loom/Passes/NN/Passes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include <cmath>

namespace loom {
#define GEN_PASS_DEF_NNRECOGNIZEIDIOMS
#include "NN/NNPasses.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::nn;

namespace {
/// A splat float constant: its value and the relative rounding error of its
/// type (constants in bf16 are far from 1/sqrt(2)).
struct Splat {
  double value;
  double tolerance;
};

std::optional<Splat> splatValue(Value v) {
  DenseElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  APFloat value = attr.getSplatValue<APFloat>();
  int precision = llvm::APFloat::semanticsPrecision(value.getSemantics());
  return Splat{value.convertToDouble(),
               std::max(1e-4, std::ldexp(2.0, -precision))};
}

bool near(std::optional<Splat> splat, double expected) {
  return splat && std::abs(splat->value - expected) <=
                      splat->tolerance * std::abs(expected);
}

/// The trailing-axis reduce_mean over `x` with keepdims, returning its first
/// axis.
std::optional<int64_t> trailingMean(Value v, Value x) {
  auto mean = v.getDefiningOp<ReduceMeanOp>();
  if (!mean || !mean.getKeepdims() || (x && mean.getInput() != x))
    return std::nullopt;
  ArrayRef<int64_t> axes = mean.getAxes();
  int64_t rank = mean.getInput().getType().getRank();
  if (axes.empty() || axes.back() != rank - 1)
    return std::nullopt;
  for (size_t i = 1; i < axes.size(); ++i)
    if (axes[i] != axes[i - 1] + 1)
      return std::nullopt;
  return axes.front();
}

/// Matches `sqrt(var + eps)` (either operand order); returns var and eps.
std::optional<std::pair<Value, double>> sqrtOfVariance(Value v) {
  auto add = v.getDefiningOp<AddOp>();
  if (!add)
    return std::nullopt;
  for (auto [var, eps] : {std::pair(add.getLhs(), add.getRhs()),
                          std::pair(add.getRhs(), add.getLhs())})
    if (std::optional<Splat> e = splatValue(eps);
        e && cast<RankedTensorType>(eps.getType()).getNumElements() <= 1)
      return std::pair(var, e->value);
  return std::nullopt;
}

/// (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps), or the same with
/// `* rsqrt(...)`, over trailing axes -> nn.layer_norm.
struct LayerNormPattern : RewritePattern {
  LayerNormPattern(MLIRContext *ctx, llvm::Statistic &count)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx), count(count) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    Value centered, denominator;
    bool reciprocal = false;
    if (auto div = dyn_cast<DivOp>(op)) {
      centered = div.getLhs();
      denominator = div.getRhs();
    } else if (auto mul = dyn_cast<MulOp>(op)) {
      // d * rsqrt(v + eps) in either order.
      for (auto [a, b] : {std::pair(mul.getLhs(), mul.getRhs()),
                          std::pair(mul.getRhs(), mul.getLhs())})
        if (b.getDefiningOp<RsqrtOp>() && a.getDefiningOp<SubOp>()) {
          centered = a;
          denominator = b;
          reciprocal = true;
        }
      if (!centered)
        return failure();
    } else {
      return failure();
    }
    auto sub = centered.getDefiningOp<SubOp>();
    if (!sub)
      return failure();
    Value x = sub.getLhs();
    std::optional<int64_t> axis = trailingMean(sub.getRhs(), x);
    if (!axis)
      return failure();
    Value root =
        reciprocal ? denominator.getDefiningOp<RsqrtOp>().getInput() : Value();
    if (!reciprocal) {
      auto sqrt = denominator.getDefiningOp<SqrtOp>();
      if (!sqrt)
        return failure();
      root = sqrt.getInput();
    }
    auto varEps = sqrtOfVariance(root);
    if (!varEps)
      return failure();
    auto varMean = varEps->first.getDefiningOp<ReduceMeanOp>();
    std::optional<int64_t> varAxis = trailingMean(varEps->first, Value());
    if (!varMean || varAxis != axis)
      return failure();
    Value squared = varMean.getInput();
    bool isSquare = false;
    if (auto pow = squared.getDefiningOp<PowOp>())
      isSquare = pow.getLhs() == centered && near(splatValue(pow.getRhs()), 2);
    else if (auto mul = squared.getDefiningOp<MulOp>())
      isSquare = mul.getLhs() == centered && mul.getRhs() == centered;
    if (!isSquare || x.getType() != op->getResult(0).getType())
      return failure();
    rewriter.replaceOpWithNewOp<LayerNormOp>(
        op, x, Value(), Value(), rewriter.getI64IntegerAttr(*axis),
        rewriter.getF64FloatAttr(varEps->second));
    ++count;
    return success();
  }
  llvm::Statistic &count;
};

/// `v` reshaped to the normalised shape of `norm`, if it holds exactly that
/// many elements laid out the same way (leading size-1 dimensions only).
FailureOr<Value> asNormalized(PatternRewriter &rewriter, LayerNormOp norm,
                              Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  ArrayRef<int64_t> normalized =
      norm.getInput().getType().getShape().drop_front(norm.getAxis());
  ArrayRef<int64_t> shape = type.getShape();
  while (shape.size() > normalized.size() && shape.front() == 1)
    shape = shape.drop_front();
  if (shape != normalized)
    return failure();
  if (type.getShape() == normalized)
    return v;
  return rewriter.create<ReshapeOp>(norm.getLoc(), v, normalized).getResult();
}

/// layer_norm(x) * scale -> layer_norm(x, scale); layer_norm(x) + bias ->
/// layer_norm(x, bias).
template <typename OpTy>
struct LayerNormAffinePattern : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  static constexpr bool isScale = std::is_same_v<OpTy, MulOp>;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    for (auto [a, b] : {std::pair(op.getLhs(), op.getRhs()),
                        std::pair(op.getRhs(), op.getLhs())}) {
      auto norm = a.template getDefiningOp<LayerNormOp>();
      if (!norm || !norm->hasOneUse() || norm.getType() != op.getType() ||
          norm.getBias() || (isScale && norm.getScale()))
        continue;
      auto param = asNormalized(rewriter, norm, b);
      if (failed(param))
        continue;
      Value scale = isScale ? *param : norm.getScale();
      Value bias = isScale ? Value() : *param;
      rewriter.replaceOpWithNewOp<LayerNormOp>(op, norm.getInput(), scale, bias,
                                               norm.getAxisAttr(),
                                               norm.getEpsilonAttr());
      rewriter.eraseOp(norm);
      return success();
    }
    return failure();
  }
};

/// Leaves of a tree of multiplications rooted at `v` (inner products must
/// have no other use).
void productLeaves(Value v, SmallVectorImpl<Value> &leaves, bool root) {
  auto mul = v.getDefiningOp<MulOp>();
  if (mul && (root || mul->hasOneUse()) && leaves.size() < 4) {
    productLeaves(mul.getLhs(), leaves, false);
    productLeaves(mul.getRhs(), leaves, false);
    return;
  }
  leaves.push_back(v);
}

/// x * 0.5 * (1 + erf(x / sqrt(2))) in any association -> nn.gelu.
struct GeluPattern : OpRewritePattern<MulOp> {
  GeluPattern(MLIRContext *ctx, llvm::Statistic &count)
      : OpRewritePattern(ctx), count(count) {}

  /// If `v` is 1 + erf(x / sqrt 2), returns x.
  static Value erfTerm(Value v) {
    auto add = v.getDefiningOp<AddOp>();
    if (!add)
      return {};
    for (auto [e, one] : {std::pair(add.getLhs(), add.getRhs()),
                          std::pair(add.getRhs(), add.getLhs())}) {
      auto erf = e.getDefiningOp<ErfOp>();
      if (!erf || !near(splatValue(one), 1))
        continue;
      Value arg = erf.getInput();
      if (auto div = arg.getDefiningOp<DivOp>();
          div && near(splatValue(div.getRhs()), std::sqrt(2.0)))
        return div.getLhs();
      if (auto mul = arg.getDefiningOp<MulOp>())
        for (auto [x, c] : {std::pair(mul.getLhs(), mul.getRhs()),
                            std::pair(mul.getRhs(), mul.getLhs())})
          if (near(splatValue(c), 1 / std::sqrt(2.0)))
            return x;
    }
    return {};
  }

  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> leaves;
    productLeaves(op.getResult(), leaves, /*root=*/true);
    if (leaves.size() != 3)
      return failure();
    for (int half = 0; half < 3; ++half) {
      if (!near(splatValue(leaves[half]), 0.5))
        continue;
      for (int term = 0; term < 3; ++term) {
        if (term == half)
          continue;
        Value x = erfTerm(leaves[term]);
        Value other = leaves[3 - half - term];
        if (!x || x != other || x.getType() != op.getType())
          continue;
        rewriter.replaceOpWithNewOp<GeluOp>(op, x, GeluApproximation::None);
        ++count;
        return success();
      }
    }
    return failure();
  }
  llvm::Statistic &count;
};

struct NNRecognizeIdiomsPass
    : loom::impl::NNRecognizeIdiomsBase<NNRecognizeIdiomsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LayerNormPattern>(&getContext(), numLayerNorms);
    patterns.add<GeluPattern>(&getContext(), numGelus);
    patterns.add<LayerNormAffinePattern<MulOp>, LayerNormAffinePattern<AddOp>>(
        &getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

std::unique_ptr<Pass> loom::createNNRecognizeIdioms() {
  return std::make_unique<NNRecognizeIdiomsPass>();
}
