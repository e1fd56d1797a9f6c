//===- CommCostTest.cpp - Collective and ZeRO memory formulas -------------===//

#include "loom/CostModel/CommCost.h"
#include "gtest/gtest.h"

using namespace loom;

namespace {

// 100 GB/s, 5 us: beta = 1e-11 s/B, alpha = 5e-6 s.
const LinkSpec kLink{100, 5};
constexpr double kBeta = 1e-11, kAlpha = 5e-6;

TEST(CommCostTest, RingAllReduce) {
  double s = 256e6;
  for (int64_t n : {2, 4, 8, 64}) {
    CollectiveTime t = collectiveTime(CollectiveKind::AllReduce,
                                      CollectiveAlgorithm::Ring, n, s, kLink);
    EXPECT_DOUBLE_EQ(t.bandwidthSeconds, 2.0 * (n - 1) / n * s * kBeta) << n;
    EXPECT_DOUBLE_EQ(t.latencySeconds, 2.0 * (n - 1) * kAlpha) << n;
  }
}

TEST(CommCostTest, GatherAndScatterMoveHalfAnAllReduce) {
  double s = 64e6;
  for (CollectiveKind kind :
       {CollectiveKind::AllGather, CollectiveKind::ReduceScatter}) {
    CollectiveTime t =
        collectiveTime(kind, CollectiveAlgorithm::Ring, 8, s, kLink);
    EXPECT_DOUBLE_EQ(t.bandwidthSeconds, 7.0 / 8 * s * kBeta);
    EXPECT_DOUBLE_EQ(t.latencySeconds, 7 * kAlpha);
  }
  // A reduce-scatter plus an all-gather is exactly a ring all-reduce.
  CollectiveTime rs = collectiveTime(CollectiveKind::ReduceScatter,
                                     CollectiveAlgorithm::Ring, 8, s, kLink);
  CollectiveTime ag = collectiveTime(CollectiveKind::AllGather,
                                     CollectiveAlgorithm::Ring, 8, s, kLink);
  CollectiveTime ar = collectiveTime(CollectiveKind::AllReduce,
                                     CollectiveAlgorithm::Ring, 8, s, kLink);
  EXPECT_DOUBLE_EQ(rs.seconds() + ag.seconds(), ar.seconds());
}

TEST(CommCostTest, MeasuredBandwidthPerKind) {
  // A calibrated link prices each kind at its own bandwidth; the others
  // keep the link's.
  LinkSpec link = kLink;
  link.reduceScatterGBps = 25;
  double s = 64e6;
  CollectiveTime rs = collectiveTime(CollectiveKind::ReduceScatter,
                                     CollectiveAlgorithm::Ring, 8, s, link);
  EXPECT_DOUBLE_EQ(rs.bandwidthSeconds, 7.0 / 8 * s / 25e9);
  EXPECT_DOUBLE_EQ(rs.latencySeconds, 7 * kAlpha);
  CollectiveTime ag = collectiveTime(CollectiveKind::AllGather,
                                     CollectiveAlgorithm::Ring, 8, s, link);
  EXPECT_DOUBLE_EQ(ag.bandwidthSeconds, 7.0 / 8 * s * kBeta);
}

TEST(CommCostTest, TreeWinsSmallMessagesOnManyDevices) {
  CollectiveAlgorithm chosen;
  // 1 KiB on 1024 devices: latency dominates, log2(1024) = 10 steps.
  CollectiveTime small =
      bestCollectiveTime(CollectiveKind::AllReduce, 1024, 1024, kLink, &chosen);
  EXPECT_EQ(chosen, CollectiveAlgorithm::Tree);
  EXPECT_DOUBLE_EQ(small.latencySeconds, 20 * kAlpha);
  // 1 GB on 8 devices: bandwidth dominates; the ring moves 2(n-1)/n < 2.
  bestCollectiveTime(CollectiveKind::AllReduce, 8, 1e9, kLink, &chosen);
  EXPECT_EQ(chosen, CollectiveAlgorithm::Ring);
}

TEST(CommCostTest, OneDeviceIsFree) {
  EXPECT_EQ(collectiveTime(CollectiveKind::AllReduce, CollectiveAlgorithm::Ring,
                           1, 1e9, kLink)
                .seconds(),
            0.0);
}

// The ZeRO paper (Rajbhandari et al. 2020), mixed-precision Adam:
// 16P, 4P + 12P/N, 2P + 14P/N, 16P/N bytes per device.
TEST(CommCostTest, ZeroMemoryMixedPrecision) {
  double p = 7.5e9;
  for (int64_t n : {1, 8, 64, 1024}) {
    auto mem = [&](int stage) {
      return trainingMemoryPerDevice(p, n, stage, TrainingPrecision::Mixed,
                                     OptimizerKind::Adam)
          .total();
    };
    EXPECT_DOUBLE_EQ(mem(0), 16 * p) << n;
    EXPECT_DOUBLE_EQ(mem(1), 4 * p + 12 * p / n) << n;
    EXPECT_DOUBLE_EQ(mem(2), 2 * p + 14 * p / n) << n;
    EXPECT_DOUBLE_EQ(mem(3), 16 * p / n) << n;
  }
  // The paper's example: 7.5B parameters on 64 devices, stage 1: 31.4 GB.
  EXPECT_NEAR(trainingMemoryPerDevice(p, 64, 1, TrainingPrecision::Mixed,
                                      OptimizerKind::Adam)
                      .total() /
                  1e9,
              31.4, 0.1);
}

TEST(CommCostTest, ZeroMemoryFP32) {
  double p = 1e9;
  int64_t n = 16;
  auto mem = [&](int stage) {
    return trainingMemoryPerDevice(p, n, stage, TrainingPrecision::FP32,
                                   OptimizerKind::Adam);
  };
  EXPECT_DOUBLE_EQ(mem(0).total(), 16 * p);
  EXPECT_DOUBLE_EQ(mem(1).total(), 8 * p + 8 * p / n);
  EXPECT_DOUBLE_EQ(mem(2).total(), 4 * p + 12 * p / n);
  EXPECT_DOUBLE_EQ(mem(3).total(), 16 * p / n);
  EXPECT_DOUBLE_EQ(mem(2).gradients, 4 * p / n);
  // Plain SGD keeps no state.
  EXPECT_DOUBLE_EQ(trainingMemoryPerDevice(p, n, 1, TrainingPrecision::FP32,
                                           OptimizerKind::SGD)
                       .optimizerState,
                   0.0);
}

} // namespace
