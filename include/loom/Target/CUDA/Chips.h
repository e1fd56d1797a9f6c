//===- Chips.h - The NVIDIA chips the CUDA target builds for ----*- C++ -*-===//
//
// Shared by the target (which checks --target=cuda:CHIPS) and the passes
// that put the chips on the kernels' gpu.module.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_CUDA_CHIPS_H
#define LOOM_TARGET_CUDA_CHIPS_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace loom::cuda {

/// The chips built when `--target=cuda` lists none.
llvm::SmallVector<std::string> defaultChips();

/// The compute capability of `chip` times ten ("sm_90a" -> 90), or -1.
int chipNumber(llvm::StringRef chip);

/// Succeeds for a chip LLVM 19's NVPTX backend generates code for
/// (sm_60 ... sm_90a), else emits why not at `loc`.
mlir::LogicalResult checkChip(llvm::StringRef chip, mlir::Location loc);

/// The PTX ISA version the kernels of `chip` are written in (an NVPTX
/// feature string).
std::string ptxFeatures(llvm::StringRef chip);

/// The gpu.module every kernel of a program lives in.
inline constexpr llvm::StringLiteral kKernelModuleName = "loom_kernels";

} // namespace loom::cuda

#endif // LOOM_TARGET_CUDA_CHIPS_H
