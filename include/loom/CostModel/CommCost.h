//===- CommCost.h - Closed-form costs of collectives and ZeRO memory -*- C++
//-*-===//
//
// The analytic pieces of the cost model that do not depend on a program:
// how long a collective takes on a group of devices joined by one kind of
// link (the alpha-beta model per algorithm: alpha the link's latency per
// message step, beta the seconds per byte), and how much memory training
// state takes per device under each ZeRO stage (the ZeRO paper's counts).
// The planner composes them with op costs from the Cost interface.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_COSTMODEL_COMMCOST_H
#define LOOM_COSTMODEL_COMMCOST_H

#include "loom/CostModel/Cluster.h"
#include <cstdint>

namespace loom {

enum class CollectiveKind {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  Broadcast
};

/// `all_reduce`, `all_gather`, ... (the names of dist collectives).
const char *collectiveName(CollectiveKind kind);

enum class CollectiveAlgorithm {
  /// Bandwidth-optimal: n - 1 (or 2(n - 1)) steps around a ring.
  Ring,
  /// Latency-optimal: log2(n) steps up and down a binary tree, each
  /// carrying the whole message (pipelined, as NCCL's trees are).
  Tree,
};

/// The time of one collective, split into its latency and bandwidth terms.
struct CollectiveTime {
  double latencySeconds = 0;
  double bandwidthSeconds = 0;
  double seconds() const { return latencySeconds + bandwidthSeconds; }
};

/// The time of `kind` over a group of `n` devices on `link`, for a message
/// of `bytes`: the whole tensor each device holds at the end (all_reduce,
/// all_gather, broadcast) or starts with (reduce_scatter, all_to_all).
/// Ring: all_reduce 2(n-1)/n S/B + 2(n-1) alpha; all_gather,
/// reduce_scatter and all_to_all (n-1)/n S/B + (n-1) alpha; broadcast
/// S/B + (n-1) alpha (pipelined). Tree: all_reduce 2 S/B + 2 log2(n) alpha,
/// broadcast S/B + log2(n) alpha; the others have no tree form and cost as
/// the ring. A group of one device costs nothing.
CollectiveTime collectiveTime(CollectiveKind kind,
                              CollectiveAlgorithm algorithm, int64_t n,
                              double bytes, const LinkSpec &link);

/// The faster of the ring and the tree.
CollectiveTime bestCollectiveTime(CollectiveKind kind, int64_t n, double bytes,
                                  const LinkSpec &link,
                                  CollectiveAlgorithm *chosen = nullptr);

/// How training keeps its numbers.
enum class TrainingPrecision {
  /// fp16/bf16 parameters and gradients, fp32 master weights and optimizer
  /// state (the ZeRO paper's setting).
  Mixed,
  FP32,
};

enum class OptimizerKind { Adam, SGDMomentum, SGD };

/// Bytes per device of parameters, gradients and optimizer state.
struct TrainingMemory {
  double parameters = 0;
  double gradients = 0;
  double optimizerState = 0;
  double total() const { return parameters + gradients + optimizerState; }
};

/// Training state per device for `numParameters` parameters, ZeRO `stage`
/// (0-3) over `dataParallel` devices. Mixed-precision Adam gives the ZeRO
/// paper's 16P, 4P + 12P/N, 2P + 14P/N and 16P/N bytes; fp32 Adam 16P,
/// 8P + 8P/N, 4P + 12P/N and 16P/N.
TrainingMemory trainingMemoryPerDevice(double numParameters,
                                       int64_t dataParallel, int stage,
                                       TrainingPrecision precision,
                                       OptimizerKind optimizer);

} // namespace loom

#endif // LOOM_COSTMODEL_COMMCOST_H
