//===- Faults.h - The LOOM_TEST_FAULT hook ----------------------*- C++ -*-===//
//
// Tests of failure handling make a rank fail on purpose:
//   LOOM_TEST_FAULT=rank=R,collective=K,action=kill|exit|hang
//                   rank=R,step=S,action=nan
//                   rank=R,ckpt=K,action=kill
// (docs/Artifact.md). A malformed value is ignored with a warning.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_COMM_FAULTS_H
#define LOOM_RUNTIME_COMM_FAULTS_H

#include <cstdint>

namespace loom::rt {

/// Just before the `call`-th (0-based) loom_coll_* call of this process on
/// rank `rank`: raises SIGKILL, fails like a real error (exit code 7) or
/// hangs, when the hook says so.
void injectCollectiveFault(int64_t call, int rank);

/// Whether rank `rank` makes its loss scale NaN at step `step` (1-based),
/// and whether it SIGKILLs itself while writing its shard of the
/// `checkpoint`-th (0-based) checkpoint of this process.
bool faultNanAtStep(int rank, int64_t step);
bool faultKillInCheckpoint(int rank, int64_t checkpoint);

} // namespace loom::rt

#endif // LOOM_RUNTIME_COMM_FAULTS_H
