//===- loomrun.cpp - Run a compiled Loom artifact on .npy files -----------===//
//
// loomrun MODEL.loom --input NAME=FILE.npy ... [--output-dir DIR] ...
//
// Loads the artifact, checks every input file against the model's signature
// before running anything, runs the program (optionally timing repeated
// runs) and writes each output to DIR/<output>.npy. Outputs are written to
// temporary files and renamed into place only once all of them are complete,
// so a failure never leaves a half-written or partial set of outputs.
//
// Distributed artifacts run on several ranks: `loomrun -np N ...` starts N
// copies of itself through mpirun (or runs as one rank of an mpirun/srun
// job). Every rank reads the whole inputs and keeps its block, runs, and
// rank 0 gathers and writes the outputs. The ranks agree on the outcome of
// each step before the next, so that an error on one rank ends all of them
// with the message printed once; a rank that dies takes the job down with
// it (mpirun), and the launcher then names the ranks that failed.
//
// Exit codes: 0 success, 1 error (message on stderr starting with
// "loomrun: error: "; also a rank that failed, was killed or hung), 2 bad
// command line (with the usage text), 128 + N when interrupted by signal N
// (the launcher stops the ranks first).
//
//===----------------------------------------------------------------------===//

#include "Loomrun.h"
#include "loom/runtime/Collectives.h"
#include "loom/runtime/Launch.h"
#include "loom/runtime/Launcher.h"
#include "loom/runtime/Npy.h"
#include "loom/runtime/Runtime.h"
#include "loom/runtime/Support.h"
#include "loom/runtime/Train.h"
#include <algorithm>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace loom::rt;
using namespace loomrun;

namespace {

/// Reads and checks every input file (whole tensors); fills `arrays` in
/// model order. Returns "" or the message.
std::string readInputs(const loom_program *program, const Options &options,
                       std::vector<NpyArray> &arrays) {
  size_t numInputs = loom_program_num_inputs(program);
  std::vector<const std::string *> paths(numInputs, nullptr);
  for (const auto &[name, path] : options.inputs) {
    int64_t index = loom_program_find_input(program, name.c_str());
    if (index < 0)
      return "unknown input '" + name + "': the model's inputs are " +
             tensorList(program, false);
    if (paths[index])
      return "input '" + name + "' is given twice (" + *paths[index] + " and " +
             path + ")";
    paths[index] = &path;
  }
  for (size_t i = 0; i < numInputs; ++i) {
    if (paths[i])
      continue;
    const loom_tensor_info *info = loom_program_input(program, i);
    return "missing input '" + std::string(info->name) + "' (" +
           globalType(*info) + "): pass --input " + info->name +
           "=FILE.npy; the model's inputs are " + tensorList(program, false);
  }

  arrays.resize(numInputs);
  for (size_t i = 0; i < numInputs; ++i) {
    const loom_tensor_info *info = loom_program_input(program, i);
    std::string message;
    if (!readNpy(*paths[i], arrays[i], message))
      return "input '" + std::string(info->name) + "': " + message;
    const NpyArray &array = arrays[i];
    bool sameShape =
        array.shape.size() == static_cast<size_t>(info->rank) &&
        std::equal(array.shape.begin(), array.shape.end(), info->global_shape);
    if (!npyHolds(array.dtype, info->dtype) || !sameShape)
      return "input '" + std::string(info->name) + "' expects " +
             globalType(*info) + ", but " + *paths[i] + " holds " +
             formatTensorType(array.dtype, array.shape);
  }
  return "";
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

//===----------------------------------------------------------------------===//
// One rank
//===----------------------------------------------------------------------===//

extern "C" void onTerminate(int signal) {
  writeTerminatedStatus();
  // mpirun sends SIGKILL as soon as a rank it signalled dies: linger a
  // moment, so that every rank has time to write its status first.
  struct timespec linger = {0, 250000000};
  ::nanosleep(&linger, nullptr);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

/// This process's part of the job, and the step-by-step agreement that
/// keeps all ranks' outcomes equal.
class Rank {
public:
  explicit Rank(loom_comm *comm)
      : comm(comm), rank(loom_comm_rank(comm)), size(loom_comm_size(comm)) {}
  ~Rank() {
    // Programs go before the communicator they are bound to.
    loom_program_free(program);
    loom_comm_free(comm);
  }
  Rank(const Rank &) = delete;
  Rank &operator=(const Rank &) = delete;

  bool multi() const { return size > 1; }

  /// Ends a step: every rank says whether it succeeded (ownError empty),
  /// failed itself, or failed because another rank did (peerFailed).
  /// Returns true when all succeeded; otherwise the lowest rank that failed
  /// itself prints its message and every rank records its status, and the
  /// caller exits 1.
  bool agree(const std::string &ownError, bool peerFailed = false) {
    int32_t mine = ownError.empty() && !peerFailed ? INT32_MAX
                   : peerFailed                    ? size
                                                   : rank;
    int32_t first = mine;
    char message[1024];
    if (multi() && loom_comm_all_reduce(comm, &mine, &first, 1,
                                        LOOM_DTYPE_INT32, LOOM_REDUCE_MIN,
                                        message, sizeof(message)) != LOOM_OK) {
      failHere(std::string("cannot agree with the other ranks: ") + message);
      return false;
    }
    if (first == INT32_MAX)
      return true;
    if (first >= size)
      first = 0; // nobody failed on its own: rank 0 speaks
    if (first == rank) {
      std::string text = ownError.empty() ? "failed" : ownError;
      print(text);
      writeRankStatus(rank, "error", 1, text, /*orderly=*/true);
    } else {
      writeRankStatus(rank, "error", 1,
                      "stopped because rank " + std::to_string(first) +
                          " failed",
                      /*orderly=*/true);
    }
    return false;
  }

  /// A failure that cannot wait for an agreement (the other ranks may be
  /// inside a collective): printed here; with several ranks the job ends.
  int failHere(const std::string &message) {
    print(message);
    writeRankStatus(rank, "error", 1, message);
    if (multi()) {
      std::fflush(stdout);
      ::_exit(1); // mpirun/srun end the other ranks
    }
    return 1;
  }

  void print(const std::string &message) const {
    std::fprintf(stderr, "loomrun: error: %s%s\n",
                 multi() ? ("rank " + std::to_string(rank) + ": ").c_str() : "",
                 message.c_str());
  }

  loom_comm *comm;
  int rank;
  int size;
  loom_program *program = nullptr;
};

/// Sums the collective statistics over the ranks; rank 0 prints them.
bool printCommStats(Rank &self) {
  int64_t counts[2 * LOOM_COLLECTIVE_NUM_KINDS] = {};
  double seconds[LOOM_COLLECTIVE_NUM_KINDS] = {};
  for (int k = 0; k < LOOM_COLLECTIVE_NUM_KINDS; ++k)
    loom_collective_stats(k, &counts[k], &counts[LOOM_COLLECTIVE_NUM_KINDS + k],
                          &seconds[k]);
  char message[1024];
  if (loom_comm_all_reduce(self.comm, counts, counts,
                           2 * LOOM_COLLECTIVE_NUM_KINDS, LOOM_DTYPE_INT64,
                           LOOM_REDUCE_SUM, message,
                           sizeof(message)) != LOOM_OK ||
      loom_comm_all_reduce(self.comm, seconds, seconds,
                           LOOM_COLLECTIVE_NUM_KINDS, LOOM_DTYPE_FLOAT64,
                           LOOM_REDUCE_MAX, message,
                           sizeof(message)) != LOOM_OK) {
    self.failHere(std::string("cannot gather the comm statistics: ") + message);
    return false;
  }
  if (self.rank != 0)
    return true;
  std::printf("comm stats (%d rank%s; calls and bytes summed over the ranks, "
              "seconds of the slowest rank):\n",
              self.size, self.size == 1 ? "" : "s");
  std::printf("  %-15s %10s %16s %12s\n", "kind", "calls", "bytes", "seconds");
  int64_t totalCalls = 0, totalBytes = 0;
  double totalSeconds = 0;
  for (int k = 0; k < LOOM_COLLECTIVE_NUM_KINDS; ++k) {
    int64_t calls = counts[k], bytes = counts[LOOM_COLLECTIVE_NUM_KINDS + k];
    if (calls == 0)
      continue;
    std::printf("  %-15s %10lld %16lld %12.6f\n", loom_collective_kind_name(k),
                static_cast<long long>(calls), static_cast<long long>(bytes),
                seconds[k]);
    totalCalls += calls;
    totalBytes += bytes;
    totalSeconds += seconds[k];
  }
  std::printf("  %-15s %10lld %16lld %12.6f\n", "total",
              static_cast<long long>(totalCalls),
              static_cast<long long>(totalBytes), totalSeconds);
  return true;
}

/// This process's rank as its launcher says, or -1.
int launcherRank() {
  for (const char *name :
       {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
    const char *text = std::getenv(name);
    int64_t rank = 0;
    if (text && parseCount(text, 0, INT_MAX, rank))
      return static_cast<int>(rank);
  }
  return -1;
}

int runRank(const Options &options) {
  if (!options.commLog.empty())
    ::setenv("LOOM_COMM_LOG", options.commLog.c_str(), 1);
  // Before MPI starts: a rank the teardown terminates early must not look
  // like one that died.
  bool reportStatus = std::getenv("LOOM_STATUS_DIR") != nullptr;
  if (reportStatus && launcherRank() >= 0) {
    prepareTerminatedStatus(launcherRank());
    std::signal(SIGTERM, onTerminate);
    markRankStarted(launcherRank());
  }
  char message[4096];
  loom_comm *comm =
      loom_comm_create(options.comm.empty() ? nullptr : options.comm.c_str(),
                       message, sizeof(message));
  if (!comm) {
    // Without a communicator the ranks cannot agree on who speaks: under
    // the launcher, it reports every rank's message, merged.
    int rank = launcherRank();
    if (reportStatus && rank >= 0 && writeRankStatus(rank, "error", 1, message))
      return 1;
    return error(message);
  }
  Rank self(comm);
  if (reportStatus) {
    prepareTerminatedStatus(self.rank);
    std::signal(SIGTERM, onTerminate);
  }
  if (options.timeoutGiven)
    loom_comm_set_timeout(comm, options.timeout);

  // Load (each rank by itself), then bind (together).
  std::string problem;
  self.program = loom_program_load_rank(options.artifact.c_str(), self.rank, 0,
                                        message, sizeof(message));
  if (!self.program)
    problem = message;
  else if (reportStatus && loom_program_pipeline_stage(self.program) >= 0)
    markRankStage(self.rank, loom_program_pipeline_stage(self.program));
  if (!self.agree(problem))
    return 1;
  loom_program *program = self.program;
  int bound = loom_program_bind(program, comm, message, sizeof(message));
  if (bound != LOOM_OK) {
    problem = message;
    int64_t devices = loom_program_mesh_size(program);
    if (bound == LOOM_ERROR_INCOMPATIBLE)
      problem += ": start " + std::to_string(devices) + " ranks (loomrun -np " +
                 std::to_string(devices) + ")";
  }
  if (!self.agree(bound == LOOM_ERROR_PEER_FAILED ? "" : problem,
                  bound == LOOM_ERROR_PEER_FAILED))
    return 1;

  if (!options.params.empty()) {
    problem.clear();
    if (loom_program_load_parameters(program, options.params.c_str(), message,
                                     sizeof(message)) != LOOM_OK)
      problem = message;
    if (!self.agree(problem))
      return 1;
  }
  if (options.threads > 0)
    loom_set_num_threads(options.threads);
  if (options.train) {
    loom::rt::train::Hooks hooks;
    hooks.agree = [&self](const std::string &ownError) {
      return self.agree(ownError);
    };
    hooks.failHere = [&self](const std::string &text) {
      return self.failHere(text);
    };
    int code = loom::rt::train::run(program, comm, options.training, hooks);
    if (code == 0)
      writeRankStatus(self.rank, "ok", 0, "");
    return code;
  }

  // Inputs: every rank reads the whole tensors and keeps its blocks.
  std::vector<NpyArray> inputArrays;
  problem = readInputs(program, options, inputArrays);
  size_t numInputs = loom_program_num_inputs(program);
  std::vector<AlignedBuffer> inputBlocks(numInputs);
  std::vector<const void *> inputPtrs(numInputs);
  for (size_t i = 0; problem.empty() && i < numInputs; ++i) {
    const loom_tensor_info *info = loom_program_input(program, i);
    inputPtrs[i] = inputArrays[i].data.data();
    if (!loom_program_tensor_is_sharded(info))
      continue;
    if (!inputBlocks[i].allocate(info->nbytes)) {
      problem = "cannot allocate " + std::to_string(info->nbytes) +
                " bytes for input '" + info->name + "'";
    } else if (loom_program_shard_input(program, i, inputPtrs[i],
                                        inputBlocks[i].data(), message,
                                        sizeof(message)) != LOOM_OK) {
      problem = message;
    } else {
      inputPtrs[i] = inputBlocks[i].data();
      inputArrays[i].data.reset(); // only the block is needed now
    }
  }

  // Only rank 0 writes outputs.
  std::vector<std::string> fileNames = outputFileNames(program);
  if (problem.empty() && self.rank == 0)
    problem = prepareOutputDir(options.outputDir);
  for (size_t i = 0; problem.empty() && self.rank == 0 && i < fileNames.size();
       ++i) {
    std::string path = joinPath(options.outputDir, fileNames[i]);
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      problem = "cannot write '" + path + "': it is a directory";
  }
  size_t numOutputs = loom_program_num_outputs(program);
  std::vector<AlignedBuffer> outputs(numOutputs);
  std::vector<void *> outputPtrs(numOutputs);
  for (size_t i = 0; problem.empty() && i < numOutputs; ++i) {
    const loom_tensor_info *info = loom_program_output(program, i);
    if (!outputs[i].allocate(info->nbytes))
      problem = "cannot allocate " + std::to_string(info->nbytes) +
                " bytes for output '" + info->name + "'";
    outputPtrs[i] = outputs[i].data();
  }
  if (!self.agree(problem))
    return 1;

  // From here on the ranks meet in the program's collectives: a failure
  // ends the job instead of waiting for an agreement.
  auto runOnce = [&]() -> bool {
    return loom_program_run(program, inputPtrs.data(), outputPtrs.data(),
                            message, sizeof(message)) == LOOM_OK;
  };
  if (options.benchGiven) {
    for (int64_t i = 0; i < options.warmupRuns; ++i)
      if (!runOnce())
        return self.failHere(message);
    std::vector<double> times;
    times.reserve(static_cast<size_t>(options.benchRuns));
    for (int64_t i = 0; i < options.benchRuns; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (!runOnce())
        return self.failHere(message);
      auto end = std::chrono::steady_clock::now();
      times.push_back(
          std::chrono::duration<double, std::milli>(end - start).count());
    }
    double sum = 0;
    for (double t : times)
      sum += t;
    if (self.rank == 0)
      std::printf("bench: %lld runs, median %.4g ms, min %.4g ms, max %.4g "
                  "ms, mean %.4g ms\n",
                  static_cast<long long>(times.size()), median(times),
                  *std::min_element(times.begin(), times.end()),
                  *std::max_element(times.begin(), times.end()),
                  sum / static_cast<double>(times.size()));
  } else if (!runOnce()) {
    return self.failHere(message);
  }

  // Rank 0 assembles the whole outputs.
  std::vector<AlignedBuffer> wholeOutputs(numOutputs);
  std::vector<const void *> results(numOutputs);
  for (size_t i = 0; i < numOutputs; ++i) {
    const loom_tensor_info *info = loom_program_output(program, i);
    results[i] = outputs[i].data();
    if (!loom_program_tensor_is_sharded(info))
      continue;
    if (self.rank == 0 && !wholeOutputs[i].allocate(info->global_nbytes))
      return self.failHere("cannot allocate " +
                           std::to_string(info->global_nbytes) +
                           " bytes for output '" + info->name + "'");
    if (loom_program_gather_output(program, i, outputs[i].data(),
                                   wholeOutputs[i].data(), 0, message,
                                   sizeof(message)) != LOOM_OK)
      return self.failHere(message);
    results[i] = wholeOutputs[i].data();
  }
  if (options.commStats && !printCommStats(self))
    return 1;

  problem.clear();
  if (self.rank == 0) {
    problem = writeOutputs(program, options.outputDir, fileNames, results);
    if (problem.empty() && std::fflush(stdout) != 0)
      problem = "cannot write to stdout";
  }
  if (!self.agree(problem))
    return 1;
  writeRankStatus(self.rank, "ok", 0, "");
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  // Exceeding a file-size limit should be a write error with a message, not
  // a core dump.
  std::signal(SIGXFSZ, SIG_IGN);

  Options options;
  int status = parseOptions(argc, argv, options);
  if (status >= 0)
    return status;
  if (options.help) {
    std::fputs(usageText, stdout);
    return 0;
  }
  if (options.version) {
    std::printf("loomrun (Loom runtime) %s, runtime ABI %d\n",
                loom_runtime_version(), loom_runtime_abi_version());
    return 0;
  }

  if (options.info) {
    char message[4096];
    // A pipelined artifact describes itself by its first stage.
    loom_program *program = loom_program_load_rank(options.artifact.c_str(), 0,
                                                   LOOM_LOAD_MANIFEST_ONLY,
                                                   message, sizeof(message));
    if (!program)
      return error(message);
    printInfo(program);
    loom_program_free(program);
    return 0;
  }

  int launched = launcherWorldSize();
  // A job that restarts needs the launcher, even on one rank.
  if ((options.ranks > 1 || options.maxRestarts > 0) && launched < 0)
    return launchJob(argc, argv, options);
  if (options.maxRestarts > 0)
    return usageError("--max-restarts needs loomrun to start the ranks "
                      "(loomrun -np N), not mpirun or srun");
  if (options.ranks > 0 && launched > 0 && launched != options.ranks)
    return usageError("-np " + std::to_string(options.ranks) +
                      " disagrees with the " + std::to_string(launched) +
                      " processes this job was started with");
  return runRank(options);
}
