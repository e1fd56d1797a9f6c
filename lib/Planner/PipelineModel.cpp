//===- PipelineModel.cpp - Closed forms of the pipeline schedules ---------===//
//
// GPipe and 1F1B: (m + p - 1)(F + B). Interleaved 1F1B (Narayanan et al.
// 2021, section 2.2.2): the fill and drain shrink to (p - 1)(F + B) / v.
// ZB-H1 (Qi et al. 2024, section 3.1): the deferred weight gradients fill
// the drain, leaving (p - 1)(F + B_input - W) with B_input = B - W, for
// m >= p microbatches.
//
//===----------------------------------------------------------------------===//

#include "loom/Planner/PipelineModel.h"
#include <algorithm>

using namespace loom;
using namespace loom::planner;

llvm::StringRef loom::planner::scheduleName(Schedule s) {
  switch (s) {
  case Schedule::None:
    return "none";
  case Schedule::GPipe:
    return "gpipe";
  case Schedule::OneFOneB:
    return "1f1b";
  case Schedule::Interleaved:
    return "interleaved";
  case Schedule::ZeroBubble:
    return "zb1p";
  }
  return "?";
}

std::optional<Schedule> loom::planner::parseSchedule(llvm::StringRef name) {
  for (Schedule s : {Schedule::None, Schedule::GPipe, Schedule::OneFOneB,
                     Schedule::Interleaved, Schedule::ZeroBubble})
    if (scheduleName(s) == name)
      return s;
  return std::nullopt;
}

double loom::planner::bubbleSeconds(Schedule schedule, int64_t pp, int64_t vpp,
                                    int64_t m, const StageWork &w) {
  if (pp <= 1 || m < 1)
    return 0;
  double fill = double(pp - 1);
  switch (schedule) {
  case Schedule::None:
    return 0;
  case Schedule::GPipe:
  case Schedule::OneFOneB:
    return fill * (w.forward + w.backward);
  case Schedule::Interleaved:
    return fill * (w.forward + w.backward) / double(std::max<int64_t>(1, vpp));
  case Schedule::ZeroBubble: {
    // 1F1B's fill and drain with the input-gradient part of backward only,
    // less the deferred weight gradients that fill it: one per microbatch
    // after the first, at most one per stage after the first.
    double fillDrain = fill * (w.forward + w.backward - w.weightGrad);
    double filled = double(std::min(m - 1, pp - 1)) * w.weightGrad;
    return std::max(0.0, fillDrain - filled);
  }
  }
  return 0;
}

double loom::planner::pipelineSeconds(Schedule schedule, int64_t pp,
                                      int64_t vpp, int64_t m,
                                      const StageWork &w) {
  return double(m) * (w.forward + w.backward) +
         bubbleSeconds(schedule, pp, vpp, m, w);
}

double loom::planner::microbatchesInFlight(Schedule schedule, int64_t s,
                                           int64_t pp, int64_t vpp, int64_t m) {
  if (pp <= 1)
    return std::min<int64_t>(1, m);
  switch (schedule) {
  case Schedule::None:
    return 1;
  case Schedule::GPipe:
    return double(m);
  case Schedule::OneFOneB:
  case Schedule::ZeroBubble:
    return double(std::min(m, pp - s));
  case Schedule::Interleaved: {
    int64_t v = std::max<int64_t>(1, vpp);
    // Megatron's warm-up of (p - s - 1) * 2 + (v - 1) * p chunk forwards,
    // then one more before the first backward.
    int64_t chunks = std::min(m * v, (pp - s - 1) * 2 + (v - 1) * pp + 1);
    return double(chunks) / double(v);
  }
  }
  return 1;
}

double loom::planner::deferredWeightGrads(Schedule schedule, int64_t s,
                                          int64_t pp, int64_t m) {
  if (schedule != Schedule::ZeroBubble || pp <= 1)
    return 0;
  // Stage s keeps up to s weight-gradient units pending; at its peak of
  // activations (the last forward of the steady phase) those of the
  // m - (pp - s) backward units run so far.
  return double(std::max<int64_t>(0, std::min(s, m - (pp - s))));
}

std::string loom::planner::scheduleConstraint(Schedule schedule, int64_t pp,
                                              int64_t vpp, int64_t m) {
  if (vpp > 1 && schedule != Schedule::Interleaved)
    return "only the interleaved schedule runs several model chunks (vpp) "
           "per stage";
  if (schedule == Schedule::Interleaved) {
    if (pp < 2)
      return "the interleaved schedule needs pp >= 2";
    if (vpp < 2)
      return "the interleaved schedule needs vpp >= 2 model chunks per stage";
    if (m % pp)
      return "the interleaved schedule sends microbatches through the chunks "
             "in groups of one per stage: " +
             std::to_string(m) +
             " microbatches are not a multiple of pp=" + std::to_string(pp);
  }
  if (schedule != Schedule::None && pp == 1)
    return "a pipeline schedule needs pp >= 2";
  return "";
}
