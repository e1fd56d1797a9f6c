//===- TrainSave.cpp - Writing the checkpoints of `loomrun --train` -------===//
//
// A checkpoint is written in two phases: every rank writes its shard, then,
// once all are in place, rank 0 writes the manifest (which makes it
// complete), DIR/latest, and removes the checkpoints --keep-last no longer
// keeps. Synchronously, both happen after the step, while training waits.
// Asynchronously (the default), each phase runs on a background thread
// while training goes on. The shard is written from the parameters' own
// host buffers, without a copy: training only reads a parameter's buffer
// until an update is swapped in (Train.cpp), and then the buffer that would
// receive the next update, the one being written out, is exchanged for a
// spare allocated before the first step (keepLentBuffer). Between steps
// the ranks agree on whether the phase is done on all of them (one small
// all-reduce), so that they move on together and a failed write stops
// every rank. One checkpoint is in flight at a time: a due checkpoint, and
// the end of the job, wait for the previous.
//
//===----------------------------------------------------------------------===//

#include "comm/Faults.h"
#include "loom/runtime/Checkpoint.h"
#include "loom/runtime/Safetensors.h"
#include "loom/runtime/Support.h"
#include "train/Trainer.h"
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <unistd.h>

using namespace loom::rt;
using namespace loom::rt::train;

namespace {
[[noreturn]] void killSelf() {
  ::raise(SIGKILL);
  ::_exit(137);
}

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// LOOM_TEST_CKPT_DELAY_MS: the background writer sleeps this long before
/// each shard, so that tests train on while a checkpoint is in flight.
unsigned testDelayMs() {
  static const unsigned ms = [] {
    const char *value = std::getenv("LOOM_TEST_CKPT_DELAY_MS");
    return value ? static_cast<unsigned>(std::strtoul(value, nullptr, 10)) : 0u;
  }();
  return ms;
}

} // namespace

bool Trainer::checkpointAfter(int64_t done) {
  ckptSeconds = -1;
  if (options.ckptDir.empty())
    return true;
  bool due = (options.ckptEvery > 0 && done % options.ckptEvery == 0) ||
             done == options.steps;
  if (!due && pending.phase == Phase::None)
    return true;
  double start = now();
  bool ok = finishPending(/*wait=*/due) && (!due || startCheckpoint(done));
  ckptSeconds = now() - start;
  return ok;
}

std::vector<size_t> Trainer::canonicalStateTensors() const {
  std::vector<size_t> indices;
  for (size_t i = 0; i < manifest.parameters.size(); ++i)
    if (isStateTensor(manifest.parameters[i]) &&
        holdsCanonical(manifest.parameters[i], rank))
      indices.push_back(i);
  return indices;
}

std::string Trainer::prepareSnapshot() {
  if (options.ckptDir.empty() || !options.asyncCkpt)
    return "";
  // Allocated (and so touched) before the first step, not in its stall.
  std::vector<size_t> indices = canonicalStateTensors();
  spares.resize(indices.size());
  lent.assign(indices.size(), nullptr);
  slotOf.assign(manifest.parameters.size(), -1);
  for (size_t t = 0; t < indices.size(); ++t) {
    const TensorSpec &parameter = manifest.parameters[indices[t]];
    slotOf[indices[t]] = static_cast<int64_t>(t);
    if (!spares[t].allocate(parameter.nbytes)) {
      spares.clear();
      return "cannot allocate " + std::to_string(parameter.nbytes) +
             " bytes to keep tensor '" + parameter.name +
             "' for asynchronous checkpoints (--sync-ckpt needs none)";
    }
  }
  return "";
}

void Trainer::keepLentBuffer(size_t index, AlignedBuffer &output) {
  if (slotOf.empty() || slotOf[index] < 0)
    return;
  size_t t = static_cast<size_t>(slotOf[index]);
  // The next step would write its update into the buffer being written
  // out: it gets the spare instead, which now holds nothing of value.
  if (lent[t] && output.data() == lent[t])
    std::swap(output, spares[t]);
}

bool Trainer::startCheckpoint(int64_t done) {
  std::string dir = joinPath(options.ckptDir, checkpoint::stepName(done));
  std::string problem;
  if (rank == 0) {
    std::string error;
    if (!makeDirectories(dir, error))
      problem = "cannot create checkpoint directory '" + dir + "': " + error;
    // A checkpoint being rewritten is incomplete until its new manifest.
    std::string manifestPath = joinPath(dir, "manifest.json");
    if (problem.empty() && ::unlink(manifestPath.c_str()) == 0)
      checkpoint::syncDirectory(dir);
    // What a job that died left there (this job holds the lock).
    if (problem.empty())
      removeTemporaries(dir);
  }

  if (!hooks.agree(problem))
    return false;

  std::vector<size_t> indices = canonicalStateTensors();
  std::vector<safetensors::Tensor> mine;
  for (size_t i : indices) {
    const TensorSpec &parameter = manifest.parameters[i];
    mine.push_back({parameter.name, parameter.dtype, parameter.shape,
                    loom_program_parameter_data(program, i)});
  }
  pending = Pending();
  pending.phase = Phase::Shards;
  pending.step = done;
  pending.updatesApplied = updatesApplied;
  pending.hasShard = !mine.empty();
  bool kill = faultKillInCheckpoint(rank, checkpointsWritten++);
  safetensors::Metadata metadata = {{"format", "loom-checkpoint-shard"},
                                    {"rank", std::to_string(rank)},
                                    {"step", std::to_string(done)}};
  std::string path = joinPath(dir, shardName(rank));
  if (!options.asyncCkpt) {
    if (pending.hasShard)
      problem = writeShard(path, mine, metadata, pending.fileSize, pending.crc,
                           kill ? killSelf : nullptr);
    return publishCheckpoint(problem);
  }
  // No copy: the writer reads the parameters' buffers themselves, which
  // training only reads until keepLentBuffer takes them out of its way.
  for (size_t t = 0; t < mine.size(); ++t)
    lent[t] = mine[t].data;
  if (pending.hasShard)
    writer.start([this, path, mine = std::move(mine),
                  metadata = std::move(metadata), kill] {
      if (unsigned ms = testDelayMs())
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      return writeShard(path, mine, metadata, pending.fileSize, pending.crc,
                        kill ? killSelf : nullptr);
    });
  return true;
}

bool Trainer::finishPending(bool wait) {
  if (pending.phase == Phase::None)
    return true;
  // Waiting goes through both phases.
  if (wait) {
    while (pending.phase != Phase::None)
      if (!advancePending(/*wait=*/true))
        return false;
    return true;
  }
  return advancePending(/*wait=*/false);
}

bool Trainer::advancePending(bool wait) {
  int32_t ready = wait || writer.finished() ? 1 : 0;
  char message[1024];
  if (!wait && size > 1 &&
      loom_comm_all_reduce(comm, &ready, &ready, 1, LOOM_DTYPE_INT32,
                           LOOM_REDUCE_MIN, message,
                           sizeof(message)) != LOOM_OK) {
    hooks.failHere(std::string("cannot agree on the checkpoint of step ") +
                   std::to_string(pending.step) + ": " + message);
    return false;
  }
  if (!ready)
    return true;
  std::string problem = writer.wait();
  if (pending.phase == Phase::Shards) {
    // The lent buffers are free again (to train on, or as spares).
    std::fill(lent.begin(), lent.end(), nullptr);
    return publishCheckpoint(problem);
  }
  pending.phase = Phase::None;
  return hooks.agree(problem);
}

bool Trainer::publishCheckpoint(const std::string &problem) {
  // Every shard is in place before the manifest names it.
  if (!hooks.agree(problem))
    return false;
  std::vector<int64_t> table(2 * static_cast<size_t>(size), 0);
  if (pending.hasShard) {
    table[2 * rank] = static_cast<int64_t>(pending.fileSize) + 1;
    table[2 * rank + 1] = pending.crc;
  }
  char message[1024];
  if (size > 1 &&
      loom_comm_all_reduce(comm, table.data(), table.data(), table.size(),
                           LOOM_DTYPE_INT64, LOOM_REDUCE_SUM, message,
                           sizeof(message)) != LOOM_OK) {
    hooks.failHere(std::string("cannot gather the checkpoint's shards: ") +
                   message);
    return false;
  }
  pending.phase = Phase::Manifest;
  if (rank != 0) {
    if (options.asyncCkpt)
      return true;
    pending.phase = Phase::None;
    return hooks.agree("");
  }
  int64_t done = pending.step, updates = pending.updatesApplied;
  auto job = [this, done, updates, table = std::move(table)] {
    std::string name = checkpoint::stepName(done);
    std::string dir = joinPath(options.ckptDir, name);
    checkpoint::syncDirectory(dir);
    std::string error = writeCheckpointManifest(dir, done, updates, table);
    if (error.empty() &&
        !checkpoint::writeFileAtomically(joinPath(options.ckptDir, "latest"),
                                         name + "\n", error))
      return error;
    if (error.empty() && options.keepLast > 0) {
      std::string left =
          pruneCheckpoints(options.ckptDir, done, options.keepLast);
      if (!left.empty())
        std::fprintf(stderr, "loomrun: warning: --keep-last: %s\n",
                     left.c_str());
    }
    return error;
  };
  if (options.asyncCkpt) {
    writer.start(std::move(job));
    return true;
  }
  pending.phase = Phase::None;
  return hooks.agree(job());
}
