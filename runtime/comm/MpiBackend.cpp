//===- MpiBackend.cpp - The built-in MPI communicator backend -------------===//
//
// Implements loom_comm_backend_ops over the MPI communicator Comm.cpp splits
// for each group, so that collectives drive MPI exactly as they drive
// plugins. MPI moves host memory and has no streams: it ignores `stream`.
// Float16 and bfloat16 reduce through user-defined MPI operations; MEAN is a
// sum followed by a division here, in host memory. Counts above MPI's int
// range are split (reductions, broadcasts) or moved in larger units.
//
//===----------------------------------------------------------------------===//

#include "comm/Comm.h"
#include "loom/runtime/MeanDivision.h"
#include "loom/runtime/Support.h"
#include <climits>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <new>

using namespace loom::rt;

namespace {
int mpiFail(const char *call, int code, char *err, size_t errLen) {
  return failWith(LOOM_ERROR_IO,
                  std::string(call) + " failed: " + mpiErrorString(code), err,
                  errLen);
}

//===----------------------------------------------------------------------===//
// 16-bit floats
//===----------------------------------------------------------------------===//

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  if (exponent == 0) {
    float value = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -value : value;
  }
  uint32_t bits = exponent == 31
                      ? sign | 0x7f800000u | (mantissa << 13)
                      : sign | ((exponent + 112) << 23) | (mantissa << 13);
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

/// Round to nearest even, as IEEE conversions do.
uint16_t floatToHalf(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u)
    return sign | (x > 0x7f800000u ? 0x7e00 : 0x7c00);
  if (x >= 0x477ff000u) // rounds to infinity
    return sign | 0x7c00;
  if (x < 0x38800000u) { // below the smallest normal half: exact scaling
    float magnitude;
    std::memcpy(&magnitude, &x, 4);
    return sign |
           static_cast<uint16_t>(std::nearbyint(magnitude * 16777216.0f));
  }
  uint32_t mantissa = x & 0x7fffff;
  uint32_t half = (((x >> 23) - 112) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // a carry into the exponent is still right
  return sign | static_cast<uint16_t>(half);
}

float bfloatToFloat(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

uint16_t floatToBfloat(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40); // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

template <bool IsBfloat, int Op>
void reduce16(void *in, void *inout, int *len, MPI_Datatype *) {
  auto *a = static_cast<const uint16_t *>(in);
  auto *b = static_cast<uint16_t *>(inout);
  for (int i = 0; i < *len; ++i) {
    float x = IsBfloat ? bfloatToFloat(a[i]) : halfToFloat(a[i]);
    float y = IsBfloat ? bfloatToFloat(b[i]) : halfToFloat(b[i]);
    float r = Op == LOOM_REDUCE_MAX   ? std::fmax(x, y)
              : Op == LOOM_REDUCE_MIN ? std::fmin(x, y)
                                      : x + y;
    b[i] = IsBfloat ? floatToBfloat(r) : floatToHalf(r);
  }
}

/// [isBfloat][sum, max, min]; created on first use, freed at shutdown.
MPI_Op ops16[2][3] = {{MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL},
                      {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL}};

MPI_Op op16(bool isBfloat, int op) {
  static MPI_User_function *functions[2][3] = {
      {reduce16<false, LOOM_REDUCE_SUM>, reduce16<false, LOOM_REDUCE_MAX>,
       reduce16<false, LOOM_REDUCE_MIN>},
      {reduce16<true, LOOM_REDUCE_SUM>, reduce16<true, LOOM_REDUCE_MAX>,
       reduce16<true, LOOM_REDUCE_MIN>}};
  int slot = op == LOOM_REDUCE_MAX ? 1 : op == LOOM_REDUCE_MIN ? 2 : 0;
  MPI_Op &result = ops16[isBfloat][slot];
  if (result == MPI_OP_NULL)
    MPI_Op_create(functions[isBfloat][slot], /*commute=*/1, &result);
  return result;
}

//===----------------------------------------------------------------------===//
// Types and operations
//===----------------------------------------------------------------------===//

/// The MPI type of a dtype that MPI can reduce, or MPI_DATATYPE_NULL.
MPI_Datatype reducibleType(loom_dtype dtype) {
  switch (dtype) {
  case LOOM_DTYPE_FLOAT16:
  case LOOM_DTYPE_BFLOAT16:
    return MPI_UINT16_T; // with the user-defined operations above
  case LOOM_DTYPE_FLOAT32:
    return MPI_FLOAT;
  case LOOM_DTYPE_FLOAT64:
    return MPI_DOUBLE;
  case LOOM_DTYPE_INT8:
    return MPI_INT8_T;
  case LOOM_DTYPE_INT16:
    return MPI_INT16_T;
  case LOOM_DTYPE_INT32:
    return MPI_INT32_T;
  case LOOM_DTYPE_INT64:
    return MPI_INT64_T;
  case LOOM_DTYPE_UINT8:
    return MPI_UINT8_T;
  case LOOM_DTYPE_UINT16:
    return MPI_UINT16_T;
  case LOOM_DTYPE_UINT32:
    return MPI_UINT32_T;
  case LOOM_DTYPE_UINT64:
    return MPI_UINT64_T;
  case LOOM_DTYPE_BOOL:
    return MPI_C_BOOL;
  default:
    return MPI_DATATYPE_NULL;
  }
}

/// The MPI operation for `op` on `dtype`; MEAN reduces as SUM (the caller
/// divides), except for bool, where the truncated mean of 0/1 values is
/// their logical AND (and sums saturate to OR).
bool reduceOp(loom_dtype dtype, int op, MPI_Op &result, std::string &error) {
  if (op < LOOM_REDUCE_SUM || op > LOOM_REDUCE_MIN) {
    error = "unknown reduction operator " + std::to_string(op);
    return false;
  }
  if (reducibleType(dtype) == MPI_DATATYPE_NULL) {
    error = std::string("reducing ") + loom_dtype_name(dtype) +
            " values is not supported (8-bit floats and 4-bit integers are "
            "only moved)";
    return false;
  }
  if (dtype == LOOM_DTYPE_FLOAT16 || dtype == LOOM_DTYPE_BFLOAT16) {
    result = op16(dtype == LOOM_DTYPE_BFLOAT16, op);
    return true;
  }
  if (dtype == LOOM_DTYPE_BOOL) {
    result =
        op == LOOM_REDUCE_MIN || op == LOOM_REDUCE_MEAN ? MPI_LAND : MPI_LOR;
    return true;
  }
  result = op == LOOM_REDUCE_MAX   ? MPI_MAX
           : op == LOOM_REDUCE_MIN ? MPI_MIN
                                   : MPI_SUM;
  return true;
}

template <bool IsBfloat> void divide16(void *data, size_t count, int divisor) {
  auto *values = static_cast<uint16_t *>(data);
  for (size_t i = 0; i < count; ++i) {
    float v = IsBfloat ? bfloatToFloat(values[i]) : halfToFloat(values[i]);
    v /= static_cast<float>(divisor);
    values[i] = IsBfloat ? floatToBfloat(v) : floatToHalf(v);
  }
}

/// The second half of MEAN.
void divideBy(void *data, size_t count, loom_dtype dtype, int divisor) {
  switch (dtype) {
  case LOOM_DTYPE_FLOAT16:
    return divide16<false>(data, count, divisor);
  case LOOM_DTYPE_BFLOAT16:
    return divide16<true>(data, count, divisor);
  case LOOM_DTYPE_FLOAT32:
    return divideEach<float>(data, count, divisor);
  case LOOM_DTYPE_FLOAT64:
    return divideEach<double>(data, count, divisor);
  default: // bool (MEAN already reduced as AND) does nothing here
    return divideIntegers(data, count, dtype, divisor);
  }
}

/// A type and count that cover `bytes` bytes with count <= INT_MAX: bytes
/// themselves, or a contiguous type of a power-of-two unit dividing them.
/// `owned` is set when the caller must free the type.
bool byteUnits(size_t bytes, MPI_Datatype &type, int &count, bool &owned,
               std::string &error) {
  owned = false;
  if (bytes <= static_cast<size_t>(INT_MAX)) {
    type = MPI_BYTE;
    count = static_cast<int>(bytes);
    return true;
  }
  for (size_t unit = 2; unit <= (size_t(1) << 20); unit *= 2) {
    if (bytes % unit != 0 || bytes / unit > static_cast<size_t>(INT_MAX))
      continue;
    MPI_Type_contiguous(static_cast<int>(unit), MPI_BYTE, &type);
    MPI_Type_commit(&type);
    count = static_cast<int>(bytes / unit);
    owned = true;
    return true;
  }
  error = "blocks of " + std::to_string(bytes) +
          " bytes exceed what one MPI call can move";
  return false;
}

/// A send in flight: MPI owns `data` until the request completes.
struct PendingSend {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Datatype type = MPI_BYTE;
  bool ownedType = false;
  std::unique_ptr<char[]> data;
};

struct MpiGroup {
  MPI_Comm comm;
  int rank;
  int size;
  /// Sends not yet known to be complete, oldest first.
  std::deque<PendingSend> pending;
};

/// Frees the sends at the front that have completed.
void reapSends(MpiGroup &group) {
  while (!group.pending.empty()) {
    int done = 0;
    MPI_Test(&group.pending.front().request, &done, MPI_STATUS_IGNORE);
    if (!done)
      return;
    if (group.pending.front().ownedType)
      MPI_Type_free(&group.pending.front().type);
    group.pending.pop_front();
  }
}

MPI_Comm commOf(void *group) { return static_cast<MpiGroup *>(group)->comm; }

int groupCreate(const loom_comm_bootstrap *bootstrap, void **group, char *err,
                size_t errLen) {
  auto *context = static_cast<const MpiBootstrapContext *>(bootstrap->ctx);
  auto *result = new (std::nothrow)
      MpiGroup{context->comm, bootstrap->rank, bootstrap->size};
  if (!result)
    return failWith(LOOM_ERROR_OUT_OF_MEMORY, "out of memory", err, errLen);
  *group = result;
  return LOOM_OK;
}

void groupDestroy(void *group) {
  auto *mpiGroup = static_cast<MpiGroup *>(group);
  // Every send of a finished schedule has a receiver.
  for (PendingSend &send : mpiGroup->pending) {
    MPI_Wait(&send.request, MPI_STATUS_IGNORE);
    if (send.ownedType)
      MPI_Type_free(&send.type);
  }
  delete mpiGroup;
}

int allReduce(void *group, const void *src, void *dst, size_t count,
              loom_dtype dtype, loom_reduce_op op, void *, char *err,
              size_t errLen) {
  return mpiAllReduce(commOf(group), src, dst, count, dtype, op, err, errLen);
}

/// MPI_Allgather and MPI_Alltoall, which share their form.
using ByteExchange = int (*)(const void *, int, MPI_Datatype, void *, int,
                             MPI_Datatype, MPI_Comm);

/// `exchange` (named `name` in errors) of `bytes` bytes per rank, in units
/// that keep its counts within int.
int exchangeBytes(ByteExchange exchange, const char *name, void *group,
                  const void *src, void *dst, size_t bytes, char *err,
                  size_t errLen) {
  MPI_Datatype type = MPI_BYTE;
  int count = 0;
  bool owned = false;
  std::string error;
  if (!byteUnits(bytes, type, count, owned, error))
    return failWith(LOOM_ERROR_INVALID_ARGUMENT, error, err, errLen);
  int rc = exchange(src, count, type, dst, count, type, commOf(group));
  if (owned)
    MPI_Type_free(&type);
  return rc == MPI_SUCCESS ? LOOM_OK : mpiFail(name, rc, err, errLen);
}

int allGather(void *group, const void *src, void *dst, size_t bytes, void *,
              char *err, size_t errLen) {
  return exchangeBytes(MPI_Allgather, "MPI_Allgather", group, src, dst, bytes,
                       err, errLen);
}

int reduceScatter(void *group, const void *src, void *dst, size_t count,
                  loom_dtype dtype, loom_reduce_op op, void *, char *err,
                  size_t errLen) {
  MPI_Op mpiOp;
  std::string error;
  if (!reduceOp(dtype, op, mpiOp, error))
    return failWith(LOOM_ERROR_INVALID_ARGUMENT, error, err, errLen);
  if (count > static_cast<size_t>(INT_MAX))
    return failWith(LOOM_ERROR_INVALID_ARGUMENT,
                    "blocks of " + std::to_string(count) +
                        " elements exceed what one MPI call can reduce",
                    err, errLen);
  int rc = MPI_Reduce_scatter_block(src, dst, static_cast<int>(count),
                                    reducibleType(dtype), mpiOp, commOf(group));
  if (rc != MPI_SUCCESS)
    return mpiFail("MPI_Reduce_scatter_block", rc, err, errLen);
  if (op == LOOM_REDUCE_MEAN)
    divideBy(dst, count, dtype, static_cast<MpiGroup *>(group)->size);
  return LOOM_OK;
}

int allToAll(void *group, const void *src, void *dst, size_t bytes, void *,
             char *err, size_t errLen) {
  return exchangeBytes(MPI_Alltoall, "MPI_Alltoall", group, src, dst, bytes,
                       err, errLen);
}

int broadcast(void *group, const void *src, void *dst, size_t bytes, int root,
              void *, char *err, size_t errLen) {
  auto *mpiGroup = static_cast<MpiGroup *>(group);
  if (mpiGroup->rank == root && src != dst)
    std::memcpy(dst, src, bytes);
  // Pieces of at most 1 GiB keep every count within int.
  constexpr size_t piece = size_t(1) << 30;
  for (size_t offset = 0; offset < bytes || offset == 0; offset += piece) {
    int count = static_cast<int>(std::min(piece, bytes - offset));
    int rc = MPI_Bcast(static_cast<char *>(dst) + offset, count, MPI_BYTE, root,
                       mpiGroup->comm);
    if (rc != MPI_SUCCESS)
      return mpiFail("MPI_Bcast", rc, err, errLen);
    if (bytes == 0)
      break;
  }
  return LOOM_OK;
}

/// A copy goes out with MPI_Isend, so that two stages that send to each
/// other at once never wait for each other.
int send(void *group, const void *src, size_t bytes, int peer, int tag, void *,
         char *err, size_t errLen) {
  auto *mpiGroup = static_cast<MpiGroup *>(group);
  reapSends(*mpiGroup);
  PendingSend pending;
  int count = 0;
  std::string error;
  if (!byteUnits(bytes, pending.type, count, pending.ownedType, error))
    return failWith(LOOM_ERROR_INVALID_ARGUMENT, error, err, errLen);
  pending.data.reset(new (std::nothrow) char[bytes ? bytes : 1]);
  if (!pending.data) {
    if (pending.ownedType)
      MPI_Type_free(&pending.type);
    return failWith(LOOM_ERROR_OUT_OF_MEMORY,
                    "out of memory for a send of " + std::to_string(bytes) +
                        " bytes",
                    err, errLen);
  }
  if (bytes)
    std::memcpy(pending.data.get(), src, bytes);
  int rc = MPI_Isend(pending.data.get(), count, pending.type, peer, tag,
                     mpiGroup->comm, &pending.request);
  if (rc != MPI_SUCCESS) {
    if (pending.ownedType)
      MPI_Type_free(&pending.type);
    return mpiFail("MPI_Isend", rc, err, errLen);
  }
  mpiGroup->pending.push_back(std::move(pending));
  return LOOM_OK;
}

int recv(void *group, void *dst, size_t bytes, int peer, int tag, void *,
         char *err, size_t errLen) {
  auto *mpiGroup = static_cast<MpiGroup *>(group);
  MPI_Datatype type = MPI_BYTE;
  int count = 0;
  bool owned = false;
  std::string error;
  if (!byteUnits(bytes, type, count, owned, error))
    return failWith(LOOM_ERROR_INVALID_ARGUMENT, error, err, errLen);
  MPI_Status status;
  int rc = MPI_Recv(dst, count, type, peer, tag, mpiGroup->comm, &status);
  int got = 0;
  if (rc == MPI_SUCCESS)
    MPI_Get_count(&status, type, &got);
  if (owned)
    MPI_Type_free(&type);
  reapSends(*mpiGroup);
  if (rc != MPI_SUCCESS)
    return mpiFail("MPI_Recv", rc, err, errLen);
  if (got != count)
    return failWith(LOOM_ERROR_IO,
                    "received " + std::to_string(got) + " units from rank " +
                        std::to_string(peer) + " under tag " +
                        std::to_string(tag) + ", expected " +
                        std::to_string(count) + " (the stages disagree)",
                    err, errLen);
  return LOOM_OK;
}

const loom_comm_backend_ops mpiOps = {
    LOOM_COMM_BACKEND_ABI_VERSION,
    "mpi",
    groupCreate,
    groupDestroy,
    allReduce,
    allGather,
    reduceScatter,
    allToAll,
    broadcast,
    send,
    recv,
};
} // namespace

const loom_comm_backend_ops *loom::rt::mpiBackend() { return &mpiOps; }

std::string loom::rt::mpiErrorString(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(length));
}

int loom::rt::mpiAllReduce(MPI_Comm comm, const void *src, void *dst,
                           size_t count, loom_dtype dtype, int op, char *err,
                           size_t errLen) {
  MPI_Op mpiOp;
  std::string error;
  if (!reduceOp(dtype, op, mpiOp, error))
    return failWith(LOOM_ERROR_INVALID_ARGUMENT, error, err, errLen);
  MPI_Datatype type = reducibleType(dtype);
  size_t elementSize = loom_dtype_size(dtype);
  // Pieces of at most 2^30 elements keep every count within int.
  constexpr size_t piece = size_t(1) << 30;
  for (size_t offset = 0; offset < count; offset += piece) {
    int n = static_cast<int>(std::min(piece, count - offset));
    char *out = static_cast<char *>(dst) + offset * elementSize;
    const void *in =
        src == dst ? MPI_IN_PLACE
                   : static_cast<const char *>(src) + offset * elementSize;
    int rc = MPI_Allreduce(in, out, n, type, mpiOp, comm);
    if (rc != MPI_SUCCESS)
      return mpiFail("MPI_Allreduce", rc, err, errLen);
  }
  if (op == LOOM_REDUCE_MEAN) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    divideBy(dst, count, dtype, size);
  }
  return LOOM_OK;
}

void loom::rt::mpiBackendShutdown() {
  for (auto &row : ops16)
    for (MPI_Op &op : row)
      if (op != MPI_OP_NULL)
        MPI_Op_free(&op);
}
