//===- TrainCheckpoints.cpp - Checkpoints of `loomrun --train` ------------===//
//
// Resuming from checkpoints, and their manifest (TrainSave.cpp writes
// them). Each rank writes the blocks of the state tensors it holds the
// canonical copy of (rank-NNNNN.safetensors), then rank 0 writes the
// manifest that lists every tensor and where its blocks are; a resumed run
// reads whole tensors back and keeps its own blocks, whatever mesh wrote
// them. In a pipelined run each stage's ranks write their stage's tensors,
// and rank 0 lists the tensors of every stage (from the stages'
// manifests), so the checkpoint is the same as an unpipelined run's and
// either resumes the other.
//
//===----------------------------------------------------------------------===//

#include "comm/Layout.h"
#include "loom/runtime/Checkpoint.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Safetensors.h"
#include "loom/runtime/Support.h"
#include "train/CheckpointFiles.h"
#include "train/Trainer.h"
#include <cstdio>
#include <set>
#include <sys/stat.h>

using namespace loom::rt;
using namespace loom::rt::train;

bool Trainer::holdsCanonical(const TensorSpec &parameter, int64_t r) const {
  std::vector<int64_t> sizes = manifest.meshSizes();
  std::vector<int64_t> coords = layout::coordinates(sizes, r);
  for (size_t axis = 0; axis < sizes.size(); ++axis) {
    if (program->pipelineStages > 1 &&
        manifest.mesh[axis].name == program->pipelineAxis)
      continue;
    bool splits = false;
    for (size_t d = 0; d < parameter.shape.size(); ++d)
      for (int a : parameter.axesOf(d))
        splits |= static_cast<size_t>(a) == axis;
    if (!splits && coords[axis] != 0)
      return false;
  }
  return true;
}

std::string Trainer::loadStageManifests() {
  if (program->pipelineStages <= 1 || !otherStages.empty())
    return "";
  for (size_t s = 0; s < program->stageDirs.size(); ++s) {
    if (static_cast<int64_t>(s) == program->pipelineStage) {
      otherStages.emplace_back();
      continue;
    }
    char message[1024];
    loom_program *stage = loom_program_load_with_flags(
        program->stageDirs[s].c_str(), LOOM_LOAD_MANIFEST_ONLY, message,
        sizeof(message));
    if (!stage)
      return "stage " + std::to_string(s) + " of artifact '" +
             program->pipelineDir + "': " + message;
    otherStages.emplace_back(stage);
  }
  return "";
}

std::vector<const Manifest *> Trainer::stages() const {
  if (otherStages.empty())
    return {&manifest};
  std::vector<const Manifest *> list;
  for (const auto &stage : otherStages)
    list.push_back(stage ? &stage->manifest : &manifest);
  return list;
}

std::string Trainer::prepareCheckpoints() {
  if (options.ckptDir.empty())
    return "";
  if (std::string error = loadStageManifests(); !error.empty())
    return error;
  const std::string &root = options.ckptDir;
  // Before anything looks at the directory: one job at a time in it.
  if (rank == 0) {
    std::string error, warning;
    if (!ckptLock.acquire(root, error, warning))
      return error;
    if (!warning.empty())
      std::fprintf(stderr, "loomrun: warning: %s\n", warning.c_str());
  }
  std::string latest = checkpoint::findLatest(root);
  if (!options.resume) {
    struct stat st;
    bool hasLatest = ::lstat(joinPath(root, "latest").c_str(), &st) == 0;
    if (!latest.empty() || hasLatest)
      return "checkpoint directory '" + root + "' already holds checkpoints" +
             (latest.empty() ? std::string()
                             : " (the latest: " + latest + ")") +
             ": pass --resume to continue from them, or another --ckpt DIR";
    std::string error;
    if (rank == 0 && !makeDirectories(root, error))
      return "cannot create checkpoint directory '" + root + "': " + error;
    return "";
  }
  if (latest.empty()) {
    if (rank == 0)
      std::printf("no checkpoint in '%s' yet: starting at step 0\n",
                  root.c_str());
    std::string error;
    if (rank == 0 && !makeDirectories(root, error))
      return "cannot create checkpoint directory '" + root + "': " + error;
    return "";
  }
  return resumeFrom(latest);
}

std::string Trainer::resumeFrom(const std::string &checkpointDir) {
  checkpoint::Reader reader;
  std::string error;
  if (!reader.open(checkpointDir, error))
    return error;
  const checkpoint::Info &info = reader.info();
  std::string where = "checkpoint '" + checkpointDir + "'";
  if (info.optimizerKind != spec.optimizerKind)
    return where + " was written with optimizer '" + info.optimizerKind +
           "', but the artifact uses '" + spec.optimizerKind + "'";
  if (options.seedGiven && info.seed != options.seed)
    return where + " was written with --seed " + std::to_string(info.seed) +
           ", not " + std::to_string(options.seed) +
           ": drop --seed to continue it";
  // Names, dtypes and global shapes must match; the mesh need not. In a
  // pipelined run each stage loads its own tensors of the checkpoint's.
  std::set<std::string> anyStage;
  for (const Manifest *stage : stages())
    for (const TensorSpec &parameter : stage->parameters)
      if (isStateTensor(parameter))
        anyStage.insert(parameter.name);
  std::string artifact = program->pipelineDir.empty() ? program->artifactDir
                                                      : program->pipelineDir;
  std::vector<int64_t> tensorOf(manifest.parameters.size(), -1);
  for (size_t t = 0; t < info.tensors.size(); ++t) {
    const checkpoint::Tensor &tensor = info.tensors[t];
    int64_t found = -1;
    for (size_t i = 0; i < manifest.parameters.size(); ++i)
      if (isStateTensor(manifest.parameters[i]) &&
          manifest.parameters[i].name == tensor.name)
        found = static_cast<int64_t>(i);
    if (found < 0 && !anyStage.count(tensor.name))
      return where + " holds tensor '" + tensor.name +
             "', which is not a state tensor of artifact '" + artifact + "'";
    if (found < 0)
      continue;
    const TensorSpec &parameter = manifest.parameters[found];
    if (tensor.dtype != parameter.dtype ||
        tensor.globalShape != parameter.globalShape)
      return where + ": tensor '" + tensor.name + "' is " +
             formatTensorType(tensor.dtype, tensor.globalShape) +
             ", but the artifact's is " +
             formatTensorType(parameter.dtype, parameter.globalShape);
    tensorOf[found] = static_cast<int64_t>(t);
  }
  for (size_t i = 0; i < manifest.parameters.size(); ++i)
    if (isStateTensor(manifest.parameters[i]) && tensorOf[i] < 0)
      return where + " has no tensor '" + manifest.parameters[i].name + "' (" +
             formatTensorType(manifest.parameters[i].dtype,
                              manifest.parameters[i].globalShape) +
             "), a state tensor of the artifact";
  // Every shard is checked, then each rank keeps its blocks of the whole
  // tensors (any mesh can resume any other's checkpoint).
  if (!reader.verify(error))
    return error;
  std::vector<int64_t> sizes = manifest.meshSizes();
  for (size_t i = 0; i < manifest.parameters.size(); ++i) {
    if (tensorOf[i] < 0)
      continue;
    const TensorSpec &parameter = manifest.parameters[i];
    AlignedBuffer global;
    if (!global.allocate(parameter.globalNbytes))
      return "cannot allocate " + std::to_string(parameter.globalNbytes) +
             " bytes to load tensor '" + parameter.name + "'";
    if (!reader.assemble(static_cast<size_t>(tensorOf[i]), global.data(),
                         error))
      return error;
    void *block = mutableParameter(*program, i);
    if (parameter.nbytes == 0)
      continue;
    layout::extractBlock(
        global.data(), block, parameter.globalShape, parameter.shape,
        layout::blockOffsets(sizes, parameter.sharding, parameter.shape, rank),
        loom_dtype_size(parameter.dtype));
  }
  firstStep = info.step;
  updatesApplied = info.updatesApplied;
  seed = info.seed;
  if (rank == 0)
    std::printf("resuming from %s (step %lld, %lld updates applied)\n",
                checkpointDir.c_str(), static_cast<long long>(info.step),
                static_cast<long long>(info.updatesApplied));
  return "";
}

std::string
Trainer::writeCheckpointManifest(const std::string &dir, int64_t done,
                                 int64_t updates,
                                 const std::vector<int64_t> &table) {
  std::vector<int64_t> sizes = manifest.meshSizes();
  std::vector<int64_t> shardOf(size, -1);
  json::Writer writer(2);
  writer.beginObject();
  writer.key("format").string(checkpoint::formatName);
  writer.key("version").integer(checkpoint::formatVersion);
  writer.key("step").integer(done);
  writer.key("updates_applied").integer(updates);
  writer.key("seed").unsignedInteger(seed);
  writer.key("model").string(manifest.model);
  writer.key("artifact")
      .string(program->pipelineDir.empty() ? program->artifactDir
                                           : program->pipelineDir);
  writer.key("mesh").beginArray();
  for (const MeshAxis &axis : manifest.mesh) {
    writer.beginObject();
    writer.key("name").string(axis.name);
    writer.key("size").integer(axis.size);
    writer.endObject();
  }
  writer.endArray();
  json::Value optimizer;
  json::ParseError parseError;
  json::parse(spec.optimizerJson, optimizer, parseError);
  writer.key("optimizer").value(optimizer);
  writer.key("shards").beginArray();
  int64_t numShards = 0;
  for (int r = 0; r < size; ++r) {
    if (table[2 * r] == 0)
      continue;
    writer.beginObject();
    writer.key("file").string(shardName(r));
    writer.key("rank").integer(r);
    writer.key("size").integer(table[2 * r] - 1);
    writer.key("crc32").integer(table[2 * r + 1]);
    writer.endObject();
    shardOf[r] = numShards++;
  }
  writer.endArray();
  writer.key("tensors").beginArray();
  std::vector<const Manifest *> stageList = stages();
  // A parameter several stages hold (tied) is listed once, from the first.
  std::set<std::string> listed;
  for (size_t s = 0; s < stageList.size(); ++s)
    for (const TensorSpec &parameter : stageList[s]->parameters) {
      if (!isStateTensor(parameter) || !listed.insert(parameter.name).second)
        continue;
      auto onStage = [&](int r) {
        return program->rankStages.empty() ||
               program->rankStages[static_cast<size_t>(r)] ==
                   static_cast<int64_t>(s);
      };
      writer.beginObject();
      writer.key("name").string(parameter.name);
      writer.key("kind").string(kindOf(parameter));
      writer.key("dtype").string(loom_dtype_name(parameter.dtype));
      writer.key("global_shape").beginArray();
      for (int64_t dim : parameter.globalShape)
        writer.integer(dim);
      writer.endArray();
      writer.key("sharding").beginArray();
      for (size_t d = 0; d < parameter.shape.size(); ++d) {
        writer.beginArray();
        for (int axis : parameter.axesOf(d))
          writer.string(manifest.mesh[axis].name);
        writer.endArray();
      }
      writer.endArray();
      writer.key("blocks").beginArray();
      for (int r = 0; r < size; ++r) {
        if (!onStage(r) || !holdsCanonical(parameter, r))
          continue;
        if (shardOf[r] < 0)
          return "rank " + std::to_string(r) +
                 " wrote no checkpoint shard, but holds a block of '" +
                 parameter.name + "'";
        writer.beginObject();
        writer.key("shard").integer(shardOf[r]);
        writer.key("offsets").beginArray();
        for (int64_t offset : layout::blockOffsets(sizes, parameter.sharding,
                                                   parameter.shape, r))
          writer.integer(offset);
        writer.endArray();
        writer.key("shape").beginArray();
        for (int64_t dim : parameter.shape)
          writer.integer(dim);
        writer.endArray();
        writer.endObject();
      }
      writer.endArray();
      writer.endObject();
    }
  writer.endArray();
  writer.endObject();
  std::string error;
  if (!checkpoint::writeFileAtomically(joinPath(dir, "manifest.json"),
                                       writer.take() + "\n", error))
    return error;
  return "";
}
