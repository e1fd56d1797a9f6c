//===- DistributionPipelines.cpp - Training steps and distribution --------===//
//
// loom-simplify, loom-train, loom-plan and loom-spmd: what loomc runs between
// loading a model and lowering it. loomc builds them from its options;
// loom-opt from textual pipeline options that name the same passes' options.
//
//===----------------------------------------------------------------------===//

#include "loom/Passes/Dist/Passes.h"
#include "loom/Pipelines/Pipelines.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace loom;

namespace {

/// Adds the training step's passes after `buildStep` (a configured
/// -nn-build-training-step).
void addTrainingStep(OpPassManager &pm, std::unique_ptr<Pass> buildStep,
                     int64_t zero, dist::Recompute recompute) {
  pm.addPass(std::move(buildStep));
  DistZeroLayoutsOptions layouts;
  layouts.stage = zero;
  pm.addPass(createDistZeroLayouts(layouts));
  pm.addPass(createNNExpandOptimizers());
  DistUnrollMicrobatchesOptions unroll;
  unroll.recompute = recompute;
  pm.addPass(createDistUnrollMicrobatches(unroll));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// From a laid-out program to what one device runs: partitioning,
/// collectives, buckets.
void addPartitioning(OpPassManager &pm) {
  pm.addPass(createDistPartition());
  pm.addPass(createDistLowerReshards());
  pm.addPass(createDistSimplifyCollectives());
  pm.addPass(createDistBucketCollectives());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// The distribution passes around `addTraining` (which adds nothing when no
/// step is built).
void addDistribution(OpPassManager &pm, StringRef strategy, bool partition,
                     bool train,
                     llvm::function_ref<void(OpPassManager &)> addTraining) {
  if (strategy != "manual") {
    DistApplyStrategyOptions apply;
    apply.strategy = strategy.str();
    pm.addPass(createDistApplyStrategy(apply));
  }
  if (train)
    addTraining(pm);
  pm.addPass(createDistPropagateSharding());
  if (train)
    pm.addPass(createDistTieStateLayouts());
  pm.addPass(createDistInsertReshards());
  if (!partition)
    return;
  addPartitioning(pm);
}

/// Stands for a pass whose options did not parse: reports them when run,
/// since a pipeline builder cannot fail.
struct InvalidOptionsPass
    : public PassWrapper<InvalidOptionsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(InvalidOptionsPass)
  explicit InvalidOptionsPass(std::string message)
      : message(std::move(message)) {}
  StringRef getArgument() const override { return "loom-invalid-options"; }
  void runOnOperation() override {
    getOperation().emitError(message);
    signalPassFailure();
  }
  std::string message;
};

/// Adds the training step whose -nn-build-training-step options are
/// `step`, in that pass's own spelling.
void addTrainingFromText(OpPassManager &pm, StringRef step, int64_t zero,
                         dist::Recompute recompute) {
  std::unique_ptr<Pass> build = createNNBuildTrainingStep();
  std::string error;
  // Recomputation happens in the microbatch loop's backward units.
  std::string text = step.str();
  if (recompute != dist::Recompute::Off)
    text += " microbatch-loop=true";
  if (failed(build->initializeOptions(text, [&](const Twine &message) {
        error = message.str();
        return failure();
      }))) {
    pm.addPass(std::make_unique<InvalidOptionsPass>(
        ("invalid options for -nn-build-training-step: '" + step + "'" +
         (error.empty() ? "" : ": " + error))
            .str()));
    return;
  }
  addTrainingStep(pm, std::move(build), zero, recompute);
}

llvm::cl::ValuesClass recomputeValues() {
  return llvm::cl::values(
      clEnumValN(dist::Recompute::Off, "off", "keep every activation"),
      clEnumValN(dist::Recompute::Full, "full",
                 "keep layer inputs, rerun the layers"),
      clEnumValN(dist::Recompute::Selective, "selective",
                 "keep matrix products, rerun the cheap ops"));
}

struct TrainPipelineOptions : PassPipelineOptions<TrainPipelineOptions> {
  Option<std::string> step{
      *this, "step",
      llvm::cl::desc("-nn-build-training-step's options, as that pass takes "
                     "them (e.g. \"loss=l optimizer=sgd lr=0.1\")"),
      llvm::cl::init("")};
  Option<int64_t> zero{*this, "zero",
                       llvm::cl::desc("ZeRO stage 0 to 3 (on a mesh)"),
                       llvm::cl::init(0)};
  Option<dist::Recompute> recompute{
      *this, "recompute", llvm::cl::desc("Activation recomputation"),
      llvm::cl::init(dist::Recompute::Off), recomputeValues()};
};

struct DistributionPipelineOptions
    : PassPipelineOptions<DistributionPipelineOptions> {
  Option<std::string> strategy{
      *this, "strategy",
      llvm::cl::desc("data, megatron, planned, or manual (the layouts in "
                     "the module)"),
      llvm::cl::init("data")};
  Option<bool> train{*this, "train",
                     llvm::cl::desc("Build a training step too"),
                     llvm::cl::init(false)};
  Option<std::string> step{
      *this, "step",
      llvm::cl::desc("With train: -nn-build-training-step's options"),
      llvm::cl::init("")};
  Option<int64_t> zero{*this, "zero",
                       llvm::cl::desc("With train: the ZeRO stage"),
                       llvm::cl::init(0)};
  Option<dist::Recompute> recompute{
      *this, "recompute",
      llvm::cl::desc("With train: activation recomputation"),
      llvm::cl::init(dist::Recompute::Off), recomputeValues()};
};

void registerDistribution(StringRef name, StringRef description,
                          bool partition) {
  PassPipelineRegistration<DistributionPipelineOptions>(
      name, description,
      [partition](OpPassManager &pm,
                  const DistributionPipelineOptions &options) {
        std::string step = options.step;
        int64_t zero = options.zero;
        dist::Recompute recompute = options.recompute;
        addDistribution(pm, options.strategy, partition, options.train,
                        [&](OpPassManager &inner) {
                          addTrainingFromText(inner, step, zero, recompute);
                        });
      });
}

} // namespace

void loom::buildSimplifyPipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void loom::buildTrainingStepPipeline(
    OpPassManager &pm, const TrainingStepPipelineOptions &options) {
  TrainingStepPipelineOptions step = options;
  if (options.recompute != dist::Recompute::Off)
    step.microbatchLoop = true;
  addTrainingStep(pm, createNNBuildTrainingStep(step), options.zero,
                  options.recompute);
}

void loom::buildDistributionPipeline(OpPassManager &pm,
                                     const DistributionOptions &options) {
  addDistribution(pm, options.strategy, options.partition,
                  options.train.has_value(), [&](OpPassManager &inner) {
                    buildTrainingStepPipeline(inner, *options.train);
                  });
}

void loom::buildPipelinedStepPipeline(
    OpPassManager &pm, StringRef strategy, int64_t virtualStages,
    const TrainingStepPipelineOptions &train) {
  DistApplyStrategyOptions apply;
  apply.strategy = strategy.str();
  pm.addPass(createDistApplyStrategy(apply));
  DistAssignStagesOptions assign;
  assign.stages = virtualStages;
  pm.addPass(createDistAssignStages(assign));
  TrainingStepPipelineOptions step = train;
  step.microbatchLoop = true;
  pm.addPass(createNNBuildTrainingStep(step));
  DistZeroLayoutsOptions layouts;
  layouts.stage = train.zero;
  pm.addPass(createDistZeroLayouts(layouts));
  pm.addPass(createNNExpandOptimizers());
  // Layouts before the split, so that both ends of every transfer agree.
  pm.addPass(createDistPropagateSharding());
}

void loom::buildStagePipeline(OpPassManager &pm, int64_t stage, int64_t stages,
                              int64_t chunks, StringRef schedule,
                              StringRef recompute, bool partition) {
  DistSplitStagesOptions split;
  split.stage = stage;
  split.stages = stages;
  split.chunks = chunks;
  split.schedule = schedule.str();
  split.recompute = recompute.str();
  pm.addPass(createDistSplitStages(split));
  pm.addPass(createDistUnrollMicrobatches());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // The layouts were propagated (and their conflicts reported) before the
  // split: this run only fills in what canonicalization made.
  DistPropagateShardingOptions quiet;
  quiet.remarks = false;
  pm.addPass(createDistPropagateSharding(quiet));
  pm.addPass(createDistTieStateLayouts());
  pm.addPass(createDistInsertReshards());
  if (!partition)
    return;
  addPartitioning(pm);
}

void loom::registerDistributionPipelines() {
  PassPipelineRegistration<>(
      "loom-simplify",
      "Canonicalize and CSE: what loomc runs on every input first "
      "(loomc --emit=nn)",
      buildSimplifyPipeline);
  PassPipelineRegistration<TrainPipelineOptions>(
      "loom-train",
      "Build one training step: loss, gradients, ZeRO layouts on a mesh, "
      "optimizer updates (loomc --train)",
      [](OpPassManager &pm, const TrainPipelineOptions &options) {
        addTrainingFromText(pm, options.step, options.zero, options.recompute);
      });
  registerDistribution("loom-plan",
                       "A strategy's layouts, the training step if asked, "
                       "propagation and reshards (loomc --emit=plan)",
                       /*partition=*/false);
  registerDistribution("loom-spmd",
                       "loom-plan, then the program one device runs, its "
                       "collectives simplified and bucketed (loomc "
                       "--emit=spmd)",
                       /*partition=*/true);
}
