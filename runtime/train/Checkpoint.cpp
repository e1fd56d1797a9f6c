//===- Checkpoint.cpp - Training checkpoints on disk ----------------------===//

#include "loom/runtime/Checkpoint.h"
#include "comm/Layout.h"
#include "loom/runtime/Support.h"
#include "train/CheckpointFiles.h"
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace loom::rt;
using namespace loom::rt::checkpoint;

namespace {
bool isDirectory(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool isFile(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool isStepName(const std::string &name) {
  if (name.size() <= 5 || name.compare(0, 5, "step-") != 0)
    return false;
  return std::all_of(name.begin() + 5, name.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

/// Reads the checkpoint manifest's keys, naming the key on failure.
class InfoReader {
public:
  InfoReader(const std::string &path, std::string &error)
      : path(path), error(error) {}

  bool fail(const std::string &message) {
    error = path + ": " + message;
    return false;
  }
  const json::Value *get(const json::Value &object, const char *key,
                         const std::string &keyPath, json::Kind kind) {
    const json::Value *value = object.find(key);
    if (!value)
      return fail("missing key '" + keyPath + "'"), nullptr;
    if (value->kind() != kind)
      return fail("'" + keyPath + "' must be " + json::kindName(kind) +
                  ", found " + json::kindName(value->kind())),
             nullptr;
    return value;
  }
  bool integer(const json::Value &object, const char *key,
               const std::string &keyPath, int64_t min, int64_t &out) {
    const json::Value *value = get(object, key, keyPath, json::Kind::Number);
    if (!value)
      return false;
    if (!value->isInteger() || value->getInteger() < min)
      return fail("'" + keyPath + "' must be an integer of at least " +
                  std::to_string(min));
    out = value->getInteger();
    return true;
  }
  bool string(const json::Value &object, const char *key,
              const std::string &keyPath, std::string &out) {
    const json::Value *value = get(object, key, keyPath, json::Kind::String);
    if (!value)
      return false;
    out = value->getString();
    return true;
  }
  bool shape(const json::Value &object, const char *key,
             const std::string &keyPath, std::vector<int64_t> &out) {
    const json::Value *value = get(object, key, keyPath, json::Kind::Array);
    if (!value)
      return false;
    out.clear();
    for (const json::Value &dim : value->getArray()) {
      if (!dim.isInteger() || dim.getInteger() < 0)
        return fail("'" + keyPath + "' must hold non-negative integers");
      out.push_back(dim.getInteger());
    }
    return true;
  }

  bool read(const json::Value &root, Info &info);

private:
  const std::string &path;
  std::string &error;
};

bool InfoReader::read(const json::Value &root, Info &info) {
  if (!root.isObject())
    return fail("a checkpoint manifest must be a JSON object");
  std::string format;
  int64_t version = 0;
  if (!string(root, "format", "format", format))
    return false;
  if (format != formatName)
    return fail("'format' is " + json::quote(format) + ", expected \"" +
                formatName + "\"");
  if (!integer(root, "version", "version", 1, version))
    return false;
  if (version != formatVersion)
    return fail("checkpoint format version " + std::to_string(version) +
                "; this runtime reads version " +
                std::to_string(formatVersion));
  int64_t seed = 0;
  if (!integer(root, "step", "step", 0, info.step) ||
      !integer(root, "updates_applied", "updates_applied", 0,
               info.updatesApplied) ||
      !integer(root, "seed", "seed", 0, seed))
    return false;
  info.seed = static_cast<uint64_t>(seed);
  if (const json::Value *model = root.find("model"))
    if (model->isString())
      info.model = model->getString();
  const json::Value *mesh = get(root, "mesh", "mesh", json::Kind::Array);
  if (!mesh)
    return false;
  for (size_t a = 0; a < mesh->getArray().size(); ++a) {
    const json::Value &axis = mesh->getArray()[a];
    std::string keyPath = "mesh[" + std::to_string(a) + "]";
    std::string name;
    int64_t size = 0;
    if (!axis.isObject())
      return fail("'" + keyPath + "' must be an object");
    if (!string(axis, "name", keyPath + ".name", name) ||
        !integer(axis, "size", keyPath + ".size", 1, size))
      return false;
    info.mesh.emplace_back(name, size);
  }
  const json::Value *optimizer =
      get(root, "optimizer", "optimizer", json::Kind::Object);
  if (!optimizer)
    return false;
  info.optimizer = *optimizer;
  if (const json::Value *kind = optimizer->find("kind"))
    if (kind->isString())
      info.optimizerKind = kind->getString();

  const json::Value *shards = get(root, "shards", "shards", json::Kind::Array);
  if (!shards)
    return false;
  for (size_t s = 0; s < shards->getArray().size(); ++s) {
    const json::Value &value = shards->getArray()[s];
    std::string keyPath = "shards[" + std::to_string(s) + "]";
    Shard shard;
    int64_t size = 0, crc = 0;
    if (!value.isObject())
      return fail("'" + keyPath + "' must be an object");
    if (!string(value, "file", keyPath + ".file", shard.file) ||
        !integer(value, "rank", keyPath + ".rank", 0, shard.rank) ||
        !integer(value, "size", keyPath + ".size", 0, size) ||
        !integer(value, "crc32", keyPath + ".crc32", 0, crc))
      return false;
    if (shard.file.empty() || shard.file.find('/') != std::string::npos ||
        shard.file[0] == '.')
      return fail("'" + keyPath +
                  ".file' must be a file name in the "
                  "checkpoint directory, found " +
                  json::quote(shard.file));
    if (crc > 0xffffffffll)
      return fail("'" + keyPath + ".crc32' is not a CRC-32");
    shard.size = static_cast<uint64_t>(size);
    shard.crc32 = static_cast<uint32_t>(crc);
    info.shards.push_back(shard);
  }

  const json::Value *tensors =
      get(root, "tensors", "tensors", json::Kind::Array);
  if (!tensors)
    return false;
  for (size_t t = 0; t < tensors->getArray().size(); ++t) {
    const json::Value &value = tensors->getArray()[t];
    std::string keyPath = "tensors[" + std::to_string(t) + "]";
    Tensor tensor;
    std::string dtype;
    if (!value.isObject())
      return fail("'" + keyPath + "' must be an object");
    if (!string(value, "name", keyPath + ".name", tensor.name) ||
        !string(value, "kind", keyPath + ".kind", tensor.kind) ||
        !string(value, "dtype", keyPath + ".dtype", dtype) ||
        !shape(value, "global_shape", keyPath + ".global_shape",
               tensor.globalShape))
      return false;
    tensor.dtype = loom_dtype_from_name(dtype.c_str());
    if (tensor.dtype == LOOM_DTYPE_INVALID)
      return fail("'" + keyPath + ".dtype' is " + json::quote(dtype) +
                  ", not a dtype this runtime knows");
    if (const json::Value *sharding = value.find("sharding")) {
      if (!sharding->isArray() ||
          sharding->getArray().size() != tensor.globalShape.size())
        return fail("'" + keyPath +
                    ".sharding' must list the axes of every dimension");
      for (const json::Value &axes : sharding->getArray()) {
        tensor.sharding.emplace_back();
        if (!axes.isArray())
          return fail("'" + keyPath + ".sharding' must hold lists of names");
        for (const json::Value &axis : axes.getArray())
          tensor.sharding.back().push_back(axis.isString() ? axis.getString()
                                                           : "?");
      }
    }
    const json::Value *blocks =
        get(value, "blocks", keyPath + ".blocks", json::Kind::Array);
    if (!blocks)
      return false;
    for (size_t b = 0; b < blocks->getArray().size(); ++b) {
      const json::Value &blockValue = blocks->getArray()[b];
      std::string blockPath = keyPath + ".blocks[" + std::to_string(b) + "]";
      Block block;
      int64_t shard = 0;
      if (!blockValue.isObject())
        return fail("'" + blockPath + "' must be an object");
      if (!integer(blockValue, "shard", blockPath + ".shard", 0, shard) ||
          !shape(blockValue, "offsets", blockPath + ".offsets",
                 block.offsets) ||
          !shape(blockValue, "shape", blockPath + ".shape", block.shape))
        return false;
      if (static_cast<uint64_t>(shard) >= info.shards.size())
        return fail("'" + blockPath + ".shard' is " + std::to_string(shard) +
                    ", but there are " + std::to_string(info.shards.size()) +
                    " shards");
      size_t rank = tensor.globalShape.size();
      bool fits = block.offsets.size() == rank && block.shape.size() == rank;
      for (size_t d = 0; fits && d < rank; ++d)
        fits = block.offsets[d] + block.shape[d] <= tensor.globalShape[d];
      if (!fits)
        return fail("'" + blockPath + "' does not lie within " +
                    formatTensorType(tensor.dtype, tensor.globalShape));
      block.shard = static_cast<size_t>(shard);
      tensor.blocks.push_back(std::move(block));
    }
    info.tensors.push_back(std::move(tensor));
  }
  return true;
}
} // namespace

std::string Info::describeMesh() const {
  std::string text;
  for (const auto &[name, size] : mesh)
    text += (text.empty() ? "" : " x ") + name + "=" + std::to_string(size);
  return text.empty() ? "(none)" : text;
}

std::string checkpoint::stepName(int64_t step) {
  char name[32];
  std::snprintf(name, sizeof(name), "step-%08lld",
                static_cast<long long>(step));
  return name;
}

std::vector<std::string> checkpoint::listComplete(const std::string &root) {
  std::vector<std::pair<int64_t, std::string>> found;
  if (DIR *dir = ::opendir(root.c_str())) {
    while (struct dirent *entry = ::readdir(dir)) {
      std::string name = entry->d_name;
      if (isStepName(name) &&
          isFile(joinPath(joinPath(root, name), "manifest.json")))
        found.emplace_back(std::strtoll(name.c_str() + 5, nullptr, 10), name);
    }
    ::closedir(dir);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> names;
  for (auto &entry : found)
    names.push_back(entry.second);
  return names;
}

std::string checkpoint::findLatest(const std::string &root) {
  std::string text, error;
  if (readFileToString(joinPath(root, "latest"), 4096, text, error)) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
      text.pop_back();
    if (isStepName(text) &&
        isFile(joinPath(joinPath(root, text), "manifest.json")))
      return joinPath(root, text);
  }
  std::vector<std::string> names = listComplete(root);
  return names.empty() ? "" : joinPath(root, names.back());
}

bool checkpoint::resolve(const std::string &dir, std::string &checkpointDir,
                         std::string &error) {
  if (!isDirectory(dir)) {
    error = "'" + dir + "' is not a directory";
    return false;
  }
  if (isFile(joinPath(dir, "manifest.json"))) {
    checkpointDir = dir;
    return true;
  }
  checkpointDir = findLatest(dir);
  if (checkpointDir.empty()) {
    error = "'" + dir +
            "' holds no complete checkpoint (a step-* directory with "
            "manifest.json)";
    return false;
  }
  return true;
}

bool checkpoint::readInfo(const std::string &checkpointDir, Info &info,
                          std::string &error) {
  std::string path = joinPath(checkpointDir, "manifest.json");
  std::string text;
  if (!readFileToString(path, 256u << 20, text, error))
    return false;
  json::Value root;
  json::ParseError parseError;
  if (!json::parse(text, root, parseError)) {
    error = path + ": invalid JSON at " + parseError.format() +
            " (the checkpoint manifest is corrupt or truncated)";
    return false;
  }
  info = Info();
  info.dir = checkpointDir;
  return InfoReader(path, error).read(root, info);
}

bool Reader::open(const std::string &checkpointDir, std::string &error) {
  if (!readInfo(checkpointDir, data, error))
    return false;
  bytes.assign(data.shards.size(), std::string());
  headers.assign(data.shards.size(), safetensors::Header());
  loaded.assign(data.shards.size(), false);
  return true;
}

bool Reader::loadShard(size_t index, std::string &error) {
  if (loaded[index])
    return true;
  const Shard &shard = data.shards[index];
  std::string path = joinPath(data.dir, shard.file);
  std::string &contents = bytes[index];
  if (!readFileToString(path, SIZE_MAX / 2, contents, error))
    return false;
  if (contents.size() != shard.size) {
    error = path + " is " +
            (contents.size() < shard.size ? std::string("truncated")
                                          : std::string("corrupt")) +
            ": it has " + std::to_string(contents.size()) +
            " bytes, but the checkpoint manifest says " +
            std::to_string(shard.size);
    return false;
  }
  uint32_t crc = crc32(0, contents.data(), contents.size());
  if (crc != shard.crc32) {
    error = path + " is corrupt: its CRC-32 is " + std::to_string(crc) +
            ", but the checkpoint manifest says " + std::to_string(shard.crc32);
    return false;
  }
  if (!safetensors::parseHeader(contents.data(), contents.size(), path,
                                headers[index], error))
    return false;
  // The file must hold every block the manifest places in it.
  for (const Tensor &tensor : data.tensors)
    for (const Block &block : tensor.blocks) {
      if (block.shard != index)
        continue;
      const safetensors::Entry *entry = headers[index].find(tensor.name);
      if (!entry || entry->dtype != tensor.dtype ||
          entry->shape != block.shape) {
        error = path + ": " +
                (entry ? "tensor '" + tensor.name + "' is " +
                             formatTensorType(entry->dtype, entry->shape)
                       : "no tensor '" + tensor.name + "'") +
                ", but the checkpoint manifest places a block " +
                formatTensorType(tensor.dtype, block.shape) + " of it there";
        return false;
      }
    }
  loaded[index] = true;
  return true;
}

bool Reader::verify(std::string &error) {
  for (size_t s = 0; s < data.shards.size(); ++s)
    if (!loadShard(s, error))
      return false;
  return true;
}

bool Reader::assemble(size_t index, void *global, std::string &error) {
  const Tensor &tensor = data.tensors[index];
  size_t elementSize = loom_dtype_size(tensor.dtype);
  // Every element must come from some block.
  int64_t covered = 0, total = 1;
  for (int64_t dim : tensor.globalShape)
    total *= dim;
  for (const Block &block : tensor.blocks) {
    if (!loadShard(block.shard, error))
      return false;
    const safetensors::Header &header = headers[block.shard];
    const safetensors::Entry *entry = header.find(tensor.name);
    const char *source =
        bytes[block.shard].data() + header.dataOffset + entry->begin;
    layout::insertBlock(source, global, tensor.globalShape, block.shape,
                        block.offsets, elementSize);
    int64_t elements = 1;
    for (int64_t dim : block.shape)
      elements *= dim;
    covered += elements;
  }
  if (covered != total) {
    error = joinPath(data.dir, "manifest.json") + ": the blocks of tensor '" +
            tensor.name + "' cover " + std::to_string(covered) + " of its " +
            std::to_string(total) + " elements";
    return false;
  }
  return true;
}

void checkpoint::syncDirectory(const std::string &dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

bool checkpoint::writeFileAtomically(const std::string &path,
                                     const std::string &text,
                                     std::string &error) {
  std::string temp = train::temporaryPath(path);
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    error = "cannot write '" + path + "': " + errnoMessage(errno);
    return false;
  }
  int err = 0;
  bool ok = writeAll(fd, text.data(), text.size(), err);
  if (ok && ::fsync(fd) != 0) {
    err = errno;
    ok = false;
  }
  if (::close(fd) != 0 && ok) {
    err = errno;
    ok = false;
  }
  if (ok && ::rename(temp.c_str(), path.c_str()) != 0) {
    err = errno;
    ok = false;
  }
  if (!ok) {
    ::unlink(temp.c_str());
    error = "cannot write '" + path + "': " + errnoMessage(err);
    return false;
  }
  size_t slash = path.rfind('/');
  syncDirectory(slash == std::string::npos ? "." : path.substr(0, slash));
  return true;
}
