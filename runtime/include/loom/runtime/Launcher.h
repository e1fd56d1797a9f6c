//===- Launcher.h - Starting the ranks of a job through mpirun --*- C++ -*-===//
//
// `loomrun -np N` outside an MPI or Slurm job: starts N copies of a rank
// program through mpirun, forwards SIGINT and SIGTERM to it, and when it
// ends names the ranks that failed from the status files they write
// (Launch.h: LOOM_STATUS_DIR, rank<R>.json). In the library so that other
// front ends (a Python package) launch jobs the same way.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_LAUNCHER_H
#define LOOM_RUNTIME_LAUNCHER_H

#include <cstdint>
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
};

/// Runs the job and returns the launcher's exit status: 0 when every rank
/// succeeded, else mpirun's status (at least 1), or 128 + the signal when
/// interrupted. Failures are printed on stderr, one line per failed rank
/// (ranks that failed alike merged). mpirun is $LOOM_MPIRUN, else the one
/// on PATH.
int run(const Options &options);

/// `argv[1..argc)` without the rank count (-np N, --np N, --np=N) before a
/// "--": what each rank of `loomrun -np N ...` gets.
std::vector<std::string> withoutRankCount(int argc, char **argv);

} // namespace loom::rt::launch

#endif // LOOM_RUNTIME_LAUNCHER_H
