//===- PipelineModelTest.cpp - The planner's schedule formulas ------------===//
//
// Each schedule's step time, bubble and microbatches in flight, against
// hand-computed values and against a simulation of the unit orders the
// compiler executes (dist::scheduleUnits).
//
//===----------------------------------------------------------------------===//

#include "loom/Planner/PipelineModel.h"
#include "loom/Passes/Dist/Schedules.h"
#include <gtest/gtest.h>
#include <map>
#include <tuple>

using namespace loom;
using namespace loom::planner;

namespace {

dist::Schedule toDist(Schedule s) {
  switch (s) {
  case Schedule::GPipe:
    return dist::Schedule::GPipe;
  case Schedule::Interleaved:
    return dist::Schedule::Interleaved;
  case Schedule::ZeroBubble:
    return dist::Schedule::ZeroBubble;
  default:
    return dist::Schedule::OneFOneB;
  }
}

/// What a deferred weight gradient keeps, relative to a microbatch's
/// activations (any value below 1 tests the joint peak).
constexpr double kDeferredShare = 0.5;

struct Simulated {
  double seconds = 0;
  /// Per stage: the peak of activations in flight plus kDeferredShare per
  /// deferred weight gradient, in microbatches.
  std::vector<double> peak;
};

/// Runs every stage's units in order, each when its inputs are there;
/// chunk units take 1/v of the stage's work; sends are free.
Simulated simulate(Schedule schedule, int64_t p, int64_t v, int64_t m,
                   const StageWork &w) {
  std::vector<llvm::SmallVector<dist::Unit>> orders;
  for (int64_t s = 0; s < p; ++s) {
    std::string why;
    orders.push_back(dist::scheduleUnits(toDist(schedule), s, p, m, v, why));
    EXPECT_FALSE(orders.back().empty()) << why;
  }
  // (microbatch, virtual stage, 0 forward / 1 input gradient) -> end time.
  std::map<std::tuple<int64_t, int64_t, int>, double> done;
  std::vector<size_t> next(p, 0);
  std::vector<double> free(p, 0);
  int64_t last = p * v - 1;
  Simulated r;
  r.peak.assign(p, 0);
  std::vector<double> live(p, 0), pending(p, 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int64_t s = 0; s < p; ++s)
      while (next[s] < orders[s].size()) {
        const dist::Unit &u = orders[s][next[s]];
        int64_t vs = dist::virtualStage(s, u.chunk, p);
        double ready = 0, length = 0;
        auto need = [&](std::tuple<int64_t, int64_t, int> key) {
          auto it = done.find(key);
          if (it == done.end())
            return false;
          ready = std::max(ready, it->second);
          return true;
        };
        bool ok = true;
        switch (u.kind) {
        case dist::UnitKind::Forward:
          ok = vs == 0 || need({u.microbatch, vs - 1, 0});
          length = w.forward / v;
          break;
        case dist::UnitKind::Backward:
        case dist::UnitKind::InputGrad:
          ok = need({u.microbatch, vs, 0}) &&
               (vs == last || need({u.microbatch, vs + 1, 1}));
          length =
              (u.kind == dist::UnitKind::Backward ? w.backward
                                                  : w.backward - w.weightGrad) /
              v;
          break;
        case dist::UnitKind::WeightGrad:
          ok = need({u.microbatch, vs, 1});
          length = w.weightGrad / v;
          break;
        }
        if (!ok)
          break;
        double end = std::max(ready, free[s]) + length;
        free[s] = end;
        r.seconds = std::max(r.seconds, end);
        if (u.kind == dist::UnitKind::Forward) {
          done[{u.microbatch, vs, 0}] = end;
          live[s] += 1.0 / v;
        } else if (u.kind == dist::UnitKind::WeightGrad) {
          pending[s] -= 1;
        } else {
          done[{u.microbatch, vs, 1}] = end;
          live[s] -= 1.0 / v;
          if (u.kind == dist::UnitKind::InputGrad)
            pending[s] += 1;
        }
        r.peak[s] = std::max(r.peak[s], live[s] + kDeferredShare * pending[s]);
        ++next[s];
        progress = true;
      }
  }
  return r;
}

TEST(PipelineModel, HandComputed) {
  StageWork w{1.0, 2.0, 1.0};
  // GPipe and 1F1B: (m + p - 1)(F + B) = (8 + 3) x 3.
  EXPECT_DOUBLE_EQ(pipelineSeconds(Schedule::GPipe, 4, 1, 8, w), 33.0);
  EXPECT_DOUBLE_EQ(pipelineSeconds(Schedule::OneFOneB, 4, 1, 8, w), 33.0);
  EXPECT_DOUBLE_EQ(bubbleSeconds(Schedule::OneFOneB, 4, 1, 8, w), 9.0);
  // Interleaved, v = 2: the bubble halves, 24 + 9 / 2.
  EXPECT_DOUBLE_EQ(pipelineSeconds(Schedule::Interleaved, 4, 2, 8, w), 28.5);
  // ZB-H1 with m >= p: (p - 1)(F + B_input - W) = 3 x (1 + 1 - 1).
  EXPECT_DOUBLE_EQ(bubbleSeconds(Schedule::ZeroBubble, 4, 1, 8, w), 3.0);
  EXPECT_DOUBLE_EQ(pipelineSeconds(Schedule::ZeroBubble, 4, 1, 8, w), 27.0);
  // One microbatch: nothing to defer, (p - 1)(F + B_input) = 3 x 2.
  EXPECT_DOUBLE_EQ(bubbleSeconds(Schedule::ZeroBubble, 4, 1, 1, w), 6.0);
  // No pipeline: no bubble.
  EXPECT_DOUBLE_EQ(pipelineSeconds(Schedule::None, 1, 1, 8, w), 24.0);

  // In flight: GPipe all m; 1F1B p - s; interleaved (2(p-s-1) + (v-1)p + 1)
  // chunks of 1/v.
  EXPECT_DOUBLE_EQ(microbatchesInFlight(Schedule::GPipe, 0, 4, 1, 8), 8.0);
  EXPECT_DOUBLE_EQ(microbatchesInFlight(Schedule::OneFOneB, 0, 4, 1, 8), 4.0);
  EXPECT_DOUBLE_EQ(microbatchesInFlight(Schedule::OneFOneB, 3, 4, 1, 8), 1.0);
  EXPECT_DOUBLE_EQ(microbatchesInFlight(Schedule::OneFOneB, 0, 4, 1, 2), 2.0);
  EXPECT_DOUBLE_EQ(microbatchesInFlight(Schedule::Interleaved, 0, 4, 2, 8),
                   (6 + 4 + 1) / 2.0);
  EXPECT_DOUBLE_EQ(microbatchesInFlight(Schedule::Interleaved, 3, 4, 2, 8),
                   (0 + 4 + 1) / 2.0);
  EXPECT_DOUBLE_EQ(deferredWeightGrads(Schedule::ZeroBubble, 3, 4, 8), 3.0);
  EXPECT_DOUBLE_EQ(deferredWeightGrads(Schedule::OneFOneB, 3, 4, 8), 0.0);

  EXPECT_EQ(scheduleConstraint(Schedule::Interleaved, 4, 2, 8), "");
  EXPECT_NE(scheduleConstraint(Schedule::Interleaved, 4, 2, 6), "");
  EXPECT_NE(scheduleConstraint(Schedule::Interleaved, 4, 1, 8), "");
  EXPECT_NE(scheduleConstraint(Schedule::OneFOneB, 4, 2, 8), "");
}

// The formulas against the executed orders, for equal stages.
TEST(PipelineModel, MatchesExecutedOrders) {
  StageWork works[] = {{1.0, 2.0, 1.0}, {1.0, 1.0, 0.5}, {2.0, 3.0, 1.0}};
  for (const StageWork &w : works)
    for (int64_t p : {2, 4, 8})
      for (int64_t m : {1, 2, 4, 8, 16, 32})
        for (Schedule sched : {Schedule::GPipe, Schedule::OneFOneB,
                               Schedule::ZeroBubble, Schedule::Interleaved}) {
          for (int64_t v : {1, 2, 3}) {
            if (!scheduleConstraint(sched, p, v, m).empty())
              continue;
            SCOPED_TRACE(std::string(scheduleName(sched)) +
                         " p=" + std::to_string(p) + " v=" + std::to_string(v) +
                         " m=" + std::to_string(m));
            Simulated sim = simulate(sched, p, v, m, w);
            double formula = pipelineSeconds(sched, p, v, m, w);
            if (sched == Schedule::ZeroBubble)
              // ZB-H1's closed form is the paper's steady state: at most
              // the drain it cannot fill apart, and never above 1F1B.
              EXPECT_LE(std::abs(sim.seconds - formula), 1e-9);
            else
              EXPECT_NEAR(sim.seconds, formula, 1e-9);
            for (int64_t s = 0; s < p; ++s)
              EXPECT_NEAR(sim.peak[s],
                          microbatchesInFlight(sched, s, p, v, m) +
                              kDeferredShare *
                                  deferredWeightGrads(sched, s, p, m),
                          1e-9)
                  << "stage " << s;
          }
        }
}

} // namespace
