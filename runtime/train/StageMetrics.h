//===- StageMetrics.h - Where a training step's time and memory go --------===//
//
// Each step, each rank splits its time into computing (busy), waiting for a
// pipeline neighbour (the receives: the pipeline's bubble) and collectives,
// and measures its memory: the state the runtime holds for the program
// (parameters, optimizer state, outputs) plus the most the program's own
// buffers held at once. Rank 0 gathers them per pipeline stage for the
// metrics file.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_TRAIN_STAGEMETRICS_H
#define LOOM_RUNTIME_TRAIN_STAGEMETRICS_H

#include "loom/runtime/Communicator.h"
#include <cstdint>
#include <string>
#include <vector>

struct loom_program;

namespace loom::rt::train {

struct StepSample {
  double busySeconds = 0, waitSeconds = 0, commSeconds = 0;
  /// State plus the peak of the program's buffers during the step.
  int64_t peakBytes = 0;
  /// The peak of the program's buffers alone (activations, temporaries).
  int64_t bufferBytes = 0;
};

/// A stage's figures: its ranks' mean times and largest memory.
struct StageSample {
  int64_t stage = 0;
  StepSample sample;
};

class StageMetrics {
public:
  StageMetrics(loom_program *program, int rank, int size);

  /// Call right before the step.
  void begin();
  /// Call right after it, with its wall time.
  StepSample end(double stepSeconds);
  /// The stages' figures on rank 0 (every rank must call it); false with
  /// `error` when the exchange fails.
  bool gather(loom_comm *comm, const StepSample &mine,
              std::vector<StageSample> &stages, std::string &error);
  /// Whether the program is one stage of a pipeline.
  bool pipelined() const { return stages > 1; }

private:
  int rank, size;
  int64_t stages = 1;
  std::vector<int64_t> stageOfRank;
  int64_t stateBytes = 0;
  double recvSeconds = 0, otherSeconds = 0;
};

} // namespace loom::rt::train

#endif // LOOM_RUNTIME_TRAIN_STAGEMETRICS_H
