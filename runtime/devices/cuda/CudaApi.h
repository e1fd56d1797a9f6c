//===- CudaApi.h - The CUDA driver and cuBLASLt, loaded at run time -*- C++
//-*-===//
//
// The CUDA device reaches the GPU through the driver API (libcuda.so.1,
// which the NVIDIA driver installs) and cuBLASLt (libcublasLt.so.13 or .12,
// from the toolkit or the nvidia-cublas wheel), both opened with dlopen:
// the plugin loads on machines without them and says what is missing, and
// the tests put host stand-ins of the same names first on the library
// search path (test/FakeDriver.cpp, test/FakeBlasLt.cpp). Types come from
// the toolkit's headers; symbols are looked up under the names the headers
// map them to (cuMemAlloc is cuMemAlloc_v2).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_DEVICES_CUDA_CUDAAPI_H
#define LOOM_RUNTIME_DEVICES_CUDA_CUDAAPI_H

#include <cublasLt.h>
#include <cuda.h>
#include <string>

namespace loom::rt::cuda {

// The driver functions the device calls: X(name).
#define LOOM_CUDA_DRIVER_FUNCTIONS(X)                                          \
  X(cuInit)                                                                    \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceTotalMem)                                                          \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxSynchronize)                                                          \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuMemsetD8Async)                                                           \
  X(cuMemsetD16Async)                                                          \
  X(cuMemsetD32Async)                                                          \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuLaunchKernel)                                                            \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphInstantiate)                                                        \
  X(cuGraphLaunch)                                                             \
  X(cuGraphExecDestroy)                                                        \
  X(cuGraphDestroy)

#define LOOM_CUBLASLT_FUNCTIONS(X)                                             \
  X(cublasLtCreate)                                                            \
  X(cublasLtDestroy)                                                           \
  X(cublasLtGetVersion)                                                        \
  X(cublasLtGetStatusString)                                                   \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescDestroy)                                                 \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutDestroy)                                               \
  X(cublasLtMatrixLayoutSetAttribute)                                          \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmul)

#define LOOM_CUDA_DECLARE(name) decltype(&::name) name = nullptr;

/// The driver's functions; loaded once per process.
struct Driver {
  LOOM_CUDA_DRIVER_FUNCTIONS(LOOM_CUDA_DECLARE)
  /// cuEventElapsedTime_v2, or the first one of drivers before 12.8.
  LOOM_CUDA_DECLARE(cuEventElapsedTime)
  /// The library that was opened, for messages.
  std::string library;

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string describe(CUresult result) const;
};

struct BlasLt {
  LOOM_CUBLASLT_FUNCTIONS(LOOM_CUDA_DECLARE)
  std::string library;

  std::string describe(cublasStatus_t status) const;
};

#undef LOOM_CUDA_DECLARE

/// The driver, loaded and initialised (cuInit) on first use; null with
/// `error` set when there is none ("no CUDA driver: libcuda.so.1 ...").
const Driver *driver(std::string &error);

/// cuBLASLt, loaded on first use; null with `error` set.
const BlasLt *blasLt(std::string &error);

} // namespace loom::rt::cuda

#endif // LOOM_RUNTIME_DEVICES_CUDA_CUDAAPI_H
