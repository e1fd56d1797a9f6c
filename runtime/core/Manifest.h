//===- Manifest.h - An artifact's manifest.json -----------------*- C++ -*-===//
//
// The checked, typed form of manifest.json (docs/Artifact.md). Parsing checks
// everything that can be checked without touching other files, so that the
// loader's later steps work on valid data only.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_CORE_MANIFEST_H
#define LOOM_RUNTIME_CORE_MANIFEST_H

#include "loom/runtime/Base.h"
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loom::rt {

struct TensorSpec {
  std::string name;
  loom_dtype dtype = LOOM_DTYPE_INVALID;
  /// This rank's block.
  std::vector<int64_t> shape;
  int64_t numElements = 0;
  size_t nbytes = 0;
  /// The whole tensor; equal to the above when not sharded.
  std::vector<int64_t> globalShape;
  size_t globalNbytes = 0;
  /// Per dimension, the mesh axes (indices) that split it; empty when the
  /// manifest gives no sharding.
  std::vector<std::vector<int>> sharding;
  /// Parameters only: where the global tensor's bytes lie in the parameter
  /// file.
  uint64_t offset = 0;
  /// Parameters only (format_version 3): `init: "zeros"` (no bytes in the
  /// parameter file), and the output that holds the value after a step
  /// (`update`; -1 for none).
  bool initZeros = false;
  std::string update;
  int64_t updateOutput = -1;

  bool isSharded() const { return shape != globalShape; }
  /// The axes that split dimension `d` (none when the manifest gives no
  /// sharding).
  const std::vector<int> &axesOf(size_t d) const {
    static const std::vector<int> none;
    return sharding.empty() ? none : sharding[d];
  }
};

/// What a scalar training input holds (the manifest's training.scalars).
enum class ScalarRole {
  LearningRate,
  BiasCorrection1,
  BiasCorrection2,
  LossScale
};

/// The manifest's `training` object (docs/Training.md).
struct TrainingSpec {
  /// Output indices of the loss and the gradient norm (-1: none).
  int64_t lossOutput = -1;
  int64_t gradNormOutput = -1;
  std::string optimizerKind;
  double lr = 0, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0,
         momentum = 0;
  /// The optimizer object as written (checkpoints record it).
  std::string optimizerJson;
  bool cosine = false;
  int64_t warmup = 0, decaySteps = 0;
  double minLr = 0;
  int64_t gradAccum = 1;
  /// Negative when off.
  double clipGradNorm = -1;
  int64_t zero = 0;
  /// (input index, role) per scalar input.
  std::vector<std::pair<int64_t, ScalarRole>> scalars;
  /// Input indices of the data inputs, and of the labels (-1: none).
  std::vector<int64_t> dataInputs;
  int64_t labelsInput = -1;
  int64_t batch = 0;
  /// 0 when not a token model.
  int64_t tokensPerExample = 0;
  /// The classes of the labels (0: unknown): labels lie in [0, numClasses)
  /// or are -100 (ignored).
  int64_t numClasses = 0;
  /// 0 when unknown.
  double flopsPerStep = 0;

  /// The learning rate of step `step` (0-based).
  double learningRate(int64_t step) const;
};

struct MeshAxis {
  std::string name;
  int64_t size = 1;
};

struct CollectiveSpec {
  int32_t kind = 0; // loom_collective_kind
  int32_t group = 0;
  int64_t bytes = 0;
};

/// One file of the artifact as the manifest's `files` records it
/// (format_version 5).
struct ArtifactFile {
  std::string path;
  uint64_t bytes = 0;
  uint32_t crc32 = 0;
};

struct Manifest {
  int64_t formatVersion = 0;
  int64_t runtimeAbi = 0;
  std::string producer;
  std::string model;
  std::string targetTriple;
  std::string targetCpu;
  std::vector<std::string> targetFeatures;
  /// GPU targets: the chips the kernels are built for, and the device
  /// memory the program's temporaries take.
  std::vector<std::string> targetChips;
  int64_t targetArenaBytes = 0;
  /// The kind of device it runs on ("target.device").
  std::string targetDevice = LOOM_DEFAULT_DEVICE_KIND;
  std::string library;
  std::string entry;
  /// Empty when the manifest has no parameter_file.
  std::string parameterFile;
  std::vector<TensorSpec> parameters;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  /// Distributed artifacts: the mesh axes (empty without a mesh), the
  /// groups (axis indices per group) and the collective calls in program
  /// order.
  std::vector<MeshAxis> mesh;
  std::vector<std::vector<int>> groups;
  std::vector<CollectiveSpec> collectives;
  /// The size and CRC-32 of every file (`files`; required from
  /// format_version 5, which also requires the program's signature).
  bool hasFiles = false;
  std::vector<ArtifactFile> files;
  /// Training artifacts (format_version 3).
  bool hasTraining = false;
  TrainingSpec training;

  std::vector<int64_t> meshSizes() const;
  /// The number of devices: the product of the axis sizes (1 without mesh).
  int64_t meshSize() const;
  /// "dp=2 x tp=2"; "" without mesh.
  std::string describeMesh() const;
  /// "dp,tp" for a list of axis indices.
  std::string axisNames(const std::vector<int> &axes,
                        const char *separator = ",") const;
};

/// Parses and checks the text of `manifestPath` (the manifest of artifact
/// `artifactDir`). On failure returns false with a message naming the file
/// and the key or byte offset, and the status to report.
bool parseManifest(std::string_view text, const std::string &manifestPath,
                   const std::string &artifactDir, Manifest &manifest,
                   std::string &error, loom_status &status);

} // namespace loom::rt

#endif // LOOM_RUNTIME_CORE_MANIFEST_H
