//===- FakeNccl.cpp - Host stand-ins for libnccl --------------------------===//
//
// A communicator is a clique of threads of this process. The collectives
// check that every buffer NCCL is given is device (or managed) memory of the
// communicator's device (FakeCuda.cpp records what it handed out) and that
// its ranks use distinct devices, then compute their results on the host.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"

#include <nccl.h>

#include <climits>
#include <condition_variable>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

using fake::Allocation;
using fake::find;

namespace {

thread_local std::string lastNcclError;

ncclResult_t ncclFail(ncclResult_t result, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
ncclResult_t ncclFail(ncclResult_t result, const char *fmt, ...) {
  char buffer[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(buffer, sizeof(buffer), fmt, args);
  va_end(args);
  lastNcclError = std::string("fake NCCL: ") + buffer;
  return result;
}

/// A posted buffer of one rank for one step of a collective.
struct Post {
  bool failed = false;
  const void *send = nullptr;
  std::vector<std::pair<int, std::pair<const void *, size_t>>> sends;
};

struct Clique {
  int size;
  int joined = 0;
  int alive = 0;
  std::vector<int> devices;
  std::mutex mutex;
  std::condition_variable changed;
  int arrived = 0;
  unsigned long generation = 0;
  std::vector<Post> posts;

  void barrier() {
    std::unique_lock<std::mutex> lock(mutex);
    unsigned long current = generation;
    if (++arrived == size) {
      arrived = 0;
      ++generation;
      changed.notify_all();
      return;
    }
    changed.wait(lock, [&] { return generation != current; });
  }
};

std::mutex cliquesMutex;
std::map<std::string, Clique *> cliques;
unsigned long nextId = 1;

} // namespace

struct ncclComm {
  Clique *clique;
  int rank;
  int device;
};

namespace {

ncclResult_t checkDeviceBuffer(ncclComm_t comm, const void *ptr, size_t bytes,
                               const char *what) {
  if (bytes == 0)
    return ncclSuccess;
  Allocation allocation;
  if (!find(ptr, bytes, allocation) ||
      (allocation.type != cudaMemoryTypeDevice &&
       allocation.type != cudaMemoryTypeManaged))
    return ncclFail(ncclInvalidArgument,
                    "%s %p (%zu bytes) is not device memory", what, ptr, bytes);
  if (allocation.type == cudaMemoryTypeDevice &&
      allocation.device != comm->device)
    return ncclFail(ncclInvalidArgument,
                    "%s %p is memory of device %d, the communicator's is %d",
                    what, ptr, allocation.device, comm->device);
  return ncclSuccess;
}

/// NCCL allows its input and output to overlap only in its in-place form:
/// the output at `inPlaceOffset` bytes into the input, or the input that
/// far into the output when the offset is negative.
ncclResult_t checkOverlap(const void *send, size_t sendBytes, const void *recv,
                          size_t recvBytes, long inPlaceOffset,
                          const char *call) {
  uintptr_t s = reinterpret_cast<uintptr_t>(send);
  uintptr_t r = reinterpret_cast<uintptr_t>(recv);
  if (!sendBytes || !recvBytes || s >= r + recvBytes || r >= s + sendBytes)
    return ncclSuccess;
  if (inPlaceOffset >= 0 ? r == s + size_t(inPlaceOffset)
                         : s == r + size_t(-inPlaceOffset))
    return ncclSuccess;
  return ncclFail(ncclInvalidArgument,
                  "%s: sendbuff %p and recvbuff %p overlap, not in place", call,
                  send, recv);
}

size_t typeSize(ncclDataType_t type) {
  switch (type) {
  case ncclInt8:
  case ncclUint8:
  case ncclFloat8e4m3:
  case ncclFloat8e5m2:
    return 1;
  case ncclFloat16:
  case ncclBfloat16:
    return 2;
  case ncclInt32:
  case ncclUint32:
  case ncclFloat32:
    return 4;
  default:
    return 8;
  }
}

float halfToFloat(uint16_t half) {
  uint32_t sign = uint32_t(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1f, mantissa = half & 0x3ffu;
  float value;
  if (exponent == 0) {
    value = float(mantissa) / 16777216.0f; // 2^-24
    uint32_t bits;
    memcpy(&bits, &value, 4);
    bits |= sign;
    memcpy(&value, &bits, 4);
    return value;
  }
  uint32_t bits = exponent == 0x1f
                      ? sign | 0x7f800000u | (mantissa << 13)
                      : sign | ((exponent + 112) << 23) | (mantissa << 13);
  memcpy(&value, &bits, 4);
  return value;
}

uint16_t floatToHalf(float value) {
  // Through double rounding-free steps: good enough for the small values
  // of the tests, which are exact in half precision.
  uint32_t bits;
  memcpy(&bits, &value, 4);
  uint32_t sign = (bits >> 16) & 0x8000u;
  int exponent = int((bits >> 23) & 0xff) - 112;
  uint32_t mantissa = bits & 0x7fffffu;
  if (((bits >> 23) & 0xff) == 0)
    return uint16_t(sign);
  if (exponent >= 31)
    return uint16_t(sign | 0x7c00u);
  if (exponent <= 0) {
    uint32_t shift = uint32_t(14 - exponent);
    if (shift > 24)
      return uint16_t(sign);
    uint32_t m = (mantissa | 0x800000u), half = m >> shift;
    uint32_t rest = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1)))
      ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = sign | (uint32_t(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
    ++half;
  return uint16_t(half);
}

double loadElement(const void *p, size_t i, ncclDataType_t type) {
  switch (type) {
  case ncclInt8:
    return static_cast<const int8_t *>(p)[i];
  case ncclUint8:
    return static_cast<const uint8_t *>(p)[i];
  case ncclInt32:
    return static_cast<const int32_t *>(p)[i];
  case ncclUint32:
    return static_cast<const uint32_t *>(p)[i];
  case ncclInt64:
    return double(static_cast<const int64_t *>(p)[i]);
  case ncclUint64:
    return double(static_cast<const uint64_t *>(p)[i]);
  case ncclFloat16:
    return halfToFloat(static_cast<const uint16_t *>(p)[i]);
  case ncclBfloat16: {
    uint32_t bits = uint32_t(static_cast<const uint16_t *>(p)[i]) << 16;
    float value;
    memcpy(&value, &bits, 4);
    return value;
  }
  case ncclFloat32:
    return static_cast<const float *>(p)[i];
  default:
    return static_cast<const double *>(p)[i];
  }
}

void storeElement(void *p, size_t i, ncclDataType_t type, double v) {
  switch (type) {
  case ncclInt8:
    static_cast<int8_t *>(p)[i] = int8_t(v);
    return;
  case ncclUint8:
    static_cast<uint8_t *>(p)[i] = uint8_t(v);
    return;
  case ncclInt32:
    static_cast<int32_t *>(p)[i] = int32_t(v);
    return;
  case ncclUint32:
    static_cast<uint32_t *>(p)[i] = uint32_t(v);
    return;
  case ncclInt64:
    static_cast<int64_t *>(p)[i] = int64_t(v);
    return;
  case ncclUint64:
    static_cast<uint64_t *>(p)[i] = uint64_t(v);
    return;
  case ncclFloat16:
    static_cast<uint16_t *>(p)[i] = floatToHalf(float(v));
    return;
  case ncclBfloat16: {
    float value = float(v);
    uint32_t bits;
    memcpy(&bits, &value, 4);
    static_cast<uint16_t *>(p)[i] = uint16_t(bits >> 16);
    return;
  }
  case ncclFloat32:
    static_cast<float *>(p)[i] = float(v);
    return;
  default:
    static_cast<double *>(p)[i] = v;
    return;
  }
}

bool isInteger(ncclDataType_t type) {
  return type == ncclInt8 || type == ncclUint8 || type == ncclInt32 ||
         type == ncclUint32 || type == ncclInt64 || type == ncclUint64;
}

/// Element `i` of op over the ranks' posted send buffers.
double reduceAt(Clique &clique, size_t i, ncclDataType_t type, ncclRedOp_t op) {
  double acc = loadElement(clique.posts[0].send, i, type);
  for (int r = 1; r < clique.size; ++r) {
    double v = loadElement(clique.posts[size_t(r)].send, i, type);
    if (op == ncclMax)
      acc = v > acc ? v : acc;
    else if (op == ncclMin)
      acc = v < acc ? v : acc;
    else if (op == ncclProd)
      acc *= v;
    else
      acc += v;
  }
  if (op == ncclAvg) {
    acc /= clique.size;
    if (isInteger(type))
      acc = double(int64_t(acc));
  }
  return acc;
}

ncclResult_t checkCall(ncclComm_t comm, ncclDataType_t type, ncclRedOp_t op) {
  if (!comm)
    return ncclFail(ncclInvalidArgument, "NULL communicator");
  if (int(type) < 0 || type >= ncclNumTypes || type == ncclFloat8e4m3 ||
      type == ncclFloat8e5m2)
    return ncclFail(ncclInvalidArgument, "data type %d", int(type));
  if (int(op) < 0 || op >= ncclNumOps)
    return ncclFail(ncclInvalidArgument, "reduction %d", int(op));
  return ncclSuccess;
}

/// Every rank of a collective posts its input and whether its checks
/// passed; the collective goes ahead only when all did, so that a check
/// failing on one rank fails the call everywhere instead of hanging.
ncclResult_t join(ncclComm_t comm, ncclResult_t checked, const void *send) {
  Clique &clique = *comm->clique;
  Post &mine = clique.posts[size_t(comm->rank)];
  mine.failed = checked != ncclSuccess;
  mine.send = send;
  clique.barrier();
  int failedRank = -1;
  for (int r = 0; r < clique.size; ++r)
    if (clique.posts[size_t(r)].failed && r != comm->rank)
      failedRank = r;
  if (checked == ncclSuccess && failedRank < 0)
    return ncclSuccess;
  // The second barrier of the collective, which will not run.
  clique.barrier();
  if (checked != ncclSuccess)
    return checked;
  return ncclFail(ncclRemoteError, "the call failed on rank %d", failedRank);
}

// Grouped point-to-point operations of this thread; a failed one is kept,
// marked, so that the group fails on every rank.
struct PointToPoint {
  ncclComm_t comm;
  bool isSend;
  int peer;
  void *buffer;
  size_t bytes;
  ncclResult_t failed;
};
thread_local int groupDepth = 0;
thread_local std::vector<PointToPoint> pending;

ncclResult_t runPointToPoint() {
  std::vector<PointToPoint> ops;
  ops.swap(pending);
  if (ops.empty())
    return ncclSuccess;
  ncclComm_t comm = ops[0].comm;
  Clique &clique = *comm->clique;
  ncclResult_t checked = ncclSuccess;
  std::vector<std::pair<int, std::pair<const void *, size_t>>> sends;
  for (const PointToPoint &op : ops) {
    if (!checked && op.failed)
      checked = op.failed;
    if (!checked && op.comm != comm)
      checked = ncclFail(ncclInvalidUsage, "one group over two communicators");
    if (op.isSend)
      sends.push_back({op.peer, {op.buffer, op.bytes}});
    // A receive may not write what a send of the group reads.
    for (const PointToPoint &other : ops)
      if (!checked && op.isSend && !other.isSend)
        checked = checkOverlap(op.buffer, op.bytes, other.buffer, other.bytes,
                               LONG_MAX, "ncclSend/ncclRecv");
  }
  clique.posts[size_t(comm->rank)].sends.swap(sends);
  if (ncclResult_t r = join(comm, checked, nullptr))
    return r;
  // Each receive takes the next send from its peer to this rank.
  std::vector<std::vector<unsigned char>> received;
  std::map<int, size_t> taken;
  ncclResult_t result = ncclSuccess;
  for (const PointToPoint &op : ops) {
    if (op.isSend)
      continue;
    const auto &peerSends = clique.posts[size_t(op.peer)].sends;
    size_t seen = 0, &skip = taken[op.peer];
    const std::pair<const void *, size_t> *match = nullptr;
    for (const auto &send : peerSends)
      if (send.first == comm->rank && seen++ == skip) {
        match = &send.second;
        break;
      }
    ++skip;
    received.emplace_back();
    if (!match || match->second != op.bytes) {
      result = ncclFail(ncclInvalidUsage,
                        "rank %d receives %zu bytes from %d, which sends %s",
                        comm->rank, op.bytes, op.peer,
                        match ? "another size" : "nothing");
      continue;
    }
    const unsigned char *from =
        static_cast<const unsigned char *>(match->first);
    received.back().assign(from, from + op.bytes);
  }
  clique.barrier();
  size_t k = 0;
  for (const PointToPoint &op : ops)
    if (!op.isSend) {
      if (received[k].size() == op.bytes)
        memcpy(op.buffer, received[k].data(), op.bytes);
      ++k;
    }
  return result;
}

} // namespace

//===----------------------------------------------------------------------===//
// NCCL
//===----------------------------------------------------------------------===//

ncclResult_t ncclGetVersion(int *version) {
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t result) {
  switch (result) {
  case ncclSuccess:
    return "no error";
  case ncclInvalidArgument:
    return "invalid argument (run with NCCL_DEBUG=WARN for details)";
  case ncclInvalidUsage:
    return "invalid usage (run with NCCL_DEBUG=WARN for details)";
  case ncclRemoteError:
    return "remote process exited or there was a network error";
  default:
    return "unknown result code";
  }
}

const char *ncclGetLastError(ncclComm_t) { return lastNcclError.c_str(); }

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  memset(id, 0, sizeof(*id));
  std::lock_guard<std::mutex> lock(cliquesMutex);
  snprintf(id->internal, sizeof(id->internal), "fake-%lu", nextId++);
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id,
                              int rank) {
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return ncclFail(ncclInvalidArgument, "rank %d of %d", rank, nranks);
  std::string key(id.internal, strnlen(id.internal, sizeof(id.internal)));
  if (key.rfind("fake-", 0) != 0)
    return ncclFail(ncclInvalidArgument, "not a unique id of this library");
  Clique *clique;
  {
    std::lock_guard<std::mutex> lock(cliquesMutex);
    Clique *&slot = cliques[key];
    if (!slot) {
      slot = new Clique;
      slot->size = nranks;
      slot->devices.assign(size_t(nranks), -1);
      slot->posts.resize(size_t(nranks));
    }
    clique = slot;
    if (clique->size != nranks || clique->devices[size_t(rank)] != -1)
      return ncclFail(ncclInvalidUsage, "rank %d joins twice or sizes differ",
                      rank);
    clique->devices[size_t(rank)] = fake::currentDevice();
    ++clique->joined;
    ++clique->alive;
  }
  clique->barrier();
  for (int r = 0; r < nranks; ++r)
    if (r != rank && clique->devices[size_t(r)] == fake::currentDevice())
      return ncclFail(ncclInvalidUsage,
                      "Duplicate GPU detected: ranks %d and %d on device %d",
                      rank, r, fake::currentDevice());
  *comm = new ncclComm{clique, rank, fake::currentDevice()};
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm)
    return ncclSuccess;
  Clique *clique = comm->clique;
  delete comm;
  std::lock_guard<std::mutex> lock(cliquesMutex);
  if (--clique->alive == 0) {
    for (auto it = cliques.begin(); it != cliques.end(); ++it)
      if (it->second == clique) {
        cliques.erase(it);
        break;
      }
    delete clique;
  }
  return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count,
                           ncclDataType_t type, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream) {
  // The work queued before it on its stream comes first.
  fake::runPending(stream);
  if (ncclResult_t r = checkCall(comm, type, op))
    return r;
  Clique &clique = *comm->clique;
  size_t bytes = count * typeSize(type);
  ncclResult_t checked = checkDeviceBuffer(comm, send, bytes, "sendbuff");
  if (!checked)
    checked = checkDeviceBuffer(comm, recv, bytes, "recvbuff");
  if (!checked)
    checked = checkOverlap(send, bytes, recv, bytes, 0, "ncclAllReduce");
  if (ncclResult_t r = join(comm, checked, send))
    return r;
  std::vector<unsigned char> result(bytes);
  for (size_t i = 0; i < count; ++i)
    storeElement(result.data(), i, type, reduceAt(clique, i, type, op));
  clique.barrier();
  memcpy(recv, result.data(), bytes);
  return ncclSuccess;
}

ncclResult_t ncclReduceScatter(const void *send, void *recv, size_t count,
                               ncclDataType_t type, ncclRedOp_t op,
                               ncclComm_t comm, cudaStream_t stream) {
  // The work queued before it on its stream comes first.
  fake::runPending(stream);
  if (ncclResult_t r = checkCall(comm, type, op))
    return r;
  Clique &clique = *comm->clique;
  size_t bytes = count * typeSize(type);
  size_t total = bytes * size_t(clique.size);
  ncclResult_t checked = checkDeviceBuffer(comm, send, total, "sendbuff");
  if (!checked)
    checked = checkDeviceBuffer(comm, recv, bytes, "recvbuff");
  if (!checked)
    checked =
        checkOverlap(send, total, recv, bytes, long(size_t(comm->rank) * bytes),
                     "ncclReduceScatter");
  if (ncclResult_t r = join(comm, checked, send))
    return r;
  std::vector<unsigned char> result(bytes);
  size_t base = size_t(comm->rank) * count;
  for (size_t i = 0; i < count; ++i)
    storeElement(result.data(), i, type, reduceAt(clique, base + i, type, op));
  clique.barrier();
  memcpy(recv, result.data(), bytes);
  return ncclSuccess;
}

ncclResult_t ncclAllGather(const void *send, void *recv, size_t count,
                           ncclDataType_t type, ncclComm_t comm,
                           cudaStream_t stream) {
  // The work queued before it on its stream comes first.
  fake::runPending(stream);
  if (ncclResult_t r = checkCall(comm, type, ncclSum))
    return r;
  Clique &clique = *comm->clique;
  size_t bytes = count * typeSize(type);
  size_t total = bytes * size_t(clique.size);
  ncclResult_t checked = checkDeviceBuffer(comm, send, bytes, "sendbuff");
  if (!checked)
    checked = checkDeviceBuffer(comm, recv, total, "recvbuff");
  if (!checked)
    checked = checkOverlap(send, bytes, recv, total,
                           -long(size_t(comm->rank) * bytes), "ncclAllGather");
  if (ncclResult_t r = join(comm, checked, send))
    return r;
  std::vector<unsigned char> result(total);
  for (int r = 0; r < clique.size; ++r)
    memcpy(result.data() + size_t(r) * bytes, clique.posts[size_t(r)].send,
           bytes);
  clique.barrier();
  memcpy(recv, result.data(), total);
  return ncclSuccess;
}

ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count,
                           ncclDataType_t type, int root, ncclComm_t comm,
                           cudaStream_t stream) {
  // The work queued before it on its stream comes first.
  fake::runPending(stream);
  if (ncclResult_t r = checkCall(comm, type, ncclSum))
    return r;
  Clique &clique = *comm->clique;
  size_t bytes = count * typeSize(type);
  ncclResult_t checked = ncclSuccess;
  if (root < 0 || root >= clique.size)
    checked = ncclFail(ncclInvalidArgument, "root %d", root);
  if (!checked && comm->rank == root) {
    checked = checkDeviceBuffer(comm, send, bytes, "sendbuff");
    if (!checked)
      checked = checkOverlap(send, bytes, recv, bytes, 0, "ncclBroadcast");
  }
  if (!checked)
    checked = checkDeviceBuffer(comm, recv, bytes, "recvbuff");
  if (ncclResult_t r = join(comm, checked, send))
    return r;
  const unsigned char *from =
      static_cast<const unsigned char *>(clique.posts[size_t(root)].send);
  std::vector<unsigned char> result(from, from + bytes);
  clique.barrier();
  memcpy(recv, result.data(), bytes);
  return ncclSuccess;
}

ncclResult_t ncclGroupStart() {
  ++groupDepth;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  if (groupDepth == 0)
    return ncclFail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  if (--groupDepth > 0)
    return ncclSuccess;
  return runPointToPoint();
}

ncclResult_t ncclSend(const void *send, size_t count, ncclDataType_t type,
                      int peer, ncclComm_t comm, cudaStream_t stream) {
  // The work queued before it on its stream comes first.
  fake::runPending(stream);
  if (ncclResult_t r = checkCall(comm, type, ncclSum))
    return r;
  size_t bytes = count * typeSize(type);
  ncclResult_t checked = peer < 0 || peer >= comm->clique->size
                             ? ncclFail(ncclInvalidArgument, "peer %d", peer)
                             : checkDeviceBuffer(comm, send, bytes, "sendbuff");
  pending.push_back(
      {comm, true, peer, const_cast<void *>(send), bytes, checked});
  if (groupDepth == 0)
    return runPointToPoint();
  return checked;
}

ncclResult_t ncclRecv(void *recv, size_t count, ncclDataType_t type, int peer,
                      ncclComm_t comm, cudaStream_t stream) {
  // The work queued before it on its stream comes first.
  fake::runPending(stream);
  if (ncclResult_t r = checkCall(comm, type, ncclSum))
    return r;
  size_t bytes = count * typeSize(type);
  ncclResult_t checked = peer < 0 || peer >= comm->clique->size
                             ? ncclFail(ncclInvalidArgument, "peer %d", peer)
                             : checkDeviceBuffer(comm, recv, bytes, "recvbuff");
  pending.push_back({comm, false, peer, recv, bytes, checked});
  if (groupDepth == 0)
    return runPointToPoint();
  return checked;
}
