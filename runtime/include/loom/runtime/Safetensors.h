//===- Safetensors.h - safetensors files ------------------------*- C++ -*-===//
//
// Checkpoint shards and exported parameters are safetensors files: an 8-byte
// little-endian header size, a JSON header ({name: {dtype, shape,
// data_offsets: [begin, end]}, "__metadata__": {string: string}}) padded
// with spaces to a multiple of 8, then the tensors' bytes back to back. The
// runtime cannot use the reference library (Rust, or Python), so this is a
// reader and writer of its own, checked against numpy in the tests.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_SAFETENSORS_H
#define LOOM_RUNTIME_SAFETENSORS_H

#include "loom/runtime/Base.h"
#include "loom/runtime/Support.h" // crc32, which checkpoints record
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace loom::rt {

namespace safetensors {

using Metadata = std::vector<std::pair<std::string, std::string>>;

/// "F32", "BF16", ...; null for dtypes safetensors has no name for
/// (int4, uint4, the fnuz 8-bit floats).
const char *dtypeName(loom_dtype dtype);
/// The inverse; LOOM_DTYPE_INVALID when unknown.
loom_dtype dtypeFromName(const std::string &name);

struct Entry {
  std::string name;
  loom_dtype dtype = LOOM_DTYPE_INVALID;
  std::vector<int64_t> shape;
  /// Byte range within the data (after the header).
  uint64_t begin = 0;
  uint64_t end = 0;
};

struct Header {
  std::vector<Entry> tensors;
  Metadata metadata;
  /// Where the data starts in the file: 8 + the header size.
  uint64_t dataOffset = 0;

  const Entry *find(const std::string &name) const;
};

/// Parses the header of a file of `size` bytes held at `bytes` and checks
/// that every tensor lies within the file and has the size its dtype and
/// shape give. Messages name `fileName`.
bool parseHeader(const void *bytes, size_t size, const std::string &fileName,
                 Header &header, std::string &error);

/// A tensor to write: `data` holds its nbytes bytes.
struct Tensor {
  std::string name;
  loom_dtype dtype = LOOM_DTYPE_INVALID;
  std::vector<int64_t> shape;
  const void *data = nullptr;
};

/// Writes a whole file to the open descriptor `fd` (tensors in the given
/// order); returns the file's size and CRC-32. `abortAfterHeader`, for the
/// fault-injection hook, is called once the header and part of the data
/// are written. Messages name `fileName`.
bool write(int fd, const std::string &fileName,
           const std::vector<Tensor> &tensors, const Metadata &metadata,
           uint64_t &size, uint32_t &crc, std::string &error,
           void (*abortAfterHeader)() = nullptr);

/// Writes `path` atomically: a temporary file beside it, fsync, rename.
bool writeFile(const std::string &path, const std::vector<Tensor> &tensors,
               const Metadata &metadata, std::string &error);

} // namespace safetensors
} // namespace loom::rt

#endif // LOOM_RUNTIME_SAFETENSORS_H
