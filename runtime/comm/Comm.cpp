//===- Comm.cpp - Communicators, their control plane and groups -----------===//
//
// A loom_comm is this process's place in a job: MPI (initialised here when
// nobody else did) runs its control plane (agreeing on outcomes, moving
// outputs, bootstrapping groups), and a backend (MPI, or a plugin such as
// NCCL) runs the collectives of compiled programs over groups that the
// layers above split off the world. What is bound to a communicator
// registers a release callback, so that the communicator never needs to
// know programs.
//
//===----------------------------------------------------------------------===//

#include "comm/Comm.h"
#include "loom/runtime/Launch.h"
#include "loom/runtime/Support.h"
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

using namespace loom::rt;

thread_local const Binding *loom::rt::currentBinding = nullptr;

namespace {
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
// Creating and freeing
//===----------------------------------------------------------------------===//

namespace {
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
  } else if (!(comm->ops = loadBackendPlugin(name, error))) {
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
  while (!comm->clients.empty()) {
    loom_comm::Client client = comm->clients.back();
    comm->clients.pop_back();
    client.release(client.owner);
  }
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

} // namespace

bool loom::rt::firstFailedRank(loom_comm *comm, bool ok, const char *what,
                               int &first, std::string &error) {
  first = ok ? -1 : comm->rank;
  if (!comm->usesMpi || comm->size == 1)
    return true;
  int32_t mine = ok ? INT32_MAX : comm->rank, lowest = 0;
  char message[512];
  BlockingCall call(comm, what);
  if (mpiAllReduce(comm->world, &mine, &lowest, 1, LOOM_DTYPE_INT32,
                   LOOM_REDUCE_MIN, message, sizeof(message)) != LOOM_OK) {
    error = message;
    return false;
  }
  first = lowest == INT32_MAX ? -1 : lowest;
  return true;
}

void loom::rt::addClient(loom_comm *comm, void *owner,
                         void (*release)(void *)) {
  comm->clients.push_back({owner, release});
}

void loom::rt::removeClient(loom_comm *comm, void *owner) {
  auto &clients = comm->clients;
  clients.erase(std::remove_if(clients.begin(), clients.end(),
                               [&](const loom_comm::Client &client) {
                                 return client.owner == owner;
                               }),
                clients.end());
}

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
// Groups
//===----------------------------------------------------------------------===//

void loom::rt::destroyGroups(loom_comm *comm, std::vector<BoundGroup> &groups) {
  std::lock_guard<std::mutex> lock(comm->watchdog.groupsMutex);
  for (BoundGroup &group : groups) {
    if (group.backend)
      comm->ops->group_destroy(group.backend);
    group.backend = nullptr;
    if (group.mpi != MPI_COMM_NULL)
      MPI_Comm_free(&group.mpi);
  }
}

bool loom::rt::splitGroups(loom_comm *comm, std::vector<BoundGroup> &groups,
                           const std::vector<int64_t> &colors,
                           std::string &error) {
  BlockingCall call(comm, "splitting the communicator into groups");
  bool ok = true;
  for (size_t g = 0; g < groups.size(); ++g) {
    BoundGroup &group = groups[g];
    if (group.size == 1)
      continue;
    int rc = MPI_Comm_split(comm->world, static_cast<int>(colors[g]),
                            group.index, &group.mpi);
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

bool loom::rt::createBackendGroups(loom_comm *comm,
                                   std::vector<BoundGroup> &groups,
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

//===----------------------------------------------------------------------===//
// Point to point
//===----------------------------------------------------------------------===//

namespace {
constexpr int pointToPointTag = 0x100d;

/// MPI_Send or MPI_Recv of `bytes` bytes in pieces whose counts fit in int.
bool transfer(loom_comm *comm, void *data, size_t bytes, int peer, bool send,
              std::string &error) {
  constexpr size_t piece = size_t(1) << 30;
  for (size_t offset = 0; offset < bytes; offset += piece) {
    int count = static_cast<int>(std::min(piece, bytes - offset));
    char *at = static_cast<char *>(data) + offset;
    int rc =
        send ? MPI_Send(at, count, MPI_BYTE, peer, pointToPointTag, comm->world)
             : MPI_Recv(at, count, MPI_BYTE, peer, pointToPointTag, comm->world,
                        MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      error = mpiErrorString(rc);
      return false;
    }
  }
  return true;
}
} // namespace

bool loom::rt::sendBytes(loom_comm *comm, const void *data, size_t bytes,
                         int peer, std::string &error) {
  return transfer(comm, const_cast<void *>(data), bytes, peer, /*send=*/true,
                  error);
}

bool loom::rt::receiveBytes(loom_comm *comm, void *data, size_t bytes, int peer,
                            std::string &error) {
  return transfer(comm, data, bytes, peer, /*send=*/false, error);
}
