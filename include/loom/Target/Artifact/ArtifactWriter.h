//===- ArtifactWriter.h - Write a compiled .loom artifact -------*- C++ -*-===//
//
// The target-independent half of `loomc -o X.loom`: the entry's signature,
// the lowering (the shared `loom-to-linalg` pipeline, then the target's),
// the target's executable files, `parameters.bin` and `manifest.json`
// (docs/Artifact.md), written into a fresh directory that replaces the
// output only when everything succeeded.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_ARTIFACT_ARTIFACTWRITER_H
#define LOOM_TARGET_ARTIFACT_ARTIFACTWRITER_H

#include "loom/Target/Target.h"
#include "mlir/IR/BuiltinOps.h"
#include <string>

namespace loom {

struct ArtifactOptions {
  /// The model file, recorded in the manifest.
  std::string modelName;
  /// `--check-indices`: stop at a gather index out of range (debugging).
  bool checkIndices = false;
};

/// Compiles `module` (one public function on static shapes) with `target`
/// into the artifact directory `outputDir`, replacing it only when
/// everything succeeded and only if it is an artifact. Errors are emitted
/// as diagnostics.
mlir::LogicalResult compileArtifact(mlir::ModuleOp module,
                                    llvm::StringRef outputDir, Target &target,
                                    const ArtifactOptions &options);

} // namespace loom

#endif // LOOM_TARGET_ARTIFACT_ARTIFACTWRITER_H
