//===- NcclSelfTest.cpp - loom-nccl-selftest ------------------------------===//
//
// Checks libloom_comm_nccl.so on the GPUs of this machine, through the
// plugin's loom_comm_backend_ops exactly as the runtime calls them:
//  - a group of one rank on one GPU, always;
//  - a group of one rank per GPU (one thread each) when several are visible.
// Every collective runs on float32, float16 and int32 data (SUM, MEAN, MAX
// and MIN for the reductions) with host, device, pinned, managed, mixed and
// in-place buffers, and the results are compared with values computed here.
// It prints the versions and devices first, one PASS or FAIL line per
// collective, type and operator (with the largest error), and a summary;
// the exit status is 0 when everything passed.
//
// Without a GPU, --expect-no-device checks what can be checked: that the
// plugin loads, its table, its argument errors, and that group_create fails
// with a message rather than crashing.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/CommBackend.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <limits.h>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

const char *const kUsage =
    "usage: loom-nccl-selftest [--plugin PATH] [--ranks N] [--large-mib M] "
    "[--timeout S] [--expect-no-device]\n"
    "  --plugin PATH        the plugin (default: "
    "<this binary>/../lib/libloom_comm_nccl.so)\n"
    "  --ranks N            GPUs (threads) of the multi-rank group; 1 skips "
    "it (default: all visible, at most 8)\n"
    "  --large-mib M        size of the large all-reduce, 0 for none "
    "(default 48)\n"
    "  --timeout S          give up after S seconds (default 300)\n"
    "  --expect-no-device   no GPU here: check loading and errors only\n";

const loom_comm_backend_ops *ops = nullptr;
int passed = 0;
int failed = 0;

void pass(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
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

void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
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

void onTimeout(int) {
  const char message[] = "FAIL timed out (a collective or the NCCL set-up "
                         "hangs; rerun with NCCL_DEBUG=INFO)\n";
  ssize_t ignored = write(STDOUT_FILENO, message, sizeof(message) - 1);
  (void)ignored;
  _exit(1);
}

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *fmt, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, fmt);
  vsnprintf(buffer, sizeof(buffer), fmt, args);
  va_end(args);
  return buffer;
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

std::string defaultPluginPath() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0)
    return "libloom_comm_nccl.so";
  self[n] = '\0';
  std::string path(self);
  size_t slash = path.rfind('/');
  path.resize(slash == std::string::npos ? 0 : slash);
  return path + "/../lib/libloom_comm_nccl.so";
}

bool loadPlugin(const std::string &path) {
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fail("dlopen %s: %s", path.c_str(), dlerror());
    return false;
  }
  auto entry = reinterpret_cast<loom_comm_backend_entry>(
      dlsym(library, "loom_comm_backend_nccl"));
  if (!entry) {
    fail("dlsym loom_comm_backend_nccl: %s", dlerror());
    return false;
  }
  ops = entry();
  if (!ops) {
    fail("loom_comm_backend_nccl() returned NULL");
    return false;
  }
  if (ops->abi_version != LOOM_COMM_BACKEND_ABI_VERSION || !ops->name ||
      strcmp(ops->name, "nccl") != 0 || !ops->group_create ||
      !ops->group_destroy || !ops->all_reduce || !ops->all_gather ||
      !ops->reduce_scatter || !ops->all_to_all || !ops->broadcast) {
    fail("the backend table: abi %d (want %d), name %s, or a NULL function",
         ops->abi_version, LOOM_COMM_BACKEND_ABI_VERSION,
         ops->name ? ops->name : "(null)");
    ops = nullptr;
    return false;
  }
  pass("plugin: %s, name \"%s\", abi %d, every function present", path.c_str(),
       ops->name, ops->abi_version);
  return true;
}

void printVersions() {
  int nccl = 0;
  Dl_info where;
  const char *ncclPath =
      dladdr(reinterpret_cast<void *>(&ncclGetVersion), &where) &&
              where.dli_fname
          ? where.dli_fname
          : "?";
  if (ncclGetVersion(&nccl) == ncclSuccess)
    printf("NCCL %d.%d.%d (%s; headers %d.%d.%d)\n", nccl / 10000,
           nccl / 100 % 100, nccl % 100, ncclPath, NCCL_MAJOR, NCCL_MINOR,
           NCCL_PATCH);
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  printf("CUDA runtime %d.%d, driver %d.%d\n", runtime / 1000,
         runtime % 1000 / 10, driver / 1000, driver % 1000 / 10);
  const char *visible = getenv("CUDA_VISIBLE_DEVICES");
  if (visible)
    printf("CUDA_VISIBLE_DEVICES=%s\n", visible);
  fflush(stdout);
}

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

/// Every rank hands in its outcome for the line `title`; rank 0 prints it.
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

/// What rank `rank` holds at element `i`: small integers for int32, their
/// quarters for the floats, so that sums are exact even in float16.
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

/// op over the ranks of valueAt(r, i), as the result type holds it.
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

enum class Memory { Host, Device, Pinned, Managed };

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
std::string copy(void *dst, const void *src, size_t bytes) {
  cudaError_t error = cudaMemcpy(dst, src, bytes, cudaMemcpyDefault);
  return error == cudaSuccess
             ? std::string()
             : format("cudaMemcpy: %s", cudaGetErrorString(error));
}

//===----------------------------------------------------------------------===//
// The collectives
//===----------------------------------------------------------------------===//

enum class Collective {
  AllReduce,
  ReduceScatter,
  AllGather,
  AllToAll,
  Broadcast
};

const char *collectiveName(Collective collective) {
  switch (collective) {
  case Collective::AllReduce:
    return "all_reduce";
  case Collective::ReduceScatter:
    return "reduce_scatter";
  case Collective::AllGather:
    return "all_gather";
  case Collective::AllToAll:
    return "all_to_all";
  case Collective::Broadcast:
    return "broadcast";
  }
  return "?";
}

struct Placement {
  const char *name;
  Memory src, dst;
  bool inPlace;
};

const Placement kPlacements[] = {
    {"host", Memory::Host, Memory::Host, false},
    {"device", Memory::Device, Memory::Device, false},
    {"host->device", Memory::Host, Memory::Device, false},
    {"device->host", Memory::Device, Memory::Host, false},
    {"pinned", Memory::Pinned, Memory::Pinned, false},
    {"managed", Memory::Managed, Memory::Managed, false},
    {"in-place host", Memory::Host, Memory::Host, true},
    {"in-place device", Memory::Device, Memory::Device, true},
};

struct Spec {
  Collective collective;
  loom_dtype dtype;
  loom_reduce_op op;
  int root;
  size_t count;
};

/// Runs one collective with one placement of its buffers on this rank and
/// checks the result.
void runCase(Member &member, const Spec &spec, const Placement &placement,
             Outcome &outcome) {
  int size = member.team->size, rank = member.rank;
  size_t count = spec.count, n = size_t(size);
  size_t es = elementSize(spec.dtype);
  size_t inCount = count, outCount = count;
  switch (spec.collective) {
  case Collective::ReduceScatter:
    inCount = n * count;
    break;
  case Collective::AllGather:
    outCount = n * count;
    break;
  case Collective::AllToAll:
    inCount = outCount = n * count;
    break;
  default:
    break;
  }
  ++outcome.cases;

  // The input, and the expected output, on the host.
  std::vector<unsigned char> input(inCount * es), expected(outCount * es);
  for (size_t k = 0; k < inCount; ++k)
    store(input.data(), k, spec.dtype, valueAt(rank, k, spec.dtype));
  for (size_t k = 0; k < outCount; ++k) {
    double e = 0;
    size_t block = k / count, i = k % count;
    switch (spec.collective) {
    case Collective::AllReduce:
      e = reduced(size, k, spec.dtype, spec.op);
      break;
    case Collective::ReduceScatter:
      e = reduced(size, size_t(rank) * count + k, spec.dtype, spec.op);
      break;
    case Collective::AllGather:
      e = valueAt(int(block), i, spec.dtype);
      break;
    case Collective::AllToAll:
      e = valueAt(int(block), size_t(rank) * count + i, spec.dtype);
      break;
    case Collective::Broadcast:
      e = valueAt(spec.root, k, spec.dtype);
      break;
    }
    store(expected.data(), k, spec.dtype, e);
  }

  // The buffers: two, or one for the in-place forms.
  size_t inBytes = inCount * es, outBytes = outCount * es;
  size_t oneBytes = inBytes > outBytes ? inBytes : outBytes;
  Buffer first(placement.src, placement.inPlace ? oneBytes : inBytes);
  Buffer second(placement.dst, placement.inPlace ? 0 : outBytes);
  if (!first.data || !second.data) {
    outcome.error(format("%s: allocating: %s", placement.name,
                         !first.data ? first.allocError : second.allocError));
    return;
  }
  char *src = static_cast<char *>(first.data);
  char *dst = static_cast<char *>(placement.inPlace ? first.data : second.data);
  if (placement.inPlace) {
    if (spec.collective == Collective::AllGather)
      src = dst + size_t(rank) * count * es;
    else if (spec.collective == Collective::ReduceScatter)
      dst = src + size_t(rank) * count * es;
  }
  // Marks the output so that unwritten elements show.
  std::vector<unsigned char> sentinel(outBytes, 0x7b);
  std::string problem = copy(dst, sentinel.data(), outBytes);
  if (problem.empty())
    problem = copy(src, input.data(), inBytes);
  if (!problem.empty()) {
    outcome.error(
        format("%s: setting up: %s", placement.name, problem.c_str()));
    return;
  }
  // A broadcast's non-root passes no input when it has its own buffer.
  const void *source = src;
  if (spec.collective == Collective::Broadcast && rank != spec.root &&
      !placement.inPlace)
    source = nullptr;

  char err[512] = "";
  int status = 0;
  void *group = member.group;
  switch (spec.collective) {
  case Collective::AllReduce:
    status = ops->all_reduce(group, source, dst, count, spec.dtype, spec.op,
                             nullptr, err, sizeof(err));
    break;
  case Collective::ReduceScatter:
    status = ops->reduce_scatter(group, source, dst, count, spec.dtype, spec.op,
                                 nullptr, err, sizeof(err));
    break;
  case Collective::AllGather:
    status = ops->all_gather(group, source, dst, count * es, nullptr, err,
                             sizeof(err));
    break;
  case Collective::AllToAll:
    status = ops->all_to_all(group, source, dst, count * es, nullptr, err,
                             sizeof(err));
    break;
  case Collective::Broadcast:
    status = ops->broadcast(group, source, dst, count * es, spec.root, nullptr,
                            err, sizeof(err));
    break;
  }
  if (status != 0) {
    outcome.error(format("%s: status %d: %s", placement.name, status, err));
    return;
  }

  std::vector<unsigned char> output(outBytes);
  problem = copy(output.data(), dst, outBytes);
  if (!problem.empty()) {
    outcome.error(
        format("%s: reading back: %s", placement.name, problem.c_str()));
    return;
  }
  double tol = tolerance(spec.dtype, spec.op), worst = 0;
  size_t wrong = 0, firstWrong = 0;
  for (size_t k = 0; k < outCount; ++k) {
    double got = load(output.data(), k, spec.dtype);
    double want = load(expected.data(), k, spec.dtype);
    double error = std::isnan(got) ? INFINITY : std::fabs(got - want);
    worst = std::fmax(worst, error);
    if (error > tol && wrong++ == 0)
      firstWrong = k;
  }
  outcome.maxError = std::fmax(outcome.maxError, worst);
  if (wrong)
    outcome.error(
        format("%s: %zu of %zu elements wrong, first [%zu] = %g, expected %g",
               placement.name, wrong, outCount, firstWrong,
               load(output.data(), firstWrong, spec.dtype),
               load(expected.data(), firstWrong, spec.dtype)));
}

void runLine(Member &member, const Spec &spec, const std::string &title) {
  Outcome outcome;
  for (const Placement &placement : kPlacements)
    runCase(member, spec, placement, outcome);
  report(member, title, outcome);
}

/// The calls that must fail, and how.
void checkErrors(Member &member) {
  Outcome outcome;
  void *group = member.group;
  int size = member.team->size;
  float data[8] = {0};
  char err[512];
  // Each call runs as an argument of expect(), after the previous message
  // was cleared.
  auto expect = [&](const char *what, int want, int got, const char *needle) {
    ++outcome.cases;
    if (got != want || (needle && !strstr(err, needle)))
      outcome.error(format("%s: status %d (want %d), message \"%s\"", what, got,
                           want, err));
    else if (member.rank == 0 && size == 1)
      printf("  %s -> %d%s%s\n", what, got, *err ? ": " : "", err);
    err[0] = '\0';
  };
  err[0] = '\0';
  expect("all_reduce int16", LOOM_ERROR_UNSUPPORTED,
         ops->all_reduce(group, data, data, 4, LOOM_DTYPE_INT16,
                         LOOM_REDUCE_SUM, nullptr, err, sizeof(err)),
         "int16");
  expect("reduce_scatter bool max", LOOM_ERROR_UNSUPPORTED,
         ops->reduce_scatter(group, data, data, 1, LOOM_DTYPE_BOOL,
                             LOOM_REDUCE_MAX, nullptr, err, sizeof(err)),
         "bool");
  expect("all_reduce op 9", LOOM_ERROR_INVALID_ARGUMENT,
         ops->all_reduce(group, data, data, 4, LOOM_DTYPE_FLOAT32,
                         loom_reduce_op(9), nullptr, err, sizeof(err)),
         "reduction");
  expect("broadcast root = size", LOOM_ERROR_INVALID_ARGUMENT,
         ops->broadcast(group, data, data, 4, size, nullptr, err, sizeof(err)),
         "root");
  expect("all_reduce NULL dst", LOOM_ERROR_INVALID_ARGUMENT,
         ops->all_reduce(group, data, nullptr, 4, LOOM_DTYPE_FLOAT32,
                         LOOM_REDUCE_SUM, nullptr, err, sizeof(err)),
         "NULL");
  expect("overflowing size", LOOM_ERROR_INVALID_ARGUMENT,
         size > 1 ? ops->all_gather(group, data, data, SIZE_MAX / 2 + 1,
                                    nullptr, err, sizeof(err))
                  : ops->all_reduce(group, data, data, SIZE_MAX / 2,
                                    LOOM_DTYPE_FLOAT32, LOOM_REDUCE_SUM,
                                    nullptr, err, sizeof(err)),
         "overflow");
  // Nothing to move: success, whatever the buffers.
  expect("zero-sized all_reduce", 0,
         ops->all_reduce(group, nullptr, nullptr, 0, LOOM_DTYPE_FLOAT32,
                         LOOM_REDUCE_SUM, nullptr, err, sizeof(err)),
         nullptr);
  expect("zero-sized all_to_all", 0,
         ops->all_to_all(group, nullptr, nullptr, 0, nullptr, err, sizeof(err)),
         nullptr);
  // A message truncated to a tiny buffer, and none at all.
  char tiny[8];
  ++outcome.cases;
  int s = ops->all_reduce(group, data, data, 4, LOOM_DTYPE_INT16,
                          LOOM_REDUCE_SUM, nullptr, tiny, sizeof(tiny));
  if (s != LOOM_ERROR_UNSUPPORTED || strlen(tiny) != sizeof(tiny) - 1)
    outcome.error("the message is not truncated to its buffer");
  ++outcome.cases;
  if (ops->all_reduce(group, data, data, 4, LOOM_DTYPE_INT16, LOOM_REDUCE_SUM,
                      nullptr, nullptr, 0) != LOOM_ERROR_UNSUPPORTED)
    outcome.error("no status without an error buffer");
  report(member, "errors", outcome);
}

/// One large all-reduce from host and from device memory, checked, and
/// timed for the record.
void largeAllReduce(Member &member, int mebibytes) {
  const size_t count = size_t(mebibytes) << 18; // float32
  Outcome outcome;
  std::string timing;
  for (Memory memory : {Memory::Device, Memory::Host}) {
    ++outcome.cases;
    Buffer buffer(memory, count * 4);
    std::vector<float> host(count);
    for (size_t i = 0; i < count; ++i)
      host[i] = float(valueAt(member.rank, i, LOOM_DTYPE_FLOAT32));
    if (!buffer.data) {
      outcome.error(
          format("%s: allocating: %s", memoryName(memory), buffer.allocError));
      continue;
    }
    char err[512] = "";
    int status = 0;
    double ms = 0;
    const int iterations = 5;
    for (int it = 0; it <= iterations && !status; ++it) {
      std::string problem = copy(buffer.data, host.data(), count * 4);
      if (!problem.empty()) {
        outcome.error(problem);
        status = -1;
        break;
      }
      auto start = std::chrono::steady_clock::now();
      status = ops->all_reduce(member.group, buffer.data, buffer.data, count,
                               LOOM_DTYPE_FLOAT32, LOOM_REDUCE_SUM, nullptr,
                               err, sizeof(err));
      auto stop = std::chrono::steady_clock::now();
      if (it > 0) // the first is a warm-up
        ms += std::chrono::duration<double, std::milli>(stop - start).count();
    }
    if (status > 0)
      outcome.error(
          format("%s: status %d: %s", memoryName(memory), status, err));
    if (status)
      continue;
    std::vector<float> out(count);
    std::string problem = copy(out.data(), buffer.data, count * 4);
    if (!problem.empty()) {
      outcome.error(problem);
      continue;
    }
    size_t wrong = 0;
    for (size_t i = 0; i < count; ++i) {
      double error =
          std::fabs(out[i] - reduced(member.team->size, i, LOOM_DTYPE_FLOAT32,
                                     LOOM_REDUCE_SUM));
      outcome.maxError = std::fmax(outcome.maxError, error);
      wrong += error > 0;
    }
    if (wrong)
      outcome.error(
          format("%s: %zu elements wrong", memoryName(memory), wrong));
    ms /= iterations;
    timing +=
        format("%s%s %.3f ms (%.1f GB/s algbw)", timing.empty() ? "" : ", ",
               memoryName(memory), ms, count * 4 / ms / 1e6);
  }
  report(member,
         format("all_reduce float32 sum %d MiB in place (%s)", mebibytes,
                timing.c_str()),
         outcome);
}

int largeMebibytes = 48;

void runSuite(Member &member) {
  const size_t count = 1037;
  const loom_dtype dtypes[] = {LOOM_DTYPE_FLOAT32, LOOM_DTYPE_FLOAT16,
                               LOOM_DTYPE_INT32};
  const loom_reduce_op reductions[] = {LOOM_REDUCE_SUM, LOOM_REDUCE_MEAN,
                                       LOOM_REDUCE_MAX, LOOM_REDUCE_MIN};
  int size = member.team->size;
  for (Collective collective :
       {Collective::AllReduce, Collective::ReduceScatter}) {
    for (loom_dtype dtype : dtypes)
      for (loom_reduce_op op : reductions)
        runLine(member, {collective, dtype, op, 0, count},
                format("%s %s %s", collectiveName(collective), dtypeName(dtype),
                       opName(op)));
  }
  for (Collective collective :
       {Collective::AllGather, Collective::AllToAll, Collective::Broadcast}) {
    for (loom_dtype dtype : dtypes) {
      for (int root = 0; root < size; root += size > 1 ? size - 1 : 1) {
        std::string title =
            format("%s %s", collectiveName(collective), dtypeName(dtype));
        if (collective == Collective::Broadcast)
          title += format(" root %d", root);
        runLine(member, {collective, dtype, LOOM_REDUCE_SUM, root, count},
                title);
        if (collective != Collective::Broadcast)
          break;
      }
    }
  }
  if (largeMebibytes > 0)
    largeAllReduce(member, largeMebibytes);
  checkErrors(member);
}

/// One rank of a team: sets up its group, runs the suite, tears down.
void runMember(Member &member, int device) {
  Team *team = member.team;
  Outcome setup;
  ++setup.cases;
  if (device >= 0) {
    cudaError_t error = cudaSetDevice(device);
    if (error != cudaSuccess)
      setup.error(
          format("cudaSetDevice(%d): %s", device, cudaGetErrorString(error)));
  }
  loom_comm_bootstrap bootstrap = {member.rank, team->size, teamBroadcast,
                                   &member};
  char err[512] = "";
  int status = ops->group_create(&bootstrap, &member.group, err, sizeof(err));
  if (status != 0)
    setup.error(format("group_create: status %d: %s", status, err));
  int current = -1;
  cudaGetDevice(&current);
  report(member,
         format("group_create: %d rank%s (rank 0 on device %d)", team->size,
                team->size == 1 ? "" : "s", current),
         setup);
  // Every rank learns whether all set up, through the outcomes.
  bool ok = true;
  for (const Outcome &o : team->outcomes)
    ok = ok && o.bad == 0;
  team->barrier();
  if (!ok) {
    ops->group_destroy(member.group);
    return;
  }
  runSuite(member);
  ops->group_destroy(member.group);
}

void runTeam(int size, bool pinDevices) {
  Team team;
  team.size = size;
  team.outcomes.resize(size_t(size));
  std::vector<Member> members;
  for (int r = 0; r < size; ++r)
    members.push_back({&team, r, nullptr});
  if (size == 1) {
    runMember(members[0], -1);
    return;
  }
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r)
    threads.emplace_back(runMember, std::ref(members[size_t(r)]),
                         pinDevices ? r : -1);
  for (std::thread &t : threads)
    t.join();
}

/// Without a device: the argument errors, and group_create's failure.
void checkWithoutDevice() {
  char err[512] = "";
  void *group = nullptr;
  int s = ops->group_create(nullptr, &group, err, sizeof(err));
  if (s == LOOM_ERROR_INVALID_ARGUMENT && strstr(err, "nccl: group_create:"))
    pass("group_create without a bootstrap: %s", err);
  else
    fail("group_create without a bootstrap: status %d, \"%s\"", s, err);
  loom_comm_bootstrap bad = {1, 1, nullptr, nullptr};
  s = ops->group_create(&bad, &group, err, sizeof(err));
  if (s == LOOM_ERROR_INVALID_ARGUMENT)
    pass("group_create for rank 1 of 1: %s", err);
  else
    fail("group_create for rank 1 of 1: status %d, \"%s\"", s, err);
  loom_comm_bootstrap noBroadcast = {0, 2, nullptr, nullptr};
  s = ops->group_create(&noBroadcast, &group, err, sizeof(err));
  if (s == LOOM_ERROR_INVALID_ARGUMENT)
    pass("group_create of 2 without a broadcast: %s", err);
  else
    fail("group_create of 2 without a broadcast: status %d, \"%s\"", s, err);

  float data[4] = {0};
  int statuses[] = {
      ops->all_reduce(nullptr, data, data, 4, LOOM_DTYPE_FLOAT32,
                      LOOM_REDUCE_SUM, nullptr, err, sizeof(err)),
      ops->all_gather(nullptr, data, data, 4, nullptr, err, sizeof(err)),
      ops->reduce_scatter(nullptr, data, data, 1, LOOM_DTYPE_FLOAT32,
                          LOOM_REDUCE_SUM, nullptr, err, sizeof(err)),
      ops->all_to_all(nullptr, data, data, 4, nullptr, err, sizeof(err)),
      ops->broadcast(nullptr, data, data, 4, 0, nullptr, err, sizeof(err)),
  };
  bool allInvalid = true;
  for (int status : statuses)
    allInvalid = allInvalid && status == LOOM_ERROR_INVALID_ARGUMENT;
  if (allInvalid)
    pass("every collective on a NULL group: %s", err);
  else
    fail("a collective on a NULL group did not return "
         "LOOM_ERROR_INVALID_ARGUMENT");
  ops->group_destroy(nullptr);

  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error == cudaSuccess && count > 0) {
    printf("note: %d CUDA device%s visible after all; not checking "
           "group_create's failure\n",
           count, count == 1 ? " is" : "s are");
    return;
  }
  loom_comm_bootstrap one = {0, 1, nullptr, nullptr};
  err[0] = '\0';
  s = ops->group_create(&one, &group, err, sizeof(err));
  if (s != 0 && !group && strstr(err, "nccl: group_create: "))
    pass("group_create without a device fails cleanly: status %d: %s", s, err);
  else
    fail("group_create without a device: status %d, group %p, \"%s\"", s, group,
         err);
}

} // namespace

int main(int argc, char **argv) {
  std::string plugin;
  int ranks = 0;
  int timeout = 300;
  bool expectNoDevice = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool hasValue = i + 1 < argc;
    if (arg == "--plugin" && hasValue) {
      plugin = argv[++i];
    } else if (arg == "--ranks" && hasValue) {
      ranks = atoi(argv[++i]);
    } else if (arg == "--large-mib" && hasValue) {
      largeMebibytes = atoi(argv[++i]);
    } else if (arg == "--timeout" && hasValue) {
      timeout = atoi(argv[++i]);
    } else if (arg == "--expect-no-device") {
      expectNoDevice = true;
    } else if (arg == "--help" || arg == "-h") {
      fputs(kUsage, stdout);
      return 0;
    } else {
      fputs(kUsage, stderr);
      return 2;
    }
  }
  if (timeout > 0) {
    signal(SIGALRM, onTimeout);
    alarm(unsigned(timeout));
  }
  if (plugin.empty())
    plugin = defaultPluginPath();

  printf("loom-nccl-selftest\n");
  printVersions();
  if (!loadPlugin(plugin)) {
    printf("summary: %d passed, %d failed\n", passed, failed);
    return 1;
  }

  if (expectNoDevice) {
    checkWithoutDevice();
    printf("summary: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
  }

  int devices = 0;
  cudaError_t error = cudaGetDeviceCount(&devices);
  if (error != cudaSuccess || devices == 0) {
    fail("no CUDA device: %s",
         error != cudaSuccess ? cudaGetErrorString(error) : "none visible");
    printf("summary: %d passed, %d failed\n", passed, failed);
    return 1;
  }
  for (int d = 0; d < devices; ++d) {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, d) == cudaSuccess)
      printf("device %d: %s, sm_%d%d, %.1f GiB\n", d, prop.name, prop.major,
             prop.minor, double(prop.totalGlobalMem) / double(1ull << 30));
  }
  fflush(stdout);

  printf("== one rank\n");
  fflush(stdout);
  runTeam(1, false);

  int teamSize = ranks > 0 ? ranks : (devices < 8 ? devices : 8);
  if (teamSize > devices)
    teamSize = devices;
  if (teamSize > 1) {
    // One thread per GPU: the plugin takes each thread's current device,
    // which a launcher's local rank would override.
    for (const char *name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                             "SLURM_LOCALID", "LOCAL_RANK"})
      unsetenv(name);
    printf("== %d ranks, one thread per GPU\n", teamSize);
    fflush(stdout);
    runTeam(teamSize, true);
  } else {
    printf("== no multi-rank group: %s\n",
           devices == 1 ? "one GPU is visible" : "--ranks 1");
  }
  printf("summary: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
