//===- Manifest.h - An artifact's manifest.json -----------------*- C++ -*-===//
//
// The checked, typed form of manifest.json (docs/Artifact.md). Parsing checks
// everything that can be checked without touching other files, so that the
// loader's later steps work on valid data only.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_LIB_MANIFEST_H
#define LOOM_RUNTIME_LIB_MANIFEST_H

#include "loom/runtime/Runtime.h"
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loom::rt {

struct TensorSpec {
  std::string name;
  loom_dtype dtype = LOOM_DTYPE_INVALID;
  std::vector<int64_t> shape;
  int64_t numElements = 0;
  size_t nbytes = 0;
  /// Parameters only: where the bytes lie in the parameter file.
  uint64_t offset = 0;
};

struct Manifest {
  int64_t formatVersion = 0;
  int64_t runtimeAbi = 0;
  std::string producer;
  std::string model;
  std::string targetTriple;
  std::string targetCpu;
  std::vector<std::string> targetFeatures;
  std::string library;
  std::string entry;
  /// Empty when the manifest has no parameter_file.
  std::string parameterFile;
  std::vector<TensorSpec> parameters;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
};

/// Parses and checks the text of `manifestPath` (the manifest of artifact
/// `artifactDir`). On failure returns false with a message naming the file
/// and the key or byte offset, and the status to report.
bool parseManifest(std::string_view text, const std::string &manifestPath,
                   const std::string &artifactDir, Manifest &manifest,
                   std::string &error, loom_status &status);

} // namespace loom::rt

#endif // LOOM_RUNTIME_LIB_MANIFEST_H
