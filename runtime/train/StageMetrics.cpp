//===- StageMetrics.cpp - Where a training step's time and memory go ------===//

#include "train/StageMetrics.h"
#include "core/Program.h"
#include "loom/runtime/Collectives.h"
#include "loom/runtime/Kernels.h"
#include <algorithm>

using namespace loom::rt;
using namespace loom::rt::train;

namespace {
/// Seconds spent in receives, and in every other kind of collective.
void collectiveSeconds(double &recv, double &other) {
  recv = other = 0;
  for (int32_t kind = 0; kind < LOOM_COLLECTIVE_NUM_KINDS; ++kind) {
    double seconds = 0;
    loom_collective_stats(kind, nullptr, nullptr, &seconds);
    (kind == LOOM_COLLECTIVE_RECV ? recv : other) += seconds;
  }
}

/// Values per rank in the gathered table.
constexpr size_t kFields = 5;
} // namespace

StageMetrics::StageMetrics(loom_program *program, int rank, int size)
    : rank(rank), size(size), stages(program->pipelineStages),
      stageOfRank(program->rankStages) {
  for (const TensorSpec &parameter : program->manifest.parameters)
    stateBytes += static_cast<int64_t>(parameter.nbytes);
  for (const TensorSpec &output : program->manifest.outputs)
    stateBytes += static_cast<int64_t>(output.nbytes);
}

void StageMetrics::begin() {
  collectiveSeconds(recvSeconds, otherSeconds);
  loom_buffer_stats(nullptr, nullptr, /*reset_peak=*/1);
}

StepSample StageMetrics::end(double stepSeconds) {
  double recv = 0, other = 0;
  collectiveSeconds(recv, other);
  StepSample sample;
  sample.waitSeconds = recv - recvSeconds;
  sample.commSeconds = other - otherSeconds;
  sample.busySeconds =
      std::max(0.0, stepSeconds - sample.waitSeconds - sample.commSeconds);
  int64_t peak = 0;
  loom_buffer_stats(nullptr, &peak, 0);
  sample.bufferBytes = peak;
  sample.peakBytes = stateBytes + peak;
  return sample;
}

bool StageMetrics::gather(loom_comm *comm, const StepSample &mine,
                          std::vector<StageSample> &out, std::string &error) {
  out.clear();
  std::vector<double> table(kFields * static_cast<size_t>(size), 0.0);
  double *row = &table[kFields * static_cast<size_t>(rank)];
  row[0] = mine.busySeconds;
  row[1] = mine.waitSeconds;
  row[2] = mine.commSeconds;
  row[3] = static_cast<double>(mine.peakBytes);
  row[4] = static_cast<double>(mine.bufferBytes);
  if (size > 1) {
    char message[1024];
    if (loom_comm_all_reduce(comm, table.data(), table.data(), table.size(),
                             LOOM_DTYPE_FLOAT64, LOOM_REDUCE_SUM, message,
                             sizeof(message)) != LOOM_OK) {
      error = std::string("cannot gather the stages' metrics: ") + message;
      return false;
    }
  }
  if (rank != 0)
    return true;
  std::vector<int64_t> ranks(static_cast<size_t>(stages), 0);
  out.resize(static_cast<size_t>(stages));
  for (size_t s = 0; s < out.size(); ++s)
    out[s].stage = static_cast<int64_t>(s);
  for (int r = 0; r < size; ++r) {
    int64_t s = static_cast<size_t>(r) < stageOfRank.size()
                    ? stageOfRank[static_cast<size_t>(r)]
                    : 0;
    if (s < 0 || s >= stages)
      continue;
    const double *values = &table[kFields * static_cast<size_t>(r)];
    StageSample &stage = out[static_cast<size_t>(s)];
    stage.sample.busySeconds += values[0];
    stage.sample.waitSeconds += values[1];
    stage.sample.commSeconds += values[2];
    stage.sample.peakBytes =
        std::max(stage.sample.peakBytes, static_cast<int64_t>(values[3]));
    stage.sample.bufferBytes =
        std::max(stage.sample.bufferBytes, static_cast<int64_t>(values[4]));
    ++ranks[static_cast<size_t>(s)];
  }
  for (StageSample &stage : out) {
    double n = std::max<int64_t>(1, ranks[static_cast<size_t>(stage.stage)]);
    stage.sample.busySeconds /= n;
    stage.sample.waitSeconds /= n;
    stage.sample.commSeconds /= n;
  }
  return true;
}
