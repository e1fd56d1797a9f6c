//===- loom-calibrate.cpp - Measure this machine as a cluster -------------===//
//
// mpirun -np N loom-calibrate [--threads T] [--quick] [-o FILE]
//
// Every rank is one device of a one-node cluster, and all ranks measure at
// the same time, so that the figures are those of a device while its
// neighbours are busy too:
//
//  - float32 GEMM rate for square sizes 32 to 1024, through the runtime's own
//    GEMM entry point (oneDNN's sgemm when libdnnl.so.2 is installed, else
//    OpenBLAS): the median of several timed samples after a warm-up. The
//    best is the device's float32 peak; the curve is
//    `matmul_tflops_by_size`. float64 is measured the same way at sizes 256
//    and 512.
//  - memory bandwidth: a STREAM triad (a = b + s*c, doubles) over arrays far
//    larger than the last-level cache, counting 3 x 8 bytes per element
//    (two reads, one write).
//  - the link between ranks: MPI ping-pong of 8 B and large messages between
//    rank pairs (0-1, 2-3, ...), all pairs at once, the fastest of many round
//    trips timed one by one; latency (alpha) is the 8 B one-way time,
//    bandwidth (beta) the large message's bytes over its one-way time less
//    alpha. An MPI_Allreduce of a large buffer checks the fit (against the
//    ring model 2(p-1)/p * bytes / beta + 2(p-1) alpha).
//
// Rates are the slowest rank's (the step of a synchronous program waits for
// it). Rank 0 writes the cluster description (docs/Cluster.md) to FILE
// (written aside and renamed) or to standard output. `loomc calibrate` runs
// this tool through mpirun.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Json.h"
#include "loom/runtime/Kernels.h"
#include "loom/runtime/Support.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <fcntl.h>
#include <fstream>
#include <mpi.h>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <vector>

using namespace loom::rt;

namespace {
using Clock = std::chrono::steady_clock;

struct Settings {
  int threads = 1;
  bool quick = false;
  std::string output;
};

/// How long and how often to time: the quick settings keep `loomc calibrate
/// --quick` to a few seconds (tests), at the cost of noisier figures.
struct Effort {
  int samples;
  double minSampleSeconds;
  int pingIters;
  size_t largeMessage;
  size_t streamArrayBytes;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double maxOverRanks(double value) {
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return result;
}

/// Median seconds per call of `body` over `samples` samples, each enough
/// calls to last at least `minSampleSeconds` (a single timed call decides
/// how many). Warms up first. A `collective` body is called as often on
/// every rank: the ranks agree on the count.
template <typename Body>
double timePerCall(const Effort &effort, Body body, bool collective = false) {
  body();
  auto start = Clock::now();
  body();
  double once = std::max(seconds(start), 1e-9);
  if (collective)
    once = maxOverRanks(once);
  int calls = std::max(1, static_cast<int>(effort.minSampleSeconds / once));
  std::vector<double> times;
  for (int s = 0; s < effort.samples; ++s) {
    start = Clock::now();
    for (int i = 0; i < calls; ++i)
      body();
    times.push_back(seconds(start) / calls);
  }
  return median(times);
}

double minOverRanks(double value) {
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  return result;
}

template <typename T> MemRefDesc<T, 2> matrix(std::vector<T> &data, int64_t n) {
  return {data.data(), data.data(), 0, {n, n}, {n, 1}};
}

/// GFLOP/s of one rank's n x n x n GEMM through the runtime's kernel.
template <typename T> double gemmRate(int64_t n, const Effort &effort) {
  std::vector<T> a(n * n), b(n * n), c(n * n);
  for (int64_t i = 0; i < n * n; ++i) {
    a[i] = static_cast<T>((i * 7) % 13) / 13;
    b[i] = static_cast<T>((i * 5) % 11) / 11;
  }
  MemRefDesc<T, 2> da = matrix(a, n), db = matrix(b, n), dc = matrix(c, n);
  double perCall = timePerCall(effort, [&] {
    if constexpr (std::is_same_v<T, float>)
      _mlir_ciface_loom_kernel_gemm_f32(&da, &db, &dc, 0, 0);
    else
      _mlir_ciface_loom_kernel_gemm_f64(&da, &db, &dc, 0, 0);
  });
  return 2.0 * n * n * n / perCall / 1e9;
}

struct Triad {
  double *a, *b, *c;
  double scalar;
};

/// One STREAM triad pass over the pool's threads.
void triad(Triad &t, int64_t n) {
  loom_parallel_for(
      [](void *ctx, int64_t lo, int64_t hi) {
        auto &t = *static_cast<Triad *>(ctx);
        double *__restrict a = t.a;
        const double *__restrict b = t.b;
        const double *__restrict c = t.c;
        for (int64_t i = lo; i < hi; ++i)
          a[i] = b[i] + t.scalar * c[i];
      },
      &t, n);
}

/// The last-level cache's size in bytes, or 0 when unknown.
size_t lastLevelCache() {
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    long size = ::sysconf(name);
    if (size > 0)
      return static_cast<size_t>(size);
  }
  return 0;
}

/// `key` of /proc/meminfo in bytes, or 0.
double memInfoBytes(const char *key) {
  std::ifstream in("/proc/meminfo");
  std::string line;
  size_t keyLength = std::strlen(key);
  while (std::getline(in, line))
    if (line.compare(0, keyLength, key) == 0 && line.size() > keyLength &&
        line[keyLength] == ':')
      return std::atof(line.c_str() + keyLength + 1) * 1024;
  return 0;
}

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, 10, "model name") != 0)
      continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos)
      continue;
    size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
  }
  return "";
}

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0 || !*name)
    return "unknown host";
  return name;
}

std::string utcNow() {
  std::time_t now = std::time(nullptr);
  std::tm tm = {};
  ::gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string format(const char *fmt, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), fmt, value);
  return text;
}

/// A figure rounded to 4 significant digits (the noise is larger).
double rounded(double value) {
  if (!(value > 0))
    return value;
  return std::stod(format("%.4g", value));
}

[[noreturn]] void abortAll(int rank, const std::string &message) {
  std::fprintf(stderr, "loom-calibrate: rank %d: error: %s\n", rank,
               message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

/// Writes `text` to `path` whole or not at all (a temporary beside it,
/// renamed).
bool writeFile(const std::string &path, const std::string &text,
               std::string &error) {
  std::string temp = path + ".tmp" + std::to_string(::getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err = 0;
  bool ok = fd >= 0 && writeAll(fd, text.data(), text.size(), err);
  if (fd < 0)
    err = errno;
  if (fd >= 0 && ::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && ::rename(temp.c_str(), path.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    ::unlink(temp.c_str());
    error = "cannot write '" + path + "': " + std::strerror(err);
  }
  return ok;
}

int usage() {
  std::fprintf(stderr,
               "usage: mpirun -np N loom-calibrate [--threads T] [--quick] "
               "[-o FILE]\n"
               "Measures GEMM rates, memory bandwidth and the MPI link of "
               "this machine, one\ndevice per rank, and writes a cluster "
               "description (docs/Cluster.md).\n");
  return 2;
}
} // namespace

int main(int argc, char **argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--quick") {
      settings.quick = true;
    } else if (arg == "--threads" && i + 1 < argc) {
      char *end = nullptr;
      long threads = std::strtol(argv[++i], &end, 10);
      if (*end || threads < 1 || threads > 4096) {
        std::fprintf(stderr, "loom-calibrate: error: --threads must be a "
                             "positive integer\n");
        return 2;
      }
      settings.threads = static_cast<int>(threads);
    } else if (arg == "-o" && i + 1 < argc) {
      settings.output = argv[++i];
    } else {
      return usage();
    }
  }

  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  loom_set_num_threads(settings.threads);

  Effort effort =
      settings.quick
          ? Effort{5, 0.01, 50, size_t(16) << 20, size_t(64) << 20}
          : Effort{7, 0.05, 1000, size_t(64) << 20, size_t(512) << 20};
  auto start = Clock::now();
  double load = -1;
  if (std::ifstream in("/proc/loadavg"); !(in >> load))
    load = -1;
  long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (rank == 0 && load >= 0 && cpus > 0 &&
      load + size * settings.threads > cpus + 0.5)
    std::fprintf(
        stderr,
        "loom-calibrate: warning: load average %.2f on %ld CPUs "
        "before %d rank(s) x %d thread(s) start: other work competes with the "
        "measurements, which may come out low\n",
        load, cpus, size, settings.threads);

  // --- GEMM rates, all ranks at once ---
  static const int64_t kSizes[] = {32, 64, 128, 256, 512, 1024};
  std::vector<std::pair<int64_t, double>> gflops;
  for (int64_t n : kSizes) {
    MPI_Barrier(MPI_COMM_WORLD);
    gflops.emplace_back(n, minOverRanks(gemmRate<float>(n, effort)));
  }
  auto best = std::max_element(
      gflops.begin(), gflops.end(),
      [](const auto &x, const auto &y) { return x.second < y.second; });
  // float64 at sizes large enough to reach its peak whatever the noise in
  // the float32 curve.
  int64_t size64 = 0;
  double gflops64 = 0;
  for (int64_t n : {256, 512}) {
    MPI_Barrier(MPI_COMM_WORLD);
    double rate = minOverRanks(gemmRate<double>(n, effort));
    if (rate > gflops64) {
      gflops64 = rate;
      size64 = n;
    }
  }

  // --- Memory bandwidth: a triad over arrays far beyond the caches, but
  // all ranks' arrays together within a quarter of the memory and half of
  // what is available ---
  double memTotal = memInfoBytes("MemTotal");
  double memFree = memInfoBytes("MemAvailable");
  double budget = memTotal / 4;
  if (memFree > 0)
    budget = std::min(budget, memFree / 2);
  size_t llc = lastLevelCache();
  size_t arrayBytes = std::max(effort.streamArrayBytes, 4 * llc);
  if (budget > 0)
    arrayBytes =
        std::min<size_t>(arrayBytes, static_cast<size_t>(budget / 3 / size));
  if (settings.quick)
    arrayBytes = std::min(arrayBytes, effort.streamArrayBytes);
  int64_t elements = static_cast<int64_t>(arrayBytes / sizeof(double));
  AlignedBuffer bufA, bufB, bufC;
  if (!bufA.allocate(arrayBytes) || !bufB.allocate(arrayBytes) ||
      !bufC.allocate(arrayBytes))
    abortAll(rank, "out of memory for the bandwidth arrays (3 x " +
                       std::to_string(arrayBytes >> 20) + " MiB)");
  Triad t{static_cast<double *>(bufA.data()),
          static_cast<double *>(bufB.data()),
          static_cast<double *>(bufC.data()), 3.0};
  for (int64_t i = 0; i < elements; ++i) {
    t.b[i] = 1.0;
    t.c[i] = 2.0;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  Effort streamEffort = effort;
  streamEffort.minSampleSeconds = 0; // Each pass is long enough.
  double triadSeconds = timePerCall(streamEffort, [&] { triad(t, elements); });
  double bandwidth = minOverRanks(3.0 * arrayBytes / triadSeconds / 1e9);
  if (t.a[elements / 2] != 7.0)
    abortAll(rank, "the bandwidth kernel computed a wrong result");
  bufA.reset();
  bufB.reset();
  bufC.reset();

  // --- The link: ping-pong between pairs of ranks, all pairs at once ---
  double alphaUs = 1, betaGBps = 10, allReduceUs = 0, predictedUs = 0;
  double linkGBps = betaGBps;
  double allReduceGBps = 0, reduceScatterGBps = 0, allGatherGBps = 0;
  double collectiveBytes = 0;
  bool measuredLink = size > 1;
  if (measuredLink) {
    int peer = rank % 2 ? rank - 1 : rank + 1;
    bool paired = peer < size;
    std::vector<char> message(effort.largeMessage, 1);
    auto pingPong = [&](size_t bytes) {
      if (!paired)
        return;
      int count = static_cast<int>(bytes);
      if (rank % 2 == 0) {
        MPI_Send(message.data(), count, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
        MPI_Recv(message.data(), count, MPI_CHAR, peer, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(message.data(), count, MPI_CHAR, peer, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        MPI_Send(message.data(), count, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
      }
    };
    // One-way seconds of a `bytes` message: half the fastest of `samples` x
    // `iters` round trips (the same count on both sides), each timed alone:
    // the link when both ends run. A round trip needs both ranks on a core,
    // so on a busy machine most may wait for the scheduler; those say
    // nothing about the link (and the minimum is the estimator that noise
    // cannot lower).
    auto oneWay = [&](size_t bytes, int iters) {
      for (int i = 0; i < std::max(2, iters / 10); ++i)
        pingPong(bytes);
      double fastest = 0;
      for (int s = 0; s < effort.samples; ++s) {
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < iters; ++i) {
          auto begin = Clock::now();
          pingPong(bytes);
          double t = seconds(begin) / 2;
          if (fastest == 0 || t < fastest)
            fastest = t;
        }
      }
      return paired ? fastest : 0.0;
    };
    // A large message must take clearly longer than a small one; if not,
    // the timings are noise: measure again, and give up after three tries
    // (no figure is better than a wrong one).
    double small = 0, large = 0;
    for (int attempt = 0; attempt < 3; ++attempt) {
      small = maxOverRanks(oneWay(8, effort.pingIters));
      large = maxOverRanks(oneWay(effort.largeMessage, 4));
      if (large > 2 * small)
        break;
    }
    if (!(large > 2 * small))
      abortAll(rank, "inconsistent link timings: a " +
                         std::to_string(effort.largeMessage >> 20) +
                         " MiB message took " + format("%.1f", large * 1e6) +
                         " us one way, an 8 B one " +
                         format("%.1f", small * 1e6) +
                         " us, three times; is the machine busy? Run again "
                         "when it is idle");
    alphaUs = small * 1e6;
    betaGBps = effort.largeMessage / (large - small) / 1e9;
    linkGBps = betaGBps;

    // The check: a ring all-reduce of the large buffer in floats.
    int count = static_cast<int>(effort.largeMessage / sizeof(float));
    std::vector<float> x(count, 1.0f), y(count);
    MPI_Barrier(MPI_COMM_WORLD);
    double reduce = timePerCall(
        effort,
        [&] {
          MPI_Allreduce(x.data(), y.data(), count, MPI_FLOAT, MPI_SUM,
                        MPI_COMM_WORLD);
        },
        /*collective=*/true);
    allReduceUs = maxOverRanks(reduce) * 1e6;
    predictedUs =
        2.0 * (size - 1) / size * effort.largeMessage / betaGBps / 1e3 +
        2.0 * (size - 1) * alphaUs;
    if (y[count / 2] != static_cast<float>(size))
      abortAll(rank, "MPI_Allreduce computed a wrong sum");
    // What the planner prices are collectives, and MPI's on shared memory
    // copy and reduce on the cores: fit each kind's own bandwidth to its
    // ring formula, on a bucket-sized message (the runtime packs gradients
    // into buckets of at most 25 MiB) received into a fresh zeroed buffer
    // each time, as the runtime's compiled steps do.
    size_t bucket = std::min<size_t>(effort.largeMessage, 16u << 20);
    int per = static_cast<int>(bucket / sizeof(float) / size);
    std::vector<float> whole(static_cast<size_t>(per) * size, 1.0f), part(per),
        gathered(static_cast<size_t>(per) * size);
    double steps = size - 1.0, fraction = steps / size;
    auto fit = [&](double seconds, double latencySteps, double factor) {
      double busy = seconds * 1e6 - latencySteps * alphaUs;
      return busy > 0 ? factor * per * size * sizeof(float) / busy / 1e3 : 0;
    };
    double ar = maxOverRanks(timePerCall(
        effort,
        [&] {
          std::vector<float> out(static_cast<size_t>(per) * size);
          MPI_Allreduce(whole.data(), out.data(), per * size, MPI_FLOAT,
                        MPI_SUM, MPI_COMM_WORLD);
        },
        /*collective=*/true));
    double rs = maxOverRanks(timePerCall(
        effort,
        [&] {
          std::vector<float> out(per);
          MPI_Reduce_scatter_block(whole.data(), out.data(), per, MPI_FLOAT,
                                   MPI_SUM, MPI_COMM_WORLD);
        },
        /*collective=*/true));
    double ag = maxOverRanks(timePerCall(
        effort,
        [&] {
          std::vector<float> out(static_cast<size_t>(per) * size);
          MPI_Allgather(part.data(), per, MPI_FLOAT, out.data(), per, MPI_FLOAT,
                        MPI_COMM_WORLD);
        },
        /*collective=*/true));
    collectiveBytes = static_cast<double>(per) * size * sizeof(float);
    allReduceGBps = fit(ar, 2 * steps, 2 * fraction);
    reduceScatterGBps = fit(rs, steps, fraction);
    allGatherGBps = fit(ag, steps, fraction);
  }
  double elapsed = maxOverRanks(seconds(start));

  int status = 0;
  if (rank == 0) {
    auto bad = [](double v) { return !std::isfinite(v) || v <= 0; };
    for (const auto &[n, rate] : gflops)
      if (bad(rate))
        abortAll(rank, "no GEMM rate measured at size " + std::to_string(n));
    if (bad(gflops64) || bad(bandwidth) || bad(alphaUs) || bad(betaGBps))
      abortAll(rank, "a measurement came out zero or not a number");

    std::string curve;
    for (const auto &[n, rate] : gflops)
      curve += (curve.empty() ? "" : ", ") + std::to_string(n) + ": " +
               format("%.1f", rate);
    // The runtime loaded oneDNN for its float32 GEMMs, or fell back.
    void *dnnl = ::dlopen("libdnnl.so.2", RTLD_NOW | RTLD_NOLOAD);
    std::string gemmPath = dnnl && ::dlsym(dnnl, "dnnl_sgemm")
                               ? "oneDNN's dnnl_sgemm (libdnnl.so.2)"
                               : "OpenBLAS";
    if (dnnl)
      ::dlclose(dnnl);
    std::string source =
        "calibrated by loomc calibrate on " + hostName() + " at " + utcNow() +
        ": " + std::to_string(size) + " rank(s) measuring at the same time, " +
        std::to_string(settings.threads) + " thread(s) each" +
        (settings.quick ? ", quick settings" : "") +
        "; figures are the slowest rank's. float32 GEMM (the runtime's "
        "loom_kernel_gemm_f32: " +
        gemmPath + "; median of " + std::to_string(effort.samples) +
        " samples after a warm-up), GFLOP/s by size: " + curve +
        "; float32 peak is the best. float64 (loom_kernel_gemm_f64, OpenBLAS) "
        "measured the same way at sizes 256 and 512, best at " +
        std::to_string(size64) + ": " + format("%.1f", gflops64) +
        " GFLOP/s. Memory bandwidth: STREAM triad over 3 arrays of " +
        std::to_string(arrayBytes >> 20) + " MiB per rank (last-level cache " +
        (llc ? std::to_string(llc >> 20) + " MiB" : std::string("unknown")) +
        "), 24 bytes per element read and written: " +
        format("%.1f", bandwidth) + " GB/s per rank. ";
    if (measuredLink)
      source +=
          "Link: MPI ping-pong between rank pairs, all pairs at once, "
          "round trips timed one by one, one-way time = half the fastest; "
          "latency = one-way time of 8 B (" +
          format("%.2f", alphaUs) +
          " us), bandwidth = " + std::to_string(effort.largeMessage >> 20) +
          " MiB over its one-way time less the latency (" +
          format("%.2f", betaGBps) + " GB/s). Check: MPI_Allreduce of " +
          std::to_string(effort.largeMessage >> 20) + " MiB took " +
          format("%.0f", allReduceUs) + " us, ring model with these figures " +
          format("%.0f", predictedUs) + " us (measured/model " +
          format("%.2f", allReduceUs / predictedUs) +
          "). Collectives as the runtime calls them (MPI_Allreduce, "
          "MPI_Reduce_scatter_block, MPI_Allgather into a freshly allocated "
          "buffer) on " +
          std::to_string(static_cast<int64_t>(collectiveBytes) >> 20) +
          " MiB, bandwidth fitted to each one's ring formula with this "
          "latency: all_reduce " +
          format("%.2f", allReduceGBps) + ", reduce_scatter " +
          format("%.2f", reduceScatterGBps) + ", all_gather " +
          format("%.2f", allGatherGBps) +
          " GB/s (collective_bandwidth_gb_per_s). inter_node copies "
          "intra_node (one node).";
    else
      source += "Link not measured (one rank): intra_node and inter_node "
                "keep the shared-memory defaults of loomc's description of "
                "this machine (10 GB/s, 1 us).";
    source += " Took " + format("%.1f", elapsed) + " s";
    if (load >= 0)
      source += "; load average " + format("%.2f", load) + " at the start, " +
                std::to_string(cpus) + " CPUs";
    source += ".";

    double memoryGB = memTotal > 0 ? memTotal / 1e9 / size : 1;
    std::string model = cpuModel();
    json::Writer w(2);
    w.beginObject()
        .key("name")
        .string("this machine (" + std::to_string(size) +
                " CPU rank(s), calibrated)")
        .key("source")
        .string(source)
        .key("nodes")
        .integer(1)
        .key("devices_per_node")
        .integer(size)
        .key("device")
        .beginObject()
        .key("kind")
        .string("cpu")
        .key("name")
        .string(model.empty() ? "host CPU" : model)
        .key("memory_gb")
        .number(rounded(memoryGB))
        .key("memory_bandwidth_gb_per_s")
        .number(rounded(bandwidth))
        .key("peak_tflops")
        .beginObject()
        .key("float32")
        .number(rounded(best->second / 1e3))
        .key("float64")
        .number(rounded(gflops64 / 1e3))
        .endObject()
        .key("matmul_tflops_by_size")
        .beginArray();
    for (const auto &[n, rate] : gflops)
      w.beginArray().integer(n).number(rounded(rate / 1e3)).endArray();
    w.endArray().endObject().key("links").beginObject();
    for (const char *link : {"intra_node", "inter_node"}) {
      w.key(link)
          .beginObject()
          .key("bandwidth_gb_per_s")
          .number(rounded(linkGBps))
          .key("latency_us")
          .number(rounded(alphaUs));
      if (measuredLink && allReduceGBps > 0 && reduceScatterGBps > 0 &&
          allGatherGBps > 0)
        w.key("collective_bandwidth_gb_per_s")
            .beginObject()
            .key("all_reduce")
            .number(rounded(allReduceGBps))
            .key("reduce_scatter")
            .number(rounded(reduceScatterGBps))
            .key("all_gather")
            .number(rounded(allGatherGBps))
            .endObject();
      w.endObject();
    }
    w.endObject().endObject();
    if (!w.complete())
      abortAll(rank, "internal error: malformed cluster description");
    std::string text = w.take() + "\n";
    if (settings.output.empty()) {
      std::fwrite(text.data(), 1, text.size(), stdout);
      std::fflush(stdout);
    } else {
      std::string error;
      if (!writeFile(settings.output, text, error)) {
        std::fprintf(stderr, "loom-calibrate: error: %s\n", error.c_str());
        status = 1;
      }
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
