//===- FakeCuda.cpp - Host stand-ins for libcudart and libnccl ------------===//
//
// A test double for machines without a GPU: the CUDA runtime and NCCL
// functions that NcclBackend.cpp and the self-test call, implemented on the
// host (this file: CUDA; FakeNccl.cpp: NCCL), so that the same sources
// linked against this library (instead of libcudart and libnccl) run the
// whole self-test in CI.
//
//  - LOOM_FAKE_CUDA_DEVICES devices (default 1; 0 makes cudaGetDeviceCount
//    fail as on a machine without a driver), with a per-thread current one.
//  - "Device", managed and pinned memory are host memory that this library
//    records; cudaPointerGetAttributes answers from that record.
//  - A communicator is a clique of threads of this process (FakeNccl.cpp).
//    The collectives check that every buffer NCCL is given is device (or
//    managed) memory of the communicator's device -- the check that matters
//    most, as real NCCL would fault on a host pointer -- and that its ranks
//    use distinct devices, then compute their results on the host.
//  - Copies and collectives complete when called, except that copies queued
//    on a non-blocking stream (cudaStreamNonBlocking) wait until that stream
//    is next used by a collective or synchronised: a caller that relies on
//    a stream's order but queues its work elsewhere then reads stale data,
//    as it could on a GPU.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <vector>

using fake::Allocation;

namespace {

//===----------------------------------------------------------------------===//
// Devices and memory
//===----------------------------------------------------------------------===//

int deviceCount() {
  const char *value = getenv("LOOM_FAKE_CUDA_DEVICES");
  return value && *value ? atoi(value) : 1;
}

thread_local int current = 0;
thread_local cudaError_t lastCudaError = cudaSuccess;

cudaError_t record(cudaError_t error) {
  if (error != cudaSuccess)
    lastCudaError = error;
  return error;
}

std::mutex memoryMutex;
std::map<uintptr_t, Allocation> allocations;

cudaError_t allocate(void **ptr, size_t bytes, cudaMemoryType type) {
  if (!ptr)
    return record(cudaErrorInvalidValue);
  if (deviceCount() <= 0)
    return record(cudaErrorInsufficientDriver);
  void *p = malloc(bytes ? bytes : 1);
  if (!p)
    return record(cudaErrorMemoryAllocation);
  // Garbage, as fresh device memory may hold.
  memset(p, 0xa5, bytes);
  std::lock_guard<std::mutex> lock(memoryMutex);
  allocations[reinterpret_cast<uintptr_t>(p)] = {bytes, type, current};
  *ptr = p;
  return cudaSuccess;
}

cudaError_t release(void *ptr, bool host) {
  if (!ptr)
    return cudaSuccess;
  std::lock_guard<std::mutex> lock(memoryMutex);
  auto it = allocations.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == allocations.end() ||
      (it->second.type == cudaMemoryTypeHost) != host)
    return record(cudaErrorInvalidValue);
  allocations.erase(it);
  free(ptr);
  return cudaSuccess;
}
} // namespace

bool fake::find(const void *ptr, size_t bytes, Allocation &out) {
  uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(memoryMutex);
  auto it = allocations.upper_bound(p);
  if (it == allocations.begin())
    return false;
  --it;
  if (p + bytes > it->first + it->second.bytes || p < it->first)
    return false;
  out = it->second;
  return true;
}

int fake::currentDevice() { return current; }

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

struct CUstream_st {
  bool deferred = false;
  struct Copy {
    void *dst;
    const void *src;
    size_t bytes;
  };
  std::vector<Copy> pending;
};

void fake::runPending(cudaStream_t stream) {
  if (!stream)
    return;
  for (const CUstream_st::Copy &copy : stream->pending)
    memmove(copy.dst, copy.src, copy.bytes);
  stream->pending.clear();
}

namespace {
cudaError_t createStream(cudaStream_t *stream, bool deferred) {
  if (!stream)
    return record(cudaErrorInvalidValue);
  if (deviceCount() <= 0)
    return record(cudaErrorInsufficientDriver);
  *stream = new (std::nothrow) CUstream_st;
  if (!*stream)
    return record(cudaErrorMemoryAllocation);
  (*stream)->deferred = deferred;
  return cudaSuccess;
}
} // namespace

//===----------------------------------------------------------------------===//
// The CUDA runtime
//===----------------------------------------------------------------------===//

cudaError_t cudaGetLastError(void) {
  cudaError_t error = lastCudaError;
  lastCudaError = cudaSuccess;
  return error;
}

const char *cudaGetErrorString(cudaError_t error) {
  switch (error) {
  case cudaSuccess:
    return "no error";
  case cudaErrorInvalidValue:
    return "invalid argument";
  case cudaErrorMemoryAllocation:
    return "out of memory";
  case cudaErrorInsufficientDriver:
    return "CUDA driver version is insufficient for CUDA runtime version";
  case cudaErrorNoDevice:
    return "no CUDA-capable device is detected";
  case cudaErrorInvalidDevice:
    return "invalid device ordinal";
  default:
    return "unknown error";
  }
}

const char *cudaGetErrorName(cudaError_t error) {
  switch (error) {
  case cudaSuccess:
    return "cudaSuccess";
  case cudaErrorInvalidValue:
    return "cudaErrorInvalidValue";
  case cudaErrorMemoryAllocation:
    return "cudaErrorMemoryAllocation";
  case cudaErrorInsufficientDriver:
    return "cudaErrorInsufficientDriver";
  case cudaErrorNoDevice:
    return "cudaErrorNoDevice";
  case cudaErrorInvalidDevice:
    return "cudaErrorInvalidDevice";
  default:
    return "cudaErrorUnknown";
  }
}

cudaError_t cudaGetDeviceCount(int *count) {
  int n = deviceCount();
  if (n <= 0) {
    *count = 0;
    return record(cudaErrorInsufficientDriver);
  }
  *count = n;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device) {
  if (deviceCount() <= 0)
    return record(cudaErrorInsufficientDriver);
  *device = current;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= deviceCount())
    return record(cudaErrorInvalidDevice);
  current = device;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
  if (device < 0 || device >= deviceCount())
    return record(cudaErrorInvalidDevice);
  memset(prop, 0, sizeof(*prop));
  snprintf(prop->name, sizeof(prop->name), "fake device %d (host memory)",
           device);
  prop->major = 9;
  prop->totalGlobalMem = size_t(1) << 30;
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *version) {
  *version = deviceCount() > 0 ? CUDART_VERSION : 0;
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *stream) {
  return createStream(stream, false);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream,
                                      unsigned int flags) {
  return createStream(stream, (flags & cudaStreamNonBlocking) != 0);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  fake::runPending(stream);
  delete stream;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  fake::runPending(stream);
  return cudaSuccess;
}

cudaError_t cudaMalloc(void **ptr, size_t bytes) {
  return allocate(ptr, bytes, cudaMemoryTypeDevice);
}

cudaError_t cudaMallocHost(void **ptr, size_t bytes) {
  return allocate(ptr, bytes, cudaMemoryTypeHost);
}

cudaError_t cudaMallocManaged(void **ptr, size_t bytes, unsigned int) {
  return allocate(ptr, bytes, cudaMemoryTypeManaged);
}

cudaError_t cudaFree(void *ptr) { return release(ptr, false); }

cudaError_t cudaFreeHost(void *ptr) { return release(ptr, true); }

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                     const void *ptr) {
  memset(attributes, 0, sizeof(*attributes));
  Allocation allocation;
  if (!find(ptr, 1, allocation)) {
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->device = -2;
    attributes->hostPointer = const_cast<void *>(ptr);
    return cudaSuccess;
  }
  attributes->type = allocation.type;
  attributes->device = allocation.device;
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes,
                       enum cudaMemcpyKind) {
  if (bytes && (!dst || !src))
    return record(cudaErrorInvalidValue);
  memmove(dst, src, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes,
                            enum cudaMemcpyKind kind, cudaStream_t stream) {
  if (bytes && (!dst || !src))
    return record(cudaErrorInvalidValue);
  if (stream && stream->deferred) {
    stream->pending.push_back({dst, src, bytes});
    return cudaSuccess;
  }
  return cudaMemcpy(dst, src, bytes, kind);
}
