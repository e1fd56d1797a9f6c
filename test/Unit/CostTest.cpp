//===- CostTest.cpp - Cost helpers ----------------------------------------===//

#include "loom/Interfaces/Cost.h"
#include "TestUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace loom;

namespace {
TEST(Cost, ElementSizes) {
  MLIRContext context;
  EXPECT_EQ(getElementByteSize(Float32Type::get(&context)), 4);
  EXPECT_EQ(getElementByteSize(BFloat16Type::get(&context)), 2);
  EXPECT_EQ(getElementByteSize(Float16Type::get(&context)), 2);
  EXPECT_EQ(getElementByteSize(IntegerType::get(&context, 64)), 8);
  EXPECT_EQ(getElementByteSize(IntegerType::get(&context, 1)), 1);
}

TEST(Cost, TensorBytes) {
  MLIRContext context;
  Type f32 = Float32Type::get(&context);
  EXPECT_EQ(getTensorBytes(RankedTensorType::get({3, 5}, f32)), 60);
  EXPECT_EQ(getTensorBytes(RankedTensorType::get({}, f32)), 4);
  EXPECT_EQ(getTensorBytes(RankedTensorType::get({ShapedType::kDynamic}, f32)),
            -1);
}

TEST(Cost, ElementwiseCounts) {
  MLIRContext context;
  Type bf16 = BFloat16Type::get(&context);
  Type t = RankedTensorType::get({128, 64}, bf16);
  FailureOr<OpCost> cost = getElementwiseCost({t, t}, {t}, 2, 1);
  ASSERT_TRUE(succeeded(cost));
  EXPECT_EQ(cost->flops, 2.0 * 128 * 64);
  EXPECT_EQ(cost->transcendentals, 128.0 * 64);
  EXPECT_EQ(cost->bytesRead, 2 * 128 * 64 * 2);
  EXPECT_EQ(cost->bytesWritten, 128 * 64 * 2);
  EXPECT_EQ(cost->computeType, bf16);
}

TEST(Cost, Accumulates) {
  MLIRContext context;
  OpCost a, b;
  a.flops = 10;
  a.bytesRead = 4;
  b.flops = 5;
  b.transcendentals = 2;
  b.bytesWritten = 8;
  b.computeType = Float32Type::get(&context);
  a += b;
  EXPECT_EQ(a.flops, 15);
  EXPECT_EQ(a.transcendentals, 2);
  EXPECT_EQ(a.bytesRead, 4);
  EXPECT_EQ(a.bytesWritten, 8);
  EXPECT_EQ(a.computeType, b.computeType);
}
} // namespace
