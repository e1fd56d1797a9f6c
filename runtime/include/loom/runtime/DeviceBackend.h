/*===- DeviceBackend.h - The interface of device kinds ------------*- C -*-===*\
|*                                                                            *|
|* One table of functions per device kind, behind the handles of Device.h.    *|
|* The CPU device is built into libloom_runtime (and exported as              *|
|* loom_device_cpu, like a plugin). Another kind KIND is a plugin,            *|
|* libloom_device_KIND.so exporting loom_device_KIND, loaded with dlopen on   *|
|* first use (beside libloom_runtime.so, then from the library search path),  *|
|* so that nothing else links its drivers; a plugin of another                *|
|* LOOM_DEVICE_ABI_VERSION is refused.                                        *|
|*                                                                            *|
|* The runtime checks arguments (NULL handles, ranges, pattern sizes, streams *|
|* of the right device) before it calls a backend, and owns the handles: a    *|
|* backend deals in its own `void *` objects. Functions return 0 or a         *|
|* loom_status with a message in `err` (which may be NULL / 0-sized).         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LOOM_RUNTIME_DEVICEBACKEND_H
#define LOOM_RUNTIME_DEVICEBACKEND_H

#include "loom/runtime/Device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of loom_device_ops. */
#define LOOM_DEVICE_ABI_VERSION 1

typedef enum loom_copy_direction {
  LOOM_COPY_HOST_TO_DEVICE = 0,
  LOOM_COPY_DEVICE_TO_HOST = 1,
  LOOM_COPY_DEVICE_TO_DEVICE = 2,
} loom_copy_direction;

typedef struct loom_device_ops {
  /* LOOM_DEVICE_ABI_VERSION; always the first field. */
  int abi_version;
  /* The kind, e.g. "cpu"; the plugin of KIND says KIND. */
  const char *kind;

  int (*device_count)(int32_t *count, char *err, size_t err_len);
  /* Opens device `ordinal` (< device_count) and fills `properties` (the
   * runtime sets kind and ordinal), whose strings the backend keeps valid
   * until device_close. */
  int (*device_open)(int32_t ordinal, void **device,
                     loom_device_properties *properties, char *err,
                     size_t err_len);
  void (*device_close)(void *device);

  int (*buffer_allocate)(void *device, size_t bytes, void **data, char *err,
                         size_t err_len);
  void (*buffer_free)(void *device, void *data);
  /* `stream` is a stream of this device, or NULL: complete before
   * returning. */
  int (*copy)(void *device, void *stream, void *dst, const void *src,
              size_t bytes, loom_copy_direction direction, char *err,
              size_t err_len);
  int (*fill)(void *device, void *stream, void *dst, size_t bytes,
              const void *pattern, size_t pattern_size, char *err,
              size_t err_len);
  /* The parameter-update hook (loom_device_buffer_updated). */
  void (*buffer_updated)(void *device, const void *data, size_t bytes);

  int (*stream_create)(void *device, void **stream, char *err, size_t err_len);
  void (*stream_destroy)(void *device, void *stream);
  int (*stream_synchronize)(void *device, void *stream, char *err,
                            size_t err_len);
  /* loom_stream_native. */
  void *(*stream_native)(void *device, void *stream);

  int (*event_create)(void *device, void **event, char *err, size_t err_len);
  void (*event_destroy)(void *device, void *event);
  int (*event_record)(void *device, void *event, void *stream, char *err,
                      size_t err_len);
  int (*stream_wait_event)(void *device, void *stream, void *event, char *err,
                           size_t err_len);
  int (*event_synchronize)(void *device, void *event, char *err,
                           size_t err_len);
  int (*event_elapsed_ms)(void *device, void *start, void *end, double *ms,
                          char *err, size_t err_len);

  /* `params` has its NULL strings replaced by "". */
  int (*executable_check)(void *device, const loom_executable_params *params,
                          char *err, size_t err_len);
  int (*executable_load)(void *device, const loom_executable_params *params,
                         void **executable, char *err, size_t err_len);
  void (*executable_unload)(void *device, void *executable);
  int (*executable_lookup)(void *device, void *executable, const char *symbol,
                           void **address, char *err, size_t err_len);
  int (*executable_launch)(void *device, void *executable, void *stream,
                           void *const *buffers, size_t num_buffers, char *err,
                           size_t err_len);
} loom_device_ops;

/* The symbol a device plugin exports (libloom_device_<kind>.so exports
 * loom_device_<kind>). */
typedef const loom_device_ops *(*loom_device_entry)(void);

/* The built-in CPU device's table, exported under the plugin convention. */
const loom_device_ops *loom_device_cpu(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOOM_RUNTIME_DEVICEBACKEND_H */
