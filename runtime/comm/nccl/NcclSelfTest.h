//===- NcclSelfTest.h - The parts of loom-nccl-selftest ---------*- C++ -*-===//
//
// NcclSelfTest.cpp (main: loading the plugin, the teams of ranks),
// NcclSelfTestCases.cpp (the collectives and their checks) and
// NcclSelfTestSupport.cpp (reporting, data, buffers). Built twice: against
// CUDA and NCCL, and against their host stand-ins (test/FakeCuda.cpp,
// test/FakeNccl.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_COMM_NCCL_NCCLSELFTEST_H
#define LOOM_RUNTIME_COMM_NCCL_NCCLSELFTEST_H

#include "loom/runtime/CommBackend.h"

#include <cuda_runtime_api.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace nccltest {

/// The plugin's table, once loaded.
extern const loom_comm_backend_ops *ops;
/// Lines passed and failed so far.
extern int passed;
extern int failed;
/// The size of the large all-reduce in MiB (0: none).
extern int largeMebibytes;

void pass(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

//===----------------------------------------------------------------------===//
// A team of ranks: threads of this process, one per GPU
//===----------------------------------------------------------------------===//

/// One line's result on one rank.
struct Outcome {
  int cases = 0;
  int bad = 0;
  double maxError = 0;
  std::string details;

  void error(const std::string &what) {
    ++bad;
    if (details.size() < 2000)
      details += "\n    " + what;
  }
};

struct Team {
  int size = 1;
  std::mutex mutex;
  std::condition_variable changed;
  int arrived = 0;
  unsigned long generation = 0;
  void *rootBuffer = nullptr;
  std::vector<Outcome> outcomes;

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

struct Member {
  Team *team;
  int rank;
  void *group = nullptr;
};

/// The bootstrap's broadcast between the team's threads.
int teamBroadcast(void *ctx, void *buffer, size_t bytes, int root);

/// Every rank hands in its outcome for the line `title`; rank 0 prints it.
void report(Member &member, const std::string &title, const Outcome &mine);

//===----------------------------------------------------------------------===//
// Data
//===----------------------------------------------------------------------===//

const char *dtypeName(loom_dtype dtype);
size_t elementSize(loom_dtype dtype);
const char *opName(loom_reduce_op op);
void store(void *data, size_t i, loom_dtype dtype, double value);
double load(const void *data, size_t i, loom_dtype dtype);
/// What rank `rank` holds at element `i`: small integers for int32, their
/// quarters for the floats, so that sums are exact even in float16.
double valueAt(int rank, size_t i, loom_dtype dtype);
/// op over the ranks of valueAt(r, i), as the result type holds it.
double reduced(int size, size_t i, loom_dtype dtype, loom_reduce_op op);
double tolerance(loom_dtype dtype, loom_reduce_op op);

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

enum class Memory { Host, Device, Pinned, Managed };

const char *memoryName(Memory memory);

/// A buffer of one kind of memory, freed with the object.
class Buffer {
public:
  Buffer(Memory memory, size_t bytes) : memory(memory), bytes(bytes) {
    size_t n = bytes ? bytes : 1;
    cudaError_t error = cudaSuccess;
    switch (memory) {
    case Memory::Host:
      data = malloc(n);
      break;
    case Memory::Device:
      error = cudaMalloc(&data, n);
      break;
    case Memory::Pinned:
      error = cudaMallocHost(&data, n);
      break;
    case Memory::Managed:
      error = cudaMallocManaged(&data, n);
      break;
    }
    if (error != cudaSuccess) {
      allocError = cudaGetErrorString(error);
      data = nullptr;
    }
  }
  ~Buffer() {
    if (!data)
      return;
    switch (memory) {
    case Memory::Host:
      free(data);
      break;
    case Memory::Device:
    case Memory::Managed:
      cudaFree(data);
      break;
    case Memory::Pinned:
      cudaFreeHost(data);
      break;
    }
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  Memory memory;
  size_t bytes;
  void *data = nullptr;
  const char *allocError = "out of memory";
};

/// Copies between any two kinds of memory; an empty string on success.
std::string copy(void *dst, const void *src, size_t bytes);

//===----------------------------------------------------------------------===//
// The suite
//===----------------------------------------------------------------------===//

/// Every collective, type and placement, the caller's stream, the large
/// all-reduce and the argument errors, on one rank of a team.
void runSuite(Member &member);

} // namespace nccltest

#endif // LOOM_RUNTIME_COMM_NCCL_NCCLSELFTEST_H
