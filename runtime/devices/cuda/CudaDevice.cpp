//===- CudaDevice.cpp - NVIDIA GPUs as a Loom device ----------------------===//
//
// libloom_device_cuda.so, the "cuda" device kind (DeviceBackend.h). A
// device is one GPU in its primary context; buffers are cuMemAlloc memory,
// streams non-blocking CUDA streams, events CUDA events, and an executable
// a program.cuda.json host schedule run by Executable. The driver and
// cuBLASLt are opened with dlopen (CudaApi.h), so the plugin loads on any
// machine and says what is missing.
//
//===----------------------------------------------------------------------===//

#include "devices/cuda/CudaApi.h"
#include "devices/cuda/Executable.h"
#include "loom/runtime/ABI.h"
#include "loom/runtime/DeviceBackend.h"
#include "loom/runtime/Support.h"
#include <cstring>
#include <new>
#include <string>

using namespace loom::rt;
using namespace loom::rt::cuda;

namespace {

struct CudaDevice {
  DeviceContext ctx;
  CUdevice device = 0;
};

struct CudaEvent {
  CUevent event = nullptr;
  bool recorded = false;
};

int fail(loom_status status, const std::string &message, char *err,
         size_t errLen) {
  return failWith(status, message, err, errLen);
}

loom_status statusOf(CUresult result) {
  switch (result) {
  case CUDA_ERROR_OUT_OF_MEMORY:
    return LOOM_ERROR_OUT_OF_MEMORY;
  case CUDA_ERROR_INVALID_VALUE:
  case CUDA_ERROR_INVALID_HANDLE:
    return LOOM_ERROR_INVALID_ARGUMENT;
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_INVALID_DEVICE:
  case CUDA_ERROR_NOT_SUPPORTED:
    return LOOM_ERROR_UNSUPPORTED;
  default:
    return LOOM_ERROR_IO;
  }
}

/// Makes the device's context current on this thread, then runs `call`.
struct Call {
  const CudaDevice *device;
  char *err;
  size_t errLen;

  int operator()(CUresult result, const char *what) const {
    if (result == CUDA_SUCCESS)
      return LOOM_OK;
    return fail(statusOf(result),
                std::string("cuda: ") + what + ": " +
                    device->ctx.driver->describe(result),
                err, errLen);
  }
};

Call enter(void *device, char *err, size_t errLen) {
  auto *d = static_cast<CudaDevice *>(device);
  d->ctx.driver->cuCtxSetCurrent(d->ctx.context);
  return Call{d, err, errLen};
}

const Driver *driverOrFail(char *err, size_t errLen, int &status) {
  std::string error;
  const Driver *d = driver(error);
  status = d ? LOOM_OK : fail(LOOM_ERROR_UNSUPPORTED, error, err, errLen);
  return d;
}

//===----------------------------------------------------------------------===//
// Devices and memory
//===----------------------------------------------------------------------===//

int deviceCount(int32_t *count, char *err, size_t errLen) {
  int status;
  const Driver *d = driverOrFail(err, errLen, status);
  if (!d)
    return status;
  int n = 0;
  CUresult result = d->cuDeviceGetCount(&n);
  if (result != CUDA_SUCCESS)
    return fail(statusOf(result),
                "cuda: cuDeviceGetCount: " + d->describe(result), err, errLen);
  *count = n;
  return LOOM_OK;
}

int deviceOpen(int32_t ordinal, void **device,
               loom_device_properties *properties, char *err, size_t errLen) {
  int status;
  const Driver *d = driverOrFail(err, errLen, status);
  if (!d)
    return status;
  auto *cuda = new (std::nothrow) CudaDevice();
  if (!cuda)
    return fail(LOOM_ERROR_OUT_OF_MEMORY, "cuda: out of memory", err, errLen);
  cuda->ctx.driver = d;
  Call call{cuda, err, errLen};
  char name[256] = "";
  int major = 0, minor = 0, sms = 0;
  size_t memory = 0;
  if ((status = call(d->cuDeviceGet(&cuda->device, ordinal), "cuDeviceGet")) ||
      (status = call(d->cuDeviceGetName(name, sizeof(name), cuda->device),
                     "cuDeviceGetName")) ||
      (status = call(d->cuDeviceTotalMem(&memory, cuda->device),
                     "cuDeviceTotalMem")) ||
      (status = call(d->cuDeviceGetAttribute(
                         &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                         cuda->device),
                     "cuDeviceGetAttribute")) ||
      (status = call(d->cuDeviceGetAttribute(
                         &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                         cuda->device),
                     "cuDeviceGetAttribute")) ||
      (status = call(
           d->cuDeviceGetAttribute(
               &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, cuda->device),
           "cuDeviceGetAttribute")) ||
      (status =
           call(d->cuDevicePrimaryCtxRetain(&cuda->ctx.context, cuda->device),
                "cuDevicePrimaryCtxRetain"))) {
    delete cuda;
    return status;
  }
  name[sizeof(name) - 1] = '\0';
  cuda->ctx.name = name;
  cuda->ctx.cc = major * 10 + minor;
  properties->name = cuda->ctx.name.c_str();
  properties->memory_bytes = memory;
  properties->compute_units = sms;
  properties->alignment = LOOM_CUDA_BUFFER_ALIGNMENT;
  properties->host_memory = 0;
  *device = cuda;
  return LOOM_OK;
}

void deviceClose(void *device) {
  auto *cuda = static_cast<CudaDevice *>(device);
  cuda->ctx.driver->cuDevicePrimaryCtxRelease(cuda->device);
  delete cuda;
}

int bufferAllocate(void *device, size_t bytes, void **data, char *err,
                   size_t errLen) {
  Call call = enter(device, err, errLen);
  CUdeviceptr ptr = 0;
  // Zero bytes still get a distinct address.
  if (int status =
          call(static_cast<CudaDevice *>(device)->ctx.driver->cuMemAlloc(
                   &ptr, bytes ? bytes : 1),
               ("cuMemAlloc of " + std::to_string(bytes) + " bytes").c_str()))
    return status;
  *data = reinterpret_cast<void *>(ptr);
  return LOOM_OK;
}

void bufferFree(void *device, void *data) {
  enter(device, nullptr, 0);
  static_cast<CudaDevice *>(device)->ctx.driver->cuMemFree(
      reinterpret_cast<CUdeviceptr>(data));
}

CUstream native(void *stream) { return static_cast<CUstream>(stream); }

/// A NULL stream completes the work before returning.
int finish(const Call &call, void *stream) {
  if (stream)
    return LOOM_OK;
  return call(call.device->ctx.driver->cuStreamSynchronize(nullptr),
              "cuStreamSynchronize");
}

int copy(void *device, void *stream, void *dst, const void *src, size_t bytes,
         loom_copy_direction direction, char *err, size_t errLen) {
  Call call = enter(device, err, errLen);
  const Driver *d = call.device->ctx.driver;
  CUresult result;
  switch (direction) {
  case LOOM_COPY_HOST_TO_DEVICE:
    result = d->cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(dst), src,
                                  bytes, native(stream));
    break;
  case LOOM_COPY_DEVICE_TO_HOST:
    result = d->cuMemcpyDtoHAsync(dst, reinterpret_cast<CUdeviceptr>(src),
                                  bytes, native(stream));
    break;
  default:
    result = d->cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst),
                                  reinterpret_cast<CUdeviceptr>(src), bytes,
                                  native(stream));
    break;
  }
  if (int status = call(result, "cuMemcpyAsync"))
    return status;
  return finish(call, stream);
}

int fill(void *device, void *stream, void *dst, size_t bytes,
         const void *pattern, size_t patternSize, char *err, size_t errLen) {
  Call call = enter(device, err, errLen);
  const Driver *d = call.device->ctx.driver;
  auto ptr = reinterpret_cast<CUdeviceptr>(dst);
  CUresult result;
  if (patternSize == 1) {
    result =
        d->cuMemsetD8Async(ptr, *static_cast<const unsigned char *>(pattern),
                           bytes, native(stream));
  } else if (patternSize == 2) {
    unsigned short v;
    std::memcpy(&v, pattern, 2);
    result = d->cuMemsetD16Async(ptr, v, bytes / 2, native(stream));
  } else {
    unsigned int v;
    std::memcpy(&v, pattern, 4);
    result = d->cuMemsetD32Async(ptr, v, bytes / 4, native(stream));
  }
  if (int status = call(result, "cuMemsetAsync"))
    return status;
  return finish(call, stream);
}

/// Nothing is derived from parameters on the GPU.
void bufferUpdated(void *, const void *, size_t) {}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

int streamCreate(void *device, void **stream, char *err, size_t errLen) {
  Call call = enter(device, err, errLen);
  CUstream s = nullptr;
  if (int status = call(
          call.device->ctx.driver->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING),
          "cuStreamCreate"))
    return status;
  *stream = s;
  return LOOM_OK;
}

void streamDestroy(void *device, void *stream) {
  Call call = enter(device, nullptr, 0);
  call.device->ctx.driver->cuStreamSynchronize(native(stream));
  call.device->ctx.driver->cuStreamDestroy(native(stream));
}

int streamSynchronize(void *device, void *stream, char *err, size_t errLen) {
  Call call = enter(device, err, errLen);
  return call(call.device->ctx.driver->cuStreamSynchronize(native(stream)),
              "cuStreamSynchronize (a kernel or copy failed)");
}

void *streamNative(void *, void *stream) { return stream; }

int eventCreate(void *device, void **event, char *err, size_t errLen) {
  Call call = enter(device, err, errLen);
  auto *e = new (std::nothrow) CudaEvent();
  if (!e)
    return fail(LOOM_ERROR_OUT_OF_MEMORY, "cuda: out of memory", err, errLen);
  if (int status = call(
          call.device->ctx.driver->cuEventCreate(&e->event, CU_EVENT_DEFAULT),
          "cuEventCreate")) {
    delete e;
    return status;
  }
  *event = e;
  return LOOM_OK;
}

void eventDestroy(void *device, void *event) {
  Call call = enter(device, nullptr, 0);
  auto *e = static_cast<CudaEvent *>(event);
  call.device->ctx.driver->cuEventDestroy(e->event);
  delete e;
}

int eventRecord(void *device, void *event, void *stream, char *err,
                size_t errLen) {
  Call call = enter(device, err, errLen);
  auto *e = static_cast<CudaEvent *>(event);
  if (int status =
          call(call.device->ctx.driver->cuEventRecord(e->event, native(stream)),
               "cuEventRecord"))
    return status;
  e->recorded = true;
  return LOOM_OK;
}

int streamWaitEvent(void *device, void *stream, void *event, char *err,
                    size_t errLen) {
  Call call = enter(device, err, errLen);
  auto *e = static_cast<CudaEvent *>(event);
  if (!e->recorded)
    return LOOM_OK;
  return call(
      call.device->ctx.driver->cuStreamWaitEvent(native(stream), e->event, 0),
      "cuStreamWaitEvent");
}

int eventSynchronize(void *device, void *event, char *err, size_t errLen) {
  Call call = enter(device, err, errLen);
  auto *e = static_cast<CudaEvent *>(event);
  if (!e->recorded)
    return LOOM_OK;
  return call(call.device->ctx.driver->cuEventSynchronize(e->event),
              "cuEventSynchronize");
}

int eventElapsedMs(void *device, void *start, void *end, double *ms, char *err,
                   size_t errLen) {
  Call call = enter(device, err, errLen);
  auto *from = static_cast<CudaEvent *>(start);
  auto *to = static_cast<CudaEvent *>(end);
  if (!from->recorded || !to->recorded)
    return fail(LOOM_ERROR_INVALID_ARGUMENT,
                "loom_event_elapsed_ms: an event was never recorded", err,
                errLen);
  float value = 0;
  if (int status = call(call.device->ctx.driver->cuEventElapsedTime(
                            &value, from->event, to->event),
                        "cuEventElapsedTime"))
    return status;
  *ms = value;
  return LOOM_OK;
}

//===----------------------------------------------------------------------===//
// Executables
//===----------------------------------------------------------------------===//

std::string artifactOf(const loom_executable_params *params) {
  return *params->artifact ? params->artifact : params->path;
}

int executableCheck(void *device, const loom_executable_params *params,
                    char *err, size_t errLen) {
  Schedule schedule;
  std::string error;
  if (int status = readSchedule(params->path, schedule, error))
    return fail(loom_status(status), error, err, errLen);
  std::string why = incompatibility(
      schedule, static_cast<CudaDevice *>(device)->ctx, artifactOf(params));
  if (!why.empty())
    return fail(LOOM_ERROR_INCOMPATIBLE, why, err, errLen);
  return LOOM_OK;
}

int executableLoad(void *device, const loom_executable_params *params,
                   void **executable, char *err, size_t errLen) {
  enter(device, err, errLen);
  auto *e =
      new (std::nothrow) Executable(static_cast<CudaDevice *>(device)->ctx);
  if (!e)
    return fail(LOOM_ERROR_OUT_OF_MEMORY, "cuda: out of memory", err, errLen);
  std::string error;
  if (int status = e->load(params->path, artifactOf(params), error)) {
    delete e;
    return fail(loom_status(status), error, err, errLen);
  }
  *executable = e;
  return LOOM_OK;
}

void executableUnload(void *device, void *executable) {
  enter(device, nullptr, 0);
  delete static_cast<Executable *>(executable);
}

int executableLookup(void *, void *executable, const char *symbol,
                     void **address, char *err, size_t errLen) {
  CUfunction f = static_cast<Executable *>(executable)->lookup(symbol);
  if (!f)
    return fail(LOOM_ERROR_FORMAT,
                std::string("the program has no kernel '") + symbol + "'", err,
                errLen);
  *address = f;
  return LOOM_OK;
}

int executableLaunch(void *device, void *executable, void *stream,
                     void *const *buffers, size_t numBuffers, char *err,
                     size_t errLen) {
  Call call = enter(device, err, errLen);
  std::string error;
  if (int status = static_cast<Executable *>(executable)
                       ->launch(native(stream), buffers, numBuffers, error))
    return fail(loom_status(status), error, err, errLen);
  return finish(call, stream);
}

const loom_device_ops cudaOps = {
    LOOM_DEVICE_ABI_VERSION,
    LOOM_CUDA_DEVICE_KIND,
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

extern "C" __attribute__((visibility("default"))) const loom_device_ops *
loom_device_cuda(void) {
  return &cudaOps;
}
