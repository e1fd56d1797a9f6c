//===- FakeCuda.h - What the host stand-ins for CUDA and NCCL share -*- C++
//-*-===//
//
// FakeCuda.cpp (devices, memory, streams: the CUDA runtime) and
// FakeNccl.cpp (communicators: NCCL) form one library; see FakeCuda.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_COMM_NCCL_TEST_FAKECUDA_H
#define LOOM_RUNTIME_COMM_NCCL_TEST_FAKECUDA_H

#include <cuda_runtime_api.h>

#include <cstddef>

namespace fake {

/// The calling thread's current device.
int currentDevice();

/// Device, managed or pinned memory that the stand-ins handed out.
struct Allocation {
  size_t bytes;
  cudaMemoryType type;
  int device;
};

/// The allocation holding [ptr, ptr + bytes), if one does.
bool find(const void *ptr, size_t bytes, Allocation &out);

/// Runs the copies queued on `stream`, in order: a collective on a stream
/// comes after what was queued there before it.
void runPending(cudaStream_t stream);

} // namespace fake

#endif // LOOM_RUNTIME_COMM_NCCL_TEST_FAKECUDA_H
