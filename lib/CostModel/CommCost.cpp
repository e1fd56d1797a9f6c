//===- CommCost.cpp - Closed-form costs of collectives and ZeRO memory ----===//

#include "loom/CostModel/CommCost.h"
#include <algorithm>
#include <cmath>

using namespace loom;

const char *loom::collectiveName(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::AllGather:
    return "all_gather";
  case CollectiveKind::ReduceScatter:
    return "reduce_scatter";
  case CollectiveKind::AllToAll:
    return "all_to_all";
  case CollectiveKind::Broadcast:
    return "broadcast";
  }
  return "?";
}

CollectiveTime loom::collectiveTime(CollectiveKind kind,
                                    CollectiveAlgorithm algorithm, int64_t n,
                                    double bytes, const LinkSpec &link) {
  CollectiveTime t;
  if (n <= 1 || bytes < 0)
    return t;
  double alpha = link.latencyUs * 1e-6;
  // Seconds per byte; a link of no bandwidth is never chosen (infinite).
  double measured = kind == CollectiveKind::AllReduce ? link.allReduceGBps
                    : kind == CollectiveKind::ReduceScatter
                        ? link.reduceScatterGBps
                    : kind == CollectiveKind::AllGather ? link.allGatherGBps
                                                        : 0;
  double gbps = measured > 0 ? measured : link.bandwidthGBps;
  double beta = gbps > 0 ? 1.0 / (gbps * 1e9) : HUGE_VAL;
  double steps = static_cast<double>(n - 1);
  double fraction = steps / static_cast<double>(n);
  double depth = std::ceil(std::log2(static_cast<double>(n)));
  bool tree = algorithm == CollectiveAlgorithm::Tree;
  switch (kind) {
  case CollectiveKind::AllReduce:
    // Reduce-scatter then all-gather around the ring; up then down a tree.
    t.latencySeconds = 2 * (tree ? depth : steps) * alpha;
    t.bandwidthSeconds = (tree ? 2.0 : 2 * fraction) * bytes * beta;
    return t;
  case CollectiveKind::Broadcast:
    t.latencySeconds = (tree ? depth : steps) * alpha;
    t.bandwidthSeconds = bytes * beta;
    return t;
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllToAll:
    t.latencySeconds = steps * alpha;
    t.bandwidthSeconds = fraction * bytes * beta;
    return t;
  }
  return t;
}

CollectiveTime loom::bestCollectiveTime(CollectiveKind kind, int64_t n,
                                        double bytes, const LinkSpec &link,
                                        CollectiveAlgorithm *chosen) {
  CollectiveTime ring =
      collectiveTime(kind, CollectiveAlgorithm::Ring, n, bytes, link);
  CollectiveTime tree =
      collectiveTime(kind, CollectiveAlgorithm::Tree, n, bytes, link);
  bool useTree = tree.seconds() < ring.seconds();
  if (chosen)
    *chosen = useTree ? CollectiveAlgorithm::Tree : CollectiveAlgorithm::Ring;
  return useTree ? tree : ring;
}

TrainingMemory loom::trainingMemoryPerDevice(double numParameters,
                                             int64_t dataParallel, int stage,
                                             TrainingPrecision precision,
                                             OptimizerKind optimizer) {
  bool mixed = precision == TrainingPrecision::Mixed;
  // Bytes per parameter: the working copy and its gradient (2 each in
  // mixed precision, 4 in fp32), and the optimizer's fp32 state, which in
  // mixed precision includes the fp32 master weights.
  double weightBytes = mixed ? 2 : 4, gradBytes = mixed ? 2 : 4;
  double stateBytes = optimizer == OptimizerKind::Adam          ? 8
                      : optimizer == OptimizerKind::SGDMomentum ? 4
                                                                : 0;
  if (mixed)
    stateBytes += 4;
  double n = static_cast<double>(std::max<int64_t>(dataParallel, 1));
  double p = numParameters;
  TrainingMemory m;
  m.parameters = weightBytes * p / (stage >= 3 ? n : 1);
  m.gradients = gradBytes * p / (stage >= 2 ? n : 1);
  m.optimizerState = stateBytes * p / (stage >= 1 ? n : 1);
  return m;
}
