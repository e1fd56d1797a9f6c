//===- Watchdog.cpp - Ending collectives that run too long ----------------===//
//
// A dead or hung peer would otherwise hang every rank: one thread per
// communicator checks a few times per second whether the blocking call in
// progress has outlived the timeout, and ends the job if so.
//
//===----------------------------------------------------------------------===//

#include "comm/Comm.h"
#include "loom/runtime/Launch.h"
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

using namespace loom::rt;

namespace {
std::string formatSeconds(double seconds) {
  char text[64];
  std::snprintf(text, sizeof(text), "%gs", seconds);
  return text;
}
} // namespace

void Watchdog::setTimeout(double seconds) {
  timeoutNs.store(seconds > 0 ? static_cast<int64_t>(seconds * 1e9) : 0);
}

double Watchdog::timeout() const {
  return static_cast<double>(timeoutNs.load()) / 1e9;
}

void Watchdog::start() {
  std::lock_guard<std::mutex> lock(mutex);
  if (started.load())
    return;
  // std::thread reports failure by throwing; pthread_create returns it.
  pthread_t handle;
  auto body = [](void *self) -> void * {
    static_cast<Watchdog *>(self)->run();
    return nullptr;
  };
  if (pthread_create(&handle, nullptr, body, this) != 0) {
    std::fprintf(stderr,
                 "loom: rank %d: warning: cannot start the collective "
                 "watchdog; collectives will not time out\n",
                 rank);
  } else {
    thread = handle;
    hasThread = true;
  }
  started.store(true);
}

void Watchdog::run() {
  std::unique_lock<std::mutex> lock(mutex);
  while (!stopping) {
    // A few checks per second: cheap, and precise enough for timeouts of
    // seconds.
    wake.wait_for(lock, std::chrono::milliseconds(200));
    int64_t limit = timeoutNs.load();
    int64_t since = startedNs.load(std::memory_order_acquire);
    if (stopping || limit <= 0 || since == 0 || now() - since <= limit)
      continue;
    std::string what;
    {
      std::lock_guard<std::mutex> groups(groupsMutex);
      if (startedNs.load(std::memory_order_acquire) != since)
        continue; // it completed meanwhile
      const char *activity = this->activity.load();
      const BoundGroup *group = activeGroup.load();
      what = activity ? activity : "a collective";
      if (group)
        what += " over [" + group->axes + "]";
    }
    terminateJob(rank, 1,
                 "loom: rank " + std::to_string(rank) + ": " + what +
                     " did not complete within " +
                     formatSeconds(static_cast<double>(limit) / 1e9) +
                     " (a peer may have died or hung); aborting");
  }
}

void Watchdog::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  if (hasThread) {
    pthread_join(thread, nullptr);
    hasThread = false;
  }
}

[[noreturn]] void loom::rt::terminateJob(int rank, int code,
                                         const std::string &message) {
  // A timeout and a failing collective may race; one report is enough.
  static std::atomic<bool> terminating{false};
  if (terminating.exchange(true))
    for (;;)
      ::pause();
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  flushCommLog();
  writeRankStatus(rank, "error", code, message);
  // Under loomrun's launcher, mpirun ends the job when a rank exits
  // non-zero, gently (SIGTERM first), so that every rank can report how it
  // ended. Elsewhere MPI_Abort is the one way that works under every
  // launcher, but it may SIGKILL the other ranks at once.
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized && !std::getenv("LOOM_STATUS_DIR"))
    MPI_Abort(MPI_COMM_WORLD, code);
  ::_exit(code);
}
