//===- CpuDevice.cpp - The built-in CPU device ----------------------------===//
//
// The host as a device: buffers are aligned host memory, streams run their
// work inline (every call has completed when it returns), events are
// timestamps, and an executable is a program library loaded with dlopen.
// The library's undefined symbols (kernels, collectives, memrefCopy)
// resolve against libloom_runtime, so the runtime is put in the global
// symbol scope before the dlopen; the library itself is loaded RTLD_LOCAL so
// that two artifacts never see each other's symbols.
//
//===----------------------------------------------------------------------===//

#include "devices/cpu/CpuTarget.h"
#include "devices/cpu/PackedGemm.h"
#include "io/DynamicLibrary.h"
#include "loom/runtime/DeviceBackend.h"
#include "loom/runtime/Support.h"
#include <cerrno>
#include <chrono>
#include <cstring>
#include <dlfcn.h>
#include <new>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace loom::rt;

namespace {

struct CpuDevice {
  std::string name;
};

/// Streams hold nothing: their work is done by the time it is queued.
struct CpuStream {};

struct CpuEvent {
  bool recorded = false;
  int64_t nanoseconds = 0;
};

struct CpuExecutable {
  std::string path;
  void *library = nullptr;
  void (*entry)(void **) = nullptr;
};

int fail(loom_status status, const std::string &message, char *err,
         size_t errLen) {
  return failWith(status, message, err, errLen);
}

int64_t now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// "x86_64 CPU (<model name>)", the model from /proc/cpuinfo when it has
/// one.
std::string cpuName() {
  std::string name = std::string(hostArchitecture()) + " CPU";
  std::string info, error;
  if (!readFileToString("/proc/cpuinfo", 1 << 22, info, error))
    return name;
  size_t key = info.find("model name");
  size_t colon = key == std::string::npos ? key : info.find(':', key);
  if (colon == std::string::npos)
    return name;
  size_t end = info.find('\n', colon);
  std::string model =
      info.substr(colon + 1, end == std::string::npos ? std::string::npos
                                                      : end - colon - 1);
  size_t first = model.find_first_not_of(' ');
  return first == std::string::npos ? name
                                    : name + " (" + model.substr(first) + ")";
}

//===----------------------------------------------------------------------===//
// Devices and memory
//===----------------------------------------------------------------------===//

int deviceCount(int32_t *count, char *, size_t) {
  *count = 1;
  return LOOM_OK;
}

int deviceOpen(int32_t ordinal, void **device,
               loom_device_properties *properties, char *err, size_t errLen) {
  auto *cpu = new (std::nothrow) CpuDevice();
  if (!cpu)
    return fail(LOOM_ERROR_OUT_OF_MEMORY, "cpu: out of memory", err, errLen);
  cpu->name = cpuName();
  long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
  long threads = ::sysconf(_SC_NPROCESSORS_ONLN);
  properties->kind = "cpu";
  properties->ordinal = ordinal;
  properties->name = cpu->name.c_str();
  properties->memory_bytes =
      pages > 0 && pageSize > 0 ? uint64_t(pages) * uint64_t(pageSize) : 0;
  properties->compute_units = threads > 0 ? int32_t(threads) : 1;
  properties->alignment = LOOM_ALIGNMENT;
  properties->host_memory = 1;
  *device = cpu;
  return LOOM_OK;
}

void deviceClose(void *device) { delete static_cast<CpuDevice *>(device); }

int bufferAllocate(void *, size_t bytes, void **data, char *err,
                   size_t errLen) {
  *data = loom_aligned_alloc(bytes);
  if (!*data)
    return fail(LOOM_ERROR_OUT_OF_MEMORY,
                "cpu: cannot allocate " + std::to_string(bytes) + " bytes", err,
                errLen);
  return LOOM_OK;
}

void bufferFree(void *, void *data) { loom_aligned_free(data); }

int copy(void *, void *, void *dst, const void *src, size_t bytes,
         loom_copy_direction, char *, size_t) {
  std::memmove(dst, src, bytes);
  return LOOM_OK;
}

int fill(void *, void *, void *dst, size_t bytes, const void *pattern,
         size_t patternSize, char *, size_t) {
  auto *out = static_cast<unsigned char *>(dst);
  if (patternSize == 1) {
    std::memset(out, *static_cast<const unsigned char *>(pattern), bytes);
    return LOOM_OK;
  }
  for (size_t at = 0; at < bytes; at += patternSize)
    std::memcpy(out + at, pattern, patternSize);
  return LOOM_OK;
}

/// GEMM weights are packed on first use and cached by address.
void bufferUpdated(void *, const void *data, size_t bytes) {
  packed::forgetRange(data, bytes);
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

int streamCreate(void *, void **stream, char *err, size_t errLen) {
  *stream = new (std::nothrow) CpuStream();
  return *stream ? LOOM_OK
                 : fail(LOOM_ERROR_OUT_OF_MEMORY, "cpu: out of memory", err,
                        errLen);
}

void streamDestroy(void *, void *stream) {
  delete static_cast<CpuStream *>(stream);
}

int streamSynchronize(void *, void *, char *, size_t) { return LOOM_OK; }

/// Backends get no stream to order after: the work is done.
void *streamNative(void *, void *) { return nullptr; }

int eventCreate(void *, void **event, char *err, size_t errLen) {
  *event = new (std::nothrow) CpuEvent();
  return *event ? LOOM_OK
                : fail(LOOM_ERROR_OUT_OF_MEMORY, "cpu: out of memory", err,
                       errLen);
}

void eventDestroy(void *, void *event) {
  delete static_cast<CpuEvent *>(event);
}

int eventRecord(void *, void *event, void *, char *, size_t) {
  auto *cpu = static_cast<CpuEvent *>(event);
  cpu->recorded = true;
  cpu->nanoseconds = now();
  return LOOM_OK;
}

int streamWaitEvent(void *, void *, void *, char *, size_t) { return LOOM_OK; }

int eventSynchronize(void *, void *, char *, size_t) { return LOOM_OK; }

int eventElapsedMs(void *, void *start, void *end, double *ms, char *err,
                   size_t errLen) {
  auto *from = static_cast<CpuEvent *>(start);
  auto *to = static_cast<CpuEvent *>(end);
  if (!from->recorded || !to->recorded)
    return fail(LOOM_ERROR_INVALID_ARGUMENT,
                "loom_event_elapsed_ms: an event was never recorded", err,
                errLen);
  *ms = static_cast<double>(to->nanoseconds - from->nanoseconds) / 1e6;
  return LOOM_OK;
}

//===----------------------------------------------------------------------===//
// Executables
//===----------------------------------------------------------------------===//

std::string joinNames(const std::vector<std::string> &names) {
  std::string text;
  for (const std::string &name : names)
    text += (text.empty() ? "" : ", ") + name;
  return text;
}

/// A program compiled for CPU features this machine lacks dies of SIGILL
/// in the middle of a run; checking first says what is missing.
int executableCheck(void *, const loom_executable_params *params, char *err,
                    size_t errLen) {
  std::string artifact = *params->artifact ? params->artifact : params->path;
  std::string triple = params->target_triple;
  if (!triple.empty()) {
    std::string arch = canonicalArchitecture(triple);
    std::string_view host = hostArchitecture();
    if (!host.empty() && arch != host)
      return fail(LOOM_ERROR_INCOMPATIBLE,
                  "artifact '" + artifact + "' was compiled for " + triple +
                      ", but this machine is " + std::string(host) +
                      ": recompile it for this machine",
                  err, errLen);
  }
  std::vector<std::string> features(params->target_features,
                                    params->target_features +
                                        params->num_target_features);
  std::vector<std::string> missing = missingCpuFeatures(features);
  if (missing.empty())
    return LOOM_OK;
  std::string cpu =
      *params->target_cpu
          ? " (target cpu '" + std::string(params->target_cpu) + "')"
          : std::string();
  return fail(LOOM_ERROR_INCOMPATIBLE,
              "artifact '" + artifact +
                  "' was compiled for CPU features this machine lacks: " +
                  joinNames(missing) + cpu + ": recompile it for this machine",
              err, errLen);
}

int executableLoad(void *, const loom_executable_params *params,
                   void **executable, char *err, size_t errLen) {
  std::string path = params->path;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return fail(LOOM_ERROR_IO,
                "cannot open program library '" + path +
                    "': " + errnoMessage(errno),
                err, errLen);
  if (!S_ISREG(st.st_mode))
    return fail(LOOM_ERROR_IO,
                "cannot load program library '" + path +
                    "': not a regular file",
                err, errLen);
  promoteRuntimeToGlobalScope();
  ::dlerror();
  void *library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *message = ::dlerror();
    std::string error = "cannot load program library '" + path +
                        "': " + (message ? message : "unknown dlopen error");
    // Unresolved symbols mean the program needs a kernel this runtime does
    // not provide.
    if (message && std::strstr(message, "undefined symbol"))
      error += " (the program calls a function this runtime does not "
               "provide: it needs a runtime built with the loomc that "
               "compiled it)";
    return fail(LOOM_ERROR_IO, error, err, errLen);
  }
  ::dlerror();
  void *symbol = ::dlsym(library, params->entry);
  if (!symbol) {
    ::dlclose(library);
    return fail(LOOM_ERROR_FORMAT,
                "program library '" + path +
                    "' does not export the entry symbol '" + params->entry +
                    "'",
                err, errLen);
  }
  auto *cpu = new (std::nothrow) CpuExecutable();
  if (!cpu) {
    ::dlclose(library);
    return fail(LOOM_ERROR_OUT_OF_MEMORY, "cpu: out of memory", err, errLen);
  }
  cpu->path = path;
  cpu->library = library;
  // POSIX guarantees that dlsym results convert to function pointers.
  cpu->entry = reinterpret_cast<void (*)(void **)>(symbol);
  *executable = cpu;
  return LOOM_OK;
}

void executableUnload(void *, void *executable) {
  auto *cpu = static_cast<CpuExecutable *>(executable);
  ::dlclose(cpu->library);
  delete cpu;
}

int executableLookup(void *, void *executable, const char *symbol,
                     void **address, char *err, size_t errLen) {
  auto *cpu = static_cast<CpuExecutable *>(executable);
  ::dlerror();
  *address = ::dlsym(cpu->library, symbol);
  if (!*address)
    return fail(LOOM_ERROR_FORMAT,
                "program library '" + cpu->path + "' does not export '" +
                    symbol + "'",
                err, errLen);
  return LOOM_OK;
}

int executableLaunch(void *, void *executable, void *, void *const *buffers,
                     size_t, char *, size_t) {
  // The entry reads the array only; the ABI spells it void **.
  static_cast<CpuExecutable *>(executable)->entry(const_cast<void **>(buffers));
  return LOOM_OK;
}

const loom_device_ops cpuOps = {
    LOOM_DEVICE_ABI_VERSION,
    "cpu",
    deviceCount,
    deviceOpen,
    deviceClose,
    bufferAllocate,
    bufferFree,
    copy,
    fill,
    bufferUpdated,
    streamCreate,
    streamDestroy,
    streamSynchronize,
    streamNative,
    eventCreate,
    eventDestroy,
    eventRecord,
    streamWaitEvent,
    eventSynchronize,
    eventElapsedMs,
    executableCheck,
    executableLoad,
    executableUnload,
    executableLookup,
    executableLaunch,
};

} // namespace

extern "C" const loom_device_ops *loom_device_cpu(void) { return &cpuOps; }
