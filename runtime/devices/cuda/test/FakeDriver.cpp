//===- FakeDriver.cpp - A host stand-in for libcuda and libcublasLt -------===//
//
// A test double for machines without a GPU: the CUDA driver functions the
// CUDA device calls (this file) and cuBLASLt's (FakeBlasLt.cpp), built as
// one library that the tests put first on the library search path as
// libcuda.so.1 and libcublasLt.so.13, so that the device's own dlopen
// finds them and the plugin runs unchanged.
//
//  - LOOM_FAKE_CUDA_DEVICES GPUs (default 1; 0: cuInit fails as it does on
//    a machine without one), of compute capability LOOM_FAKE_CUDA_CC
//    (default 90) and LOOM_FAKE_CUDA_MEMORY bytes (default 1 GiB).
//  - Device memory is host memory that this library records; every copy,
//    memset and GEMM checks that its device ranges lie in an allocation,
//    as a GPU would fault on a stray address.
//  - Modules: PTX is read for its .entry names and parameter sizes; a
//    cubin (an ELF file) is searched for the kernel names. Launches check
//    their sizes against the device's limits; kernels do not run.
//  - Work runs when queued, on any stream, except on a stream being
//    captured (cuStreamBeginCapture): launches, memsets, device copies and
//    GEMMs are recorded into the graph and run at each cuGraphLaunch;
//    copies to or from the host and synchronisation fail there, as they
//    do on a GPU.
//  - LOOM_FAKE_CUDA_LOG names a file that gets one line per module load,
//    launch, memset, copy and GEMM; LOOM_FAKE_CUDA_FAIL_LAUNCH=NAME fails
//    the launches of kernel NAME; LOOM_FAKE_CUDA_FAIL_JIT=1 fails PTX loads;
//    LOOM_FAKE_CUDA_FAIL_CAPTURE=1 fails stream captures.
//
//===----------------------------------------------------------------------===//

#include "FakeDriver.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

long envLong(const char *name, long fallback) {
  const char *v = getenv(name);
  return v && *v ? strtol(v, nullptr, 10) : fallback;
}

std::mutex mutex;
std::map<uintptr_t, size_t> allocations;
size_t used = 0;

struct Function {
  std::string name;
  /// Parameter sizes from PTX; empty for a cubin's kernels.
  std::vector<size_t> params;
  bool fromPtx = false;
};

struct Module {
  std::string data;
  bool ptx = false;
  std::vector<Function *> functions;
};

struct Event {
  double ms = 0;
};

struct Stream {
  bool capturing = false;
  std::vector<std::function<CUresult()>> captured;
};

struct Graph {
  std::vector<std::function<CUresult()>> ops;
};

bool capturing(CUstream stream) {
  return stream && reinterpret_cast<Stream *>(stream)->capturing;
}

double nowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int contextToken;

/// Parameter sizes of `.entry name(...)` in PTX text, or false.
bool ptxEntry(const std::string &ptx, const std::string &name,
              std::vector<size_t> &sizes) {
  std::string key = ".entry " + name + "(";
  size_t at = ptx.find(key);
  if (at == std::string::npos)
    return false;
  size_t end = ptx.find(')', at);
  std::string list = ptx.substr(at + key.size(), end - at - key.size());
  size_t pos = 0;
  while ((pos = list.find(".param", pos)) != std::string::npos) {
    pos += 6;
    size_t type = list.find('.', pos);
    std::string t = list.substr(type + 1, 3);
    sizes.push_back(t[1] == '6' ? 8 : t[1] == '3' ? 4 : t[1] == '1' ? 2 : 1);
  }
  return true;
}

template <typename T>
CUresult memsetN(CUdeviceptr dst, T value, size_t count, const char *what,
                 CUstream stream) {
  if (!fake::inDeviceMemory(reinterpret_cast<void *>(dst), count * sizeof(T),
                            what))
    return CUDA_ERROR_INVALID_VALUE;
  if (dst % sizeof(T))
    return CUDA_ERROR_INVALID_VALUE;
  return fake::enqueue(stream, [=] {
    auto *out = reinterpret_cast<T *>(dst);
    for (size_t i = 0; i < count; ++i)
      out[i] = value;
    fake::log("%s %zu x 0x%llx", what, count, (unsigned long long)value);
    return CUDA_SUCCESS;
  });
}

} // namespace

CUresult fake::enqueue(CUstream stream, std::function<CUresult()> op) {
  if (!capturing(stream))
    return op();
  reinterpret_cast<Stream *>(stream)->captured.push_back(std::move(op));
  return CUDA_SUCCESS;
}

void fake::log(const char *format, ...) {
  const char *path = getenv("LOOM_FAKE_CUDA_LOG");
  if (!path || !*path)
    return;
  FILE *f = fopen(path, "a");
  if (!f)
    return;
  va_list args;
  va_start(args, format);
  vfprintf(f, format, args);
  va_end(args);
  fputc('\n', f);
  fclose(f);
}

bool fake::inDeviceMemory(const void *ptr, size_t bytes, const char *what) {
  std::lock_guard<std::mutex> lock(mutex);
  auto p = reinterpret_cast<uintptr_t>(ptr);
  auto it = allocations.upper_bound(p);
  if (it != allocations.begin()) {
    --it;
    if (p >= it->first && p - it->first <= it->second &&
        bytes <= it->second - (p - it->first))
      return true;
  }
  fprintf(stderr, "fake cuda: %s: %zu bytes at %p are not device memory\n",
          what, bytes, ptr);
  return false;
}

extern "C" {

CUresult CUDAAPI cuInit(unsigned int) {
  return envLong("LOOM_FAKE_CUDA_DEVICES", 1) > 0 ? CUDA_SUCCESS
                                                  : CUDA_ERROR_NO_DEVICE;
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **str) {
  switch (error) {
  case CUDA_SUCCESS:
    *str = "CUDA_SUCCESS";
    break;
  case CUDA_ERROR_INVALID_VALUE:
    *str = "CUDA_ERROR_INVALID_VALUE";
    break;
  case CUDA_ERROR_OUT_OF_MEMORY:
    *str = "CUDA_ERROR_OUT_OF_MEMORY";
    break;
  case CUDA_ERROR_NO_DEVICE:
    *str = "CUDA_ERROR_NO_DEVICE";
    break;
  case CUDA_ERROR_INVALID_DEVICE:
    *str = "CUDA_ERROR_INVALID_DEVICE";
    break;
  case CUDA_ERROR_INVALID_PTX:
    *str = "CUDA_ERROR_INVALID_PTX";
    break;
  case CUDA_ERROR_NOT_FOUND:
    *str = "CUDA_ERROR_NOT_FOUND";
    break;
  case CUDA_ERROR_LAUNCH_FAILED:
    *str = "CUDA_ERROR_LAUNCH_FAILED";
    break;
  case CUDA_ERROR_INVALID_IMAGE:
    *str = "CUDA_ERROR_INVALID_IMAGE";
    break;
  default:
    *str = "CUDA_ERROR_UNKNOWN";
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **str) {
  switch (error) {
  case CUDA_ERROR_OUT_OF_MEMORY:
    *str = "out of memory";
    break;
  case CUDA_ERROR_NO_DEVICE:
    *str = "no CUDA-capable device is detected";
    break;
  case CUDA_ERROR_LAUNCH_FAILED:
    *str = "unspecified launch failure";
    break;
  default:
    *str = "fake error";
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDriverGetVersion(int *version) {
  *version = 13000;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int *count) {
  *count = int(envLong("LOOM_FAKE_CUDA_DEVICES", 1));
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= envLong("LOOM_FAKE_CUDA_DEVICES", 1))
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice device) {
  snprintf(name, size_t(len), "Fake GPU %d", device);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice) {
  *bytes = size_t(envLong("LOOM_FAKE_CUDA_MEMORY", 1L << 30));
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                                      CUdevice) {
  long cc = envLong("LOOM_FAKE_CUDA_CC", 90);
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = int(cc / 10);
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = int(cc % 10);
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 4;
    break;
  default:
    *value = 0;
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  *context = reinterpret_cast<CUcontext>(&contextToken);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }

CUresult CUDAAPI cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxSynchronize(void) { return CUDA_SUCCESS; }

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *ptr, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex);
  size_t limit = size_t(envLong("LOOM_FAKE_CUDA_MEMORY", 1L << 30));
  if (bytes > limit - used)
    return CUDA_ERROR_OUT_OF_MEMORY;
  void *p = malloc(bytes ? bytes : 1);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  // Garbage, as fresh device memory may hold.
  memset(p, 0xa5, bytes);
  allocations[reinterpret_cast<uintptr_t>(p)] = bytes;
  used += bytes;
  *ptr = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr ptr) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = allocations.find(uintptr_t(ptr));
  if (it == allocations.end())
    return CUDA_ERROR_INVALID_VALUE;
  used -= it->second;
  allocations.erase(it);
  free(reinterpret_cast<void *>(ptr));
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src,
                                   size_t bytes, CUstream stream) {
  if (capturing(stream))
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (!fake::inDeviceMemory(reinterpret_cast<void *>(dst), bytes,
                            "cuMemcpyHtoDAsync destination"))
    return CUDA_ERROR_INVALID_VALUE;
  memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes,
                                   CUstream stream) {
  if (capturing(stream))
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (!fake::inDeviceMemory(reinterpret_cast<void *>(src), bytes,
                            "cuMemcpyDtoHAsync source"))
    return CUDA_ERROR_INVALID_VALUE;
  memcpy(dst, reinterpret_cast<void *>(src), bytes);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src,
                                   size_t bytes, CUstream stream) {
  if (!fake::inDeviceMemory(reinterpret_cast<void *>(src), bytes,
                            "cuMemcpyDtoDAsync source") ||
      !fake::inDeviceMemory(reinterpret_cast<void *>(dst), bytes,
                            "cuMemcpyDtoDAsync destination"))
    return CUDA_ERROR_INVALID_VALUE;
  return fake::enqueue(stream, [=] {
    fake::log("copy %zu", bytes);
    memmove(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src),
            bytes);
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dst, unsigned char value,
                                 size_t count, CUstream stream) {
  return memsetN(dst, value, count, "memset8", stream);
}
CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr dst, unsigned short value,
                                  size_t count, CUstream stream) {
  return memsetN(dst, value, count, "memset16", stream);
}
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dst, unsigned int value,
                                  size_t count, CUstream stream) {
  return memsetN(dst, value, count, "memset32", stream);
}

CUresult CUDAAPI cuStreamCreate(CUstream *stream, unsigned int) {
  *stream = reinterpret_cast<CUstream>(new Stream());
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamDestroy(CUstream stream) {
  delete reinterpret_cast<Stream *>(stream);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamSynchronize(CUstream stream) {
  return capturing(stream) ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
                           : CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamBeginCapture(CUstream stream, CUstreamCaptureMode) {
  if (!stream || capturing(stream))
    return CUDA_ERROR_ILLEGAL_STATE;
  if (envLong("LOOM_FAKE_CUDA_FAIL_CAPTURE", 0))
    return CUDA_ERROR_NOT_SUPPORTED;
  reinterpret_cast<Stream *>(stream)->capturing = true;
  fake::log("capture begin");
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  if (!capturing(stream))
    return CUDA_ERROR_ILLEGAL_STATE;
  auto *s = reinterpret_cast<Stream *>(stream);
  auto *g = new Graph();
  g->ops = std::move(s->captured);
  s->captured.clear();
  s->capturing = false;
  fake::log("capture end %zu nodes", g->ops.size());
  *graph = reinterpret_cast<CUgraph>(g);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphInstantiate(CUgraphExec *exec, CUgraph graph,
                                    unsigned long long) {
  *exec = reinterpret_cast<CUgraphExec>(
      new Graph(*reinterpret_cast<Graph *>(graph)));
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  if (capturing(stream))
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  auto *g = reinterpret_cast<Graph *>(exec);
  fake::log("graph launch %zu nodes", g->ops.size());
  for (auto &op : g->ops)
    if (CUresult r = op())
      return r;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec exec) {
  delete reinterpret_cast<Graph *>(exec);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphDestroy(CUgraph graph) {
  delete reinterpret_cast<Graph *>(graph);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamWaitEvent(CUstream, CUevent, unsigned int) {
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventCreate(CUevent *event, unsigned int) {
  *event = reinterpret_cast<CUevent>(new Event());
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventDestroy(CUevent event) {
  delete reinterpret_cast<Event *>(event);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventRecord(CUevent event, CUstream) {
  reinterpret_cast<Event *>(event)->ms = nowMs();
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  *ms = float(reinterpret_cast<Event *>(end)->ms -
              reinterpret_cast<Event *>(start)->ms);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image,
                                    unsigned int numOptions,
                                    CUjit_option *options, void **values) {
  auto *m = new Module();
  const char *bytes = static_cast<const char *>(image);
  if (memcmp(bytes,
             "\x7f"
             "ELF",
             4) == 0) {
    // A cubin: the section headers say how long it is.
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, bytes + 0x28, 8);
    memcpy(&shentsize, bytes + 0x3a, 2);
    memcpy(&shnum, bytes + 0x3c, 2);
    uint32_t flags;
    memcpy(&flags, bytes + 0x30, 4);
    m->data.assign(bytes, shoff + uint64_t(shentsize) * shnum);
    // CUDA 12 and later put the SM version in bits 8-15.
    fake::log("module cubin sm_%u", (flags >> 8) & 0xff);
  } else {
    m->data = bytes;
    m->ptx = true;
    size_t target = m->data.find(".target ");
    std::string chip =
        target == std::string::npos
            ? "?"
            : m->data.substr(target + 8,
                             m->data.find_first_of(", \n", target + 8) -
                                 target - 8);
    if (envLong("LOOM_FAKE_CUDA_FAIL_JIT", 0)) {
      for (unsigned i = 0; i < numOptions; ++i)
        if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
          snprintf(static_cast<char *>(values[i]), 64,
                   "ptxas fatal: fake JIT failure");
      delete m;
      return CUDA_ERROR_INVALID_PTX;
    }
    fake::log("module ptx %s", chip.c_str());
  }
  *module = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleUnload(CUmodule module) {
  auto *m = reinterpret_cast<Module *>(module);
  for (Function *f : m->functions)
    delete f;
  delete m;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *function, CUmodule module,
                                     const char *name) {
  auto *m = reinterpret_cast<Module *>(module);
  auto *f = new Function();
  f->name = name;
  f->fromPtx = m->ptx;
  bool found =
      m->ptx ? ptxEntry(m->data, name, f->params)
             : m->data.find(std::string(name) + '\0') != std::string::npos;
  if (!found) {
    delete f;
    return CUDA_ERROR_NOT_FOUND;
  }
  m->functions.push_back(f);
  *function = reinterpret_cast<CUfunction>(f);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction function, unsigned int gx,
                                unsigned int gy, unsigned int gz,
                                unsigned int bx, unsigned int by,
                                unsigned int bz, unsigned int shared,
                                CUstream stream, void **params, void **extra) {
  auto *f = reinterpret_cast<Function *>(function);
  const char *failing = getenv("LOOM_FAKE_CUDA_FAIL_LAUNCH");
  if (failing && f->name == failing)
    return CUDA_ERROR_LAUNCH_FAILED;
  if (!gx || !gy || !gz || !bx || !by || !bz || uint64_t(bx) * by * bz > 1024 ||
      gy > 65535 || gz > 65535 || shared > 48 * 1024 || extra)
    return CUDA_ERROR_INVALID_VALUE;
  // The parameters are copied now, as the driver does.
  std::vector<uint64_t> values(f->params.size());
  for (size_t i = 0; i < f->params.size(); ++i)
    memcpy(&values[i], params[i], f->params[i]);
  std::string name = f->name;
  return fake::enqueue(stream, [=] {
    fake::log("launch %s grid %u,%u,%u block %u,%u,%u params %zu", name.c_str(),
              gx, gy, gz, bx, by, bz, values.size());
    return CUDA_SUCCESS;
  });
}

} // extern "C"
