//===- ExternalData.cpp - Contained reading of external tensor data -------===//
//
// An external-data reference is a path chosen by whoever wrote the model.
// Everything is checked before any file is opened: the path must be
// relative, have no `..`, resolve (through any symlinks) inside the model's
// directory, name a regular file with a single link, and the byte range must
// lie inside that file and match the tensor's declared size. The file is
// then opened without following symlinks and re-checked to be the same one.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;
using namespace loom;
using namespace loom::onnx_import;

namespace {
/// A non-negative decimal integer, or nullopt.
std::optional<int64_t> parseSize(StringRef text) {
  uint64_t value;
  if (text.empty() || text.getAsInteger(10, value) || value > INT64_MAX)
    return std::nullopt;
  return int64_t(value);
}

std::string realPath(const std::string &path) {
  char buffer[PATH_MAX];
  if (!::realpath(path.c_str(), buffer))
    return "";
  return buffer;
}
} // namespace

LogicalResult loom::onnx_import::readExternalData(
    ImportState &state, Location loc, const onnx::TensorProto &tensor,
    int64_t expectedBytes, std::vector<char> &bytes) {
  auto fail = [&]() { return emitError(loc) << "external data: "; };
  std::optional<std::string> location;
  std::optional<int64_t> offset, length;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    const std::string &key = entry.key();
    if (key == "location") {
      location = entry.value();
    } else if (key == "offset" || key == "length") {
      std::optional<int64_t> value = parseSize(entry.value());
      if (!value)
        return fail() << key << " '" << entry.value()
                      << "' is not a non-negative integer that fits in 64 bits";
      (key == "offset" ? offset : length) = value;
    } else if (key != "checksum") {
      return fail() << "unknown key '" << key
                    << "' (expected location, offset, length or checksum)";
    }
  }
  if (!location || location->empty())
    return fail() << "no location";
  if (state.source.dir.empty())
    return fail() << "the model was not read from a file, so there is no "
                     "directory to read '"
                  << *location << "' from";
  StringRef rel(*location);
  if (llvm::sys::path::is_absolute(rel) || rel.starts_with("/"))
    return fail() << "location '" << rel << "' is an absolute path";
  if (rel.contains('\0') || rel.contains('\\'))
    return fail() << "location '" << rel << "' has a forbidden character";
  for (auto it = llvm::sys::path::begin(rel), end = llvm::sys::path::end(rel);
       it != end; ++it)
    if (*it == "..")
      return fail() << "location '" << rel << "' has a '..' component";

  std::string dir = realPath(state.source.dir);
  if (dir.empty())
    return fail() << "cannot resolve the model directory '" << state.source.dir
                  << "'";
  std::string path = state.source.dir + "/" + rel.str();
  std::string resolved = realPath(path);
  if (resolved.empty())
    return fail() << "cannot find '" << rel
                  << "' beside the model: " << std::strerror(errno);
  if (resolved.compare(0, dir.size() + 1, dir + "/") != 0)
    return fail() << "location '" << rel
                  << "' leaves the model directory through a symbolic link";

  struct stat info;
  if (::stat(resolved.c_str(), &info) != 0)
    return fail() << "cannot stat '" << rel << "': " << std::strerror(errno);
  if (!S_ISREG(info.st_mode))
    return fail() << "'" << rel << "' is not a regular file";
  if (info.st_nlink > 1)
    return fail() << "'" << rel << "' is a hard-linked file (" << info.st_nlink
                  << " links); external data must not alias other files";
  int64_t fileSize = info.st_size;
  int64_t start = offset.value_or(0);
  if (start > fileSize)
    return fail() << "offset " << start << " is beyond the end of '" << rel
                  << "' (" << fileSize << " bytes)";
  int64_t size = length.value_or(fileSize - start);
  int64_t end;
  if (llvm::AddOverflow(start, size, end) || end > fileSize)
    return fail() << "offset " << start << " + length " << size
                  << " is beyond the end of '" << rel << "' (" << fileSize
                  << " bytes)";
  if (size != expectedBytes)
    return fail() << "length " << size
                  << " differs from the tensor's declared size of "
                  << expectedBytes << " bytes";

  int fd = ::open(resolved.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return fail() << "cannot open '" << rel << "': " << std::strerror(errno);
  struct stat opened;
  if (::fstat(fd, &opened) != 0 || opened.st_ino != info.st_ino ||
      opened.st_dev != info.st_dev || !S_ISREG(opened.st_mode)) {
    ::close(fd);
    return fail() << "'" << rel << "' changed while it was being opened";
  }
  bytes.resize(size);
  int64_t done = 0;
  while (done < size) {
    ssize_t got = ::pread(fd, bytes.data() + done, size - done, start + done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      ::close(fd);
      return fail() << "cannot read '" << rel << "': "
                    << (got < 0 ? std::strerror(errno) : "file shrank");
    }
    done += got;
  }
  ::close(fd);
  return success();
}
