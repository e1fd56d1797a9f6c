//===- Outputs.cpp - loomrun's output files -------------------------------===//
//
// Every output is first written to a hidden temporary file in the output
// directory and synced; only when all are written are they renamed into
// place, so that a failure leaves no partial set of outputs.
//
//===----------------------------------------------------------------------===//

#include "Loomrun.h"
#include "loom/runtime/Npy.h"
#include "loom/runtime/Support.h"
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace loom::rt;

namespace loomrun {

namespace {
/// `name` as a file name: characters outside [A-Za-z0-9._-] become '_', and
/// very long names are shortened to stay within file-system limits.
std::string sanitizeFileName(const std::string &name) {
  std::string result;
  for (char c : name) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    result += safe ? c : '_';
  }
  if (result.size() > 200)
    result.resize(200);
  return result;
}

} // namespace

/// The file name of every output: the sanitized name plus ".npy", with
/// "_<index>" appended to the names that collide with an earlier one.
std::vector<std::string> outputFileNames(const loom_program *program) {
  std::vector<std::string> names;
  size_t count = loom_program_num_outputs(program);
  for (size_t i = 0; i < count; ++i) {
    std::string base = sanitizeFileName(loom_program_output(program, i)->name);
    std::string candidate = base + ".npy";
    for (int attempt = 0;
         std::find(names.begin(), names.end(), candidate) != names.end();
         ++attempt)
      candidate = base + "_" + std::to_string(i) +
                  (attempt ? "_" + std::to_string(attempt) : "") + ".npy";
    names.push_back(candidate);
  }
  return names;
}

/// Creates the output directory and checks that files can be created in it,
/// before any time is spent running. Returns "" or the message.
std::string prepareOutputDir(const std::string &dir) {
  std::string message;
  if (!makeDirectories(dir, message)) {
    // makeDirectories names the component that failed; the user named dir.
    size_t reason = message.rfind(": ");
    return "cannot create output directory '" + dir + "': " +
           (reason == std::string::npos ? message : message.substr(reason + 2));
  }
  std::string probe = joinPath(dir, ".loomrun-probe-XXXXXX");
  int fd = ::mkostemp(probe.data(), O_CLOEXEC);
  if (fd < 0)
    return "cannot write to output directory '" + dir +
           "': " + errnoMessage(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

namespace {
struct PendingFile {
  std::string tempPath;
  std::string finalPath;
};

void removeTemporaries(const std::vector<PendingFile> &files, size_t from) {
  for (size_t i = from; i < files.size(); ++i)
    ::unlink(files[i].tempPath.c_str());
}

} // namespace

/// Writes every output (whole tensors) to a temporary file in `dir`, syncs
/// them, then renames them all into place. Returns "" or the message.
std::string writeOutputs(const loom_program *program, const std::string &dir,
                         const std::vector<std::string> &fileNames,
                         const std::vector<const void *> &outputs) {
  mode_t mask = ::umask(0);
  ::umask(mask);
  std::vector<PendingFile> files;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const loom_tensor_info *info = loom_program_output(program, i);
    PendingFile file;
    file.finalPath = joinPath(dir, fileNames[i]);
    // Hidden, so that an interrupted run leaves nothing that looks like an
    // output.
    file.tempPath = joinPath(dir, "." + fileNames[i] + ".tmp-XXXXXX");
    int fd = ::mkostemp(file.tempPath.data(), O_CLOEXEC);
    if (fd < 0) {
      int err = errno;
      removeTemporaries(files, 0);
      return "cannot write '" + file.finalPath + "': " + errnoMessage(err);
    }
    files.push_back(file);
    std::string message;
    bool ok = true;
    if (::fchmod(fd, 0666 & ~mask) != 0) {
      message = "cannot write '" + file.finalPath + "': " + errnoMessage(errno);
      ok = false;
    }
    ok = ok && writeNpy(fd, file.finalPath, info->dtype, info->global_shape,
                        static_cast<size_t>(info->rank), outputs[i], message);
    if (ok && ::fsync(fd) != 0) {
      message = "cannot write '" + file.finalPath + "': " + errnoMessage(errno);
      ok = false;
    }
    if (::close(fd) != 0 && ok) {
      message = "cannot write '" + file.finalPath + "': " + errnoMessage(errno);
      ok = false;
    }
    if (!ok) {
      removeTemporaries(files, 0);
      return message;
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (::rename(files[i].tempPath.c_str(), files[i].finalPath.c_str()) != 0) {
      int err = errno;
      removeTemporaries(files, i);
      return "cannot move the new '" + files[i].finalPath +
             "' into place: " + errnoMessage(err) +
             (i ? " (" + std::to_string(i) +
                      " earlier outputs were already replaced)"
                : "");
    }
  }
  // Make the renames themselves durable.
  int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    ::fsync(dirFd);
    ::close(dirFd);
  }
  for (size_t i = 0; i < files.size(); ++i)
    std::printf("%s: %s -> %s\n", loom_program_output(program, i)->name,
                globalType(*loom_program_output(program, i)).c_str(),
                files[i].finalPath.c_str());
  return "";
}

} // namespace loomrun
