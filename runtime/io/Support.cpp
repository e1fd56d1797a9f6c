//===- Support.cpp - Small utilities of the Loom runtime ------------------===//

#include "loom/runtime/Support.h"
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace loom::rt;

//===----------------------------------------------------------------------===//
// C API: versions, dtypes, aligned memory
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_VERSION_STRING
#define LOOM_RUNTIME_VERSION_STRING "unknown"
#endif

extern "C" int loom_runtime_abi_version(void) {
  return LOOM_RUNTIME_ABI_VERSION;
}

extern "C" const char *loom_runtime_version(void) {
  return LOOM_RUNTIME_VERSION_STRING;
}

namespace {
struct DTypeEntry {
  loom_dtype dtype;
  const char *name;
  size_t size;
};
// Indexed by the enum value.
constexpr DTypeEntry dtypeTable[] = {
    {LOOM_DTYPE_INVALID, "invalid", 0},
    {LOOM_DTYPE_FLOAT16, "float16", 2},
    {LOOM_DTYPE_BFLOAT16, "bfloat16", 2},
    {LOOM_DTYPE_FLOAT32, "float32", 4},
    {LOOM_DTYPE_FLOAT64, "float64", 8},
    {LOOM_DTYPE_INT8, "int8", 1},
    {LOOM_DTYPE_INT16, "int16", 2},
    {LOOM_DTYPE_INT32, "int32", 4},
    {LOOM_DTYPE_INT64, "int64", 8},
    {LOOM_DTYPE_UINT8, "uint8", 1},
    {LOOM_DTYPE_BOOL, "bool", 1},
    {LOOM_DTYPE_UINT16, "uint16", 2},
    {LOOM_DTYPE_UINT32, "uint32", 4},
    {LOOM_DTYPE_UINT64, "uint64", 8},
    {LOOM_DTYPE_FLOAT8E4M3FN, "float8e4m3fn", 1},
    {LOOM_DTYPE_FLOAT8E4M3FNUZ, "float8e4m3fnuz", 1},
    {LOOM_DTYPE_FLOAT8E5M2, "float8e5m2", 1},
    {LOOM_DTYPE_FLOAT8E5M2FNUZ, "float8e5m2fnuz", 1},
    {LOOM_DTYPE_INT4, "int4", 1},
    {LOOM_DTYPE_UINT4, "uint4", 1},
};
constexpr size_t numDTypes = sizeof(dtypeTable) / sizeof(dtypeTable[0]);

const DTypeEntry *lookupDType(loom_dtype dtype) {
  // Compare as unsigned so that out-of-range values from C callers are safe.
  auto index = static_cast<unsigned>(dtype);
  if (index == 0 || index >= numDTypes)
    return nullptr;
  return &dtypeTable[index];
}
} // namespace

extern "C" size_t loom_dtype_size(loom_dtype dtype) {
  const DTypeEntry *entry = lookupDType(dtype);
  return entry ? entry->size : 0;
}

extern "C" const char *loom_dtype_name(loom_dtype dtype) {
  const DTypeEntry *entry = lookupDType(dtype);
  return entry ? entry->name : "invalid";
}

extern "C" loom_dtype loom_dtype_from_name(const char *name) {
  if (!name)
    return LOOM_DTYPE_INVALID;
  for (size_t i = 1; i < numDTypes; ++i)
    if (std::strcmp(name, dtypeTable[i].name) == 0)
      return dtypeTable[i].dtype;
  return LOOM_DTYPE_INVALID;
}

extern "C" void *loom_aligned_alloc(size_t nbytes) {
  // Round up to whole alignment units so that vectorised code may read a
  // full vector at the end, and so that 0 bytes still yields a pointer.
  size_t rounded = nbytes == 0 ? LOOM_ALIGNMENT
                               : (nbytes + LOOM_ALIGNMENT - 1) /
                                     LOOM_ALIGNMENT * LOOM_ALIGNMENT;
  if (rounded < nbytes)
    return nullptr;
  void *ptr = nullptr;
  if (posix_memalign(&ptr, LOOM_ALIGNMENT, rounded) != 0)
    return nullptr;
  std::memset(ptr, 0, rounded);
  return ptr;
}

extern "C" void loom_aligned_free(void *ptr) { std::free(ptr); }

//===----------------------------------------------------------------------===//
// AlignedBuffer
//===----------------------------------------------------------------------===//

AlignedBuffer::AlignedBuffer(AlignedBuffer &&other) noexcept
    : ptr(other.ptr), bytes(other.bytes) {
  other.ptr = nullptr;
  other.bytes = 0;
}

AlignedBuffer &AlignedBuffer::operator=(AlignedBuffer &&other) noexcept {
  if (this != &other) {
    reset();
    ptr = other.ptr;
    bytes = other.bytes;
    other.ptr = nullptr;
    other.bytes = 0;
  }
  return *this;
}

AlignedBuffer::~AlignedBuffer() { reset(); }

bool AlignedBuffer::allocate(size_t size) {
  reset();
  ptr = loom_aligned_alloc(size);
  if (!ptr)
    return false;
  bytes = size;
  return true;
}

void AlignedBuffer::reset() {
  loom_aligned_free(ptr);
  ptr = nullptr;
  bytes = 0;
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

bool loom::rt::checkedNumElements(const int64_t *shape, size_t rank,
                                  int64_t &result) {
  int64_t count = 1;
  bool isEmpty = false;
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] < 0)
      return false;
    if (shape[i] == 0)
      isEmpty = true;
    // Keep multiplying past a zero extent so that overflow in the other
    // extents is still caught: [0, 2^40, 2^40] is not a sensible shape.
    else if (__builtin_mul_overflow(count, shape[i], &count))
      return false;
  }
  result = isEmpty ? 0 : count;
  return true;
}

bool loom::rt::checkedByteSize(loom_dtype dtype, const int64_t *shape,
                               size_t rank, size_t &result) {
  size_t elementSize = loom_dtype_size(dtype);
  int64_t count = 0;
  if (elementSize == 0 || !checkedNumElements(shape, rank, count))
    return false;
  // Non-empty extents must also fit in bytes, so check with the product of
  // the non-zero extents.
  int64_t nonZero = 1;
  for (size_t i = 0; i < rank; ++i)
    if (shape[i] != 0)
      nonZero *= shape[i];
  size_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(nonZero),
                             static_cast<uint64_t>(elementSize), &bytes) ||
      bytes > static_cast<uint64_t>(INT64_MAX))
    return false;
  result = count == 0 ? 0 : bytes;
  return true;
}

std::string loom::rt::formatTensorType(loom_dtype dtype, const int64_t *shape,
                                       size_t rank) {
  std::string text = loom_dtype_name(dtype);
  text += '[';
  for (size_t i = 0; i < rank; ++i) {
    if (i)
      text += ',';
    text += std::to_string(shape[i]);
  }
  text += ']';
  return text;
}

std::string loom::rt::formatTensorType(const loom_tensor_info &info) {
  return formatTensorType(info.dtype, info.shape,
                          info.rank > 0 ? static_cast<size_t>(info.rank) : 0);
}

//===----------------------------------------------------------------------===//
// Errors and files
//===----------------------------------------------------------------------===//

std::string loom::rt::errnoMessage(int err) {
  char buffer[256];
  buffer[0] = '\0';
  // glibc's strerror_r may return a static string instead of filling the
  // buffer (GNU variant); handle both variants.
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  const char *text = strerror_r(err, buffer, sizeof(buffer));
  return text ? text : "unknown error";
#else
  if (strerror_r(err, buffer, sizeof(buffer)) != 0)
    return "error " + std::to_string(err);
  return buffer;
#endif
}

void loom::rt::copyError(std::string_view message, char *err, size_t errLen) {
  if (!err || errLen == 0)
    return;
  size_t n = message.size() < errLen - 1 ? message.size() : errLen - 1;
  std::memcpy(err, message.data(), n);
  err[n] = '\0';
}

std::string loom::rt::joinPath(std::string_view dir, std::string_view name) {
  std::string path(dir);
  if (!path.empty() && path.back() != '/')
    path += '/';
  path += name;
  return path;
}

bool loom::rt::readFull(int fd, void *data, size_t size, size_t &got,
                        int &err) {
  got = 0;
  auto *out = static_cast<char *>(data);
  while (got < size) {
    ssize_t n = ::read(fd, out + got, size - got);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      err = errno;
      return false;
    }
    if (n == 0)
      break;
    got += static_cast<size_t>(n);
  }
  return true;
}

bool loom::rt::writeAll(int fd, const void *data, size_t size, int &err) {
  const auto *in = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, in, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      err = errno;
      return false;
    }
    in += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

int loom::rt::openRegularFile(const std::string &path, uint64_t &size,
                              std::string &error, const char *verb) {
  // O_NONBLOCK: opening a FIFO without a writer would wait for one.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = std::string("cannot ") + verb + " '" + path +
            "': " + errnoMessage(errno);
    return -1;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    error = "cannot read '" + path + "': " + errnoMessage(errno);
    ::close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    error = S_ISDIR(st.st_mode)
                ? "cannot read '" + path + "': " + errnoMessage(EISDIR)
                : "'" + path + "' is not a regular file";
    ::close(fd);
    return -1;
  }
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0)
    ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  size = static_cast<uint64_t>(st.st_size);
  return fd;
}

bool loom::rt::readFileToString(const std::string &path, size_t maxSize,
                                std::string &contents, std::string &error) {
  uint64_t size = 0;
  int fd = openRegularFile(path, size, error);
  if (fd < 0)
    return false;
  if (size > maxSize) {
    error = "'" + path + "' is " + std::to_string(size) +
            " bytes, more than the limit of " + std::to_string(maxSize);
    ::close(fd);
    return false;
  }
  // /proc and /sys files report a size of 0 and hold more: those are read
  // to their end, up to the limit.
  bool sized = size != 0;
  contents.resize(sized            ? static_cast<size_t>(size)
                  : maxSize < 4096 ? maxSize + 1
                                   : 4096);
  size_t have = 0, got = 0;
  int err = 0;
  bool ok = true;
  while ((ok = readFull(fd, contents.data() + have, contents.size() - have, got,
                        err))) {
    have += got;
    if (sized || have < contents.size())
      break;
    if (contents.size() > maxSize) {
      error = "'" + path + "' is more than the limit of " +
              std::to_string(maxSize) + " bytes";
      ::close(fd);
      return false;
    }
    contents.resize(std::min(contents.size() * 2, maxSize + 1));
  }
  ::close(fd);
  if (!ok) {
    error = "cannot read '" + path + "': " + errnoMessage(err);
    return false;
  }
  // The file may have shrunk since fstat; what was read is what it holds.
  contents.resize(have);
  return true;
}

bool loom::rt::makeDirectories(const std::string &path, std::string &error) {
  if (path.empty()) {
    error = "cannot create a directory with an empty name";
    return false;
  }
  // Create each prefix in turn; existing directories are fine.
  size_t pos = 0;
  while (true) {
    pos = path.find('/', pos + 1);
    std::string prefix = path.substr(0, pos);
    if (!prefix.empty() && ::mkdir(prefix.c_str(), 0777) != 0 &&
        errno != EEXIST) {
      error =
          "cannot create directory '" + prefix + "': " + errnoMessage(errno);
      return false;
    }
    if (pos == std::string::npos)
      break;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    error = "cannot create directory '" + path + "': " + errnoMessage(errno);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    error = "cannot create directory '" + path + "': " + errnoMessage(ENOTDIR);
    return false;
  }
  return true;
}

std::string loom::rt::quoteForMessage(std::string_view text, size_t maxLength) {
  std::string quoted = "'";
  size_t shown = 0;
  for (unsigned char c : text) {
    if (shown == maxLength) {
      quoted += "...";
      break;
    }
    ++shown;
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
      quoted += static_cast<char>(c);
      continue;
    }
    char escaped[8];
    std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
    quoted += escaped;
  }
  quoted += "'";
  return quoted;
}
