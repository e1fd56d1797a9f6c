//===- NcclBackend.cpp - The NCCL communicator backend plugin -------------===//
//
// libloom_comm_nccl.so: the loom_comm_backend_ops of CommBackend.h over
// NCCL. The runtime loads it with dlopen when a program asks for NCCL, so
// that neither libloom_runtime nor the compiler links CUDA; the plugin links
// libcudart and libnccl and exports loom_comm_backend_nccl only.
//
// One group is one ncclComm_t on one CUDA device with one stream:
//  - The device is the calling thread's current one, except that a process
//    that sees several GPUs and knows its local rank (from the launcher's
//    environment) takes `local rank % device count`.
//  - Device (and managed) memory goes to NCCL directly. Host memory, which
//    is what the compiled CPU programs pass, is staged through a device
//    buffer that the group keeps and grows as needed.
//  - A call with a NULL `stream` runs on the group's own stream and is
//    blocking: it returns once the result is in `dst`. The group's stream is
//    a blocking one, so work on the legacy default stream is waited for, but
//    work on other streams is the caller's to synchronise.
//  - A call with the caller's `stream` (a cudaStream_t) queues everything on
//    it, after the work already there. Between device buffers it returns
//    once queued, as NCCL does (the result is ready when the stream gets
//    there); a call that stages host memory or divides an integer MEAN on
//    the host waits for the stream before it returns.
//  - Reductions take float16, bfloat16, float32, float64 and (u)int8/32/64;
//    the byte-moving collectives any type. MEAN is ncclAvg on floats; on
//    integers NCCL sums and the plugin divides, truncating like C.
//  - A group is, like an ncclComm_t, used by one thread at a time. A rank
//    that fails before reaching NCCL (a bad argument, a failed copy) leaves
//    the others waiting in NCCL, as with any NCCL program.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/CommBackend.h"
#include "loom/runtime/MeanDivision.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

const char *dtypeName(loom_dtype dtype) {
  switch (dtype) {
  case LOOM_DTYPE_FLOAT16:
    return "float16";
  case LOOM_DTYPE_BFLOAT16:
    return "bfloat16";
  case LOOM_DTYPE_FLOAT32:
    return "float32";
  case LOOM_DTYPE_FLOAT64:
    return "float64";
  case LOOM_DTYPE_INT8:
    return "int8";
  case LOOM_DTYPE_INT16:
    return "int16";
  case LOOM_DTYPE_INT32:
    return "int32";
  case LOOM_DTYPE_INT64:
    return "int64";
  case LOOM_DTYPE_UINT8:
    return "uint8";
  case LOOM_DTYPE_BOOL:
    return "bool";
  case LOOM_DTYPE_UINT16:
    return "uint16";
  case LOOM_DTYPE_UINT32:
    return "uint32";
  case LOOM_DTYPE_UINT64:
    return "uint64";
  case LOOM_DTYPE_FLOAT8E4M3FN:
    return "float8e4m3fn";
  case LOOM_DTYPE_FLOAT8E4M3FNUZ:
    return "float8e4m3fnuz";
  case LOOM_DTYPE_FLOAT8E5M2:
    return "float8e5m2";
  case LOOM_DTYPE_FLOAT8E5M2FNUZ:
    return "float8e5m2fnuz";
  case LOOM_DTYPE_INT4:
    return "int4";
  case LOOM_DTYPE_UINT4:
    return "uint4";
  default:
    return "invalid";
  }
}

int statusOf(cudaError_t error) {
  switch (error) {
  case cudaErrorMemoryAllocation:
    return LOOM_ERROR_OUT_OF_MEMORY;
  case cudaErrorInvalidValue:
    return LOOM_ERROR_INVALID_ARGUMENT;
  case cudaErrorNoDevice:
  case cudaErrorInsufficientDriver:
  case cudaErrorInvalidDevice:
  case cudaErrorNotSupported:
    return LOOM_ERROR_UNSUPPORTED;
  default:
    return LOOM_ERROR_IO;
  }
}

int statusOf(ncclResult_t result) {
  switch (result) {
  case ncclInvalidArgument:
  case ncclInvalidUsage:
    return LOOM_ERROR_INVALID_ARGUMENT;
  default:
    // System, internal, remote and CUDA errors: the communication failed.
    return LOOM_ERROR_IO;
  }
}

/// One call of the backend: where its message goes and what it is called in
/// that message ("nccl: all_reduce: ...").
struct Call {
  const char *what;
  char *err;
  size_t errLen;
  ncclComm_t comm = nullptr;

  int fail(int status, const char *fmt, ...) const
      __attribute__((format(printf, 3, 4)));

  /// 0 for cudaSuccess, else a status and a message naming `call`.
  int cuda(cudaError_t error, const char *call) const {
    if (error == cudaSuccess)
      return 0;
    // Clears the error unless it is sticky (the context is then lost).
    cudaGetLastError();
    return fail(statusOf(error), "%s failed: %s (%s)", call,
                cudaGetErrorString(error), cudaGetErrorName(error));
  }

  /// 0 for ncclSuccess, else a status and a message naming `call`, with
  /// NCCL's own last error when it has one.
  int nccl(ncclResult_t result, const char *call) const {
    if (result == ncclSuccess)
      return 0;
    const char *last = ncclGetLastError(comm);
    bool hasLast = last && *last;
    return fail(statusOf(result), "%s failed: %s%s%s", call,
                ncclGetErrorString(result), hasLast ? ": " : "",
                hasLast ? last : "");
  }
};

int Call::fail(int status, const char *fmt, ...) const {
  if (!err || errLen == 0)
    return status;
  int n = snprintf(err, errLen, "nccl: %s: ", what);
  if (n < 0 || size_t(n) >= errLen)
    return status;
  va_list args;
  va_start(args, fmt);
  vsnprintf(err + n, errLen - size_t(n), fmt, args);
  va_end(args);
  return status;
}

//===----------------------------------------------------------------------===//
// Groups
//===----------------------------------------------------------------------===//

struct Group {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  int device = -1;
  int rank = 0;
  int size = 1;
  // Device memory that host buffers are staged through; grows, never
  // shrinks, and is freed with the group.
  char *staging = nullptr;
  size_t stagingBytes = 0;
};

/// Makes `device` current for the scope of one call and restores the
/// caller's device after it, so that a group may be used from any thread.
class DeviceScope {
public:
  int enter(const Call &call, int device) {
    if (int s = call.cuda(cudaGetDevice(&previous), "cudaGetDevice"))
      return s;
    if (previous == device)
      return 0;
    if (int s = call.cuda(cudaSetDevice(device), "cudaSetDevice"))
      return s;
    switched = true;
    return 0;
  }
  ~DeviceScope() {
    if (switched)
      cudaSetDevice(previous);
  }

private:
  int previous = -1;
  bool switched = false;
};

/// This process's index among those of its node, from the environment of
/// the common launchers; -1 when none says.
int localRankFromEnvironment() {
  static const char *const variables[] = {
      "OMPI_COMM_WORLD_LOCAL_RANK", // Open MPI
      "MPI_LOCALRANKID",            // MPICH (Hydra)
      "SLURM_LOCALID",              // srun
      "LOCAL_RANK",                 // torchrun and others
  };
  for (const char *name : variables) {
    const char *value = getenv(name);
    if (!value || !*value)
      continue;
    char *end = nullptr;
    long rank = strtol(value, &end, 10);
    if (*end == '\0' && rank >= 0 && rank <= INT32_MAX)
      return int(rank);
  }
  return -1;
}

/// Chooses and makes current the group's device (see the file comment).
int selectDevice(const Call &call, int &device) {
  int count = 0;
  if (int s = call.cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount"))
    return s;
  if (count <= 0)
    return call.fail(LOOM_ERROR_UNSUPPORTED, "no CUDA device is visible");
  int localRank = count > 1 ? localRankFromEnvironment() : -1;
  if (localRank < 0)
    return call.cuda(cudaGetDevice(&device), "cudaGetDevice");
  device = localRank % count;
  return call.cuda(cudaSetDevice(device), "cudaSetDevice");
}

/// What group rank 0 sends the others: its status, so that they fail too
/// when it could not set up, and the identifier of the communicator.
struct UniqueIdMessage {
  int32_t status;
  ncclUniqueId id;
};

void releaseGroup(Group *group) {
  if (group->comm)
    ncclCommDestroy(group->comm);
  if (group->staging)
    cudaFree(group->staging);
  if (group->stream)
    cudaStreamDestroy(group->stream);
  delete group;
}

int groupCreate(const loom_comm_bootstrap *bootstrap, void **out, char *err,
                size_t errLen) {
  Call call{"group_create", err, errLen};
  if (!out)
    return call.fail(LOOM_ERROR_INVALID_ARGUMENT, "no place for the group");
  *out = nullptr;
  if (!bootstrap)
    return call.fail(LOOM_ERROR_INVALID_ARGUMENT, "no bootstrap");
  int rank = bootstrap->rank, size = bootstrap->size;
  if (size < 1 || rank < 0 || rank >= size)
    return call.fail(LOOM_ERROR_INVALID_ARGUMENT, "rank %d of a group of %d",
                     rank, size);
  if (size > 1 && !bootstrap->broadcast)
    return call.fail(LOOM_ERROR_INVALID_ARGUMENT,
                     "no bootstrap broadcast for a group of %d", size);

  Group *group = new (std::nothrow) Group;
  if (!group)
    return call.fail(LOOM_ERROR_OUT_OF_MEMORY, "out of memory");
  group->rank = rank;
  group->size = size;

  // Local set-up first. A rank that fails still takes part in the
  // broadcast, so that the others do not wait for it there.
  int status = selectDevice(call, group->device);
  if (!status)
    // A blocking stream: it waits for the legacy default stream.
    status = call.cuda(cudaStreamCreate(&group->stream), "cudaStreamCreate");

  UniqueIdMessage message;
  memset(&message, 0, sizeof(message));
  if (rank == 0) {
    if (!status)
      status = call.nccl(ncclGetUniqueId(&message.id), "ncclGetUniqueId");
    message.status = status;
  }
  if (bootstrap->broadcast) {
    int s = bootstrap->broadcast(bootstrap->ctx, &message, sizeof(message), 0);
    if (s && !status)
      status = call.fail(
          s > 0 && s <= LOOM_ERROR_UNSUPPORTED ? s : int(LOOM_ERROR_IO),
          "the bootstrap broadcast of the NCCL unique id "
          "failed (status %d)",
          s);
  }
  if (!status && message.status)
    status = call.fail(message.status,
                       "group rank 0 could not set up NCCL (see its error)");
  if (!status)
    status = call.nccl(ncclCommInitRank(&group->comm, size, message.id, rank),
                       "ncclCommInitRank");
  if (status) {
    releaseGroup(group);
    return status;
  }
  *out = group;
  return 0;
}

void groupDestroy(void *handle) {
  if (!handle)
    return;
  Group *group = static_cast<Group *>(handle);
  int previous = -1;
  bool switched = cudaGetDevice(&previous) == cudaSuccess &&
                  previous != group->device &&
                  cudaSetDevice(group->device) == cudaSuccess;
  releaseGroup(group);
  if (switched)
    cudaSetDevice(previous);
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

constexpr size_t kStagingGranule = size_t(2) << 20;
constexpr size_t kStagingAlignment = 256;

bool roundUp(size_t bytes, size_t multiple, size_t &out) {
  size_t remainder = bytes % multiple;
  if (remainder == 0) {
    out = bytes;
    return true;
  }
  return !__builtin_add_overflow(bytes, multiple - remainder, &out);
}

/// Whether NCCL can use `ptr` directly: device or managed memory. Host
/// memory, pinned or not, is staged.
int isDeviceMemory(const Call &call, const void *ptr, bool &onDevice) {
  cudaPointerAttributes attributes;
  cudaError_t error = cudaPointerGetAttributes(&attributes, ptr);
  if (error == cudaErrorInvalidValue) {
    // Older runtimes answer so for memory CUDA does not know: host memory.
    cudaGetLastError();
    onDevice = false;
    return 0;
  }
  if (int s = call.cuda(error, "cudaPointerGetAttributes"))
    return s;
  onDevice = attributes.type == cudaMemoryTypeDevice ||
             attributes.type == cudaMemoryTypeManaged;
  return 0;
}

/// The group's staging buffer, at least `bytes` long.
int reserveStaging(const Call &call, Group &group, size_t bytes,
                   char *&staging) {
  if (bytes > group.stagingBytes) {
    size_t rounded = 0;
    if (!roundUp(bytes, kStagingGranule, rounded))
      return call.fail(LOOM_ERROR_OUT_OF_MEMORY,
                       "cannot stage %zu bytes of host memory", bytes);
    // Every call that stages waits for its stream, so nothing uses the old
    // buffer.
    if (group.staging)
      cudaFree(group.staging);
    group.staging = nullptr;
    group.stagingBytes = 0;
    void *fresh = nullptr;
    cudaError_t error = cudaMalloc(&fresh, rounded);
    if (error != cudaSuccess) {
      cudaGetLastError();
      return call.fail(statusOf(error),
                       "cudaMalloc of %zu bytes to stage host memory failed: "
                       "%s (%s)",
                       rounded, cudaGetErrorString(error),
                       cudaGetErrorName(error));
    }
    group.staging = static_cast<char *>(fresh);
    group.stagingBytes = rounded;
  }
  staging = group.staging;
  return 0;
}

/// How an operation may share one buffer between its input and its output
/// (NCCL's in-place forms), which is how host buffers are staged.
enum class Layout {
  Same,       // send == recv (all-reduce, broadcast)
  SendInRecv, // send == recv + offset (all-gather)
  RecvInSend, // recv == send + offset (reduce-scatter)
  Apart,      // no overlap allowed (all-to-all)
};

/// The device buffers of one NCCL call, and the copy back to a host `dst`.
struct Transfer {
  const void *send = nullptr;
  void *recv = nullptr;
  void *hostDst = nullptr;
  size_t recvBytes = 0;
  bool dstOnDevice = false;
  // The call uses the group's staging buffer, which the next call may reuse
  // or replace: it must be done before the call returns.
  bool staged = false;
  // The stream everything runs on: the caller's, or the group's own.
  cudaStream_t stream = nullptr;
  bool callerStream = false;
};

bool overlaps(const void *a, size_t aBytes, const void *b, size_t bBytes) {
  uintptr_t x = reinterpret_cast<uintptr_t>(a);
  uintptr_t y = reinterpret_cast<uintptr_t>(b);
  return x < y + bBytes && y < x + aBytes;
}

/// Sets up `transfer` for `sendBytes` bytes read from `src` (none when 0:
/// a broadcast's non-root) and `recvBytes` bytes written to `dst`, staging
/// host buffers and copying host input to the device on the group's stream.
int prepare(const Call &call, Group &group, const void *src, size_t sendBytes,
            void *dst, size_t recvBytes, Layout layout, size_t offset,
            Transfer &transfer) {
  bool srcOnDevice = false, dstOnDevice = false;
  if (sendBytes)
    if (int s = isDeviceMemory(call, src, srcOnDevice))
      return s;
  if (int s = isDeviceMemory(call, dst, dstOnDevice))
    return s;
  transfer.recvBytes = recvBytes;
  transfer.dstOnDevice = dstOnDevice;
  auto upload = [&](char *to) {
    return call.cuda(
        cudaMemcpyAsync(to, src, sendBytes, cudaMemcpyDefault, transfer.stream),
        "cudaMemcpyAsync (input to the device)");
  };
  char *staging = nullptr;
  auto reserve = [&](size_t bytes) {
    transfer.staged = true;
    return reserveStaging(call, group, bytes, staging);
  };

  if (sendBytes == 0) {
    if (dstOnDevice) {
      transfer.send = transfer.recv = dst;
      return 0;
    }
    if (int s = reserve(recvBytes))
      return s;
    transfer.send = transfer.recv = staging;
    transfer.hostDst = dst;
    return 0;
  }

  if (srcOnDevice && dstOnDevice) {
    transfer.send = src;
    transfer.recv = dst;
    // NCCL allows only its in-place forms of overlap; anything else reads
    // a copy of the input.
    const char *srcBytes = static_cast<const char *>(src);
    char *dstBytes = static_cast<char *>(dst);
    bool inPlace = (layout == Layout::Same && src == dst) ||
                   (layout == Layout::SendInRecv && src == dstBytes + offset) ||
                   (layout == Layout::RecvInSend && dst == srcBytes + offset);
    if (inPlace || !overlaps(src, sendBytes, dst, recvBytes))
      return 0;
    if (int s = reserve(sendBytes))
      return s;
    transfer.send = staging;
    return upload(staging);
  }
  if (srcOnDevice) {
    if (int s = reserve(recvBytes))
      return s;
    transfer.send = src;
    transfer.recv = staging;
    transfer.hostDst = dst;
    return 0;
  }
  if (dstOnDevice) {
    if (int s = reserve(sendBytes))
      return s;
    transfer.send = staging;
    transfer.recv = dst;
    return upload(staging);
  }

  // Host to host: one staging buffer in NCCL's in-place form where there is
  // one. The input is copied in before and the output out after, so any
  // overlap of the host buffers is fine.
  size_t sendAt = 0, recvAt = 0, total = 0;
  switch (layout) {
  case Layout::Same:
    total = sendBytes > recvBytes ? sendBytes : recvBytes;
    break;
  case Layout::SendInRecv:
    sendAt = offset;
    total = recvBytes;
    break;
  case Layout::RecvInSend:
    recvAt = offset;
    total = sendBytes;
    break;
  case Layout::Apart:
    if (!roundUp(sendBytes, kStagingAlignment, recvAt) ||
        __builtin_add_overflow(recvAt, recvBytes, &total))
      return call.fail(LOOM_ERROR_OUT_OF_MEMORY,
                       "cannot stage %zu + %zu bytes of host memory", sendBytes,
                       recvBytes);
    break;
  }
  if (int s = reserve(total))
    return s;
  transfer.send = staging + sendAt;
  transfer.recv = staging + recvAt;
  transfer.hostDst = dst;
  return upload(staging + sendAt);
}

/// Copies a staged result back to the host and waits for the stream, unless
/// the work is all on device memory and on the caller's stream (and `wait`
/// is false). After a failed NCCL call (`status` != 0) it only waits, so
/// that no copy from a caller's buffer is left running, and returns
/// `status`.
int finish(const Call &call, const Transfer &transfer, int status,
           bool wait = false) {
  if (!status && transfer.hostDst)
    status = call.cuda(cudaMemcpyAsync(transfer.hostDst, transfer.recv,
                                       transfer.recvBytes, cudaMemcpyDefault,
                                       transfer.stream),
                       "cudaMemcpyAsync (output to the host)");
  if (!status && !wait && transfer.callerStream && !transfer.staged)
    return 0;
  cudaError_t synced = cudaStreamSynchronize(transfer.stream);
  if (status) {
    if (synced != cudaSuccess)
      cudaGetLastError();
    return status;
  }
  return call.cuda(synced, "cudaStreamSynchronize");
}

//===----------------------------------------------------------------------===//
// Types and reductions
//===----------------------------------------------------------------------===//

struct Reduction {
  ncclDataType_t type = ncclUint8;
  ncclRedOp_t op = ncclSum;
  size_t elementSize = 0;
  // MEAN over integers: NCCL sums, the plugin divides (truncating).
  bool divideAfter = false;
};

int reductionFor(const Call &call, loom_dtype dtype, loom_reduce_op op,
                 Reduction &reduction) {
  bool isFloat = false;
  switch (dtype) {
  case LOOM_DTYPE_FLOAT16:
    reduction = {ncclFloat16, ncclSum, 2, false};
    isFloat = true;
    break;
  case LOOM_DTYPE_BFLOAT16:
    reduction = {ncclBfloat16, ncclSum, 2, false};
    isFloat = true;
    break;
  case LOOM_DTYPE_FLOAT32:
    reduction = {ncclFloat32, ncclSum, 4, false};
    isFloat = true;
    break;
  case LOOM_DTYPE_FLOAT64:
    reduction = {ncclFloat64, ncclSum, 8, false};
    isFloat = true;
    break;
  case LOOM_DTYPE_INT8:
    reduction = {ncclInt8, ncclSum, 1, false};
    break;
  case LOOM_DTYPE_UINT8:
    reduction = {ncclUint8, ncclSum, 1, false};
    break;
  case LOOM_DTYPE_INT32:
    reduction = {ncclInt32, ncclSum, 4, false};
    break;
  case LOOM_DTYPE_UINT32:
    reduction = {ncclUint32, ncclSum, 4, false};
    break;
  case LOOM_DTYPE_INT64:
    reduction = {ncclInt64, ncclSum, 8, false};
    break;
  case LOOM_DTYPE_UINT64:
    reduction = {ncclUint64, ncclSum, 8, false};
    break;
  default:
    return call.fail(LOOM_ERROR_UNSUPPORTED, "NCCL cannot reduce %s",
                     dtypeName(dtype));
  }
  switch (op) {
  case LOOM_REDUCE_SUM:
    return 0;
  case LOOM_REDUCE_MEAN:
    if (isFloat)
      reduction.op = ncclAvg;
    else
      reduction.divideAfter = true;
    return 0;
  case LOOM_REDUCE_MAX:
    reduction.op = ncclMax;
    return 0;
  case LOOM_REDUCE_MIN:
    reduction.op = ncclMin;
    return 0;
  }
  return call.fail(LOOM_ERROR_INVALID_ARGUMENT, "unknown reduction %d",
                   int(op));
}

/// The integer MEAN's division of `count` elements at `dst`, on the host
/// (through a copy when `dst` is device memory).
int divideResult(const Call &call, Group &group, void *dst, bool onDevice,
                 size_t count, size_t bytes, loom_dtype dtype) {
  if (!onDevice) {
    loom::rt::divideIntegers(dst, count, dtype, group.size);
    return 0;
  }
  void *copy = malloc(bytes);
  if (!copy)
    return call.fail(LOOM_ERROR_OUT_OF_MEMORY, "out of memory");
  int status = call.cuda(cudaMemcpy(copy, dst, bytes, cudaMemcpyDefault),
                         "cudaMemcpy (mean to the host)");
  if (!status) {
    loom::rt::divideIntegers(copy, count, dtype, group.size);
    status = call.cuda(cudaMemcpy(dst, copy, bytes, cudaMemcpyDefault),
                       "cudaMemcpy (mean to the device)");
  }
  free(copy);
  return status;
}

/// `a * b` bytes, or an error when it does not fit.
int product(const Call &call, size_t a, size_t b, size_t &bytes) {
  if (__builtin_mul_overflow(a, b, &bytes))
    return call.fail(LOOM_ERROR_INVALID_ARGUMENT,
                     "%zu * %zu bytes overflow size_t", a, b);
  return 0;
}

/// The checks every operation starts with.
int begin(Call &call, void *handle, Group *&group) {
  group = static_cast<Group *>(handle);
  if (!group)
    return call.fail(LOOM_ERROR_INVALID_ARGUMENT, "no group");
  call.comm = group->comm;
  return 0;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// One operation, from its checks to its result. An operation's own checks
/// (`run`'s `check`) set what describes its buffers.
struct Operation {
  Operation(const char *what, void *stream, char *err, size_t errLen)
      : call{what, err, errLen}, stream(static_cast<cudaStream_t>(stream)) {}

  Call call;
  // The caller's stream, or null for the group's own.
  cudaStream_t stream;
  Group *group = nullptr;
  Transfer transfer;
  // The size of the `count` elements of one rank's part, in bytes.
  size_t elementSize = 1;
  // False where this rank reads no input (a broadcast's non-root).
  bool sends = true;
  // Set by a reduction: NCCL sums an integer MEAN and `run` divides.
  bool divideAfter = false;
  loom_dtype dtype = LOOM_DTYPE_UINT8;

  /// The check of a reduction of `type` by `op`, into `reduction`.
  int reduce(loom_dtype type, loom_reduce_op op, Reduction &reduction) {
    if (int s = reductionFor(call, type, op, reduction))
      return s;
    elementSize = reduction.elementSize;
    divideAfter = reduction.divideAfter;
    dtype = type;
    return 0;
  }
};

/// The steps every operation shares: finds the group, runs the operation's
/// own `check`, sizes its buffers (one rank's part is `count` elements; the
/// side that `layout` places at an offset, or both when they are apart,
/// holds all ranks' parts), does nothing for an empty part, rejects NULL
/// buffers, makes the group's device current and stages the buffers. Then
/// `issue` makes the NCCL call(s) on `op.transfer`, and the result is copied
/// back (and an integer MEAN divided).
template <typename Check, typename Issue>
int run(Operation &op, void *handle, const void *src, void *dst, size_t count,
        Layout layout, Check check, Issue issue) {
  Call &call = op.call;
  if (int s = begin(call, handle, op.group))
    return s;
  if (int s = check())
    return s;
  Group &group = *op.group;
  size_t bytes = 0, total = 0;
  if (int s = product(call, count, op.elementSize, bytes))
    return s;
  total = bytes;
  if (layout != Layout::Same)
    if (int s = product(call, bytes, size_t(group.size), total))
      return s;
  if (count == 0)
    return 0;
  if ((op.sends && !src) || !dst)
    return call.fail(LOOM_ERROR_INVALID_ARGUMENT, "a NULL buffer");
  DeviceScope scope;
  if (int s = scope.enter(call, group.device))
    return s;
  bool sendsAll = layout == Layout::RecvInSend || layout == Layout::Apart;
  bool receivesAll = layout == Layout::SendInRecv || layout == Layout::Apart;
  size_t sendBytes = !op.sends ? 0 : sendsAll ? total : bytes;
  size_t recvBytes = receivesAll ? total : bytes;
  size_t offset = sendsAll == receivesAll ? 0 : size_t(group.rank) * bytes;
  Transfer &transfer = op.transfer;
  transfer.callerStream = op.stream != nullptr;
  transfer.stream = op.stream ? op.stream : group.stream;
  if (int s = prepare(call, group, src, sendBytes, dst, recvBytes, layout,
                      offset, transfer))
    return finish(call, transfer, s);
  int status = finish(call, transfer, issue(), /*wait=*/op.divideAfter);
  if (!status && op.divideAfter)
    status = divideResult(call, group, dst, transfer.dstOnDevice, count, bytes,
                          op.dtype);
  return status;
}

int allReduce(void *handle, const void *src, void *dst, size_t count,
              loom_dtype dtype, loom_reduce_op reduceOp, void *stream,
              char *err, size_t errLen) {
  Operation op("all_reduce", stream, err, errLen);
  Reduction reduction;
  return run(
      op, handle, src, dst, count, Layout::Same,
      [&] { return op.reduce(dtype, reduceOp, reduction); },
      [&] {
        return op.call.nccl(ncclAllReduce(op.transfer.send, op.transfer.recv,
                                          count, reduction.type, reduction.op,
                                          op.group->comm, op.transfer.stream),
                            "ncclAllReduce");
      });
}

int allGather(void *handle, const void *src, void *dst, size_t bytes,
              void *stream, char *err, size_t errLen) {
  Operation op("all_gather", stream, err, errLen);
  return run(
      op, handle, src, dst, bytes, Layout::SendInRecv, [] { return 0; },
      [&] {
        return op.call.nccl(ncclAllGather(op.transfer.send, op.transfer.recv,
                                          bytes, ncclUint8, op.group->comm,
                                          op.transfer.stream),
                            "ncclAllGather");
      });
}

int reduceScatter(void *handle, const void *src, void *dst, size_t count,
                  loom_dtype dtype, loom_reduce_op reduceOp, void *stream,
                  char *err, size_t errLen) {
  Operation op("reduce_scatter", stream, err, errLen);
  Reduction reduction;
  return run(
      op, handle, src, dst, count, Layout::RecvInSend,
      [&] { return op.reduce(dtype, reduceOp, reduction); },
      [&] {
        return op.call.nccl(
            ncclReduceScatter(op.transfer.send, op.transfer.recv, count,
                              reduction.type, reduction.op, op.group->comm,
                              op.transfer.stream),
            "ncclReduceScatter");
      });
}

int allToAll(void *handle, const void *src, void *dst, size_t bytes,
             void *stream, char *err, size_t errLen) {
  Operation op("all_to_all", stream, err, errLen);
  return run(
      op, handle, src, dst, bytes, Layout::Apart, [] { return 0; },
      [&] {
        const Call &call = op.call;
        Group &group = *op.group;
        const char *send = static_cast<const char *>(op.transfer.send);
        char *recv = static_cast<char *>(op.transfer.recv);
        int status = call.nccl(ncclGroupStart(), "ncclGroupStart");
        if (status)
          return status;
        for (int peer = 0; peer < group.size && !status; ++peer) {
          size_t at = size_t(peer) * bytes;
          status = call.nccl(ncclSend(send + at, bytes, ncclUint8, peer,
                                      group.comm, op.transfer.stream),
                             "ncclSend");
          if (!status)
            status = call.nccl(ncclRecv(recv + at, bytes, ncclUint8, peer,
                                        group.comm, op.transfer.stream),
                               "ncclRecv");
        }
        // The group is closed whatever happened inside it.
        int ended = call.nccl(ncclGroupEnd(), "ncclGroupEnd");
        return status ? status : ended;
      });
}

int broadcast(void *handle, const void *src, void *dst, size_t bytes, int root,
              void *stream, char *err, size_t errLen) {
  Operation op("broadcast", stream, err, errLen);
  return run(
      op, handle, src, dst, bytes, Layout::Same,
      [&] {
        if (root < 0 || root >= op.group->size)
          return op.call.fail(LOOM_ERROR_INVALID_ARGUMENT,
                              "root %d of a group of %d", root, op.group->size);
        op.sends = op.group->rank == root;
        return 0;
      },
      [&] {
        return op.call.nccl(ncclBroadcast(op.transfer.send, op.transfer.recv,
                                          bytes, ncclUint8, root,
                                          op.group->comm, op.transfer.stream),
                            "ncclBroadcast");
      });
}

const loom_comm_backend_ops backendOps = {
    LOOM_COMM_BACKEND_ABI_VERSION,
    "nccl",
    groupCreate,
    groupDestroy,
    allReduce,
    allGather,
    reduceScatter,
    allToAll,
    broadcast,
    // Pipeline transfers need sends that never wait for their receiver
    // (CommBackend.h); on NCCL that takes a stream of their own: not yet.
    nullptr,
    nullptr,
};

} // namespace

extern "C" __attribute__((visibility("default"))) const loom_comm_backend_ops *
loom_comm_backend_nccl(void) {
  return &backendOps;
}
