//===- Loomrun.h - The parts of loomrun -------------------------*- C++ -*-===//
//
// loomrun.cpp (main and one rank's run), Options.cpp (the command line),
// Info.cpp (describing an artifact), Outputs.cpp (writing the outputs) and
// Restarts.cpp (launching a job that restarts).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_TOOLS_LOOMRUN_LOOMRUN_H
#define LOOM_RUNTIME_TOOLS_LOOMRUN_LOOMRUN_H

#include "loom/runtime/Runtime.h"
#include "loom/runtime/Train.h"
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace loomrun {

extern const char usageText[];

struct Options {
  std::string artifact;
  std::vector<std::pair<std::string, std::string>> inputs;
  std::string outputDir = ".";
  int threads = 0;
  bool benchGiven = false;
  int64_t benchRuns = 0;
  bool warmupGiven = false;
  int64_t warmupRuns = 3;
  bool info = false;
  bool help = false;
  bool version = false;
  /// -np N (0: not given).
  int64_t ranks = 0;
  bool timeoutGiven = false;
  double timeout = 0;
  std::string comm;
  std::string commLog;
  bool commStats = false;
  std::string params;
  bool train = false;
  loom::rt::train::Options training;
  /// Training options given (for the "only with --train" check).
  std::string trainingOption;
  bool stepsGiven = false;
  /// --max-restarts N, --restart-delay S (Restarts.cpp).
  int64_t maxRestarts = 0;
  bool restartDelayGiven = false;
  double restartDelay = 1;
};

/// Prints "loomrun: error: MESSAGE" and returns 1.
int error(const std::string &message);
/// Prints the message and the usage text and returns 2.
int usageError(const std::string &message);
/// Parses a decimal integer in [min, max]; rejects signs, spaces and junk.
bool parseCount(const std::string &text, int64_t min, int64_t max,
                int64_t &value);
/// Parses the command line; returns -1 to go on, or an exit code.
int parseOptions(int argc, char **argv, Options &options);

/// "float32[16,16]": the whole tensor, as files hold it.
std::string globalType(const loom_tensor_info &info);
/// "x float32[32,16], y ..." for the inputs or the outputs.
std::string tensorList(const loom_program *program, bool outputs);
/// --info: the artifact, its target, tensors, mesh, groups, collectives.
void printInfo(const loom_program *program);

/// Runs `loomrun -np N ...` (argv) as a job of N ranks through mpirun,
/// restarting it from its last checkpoint as --max-restarts allows; returns
/// the exit status.
int launchJob(int argc, char **argv, const Options &options);

/// The file name of every output (see Outputs.cpp).
std::vector<std::string> outputFileNames(const loom_program *program);
/// Creates the output directory and checks that files can be created in
/// it. Returns "" or the message.
std::string prepareOutputDir(const std::string &dir);
/// Writes every output (whole tensors) to `dir`, all or none. Returns "" or
/// the message.
std::string writeOutputs(const loom_program *program, const std::string &dir,
                         const std::vector<std::string> &fileNames,
                         const std::vector<const void *> &outputs);

} // namespace loomrun

#endif // LOOM_RUNTIME_TOOLS_LOOMRUN_LOOMRUN_H
