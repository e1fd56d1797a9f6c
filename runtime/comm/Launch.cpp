//===- Launch.cpp - Multi-rank jobs: launcher detection, status files -----===//

#include "loom/runtime/Launch.h"
#include "loom/runtime/Json.h"
#include "loom/runtime/Support.h"
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <unistd.h>

using namespace loom::rt;

namespace {
/// The status file: none, being written, written. Lock-free, so that
/// signal handlers may use it.
enum : int { NoStatus, WritingStatus, WroteStatus };
std::atomic<int> statusState{NoStatus};
static_assert(std::atomic<int>::is_always_lock_free);

bool claimStatus() {
  int expected = NoStatus;
  return statusState.compare_exchange_strong(expected, WritingStatus);
}

/// Waits (1 s at most) while another thread writes the status: a second
/// SIGTERM in another thread must not end the process mid-write.
/// Async-signal-safe.
void awaitStatus() {
  for (int i = 0; i < 200 && statusState.load() == WritingStatus; ++i) {
    struct timespec pause = {0, 5000000};
    ::nanosleep(&pause, nullptr);
  }
}

// The prepared "terminated" status: plain buffers a signal handler can use.
char terminatedPath[4096];
char terminatedTemp[4096];
char terminatedText[256];
size_t terminatedLength = 0;

bool parsePositive(const char *text, long &value) {
  if (!text || !*text)
    return false;
  char *end = nullptr;
  value = std::strtol(text, &end, 10);
  return *end == '\0' && value > 0;
}

std::string statusPath(int rank) {
  const char *dir = std::getenv("LOOM_STATUS_DIR");
  if (!dir || !*dir)
    return std::string();
  return joinPath(dir, "rank" + std::to_string(rank) + ".json");
}
} // namespace

int loom::rt::launcherWorldSize() {
  long size = 0;
  if (parsePositive(std::getenv("OMPI_COMM_WORLD_SIZE"), size) ||
      parsePositive(std::getenv("PMI_SIZE"), size))
    return static_cast<int>(size);
  if (std::getenv("SLURM_PROCID") &&
      parsePositive(std::getenv("SLURM_NTASKS"), size))
    return static_cast<int>(size);
  if (std::getenv("PMIX_RANK"))
    return 0;
  return -1;
}

int loom::rt::launchAttempt() {
  long attempt = 0;
  return parsePositive(std::getenv("LOOM_RESTART_COUNT"), attempt)
             ? static_cast<int>(attempt)
             : 0;
}

bool loom::rt::writeRankStatus(int rank, const char *status, int code,
                               std::string_view message, bool orderly) {
  std::string path = statusPath(rank);
  if (path.empty() || !claimStatus())
    return false;
  json::Writer writer;
  writer.beginObject()
      .key("rank")
      .integer(rank)
      .key("status")
      .string(status)
      .key("code")
      .integer(code)
      .key("message")
      .string(message);
  if (orderly)
    writer.key("orderly").boolean(true);
  writer.endObject();
  std::string text = writer.take() + "\n";
  // Written aside and renamed, so a reader never sees half a file.
  std::string temp = path + ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err = 0;
  bool ok = fd >= 0 && writeAll(fd, text.data(), text.size(), err);
  ok = fd >= 0 && ::close(fd) == 0 && ok;
  ok = ok && ::rename(temp.c_str(), path.c_str()) == 0;
  statusState.store(WroteStatus);
  return ok;
}

/// Writes `text` to rank<R><suffix> in $LOOM_STATUS_DIR.
static bool writeRankFile(int rank, const char *suffix,
                          const std::string &text) {
  const char *dir = std::getenv("LOOM_STATUS_DIR");
  if (!dir || !*dir)
    return false;
  std::string path = joinPath(dir, "rank" + std::to_string(rank) + suffix);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return false;
  int err = 0;
  bool ok = writeAll(fd, text.data(), text.size(), err);
  return ::close(fd) == 0 && ok;
}

bool loom::rt::markRankStarted(int rank) {
  // The pid lets the launcher wait for a rank that mpirun left dying.
  return writeRankFile(rank, ".started", std::to_string(::getpid()) + "\n");
}

bool loom::rt::markRankStage(int rank, int64_t stage) {
  return writeRankFile(rank, ".stage", std::to_string(stage) + "\n");
}

void loom::rt::prepareTerminatedStatus(int rank) {
  std::string path = statusPath(rank);
  if (path.empty() || path.size() + 8 > sizeof(terminatedPath))
    return;
  std::string text = "{\"rank\":" + std::to_string(rank) +
                     ",\"status\":\"terminated\",\"code\":143,\"message\":"
                     "\"terminated by a signal\"}\n";
  std::memcpy(terminatedPath, path.c_str(), path.size() + 1);
  std::string temp = path + ".tmp";
  std::memcpy(terminatedTemp, temp.c_str(), temp.size() + 1);
  std::memcpy(terminatedText, text.data(), text.size());
  terminatedLength = text.size();
}

void loom::rt::writeTerminatedStatus() {
  // Only async-signal-safe calls here.
  if (terminatedLength == 0)
    return;
  if (!claimStatus())
    return awaitStatus();
  int fd =
      ::open(terminatedTemp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ssize_t written = ::write(fd, terminatedText, terminatedLength);
    ::close(fd);
    if (written == static_cast<ssize_t>(terminatedLength))
      ::rename(terminatedTemp, terminatedPath);
  }
  statusState.store(WroteStatus);
}
