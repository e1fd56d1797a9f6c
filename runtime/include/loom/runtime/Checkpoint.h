//===- Checkpoint.h - Training checkpoints on disk --------------*- C++ -*-===//
//
// A checkpoint (docs/Training.md) is DIR/step-<S>/ holding one safetensors
// shard per rank that owns blocks of the state tensors and manifest.json,
// written last; DIR/latest names the newest. This is the reading side,
// shared by `loomrun --train --resume` and `loom-ckpt`: finding the
// checkpoint, checking sizes and CRC-32s, and assembling whole tensors
// from the blocks (so that any mesh can load what any other wrote).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_CHECKPOINT_H
#define LOOM_RUNTIME_CHECKPOINT_H

#include "loom/runtime/Base.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Safetensors.h"
#include <cstdint>
#include <string>
#include <vector>

namespace loom::rt::checkpoint {

constexpr const char *formatName = "loom-checkpoint";
constexpr int64_t formatVersion = 1;

struct Block {
  /// Index into Info::shards.
  size_t shard = 0;
  std::vector<int64_t> offsets;
  std::vector<int64_t> shape;
};

struct Tensor {
  std::string name;
  /// "parameter" or "optimizer".
  std::string kind;
  loom_dtype dtype = LOOM_DTYPE_INVALID;
  std::vector<int64_t> globalShape;
  /// Per dimension, the mesh axes that split it.
  std::vector<std::vector<std::string>> sharding;
  std::vector<Block> blocks;
};

struct Shard {
  std::string file;
  int64_t rank = 0;
  uint64_t size = 0;
  uint32_t crc32 = 0;
};

struct Info {
  /// The checkpoint directory (DIR/step-<S>).
  std::string dir;
  int64_t step = 0;
  int64_t updatesApplied = 0;
  uint64_t seed = 0;
  std::vector<std::pair<std::string, int64_t>> mesh;
  std::string optimizerKind;
  json::Value optimizer;
  std::string model;
  std::vector<Tensor> tensors;
  std::vector<Shard> shards;

  /// "dp=2 x tp=1"; "(none)" without mesh.
  std::string describeMesh() const;
};

/// "step-00000100".
std::string stepName(int64_t step);
/// Names of the complete checkpoints (step-* directories holding
/// manifest.json) under `root`, oldest first.
std::vector<std::string> listComplete(const std::string &root);
/// The checkpoint to resume from: the one `root`/latest names if it is
/// complete, else the newest complete one; "" when there is none.
std::string findLatest(const std::string &root);
/// For tools: `dir` is a checkpoint (holding manifest.json) or a directory
/// of checkpoints (its latest is taken).
bool resolve(const std::string &dir, std::string &checkpointDir,
             std::string &error);

/// Reads and checks `checkpointDir`/manifest.json.
bool readInfo(const std::string &checkpointDir, Info &info, std::string &error);

/// Reads a checkpoint's shards on demand, checking each file's size and
/// CRC-32 against the manifest and its safetensors header against the
/// blocks it should hold. Errors name the file.
class Reader {
public:
  bool open(const std::string &checkpointDir, std::string &error);
  const Info &info() const { return data; }
  /// Reads and checks every shard.
  bool verify(std::string &error);
  /// Assembles tensor `index` whole into `global` (its global size).
  bool assemble(size_t index, void *global, std::string &error);

private:
  bool loadShard(size_t shard, std::string &error);

  Info data;
  std::vector<std::string> bytes;
  std::vector<safetensors::Header> headers;
  std::vector<bool> loaded;
};

/// Writes `text` to `path` through a temporary file unique to this process,
/// fsync and rename, then syncs the directory.
bool writeFileAtomically(const std::string &path, const std::string &text,
                         std::string &error);
/// fsync of a directory (after renames in it); errors are ignored.
void syncDirectory(const std::string &dir);

} // namespace loom::rt::checkpoint

#endif // LOOM_RUNTIME_CHECKPOINT_H
