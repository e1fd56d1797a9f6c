//===- Schedules.h - Pipeline schedules as unit orders ----------*- C++ -*-===//
//
// A pipeline schedule is, for each stage, the order in which it runs the
// units of a step: each microbatch's forward ops, its backward ops (or,
// split for zero-bubble schedules, the input-gradient and weight-gradient
// parts), for each model chunk the stage holds. -dist-unroll-microbatches
// lays the stage's code out in this order; sends never wait and receives
// do, so an order is runnable when every receive's send comes earlier in
// a global order consistent with all stages' orders (checkRunnable).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PASSES_DIST_SCHEDULES_H
#define LOOM_PASSES_DIST_SCHEDULES_H

#include "loom/Dialect/Dist/DistOps.h"
#include "llvm/ADT/SmallVector.h"
#include <string>

namespace loom::dist {

enum class UnitKind {
  /// The forward ops.
  Forward,
  /// All backward ops (schedules that do not split them).
  Backward,
  /// Backward ops that the gradients sent to the previous stage need.
  InputGrad,
  /// The other backward ops: weight gradients, which nothing downstream
  /// waits for.
  WeightGrad,
};

struct Unit {
  int64_t microbatch;
  UnitKind kind;
  /// The model chunk (virtual stage) on this rank: 0 unless interleaved.
  int64_t chunk = 0;
};

/// Short name of a unit, for diagnostics and printed schedules: `F3`, `B0`,
/// `W1`, `F3.1` (chunk 1).
std::string formatUnit(const Unit &unit);

/// The units stage `stage` of `stages` runs for `microbatches`
/// microbatches with `chunks` model chunks per stage, in order. An empty
/// list with `why` set when the schedule cannot run that configuration.
llvm::SmallVector<Unit> scheduleUnits(Schedule schedule, int64_t stage,
                                      int64_t stages, int64_t microbatches,
                                      int64_t chunks, std::string &why);

/// Checks that every stage's units (`orders[s]`) run to the end when
/// receives block and sends do not: a forward unit needs the previous
/// virtual stage's forward unit of the same microbatch; a backward or
/// input-gradient unit needs the next virtual stage's, and its own forward
/// unit; a weight-gradient unit its own input-gradient unit. Returns false
/// with `why` naming the first stuck unit.
bool checkRunnable(llvm::ArrayRef<llvm::SmallVector<Unit>> orders,
                   int64_t stages, int64_t chunks, std::string &why);

/// The virtual stage of chunk `chunk` on stage `stage`: chunks are dealt
/// round-robin, so virtual stage v lives on stage v % stages.
inline int64_t virtualStage(int64_t stage, int64_t chunk, int64_t stages) {
  return chunk * stages + stage;
}

} // namespace loom::dist

#endif // LOOM_PASSES_DIST_SCHEDULES_H
