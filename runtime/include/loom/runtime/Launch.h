//===- Launch.h - A rank of a launched job: detection, status -*- C++ -*-===//
//
// A rank's side of a multi-rank job, used by the communicator (which ends
// the job when a collective fails), the training loop and loomrun's ranks.
// A launcher (Launcher.h, loomrun -np) sets LOOM_STATUS_DIR; every rank
// writes rank<R>.json there when it ends: {"rank", "status":
// "ok"|"error"|"terminated", "code", "message"}, plus "orderly": true when
// the ranks agreed to fail and the message was already printed.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_LAUNCH_H
#define LOOM_RUNTIME_LAUNCH_H

#include <string>
#include <string_view>

namespace loom::rt {

/// The number of processes of the MPI or Slurm job this process was started
/// in ($OMPI_COMM_WORLD_SIZE, $PMI_SIZE, or $SLURM_NTASKS with
/// $SLURM_PROCID); 0 when started by a launcher that does not say
/// ($PMIX_RANK alone); -1 when not started by one.
int launcherWorldSize();

/// Which attempt of a job that loomrun --max-restarts relaunches this is:
/// $LOOM_RESTART_COUNT (0 for the first launch, and without a launcher).
int launchAttempt();

/// Writes $LOOM_STATUS_DIR/rank<rank>.json, once per process: the first
/// call wins (a rank that failed stays failed when the teardown then
/// terminates it). False without LOOM_STATUS_DIR or when already written.
bool writeRankStatus(int rank, const char *status, int code,
                     std::string_view message, bool orderly = false);

/// Writes this process's pid to $LOOM_STATUS_DIR/rank<rank>.started, which
/// tells a rank that died (started, but no status) from one the teardown
/// stopped before it started. False without LOOM_STATUS_DIR.
bool markRankStarted(int rank);

/// Records which pipeline stage `rank` runs (rank<R>.stage in
/// $LOOM_STATUS_DIR), so that the launcher names it with a failed rank.
bool markRankStage(int rank, int64_t stage);

/// Prepares the "terminated" status of `rank` so that
/// writeTerminatedStatus() can write it from a signal handler.
void prepareTerminatedStatus(int rank);
/// Async-signal-safe: writes the prepared "terminated" status unless a
/// status was already written.
void writeTerminatedStatus();

} // namespace loom::rt

#endif // LOOM_RUNTIME_LAUNCH_H
