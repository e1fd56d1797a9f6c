//===- DriverInternal.h - What the driver's files share ---------*- C++ -*-===//

#ifndef LOOM_LIB_DRIVER_DRIVERINTERNAL_H
#define LOOM_LIB_DRIVER_DRIVERINTERNAL_H

#include "loom/CostModel/Cluster.h"
#include "loom/Driver/Options.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace loom::driver {

/// The cluster loomc plans for: --cluster or this machine, resized by
/// --devices.
mlir::FailureOr<Cluster> loadCluster(mlir::Location loc,
                                     const Options &options);

/// What the auto strategy decided for the rest of the pipeline.
struct AutoDecision {
  /// Planning was all that was asked for (--explain alone, or a plan that
  /// is not executable): nothing left to compile.
  bool done = false;
  std::string meshSpec;
  int64_t zero = 0;
  /// The plan's pipeline schedule and recomputation, as loomc spells them.
  std::string schedule = "1f1b", recompute = "off";
  /// Model chunks per stage (the interleaved schedule).
  int64_t virtualStages = 1;
};

/// Plans the model (--strategy=auto), prints what was asked, and writes the
/// plan's layouts when it is to be compiled.
mlir::FailureOr<AutoDecision>
planAuto(mlir::ModuleOp module, const Options &options, mlir::Location loc);

/// Parses loomc's command line into `options`; returns -1 to go on, or the
/// exit code (after --help, --version, --list-onnx-operators or an error).
int parseCommandLine(int argc, char **argv, Options &options);

/// The size of the module's `pp` mesh axis (1 without one).
int64_t pipelineStages(mlir::ModuleOp module);

/// Compiles the training step of `module` (whose mesh has a `pp` axis) with
/// `strategy`'s layouts into one module per stage; `train` is the step
/// (with the planner's choices).
mlir::LogicalResult splitPipelinedStep(
    mlir::ModuleOp module, const Options &options, const TrainOptions &train,
    llvm::StringRef strategy,
    llvm::SmallVectorImpl<mlir::OwningOpRef<mlir::ModuleOp>> &stageModules);

/// Prints the stages to `os` (each as `options.emit` asks), or without one
/// writes the pipelined artifact `options.outputFile`.
mlir::LogicalResult
emitPipelined(llvm::MutableArrayRef<mlir::OwningOpRef<mlir::ModuleOp>> stages,
              const Options &options, llvm::raw_ostream *os);
} // namespace loom::driver

#endif // LOOM_LIB_DRIVER_DRIVERINTERNAL_H
