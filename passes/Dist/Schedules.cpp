//===- Schedules.cpp - Pipeline schedules as unit orders ------------------===//
//
// GPipe (Huang et al. 2019), 1F1B (PipeDream-Flush, Narayanan et al. 2021),
// Megatron's interleaved 1F1B (Narayanan et al. 2021, section 2.2.2) and
// ZB-H1 (Qi et al. 2024, "Zero Bubble Pipeline Parallelism", section 3.1).
//
//===----------------------------------------------------------------------===//

#include "loom/Passes/Dist/Schedules.h"
#include <deque>
#include <set>
#include <tuple>

using namespace loom;
using namespace loom::dist;

std::string loom::dist::formatUnit(const Unit &unit) {
  const char *letter = "F";
  switch (unit.kind) {
  case UnitKind::Forward:
    break;
  case UnitKind::Backward:
  case UnitKind::InputGrad:
    letter = "B";
    break;
  case UnitKind::WeightGrad:
    letter = "W";
    break;
  }
  std::string text = letter + std::to_string(unit.microbatch);
  if (unit.chunk)
    text += "." + std::to_string(unit.chunk);
  return text;
}

namespace {
llvm::SmallVector<Unit> gpipe(int64_t m) {
  llvm::SmallVector<Unit> units;
  for (int64_t k = 0; k < m; ++k)
    units.push_back({k, UnitKind::Forward});
  for (int64_t k = 0; k < m; ++k)
    units.push_back({k, UnitKind::Backward});
  return units;
}

/// Enough forward units to fill the pipeline below this stage, then one
/// forward and one backward unit in turn, then the remaining backward
/// units.
llvm::SmallVector<Unit> oneFOneB(int64_t s, int64_t p, int64_t m) {
  llvm::SmallVector<Unit> units;
  int64_t warmup = std::min(p - s - 1, m);
  for (int64_t k = 0; k < warmup; ++k)
    units.push_back({k, UnitKind::Forward});
  for (int64_t k = warmup; k < m; ++k) {
    units.push_back({k, UnitKind::Forward});
    units.push_back({k - warmup, UnitKind::Backward});
  }
  for (int64_t k = m - warmup; k < m; ++k)
    units.push_back({k, UnitKind::Backward});
  return units;
}

/// ZB-H1: 1F1B's order of forward and input-gradient units, with the
/// weight-gradient units, which nothing waits for, put off to fill the
/// waits: stage s keeps up to s of them pending. The last stage, which
/// idles longest at the end of a 1F1B step, defers the most; the peak of
/// in-flight microbatches over all stages stays 1F1B's (p, on stage 0).
llvm::SmallVector<Unit> zeroBubbleH1(int64_t s, int64_t p, int64_t m) {
  llvm::SmallVector<Unit> units;
  std::deque<int64_t> pending;
  auto backward = [&](int64_t k) {
    units.push_back({k, UnitKind::InputGrad});
    pending.push_back(k);
    while (static_cast<int64_t>(pending.size()) > s) {
      units.push_back({pending.front(), UnitKind::WeightGrad});
      pending.pop_front();
    }
  };
  int64_t warmup = std::min(p - s - 1, m);
  for (int64_t k = 0; k < warmup; ++k)
    units.push_back({k, UnitKind::Forward});
  for (int64_t k = warmup; k < m; ++k) {
    units.push_back({k, UnitKind::Forward});
    backward(k - warmup);
  }
  for (int64_t k = m - warmup; k < m; ++k)
    backward(k);
  for (int64_t k : pending)
    units.push_back({k, UnitKind::WeightGrad});
  return units;
}

/// Megatron's interleaved 1F1B: microbatches go through the chunks in
/// groups of p; warm-up runs (p - s - 1) * 2 + (v - 1) * p forward units.
llvm::SmallVector<Unit> interleaved(int64_t s, int64_t p, int64_t v,
                                    int64_t m) {
  int64_t total = m * v;
  auto chunkOf = [&](int64_t k, bool forward) {
    int64_t c = (k % (p * v)) / p;
    return forward ? c : v - 1 - c;
  };
  auto microbatchOf = [&](int64_t k) { return (k / (p * v)) * p + k % p; };
  int64_t warmup = std::min((p - s - 1) * 2 + (v - 1) * p, total);
  llvm::SmallVector<Unit> units;
  auto forward = [&](int64_t k) {
    units.push_back({microbatchOf(k), UnitKind::Forward, chunkOf(k, true)});
  };
  auto backward = [&](int64_t k) {
    units.push_back({microbatchOf(k), UnitKind::Backward, chunkOf(k, false)});
  };
  for (int64_t k = 0; k < warmup; ++k)
    forward(k);
  for (int64_t i = 0; i < total - warmup; ++i) {
    forward(warmup + i);
    backward(i);
  }
  for (int64_t i = total - warmup; i < total; ++i)
    backward(i);
  return units;
}
} // namespace

llvm::SmallVector<Unit> loom::dist::scheduleUnits(Schedule schedule,
                                                  int64_t stage, int64_t stages,
                                                  int64_t microbatches,
                                                  int64_t chunks,
                                                  std::string &why) {
  if (chunks > 1 && schedule != Schedule::Interleaved) {
    why = "only the interleaved schedule runs several model chunks per "
          "stage";
    return {};
  }
  switch (schedule) {
  case Schedule::GPipe:
    return gpipe(microbatches);
  case Schedule::OneFOneB:
    return oneFOneB(stage, stages, microbatches);
  case Schedule::ZeroBubble:
    return zeroBubbleH1(stage, stages, microbatches);
  case Schedule::Interleaved:
    if (microbatches % stages != 0) {
      why = "the interleaved schedule sends microbatches through the chunks "
            "in groups of one per stage: " +
            std::to_string(microbatches) +
            " microbatches are not a multiple "
            "of the " +
            std::to_string(stages) + " stages";
      return {};
    }
    return interleaved(stage, stages, chunks, microbatches);
  }
  return {};
}

bool loom::dist::checkRunnable(llvm::ArrayRef<llvm::SmallVector<Unit>> orders,
                               int64_t stages, int64_t chunks,
                               std::string &why) {
  // (microbatch, virtual stage, what is done: 0 forward, 1 gradients sent)
  using Key = std::tuple<int64_t, int64_t, int>;
  std::set<Key> done;
  int64_t last = stages * chunks - 1;
  auto ready = [&](const Unit &u, int64_t stage) {
    int64_t vs = virtualStage(stage, u.chunk, stages);
    switch (u.kind) {
    case UnitKind::Forward:
      return vs == 0 || done.count({u.microbatch, vs - 1, 0});
    case UnitKind::Backward:
    case UnitKind::InputGrad:
      return done.count({u.microbatch, vs, 0}) &&
             (vs == last || done.count({u.microbatch, vs + 1, 1}));
    case UnitKind::WeightGrad:
      return done.count({u.microbatch, vs, 1}) != 0;
    }
    return false;
  };
  llvm::SmallVector<size_t> next(orders.size(), 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (auto [s, order] : llvm::enumerate(orders))
      while (next[s] < order.size() && ready(order[next[s]], s)) {
        const Unit &u = order[next[s]++];
        int64_t vs = virtualStage(s, u.chunk, stages);
        if (u.kind == UnitKind::Forward)
          done.insert({u.microbatch, vs, 0});
        else if (u.kind != UnitKind::WeightGrad)
          done.insert({u.microbatch, vs, 1});
        progress = true;
      }
  }
  for (auto [s, order] : llvm::enumerate(orders))
    if (next[s] < order.size()) {
      why = "stage " + std::to_string(s) + " waits forever at unit " +
            formatUnit(order[next[s]]);
      return false;
    }
  return true;
}
