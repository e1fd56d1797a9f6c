//===- DeviceCode.h - PTX and cubins of a program's kernels -----*- C++ -*-===//
//
// gpu-module-to-binary leaves PTX for each chip in a gpu.binary; ptxas from
// the CUDA toolkit assembles each into a cubin here, at compile time, so a
// mistake in the kernels is a compile error and the device loads machine
// code. The PTX of the lowest chip stays in the artifact for the driver to
// compile on chips without a cubin.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_CUDA_DEVICECODE_H
#define LOOM_TARGET_CUDA_DEVICECODE_H

#include "mlir/IR/BuiltinOps.h"
#include <string>
#include <utility>
#include <vector>

namespace loom::cuda {

/// The CUDA toolkit the compiler uses (never links): ptxas and libdevice.
struct Toolkit {
  std::string root;
  std::string ptxas;
};

/// The toolkit at $LOOM_CUDA_PATH, $CUDA_HOME, $CUDA_PATH or
/// /usr/local/cuda (the first that has bin/ptxas and libdevice), or emits
/// why there is none at `loc`.
mlir::FailureOr<Toolkit> findToolkit(mlir::Location loc);

struct KernelBinaries {
  std::string ptxChip;
  std::string ptx;
  /// (chip, cubin), in the order the chips were listed.
  std::vector<std::pair<std::string, std::string>> cubins;
};

/// The PTX and cubins of `module`'s gpu.binary (none without kernels),
/// erasing it.
mlir::FailureOr<KernelBinaries> assembleKernels(mlir::ModuleOp module,
                                                const Toolkit &toolkit);

} // namespace loom::cuda

#endif // LOOM_TARGET_CUDA_DEVICECODE_H
