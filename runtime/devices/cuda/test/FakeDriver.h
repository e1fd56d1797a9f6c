//===- FakeDriver.h - What the host stand-ins for CUDA share ---*- C++ -*-===//

#ifndef LOOM_RUNTIME_DEVICES_CUDA_TEST_FAKEDRIVER_H
#define LOOM_RUNTIME_DEVICES_CUDA_TEST_FAKEDRIVER_H

#include <cstddef>
#include <cuda.h>
#include <functional>

namespace fake {

/// Appends a line to $LOOM_FAKE_CUDA_LOG, when set.
void log(const char *format, ...) __attribute__((format(printf, 1, 2)));

/// Runs `op` now, or records it when `stream` is being captured into a
/// graph (cuStreamBeginCapture), to run at each cuGraphLaunch.
CUresult enqueue(CUstream stream, std::function<CUresult()> op);

/// Whether [ptr, ptr + bytes) lies in one allocation; prints why not.
bool inDeviceMemory(const void *ptr, size_t bytes, const char *what);

} // namespace fake

#endif // LOOM_RUNTIME_DEVICES_CUDA_TEST_FAKEDRIVER_H
