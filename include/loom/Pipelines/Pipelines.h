//===- Pipelines.h - Loom's pass pipelines in one place ---------*- C++ -*-===//
//
// Every sequence of passes loomc runs is built here, and registered for
// loom-opt under the same name, so that `loom-opt --<pipeline>` replays a
// stage of `loomc` (test/Pipelines checks that they agree):
//
//   loom-import-cleanup   what the ONNX importer runs on a fresh module
//   loom-to-linalg        nn (partitioned or not) -> fused linalg on tensors,
//                         parameters as entry arguments (`--emit=linalg`)
//   loom-cpu-lowering     fused linalg -> the LLVM dialect (`--emit=llvm`)
//
// The distribution and training pipelines sit beside them.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PIPELINES_PIPELINES_H
#define LOOM_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace loom {

/// Canonicalisation, idioms raised to single ops, CSE: what every imported
/// model goes through.
void buildImportCleanupPipeline(mlir::OpPassManager &pm);

struct ToLinalgPipelineOptions
    : public mlir::PassPipelineOptions<ToLinalgPipelineOptions> {
  Option<std::string> entryName{
      *this, "entry-name",
      llvm::cl::desc("Rename the entry (empty: keep its name)"),
      llvm::cl::init("")};
};

/// The entry's signature (-loom-prepare-entry), nn -> linalg, elementwise
/// fusion, collectives as runtime calls, and the preparation of results and
/// inits for bufferization: the input every target lowers.
void buildToLinalgPipeline(mlir::OpPassManager &pm,
                           const ToLinalgPipelineOptions &options);

/// The CPU target's lowering: bufferization, BLAS kernel calls, outlined
/// kernels, loops, polynomial math, the LLVM dialect.
void buildCPULoweringPipeline(mlir::OpPassManager &pm);

/// Registers the pipelines above with the names in the header comment.
void registerLoomPipelines();

} // namespace loom

#endif // LOOM_PIPELINES_PIPELINES_H
