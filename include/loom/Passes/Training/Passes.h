//===- Passes.h - Loom Training passes --------------------------*- C++ -*-===//

#ifndef LOOM_PASSES_TRAINING_PASSES_H
#define LOOM_PASSES_TRAINING_PASSES_H

#include "loom/Dialect/NN/NNDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace loom {

#define GEN_PASS_DECL
#include "Training/TrainingPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "Training/TrainingPasses.h.inc"

/// What a training step is built from: -nn-build-training-step's options
/// and the ZeRO stage of -dist-zero-layouts.
struct TrainingStepPipelineOptions : NNBuildTrainingStepOptions {
  /// 0 (plain data parallelism) to 3.
  int64_t zero = 0;
};

/// Adds the passes that turn a model into one training step, in order:
/// -nn-build-training-step, -dist-zero-layouts (which lays the step out
/// over the data axes of a mesh and does nothing without one),
/// -nn-expand-optimizers, -dist-unroll-microbatches, then canonicalization
/// and CSE. On a mesh it belongs after -dist-apply-strategy (whose input
/// layouts name the data axes) and before -dist-propagate-sharding.
void buildTrainingStepPipeline(mlir::OpPassManager &pm,
                               const TrainingStepPipelineOptions &options);

} // namespace loom

#endif // LOOM_PASSES_TRAINING_PASSES_H
