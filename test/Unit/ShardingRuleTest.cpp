//===- ShardingRuleTest.cpp - The ShardingRule value type -----------------===//

#include "loom/Interfaces/ShardingRule.h"
#include "TestUtils.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace loom;

namespace {
TEST(ShardingRule, FactorNames) {
  EXPECT_EQ(ShardingRule::factorName(0), "i");
  EXPECT_EQ(ShardingRule::factorName(17), "z");
  EXPECT_EQ(ShardingRule::factorName(18), "a");
  EXPECT_EQ(ShardingRule::factorName(25), "h");
  EXPECT_EQ(ShardingRule::factorName(26), "f26");
}

TEST(ShardingRule, PrintsKindsAndCompoundDims) {
  ShardingRule rule;
  int i = rule.addFactor(2, FactorKind::Parallel);
  int j = rule.addFactor(ShapedType::kDynamic, FactorKind::Parallel);
  int k = rule.addFactor(8, FactorKind::Reduction, ReductionKind::Max);
  int l = rule.addFactor(3, FactorKind::Replicated);
  rule.addOperand({{i, j}, {k}, {}, {l}});
  rule.addResult({{i, j}, {l}});
  EXPECT_EQ(rule.str(), "([i*j, k, 1, l]) -> ([i*j, l]) {i=2, j=?, k=8, l=3} "
                        "reduction={k:max} replicated={l}");
}

TEST(ShardingRule, VerifyCatchesInconsistentRules) {
  auto context = test::makeContext();
  auto module = test::parseBody(
      *context, {"tensor<4x8xf32>", "tensor<8x2xf32>"},
      "  %r = nn.matmul %a, %b : tensor<4x8xf32>, tensor<8x2xf32> -> "
      "tensor<4x2xf32>");
  ASSERT_TRUE(module);
  Operation *op = test::firstOp(*module);
  std::string why;

  ShardingRule wrongSize;
  int m = wrongSize.addFactor(4, FactorKind::Parallel);
  int n = wrongSize.addFactor(2, FactorKind::Parallel);
  int k = wrongSize.addFactor(7, FactorKind::Reduction);
  wrongSize.addOperand({{m}, {k}});
  wrongSize.addOperand({{k}, {n}});
  wrongSize.addResult({{m}, {n}});
  EXPECT_TRUE(failed(wrongSize.verify(op, &why)));
  EXPECT_NE(why.find("factors multiply to 7"), std::string::npos) << why;

  why.clear();
  ShardingRule reductionInResult;
  m = reductionInResult.addFactor(4, FactorKind::Reduction);
  n = reductionInResult.addFactor(2, FactorKind::Parallel);
  k = reductionInResult.addFactor(8, FactorKind::Reduction);
  reductionInResult.addOperand({{m}, {k}});
  reductionInResult.addOperand({{k}, {n}});
  reductionInResult.addResult({{m}, {n}});
  EXPECT_TRUE(failed(reductionInResult.verify(op, &why)));
  EXPECT_NE(why.find("reduction factor i appears in a result"),
            std::string::npos)
      << why;

  why.clear();
  ShardingRule missingOperand;
  missingOperand.addOperand({{}, {}});
  EXPECT_TRUE(failed(missingOperand.verify(op, &why)));
  EXPECT_NE(why.find("rule has 1 operands, op has 2"), std::string::npos)
      << why;

  why.clear();
  ShardingRule unusedFactor;
  m = unusedFactor.addFactor(4, FactorKind::Parallel);
  n = unusedFactor.addFactor(2, FactorKind::Parallel);
  k = unusedFactor.addFactor(8, FactorKind::Reduction);
  unusedFactor.addFactor(5, FactorKind::Parallel);
  unusedFactor.addOperand({{m}, {k}});
  unusedFactor.addOperand({{k}, {n}});
  unusedFactor.addResult({{m}, {n}});
  EXPECT_TRUE(failed(unusedFactor.verify(op, &why)));
  EXPECT_NE(why.find("factor l maps no dimension"), std::string::npos) << why;
}

TEST(ShardingRule, ElementwiseBroadcasting) {
  auto context = test::makeContext();
  Type f32 = Float32Type::get(context.get());
  Type a = RankedTensorType::get({1, 5, 1}, f32);
  Type b = RankedTensorType::get({5, 3}, f32);
  Type r = RankedTensorType::get({1, 5, 3}, f32);
  ShardingRule rule = getElementwiseShardingRule({a, b}, {r});
  // A size-1 dimension matching a size-1 result dimension keeps the unit
  // factor; one stretched by broadcasting takes none.
  EXPECT_EQ(rule.str(), "([i, j, 1], [j, k]) -> ([i, j, k]) {i=1, j=5, k=3}");
}
} // namespace
