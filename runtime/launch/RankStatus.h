//===- RankStatus.h - What the ranks of a launched job reported -*- C++ -*-===//
//
// The launcher's reading of the status directory (Launch.h): which ranks
// started, how each ended, and why the job failed, in the words printed
// to the user.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_LAUNCH_RANKSTATUS_H
#define LOOM_RUNTIME_LAUNCH_RANKSTATUS_H

#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace loom::rt::launch {

struct RankReport {
  /// The rank reached main (rank<R>.started, holding its pid).
  bool started = false;
  pid_t pid = 0;
  /// It wrote rank<R>.json: status "ok", "error" or "terminated".
  bool present = false;
  std::string status;
  int64_t code = 0;
  std::string message;
  bool orderly = false;
  /// The pipeline stage the rank runs (rank<R>.stage), or -1.
  int64_t stage = -1;
};

std::vector<RankReport> readRankReports(const std::string &dir, int64_t ranks);

/// mpirun may return while the ranks it tore down are still dying: waits
/// (a few seconds at most) until every rank that started has reported or
/// is gone, and SIGKILLs those left, so that the report is complete and no
/// rank outlives the attempt.
void waitForRanks(const std::string &dir, int64_t ranks,
                  const std::string &exe);

/// Why a job failed.
struct Failure {
  /// One line per failed rank (or cause), without "<name>: error: "; empty
  /// when the ranks agreed to fail and one of them printed why.
  std::vector<std::string> lines;
  /// The cause in one line, for the line printed per restart.
  std::string summary;
  /// Whether starting again may help: not when the ranks agreed to fail
  /// (they would again) or when none started.
  bool transient = true;
};

/// Explains a failed job from its ranks' reports and mpirun's exit status
/// (128 + N when a process died of signal N: the rank that died without a
/// status, when only one did).
Failure describeFailure(const std::vector<RankReport> &reports,
                        int mpirunStatus);

/// "SIGKILL", or "signal 42".
std::string signalName(int signal);

} // namespace loom::rt::launch

#endif // LOOM_RUNTIME_LAUNCH_RANKSTATUS_H
