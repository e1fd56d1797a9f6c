//===- Pipelines.h - Loom's pass pipelines in one place ---------*- C++ -*-===//
//
// Every sequence of passes loomc runs is built here, and registered for
// loom-opt under the same name, so that `loom-opt --<pipeline>` replays a
// stage of `loomc` (test/Pipelines checks that they agree):
//
//   loom-import-cleanup   what the ONNX importer runs on a fresh module
//   loom-simplify         what loomc runs on every input first (`--emit=nn`)
//   loom-train            a model -> one training step (`--train`)
//   loom-plan             layouts for every value, reshards (`--emit=plan`)
//   loom-spmd             the program one device runs (`--emit=spmd`)
//   loom-to-linalg        nn (partitioned or not) -> fused linalg on tensors,
//                         parameters as entry arguments (`--emit=linalg`)
//   loom-cpu-lowering     fused linalg -> the LLVM dialect (`--emit=llvm`)
//   loom-cuda-lowering    fused linalg -> kernels as PTX in a gpu.binary and
//                         the host program (`--target=cuda --emit=llvm`)
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PIPELINES_PIPELINES_H
#define LOOM_PIPELINES_PIPELINES_H

#include "loom/Dialect/Dist/DistDialect.h"
#include "loom/Passes/Training/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include <optional>

namespace loom {

/// Canonicalisation, idioms raised to single ops, CSE: what every imported
/// model goes through.
void buildImportCleanupPipeline(mlir::OpPassManager &pm);

/// Canonicalisation and CSE.
void buildSimplifyPipeline(mlir::OpPassManager &pm);

/// What a training step is built from: -nn-build-training-step's options
/// and the ZeRO stage of -dist-zero-layouts.
struct TrainingStepPipelineOptions : NNBuildTrainingStepOptions {
  /// 0 (plain data parallelism) to 3.
  int64_t zero = 0;
  /// Activation recomputation in the backward units (a step with it keeps
  /// its microbatch loop until -dist-unroll-microbatches).
  dist::Recompute recompute = dist::Recompute::Off;
};

/// The passes that turn a model into one training step, in order:
/// -nn-build-training-step, -dist-zero-layouts (which lays the step out
/// over the data axes of a mesh and does nothing without one),
/// -nn-expand-optimizers, -dist-unroll-microbatches, then canonicalization
/// and CSE. On a mesh it belongs after -dist-apply-strategy (whose input
/// layouts name the data axes) and before -dist-propagate-sharding.
void buildTrainingStepPipeline(mlir::OpPassManager &pm,
                               const TrainingStepPipelineOptions &options);

/// How a module with a mesh is distributed.
struct DistributionOptions {
  /// `data`, `megatron` or `planned` (-dist-apply-strategy), or `manual`:
  /// the layouts already in the module.
  std::string strategy = "data";
  /// Build a training step too (after the strategy, before propagation).
  std::optional<TrainingStepPipelineOptions> train;
  /// Go on to the program one device runs (else stop at the plan).
  bool partition = true;
};

/// A strategy's layouts, the training step if asked, propagation, reshards
/// (`loom-plan`), then, with `partition`, partitioning, collectives and
/// buckets (`loom-spmd`).
void buildDistributionPipeline(mlir::OpPassManager &pm,
                               const DistributionOptions &options);

/// The first half of a pipelined training step, shared by its stages: the
/// strategy's layouts, the cut into `virtualStages` stages (stages times
/// chunks per stage; -dist-assign-stages), the whole step up to its
/// optimizer updates with the microbatch loop kept, and its layouts.
void buildPipelinedStepPipeline(mlir::OpPassManager &pm,
                                llvm::StringRef strategy, int64_t virtualStages,
                                const TrainingStepPipelineOptions &train);

/// The second half, on a copy of the first half's module: stage `stage`'s
/// part (-dist-split-stages), its units in schedule order, then
/// propagation and, with `partition`, the program of one device.
void buildStagePipeline(mlir::OpPassManager &pm, int64_t stage, int64_t stages,
                        int64_t chunks, llvm::StringRef schedule,
                        llvm::StringRef recompute, bool partition);

struct ToLinalgPipelineOptions
    : public mlir::PassPipelineOptions<ToLinalgPipelineOptions> {
  Option<std::string> entryName{
      *this, "entry-name",
      llvm::cl::desc("Rename the entry (empty: keep its name)"),
      llvm::cl::init("")};
  Option<bool> checkIndices{
      *this, "check-indices",
      llvm::cl::desc("Stop at a gather or scatter_add index out of range "
                     "instead of clamping it (-convert-nn-to-linalg)"),
      llvm::cl::init(false)};
};

/// The entry's signature (-loom-prepare-entry), nn -> linalg, elementwise
/// fusion, collectives as runtime calls, and the preparation of results and
/// inits for bufferization: the input every target lowers.
void buildToLinalgPipeline(mlir::OpPassManager &pm,
                           const ToLinalgPipelineOptions &options);

struct CPULoweringOptions
    : public mlir::PassPipelineOptions<CPULoweringOptions> {
  Option<bool> emulateCUDAKernels{
      *this, "emulate-cuda-kernels",
      llvm::cl::desc("Map the program to the CUDA target's kernels and run "
                     "them as host loops"),
      llvm::cl::init(false)};
};

/// The CPU target's lowering: bufferization, BLAS kernel calls, outlined
/// kernels, loops, polynomial math, the LLVM dialect.
void buildCPULoweringPipeline(mlir::OpPassManager &pm,
                              const CPULoweringOptions &options);

struct CUDALoweringOptions
    : public mlir::PassPipelineOptions<CUDALoweringOptions> {
  ListOption<std::string> chips{
      *this, "chips",
      llvm::cl::desc("The chips to build for (default: sm_80, sm_90)")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("The CUDA toolkit's root, for libdevice (default: "
                     "what gpu-module-to-binary finds)"),
      llvm::cl::init("")};
};

/// The CUDA target's lowering: bufferization, kernels (-loom-cuda-map-to-gpu,
/// outlining, -loom-cuda-gather-kernels), NVVM, PTX for each chip. The host
/// side stays memrefs, launches and GEMMs, which the target serializes as
/// its host schedule.
void buildCUDALoweringPipeline(mlir::OpPassManager &pm,
                               const CUDALoweringOptions &options);

/// Registers the pipelines above with the names in the header comment.
void registerLoomPipelines();
/// Registers loom-simplify, loom-train, loom-plan and loom-spmd (part of
/// registerLoomPipelines).
void registerDistributionPipelines();

} // namespace loom

#endif // LOOM_PIPELINES_PIPELINES_H
