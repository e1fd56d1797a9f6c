//===- Trainer.h - One rank's training loop ---------------------*- C++ -*-===//
//
// The Trainer of `loomrun --train`: the loop, inputs and metrics in
// Train.cpp, checkpoints (writing, resuming, resharding, pipelined runs) in
// TrainCheckpoints.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_TRAIN_TRAINER_H
#define LOOM_RUNTIME_TRAIN_TRAINER_H

#include "core/Program.h"
#include "loom/runtime/Train.h"
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
  bool step(int64_t s);
  bool saveCheckpoint(int64_t done);
  std::string writeCheckpointManifest(const std::string &dir, int64_t done,
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
};

} // namespace loom::rt::train

#endif // LOOM_RUNTIME_TRAIN_TRAINER_H
