//===- DistTest.cpp - dist attributes and mesh queries --------------------===//

#include "TestUtils.h"
#include "loom/Dialect/Dist/DistOps.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace loom;
using namespace loom::dist;

namespace {
TEST(Dist, MeshQueries) {
  auto context = test::makeContext();
  auto module = parseSourceString<ModuleOp>(
      R"mlir(dist.mesh @m axes [<"dp" = 2, inter_node>, <"tp" = 4, intra_node, bandwidth = 450, latency = 2.5>])mlir",
      context.get());
  ASSERT_TRUE(module);
  MeshOp mesh = *module->getOps<MeshOp>().begin();
  EXPECT_EQ(mesh.getNumDevices(), 8);
  Builder b(context.get());
  EXPECT_EQ(mesh.getGroupSize({b.getStringAttr("tp")}), 4);
  EXPECT_EQ(mesh.getGroupSize({b.getStringAttr("dp"), b.getStringAttr("tp")}),
            8);
  MeshAxisAttr tp = mesh.getAxis("tp");
  ASSERT_TRUE(tp);
  EXPECT_EQ(tp.getLink(), LinkKind::IntraNode);
  EXPECT_EQ(tp.getBandwidth().convertToDouble(), 450.0);
  EXPECT_EQ(tp.getLatency().convertToDouble(), 2.5);
  EXPECT_EQ(mesh.getAxis("dp").getBandwidth().convertToDouble(), 0.0);
  EXPECT_FALSE(mesh.getAxis("pp"));
}

TEST(Dist, ShardingAxes) {
  auto context = test::makeContext();
  Attribute attr = parseAttribute(
      R"(#dist.sharding<@m, [{"dp"}, {}, {"tp", ?}], partial<max> = {"pp"}>)",
      context.get());
  auto sharding = dyn_cast_or_null<ShardingAttr>(attr);
  ASSERT_TRUE(sharding);
  SmallVector<StringAttr> axes = sharding.getAllAxes();
  ASSERT_EQ(axes.size(), 3u);
  EXPECT_EQ(axes[0].getValue(), "dp");
  EXPECT_EQ(axes[1].getValue(), "tp");
  EXPECT_EQ(axes[2].getValue(), "pp");
  EXPECT_FALSE(sharding.isReplicated());
  EXPECT_TRUE(sharding.getDims()[2].getOpen());
  EXPECT_FALSE(sharding.getDims()[0].getOpen());
  EXPECT_EQ(sharding.getPartialKind(), ReductionKind::Max);

  ShardingAttr replicated =
      ShardingAttr::getReplicated(context.get(), sharding.getMesh(), 2);
  EXPECT_TRUE(replicated.isReplicated());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << Attribute(replicated);
  EXPECT_EQ(text, "#dist.sharding<@m, [{}, {}]>");
}
} // namespace
