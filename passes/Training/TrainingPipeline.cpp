//===- TrainingPipeline.cpp - The passes that build a training step -------===//

#include "loom/Passes/Dist/Passes.h"
#include "loom/Passes/Training/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void loom::buildTrainingStepPipeline(
    OpPassManager &pm, const TrainingStepPipelineOptions &options) {
  pm.addPass(createNNBuildTrainingStep(options));
  DistZeroLayoutsOptions zero;
  zero.stage = options.zero;
  pm.addPass(createDistZeroLayouts(zero));
  pm.addPass(createNNExpandOptimizers());
  pm.addPass(createDistUnrollMicrobatches());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}
