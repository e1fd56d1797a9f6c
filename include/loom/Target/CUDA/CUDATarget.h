//===- CUDATarget.h - The CUDA target ---------------------------*- C++ -*-===//
//
// `--target=cuda[:sm_80,sm_90]`: fused linalg -> bufferized buffers ->
// kernels (gpu.launch, outlined into one gpu.module) -> NVVM -> PTX, a cubin
// per chip assembled by the CUDA toolkit's ptxas, and a host schedule
// (cuda.json: kernel launches, cuBLASLt GEMMs, memsets and copies,
// collectives, over one device-memory arena planned here) that the
// runtime's CUDA device (libloom_device_cuda.so) runs and replays as CUDA
// graphs. The compiler never links CUDA: the artifact names what it calls.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_CUDA_CUDATARGET_H
#define LOOM_TARGET_CUDA_CUDATARGET_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace loom::cuda {

/// Registers the `cuda` target (loom/Target/Target.h).
void registerCUDATarget();

/// The chips built when `--target=cuda` lists none.
llvm::SmallVector<std::string> defaultChips();

/// Succeeds for a chip LLVM 19's NVPTX backend generates code for
/// (sm_60 ... sm_90a), else emits why not at `loc`.
mlir::LogicalResult checkChip(llvm::StringRef chip, mlir::Location loc);

/// The PTX ISA version the kernels of `chip` are written in (an NVPTX
/// feature string).
std::string ptxFeatures(llvm::StringRef chip);

/// The gpu.module every kernel of a program lives in.
inline constexpr llvm::StringLiteral kKernelModuleName = "loom_kernels";

} // namespace loom::cuda

#endif // LOOM_TARGET_CUDA_CUDATARGET_H
