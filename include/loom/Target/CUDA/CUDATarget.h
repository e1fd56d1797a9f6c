//===- CUDATarget.h - The CUDA target ---------------------------*- C++ -*-===//
//
// `--target=cuda[:sm_80,sm_90]`: fused linalg -> bufferized buffers ->
// kernels (gpu.launch, outlined into one gpu.module) -> NVVM -> PTX, a cubin
// per chip assembled by the CUDA toolkit's ptxas, and a host schedule
// (program.cuda.json: kernel launches, cuBLASLt GEMMs, memsets and copies,
// collectives, over one device-memory arena planned here) that the
// runtime's CUDA device (libloom_device_cuda.so) runs. The compiler never
// links CUDA: the artifact names what it calls.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_CUDA_CUDATARGET_H
#define LOOM_TARGET_CUDA_CUDATARGET_H

#include "loom/Target/CUDA/Chips.h"

namespace loom::cuda {

/// Registers the `cuda` target (loom/Target/Target.h).
void registerCUDATarget();

} // namespace loom::cuda

#endif // LOOM_TARGET_CUDA_CUDATARGET_H
