//===- HostSchedule.h - What the CUDA device runs on the host ---*- C++ -*-===//
//
// After the kernels are outlined, the entry function is a straight line of
// buffer definitions and work: kernel launches, cuBLASLt GEMMs, memsets,
// copies and collective calls. This turns it into the program the runtime's
// CUDA device interprets (docs/CUDA.md, "The host schedule"): a table of
// buffers (the entry's arguments, constants, and ranges of one arena
// planned from their lifetimes) and the instructions in order, each naming
// the buffers it reads and writes by index and byte offset, so the device
// can check every access against the buffer's size before it runs any.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_CUDA_HOSTSCHEDULE_H
#define LOOM_TARGET_CUDA_HOSTSCHEDULE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include <string>
#include <vector>

namespace loom::cuda {

/// The kernel images the artifact carries.
struct KernelImages {
  /// The chip the PTX is written for (the JIT fallback), empty without
  /// kernels.
  std::string ptxChip;
  /// The chips with a cubin.
  std::vector<std::string> cubinChips;
};

struct HostSchedule {
  /// program.cuda.json.
  std::string program;
  /// constants.bin (empty: no file).
  std::string constants;
  /// What the schedule holds, for messages and tests.
  int64_t numInstructions = 0;
  uint64_t arenaBytes = 0;
};

/// The host schedule of `entry`, whose arguments are the buffers of
/// `bufferTypes` in call order; errors are emitted at the op that cannot
/// run.
mlir::FailureOr<HostSchedule>
buildHostSchedule(mlir::func::FuncOp entry,
                  llvm::ArrayRef<mlir::RankedTensorType> bufferTypes,
                  const KernelImages &images);

} // namespace loom::cuda

#endif // LOOM_TARGET_CUDA_HOSTSCHEDULE_H
