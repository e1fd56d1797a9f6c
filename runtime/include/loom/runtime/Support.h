//===- Support.h - Small utilities of the Loom runtime ----------*- C++ -*-===//
//
// Aligned buffers, checked shape arithmetic, file helpers and error-message
// plumbing shared by the runtime library, loomrun and the tests. Nothing here
// throws, aborts or exits: failures come back as `false` plus a message.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_SUPPORT_H
#define LOOM_RUNTIME_SUPPORT_H

#include "loom/runtime/Base.h"
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loom::rt {

/// A move-only, LOOM_ALIGNMENT-aligned, zero-filled byte buffer whose data
/// pointer is never null once allocated (even for 0 bytes), as compiled
/// programs expect a valid pointer for every tensor.
class AlignedBuffer {
public:
  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer &) = delete;
  AlignedBuffer &operator=(const AlignedBuffer &) = delete;
  AlignedBuffer(AlignedBuffer &&other) noexcept;
  AlignedBuffer &operator=(AlignedBuffer &&other) noexcept;
  ~AlignedBuffer();

  /// Replaces the contents with `size` zero bytes; false when out of memory
  /// (the buffer is then empty).
  bool allocate(size_t size);
  void reset();

  void *data() { return ptr; }
  const void *data() const { return ptr; }
  size_t size() const { return bytes; }
  bool isAllocated() const { return ptr != nullptr; }

private:
  void *ptr = nullptr;
  size_t bytes = 0;
};

/// The number of elements of `shape`, or false when a dimension is negative
/// or the product overflows int64_t.
bool checkedNumElements(const int64_t *shape, size_t rank, int64_t &result);

/// The byte size of a `dtype` tensor of `shape`, or false when a dimension
/// is negative, the dtype is invalid or the size overflows.
bool checkedByteSize(loom_dtype dtype, const int64_t *shape, size_t rank,
                     size_t &result);

/// "float32[32,16]"; "float32[]" for scalars.
std::string formatTensorType(loom_dtype dtype, const int64_t *shape,
                             size_t rank);
inline std::string formatTensorType(loom_dtype dtype,
                                    const std::vector<int64_t> &shape) {
  return formatTensorType(dtype, shape.data(), shape.size());
}
std::string formatTensorType(const loom_tensor_info &info);

/// strerror(err) without the thread-safety problems of strerror.
std::string errnoMessage(int err);

/// Copies `message` into a caller's error buffer (see Runtime.h).
void copyError(std::string_view message, char *err, size_t errLen);

/// copyError, then `status`: the failure return of a C API function.
inline int failWith(loom_status status, std::string_view message, char *err,
                    size_t errLen) {
  copyError(message, err, errLen);
  return status;
}

/// `dir` + "/" + `name` (no doubled separator).
std::string joinPath(std::string_view dir, std::string_view name);

/// Reads the whole regular file at `path` into `contents`. Fails, naming the
/// file, when it cannot be opened or read, is not a regular file (checked
/// as openRegularFile does), or is larger than `maxSize`.
bool readFileToString(const std::string &path, size_t maxSize,
                      std::string &contents, std::string &error);

/// Opens `path` for reading if it is a regular file: opening does not block
/// on a FIFO, and devices, FIFOs and directories are refused before a byte
/// is read (an input that never ends or never comes would hang the caller).
/// Returns the descriptor (close it) and the file's size, or -1 and a
/// message naming the file ("cannot `verb` 'X': ..." when it cannot be
/// opened).
int openRegularFile(const std::string &path, uint64_t &size, std::string &error,
                    const char *verb = "open");

/// The CRC-32 of zlib and PNG (polynomial 0xEDB88320), continuing `crc`
/// (0 to start).
uint32_t crc32(uint32_t crc, const void *data, size_t size);

/// The CRC-32 of the first `size` bytes of `fd` (fewer if it ends first:
/// `got` says how many were read). False only on a read error.
bool crc32OfFile(int fd, uint64_t size, uint32_t &crc, uint64_t &got, int &err);

/// Writes all of `data` to `fd`, retrying short writes and EINTR.
bool writeAll(int fd, const void *data, size_t size, int &err);

/// Reads exactly `size` bytes from `fd` unless end of file comes first;
/// `got` is the number read. False only on a read error (errno in `err`).
bool readFull(int fd, void *data, size_t size, size_t &got, int &err);

/// Creates `path` and its missing parents (like `mkdir -p`).
bool makeDirectories(const std::string &path, std::string &error);

/// `text` quoted for messages: printable ASCII as is, other bytes escaped,
/// long strings shortened.
std::string quoteForMessage(std::string_view text, size_t maxLength = 64);

} // namespace loom::rt

#endif // LOOM_RUNTIME_SUPPORT_H
