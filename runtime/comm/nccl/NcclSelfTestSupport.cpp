//===- NcclSelfTestSupport.cpp - Reporting, data and buffers --------------===//

#include "NcclSelfTest.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace nccltest {

const loom_comm_backend_ops *ops = nullptr;
int passed = 0;
int failed = 0;

void pass(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  printf("PASS ");
  vprintf(fmt, args);
  printf("\n");
  va_end(args);
  fflush(stdout);
  ++passed;
}

void fail(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  printf("FAIL ");
  vprintf(fmt, args);
  printf("\n");
  va_end(args);
  fflush(stdout);
  ++failed;
}

std::string format(const char *fmt, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, fmt);
  vsnprintf(buffer, sizeof(buffer), fmt, args);
  va_end(args);
  return buffer;
}

//===----------------------------------------------------------------------===//
// A team of ranks: threads of this process, one per GPU
//===----------------------------------------------------------------------===//

int teamBroadcast(void *ctx, void *buffer, size_t bytes, int root) {
  Member *member = static_cast<Member *>(ctx);
  Team *team = member->team;
  if (member->rank == root)
    team->rootBuffer = buffer;
  team->barrier();
  if (member->rank != root)
    memcpy(buffer, team->rootBuffer, bytes);
  team->barrier();
  return 0;
}

void report(Member &member, const std::string &title, const Outcome &mine) {
  Team *team = member.team;
  team->outcomes[size_t(member.rank)] = mine;
  team->barrier();
  if (member.rank == 0) {
    Outcome all;
    for (int r = 0; r < team->size; ++r) {
      const Outcome &o = team->outcomes[size_t(r)];
      all.cases += o.cases;
      all.bad += o.bad;
      all.maxError = std::fmax(all.maxError, o.maxError);
      if (!o.details.empty())
        all.details +=
            (team->size > 1 ? format("\n  rank %d:", r) : "") + o.details;
    }
    if (all.bad == 0)
      pass("%s: %d case%s, max error %g", title.c_str(), all.cases,
           all.cases == 1 ? "" : "s", all.maxError);
    else
      fail("%s: %d of %d cases failed, max error %g%s", title.c_str(), all.bad,
           all.cases, all.maxError, all.details.c_str());
  }
  team->barrier();
}

//===----------------------------------------------------------------------===//
// Data
//===----------------------------------------------------------------------===//

const char *dtypeName(loom_dtype dtype) {
  switch (dtype) {
  case LOOM_DTYPE_FLOAT32:
    return "float32";
  case LOOM_DTYPE_FLOAT16:
    return "float16";
  case LOOM_DTYPE_INT32:
    return "int32";
  default:
    return "?";
  }
}

size_t elementSize(loom_dtype dtype) {
  return dtype == LOOM_DTYPE_FLOAT16 ? 2 : 4;
}

uint16_t floatToHalf(float value) {
  uint32_t bits;
  memcpy(&bits, &value, 4);
  uint32_t sign = (bits >> 16) & 0x8000u;
  int32_t exponent = int32_t((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffffu;
  if (((bits >> 23) & 0xff) == 0xff) // inf, nan
    return uint16_t(sign | 0x7c00u | (mantissa ? 0x200u : 0));
  if (exponent >= 31)
    return uint16_t(sign | 0x7c00u);
  if (exponent <= 0) {
    if (exponent < -10)
      return uint16_t(sign);
    mantissa |= 0x800000u;
    uint32_t shift = uint32_t(14 - exponent);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1)))
      ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = sign | (uint32_t(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
    ++half; // may carry into the exponent, which is right
  return uint16_t(half);
}

float halfToFloat(uint16_t half) {
  uint32_t sign = uint32_t(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1f;
  uint32_t mantissa = half & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while (!(mantissa & 0x400u));
      bits =
          sign | (uint32_t(127 - 15 - e) << 23) | ((mantissa & 0x3ffu) << 13);
    }
  } else {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  float value;
  memcpy(&value, &bits, 4);
  return value;
}

void store(void *data, size_t i, loom_dtype dtype, double value) {
  switch (dtype) {
  case LOOM_DTYPE_FLOAT32:
    static_cast<float *>(data)[i] = float(value);
    return;
  case LOOM_DTYPE_FLOAT16:
    static_cast<uint16_t *>(data)[i] = floatToHalf(float(value));
    return;
  default:
    static_cast<int32_t *>(data)[i] = int32_t(value);
    return;
  }
}

double load(const void *data, size_t i, loom_dtype dtype) {
  switch (dtype) {
  case LOOM_DTYPE_FLOAT32:
    return static_cast<const float *>(data)[i];
  case LOOM_DTYPE_FLOAT16:
    return halfToFloat(static_cast<const uint16_t *>(data)[i]);
  default:
    return static_cast<const int32_t *>(data)[i];
  }
}

double valueAt(int rank, size_t i, loom_dtype dtype) {
  double v = double(int((i * 7 + size_t(rank) * 5 + 3) % 17) - 8);
  return dtype == LOOM_DTYPE_INT32 ? v : v / 4;
}

const char *opName(loom_reduce_op op) {
  switch (op) {
  case LOOM_REDUCE_SUM:
    return "sum";
  case LOOM_REDUCE_MEAN:
    return "mean";
  case LOOM_REDUCE_MAX:
    return "max";
  case LOOM_REDUCE_MIN:
    return "min";
  }
  return "?";
}

double reduced(int size, size_t i, loom_dtype dtype, loom_reduce_op op) {
  double acc = valueAt(0, i, dtype);
  for (int r = 1; r < size; ++r) {
    double v = valueAt(r, i, dtype);
    if (op == LOOM_REDUCE_MAX)
      acc = std::fmax(acc, v);
    else if (op == LOOM_REDUCE_MIN)
      acc = std::fmin(acc, v);
    else
      acc += v;
  }
  if (op != LOOM_REDUCE_MEAN)
    return acc;
  if (dtype == LOOM_DTYPE_INT32) // truncating, like C
    return double(int64_t(acc) / int64_t(size));
  return acc / size;
}

double tolerance(loom_dtype dtype, loom_reduce_op op) {
  if (dtype == LOOM_DTYPE_INT32 || op != LOOM_REDUCE_MEAN)
    return 0;
  return dtype == LOOM_DTYPE_FLOAT16 ? 1e-2 : 1e-5;
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

const char *memoryName(Memory memory) {
  switch (memory) {
  case Memory::Host:
    return "host";
  case Memory::Device:
    return "device";
  case Memory::Pinned:
    return "pinned";
  case Memory::Managed:
    return "managed";
  }
  return "?";
}

std::string copy(void *dst, const void *src, size_t bytes) {
  cudaError_t error = cudaMemcpy(dst, src, bytes, cudaMemcpyDefault);
  return error == cudaSuccess
             ? std::string()
             : format("cudaMemcpy: %s", cudaGetErrorString(error));
}

} // namespace nccltest
