//===- Npy.h - Reading and writing NumPy .npy files -------------*- C++ -*-===//
//
// loomrun takes inputs and writes outputs as .npy files, the format every
// Python user can produce (np.save) and read (np.load). Reading accepts
// format versions 1.0, 2.0 and 3.0, C order (or Fortran order where it is
// the same layout) and little-endian data of the dtypes in Runtime.h;
// writing produces version 1.0 with the header padded to 64 bytes, as numpy
// does. bfloat16, which numpy lacks, is stored as the 2-byte void type
// '|V2' holding the raw bits (view it with ml_dtypes.bfloat16).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_NPY_H
#define LOOM_RUNTIME_NPY_H

#include "loom/runtime/Base.h"
#include "loom/runtime/Support.h"
#include <string>
#include <string_view>
#include <vector>

namespace loom::rt {

/// The parsed header of a .npy file.
struct NpyHeader {
  loom_dtype dtype = LOOM_DTYPE_INVALID;
  std::vector<int64_t> shape;
  /// Offset of the first data byte, and the number of data bytes the shape
  /// and dtype need.
  size_t dataOffset = 0;
  size_t dataBytes = 0;
};

/// An array read from a .npy file; `data` is LOOM_ALIGNMENT-aligned and holds
/// exactly `header.dataBytes` meaningful bytes.
struct NpyArray {
  loom_dtype dtype = LOOM_DTYPE_INVALID;
  std::vector<int64_t> shape;
  AlignedBuffer data;
  size_t nbytes = 0;
};

/// The numpy descr this library writes for `dtype` ("<f4", "|b1", ...), or
/// null for LOOM_DTYPE_INVALID.
const char *npyDescr(loom_dtype dtype);

/// The dtype of a numpy descr; on failure false with a message explaining
/// why (big-endian, unsupported type). `fileName` names the file in it.
bool dtypeFromNpyDescr(std::string_view descr, std::string_view fileName,
                       loom_dtype &dtype, std::string &error);

/// Whether a file whose descr reads as `file` may hold an `expected` tensor:
/// the same dtype, or the byte container numpy uses for a type it lacks
/// (uint8 or |V1 for the 8-bit floats, int8 for int4, uint8 for uint4).
bool npyHolds(loom_dtype file, loom_dtype expected);

/// Parses the header at the start of `bytes` (`size` bytes available).
/// Messages name `fileName`.
bool parseNpyHeader(const void *bytes, size_t size, std::string_view fileName,
                    NpyHeader &header, std::string &error);

/// Parses a whole .npy file held in memory. Trailing bytes after the data
/// are ignored, as numpy does; bool elements are normalised to 0 or 1.
bool parseNpy(const void *bytes, size_t size, std::string_view fileName,
              NpyArray &array, std::string &error);

/// Reads the .npy file at `path`; fails, naming the file, if it cannot be
/// read, is malformed, or holds fewer data bytes than its header promises.
bool readNpy(const std::string &path, NpyArray &array, std::string &error);

/// The version 1.0 header (magic to newline, a multiple of 64 bytes) for a
/// `dtype` array of `shape`; empty if the dtype is invalid.
std::string encodeNpyHeader(loom_dtype dtype, const int64_t *shape,
                            size_t rank);

/// Writes a .npy file to the open descriptor `fd` (messages name
/// `fileName`). `data` holds the array's contiguous row-major bytes.
bool writeNpy(int fd, std::string_view fileName, loom_dtype dtype,
              const int64_t *shape, size_t rank, const void *data,
              std::string &error);

/// Creates or truncates `path` and writes the array to it.
bool writeNpyFile(const std::string &path, loom_dtype dtype,
                  const int64_t *shape, size_t rank, const void *data,
                  std::string &error);

} // namespace loom::rt

#endif // LOOM_RUNTIME_NPY_H
