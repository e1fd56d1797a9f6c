//===- Emit.cpp - What loomc writes ---------------------------------------===//
//
// Printing a stage (nn, plan, spmd, cost, linalg, llvm) and writing an
// artifact; outputs are written whole or not at all.
//
//===----------------------------------------------------------------------===//

#include "loom/CostModel/CostReport.h"
#include "loom/Driver/Driver.h"
#include "loom/Pipelines/Pipelines.h"
#include "loom/Target/Artifact/ArtifactWriter.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace loom;
using namespace loom::driver;

/// --check-indices reports from host code; CUDA kernels cannot call it.
static LogicalResult checkIndicesSupported(ModuleOp module,
                                           const Options &options) {
  if (options.checkIndices &&
      (options.target != "cpu" || options.targetOptions.emulateCUDAKernels))
    return emitError(module.getLoc())
           << "--check-indices supports --target=cpu only (without "
              "--emulate-cuda-kernels)";
  return success();
}

LogicalResult loom::driver::emit(ModuleOp module, const Options &options,
                                 llvm::raw_ostream &os) {
  switch (options.emit) {
  case EmitKind::Plan:
  case EmitKind::SPMD:
  case EmitKind::NN: {
    OpPrintingFlags flags;
    if (options.elideWeights)
      flags.elideLargeElementsAttrs(16).elideLargeResourceString(64);
    module.print(os, flags);
    os << '\n';
    return success();
  }
  case EmitKind::Linalg:
  case EmitKind::LLVM: {
    PassManager pm(module.getContext());
    if (options.emit == EmitKind::LLVM &&
        failed(checkIndicesSupported(module, options)))
      return failure();
    ToLinalgPipelineOptions toLinalg;
    toLinalg.checkIndices = options.checkIndices;
    buildToLinalgPipeline(pm, toLinalg);
    if (options.emit == EmitKind::LLVM) {
      FailureOr<std::unique_ptr<Target>> target =
          createTarget(options.target, options.targetOptions, module.getLoc());
      if (failed(target))
        return failure();
      (*target)->buildLoweringPipeline(pm);
    }
    if (failed(pm.run(module)))
      return failure();
    module.print(os, OpPrintingFlags().elideLargeElementsAttrs(16));
    os << '\n';
    return success();
  }
  case EmitKind::Artifact:
    emitError(module.getLoc()) << "artifacts are directories; use -o";
    return failure();
  case EmitKind::Cost: {
    CostSummary summary = printCostReport(module, os, /*perOp=*/true);
    if (summary.numPriced == 0 && summary.numUnpriced == 0)
      os << "no functions to price\n";
    return success();
  }
  }
  llvm_unreachable("unknown emit kind");
}

LogicalResult loom::driver::emitArtifact(ModuleOp module,
                                         const Options &options) {
  if (failed(checkIndicesSupported(module, options)))
    return failure();
  FailureOr<std::unique_ptr<Target>> target =
      createTarget(options.target, options.targetOptions, module.getLoc());
  if (failed(target))
    return failure();
  ArtifactOptions artifactOptions;
  artifactOptions.modelName =
      llvm::sys::path::filename(options.inputFile).str();
  artifactOptions.checkIndices = options.checkIndices;
  return compileArtifact(module, options.outputFile, **target, artifactOptions);
}
