//===- Comm.h - Communicators, bindings and the MPI backend -----*- C++ -*-===//
//
// The parts of loom_comm shared by Comm.cpp (creation, binding, the
// watchdog, the control plane), Collectives.cpp (the loom_coll_* symbols),
// MpiBackend.cpp and Program.cpp. Not installed: only the library sees MPI.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_LIB_COMM_H
#define LOOM_RUNTIME_LIB_COMM_H

#include "loom/runtime/CommBackend.h"
#include "loom/runtime/Runtime.h"
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mpi.h>
#include <mutex>
#include <pthread.h>
#include <string>
#include <vector>

namespace loom::rt {

/// One manifest group as this rank sees it.
struct BoundGroup {
  int size = 1;
  /// This rank's index within the group.
  int index = 0;
  /// "dp, tp" (messages) and ["dp","tp"] (the comm log).
  std::string axes;
  std::string axesJson;
  /// The group's MPI communicator (MPI_COMM_NULL for one rank); the
  /// bootstrap of every backend runs over it.
  MPI_Comm mpi = MPI_COMM_NULL;
  /// The backend's group (null for one rank).
  void *backend = nullptr;
};

/// What the collectives of a running program act on.
struct Binding {
  /// Null while the program is not bound (its mesh then has one device).
  loom_comm *comm = nullptr;
  int rank = 0;
  std::vector<BoundGroup> groups;
};

/// The binding of the program running on this thread (loom_program_run).
extern thread_local const Binding *currentBinding;

/// Makes `binding` current for the lifetime of the object.
class CurrentBindingScope {
public:
  explicit CurrentBindingScope(const Binding *binding)
      : previous(currentBinding) {
    currentBinding = binding;
  }
  ~CurrentBindingScope() { currentBinding = previous; }
  CurrentBindingScope(const CurrentBindingScope &) = delete;
  CurrentBindingScope &operator=(const CurrentBindingScope &) = delete;

private:
  const Binding *previous;
};

/// Ends a collective that ran too long. One per communicator; the thread
/// starts with the first collective. Collectives only store two atomics.
class Watchdog {
public:
  /// Marks the start of a blocking call: `what` is a collective kind name
  /// (with `group`) or a description such as "binding the program".
  void begin(const char *what, const BoundGroup *group) {
    if (!started.load(std::memory_order_relaxed))
      start();
    activity.store(what, std::memory_order_relaxed);
    activeGroup.store(group, std::memory_order_relaxed);
    startedNs.store(now(), std::memory_order_release);
  }
  void end() { startedNs.store(0, std::memory_order_release); }

  void setTimeout(double seconds);
  double timeout() const;
  void stop();

  /// Held while groups are destroyed, and by the watchdog while it reads
  /// the group of a call that ran too long.
  std::mutex groupsMutex;
  /// The communicator's rank (for messages).
  int rank = 0;

private:
  static int64_t now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void start();
  void run();

  std::atomic<int64_t> startedNs{0};
  std::atomic<const char *> activity{nullptr};
  std::atomic<const BoundGroup *> activeGroup{nullptr};
  std::atomic<int64_t> timeoutNs{0};
  std::atomic<bool> started{false};
  pthread_t thread{};
  bool hasThread = false;
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
};

} // namespace loom::rt

struct loom_comm {
  std::string backendName;
  /// Null for "self".
  const loom_comm_backend_ops *ops = nullptr;
  int rank = 0;
  int size = 1;
  /// MPI runs the control plane (and the bootstrap of backends) for every
  /// backend but "self".
  bool usesMpi = false;
  bool initializedMpi = false;
  MPI_Comm world = MPI_COMM_NULL;
  loom::rt::Watchdog watchdog;
  std::vector<loom_program *> boundPrograms;
};

namespace loom::rt {

/// The built-in MPI backend.
const loom_comm_backend_ops *mpiBackend();
/// What the core hands the MPI backend as loom_comm_bootstrap::ctx.
struct MpiBootstrapContext {
  MPI_Comm comm;
};
/// Element-wise reduction over `comm` (host memory; src == dst allowed).
int mpiAllReduce(MPI_Comm comm, const void *src, void *dst, size_t count,
                 loom_dtype dtype, int op, char *err, size_t errLen);
/// Frees what the backend created in MPI (before MPI_Finalize).
void mpiBackendShutdown();
/// MPI_Error_string of `code`.
std::string mpiErrorString(int code);

/// Prints `message` on stderr, records the rank's failure status, and ends
/// the job: MPI_Abort when MPI is up, else _exit. For failures that cannot
/// be returned (a collective inside a compiled program, a timeout).
[[noreturn]] void terminateJob(int rank, int code, const std::string &message);

/// Flushes the comm log (Collectives.cpp), e.g. before the job ends.
void flushCommLog();

/// Creates this rank's comm log (when LOOM_COMM_LOG asks for one) at bind
/// time, so that a program that makes no collective call leaves an empty
/// log rather than none.
void openCommLog(int rank);

/// The LOOM_TEST_FAULT hooks of training runs (Collectives.cpp): whether
/// rank `rank` makes its loss scale NaN at step `step` (0-based), and
/// whether it SIGKILLs itself while writing its shard of the
/// `checkpoint`-th (0-based) checkpoint of this process.
bool faultNanAtStep(int rank, int64_t step);
bool faultKillInCheckpoint(int rank, int64_t checkpoint);

/// Program.cpp: drops `program`'s binding (its groups and parameter
/// blocks); called by loom_comm_free for programs still bound.
void unbindProgram(loom_program *program);

} // namespace loom::rt

#endif // LOOM_RUNTIME_LIB_COMM_H
