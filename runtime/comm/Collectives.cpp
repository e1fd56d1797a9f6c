//===- Collectives.cpp - The loom_coll_* symbols of compiled programs -----===//
//
// Compiled programs call these with the layouts of their tensors; the
// backend moves contiguous blocks only, so the rearrangements between
// "[outer][n][chunk]" views and the backend's "[n][block]" happen here,
// with memcpy through per-thread scratch buffers (none when outer is 1).
// Around every call: the test hook LOOM_TEST_FAULT (Faults.cpp), the
// watchdog's stamp, statistics and the comm log (LOOM_COMM_LOG). The backend
// gets the running program's device stream.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Collectives.h"
#include "comm/Comm.h"
#include "comm/Faults.h"
#include "loom/runtime/Support.h"
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

using namespace loom::rt;

namespace {
const char *const kindNames[LOOM_COLLECTIVE_NUM_KINDS] = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all",
    "broadcast",  "take_shard", "send",           "recv"};

struct KindStats {
  int64_t calls = 0;
  int64_t bytes = 0;
  double seconds = 0;
};
// Runs of one process never overlap (Runtime.h), so plain counters do.
KindStats stats[LOOM_COLLECTIVE_NUM_KINDS];
/// loom_coll_* calls so far: the comm log's "seq" and the fault hook's
/// count.
int64_t sequence = 0;

//===----------------------------------------------------------------------===//
// The comm log
//===----------------------------------------------------------------------===//

FILE *logFile = nullptr;
bool logOpened = false;

/// <prefix>.rank<R>.jsonl, opened on the first call.
FILE *commLog(int rank) {
  if (logOpened)
    return logFile;
  logOpened = true;
  const char *prefix = std::getenv("LOOM_COMM_LOG");
  if (!prefix || !*prefix)
    return nullptr;
  std::string path =
      std::string(prefix) + ".rank" + std::to_string(rank) + ".jsonl";
  logFile = std::fopen(path.c_str(), "we");
  if (!logFile)
    std::fprintf(stderr,
                 "loom: rank %d: warning: cannot write the comm log "
                 "'%s': %s\n",
                 rank, path.c_str(), errnoMessage(errno).c_str());
  return logFile;
}

//===----------------------------------------------------------------------===//
// Scratch memory
//===----------------------------------------------------------------------===//

/// A per-thread buffer that only grows, so that steady-state calls do not
/// allocate.
class Scratch {
public:
  void *get(size_t bytes) {
    if (buffer.size() < bytes && !buffer.allocate(bytes))
      return nullptr;
    return buffer.data();
  }

private:
  AlignedBuffer buffer;
};
thread_local Scratch sendScratch, receiveScratch;

//===----------------------------------------------------------------------===//
// One call
//===----------------------------------------------------------------------===//

/// A group of one rank for calls outside loom_program_run.
const BoundGroup soloGroup = [] {
  BoundGroup group;
  group.axes = "?";
  group.axesJson = "[]";
  return group;
}();

class Call {
public:
  Call(int kind, int32_t groupIndex)
      : kind(kind), groupIndex(groupIndex), binding(currentBinding) {
    rank = binding ? binding->rank : 0;
    if (!binding) {
      group = &soloGroup;
    } else if (groupIndex >= 0 &&
               static_cast<size_t>(groupIndex) < binding->groups.size()) {
      group = &binding->groups[groupIndex];
    } else {
      group = &soloGroup;
      fail("group " + std::to_string(groupIndex) +
           " does not exist (the manifest lists " +
           std::to_string(binding->groups.size()) + " groups)");
    }
    message[0] = '\0';
    seq = sequence++;
    injectCollectiveFault(seq, rank);
    start = std::chrono::steady_clock::now();
  }

  int size() const { return group->size; }
  void *handle() const { return group->backend; }
  /// The running program's device stream, which the backend orders after.
  void *stream() const { return binding ? binding->stream : nullptr; }
  int index() const { return group->index; }

  [[noreturn]] void fail(const std::string &why) const {
    terminateJob(rank, 1,
                 "loom: rank " + std::to_string(rank) + ": " + kindNames[kind] +
                     " over [" + group->axes + "] failed: " + why);
  }

  /// The backend of a group of several ranks, with the watchdog watching.
  const loom_comm_backend_ops *backend() {
    loom_comm *comm = binding ? binding->comm : nullptr;
    if (!comm || !comm->ops || !group->backend)
      fail("no communicator is bound (the group has " +
           std::to_string(group->size) + " ranks)");
    comm->watchdog.begin(kindNames[kind], group);
    return comm->ops;
  }
  void check(int status, const char *message) {
    binding->comm->watchdog.end();
    if (status != LOOM_OK)
      fail(*message ? message : "the backend reported an error");
  }

  void *scratch(Scratch &buffer, size_t bytes) {
    void *data = buffer.get(bytes);
    if (!data)
      fail("out of memory for " + std::to_string(bytes) + " bytes of scratch");
    return data;
  }

  /// a * b, or a failure naming `what`.
  int64_t product(int64_t a, int64_t b, const char *what) {
    int64_t result;
    if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &result))
      fail(std::string("invalid ") + what + " (" + std::to_string(a) + " x " +
           std::to_string(b) + ")");
    return result;
  }

  void pointers(const void *src, const void *dst, int64_t bytes) {
    if (bytes > 0 && (!src || !dst))
      fail("a buffer is NULL");
  }

  /// Records the call: statistics and the comm log.
  void finish(int64_t bytes) {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    KindStats &entry = stats[kind];
    ++entry.calls;
    entry.bytes += bytes;
    entry.seconds += seconds;
    if (FILE *log = commLog(rank)) {
      std::fprintf(log,
                   "{\"seq\": %lld, \"kind\": \"%s\", \"group\": %d, "
                   "\"axes\": %s, \"bytes\": %lld, \"seconds\": %.9f}\n",
                   static_cast<long long>(seq), kindNames[kind], groupIndex,
                   group->axesJson.c_str(), static_cast<long long>(bytes),
                   seconds);
      // Per line, so that the log of a job that dies is complete.
      std::fflush(log);
    }
  }

  /// The backend's message on failure.
  char message[1024];

private:
  int kind;
  int32_t groupIndex;
  const Binding *binding;
  const BoundGroup *group = nullptr;
  int rank = 0;
  int64_t seq = 0;
  std::chrono::steady_clock::time_point start;
};

size_t elementSize(Call &call, int32_t dtype) {
  size_t size = loom_dtype_size(static_cast<loom_dtype>(dtype));
  if (size == 0)
    call.fail("unknown dtype " + std::to_string(dtype));
  return size;
}

void checkOp(Call &call, int32_t op) {
  if (op < LOOM_REDUCE_SUM || op > LOOM_REDUCE_MIN)
    call.fail("unknown reduction operator " + std::to_string(op));
}

/// [rows][n][chunk] <-> [n][rows][chunk].
void transpose(const void *src, void *dst, int64_t rows, int64_t n,
               size_t chunk, bool fromSlotsMajor) {
  auto *in = static_cast<const char *>(src);
  auto *out = static_cast<char *>(dst);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) {
      size_t slotMajor = (static_cast<size_t>(j) * rows + r) * chunk;
      size_t rowMajor = (static_cast<size_t>(r) * n + j) * chunk;
      if (fromSlotsMajor)
        std::memcpy(out + rowMajor, in + slotMajor, chunk);
      else
        std::memcpy(out + slotMajor, in + rowMajor, chunk);
    }
}

/// With one rank, or nothing to move, the output is the input: copies it
/// and returns true; false when the backend has to run.
bool copiedLocally(Call &call, const void *src, void *dst, int64_t bytes) {
  if (call.size() != 1 && bytes != 0)
    return false;
  if (bytes)
    std::memcpy(dst, src, static_cast<size_t>(bytes));
  return true;
}

/// The `bytes` of `src`, [outer][n][chunk], as the backend's [n][outer][chunk]
/// blocks: `src` itself when `outer` is 1, else a copy in the send scratch.
const void *slotsMajor(Call &call, const void *src, int64_t outer, int64_t n,
                       int64_t chunkBytes, int64_t bytes) {
  if (outer == 1)
    return src;
  void *packed = call.scratch(sendScratch, static_cast<size_t>(bytes));
  transpose(src, packed, outer, n, static_cast<size_t>(chunkBytes),
            /*fromSlotsMajor=*/false);
  return packed;
}
} // namespace

void loom::rt::openCommLog(int rank) { (void)commLog(rank); }

void loom::rt::flushCommLog() {
  if (logFile)
    std::fflush(logFile);
}

extern "C" const char *loom_collective_kind_name(int32_t kind) {
  if (kind < 0 || kind >= LOOM_COLLECTIVE_NUM_KINDS)
    return "invalid";
  return kindNames[kind];
}

extern "C" int loom_collective_stats(int32_t kind, int64_t *calls,
                                     int64_t *bytes, double *seconds) {
  if (kind < 0 || kind >= LOOM_COLLECTIVE_NUM_KINDS)
    return LOOM_ERROR_INVALID_ARGUMENT;
  if (calls)
    *calls = stats[kind].calls;
  if (bytes)
    *bytes = stats[kind].bytes;
  if (seconds)
    *seconds = stats[kind].seconds;
  return LOOM_OK;
}

extern "C" void loom_coll_all_reduce(const void *src, void *dst, int64_t count,
                                     int32_t dtype, int32_t op, int32_t group) {
  Call call(LOOM_COLLECTIVE_ALL_REDUCE, group);
  size_t element = elementSize(call, dtype);
  checkOp(call, op);
  int64_t bytes = call.product(count, static_cast<int64_t>(element), "count");
  call.pointers(src, dst, bytes);
  if (!copiedLocally(call, src, dst, bytes)) {
    const loom_comm_backend_ops *ops = call.backend();
    call.check(ops->all_reduce(call.handle(), src, dst,
                               static_cast<size_t>(count),
                               static_cast<loom_dtype>(dtype),
                               static_cast<loom_reduce_op>(op), call.stream(),
                               call.message, sizeof(call.message)),
               call.message);
  }
  call.finish(bytes);
}

extern "C" void loom_coll_all_gather(const void *src, void *dst, int64_t outer,
                                     int64_t chunkBytes, int32_t group) {
  Call call(LOOM_COLLECTIVE_ALL_GATHER, group);
  int64_t bytes = call.product(outer, chunkBytes, "outer x chunk_bytes");
  int64_t n = call.size();
  call.product(bytes, n, "gathered size");
  call.pointers(src, dst, bytes);
  if (!copiedLocally(call, src, dst, bytes)) {
    // The backend gathers whole blocks: [n][outer][chunk].
    void *gathered = outer == 1 ? dst
                                : call.scratch(receiveScratch,
                                               static_cast<size_t>(bytes * n));
    const loom_comm_backend_ops *ops = call.backend();
    call.check(ops->all_gather(call.handle(), src, gathered,
                               static_cast<size_t>(bytes), call.stream(),
                               call.message, sizeof(call.message)),
               call.message);
    if (outer != 1)
      transpose(gathered, dst, outer, n, static_cast<size_t>(chunkBytes),
                /*fromSlotsMajor=*/true);
  }
  call.finish(bytes);
}

extern "C" void loom_coll_reduce_scatter(const void *src, void *dst,
                                         int64_t outer, int64_t chunkCount,
                                         int32_t dtype, int32_t op,
                                         int32_t group) {
  Call call(LOOM_COLLECTIVE_REDUCE_SCATTER, group);
  size_t element = elementSize(call, dtype);
  checkOp(call, op);
  int64_t n = call.size();
  int64_t blockCount = call.product(outer, chunkCount, "outer x chunk_count");
  int64_t chunk =
      call.product(chunkCount, static_cast<int64_t>(element), "chunk_count");
  int64_t blockBytes =
      call.product(blockCount, static_cast<int64_t>(element), "block");
  int64_t bytes = call.product(blockBytes, n, "input size");
  call.pointers(src, dst, bytes);
  if (!copiedLocally(call, src, dst, bytes)) {
    // The backend reduces block j to rank j: [n][outer][chunk].
    const void *blocks = slotsMajor(call, src, outer, n, chunk, bytes);
    const loom_comm_backend_ops *ops = call.backend();
    call.check(ops->reduce_scatter(
                   call.handle(), blocks, dst, static_cast<size_t>(blockCount),
                   static_cast<loom_dtype>(dtype),
                   static_cast<loom_reduce_op>(op), call.stream(), call.message,
                   sizeof(call.message)),
               call.message);
  }
  call.finish(bytes);
}

extern "C" void loom_coll_all_to_all(const void *src, void *dst,
                                     int64_t splitOuter,
                                     int64_t splitChunkBytes,
                                     int64_t concatOuter,
                                     int64_t concatChunkBytes, int32_t group) {
  Call call(LOOM_COLLECTIVE_ALL_TO_ALL, group);
  int64_t n = call.size();
  int64_t block = call.product(splitOuter, splitChunkBytes,
                               "split_outer x split_chunk_bytes");
  int64_t concatBlock = call.product(concatOuter, concatChunkBytes,
                                     "concat_outer x concat_chunk_bytes");
  if (block != concatBlock)
    call.fail("the split blocks (" + std::to_string(splitOuter) + " x " +
              std::to_string(splitChunkBytes) +
              " bytes) and the concatenated blocks (" +
              std::to_string(concatOuter) + " x " +
              std::to_string(concatChunkBytes) + " bytes) differ in size");
  int64_t bytes = call.product(block, n, "input size");
  call.pointers(src, dst, bytes);
  if (!copiedLocally(call, src, dst, bytes)) {
    // The backend exchanges whole blocks: [n][block] both ways.
    const void *send =
        slotsMajor(call, src, splitOuter, n, splitChunkBytes, bytes);
    void *received =
        concatOuter == 1
            ? dst
            : call.scratch(receiveScratch, static_cast<size_t>(bytes));
    const loom_comm_backend_ops *ops = call.backend();
    call.check(ops->all_to_all(call.handle(), send, received,
                               static_cast<size_t>(block), call.stream(),
                               call.message, sizeof(call.message)),
               call.message);
    if (concatOuter != 1)
      transpose(received, dst, concatOuter, n,
                static_cast<size_t>(concatChunkBytes), /*fromSlotsMajor=*/true);
  }
  call.finish(bytes);
}

extern "C" void loom_coll_broadcast(const void *src, void *dst, int64_t bytes,
                                    int64_t root, int32_t group) {
  Call call(LOOM_COLLECTIVE_BROADCAST, group);
  if (bytes < 0)
    call.fail("invalid size " + std::to_string(bytes));
  if (root < 0 || root >= call.size())
    call.fail("root " + std::to_string(root) +
              " is not an index of the group (" + std::to_string(call.size()) +
              " ranks)");
  call.pointers(dst, dst, bytes);
  if (call.index() == root)
    call.pointers(src, dst, bytes);
  if (!copiedLocally(call, src, dst, bytes)) {
    const loom_comm_backend_ops *ops = call.backend();
    call.check(ops->broadcast(call.handle(), src, dst,
                              static_cast<size_t>(bytes),
                              static_cast<int>(root), call.stream(),
                              call.message, sizeof(call.message)),
               call.message);
  }
  call.finish(bytes);
}

extern "C" void loom_coll_take_shard(const void *src, void *dst, int64_t outer,
                                     int64_t chunkBytes, int32_t group) {
  Call call(LOOM_COLLECTIVE_TAKE_SHARD, group);
  int64_t n = call.size();
  int64_t shard = call.product(outer, chunkBytes, "outer x chunk_bytes");
  int64_t bytes = call.product(shard, n, "input size");
  call.pointers(src, dst, bytes);
  auto *in = static_cast<const char *>(src);
  auto *out = static_cast<char *>(dst);
  size_t chunk = static_cast<size_t>(chunkBytes);
  size_t slot = static_cast<size_t>(call.index());
  for (int64_t o = 0; bytes && o < outer; ++o)
    std::memcpy(out + static_cast<size_t>(o) * chunk,
                in + (static_cast<size_t>(o) * n + slot) * chunk, chunk);
  call.finish(bytes);
}

extern "C" int64_t loom_coll_axis_index(int32_t group) {
  const Binding *binding = currentBinding;
  if (!binding || group < 0 ||
      static_cast<size_t>(group) >= binding->groups.size())
    return 0;
  return binding->groups[group].index;
}

/// Checks a transfer's peer, tag and size; false when there is nothing to
/// move.
static bool checkTransfer(Call &call, const void *data, int64_t bytes,
                          int64_t peer, int64_t tag) {
  if (bytes < 0)
    call.fail("invalid size " + std::to_string(bytes));
  if (peer < 0 || peer >= call.size() || peer == call.index())
    call.fail("peer " + std::to_string(peer) + " is not another member of " +
              "the group of " + std::to_string(call.size()));
  if (tag < 0 || tag > INT32_MAX)
    call.fail("invalid tag " + std::to_string(tag));
  if (bytes > 0 && !data)
    call.fail("a buffer is NULL");
  return true;
}

/// A send (`data` read) or a receive (`data` written) through the backend.
static void transfer(int kind, void *data, int64_t bytes, int64_t peer,
                     int64_t tag, int32_t group) {
  Call call(kind, group);
  checkTransfer(call, data, bytes, peer, tag);
  const loom_comm_backend_ops *ops = call.backend();
  bool send = kind == LOOM_COLLECTIVE_SEND;
  if (send ? !ops->send : !ops->recv)
    call.fail(std::string("the ") + ops->name +
              " backend has no point-to-point transfers");
  size_t size = static_cast<size_t>(bytes);
  int peerIndex = static_cast<int>(peer), tagValue = static_cast<int>(tag);
  call.check(send
                 ? ops->send(call.handle(), data, size, peerIndex, tagValue,
                             call.stream(), call.message, sizeof(call.message))
                 : ops->recv(call.handle(), data, size, peerIndex, tagValue,
                             call.stream(), call.message, sizeof(call.message)),
             call.message);
  call.finish(bytes);
}

extern "C" void loom_coll_send(const void *src, int64_t bytes, int64_t peer,
                               int64_t tag, int32_t group) {
  transfer(LOOM_COLLECTIVE_SEND, const_cast<void *>(src), bytes, peer, tag,
           group);
}

extern "C" void loom_coll_recv(void *dst, int64_t bytes, int64_t peer,
                               int64_t tag, int32_t group) {
  transfer(LOOM_COLLECTIVE_RECV, dst, bytes, peer, tag, group);
}
