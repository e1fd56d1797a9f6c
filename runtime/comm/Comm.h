//===- Comm.h - Communicators, groups and the MPI backend -------*- C++ -*-===//
//
// The parts of loom_comm shared by the comm layer (Comm.cpp: creation, the
// control plane, groups; Watchdog.cpp; Collectives.cpp: the loom_coll_*
// symbols; MpiBackend.cpp; BackendPlugins.cpp) and the layers above it that
// bind programs (core/Binding.cpp). The communicator knows nothing of
// programs: what is bound to it registers a release callback. Not
// installed: only the library sees MPI.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_COMM_COMM_H
#define LOOM_RUNTIME_COMM_COMM_H

#include "loom/runtime/CommBackend.h"
#include "loom/runtime/Communicator.h"
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
  /// The native stream of the device the program runs on
  /// (loom_stream_native), which backends order their work after; null on
  /// the CPU.
  void *stream = nullptr;
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
  /// What is bound to the communicator: released by loom_comm_free, so
  /// that either may be freed first.
  struct Client {
    void *owner;
    void (*release)(void *owner);
  };
  std::vector<Client> clients;
};

namespace loom::rt {

/// The built-in MPI backend.
const loom_comm_backend_ops *mpiBackend();
/// The backend of plugin libloom_comm_<name>.so (BackendPlugins.cpp), or
/// null with a message.
const loom_comm_backend_ops *loadBackendPlugin(const std::string &name,
                                               std::string &error);
/// What group creation hands the MPI backend as loom_comm_bootstrap::ctx.
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

/// Registers `owner` to be released (`release(owner)`) by loom_comm_free
/// unless removeClient() comes first.
void addClient(loom_comm *comm, void *owner, void (*release)(void *));
void removeClient(loom_comm *comm, void *owner);

/// Ends the watchdog's view of a blocking call when it goes out of scope.
class BlockingCall {
public:
  BlockingCall(loom_comm *comm, const char *what) : comm(comm) {
    comm->watchdog.begin(what, nullptr);
  }
  ~BlockingCall() { comm->watchdog.end(); }
  BlockingCall(const BlockingCall &) = delete;
  BlockingCall &operator=(const BlockingCall &) = delete;

private:
  loom_comm *comm;
};

/// Every rank says whether its part of a step succeeded (`what` names the
/// step for the watchdog). Returns -1 when all did, else the lowest rank
/// that failed; false (with `error`) when the ranks could not agree.
bool firstFailedRank(loom_comm *comm, bool ok, const char *what, int &first,
                     std::string &error);

/// Splits the world into this rank's communicator of every group of more
/// than one rank (`size`, `index` set): the ranks of one `colors` value form
/// a group, ordered by index. Every rank takes part in every split, in
/// order. Then the backend's groups over them.
bool splitGroups(loom_comm *comm, std::vector<BoundGroup> &groups,
                 const std::vector<int64_t> &colors, std::string &error);
bool createBackendGroups(loom_comm *comm, std::vector<BoundGroup> &groups,
                         std::string &error);
void destroyGroups(loom_comm *comm, std::vector<BoundGroup> &groups);

/// Point to point over the world (host memory, any size); `error` gets
/// MPI's message.
bool sendBytes(loom_comm *comm, const void *data, size_t bytes, int peer,
               std::string &error);
bool receiveBytes(loom_comm *comm, void *data, size_t bytes, int peer,
                  std::string &error);

} // namespace loom::rt

#endif // LOOM_RUNTIME_COMM_COMM_H
