//===- Faults.h - The LOOM_TEST_FAULT hook ----------------------*- C++ -*-===//
//
// Tests of failure handling make a rank fail on purpose:
//   LOOM_TEST_FAULT=rank=R,collective=K,action=kill|exit|hang
//                   rank=R,step=S,action=nan|kill|exit|hang
//                   rank=R,ckpt=K,action=kill
// each optionally with attempt=A (the launcher's restart count,
// $LOOM_RESTART_COUNT; default 0) or attempt=any; several faults are
// separated by ';' (docs/Artifact.md). A malformed value is ignored with a
// warning.
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

/// At the start of training step `step` (1-based) on rank `rank`: kills,
/// fails or hangs as injectCollectiveFault does, when the hook says so.
void injectStepFault(int64_t step, int rank);

/// Whether rank `rank` makes its loss scale NaN at step `step` (1-based),
/// and whether it SIGKILLs itself while writing its shard of the
/// `checkpoint`-th (0-based) checkpoint of this process.
bool faultNanAtStep(int rank, int64_t step);
bool faultKillInCheckpoint(int rank, int64_t checkpoint);

} // namespace loom::rt

#endif // LOOM_RUNTIME_COMM_FAULTS_H
