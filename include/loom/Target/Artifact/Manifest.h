//===- Manifest.h - An artifact's manifest.json -----------------*- C++ -*-===//

#ifndef LOOM_TARGET_ARTIFACT_MANIFEST_H
#define LOOM_TARGET_ARTIFACT_MANIFEST_H

#include "loom/Dialect/Dist/DistOps.h"
#include "loom/Dialect/NN/NNDialect.h"
#include "loom/Target/Artifact/EntrySignature.h"
#include "loom/Target/Target.h"
#include <string>

namespace loom {

/// What a manifest records besides the signature: read from the lowered
/// module before the target serializes it.
struct ManifestContents {
  std::string modelName;
  /// The executable the runtime loads and the ABI it needs.
  std::string library;
  int runtimeABI = 1;
  /// The axes of the module's mesh (null for one device), the groups its
  /// collectives run over, its collective calls, and its training step.
  /// Attributes only: the target may erase the ops they were read from.
  mlir::ArrayAttr meshAxes;
  mlir::ArrayAttr commGroups, collectives;
  nn::TrainingAttr training;
};

/// Reads the mesh, groups, collectives and training step of `module`.
ManifestContents readManifestContents(mlir::ModuleOp module);

/// The manifest.json text of an artifact (docs/Artifact.md).
std::string writeManifest(const EntrySignature &signature,
                          const ManifestContents &contents,
                          const Target &target);

} // namespace loom

#endif // LOOM_TARGET_ARTIFACT_MANIFEST_H
