//===- ClusterTest.cpp - Cluster descriptions and meshes on them ----------===//

#include "loom/CostModel/Cluster.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <map>

using namespace loom;

namespace {
constexpr const char *kTwoNodes = R"json({
  "name": "two nodes",
  "nodes": 2,
  "devices_per_node": 4,
  "device": {"kind": "gpu", "memory_gb": 80, "memory_bandwidth_gb_per_s": 2000,
             "peak_tflops": {"bfloat16": 312, "float32": 19.5}},
  "links": {"intra_node": {"bandwidth_gb_per_s": 300, "latency_us": 2},
            "inter_node": {"bandwidth_gb_per_s": 25, "latency_us": 5}}
})json";

std::string errorOf(llvm::StringRef json) {
  llvm::Expected<Cluster> c = parseCluster(json, "c.json");
  if (c)
    return "";
  return llvm::toString(c.takeError());
}

TEST(Cluster, Parses) {
  llvm::Expected<Cluster> c = parseCluster(kTwoNodes, "c.json");
  ASSERT_TRUE(!!c) << llvm::toString(c.takeError());
  EXPECT_EQ(c->numDevices(), 8);
  EXPECT_EQ(c->device.kind, "gpu");
  EXPECT_EQ(c->device.peakTFLOPs.lookup("bfloat16"), 312);
  EXPECT_EQ(c->interNode.bandwidthGBps, 25);
  EXPECT_EQ(c->intraNode.latencyUs, 2);
}

TEST(Cluster, ErrorsNameTheKey) {
  EXPECT_EQ(errorOf("[1]"), "c.json: expected a JSON object");
  EXPECT_NE(errorOf("{").find("c.json: invalid JSON"), std::string::npos);
  std::string text = kTwoNodes;
  std::string noNodes = text;
  noNodes.replace(noNodes.find("\"nodes\": 2"), 10, "\"nodes\": 0");
  EXPECT_EQ(errorOf(noNodes), "c.json: \"nodes\" must be a positive integer");
  std::string badDtype = text;
  badDtype.replace(badDtype.find("\"float32\""), 9, "\"fp32\"");
  EXPECT_NE(errorOf(badDtype).find("unknown dtype \"fp32\""),
            std::string::npos);
  std::string noInter = text;
  noInter.replace(noInter.find("\"inter_node\""), 12, "\"other\"");
  EXPECT_EQ(errorOf(noInter), "c.json: missing object \"links.inter_node\"");
  std::string badKind = text;
  badKind.replace(badKind.find("\"gpu\""), 5, "\"tpu\"");
  EXPECT_EQ(errorOf(badKind),
            "c.json: \"device.kind\" must be \"gpu\" or \"cpu\"");
}

TEST(Cluster, FiguresAreFiniteAndBounded) {
  auto replaced = [](llvm::StringRef from, llvm::StringRef to) {
    std::string text = kTwoNodes;
    text.replace(text.find(from.str()), from.size(), to.str());
    return text;
  };
  // JSON's 1e999 parses to infinity.
  EXPECT_EQ(errorOf(replaced("\"memory_gb\": 80", "\"memory_gb\": 1e999")),
            "c.json: \"device.memory_gb\" must be finite and at most 1e15 "
            "(got inf)");
  EXPECT_EQ(errorOf(replaced("\"float32\": 19.5", "\"float32\": 1e300")),
            "c.json: \"device.peak_tflops.float32\" must be finite and at "
            "most 1e15 (got 1e+300)");
  EXPECT_EQ(errorOf(replaced("\"latency_us\": 5", "\"latency_us\": 1e999")),
            "c.json: \"links.inter_node.latency_us\" must be finite and at "
            "most 1e15 (got inf)");
  EXPECT_EQ(errorOf(replaced("\"nodes\": 2", "\"nodes\": 4294967296")),
            "c.json: \"nodes\" must be at most 1048576");
  EXPECT_EQ(errorOf(replaced("\"nodes\": 2", "\"nodes\": 1048576")),
            "c.json: \"nodes\" x \"devices_per_node\" must be at most "
            "1048576 devices");
  // Nesting is checked before llvm::json::parse recurses.
  EXPECT_EQ(errorOf(replaced("\"name\": \"two nodes\"",
                             "\"name\": " + std::string(100, '[') +
                                 std::string(100, ']'))),
            "c.json: invalid JSON: arrays and objects nest deeper than 64 "
            "levels (line 2, column 74)");
}

TEST(Cluster, PowerAndPrice) {
  Cluster none = llvm::cantFail(parseCluster(kTwoNodes, "c.json"));
  EXPECT_EQ(none.device.powerW, 0);
  EXPECT_EQ(none.device.pricePerHour, 0);
  auto with = [](llvm::StringRef fields) {
    std::string json = kTwoNodes;
    size_t at = json.find("\"peak_tflops\"");
    json.insert(at, fields.str() + ", ");
    return json;
  };
  Cluster c = llvm::cantFail(parseCluster(
      with(R"("power_w": 700, "price_per_hour": 3.99)"), "c.json"));
  EXPECT_EQ(c.device.powerW, 700);
  EXPECT_EQ(c.device.idlePowerW, 700); // waiting priced at full power
  EXPECT_EQ(c.device.pricePerHour, 3.99);
  c = llvm::cantFail(
      parseCluster(with(R"("power_w": 700, "idle_power_w": 90)"), "c.json"));
  EXPECT_EQ(c.device.idlePowerW, 90);
  EXPECT_EQ(errorOf(with(R"("power_w": -1)")),
            "c.json: \"device.power_w\" must be a positive number");
  EXPECT_EQ(errorOf(with(R"("idle_power_w": 90)")),
            "c.json: \"device.idle_power_w\" needs \"device.power_w\" and "
            "must be at most it");
  EXPECT_EQ(errorOf(with(R"("power_w": 100, "idle_power_w": 200)")),
            "c.json: \"device.idle_power_w\" needs \"device.power_w\" and "
            "must be at most it");
  EXPECT_EQ(errorOf(with(R"("price_per_hour": "cheap")")),
            "c.json: \"device.price_per_hour\" must be a positive number");
}

TEST(Cluster, MatmulCurve) {
  // Optional: absent, the curve is empty.
  EXPECT_TRUE(llvm::cantFail(parseCluster(kTwoNodes, "c.json"))
                  .device.matmulTFLOPsBySize.empty());
  auto withCurve = [](llvm::StringRef curve) {
    std::string text = kTwoNodes;
    text.replace(text.find("\"peak_tflops\""), 0,
                 ("\"matmul_tflops_by_size\": " + curve + ", ").str());
    return text;
  };
  llvm::Expected<Cluster> c = parseCluster(
      withCurve("[[32, 0.01], [64, 0.03], [128.5, 0.05]]"), "c.json");
  ASSERT_TRUE(!!c) << llvm::toString(c.takeError());
  using Point = std::pair<double, double>;
  EXPECT_EQ(c->device.matmulTFLOPsBySize,
            (std::vector<Point>{{32, 0.01}, {64, 0.03}, {128.5, 0.05}}));

  const std::string key = "c.json: \"device.matmul_tflops_by_size\"";
  const std::pair<const char *, const char *> cases[] = {
      {"[]", " must be a non-empty array of [size, TFLOP/s]"},
      {"{\"32\": 1}", " must be a non-empty array of [size, TFLOP/s]"},
      {"[[32, 1], 64]", "[1] must be [size, TFLOP/s]"},
      {"[[32, 1, 2]]", "[0] must be [size, TFLOP/s]"},
      {"[[32, \"fast\"]]", "[0] must be [size, TFLOP/s]"},
      {"[[0, 1]]", "[0]: size and TFLOP/s must be positive"},
      {"[[-32, 1]]", "[0]: size and TFLOP/s must be positive"},
      {"[[32, 1], [64, 0]]", "[1]: size and TFLOP/s must be positive"},
      {"[[64, 1], [32, 2]]", "[1]: sizes must increase"},
      {"[[64, 1], [64, 2]]", "[1]: sizes must increase"},
  };
  for (const auto &[curve, message] : cases)
    EXPECT_EQ(errorOf(withCurve(curve)), key + message) << curve;
}

TEST(Cluster, CollectiveBandwidths) {
  auto withKinds = [](llvm::StringRef kinds) {
    std::string json = kTwoNodes;
    std::string from =
        R"("intra_node": {"bandwidth_gb_per_s": 300, "latency_us": 2})";
    std::string to =
        R"("intra_node": {"bandwidth_gb_per_s": 300, "latency_us": 2, "collective_bandwidth_gb_per_s": )" +
        kinds.str() + "}";
    json.replace(json.find(from), from.size(), to);
    return json;
  };
  llvm::Expected<Cluster> c = parseCluster(
      withKinds(R"({"all_reduce": 5, "reduce_scatter": 1, "all_gather": 6})"),
      "c.json");
  ASSERT_TRUE(!!c) << llvm::toString(c.takeError());
  EXPECT_EQ(c->intraNode.allReduceGBps, 5);
  EXPECT_EQ(c->intraNode.reduceScatterGBps, 1);
  EXPECT_EQ(c->intraNode.allGatherGBps, 6);
  EXPECT_EQ(c->interNode.reduceScatterGBps, 0);
  const std::string key =
      "c.json: \"links.intra_node.collective_bandwidth_gb_per_s";
  EXPECT_EQ(errorOf(withKinds("3")),
            key + "\" must be an object of GB/s per collective kind");
  EXPECT_EQ(errorOf(withKinds(R"({"broadcast": 3})")),
            key + ".broadcast\": unknown collective (expected all_reduce, "
                  "reduce_scatter or all_gather)");
  EXPECT_EQ(errorOf(withKinds(R"({"all_gather": 0})")),
            key + ".all_gather\" must be a positive number");
}

TEST(Cluster, InnermostAxesGoInsideANode) {
  Cluster c = llvm::cantFail(parseCluster(kTwoNodes, "c.json"));
  auto axes = llvm::cantFail(layMesh("dp=2,tp=4", c));
  ASSERT_EQ(axes.size(), 2u);
  EXPECT_EQ(axes[0].name, "dp");
  EXPECT_FALSE(axes[0].intraNode);
  EXPECT_EQ(axes[0].link.bandwidthGBps, 25);
  EXPECT_TRUE(axes[1].intraNode);
  EXPECT_EQ(axes[1].link.bandwidthGBps, 300);
  // 2 x 2 fit in a node; the outer 2 does not.
  axes = llvm::cantFail(layMesh("pp=2,dp=2,tp=2", c));
  EXPECT_FALSE(axes[0].intraNode);
  EXPECT_TRUE(axes[1].intraNode);
  EXPECT_TRUE(axes[2].intraNode);
  // An axis that does not fit makes every outer axis inter-node too.
  axes = llvm::cantFail(layMesh("a=1,b=8", c));
  EXPECT_FALSE(axes[0].intraNode);
  EXPECT_FALSE(axes[1].intraNode);
}

TEST(Cluster, BadMeshes) {
  Cluster c = llvm::cantFail(parseCluster(kTwoNodes, "c.json"));
  auto error = [&](llvm::StringRef spec) {
    auto axes = layMesh(spec, c);
    return axes ? std::string() : llvm::toString(axes.takeError());
  };
  EXPECT_NE(error("dp=4,tp=4")
                .find("needs 16 devices, but the cluster 'two "
                      "nodes' has 8 (2 node(s) of 4)"),
            std::string::npos);
  EXPECT_NE(error("dp=2,dp=2").find("axis 'dp' appears twice"),
            std::string::npos);
  EXPECT_NE(error("dp=0").find("expected NAME=SIZE"), std::string::npos);
  EXPECT_NE(error("2=dp").find("expected NAME=SIZE"), std::string::npos);
  EXPECT_NE(error("dp").find("expected NAME=SIZE"), std::string::npos);
  // This machine's description does not bound the number of CPU ranks.
  EXPECT_TRUE(!!layMesh("dp=64", describeThisMachine()));
}

TEST(Cluster, ShippedExamplesParse) {
  std::map<std::string, Cluster> shipped;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(LOOM_SOURCE_DIR "/clusters", ec),
       end;
       it != end && !ec; it.increment(ec)) {
    if (llvm::sys::path::extension(it->path()) != ".json")
      continue;
    auto c = readClusterFile(it->path());
    ASSERT_TRUE(!!c) << it->path() << ": " << llvm::toString(c.takeError());
    shipped[llvm::sys::path::filename(it->path()).str()] = std::move(*c);
  }
  ASSERT_FALSE(ec) << ec.message();
  // The GPU nodes the planner's tests assume, from their datasheets.
  for (const char *name : {"a100x8.json", "h100x8.json", "h200x8.json"}) {
    ASSERT_TRUE(shipped.count(name)) << name;
    const Cluster &c = shipped[name];
    EXPECT_EQ(c.devicesPerNode, 8) << name;
    EXPECT_GT(c.intraNode.bandwidthGBps, c.interNode.bandwidthGBps) << name;
    EXPECT_GT(c.device.peakTFLOPs.lookup("bfloat16"), 0) << name;
  }
  EXPECT_EQ(shipped["a100x8.json"].device.peakTFLOPs.lookup("bfloat16"), 312);
  EXPECT_EQ(shipped["h100x8.json"].device.memoryGB, 80);
  EXPECT_TRUE(shipped.count("cpu-2x16.json"));
}
} // namespace
