//===- Safetensors.cpp - safetensors files --------------------------------===//

#include "loom/runtime/Safetensors.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Support.h"
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace loom::rt;

namespace {
struct DtypeName {
  loom_dtype dtype;
  const char *name;
};
const DtypeName dtypeNames[] = {
    {LOOM_DTYPE_FLOAT16, "F16"},
    {LOOM_DTYPE_BFLOAT16, "BF16"},
    {LOOM_DTYPE_FLOAT32, "F32"},
    {LOOM_DTYPE_FLOAT64, "F64"},
    {LOOM_DTYPE_INT8, "I8"},
    {LOOM_DTYPE_INT16, "I16"},
    {LOOM_DTYPE_INT32, "I32"},
    {LOOM_DTYPE_INT64, "I64"},
    {LOOM_DTYPE_UINT8, "U8"},
    {LOOM_DTYPE_UINT16, "U16"},
    {LOOM_DTYPE_UINT32, "U32"},
    {LOOM_DTYPE_UINT64, "U64"},
    {LOOM_DTYPE_BOOL, "BOOL"},
    {LOOM_DTYPE_FLOAT8E4M3FN, "F8_E4M3"},
    {LOOM_DTYPE_FLOAT8E5M2, "F8_E5M2"},
};

/// The header's size field and the JSON are capped like the reference
/// implementation's, so that a corrupt size cannot make us allocate wildly.
constexpr uint64_t maxHeaderSize = 100u << 20;
} // namespace

const char *safetensors::dtypeName(loom_dtype dtype) {
  for (const DtypeName &entry : dtypeNames)
    if (entry.dtype == dtype)
      return entry.name;
  return nullptr;
}

loom_dtype safetensors::dtypeFromName(const std::string &name) {
  for (const DtypeName &entry : dtypeNames)
    if (name == entry.name)
      return entry.dtype;
  return LOOM_DTYPE_INVALID;
}

const safetensors::Entry *
safetensors::Header::find(const std::string &name) const {
  for (const Entry &entry : tensors)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

bool safetensors::parseHeader(const void *bytes, size_t size,
                              const std::string &fileName, Header &header,
                              std::string &error) {
  auto fail = [&](const std::string &message) {
    error = fileName + ": " + message;
    return false;
  };
  if (size < 8)
    return fail("not a safetensors file: " + std::to_string(size) +
                " bytes, too short for the header size");
  const auto *data = static_cast<const unsigned char *>(bytes);
  uint64_t headerSize = 0;
  for (int i = 7; i >= 0; --i)
    headerSize = headerSize << 8 | data[i];
  if (headerSize > maxHeaderSize || headerSize > size - 8)
    return fail("not a safetensors file, or truncated: the header claims " +
                std::to_string(headerSize) + " bytes, but the file has " +
                std::to_string(size));
  json::Value root;
  json::ParseError parseError;
  std::string_view text(reinterpret_cast<const char *>(data + 8), headerSize);
  if (!json::parse(text, root, parseError))
    return fail("invalid safetensors header: invalid JSON at " +
                parseError.format());
  if (!root.isObject())
    return fail("invalid safetensors header: not a JSON object");
  header = Header();
  header.dataOffset = 8 + headerSize;
  uint64_t dataSize = size - header.dataOffset;
  for (const json::Member &member : root.getObject()) {
    const json::Value &value = member.value;
    if (member.key == "__metadata__") {
      if (!value.isObject())
        return fail("'__metadata__' must be an object of strings");
      for (const json::Member &item : value.getObject()) {
        if (!item.value.isString())
          return fail("'__metadata__." + item.key + "' must be a string");
        header.metadata.emplace_back(item.key, item.value.getString());
      }
      continue;
    }
    std::string where = "tensor " + quoteForMessage(member.key);
    const json::Value *dtype = value.find("dtype");
    const json::Value *shape = value.find("shape");
    const json::Value *offsets = value.find("data_offsets");
    if (!value.isObject() || !dtype || !dtype->isString() || !shape ||
        !shape->isArray() || !offsets || !offsets->isArray() ||
        offsets->getArray().size() != 2 ||
        !offsets->getArray()[0].isInteger() ||
        !offsets->getArray()[1].isInteger())
      return fail(where + ": expected {\"dtype\": string, \"shape\": [...], "
                          "\"data_offsets\": [begin, end]}");
    Entry entry;
    entry.name = member.key;
    entry.dtype = dtypeFromName(dtype->getString());
    if (entry.dtype == LOOM_DTYPE_INVALID)
      return fail(where + " has dtype " + quoteForMessage(dtype->getString()) +
                  ", which this runtime does not read");
    for (const json::Value &dim : shape->getArray()) {
      if (!dim.isInteger() || dim.getInteger() < 0)
        return fail(where + ": the shape must hold non-negative integers");
      entry.shape.push_back(dim.getInteger());
    }
    int64_t begin = offsets->getArray()[0].getInteger();
    int64_t end = offsets->getArray()[1].getInteger();
    size_t nbytes = 0;
    if (!checkedByteSize(entry.dtype, entry.shape.data(), entry.shape.size(),
                         nbytes))
      return fail(where + ": the shape is too large");
    if (begin < 0 || end < begin ||
        static_cast<uint64_t>(end - begin) != nbytes)
      return fail(where + ": data_offsets [" + std::to_string(begin) + ", " +
                  std::to_string(end) + "] do not hold the " +
                  std::to_string(nbytes) + " bytes of " +
                  formatTensorType(entry.dtype, entry.shape));
    if (static_cast<uint64_t>(end) > dataSize)
      return fail("truncated: " + where + " needs data bytes up to " +
                  std::to_string(end) + ", but the file holds " +
                  std::to_string(dataSize));
    entry.begin = static_cast<uint64_t>(begin);
    entry.end = static_cast<uint64_t>(end);
    header.tensors.push_back(std::move(entry));
  }
  return true;
}

namespace {
std::string encodeHeader(const std::vector<safetensors::Tensor> &tensors,
                         const safetensors::Metadata &metadata,
                         const std::string &fileName, std::string &error) {
  json::Writer writer;
  writer.beginObject();
  if (!metadata.empty()) {
    writer.key("__metadata__").beginObject();
    for (const auto &[key, value] : metadata)
      writer.key(key).string(value);
    writer.endObject();
  }
  uint64_t offset = 0;
  for (const safetensors::Tensor &tensor : tensors) {
    const char *dtype = safetensors::dtypeName(tensor.dtype);
    size_t nbytes = 0;
    if (!dtype) {
      error = "cannot write '" + fileName + "': tensor " +
              quoteForMessage(tensor.name) + " is " +
              loom_dtype_name(tensor.dtype) +
              ", which safetensors has no dtype for";
      return "";
    }
    checkedByteSize(tensor.dtype, tensor.shape.data(), tensor.shape.size(),
                    nbytes);
    writer.key(tensor.name).beginObject();
    writer.key("dtype").string(dtype);
    writer.key("shape").beginArray();
    for (int64_t dim : tensor.shape)
      writer.integer(dim);
    writer.endArray();
    writer.key("data_offsets").beginArray();
    writer.unsignedInteger(offset).unsignedInteger(offset + nbytes);
    writer.endArray().endObject();
    offset += nbytes;
  }
  writer.endObject();
  std::string text = writer.take();
  // Pad to 8 bytes, as the reference writer does (data then stays aligned
  // for 8-byte types).
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}
} // namespace

bool safetensors::write(int fd, const std::string &fileName,
                        const std::vector<Tensor> &tensors,
                        const Metadata &metadata, uint64_t &size, uint32_t &crc,
                        std::string &error, void (*abortAfterHeader)()) {
  std::string header = encodeHeader(tensors, metadata, fileName, error);
  if (header.empty())
    return false;
  unsigned char prefix[8];
  uint64_t headerSize = header.size();
  for (int i = 0; i < 8; ++i)
    prefix[i] = static_cast<unsigned char>(headerSize >> (8 * i));
  crc = 0;
  size = 0;
  int err = 0;
  auto put = [&](const void *data, size_t bytes) {
    crc = crc32(crc, data, bytes);
    size += bytes;
    return writeAll(fd, data, bytes, err);
  };
  if (!put(prefix, 8) || !put(header.data(), header.size())) {
    error = "cannot write '" + fileName + "': " + errnoMessage(err);
    return false;
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    size_t nbytes = 0;
    checkedByteSize(tensors[i].dtype, tensors[i].shape.data(),
                    tensors[i].shape.size(), nbytes);
    const char *data = static_cast<const char *>(tensors[i].data);
    size_t first = abortAfterHeader && i == 0 ? nbytes / 2 : nbytes;
    if (!put(data, first)) {
      error = "cannot write '" + fileName + "': " + errnoMessage(err);
      return false;
    }
    if (abortAfterHeader && i == 0)
      abortAfterHeader(); // the fault hook: a write cut short
    if (!put(data + first, nbytes - first)) {
      error = "cannot write '" + fileName + "': " + errnoMessage(err);
      return false;
    }
  }
  if (abortAfterHeader && tensors.empty())
    abortAfterHeader();
  return true;
}

bool safetensors::writeFile(const std::string &path,
                            const std::vector<Tensor> &tensors,
                            const Metadata &metadata, std::string &error) {
  std::string temp = path + ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    error = "cannot write '" + path + "': " + errnoMessage(errno);
    return false;
  }
  uint64_t size = 0;
  uint32_t crc = 0;
  bool ok = write(fd, path, tensors, metadata, size, crc, error);
  if (ok && ::fsync(fd) != 0) {
    error = "cannot write '" + path + "': " + errnoMessage(errno);
    ok = false;
  }
  if (::close(fd) != 0 && ok) {
    error = "cannot write '" + path + "': " + errnoMessage(errno);
    ok = false;
  }
  if (ok && ::rename(temp.c_str(), path.c_str()) != 0) {
    error =
        "cannot move '" + temp + "' to '" + path + "': " + errnoMessage(errno);
    ok = false;
  }
  if (!ok)
    ::unlink(temp.c_str());
  return ok;
}
