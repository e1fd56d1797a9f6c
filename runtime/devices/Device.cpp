//===- Device.cpp - The device API over one table per device kind ---------===//
//
// The handles of Device.h wrap a backend's own objects. Arguments are checked
// here, once for every kind, so that backends see valid calls only and the
// conformance tests hold each kind to the same messages. Kinds other than
// the built-in "cpu" are plugins, loaded on first use and kept loaded (GPU
// drivers do not survive unloading).
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Device.h"
#include "io/DynamicLibrary.h"
#include "loom/runtime/DeviceBackend.h"
#include "loom/runtime/Support.h"
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <new>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace loom::rt;

struct loom_device {
  const loom_device_ops *ops = nullptr;
  void *impl = nullptr;
  loom_device_properties properties{};
};

struct loom_buffer {
  loom_device *device = nullptr;
  void *data = nullptr;
  size_t size = 0;
};

struct loom_stream {
  loom_device *device = nullptr;
  void *impl = nullptr;
};

struct loom_event {
  loom_device *device = nullptr;
  void *impl = nullptr;
};

struct loom_executable {
  loom_device *device = nullptr;
  void *impl = nullptr;
};

//===----------------------------------------------------------------------===//
// Kinds
//===----------------------------------------------------------------------===//

namespace {
std::mutex kindsMutex;
/// Plugins loaded so far, by kind.
std::vector<std::pair<std::string, const loom_device_ops *>> &loadedKinds() {
  static std::vector<std::pair<std::string, const loom_device_ops *>> kinds;
  return kinds;
}

bool hasEveryFunction(const loom_device_ops &ops) {
  return ops.device_count && ops.device_open && ops.device_close &&
         ops.buffer_allocate && ops.buffer_free && ops.copy && ops.fill &&
         ops.buffer_updated && ops.stream_create && ops.stream_destroy &&
         ops.stream_synchronize && ops.stream_native && ops.event_create &&
         ops.event_destroy && ops.event_record && ops.stream_wait_event &&
         ops.event_synchronize && ops.event_elapsed_ms &&
         ops.executable_check && ops.executable_load && ops.executable_unload &&
         ops.executable_lookup && ops.executable_launch;
}

/// Loads libloom_device_<kind>.so: beside libloom_runtime.so first, then
/// from the library search path.
int loadPlugin(const std::string &kind, const loom_device_ops *&ops,
               std::string &error) {
  std::string file = "libloom_device_" + kind + ".so";
  std::string notFound =
      "no device '" + kind + "' in this runtime (" + file + " not found)";
  if (!isPluginName(kind)) {
    error = "no device " + quoteForMessage(kind) +
            " in this runtime (device kinds are names of lower-case letters, "
            "digits and '_')";
    return LOOM_ERROR_UNSUPPORTED;
  }
  // Plugins may call into the runtime (loom_dtype_size, ...).
  promoteRuntimeToGlobalScope();
  std::string beside = besideRuntime(file);
  std::string path = file;
  if (!beside.empty() && ::access(beside.c_str(), F_OK) == 0)
    path = beside;
  void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *message = ::dlerror();
    std::string text = message ? message : "unknown dlopen error";
    // The plugin itself is missing (not one of its dependencies).
    if (path == file && text.compare(0, file.size() + 1, file + ":") == 0 &&
        text.find("No such file") != std::string::npos) {
      error = notFound;
      return LOOM_ERROR_UNSUPPORTED;
    }
    error =
        "cannot load the '" + kind + "' device plugin '" + path + "': " + text;
    return LOOM_ERROR_IO;
  }
  std::string symbol = "loom_device_" + kind;
  void *entry = ::dlsym(handle, symbol.c_str());
  if (!entry) {
    error = "device plugin '" + path + "' does not export '" + symbol + "'";
    return LOOM_ERROR_FORMAT;
  }
  ops = reinterpret_cast<loom_device_entry>(entry)();
  if (!ops) {
    error = "device plugin '" + path + "' returned no device";
    return LOOM_ERROR_FORMAT;
  }
  if (ops->abi_version != LOOM_DEVICE_ABI_VERSION) {
    error = "device plugin '" + path + "' implements device ABI " +
            std::to_string(ops->abi_version) + ", but this runtime needs " +
            std::to_string(LOOM_DEVICE_ABI_VERSION) +
            ": rebuild the plugin with this runtime";
    ops = nullptr;
    return LOOM_ERROR_INCOMPATIBLE;
  }
  if (!ops->kind || kind != ops->kind || !hasEveryFunction(*ops)) {
    error = "device plugin '" + path +
            "' names another kind or leaves some of its functions NULL";
    ops = nullptr;
    return LOOM_ERROR_FORMAT;
  }
  return LOOM_OK;
}

int findKind(const char *kind, const loom_device_ops *&ops,
             std::string &error) {
  if (!kind || !*kind) {
    error = "no device kind given";
    return LOOM_ERROR_INVALID_ARGUMENT;
  }
  if (std::strcmp(kind, loom_device_cpu()->kind) == 0) {
    ops = loom_device_cpu();
    return LOOM_OK;
  }
  std::lock_guard<std::mutex> lock(kindsMutex);
  for (const auto &[name, known] : loadedKinds())
    if (name == kind) {
      ops = known;
      return LOOM_OK;
    }
  int status = loadPlugin(kind, ops, error);
  if (status == LOOM_OK)
    loadedKinds().emplace_back(kind, ops);
  return status;
}

int fail(int status, const char *function, const std::string &message,
         char *err, size_t errLen) {
  return failWith(static_cast<loom_status>(status),
                  std::string(function) + ": " + message, err, errLen);
}

/// `offset + bytes` within `size`, without overflow.
bool inRange(size_t offset, size_t bytes, size_t size) {
  return offset <= size && bytes <= size - offset;
}

/// The backend's stream of `stream`, which must belong to `device` (or be
/// NULL).
bool streamOf(const loom_stream *stream, const loom_device *device,
              void *&impl) {
  impl = stream ? stream->impl : nullptr;
  return !stream || stream->device == device;
}

/// Checks that bytes `offset .. offset + bytes` lie in `buffer` and that
/// `stream` belongs to its device; sets `impl` to the backend's stream.
int checkSpan(const char *function, const loom_stream *stream,
              const loom_buffer *buffer, size_t offset, size_t bytes,
              void *&impl, char *err, size_t errLen) {
  if (!inRange(offset, bytes, buffer->size))
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                "bytes " + std::to_string(offset) + " to " +
                    std::to_string(offset + bytes) +
                    " lie outside the buffer of " +
                    std::to_string(buffer->size),
                err, errLen);
  if (!streamOf(stream, buffer->device, impl))
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                "the stream belongs to another device", err, errLen);
  return LOOM_OK;
}
} // namespace

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

extern "C" int loom_device_count(const char *kind, int32_t *count, char *err,
                                 size_t errLen) {
  if (!count)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, "loom_device_count",
                "no place for the count", err, errLen);
  *count = 0;
  const loom_device_ops *ops = nullptr;
  std::string error;
  if (int status = findKind(kind, ops, error))
    return fail(status, "loom_device_count", error, err, errLen);
  return ops->device_count(count, err, errLen);
}

extern "C" int loom_device_create(const char *kind, int32_t ordinal,
                                  loom_device **device, char *err,
                                  size_t errLen) {
  const char *function = "loom_device_create";
  if (!device)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                "no place for the device", err, errLen);
  *device = nullptr;
  const loom_device_ops *ops = nullptr;
  std::string error;
  if (int status = findKind(kind, ops, error))
    return fail(status, function, error, err, errLen);
  int32_t count = 0;
  if (int status = ops->device_count(&count, err, errLen))
    return status;
  if (ordinal < 0 || ordinal >= count)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                "device " + std::to_string(ordinal) + " of kind '" + kind +
                    "' does not exist (this machine has " +
                    std::to_string(count) + ")",
                err, errLen);
  auto *result = new (std::nothrow) loom_device();
  if (!result)
    return fail(LOOM_ERROR_OUT_OF_MEMORY, function, "out of memory", err,
                errLen);
  result->ops = ops;
  if (int status = ops->device_open(ordinal, &result->impl, &result->properties,
                                    err, errLen)) {
    delete result;
    return status;
  }
  // What the runtime knows best, whatever the backend filled in.
  result->properties.kind = ops->kind;
  result->properties.ordinal = ordinal;
  *device = result;
  return LOOM_OK;
}

extern "C" void loom_device_free(loom_device *device) {
  if (!device)
    return;
  device->ops->device_close(device->impl);
  delete device;
}

extern "C" const loom_device_properties *
loom_device_get_properties(const loom_device *device) {
  return device ? &device->properties : nullptr;
}

extern "C" const char *loom_device_kind(const loom_device *device) {
  return device ? device->properties.kind : nullptr;
}

extern "C" int32_t loom_device_ordinal(const loom_device *device) {
  return device ? device->properties.ordinal : -1;
}

extern "C" void loom_device_buffer_updated(loom_device *device,
                                           const void *data, size_t bytes) {
  if (device && data)
    device->ops->buffer_updated(device->impl, data, bytes);
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

extern "C" int loom_buffer_allocate(loom_device *device, size_t bytes,
                                    loom_buffer **buffer, char *err,
                                    size_t errLen) {
  const char *function = "loom_buffer_allocate";
  if (!device || !buffer)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                device ? "no place for the buffer" : "the device is NULL", err,
                errLen);
  *buffer = nullptr;
  auto *result = new (std::nothrow) loom_buffer();
  if (!result)
    return fail(LOOM_ERROR_OUT_OF_MEMORY, function, "out of memory", err,
                errLen);
  result->device = device;
  result->size = bytes;
  if (int status = device->ops->buffer_allocate(device->impl, bytes,
                                                &result->data, err, errLen)) {
    delete result;
    return status;
  }
  *buffer = result;
  return LOOM_OK;
}

extern "C" void loom_buffer_free(loom_buffer *buffer) {
  if (!buffer)
    return;
  loom_device *device = buffer->device;
  device->ops->buffer_free(device->impl, buffer->data);
  delete buffer;
}

extern "C" void *loom_buffer_data(const loom_buffer *buffer) {
  return buffer ? buffer->data : nullptr;
}

extern "C" size_t loom_buffer_size(const loom_buffer *buffer) {
  return buffer ? buffer->size : 0;
}

extern "C" loom_device *loom_buffer_device(const loom_buffer *buffer) {
  return buffer ? buffer->device : nullptr;
}

extern "C" int loom_buffer_write(loom_stream *stream, loom_buffer *dst,
                                 size_t dstOffset, const void *src,
                                 size_t bytes, char *err, size_t errLen) {
  const char *function = "loom_buffer_write";
  if (!dst || (bytes && !src))
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                dst ? "the host memory is NULL" : "the buffer is NULL", err,
                errLen);
  void *impl = nullptr;
  if (int status =
          checkSpan(function, stream, dst, dstOffset, bytes, impl, err, errLen))
    return status;
  if (bytes == 0)
    return LOOM_OK;
  loom_device *device = dst->device;
  return device->ops->copy(device->impl, impl,
                           static_cast<char *>(dst->data) + dstOffset, src,
                           bytes, LOOM_COPY_HOST_TO_DEVICE, err, errLen);
}

extern "C" int loom_buffer_read(loom_stream *stream, const loom_buffer *src,
                                size_t srcOffset, void *dst, size_t bytes,
                                char *err, size_t errLen) {
  const char *function = "loom_buffer_read";
  if (!src || (bytes && !dst))
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                src ? "the host memory is NULL" : "the buffer is NULL", err,
                errLen);
  void *impl = nullptr;
  if (int status =
          checkSpan(function, stream, src, srcOffset, bytes, impl, err, errLen))
    return status;
  if (bytes == 0)
    return LOOM_OK;
  loom_device *device = src->device;
  return device->ops->copy(device->impl, impl, dst,
                           static_cast<const char *>(src->data) + srcOffset,
                           bytes, LOOM_COPY_DEVICE_TO_HOST, err, errLen);
}

extern "C" int loom_buffer_copy(loom_stream *stream, const loom_buffer *src,
                                size_t srcOffset, loom_buffer *dst,
                                size_t dstOffset, size_t bytes, char *err,
                                size_t errLen) {
  const char *function = "loom_buffer_copy";
  if (!src || !dst)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function, "a buffer is NULL", err,
                errLen);
  if (src->device != dst->device)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                "the buffers belong to different devices", err, errLen);
  if (!inRange(srcOffset, bytes, src->size) ||
      !inRange(dstOffset, bytes, dst->size))
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                std::to_string(bytes) +
                    " bytes lie outside the source or destination buffer",
                err, errLen);
  void *impl = nullptr;
  if (!streamOf(stream, dst->device, impl))
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                "the stream belongs to another device", err, errLen);
  if (bytes == 0)
    return LOOM_OK;
  loom_device *device = dst->device;
  return device->ops->copy(device->impl, impl,
                           static_cast<char *>(dst->data) + dstOffset,
                           static_cast<const char *>(src->data) + srcOffset,
                           bytes, LOOM_COPY_DEVICE_TO_DEVICE, err, errLen);
}

extern "C" int loom_buffer_fill(loom_stream *stream, loom_buffer *buffer,
                                size_t offset, size_t bytes,
                                const void *pattern, size_t patternSize,
                                char *err, size_t errLen) {
  const char *function = "loom_buffer_fill";
  if (!buffer || !pattern)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                buffer ? "the pattern is NULL" : "the buffer is NULL", err,
                errLen);
  if (patternSize != 1 && patternSize != 2 && patternSize != 4)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                "patterns are 1, 2 or 4 bytes, not " +
                    std::to_string(patternSize),
                err, errLen);
  if (offset % patternSize || bytes % patternSize)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                "the offset and size must be multiples of the " +
                    std::to_string(patternSize) + "-byte pattern",
                err, errLen);
  void *impl = nullptr;
  if (int status =
          checkSpan(function, stream, buffer, offset, bytes, impl, err, errLen))
    return status;
  if (bytes == 0)
    return LOOM_OK;
  loom_device *device = buffer->device;
  return device->ops->fill(device->impl, impl,
                           static_cast<char *>(buffer->data) + offset, bytes,
                           pattern, patternSize, err, errLen);
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

extern "C" int loom_stream_create(loom_device *device, loom_stream **stream,
                                  char *err, size_t errLen) {
  const char *function = "loom_stream_create";
  if (!device || !stream)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                device ? "no place for the stream" : "the device is NULL", err,
                errLen);
  *stream = nullptr;
  auto *result = new (std::nothrow) loom_stream();
  if (!result)
    return fail(LOOM_ERROR_OUT_OF_MEMORY, function, "out of memory", err,
                errLen);
  result->device = device;
  if (int status = device->ops->stream_create(device->impl, &result->impl, err,
                                              errLen)) {
    delete result;
    return status;
  }
  *stream = result;
  return LOOM_OK;
}

extern "C" void loom_stream_free(loom_stream *stream) {
  if (!stream)
    return;
  loom_device *device = stream->device;
  device->ops->stream_synchronize(device->impl, stream->impl, nullptr, 0);
  device->ops->stream_destroy(device->impl, stream->impl);
  delete stream;
}

extern "C" int loom_stream_synchronize(loom_stream *stream, char *err,
                                       size_t errLen) {
  if (!stream)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, "loom_stream_synchronize",
                "the stream is NULL", err, errLen);
  loom_device *device = stream->device;
  return device->ops->stream_synchronize(device->impl, stream->impl, err,
                                         errLen);
}

extern "C" void *loom_stream_native(const loom_stream *stream) {
  if (!stream)
    return nullptr;
  loom_device *device = stream->device;
  return device->ops->stream_native(device->impl, stream->impl);
}

extern "C" int loom_event_create(loom_device *device, loom_event **event,
                                 char *err, size_t errLen) {
  const char *function = "loom_event_create";
  if (!device || !event)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                device ? "no place for the event" : "the device is NULL", err,
                errLen);
  *event = nullptr;
  auto *result = new (std::nothrow) loom_event();
  if (!result)
    return fail(LOOM_ERROR_OUT_OF_MEMORY, function, "out of memory", err,
                errLen);
  result->device = device;
  if (int status =
          device->ops->event_create(device->impl, &result->impl, err, errLen)) {
    delete result;
    return status;
  }
  *event = result;
  return LOOM_OK;
}

extern "C" void loom_event_free(loom_event *event) {
  if (!event)
    return;
  loom_device *device = event->device;
  device->ops->event_destroy(device->impl, event->impl);
  delete event;
}

extern "C" int loom_event_record(loom_event *event, loom_stream *stream,
                                 char *err, size_t errLen) {
  const char *function = "loom_event_record";
  if (!event)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function, "the event is NULL", err,
                errLen);
  void *impl = nullptr;
  if (!streamOf(stream, event->device, impl))
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                "the stream belongs to another device", err, errLen);
  loom_device *device = event->device;
  return device->ops->event_record(device->impl, event->impl, impl, err,
                                   errLen);
}

extern "C" int loom_stream_wait_event(loom_stream *stream, loom_event *event,
                                      char *err, size_t errLen) {
  const char *function = "loom_stream_wait_event";
  if (!stream || !event)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                stream ? "the event is NULL" : "the stream is NULL", err,
                errLen);
  if (stream->device != event->device)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                "the stream and the event belong to different devices", err,
                errLen);
  loom_device *device = stream->device;
  return device->ops->stream_wait_event(device->impl, stream->impl, event->impl,
                                        err, errLen);
}

extern "C" int loom_event_synchronize(loom_event *event, char *err,
                                      size_t errLen) {
  if (!event)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, "loom_event_synchronize",
                "the event is NULL", err, errLen);
  loom_device *device = event->device;
  return device->ops->event_synchronize(device->impl, event->impl, err, errLen);
}

extern "C" int loom_event_elapsed_ms(const loom_event *start,
                                     const loom_event *end, double *ms,
                                     char *err, size_t errLen) {
  const char *function = "loom_event_elapsed_ms";
  if (!start || !end || !ms)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                ms ? "an event is NULL" : "no place for the time", err, errLen);
  if (start->device != end->device)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                "the events belong to different devices", err, errLen);
  loom_device *device = start->device;
  return device->ops->event_elapsed_ms(device->impl, start->impl, end->impl, ms,
                                       err, errLen);
}

//===----------------------------------------------------------------------===//
// Executables
//===----------------------------------------------------------------------===//

namespace {
/// `params` with NULL strings made "", so that backends need not check.
loom_executable_params normalized(const loom_executable_params &params) {
  loom_executable_params result = params;
  for (const char **text : {&result.path, &result.entry, &result.artifact,
                            &result.target_triple, &result.target_cpu})
    if (!*text)
      *text = "";
  if (!result.target_features)
    result.num_target_features = 0;
  return result;
}
} // namespace

extern "C" int loom_executable_check(loom_device *device,
                                     const loom_executable_params *params,
                                     char *err, size_t errLen) {
  if (!device || !params)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, "loom_executable_check",
                device ? "no parameters" : "the device is NULL", err, errLen);
  loom_executable_params checked = normalized(*params);
  return device->ops->executable_check(device->impl, &checked, err, errLen);
}

extern "C" int loom_executable_load(loom_device *device,
                                    const loom_executable_params *params,
                                    loom_executable **executable, char *err,
                                    size_t errLen) {
  const char *function = "loom_executable_load";
  if (!device || !params || !executable)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                !device   ? "the device is NULL"
                : !params ? "no parameters"
                          : "no place for the executable",
                err, errLen);
  *executable = nullptr;
  loom_executable_params checked = normalized(*params);
  if (!*checked.path || !*checked.entry)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                *checked.path ? "no entry symbol given" : "no file given", err,
                errLen);
  if (int status =
          device->ops->executable_check(device->impl, &checked, err, errLen))
    return status;
  auto *result = new (std::nothrow) loom_executable();
  if (!result)
    return fail(LOOM_ERROR_OUT_OF_MEMORY, function, "out of memory", err,
                errLen);
  result->device = device;
  if (int status = device->ops->executable_load(device->impl, &checked,
                                                &result->impl, err, errLen)) {
    delete result;
    return status;
  }
  *executable = result;
  return LOOM_OK;
}

extern "C" void loom_executable_free(loom_executable *executable) {
  if (!executable)
    return;
  loom_device *device = executable->device;
  device->ops->executable_unload(device->impl, executable->impl);
  delete executable;
}

extern "C" int loom_executable_lookup(const loom_executable *executable,
                                      const char *symbol, void **address,
                                      char *err, size_t errLen) {
  const char *function = "loom_executable_lookup";
  if (!executable || !symbol || !*symbol || !address)
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                !executable ? "the executable is NULL"
                : !address  ? "no place for the address"
                            : "no symbol given",
                err, errLen);
  *address = nullptr;
  loom_device *device = executable->device;
  return device->ops->executable_lookup(device->impl, executable->impl, symbol,
                                        address, err, errLen);
}

extern "C" int loom_executable_launch(loom_executable *executable,
                                      loom_stream *stream, void *const *buffers,
                                      size_t numBuffers, char *err,
                                      size_t errLen) {
  const char *function = "loom_executable_launch";
  if (!executable || (numBuffers && !buffers))
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                executable ? "the buffer array is NULL"
                           : "the executable is NULL",
                err, errLen);
  void *impl = nullptr;
  if (!streamOf(stream, executable->device, impl))
    return fail(LOOM_ERROR_INVALID_ARGUMENT, function,
                "the stream belongs to another device", err, errLen);
  loom_device *device = executable->device;
  return device->ops->executable_launch(device->impl, executable->impl, impl,
                                        buffers, numBuffers, err, errLen);
}
