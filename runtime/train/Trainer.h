//===- Trainer.h - One rank's training loop ---------------------*- C++ -*-===//
//
// The Trainer of `loomrun --train`: the loop, inputs and metrics in
// Train.cpp, checkpoints (resuming, resharding, pipelined runs, the
// manifest) in TrainCheckpoints.cpp, and writing them, synchronously or on
// a background thread, in TrainSave.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_TRAIN_TRAINER_H
#define LOOM_RUNTIME_TRAIN_TRAINER_H

#include "core/Program.h"
#include "loom/runtime/Train.h"
#include "train/BackgroundJob.h"
#include "train/CheckpointFiles.h"
#include "train/DataLoader.h"
#include "train/StageMetrics.h"
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace loom::rt::train {

/// Frees a program loaded for its manifest only.
struct ProgramFree {
  void operator()(loom_program *program) const { loom_program_free(program); }
};

class Trainer {
public:
  Trainer(loom_program *program, loom_comm *comm, const Options &options,
          const Hooks &hooks)
      : program(program), comm(comm), options(options), hooks(hooks),
        manifest(program->manifest), spec(manifest.training),
        rank(loom_comm_rank(comm)), size(loom_comm_size(comm)),
        stageMetrics(program, rank, size) {}
  ~Trainer() {
    if (metrics)
      std::fclose(metrics);
  }

  int run();

private:
  std::string prepare();
  std::string prepareCheckpoints();
  std::string loadStageManifests();
  std::string resumeFrom(const std::string &checkpointDir);
  /// The spare buffers of asynchronous checkpoints.
  std::string prepareSnapshot();
  /// After parameter `index` swapped buffers with `output`: keeps a buffer
  /// that a checkpoint is being written from out of the next update.
  void keepLentBuffer(size_t index, AlignedBuffer &output);
  /// The state tensors whose checkpoint copy this rank writes (in order).
  std::vector<size_t> canonicalStateTensors() const;
  bool step(int64_t s);
  /// After step `done`: advances the checkpoint in flight, and starts the
  /// one of step `done` when it is due. Sets ckptSeconds.
  bool checkpointAfter(int64_t done);
  bool startCheckpoint(int64_t done);
  /// Moves the checkpoint in flight on when every rank's part of its
  /// current phase is written (or, with `wait`, once it is).
  bool finishPending(bool wait);
  /// Ends the current phase if it is done on every rank (or waits for it).
  bool advancePending(bool wait);
  /// The shards are written (`problem` is this rank's error): gathers
  /// their sizes and CRC-32s, and rank 0 writes the manifest and latest.
  bool publishCheckpoint(const std::string &problem);
  std::string writeCheckpointManifest(const std::string &dir, int64_t done,
                                      int64_t updates,
                                      const std::vector<int64_t> &table);
  void progress(int64_t done, float loss, float gradNorm, double lr,
                double seconds, bool skipped, const StepSample &sample,
                const std::vector<StageSample> &stages);
  bool isStateTensor(const TensorSpec &parameter) const {
    return parameter.updateOutput >= 0;
  }
  std::string kindOf(const TensorSpec &parameter) const {
    return parameter.initZeros && parameter.name.find(':') != std::string::npos
               ? "optimizer"
               : "parameter";
  }
  /// Whether rank `r` writes the checkpoint's copy of its block of
  /// `parameter`: coordinate 0 along the axes that replicate it, except
  /// the pipeline axis (each stage writes its own tensors).
  bool holdsCanonical(const TensorSpec &parameter, int64_t r) const;
  /// The manifests of every stage (this program's alone when it is not
  /// pipelined); loaded by loadStageManifests.
  std::vector<const Manifest *> stages() const;

  loom_program *program;
  loom_comm *comm;
  const Options &options;
  const Hooks &hooks;
  const Manifest &manifest;
  const TrainingSpec &spec;
  int rank;
  int size;
  StageMetrics stageMetrics;

  DataLoader loader;
  std::vector<AlignedBuffer> batches;
  std::vector<AlignedBuffer> inputBlocks;
  std::vector<const void *> inputs;
  std::vector<AlignedBuffer> outputs;
  std::vector<void *> outputPointers;
  uint64_t seed = 0;
  int64_t firstStep = 0;
  int64_t updatesApplied = 0;
  int64_t skipped = 0;
  int64_t checkpointsWritten = 0;
  FILE *metrics = nullptr;
  bool tty = false;
  /// The other stages' programs, loaded for their manifests.
  std::vector<std::unique_ptr<loom_program, ProgramFree>> otherStages;

  /// Rank 0 holds the checkpoint directory for the whole job.
  DirectoryLock ckptLock;
  /// The checkpoint being written: its shards (every rank), then its
  /// manifest (rank 0). The ranks move through the phases together.
  enum class Phase { None, Shards, Manifest };
  struct Pending {
    Phase phase = Phase::None;
    int64_t step = 0;
    int64_t updatesApplied = 0;
    uint64_t fileSize = 0;
    uint32_t crc = 0;
    bool hasShard = false;
  } pending;
  /// Asynchronous checkpoints, per state tensor this rank writes (the
  /// parameter index of slot t is slotOf's inverse): the buffer the writer
  /// reads (null when none), and a spare that takes its place as an
  /// update output meanwhile.
  std::vector<const void *> lent;
  std::vector<AlignedBuffer> spares;
  std::vector<int64_t> slotOf;
  /// Main-thread seconds spent on checkpoints after the last step; -1 for
  /// none.
  double ckptSeconds = -1;
  /// Last: joined before the buffers it writes from are freed.
  BackgroundJob writer;
};

} // namespace loom::rt::train

#endif // LOOM_RUNTIME_TRAIN_TRAINER_H
