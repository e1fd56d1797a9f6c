//===- Launcher.h - Starting the ranks of a job through mpirun --*- C++ -*-===//
//
// `loomrun -np N` outside an MPI or Slurm job: starts N copies of a rank
// program through mpirun, forwards SIGINT, SIGTERM and SIGHUP to it, and
// when it ends names the ranks that failed from the status files they write
// (Launch.h: LOOM_STATUS_DIR, rank<R>.json). With restarts allowed, a
// failed job is started again (LOOM_RESTART_COUNT tells the ranks which
// attempt they are). In the library so that other front ends (a Python
// package) launch jobs the same way.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_LAUNCHER_H
#define LOOM_RUNTIME_LAUNCHER_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace loom::rt::launch {

struct Options {
  /// How many ranks to start.
  int64_t ranks = 0;
  /// The program every rank runs; "" for this process's executable.
  std::string executable;
  /// Its arguments (argv[1], ...).
  std::vector<std::string> arguments;
  /// Who speaks in messages: "<name>: error: ...".
  std::string name = "loomrun";

  /// How many times a failed job is started again (--max-restarts).
  int64_t maxRestarts = 0;
  /// Seconds between a failed attempt's end and the next start.
  double restartDelay = 1;
  /// The arguments of the attempts after the first (e.g. with --resume);
  /// empty for `arguments`.
  std::vector<std::string> restartArguments;
  /// For the line printed per restart, called once the failed attempt's
  /// ranks are gone: how far it got ("after step 47"; "" when unknown)
  /// and what the next attempt resumes from ("checkpoint step 40").
  std::function<std::string()> progress;
  std::function<std::string()> resumePoint;
};

/// The launcher's exit status when a signal (SIGINT, SIGTERM, SIGHUP)
/// interrupted it: 128 + the signal, as a shell reports a process it ended.
constexpr int interruptedStatus(int signal) { return 128 + signal; }

/// Runs the job and returns the launcher's exit status: 0 when every rank
/// succeeded; 1 when a rank failed, died or hung and no restart is left
/// (one line per failed rank on stderr, ranks that failed alike merged, a
/// signal that killed a rank named); interruptedStatus(signal) when
/// interrupted, after stopping the ranks. A failure the ranks agreed on
/// (an error every restart would meet again) is not restarted. mpirun is
/// $LOOM_MPIRUN, else the one on PATH.
int run(const Options &options);

/// `argv[1..argc)` without the rank count (-np N, --np N, --np=N) before a
/// "--": what each rank of `loomrun -np N ...` gets.
std::vector<std::string> withoutRankCount(int argc, char **argv);

} // namespace loom::rt::launch

#endif // LOOM_RUNTIME_LAUNCHER_H
