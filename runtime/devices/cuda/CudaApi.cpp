//===- CudaApi.cpp - The CUDA driver and cuBLASLt, loaded at run time -----===//

#include "devices/cuda/CudaApi.h"
#include <dlfcn.h>
#include <mutex>

using namespace loom::rt::cuda;

namespace {

#define LOOM_STRINGIFY(x) #x
/// The name a header maps `name` to: "cuMemAlloc" -> "cuMemAlloc_v2".
#define LOOM_SYMBOL_OF(name) LOOM_STRINGIFY(name)

/// Opens the first of `names` that loads; the last dlerror otherwise.
void *openFirst(const char *const *names, size_t count, std::string &opened,
                std::string &error) {
  for (size_t i = 0; i < count; ++i) {
    ::dlerror();
    if (void *handle = ::dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) {
      opened = names[i];
      return handle;
    }
    const char *message = ::dlerror();
    error = message ? message : "unknown dlopen error";
  }
  return nullptr;
}

template <typename T>
bool lookup(void *handle, const char *symbol, T &out, std::string &missing) {
  out = reinterpret_cast<T>(::dlsym(handle, symbol));
  if (!out)
    missing += (missing.empty() ? "" : ", ") + std::string(symbol);
  return out != nullptr;
}

} // namespace

std::string Driver::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  std::string out = name ? name : "CUDA error " + std::to_string(result);
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

std::string BlasLt::describe(cublasStatus_t status) const {
  const char *text =
      cublasLtGetStatusString ? cublasLtGetStatusString(status) : nullptr;
  return text ? text : "cuBLASLt status " + std::to_string(int(status));
}

const Driver *loom::rt::cuda::driver(std::string &error) {
  static std::once_flag once;
  static Driver loaded;
  static bool ok = false;
  static std::string failure;
  std::call_once(once, [] {
    const char *names[] = {"libcuda.so.1"};
    std::string dlError;
    void *handle = openFirst(names, 1, loaded.library, dlError);
    if (!handle) {
      failure = "no CUDA driver: cannot load libcuda.so.1 (" + dlError +
                "); is the NVIDIA driver installed?";
      return;
    }
    std::string missing;
#define LOOM_CUDA_LOOKUP(name)                                                 \
  lookup(handle, LOOM_SYMBOL_OF(name), loaded.name, missing);
    LOOM_CUDA_DRIVER_FUNCTIONS(LOOM_CUDA_LOOKUP)
#undef LOOM_CUDA_LOOKUP
    for (const char *name : {"cuEventElapsedTime_v2", "cuEventElapsedTime"})
      if (!loaded.cuEventElapsedTime)
        loaded.cuEventElapsedTime =
            reinterpret_cast<decltype(loaded.cuEventElapsedTime)>(
                ::dlsym(handle, name));
    if (!loaded.cuEventElapsedTime)
      missing +=
          (missing.empty() ? "" : ", ") + std::string("cuEventElapsedTime");
    if (!missing.empty()) {
      failure = "the CUDA driver " + loaded.library + " is too old: it lacks " +
                missing;
      return;
    }
    CUresult init = loaded.cuInit(0);
    if (init != CUDA_SUCCESS) {
      failure =
          "the CUDA driver cannot start: cuInit: " + loaded.describe(init);
      return;
    }
    ok = true;
  });
  if (!ok) {
    error = failure;
    return nullptr;
  }
  return &loaded;
}

const BlasLt *loom::rt::cuda::blasLt(std::string &error) {
  static std::once_flag once;
  static BlasLt loaded;
  static bool ok = false;
  static std::string failure;
  std::call_once(once, [] {
    const char *names[] = {"libcublasLt.so.13", "libcublasLt.so.12"};
    std::string dlError;
    void *handle = openFirst(names, 2, loaded.library, dlError);
    if (!handle) {
      failure = "cannot load cuBLASLt (libcublasLt.so.13 or .12: " + dlError +
                "); put the CUDA toolkit's or the nvidia-cublas wheel's lib "
                "directory on LD_LIBRARY_PATH";
      return;
    }
    std::string missing;
#define LOOM_CUDA_LOOKUP(name)                                                 \
  lookup(handle, LOOM_SYMBOL_OF(name), loaded.name, missing);
    LOOM_CUBLASLT_FUNCTIONS(LOOM_CUDA_LOOKUP)
#undef LOOM_CUDA_LOOKUP
    if (!missing.empty()) {
      failure = "cuBLASLt " + loaded.library + " lacks " + missing;
      return;
    }
    ok = true;
  });
  if (!ok) {
    error = failure;
    return nullptr;
  }
  return &loaded;
}
