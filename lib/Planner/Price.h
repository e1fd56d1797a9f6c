//===- Price.h - Pricing one plan -------------------------------*- C++ -*-===//
//
// Private to lib/Planner. Prices a plan shape (mesh, microbatches, schedule,
// chunks, ZeRO, recomputation, sequence parallelism) with one tp
// assignment: per-stage compute, communication, the schedule's bubble,
// memory, energy and cost. Caches what plans share.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_LIB_PLANNER_PRICE_H
#define LOOM_LIB_PLANNER_PRICE_H

#include "Model.h"
#include <map>
#include <tuple>

namespace loom::planner {

/// One pipeline stage's segments summed, for one microbatch: what every
/// plan of one tp assignment, microbatch size, stage cut and recomputation
/// shares.
struct StageSums {
  double forward = 0, backward = 0, tpForward = 0, tpBackward = 0;
  double recompute = 0, recomputeTp = 0, weightGrad = 0;
  double parameters = 0, maxSegmentParameters = 0;
  /// Bytes of activations kept per microbatch (by the recomputation), of
  /// one layer's working set, and kept per deferred weight gradient.
  double kept = 0, peak = 0, weightGradBytes = 0;
  /// Bytes each chunk sends: activations on (not the model's last chunk)
  /// and, in training, gradients back (not the model's first); the
  /// largest boundary.
  std::vector<double> sendsForward, sendsBackward;
  double maxBoundary = 0;
  std::map<std::string, CommVolume> comm;
};

class PlanPricer {
public:
  PlanPricer(Model &model, const Cluster &cluster,
             const PlannerOptions &options, bool mixed)
      : model(model), cluster(cluster), options(options), mixed(mixed) {}

  Pricing pricing(int64_t tp, double microbatch, bool sp) const;
  /// The assignment candidates of `tp`, priced at a batch independent of
  /// the device count so they are shared by every plan.
  const std::vector<Assignment> &candidates(int64_t tp);
  /// How many batch-dependent ops `a` splits over tp, and how many there
  /// are.
  std::pair<int64_t, int64_t> splitOps(int64_t tp, const Assignment &a);
  /// Prices `plan` (its shape fields set). Returns false when the shape is
  /// impossible. Without `details` only what ranks plans is filled in
  /// (times, memory, energy, cost); with it also the assignment, the
  /// collectives, each stage's memory and the layer groups.
  bool evaluate(Plan &plan, const Assignment &a, bool details);

private:
  Model &model;
  const Cluster &cluster;
  const PlannerOptions &options;
  bool mixed;
  using Key =
      std::tuple<int64_t, std::string, double, bool, int64_t, int64_t, int>;
  std::map<Key, std::vector<SegmentCost>> segmentCache;
  std::map<Key, std::vector<int>> partitionCache;
  std::map<Key, std::pair<int64_t, int64_t>> splitCache;
  std::map<Key, std::vector<StageSums>> sumCache;
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::pair<LinkSpec, LinkSpec>>
      linkCache;

  const std::vector<SegmentCost> &costs(int64_t tp, const Assignment &a,
                                        double microbatch, bool sp);
  const std::vector<int> &stages(int64_t tp, const Assignment &a, int64_t parts,
                                 dist::Recompute recompute, bool sp);
  const std::vector<StageSums> &stageSums(int64_t tp, const Assignment &a,
                                          double microbatch, bool sp,
                                          int64_t pp, int64_t v,
                                          dist::Recompute recompute);
};

} // namespace loom::planner

#endif // LOOM_LIB_PLANNER_PRICE_H
