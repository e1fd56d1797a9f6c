//===- loom-bench-comm.cpp - The runtime's all_reduce against raw MPI -----===//
//
// mpirun -np 2 loom-bench-comm [--rounds R] [--iters I] ARTIFACT...
//
// Each ARTIFACT is a program whose entry all-reduces its float32 input over
// all ranks (make_dist_artifact.py --kind allreduce, which
// bench/comm_allreduce.py writes). For each, the ranks time I runs of the
// bound program (loom_program_run -> loom_coll_all_reduce -> the MPI
// backend) and I raw MPI_Allreduce calls on the same buffers, in R rounds
// whose order alternates, so that machine noise hits both; rank 0 prints
// the medians over the rounds and their ratio.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Runtime.h"
#include "loom/runtime/Support.h"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mpi.h>
#include <string>
#include <vector>

using namespace loom::rt;

namespace {
double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// Seconds per call of `body`, the slowest rank's, over `iters` calls.
template <typename Body> double timeBatch(int iters, Body body) {
  MPI_Barrier(MPI_COMM_WORLD);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i)
    body();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count() /
      iters;
  double slowest = 0;
  MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

int fail(int rank, const std::string &message) {
  std::fprintf(stderr, "loom-bench-comm: rank %d: error: %s\n", rank,
               message.c_str());
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  int rounds = 31, iters = 20;
  std::vector<std::string> artifacts;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "--rounds" || arg == "--iters") && i + 1 < argc)
      (arg == "--rounds" ? rounds : iters) = std::atoi(argv[++i]);
    else
      artifacts.push_back(arg);
  }
  if (artifacts.empty() || rounds < 1 || iters < 1) {
    std::fprintf(stderr, "usage: mpirun -np 2 loom-bench-comm [--rounds R] "
                         "[--iters I] ARTIFACT...\n");
    return 2;
  }

  char err[2048];
  loom_comm *comm = loom_comm_create("mpi", err, sizeof(err));
  if (!comm)
    return fail(-1, err);
  int rank = loom_comm_rank(comm);
  if (rank == 0)
    std::printf("%d ranks, %d rounds of %d calls each, alternating order\n",
                loom_comm_size(comm), rounds, iters);
  // The raw calls get a communicator of their own, as the runtime's group
  // has.
  MPI_Comm raw;
  MPI_Comm_dup(MPI_COMM_WORLD, &raw);
  int status = 0;
  for (const std::string &artifact : artifacts) {
    loom_program *program =
        loom_program_load(artifact.c_str(), err, sizeof(err));
    if (!program || loom_program_bind(program, comm, err, sizeof(err))) {
      status = fail(rank, err);
      loom_program_free(program);
      break;
    }
    const loom_tensor_info *info = loom_program_input(program, 0);
    size_t count = info->nbytes / sizeof(float);
    AlignedBuffer x, y;
    x.allocate(info->nbytes);
    y.allocate(info->nbytes);
    auto *values = static_cast<float *>(x.data());
    for (size_t i = 0; i < count; ++i)
      values[i] = static_cast<float>((i * 7 + rank) % 13) - 6.0f;
    const void *inputs[] = {x.data()};
    void *outputs[] = {y.data()};
    auto runtimeCall = [&] {
      loom_program_run(program, inputs, outputs, err, sizeof(err));
    };
    auto rawCall = [&] {
      MPI_Allreduce(x.data(), y.data(), static_cast<int>(count), MPI_FLOAT,
                    MPI_SUM, raw);
    };
    // Warm up both paths (connections, pages, caches, clocks).
    for (int r = 0; r < 3; ++r) {
      timeBatch(iters, runtimeCall);
      timeBatch(iters, rawCall);
    }
    std::vector<double> loomTimes, mpiTimes;
    for (int r = 0; r < rounds; ++r) {
      if (r % 2 == 0) {
        loomTimes.push_back(timeBatch(iters, runtimeCall));
        mpiTimes.push_back(timeBatch(iters, rawCall));
      } else {
        mpiTimes.push_back(timeBatch(iters, rawCall));
        loomTimes.push_back(timeBatch(iters, runtimeCall));
      }
    }
    if (rank == 0) {
      double loom = median(loomTimes), mpi = median(mpiTimes);
      std::printf("%-10s %8.1f KiB: loom_coll_all_reduce %9.1f us, "
                  "MPI_Allreduce %9.1f us, overhead %+.1f%% (ratio %.3f)\n",
                  artifact.substr(artifact.rfind('/') + 1).c_str(),
                  static_cast<double>(info->nbytes) / 1024, loom * 1e6,
                  mpi * 1e6, (loom / mpi - 1) * 100, loom / mpi);
      std::fflush(stdout);
    }
    loom_program_free(program);
  }
  MPI_Comm_free(&raw);
  loom_comm_free(comm);
  return status;
}
