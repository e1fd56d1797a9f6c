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
  /// Every other file of the artifact, as written: name, size and CRC-32.
  struct File {
    std::string name;
    uint64_t bytes = 0;
    uint32_t crc32 = 0;
  };
  std::vector<File> files;
};

/// Reads the mesh, groups, collectives and training step of `module`.
ManifestContents readManifestContents(mlir::ModuleOp module);

/// The entry's signature as the program library exports it and the
/// runtime checks the manifest against (compact JSON, docs/Artifact.md).
std::string writeSignature(const EntrySignature &signature);

/// The manifest.json text of an artifact (docs/Artifact.md).
std::string writeManifest(const EntrySignature &signature,
                          const ManifestContents &contents,
                          const Target &target);

} // namespace loom

#endif // LOOM_TARGET_ARTIFACT_MANIFEST_H
