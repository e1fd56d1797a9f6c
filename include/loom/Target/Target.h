//===- Target.h - Compilation targets and their registry --------*- C++ -*-===//
//
// Everything before linalg is shared; a target owns the rest: the passes
// from fused linalg on tensors to its executable form, the serialization of
// that form into the files of an artifact, and the `target` object of the
// artifact's manifest. `loomc --target=NAME` picks one from the registry;
// lib/Target/Artifact writes what every target shares (manifest,
// parameters, the atomic directory swap). docs/Architecture.md says how to
// add one.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_TARGET_H
#define LOOM_TARGET_TARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace loom {

/// What `--target` and its companion flags ask of a target.
struct TargetOptions {
  /// The CPU to compile host code for: `native` or an LLVM CPU name.
  std::string cpu = "native";
  /// `--target=NAME:A,B`: the chips to build device code for (empty: the
  /// target's default list).
  std::vector<std::string> chips;
  /// `--emulate-cuda-kernels` (cpu only): map the program to the CUDA
  /// target's kernels and run them as host loops, to check them anywhere.
  bool emulateCUDAKernels = false;
};

/// One file of an artifact's executable part.
struct ExecutableFile {
  std::string name;
  std::string data;
};

/// What a target hands the artifact writer.
struct SerializedExecutable {
  std::vector<ExecutableFile> files;
  /// The file the runtime loads (the manifest's `library`).
  std::string library;
  /// The oldest runtime ABI with every symbol the executable imports.
  int runtimeABI = 1;
};

class Target {
public:
  virtual ~Target();
  /// The `--target` name: `cpu`, `cuda`.
  virtual llvm::StringRef getName() const = 0;
  /// The runtime device kind the executable runs on (the manifest's
  /// `target.device`).
  virtual llvm::StringRef getDeviceKind() const = 0;
  /// Adds the passes from the output of the `loom-to-linalg` pipeline (fused
  /// linalg on tensors, parameters as arguments) to the form `serialize`
  /// takes.
  virtual void buildLoweringPipeline(mlir::OpPassManager &pm) const = 0;
  /// Serializes the lowered module (its entry named `entryName`, taking
  /// buffers of `bufferTypes` in call order). `signature` describes those
  /// buffers as the runtime checks them (JSON, docs/Artifact.md): a target
  /// whose executable is a library exports it beside the entry. Errors are
  /// emitted at `module`.
  virtual mlir::FailureOr<SerializedExecutable>
  serialize(mlir::ModuleOp module, llvm::StringRef entryName,
            llvm::ArrayRef<mlir::RankedTensorType> bufferTypes,
            llvm::StringRef signature) = 0;
  /// Writes the fields of the manifest's `target` object (beside `device`).
  virtual void describe(llvm::json::OStream &json) const = 0;
};

/// Creates a target for `options`, or emits why not at `loc`.
using TargetFactory = std::function<mlir::FailureOr<std::unique_ptr<Target>>(
    const TargetOptions &options, mlir::Location loc)>;

/// Registers a target under `name` (once; later registrations of a name
/// are ignored).
void registerTarget(llvm::StringRef name, llvm::StringRef description,
                    TargetFactory factory);

/// The registered targets' names, sorted, with their descriptions.
std::vector<std::pair<std::string, std::string>> getRegisteredTargets();

/// Succeeds when a target named `name` is registered; else says why not
/// (an unknown name lists the registered ones; a planned target that this
/// build lacks says so).
llvm::Error checkTargetName(llvm::StringRef name);

/// Creates the target named `name`, or emits at `loc` why not (as
/// checkTargetName says, or why the target refused `options`).
mlir::FailureOr<std::unique_ptr<Target>>
createTarget(llvm::StringRef name, const TargetOptions &options,
             mlir::Location loc);

} // namespace loom

#endif // LOOM_TARGET_TARGET_H
