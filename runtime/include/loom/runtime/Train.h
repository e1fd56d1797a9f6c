//===- Train.h - The training loop of `loomrun --train` ---------*- C++ -*-===//
//
// Runs a training artifact (docs/Training.md) for many steps on this rank:
// fills the data inputs and the scalars, runs the step, applies the
// updates by swapping buffers (or skips them when the loss or the gradient
// norm is not finite on any rank), writes metrics, progress and
// checkpoints, and resumes from them.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_TRAIN_H
#define LOOM_RUNTIME_TRAIN_H

#include "loom/runtime/Runtime.h"
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace loom::rt::train {

struct Options {
  /// --data NAME=FILE.
  std::vector<std::pair<std::string, std::string>> data;
  /// Total steps (a resumed run continues up to this many).
  int64_t steps = 0;
  /// --batch; 0 when not given.
  int64_t batch = 0;
  bool seedGiven = false;
  uint64_t seed = 0;
  /// Metrics JSON lines (rank 0); "" for none.
  std::string metrics;
  /// Checkpoint directory; "" for none. ckptEvery 0: only after the last
  /// step.
  std::string ckptDir;
  int64_t ckptEvery = 0;
  /// --keep-last: keep this many newest checkpoints; 0 keeps all.
  int64_t keepLast = 0;
  /// Write checkpoints on a background thread from a copy of the state
  /// (false: --sync-ckpt, training waits for the files).
  bool asyncCkpt = true;
  bool resume = false;
  bool haltOnNan = false;
  int64_t logEvery = 10;
};

/// How the caller's ranks agree and fail (loomrun's Rank).
struct Hooks {
  /// Every rank reports its outcome ("" for success); true when all
  /// succeeded. Otherwise the lowest rank that failed has printed its
  /// message, and the caller exits 1.
  std::function<bool(const std::string &ownError)> agree;
  /// A failure that cannot wait for an agreement (the other ranks may be
  /// inside a collective): prints it and, with several ranks, ends the
  /// job; returns the exit code.
  std::function<int(const std::string &message)> failHere;
};

/// Trains `program` (loaded and bound to `comm`) as `options` say. Returns
/// the process's exit code (0, or 1 after the message was printed).
int run(loom_program *program, loom_comm *comm, const Options &options,
        const Hooks &hooks);

} // namespace loom::rt::train

#endif // LOOM_RUNTIME_TRAIN_H
