//===- NcclSelfTestCases.cpp - The collectives and their checks -----------===//
//
// Every collective on float32, float16 and int32 data (SUM, MEAN, MAX and
// MIN for the reductions) with host, device, pinned, managed, mixed and
// in-place buffers; the same on the caller's stream; one large all-reduce;
// and the calls that must fail. Results are compared with values computed
// here.
//
//===----------------------------------------------------------------------===//

#include "NcclSelfTest.h"

#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace nccltest {

namespace {

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

/// all_reduce and all_gather on the caller's stream: the input is copied
/// in on that stream just before the call and the output read back on it
/// just after, so that the results are right only if the plugin queues its
/// work there, behind the input and ahead of the read-back. (The host
/// stand-ins run copies queued on a non-blocking stream only when that
/// stream is next used or synchronised.)
void callerStream(Member &member) {
  Outcome outcome;
  cudaStream_t stream = nullptr;
  cudaError_t created =
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (created != cudaSuccess) {
    ++outcome.cases;
    outcome.error(
        format("cudaStreamCreateWithFlags: %s", cudaGetErrorString(created)));
    report(member, "collectives on the caller's stream", outcome);
    return;
  }
  const size_t count = 1037;
  const int size = member.team->size, rank = member.rank;
  const Placement placements[] = {
      {"device", Memory::Device, Memory::Device, false},
      {"host", Memory::Host, Memory::Host, false},
      {"host->device", Memory::Host, Memory::Device, false},
      {"device->host", Memory::Device, Memory::Host, false},
  };
  for (Collective collective : {Collective::AllReduce, Collective::AllGather})
    for (const Placement &placement : placements) {
      ++outcome.cases;
      bool gather = collective == Collective::AllGather;
      size_t outCount = gather ? count * size_t(size) : count;
      std::vector<float> input(count), expected(outCount), output(outCount);
      for (size_t k = 0; k < count; ++k)
        input[k] = float(valueAt(rank, k, LOOM_DTYPE_FLOAT32));
      for (size_t k = 0; k < outCount; ++k)
        expected[k] = float(
            gather ? valueAt(int(k / count), k % count, LOOM_DTYPE_FLOAT32)
                   : reduced(size, k, LOOM_DTYPE_FLOAT32, LOOM_REDUCE_SUM));
      Buffer src(placement.src, count * 4), dst(placement.dst, outCount * 4);
      // Stale contents must not pass for results.
      std::vector<unsigned char> sentinel(outCount * 4, 0x7b);
      std::string problem =
          !src.data   ? src.allocError
          : !dst.data ? dst.allocError
                      : copy(dst.data, sentinel.data(), sentinel.size());
      if (problem.empty())
        problem = copy(src.data, sentinel.data(), count * 4);
      if (!problem.empty()) {
        outcome.error(format("%s %s: setting up: %s",
                             collectiveName(collective), placement.name,
                             problem.c_str()));
        continue;
      }
      char err[512] = "";
      cudaError_t in = cudaMemcpyAsync(src.data, input.data(), count * 4,
                                       cudaMemcpyDefault, stream);
      int status =
          gather ? ops->all_gather(member.group, src.data, dst.data, count * 4,
                                   stream, err, sizeof(err))
                 : ops->all_reduce(member.group, src.data, dst.data, count,
                                   LOOM_DTYPE_FLOAT32, LOOM_REDUCE_SUM, stream,
                                   err, sizeof(err));
      cudaError_t out = cudaMemcpyAsync(output.data(), dst.data, outCount * 4,
                                        cudaMemcpyDefault, stream);
      cudaError_t synced = cudaStreamSynchronize(stream);
      if (in != cudaSuccess || out != cudaSuccess || synced != cudaSuccess ||
          status != 0) {
        outcome.error(format("%s %s: status %d: %s (copies: %s, %s, %s)",
                             collectiveName(collective), placement.name, status,
                             err, cudaGetErrorString(in),
                             cudaGetErrorString(out),
                             cudaGetErrorString(synced)));
        continue;
      }
      size_t wrong = 0;
      for (size_t k = 0; k < outCount; ++k)
        wrong += output[k] != expected[k];
      if (wrong)
        outcome.error(format("%s %s: %zu of %zu elements wrong",
                             collectiveName(collective), placement.name, wrong,
                             outCount));
    }
  cudaStreamDestroy(stream);
  report(member, "collectives on the caller's stream", outcome);
}

} // namespace

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
  callerStream(member);
  if (largeMebibytes > 0)
    largeAllReduce(member, largeMebibytes);
  checkErrors(member);
}

} // namespace nccltest
