//===- ArtifactFiles.cpp - Sizes and CRC-32s of an artifact's files -------===//
//
// A truncated or bit-flipped program library dies of SIGBUS, SIGSEGV or
// SIGILL inside dlopen or a run, and a flipped parameter gives wrong answers
// silently; the manifest's `files` lets the loader refuse both first.
//
//===----------------------------------------------------------------------===//

#include "core/ArtifactChecks.h"
#include "loom/runtime/Support.h"
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <unistd.h>

using namespace loom::rt;

namespace {
std::string hex32(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08" PRIx32, value);
  return text;
}

bool checkFile(const std::string &path, const ArtifactFile &file,
               std::string &error, loom_status &status) {
  uint64_t size = 0;
  int fd = openRegularFile(path, size, error, "open artifact file");
  if (fd < 0) {
    status = LOOM_ERROR_IO;
    return false;
  }
  status = LOOM_ERROR_FORMAT;
  if (size != file.bytes) {
    ::close(fd);
    error = "artifact file '" + path + "' is corrupt: it has " +
            std::to_string(size) + " bytes, expected " +
            std::to_string(file.bytes) +
            " (the manifest's 'files'): recompile the artifact or copy it "
            "again";
    return false;
  }
  uint32_t crc = 0;
  uint64_t got = 0;
  int err = 0;
  bool ok = crc32OfFile(fd, size, crc, got, err);
  ::close(fd);
  if (!ok) {
    error = "cannot read artifact file '" + path + "': " + errnoMessage(err);
    status = LOOM_ERROR_IO;
    return false;
  }
  if (got != file.bytes || crc != file.crc32) {
    error = "artifact file '" + path + "' is corrupt (CRC-32 " + hex32(crc) +
            ", expected " + hex32(file.crc32) +
            "): recompile the artifact or copy it again";
    return false;
  }
  return true;
}
} // namespace

bool loom::rt::checkArtifactFiles(const Manifest &manifest,
                                  const std::string &dir,
                                  const std::string *onlyPath,
                                  std::string &error, loom_status &status) {
  if (!manifest.hasFiles) {
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true))
      std::fprintf(stderr,
                   "loom: warning: artifact '%s' (format_version %lld) lists "
                   "no file checksums: its files and program are loaded "
                   "unchecked; recompile it with this loomc to have them "
                   "checked\n",
                   dir.c_str(), static_cast<long long>(manifest.formatVersion));
    return true;
  }
  for (const ArtifactFile &file : manifest.files)
    if ((!onlyPath || file.path == *onlyPath) &&
        !checkFile(joinPath(dir, file.path), file, error, status))
      return false;
  return true;
}
