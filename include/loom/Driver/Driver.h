//===- Driver.h - The loomc compiler driver ---------------------*- C++ -*-===//
//
// loomc is staged: load the input into an `nn` module, run the pipeline up to
// the requested stage, emit that stage. Each later capability (ONNX import,
// planning, partitioning, code generation, training) adds a stage and the
// options that steer it; the options live in one struct so that tests and
// the Python bindings can drive the same code without a command line.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DRIVER_DRIVER_H
#define LOOM_DRIVER_DRIVER_H

#include "loom/Driver/Options.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace loom::driver {

struct LoadResult {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// Why loading failed when `module` is null.
  ExitCode code = ExitCode::Failure;
};

/// Reads the input named by `options` into an nn module (importing ONNX
/// models), or reports why not. A .mlir input's buffer is added to
/// `sourceMgr` so diagnostics can quote it.
LoadResult loadInput(mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
                     const Options &options);

/// Renames the module's nn.parameter ops by the JSON object in `path`
/// (`{"old name": "new name", ...}`, --rename-parameters); an unknown name,
/// a non-string or two parameters under one name is an error at `path`.
mlir::LogicalResult renameParameters(mlir::ModuleOp module,
                                     llvm::StringRef path);

/// Runs the pipeline `options` asks for on `module`.
/// A step pipelined over a `pp` mesh axis comes out as one module per stage
/// in `stageModules` (an error without it), `module` then holding their
/// shared first half.
mlir::LogicalResult runPipeline(
    mlir::ModuleOp module, const Options &options,
    llvm::SmallVectorImpl<mlir::OwningOpRef<mlir::ModuleOp>> *stageModules =
        nullptr);

/// A cluster of GPUs (`--cluster`) compiles for `cuda` unless --target
/// says otherwise; --target=cpu there gets a note.
void chooseTargetForCluster(Options &options);

/// Writes what `options.emit` names to `os` (any stage but an artifact).
mlir::LogicalResult emit(mlir::ModuleOp module, const Options &options,
                         llvm::raw_ostream &os);

/// Compiles `module` for `options.target` into the artifact directory
/// `options.outputFile` (loom/Target/Artifact/ArtifactWriter.h).
mlir::LogicalResult emitArtifact(mlir::ModuleOp module, const Options &options);

/// loomc's main: parses the command line and runs the stages above. Output
/// files are written whole or not at all.
int loomcMain(int argc, char **argv);

/// `loomc calibrate [-o FILE] [--np N] [--threads T] [--quick]`: measures
/// this machine with loom-calibrate on N ranks (through mpirun) and writes
/// the cluster description that `--cluster` reads (docs/Cluster.md).
/// `argv[1]` is "calibrate".
int calibrateMain(int argc, char **argv);

} // namespace loom::driver

#endif // LOOM_DRIVER_DRIVER_H
