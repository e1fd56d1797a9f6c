//===- Comm.cpp - Communicators and the programs bound to them ------------===//
//
// A loom_comm is this process's place in a job: MPI (initialised here when
// nobody else did) runs its control plane (agreeing on outcomes, gathering
// outputs, bootstrapping groups), and a backend (MPI, or a plugin such as
// NCCL) runs the collectives of compiled programs. Binding a program splits
// the world into the manifest's groups and copies this rank's parameter
// blocks. A watchdog thread ends the job when a blocking call outlives the
// timeout, since a dead or hung peer would otherwise hang every rank.
//
//===----------------------------------------------------------------------===//

#include "Comm.h"
#include "../kernels/PackedGemm.h"
#include "Layout.h"
#include "Program.h"
#include "loom/runtime/Launch.h"
#include "loom/runtime/Support.h"
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <new>
#include <pthread.h>
#include <unistd.h>

using namespace loom::rt;

thread_local const Binding *loom::rt::currentBinding = nullptr;

namespace {
std::string formatSeconds(double seconds) {
  char text[64];
  std::snprintf(text, sizeof(text), "%gs", seconds);
  return text;
}

double defaultTimeout() {
  const char *text = std::getenv("LOOM_COLLECTIVE_TIMEOUT");
  if (text && *text) {
    char *end = nullptr;
    double value = std::strtod(text, &end);
    if (*end == '\0')
      return value;
    std::fprintf(stderr,
                 "loom: warning: ignoring LOOM_COLLECTIVE_TIMEOUT='%s' (not a "
                 "number of seconds)\n",
                 text);
  }
  return 600;
}
} // namespace

//===----------------------------------------------------------------------===//
// Watchdog
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Creating and freeing
//===----------------------------------------------------------------------===//

namespace {
/// Loads libloom_comm_<name>.so: beside libloom_runtime.so first (an
/// installed tree keeps them together), then the library search path.
const loom_comm_backend_ops *loadPlugin(const std::string &name,
                                        std::string &error) {
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      error = "unknown communicator backend " + quoteForMessage(name) +
              " (known: mpi, nccl, self)";
      return nullptr;
    }
  std::string file = "libloom_comm_" + name + ".so";
  std::string symbol = "loom_comm_backend_" + name;
  std::string runtimePath, beside;
  Dl_info info;
  if (::dladdr(reinterpret_cast<void *>(&loom_comm_create), &info) &&
      info.dli_fname) {
    runtimePath = info.dli_fname;
    size_t slash = runtimePath.rfind('/');
    beside = slash == std::string::npos
                 ? file
                 : joinPath(runtimePath.substr(0, slash), file);
  }
  // Plugins may call into the runtime (loom_dtype_size, ...).
  promoteRuntimeToGlobalScope();
  void *handle = nullptr;
  std::string path;
  if (!beside.empty() && ::access(beside.c_str(), F_OK) == 0) {
    path = beside;
    handle = ::dlopen(beside.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *message = ::dlerror();
      error = "cannot load the '" + name + "' communicator backend '" + beside +
              "': " + (message ? message : "unknown dlopen error");
      return nullptr;
    }
  } else {
    path = file;
    handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *message = ::dlerror();
      error = "the '" + name + "' communicator backend needs the plugin " +
              file + ", which is neither beside " +
              (runtimePath.empty() ? std::string("libloom_runtime.so")
                                   : runtimePath) +
              " nor loadable from the library search path (" +
              (message ? message : "unknown dlopen error") + ")";
      if (name == "nccl")
        error += "; build runtime/comm/nccl on a machine with CUDA and NCCL";
      return nullptr;
    }
  }
  // Plugins stay loaded: CUDA-based libraries do not survive unloading.
  void *entry = ::dlsym(handle, symbol.c_str());
  if (!entry) {
    error = "communicator backend plugin '" + path + "' does not export '" +
            symbol + "'";
    return nullptr;
  }
  const loom_comm_backend_ops *ops =
      reinterpret_cast<loom_comm_backend_entry>(entry)();
  if (!ops) {
    error = "communicator backend plugin '" + path + "' returned no backend";
    return nullptr;
  }
  if (ops->abi_version != LOOM_COMM_BACKEND_ABI_VERSION) {
    error = "communicator backend plugin '" + path +
            "' implements backend ABI " + std::to_string(ops->abi_version) +
            ", but this runtime needs " +
            std::to_string(LOOM_COMM_BACKEND_ABI_VERSION) +
            ": rebuild the plugin with this runtime";
    return nullptr;
  }
  if (!ops->group_create || !ops->group_destroy || !ops->all_reduce ||
      !ops->all_gather || !ops->reduce_scatter || !ops->all_to_all ||
      !ops->broadcast) {
    error = "communicator backend plugin '" + path +
            "' leaves some of its operations NULL";
    return nullptr;
  }
  return ops;
}

loom_comm *createFailed(loom_comm *comm, const std::string &message, char *err,
                        size_t errLen) {
  delete comm;
  copyError("loom_comm_create: " + message, err, errLen);
  return nullptr;
}
} // namespace

extern "C" loom_comm *loom_comm_create(const char *backend, char *err,
                                       size_t errLen) {
  std::string name = backend ? backend : "";
  if (name.empty()) {
    int launched = launcherWorldSize();
    name = launched > 1 || launched == 0 ? "mpi" : "self";
  }
  auto *comm = new (std::nothrow) loom_comm();
  if (!comm)
    return createFailed(nullptr, "out of memory", err, errLen);
  comm->backendName = name;
  comm->watchdog.setTimeout(defaultTimeout());
  if (name == "self")
    return comm;

  std::string error;
  if (name == "mpi") {
    comm->ops = mpiBackend();
  } else if (!(comm->ops = loadPlugin(name, error))) {
    return createFailed(comm, error, err, errLen);
  }

  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized)
    return createFailed(comm,
                        "MPI was already finalized in this process (by "
                        "freeing the communicator that initialised it); MPI "
                        "cannot start twice, so keep one communicator for "
                        "the life of the process",
                        err, errLen);
  if (!initialized) {
    int provided = 0;
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS)
      return createFailed(comm, "MPI_Init_thread failed: " + mpiErrorString(rc),
                          err, errLen);
    comm->initializedMpi = true;
  }
  comm->usesMpi = true;
  // Our own communicator: errors come back as codes (to name the rank and
  // the call), and nothing we do interferes with the host's MPI traffic.
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &comm->world);
  if (rc != MPI_SUCCESS) {
    if (comm->initializedMpi)
      MPI_Finalize();
    return createFailed(comm, "MPI_Comm_dup failed: " + mpiErrorString(rc), err,
                        errLen);
  }
  MPI_Comm_set_errhandler(comm->world, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm->world, &comm->rank);
  MPI_Comm_size(comm->world, &comm->size);
  comm->watchdog.rank = comm->rank;
  return comm;
}

extern "C" void loom_comm_free(loom_comm *comm) {
  if (!comm)
    return;
  while (!comm->boundPrograms.empty())
    unbindProgram(comm->boundPrograms.back());
  comm->watchdog.stop();
  flushCommLog();
  if (comm->usesMpi) {
    MPI_Comm_free(&comm->world);
    if (comm->initializedMpi) {
      mpiBackendShutdown();
      MPI_Finalize();
    }
  }
  delete comm;
}

extern "C" int loom_comm_rank(const loom_comm *comm) {
  return comm ? comm->rank : 0;
}

extern "C" int loom_comm_size(const loom_comm *comm) {
  return comm ? comm->size : 0;
}

extern "C" const char *loom_comm_backend(const loom_comm *comm) {
  return comm ? comm->backendName.c_str() : nullptr;
}

extern "C" void loom_comm_set_timeout(loom_comm *comm, double seconds) {
  if (comm)
    comm->watchdog.setTimeout(seconds);
}

extern "C" double loom_comm_timeout(const loom_comm *comm) {
  return comm ? comm->watchdog.timeout() : 0;
}

//===----------------------------------------------------------------------===//
// The control plane
//===----------------------------------------------------------------------===//

namespace {
/// Ends the watchdog's view of a blocking call when it goes out of scope.
class BlockingCall {
public:
  BlockingCall(loom_comm *comm, const char *what) : comm(comm) {
    comm->watchdog.begin(what, nullptr);
  }
  ~BlockingCall() { comm->watchdog.end(); }

private:
  loom_comm *comm;
};

/// MPI_Bcast in pieces whose counts fit in an int.
int broadcastBytes(MPI_Comm comm, void *buf, size_t bytes, int root) {
  constexpr size_t piece = size_t(1) << 30;
  for (size_t offset = 0; offset < bytes; offset += piece) {
    int count = static_cast<int>(std::min(piece, bytes - offset));
    int rc = MPI_Bcast(static_cast<char *>(buf) + offset, count, MPI_BYTE, root,
                       comm);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  return MPI_SUCCESS;
}

/// The broadcast lent to backends for their bootstrap.
int bootstrapBroadcast(void *ctx, void *buf, size_t bytes, int root) {
  auto *context = static_cast<MpiBootstrapContext *>(ctx);
  return broadcastBytes(context->comm, buf, bytes, root) == MPI_SUCCESS
             ? LOOM_OK
             : LOOM_ERROR_IO;
}

/// Every rank says whether its part succeeded; true when all did. On
/// failure `error` keeps this rank's own message, or names the first rank
/// that failed.
bool agree(loom_comm *comm, bool ok, std::string &error, bool &peerFailed) {
  if (!comm->usesMpi || comm->size == 1)
    return ok;
  int32_t mine = ok ? INT32_MAX : comm->rank, first = 0;
  char message[512];
  BlockingCall call(comm, "agreeing on the outcome of loom_program_bind");
  if (mpiAllReduce(comm->world, &mine, &first, 1, LOOM_DTYPE_INT32,
                   LOOM_REDUCE_MIN, message, sizeof(message)) != LOOM_OK) {
    error = std::string("cannot agree with the other ranks: ") + message;
    return false;
  }
  if (first == INT32_MAX)
    return true;
  if (ok) {
    error = "rank " + std::to_string(first) +
            " could not bind the program (see its message)";
    peerFailed = true;
  }
  return false;
}
} // namespace

extern "C" int loom_comm_all_reduce(loom_comm *comm, const void *src, void *dst,
                                    size_t count, loom_dtype dtype, int32_t op,
                                    char *err, size_t errLen) {
  if (!comm)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_comm_all_reduce: the communicator is NULL", err,
                    errLen);
  size_t elementSize = loom_dtype_size(dtype);
  if (elementSize == 0 || op < LOOM_REDUCE_SUM || op > LOOM_REDUCE_MIN)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_comm_all_reduce: invalid dtype or operator", err,
                    errLen);
  if (count && (!src || !dst))
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_comm_all_reduce: a buffer is NULL", err, errLen);
  if (count > SIZE_MAX / elementSize)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_comm_all_reduce: count too large", err, errLen);
  if (!comm->usesMpi) {
    if (count && src != dst)
      std::memmove(dst, src, count * elementSize);
    return LOOM_OK;
  }
  BlockingCall call(comm, "loom_comm_all_reduce");
  return mpiAllReduce(comm->world, src, dst, count, dtype, op, err, errLen);
}

extern "C" int loom_comm_broadcast(loom_comm *comm, void *buf, size_t bytes,
                                   int root, char *err, size_t errLen) {
  if (!comm)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_comm_broadcast: the communicator is NULL", err,
                    errLen);
  if (root < 0 || root >= comm->size || (bytes && !buf))
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_comm_broadcast: invalid root or buffer", err, errLen);
  if (!comm->usesMpi)
    return LOOM_OK;
  BlockingCall call(comm, "loom_comm_broadcast");
  int rc = broadcastBytes(comm->world, buf, bytes, root);
  return rc == MPI_SUCCESS
             ? LOOM_OK
             : failWith(LOOM_ERROR_IO,
                        "loom_comm_broadcast: MPI_Bcast failed: " +
                            mpiErrorString(rc),
                        err, errLen);
}

//===----------------------------------------------------------------------===//
// Binding
//===----------------------------------------------------------------------===//

namespace {
void destroyGroups(loom_comm *comm, std::vector<BoundGroup> &groups) {
  std::lock_guard<std::mutex> lock(comm->watchdog.groupsMutex);
  for (BoundGroup &group : groups) {
    if (group.backend)
      comm->ops->group_destroy(group.backend);
    group.backend = nullptr;
    if (group.mpi != MPI_COMM_NULL)
      MPI_Comm_free(&group.mpi);
  }
}

/// Splits the world into this rank's communicator of every group (all
/// ranks take part in every split, in manifest order).
bool splitGroups(loom_comm *comm, const Manifest &manifest,
                 std::vector<BoundGroup> &groups, std::string &error) {
  std::vector<int64_t> sizes = manifest.meshSizes();
  std::vector<int64_t> coords = layout::coordinates(sizes, comm->rank);
  bool ok = true;
  for (size_t g = 0; g < manifest.groups.size(); ++g) {
    const std::vector<int> &axes = manifest.groups[g];
    BoundGroup &group = groups[g];
    group.size = static_cast<int>(layout::sizeAlong(sizes, axes));
    group.index = static_cast<int>(layout::indexAlong(sizes, coords, axes));
    if (group.size == 1)
      continue;
    int color = static_cast<int>(layout::groupColor(sizes, axes, comm->rank));
    int rc = MPI_Comm_split(comm->world, color, group.index, &group.mpi);
    if (rc != MPI_SUCCESS) {
      if (ok)
        error = "MPI_Comm_split for group " + std::to_string(g) + " [" +
                group.axes + "] failed: " + mpiErrorString(rc);
      ok = false;
      group.mpi = MPI_COMM_NULL;
      continue;
    }
    MPI_Comm_set_errhandler(group.mpi, MPI_ERRORS_RETURN);
    int size = 0, rank = 0;
    MPI_Comm_size(group.mpi, &size);
    MPI_Comm_rank(group.mpi, &rank);
    if (size != group.size || rank != group.index) {
      if (ok)
        error = "group " + std::to_string(g) + " [" + group.axes +
                "] came out with " + std::to_string(size) + " ranks";
      ok = false;
    }
  }
  return ok;
}

bool createBackendGroups(loom_comm *comm, std::vector<BoundGroup> &groups,
                         std::string &error) {
  BlockingCall call(comm, "creating the backend's groups");
  for (size_t g = 0; g < groups.size(); ++g) {
    BoundGroup &group = groups[g];
    if (group.size == 1)
      continue;
    MpiBootstrapContext context{group.mpi};
    loom_comm_bootstrap bootstrap{group.index, group.size, bootstrapBroadcast,
                                  &context};
    char message[1024] = "";
    if (comm->ops->group_create(&bootstrap, &group.backend, message,
                                sizeof(message)) != LOOM_OK) {
      group.backend = nullptr;
      error = "the " + comm->backendName + " backend cannot create group " +
              std::to_string(g) + " [" + group.axes + "]: " + message;
      return false;
    }
  }
  return true;
}
} // namespace

void loom::rt::unbindProgram(loom_program *program) {
  loom_comm *comm = program->binding.comm;
  if (!comm)
    return;
  destroyGroups(comm, program->binding.groups);
  // Owned parameters are state (training): this rank's blocks stay.
  for (size_t i = 0;
       !program->ownsParameters && i < program->parameterBlocks.size(); ++i) {
    AlignedBuffer &block = program->parameterBlocks[i];
    if (!block.isAllocated())
      continue;
    // Kernels may keep packed copies of weights by address.
    packed::forgetRange(block.data(), block.size());
    block.reset();
    program->parameterData[i] = mappedParameter(*program, i);
  }
  program->binding = unboundBinding(program->manifest);
  auto &bound = comm->boundPrograms;
  bound.erase(std::remove(bound.begin(), bound.end(), program), bound.end());
}

extern "C" int loom_program_bind(loom_program *program, loom_comm *comm,
                                 char *err, size_t errLen) {
  if (!program || !comm)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    std::string("loom_program_bind: the ") +
                        (program ? "communicator" : "program") + " is NULL",
                    err, errLen);
  if (!program->entry)
    return failWith(
        LOOM_ERROR_UNSUPPORTED,
        "loom_program_bind: artifact '" + program->artifactDir +
            "' was loaded with LOOM_LOAD_MANIFEST_ONLY and cannot run",
        err, errLen);
  const Manifest &manifest = program->manifest;
  // The same on every rank, so every rank returns here together.
  if (!manifest.mesh.empty() && manifest.meshSize() != comm->size)
    return failWith(LOOM_ERROR_INCOMPATIBLE,
                    "the program was compiled for a mesh of " +
                        std::to_string(manifest.meshSize()) + " devices (" +
                        manifest.describeMesh() + ") but runs on " +
                        std::to_string(comm->size) +
                        (comm->size == 1 ? " rank" : " ranks"),
                    err, errLen);
  unbindProgram(program);

  Binding binding = unboundBinding(manifest);
  binding.comm = comm;
  binding.rank = comm->rank;
  std::vector<AlignedBuffer> blocks;
  std::string error;
  bool peerFailed = false;
  bool ok = makeParameterBlocks(*program, comm->rank, program->ownsParameters,
                                blocks, error);
  if (!agree(comm, ok, error, peerFailed))
    return failWith(peerFailed ? LOOM_ERROR_PEER_FAILED
                               : LOOM_ERROR_OUT_OF_MEMORY,
                    "loom_program_bind: " + error, err, errLen);
  {
    BlockingCall call(comm, "splitting the communicator into groups");
    ok = splitGroups(comm, manifest, binding.groups, error);
  }
  ok = agree(comm, ok, error, peerFailed) &&
       agree(comm, createBackendGroups(comm, binding.groups, error), error,
             peerFailed);
  if (!ok) {
    destroyGroups(comm, binding.groups);
    return failWith(peerFailed ? LOOM_ERROR_PEER_FAILED : LOOM_ERROR_IO,
                    "loom_program_bind: " + error, err, errLen);
  }

  program->binding = std::move(binding);
  for (size_t i = 0; i < blocks.size(); ++i)
    if (blocks[i].isAllocated())
      setParameterBlock(*program, i, std::move(blocks[i]));
  comm->boundPrograms.push_back(program);
  if (!manifest.mesh.empty())
    openCommLog(comm->rank);
  return LOOM_OK;
}

//===----------------------------------------------------------------------===//
// Sharded inputs and outputs
//===----------------------------------------------------------------------===//

extern "C" int loom_program_shard_input(const loom_program *program,
                                        size_t index, const void *global,
                                        void *local, char *err, size_t errLen) {
  if (!program || index >= program->manifest.inputs.size())
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_shard_input: no such program or input", err,
                    errLen);
  const TensorSpec &input = program->manifest.inputs[index];
  if (input.nbytes == 0)
    return LOOM_OK;
  if (!global || !local)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_shard_input: a buffer for input '" +
                        input.name + "' is NULL",
                    err, errLen);
  if (!input.isSharded()) {
    std::memcpy(local, global, input.nbytes);
    return LOOM_OK;
  }
  const Binding &binding = program->binding;
  if (!binding.comm)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_shard_input: input '" + input.name +
                        "' is sharded: bind the program first",
                    err, errLen);
  std::vector<int64_t> sizes = program->manifest.meshSizes();
  layout::extractBlock(
      global, local, input.globalShape, input.shape,
      layout::blockOffsets(sizes, input.sharding, input.shape, binding.rank),
      loom_dtype_size(input.dtype));
  return LOOM_OK;
}

extern "C" int loom_program_gather_output(loom_program *program, size_t index,
                                          const void *local, void *global,
                                          int root, char *err, size_t errLen) {
  if (!program || index >= program->manifest.outputs.size())
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_gather_output: no such program or output",
                    err, errLen);
  const TensorSpec &output = program->manifest.outputs[index];
  const Binding &binding = program->binding;
  loom_comm *comm = binding.comm;
  int size = comm ? comm->size : 1;
  if (root < 0 || root >= size)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_gather_output: root " + std::to_string(root) +
                        " is not a rank of the communicator",
                    err, errLen);
  bool isRoot = binding.rank == root;
  if (output.nbytes != 0 && (!local || (isRoot && !global)))
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_gather_output: a buffer for output '" +
                        output.name + "' is NULL",
                    err, errLen);
  if (!output.isSharded() || output.nbytes == 0) {
    if (isRoot && output.nbytes != 0)
      std::memcpy(global, local, output.nbytes);
    return LOOM_OK;
  }
  if (!comm)
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "loom_program_gather_output: output '" + output.name +
                        "' is sharded: bind the program first",
                    err, errLen);

  // Each block comes from one holder: ranks at coordinate 0 along the axes
  // that do not shard the output.
  std::vector<int64_t> sizes = program->manifest.meshSizes();
  size_t elementSize = loom_dtype_size(output.dtype);
  constexpr size_t piece = size_t(1) << 30;
  constexpr int tag = 0x100d;
  BlockingCall call(comm, "gathering an output");
  auto transfer = [&](void *buf, int peer, bool send) -> int {
    for (size_t offset = 0; offset < output.nbytes; offset += piece) {
      int count = static_cast<int>(std::min(piece, output.nbytes - offset));
      char *at = static_cast<char *>(buf) + offset;
      int rc = send ? MPI_Send(at, count, MPI_BYTE, peer, tag, comm->world)
                    : MPI_Recv(at, count, MPI_BYTE, peer, tag, comm->world,
                               MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS)
        return rc;
    }
    return MPI_SUCCESS;
  };
  if (!isRoot) {
    if (!layout::isCanonicalHolder(sizes, output.sharding, binding.rank))
      return LOOM_OK;
    int rc = transfer(const_cast<void *>(local), root, /*send=*/true);
    return rc == MPI_SUCCESS
               ? LOOM_OK
               : failWith(LOOM_ERROR_IO,
                          "loom_program_gather_output: sending output '" +
                              output.name + "' failed: " + mpiErrorString(rc),
                          err, errLen);
  }
  AlignedBuffer scratch;
  if (!scratch.allocate(output.nbytes))
    return failWith(LOOM_ERROR_OUT_OF_MEMORY,
                    "loom_program_gather_output: cannot allocate " +
                        std::to_string(output.nbytes) + " bytes",
                    err, errLen);
  for (int rank = 0; rank < size; ++rank) {
    if (!layout::isCanonicalHolder(sizes, output.sharding, rank))
      continue;
    const void *block = local;
    if (rank != root) {
      int rc = transfer(scratch.data(), rank, /*send=*/false);
      if (rc != MPI_SUCCESS)
        return failWith(LOOM_ERROR_IO,
                        "loom_program_gather_output: receiving output '" +
                            output.name + "' from rank " +
                            std::to_string(rank) +
                            " failed: " + mpiErrorString(rc),
                        err, errLen);
      block = scratch.data();
    }
    layout::insertBlock(
        block, global, output.globalShape, output.shape,
        layout::blockOffsets(sizes, output.sharding, output.shape, rank),
        elementSize);
  }
  return LOOM_OK;
}
