//===- CheckpointFiles.cpp - The writing side's files ---------------------===//

#include "train/CheckpointFiles.h"
#include "loom/runtime/Checkpoint.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Support.h"
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <random>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace loom::rt;
using namespace loom::rt::train;

namespace {
std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0)
    return "?";
  return name;
}

/// The step of a "step-<digits>" name, or -1.
int64_t stepOf(const std::string &name) {
  if (name.size() <= 5 || name.compare(0, 5, "step-") != 0 ||
      !std::all_of(name.begin() + 5, name.end(),
                   [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::strtoll(name.c_str() + 5, nullptr, 10);
}

std::vector<std::string> entries(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *handle = ::opendir(dir.c_str())) {
    while (struct dirent *entry = ::readdir(handle)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..")
        names.push_back(name);
    }
    ::closedir(handle);
  }
  return names;
}

bool isFile(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

/// Removes one checkpoint directory, its manifest first.
std::string removeCheckpoint(const std::string &dir) {
  std::string manifest = joinPath(dir, "manifest.json");
  if (::unlink(manifest.c_str()) == 0)
    checkpoint::syncDirectory(dir);
  else if (errno != ENOENT)
    return "cannot remove '" + manifest + "': " + errnoMessage(errno);
  for (const std::string &name : entries(dir)) {
    std::string path = joinPath(dir, name);
    if (::unlink(path.c_str()) != 0)
      return "cannot remove '" + path + "': " + errnoMessage(errno);
  }
  if (::rmdir(dir.c_str()) != 0)
    return "cannot remove '" + dir + "': " + errnoMessage(errno);
  return "";
}
} // namespace

DirectoryLock::~DirectoryLock() {
  if (fd >= 0)
    ::close(fd); // releases the lock; the file stays (unlinking it races)
}

bool DirectoryLock::acquire(const std::string &dir, std::string &error,
                            std::string &warning) {
  std::string problem;
  if (!makeDirectories(dir, problem)) {
    error = "cannot create checkpoint directory '" + dir + "': " + problem;
    return false;
  }
  std::string path = joinPath(dir, ".lock");
  fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    error = "cannot lock checkpoint directory '" + dir + "': cannot open '" +
            path + "': " + errnoMessage(errno);
    return false;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    if (err != EWOULDBLOCK) {
      warning = "cannot lock checkpoint directory '" + dir + "' (" +
                errnoMessage(err) +
                "): nothing keeps another job from writing into it";
      ::close(fd);
      fd = -1;
      return true;
    }
    ::close(fd);
    fd = -1;
    // The holder writes its name just after locking: it may not be there.
    std::string text, readError, holder = "another job";
    json::Value root;
    json::ParseError parseError;
    if (readFileToString(path, 4096, text, readError) &&
        json::parse(text, root, parseError) && root.isObject()) {
      const json::Value *pid = root.find("pid");
      const json::Value *host = root.find("host");
      if (pid && pid->isInteger() && host && host->isString())
        holder = "pid " + std::to_string(pid->getInteger()) + " on host " +
                 host->getString();
    }
    error = "checkpoint directory '" + dir + "' is in use by " + holder +
            " (it holds '" + path +
            "'): wait for that job to end, or pass another --ckpt DIR";
    return false;
  }
  json::Writer writer;
  writer.beginObject();
  writer.key("pid").integer(static_cast<int64_t>(::getpid()));
  writer.key("host").string(hostName());
  writer.endObject();
  std::string text = writer.take() + "\n";
  int err = 0;
  if (::ftruncate(fd, 0) != 0 || !writeAll(fd, text.data(), text.size(), err))
    warning = "cannot record this job in '" + path + "'";
  return true;
}

std::string train::temporaryPath(const std::string &path) {
  // Drawn once: the pid tells jobs apart on one host, the random part
  // across hosts sharing a file system.
  static const std::string suffix = [] {
    std::random_device device;
    uint64_t bits =
        (static_cast<uint64_t>(device()) << 32) ^ device() ^
        static_cast<uint64_t>(
            std::chrono::steady_clock::now().time_since_epoch().count());
    char text[64];
    std::snprintf(text, sizeof(text), "%ld-%016llx",
                  static_cast<long>(::getpid()),
                  static_cast<unsigned long long>(bits));
    return std::string(text);
  }();
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir + "." + base + "." + suffix + ".tmp";
}

std::string train::writeShard(const std::string &path,
                              const std::vector<safetensors::Tensor> &tensors,
                              const safetensors::Metadata &metadata,
                              uint64_t &size, uint32_t &crc, void (*kill)()) {
  std::string temp = temporaryPath(path);
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    return "cannot write '" + path + "': " + errnoMessage(errno);
  std::string problem;
  bool ok =
      safetensors::write(fd, path, tensors, metadata, size, crc, problem, kill);
  if (ok && ::fsync(fd) != 0) {
    problem = "cannot write '" + path + "': " + errnoMessage(errno);
    ok = false;
  }
  if (::close(fd) != 0 && ok) {
    problem = "cannot write '" + path + "': " + errnoMessage(errno);
    ok = false;
  }
  if (ok && ::rename(temp.c_str(), path.c_str()) != 0) {
    problem = "cannot move '" + temp + "' into place: " + errnoMessage(errno);
    ok = false;
  }
  if (!ok)
    ::unlink(temp.c_str());
  return problem;
}

void train::removeTemporaries(const std::string &dir) {
  for (const std::string &name : entries(dir))
    if (name[0] == '.' && name.size() > 4 &&
        name.compare(name.size() - 4, 4, ".tmp") == 0)
      ::unlink(joinPath(dir, name).c_str());
}

std::string train::pruneCheckpoints(const std::string &root, int64_t done,
                                    int64_t keep) {
  std::vector<std::pair<int64_t, std::string>> complete;
  std::vector<std::string> doomed;
  for (const std::string &name : entries(root)) {
    int64_t step = stepOf(name);
    if (step < 0 || step >= done)
      continue;
    if (isFile(joinPath(joinPath(root, name), "manifest.json")))
      complete.emplace_back(step, name);
    else
      doomed.push_back(name);
  }
  // Newest first; step-<done> itself is one of the `keep`.
  std::sort(complete.rbegin(), complete.rend());
  for (size_t i = static_cast<size_t>(std::max<int64_t>(keep - 1, 0));
       i < complete.size(); ++i)
    doomed.push_back(complete[i].second);
  std::string problems;
  for (const std::string &name : doomed)
    if (std::string error = removeCheckpoint(joinPath(root, name));
        !error.empty())
      problems += (problems.empty() ? "" : "; ") + error;
  if (!doomed.empty())
    checkpoint::syncDirectory(root);
  return problems;
}

std::string loom::rt::train::shardName(int rank) {
  char name[64];
  std::snprintf(name, sizeof(name), "rank-%05d.safetensors", rank);
  return name;
}
