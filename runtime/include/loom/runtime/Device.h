/*===- Device.h - Devices, buffers, executables, streams, events --*- C -*-===*\
|*                                                                            *|
|* The runtime's device layer: the host program (loom_program_run, a         *|
|* training loop) reaches the hardware only through these handles, so that   *|
|* the same host program drives the CPU and, later, GPUs. A device is one     *|
|* piece of hardware of a kind ("cpu" is built in; another KIND is the        *|
|* plugin libloom_device_KIND.so, DeviceBackend.h). It owns buffers of its   *|
|* memory, executables (the compiled part of an artifact, loaded for it),    *|
|* streams (queues its work runs on, in order) and events (points on a       *|
|* stream, for waiting and timing).                                           *|
|*                                                                            *|
|* On the CPU device buffers are host memory, and streams run their work     *|
|* inline: every call has completed when it returns.                         *|
|*                                                                            *|
|* Functions return LOOM_OK or a loom_status with a message in `err`          *|
|* (optional, Base.h). Handles are used by one thread at a time; a NULL       *|
|* handle is LOOM_ERROR_INVALID_ARGUMENT, and the free functions ignore it.   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LOOM_RUNTIME_DEVICE_H
#define LOOM_RUNTIME_DEVICE_H

#include "loom/runtime/Base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct loom_device loom_device;
typedef struct loom_buffer loom_buffer;
typedef struct loom_stream loom_stream;
typedef struct loom_event loom_event;
typedef struct loom_executable loom_executable;

/*===--------------------------------------------------------------------===*/
/* Devices                                                                  */
/*===--------------------------------------------------------------------===*/

/* What a device is. Owned by the device; later versions may append
 * fields, so callers only ever receive pointers to it. */
typedef struct loom_device_properties {
  /* "cpu", "cuda", ... */
  const char *kind;
  /* Among the devices of its kind, from 0. */
  int32_t ordinal;
  /* For people: "x86_64 CPU (Intel(R) Xeon(R) ...)". */
  const char *name;
  /* Its memory in bytes (0 when unknown). */
  uint64_t memory_bytes;
  /* Hardware threads of a CPU, multiprocessors of a GPU. */
  int32_t compute_units;
  /* Every buffer's alignment in bytes (at least LOOM_ALIGNMENT). */
  uint32_t alignment;
  /* 1 when buffers are host memory that the host may use directly. */
  int32_t host_memory;
} loom_device_properties;

/* How many devices of `kind` this machine has (the CPU device: 1). A kind
 * this runtime does not have is LOOM_ERROR_UNSUPPORTED, "no device 'cuda'
 * in this runtime (libloom_device_cuda.so not found)". */
int loom_device_count(const char *kind, int32_t *count, char *err,
                      size_t err_len);

/* Opens device `ordinal` of `kind`; "cpu" is built in, another kind loads
 * its plugin (DeviceBackend.h) on first use. */
int loom_device_create(const char *kind, int32_t ordinal, loom_device **device,
                       char *err, size_t err_len);

/* Frees a device whose buffers, streams, events and executables were freed
 * first. */
void loom_device_free(loom_device *device);

/* NULL for a NULL device. */
const loom_device_properties *
loom_device_get_properties(const loom_device *device);
const char *loom_device_kind(const loom_device *device);
int32_t loom_device_ordinal(const loom_device *device);

/* The parameter-update hook: tells the device that the memory
 * [data, data + bytes) that executables read as a parameter has new
 * contents, or is about to be freed or reused at that address. Devices may
 * keep what they derive from parameters (the CPU device: GEMM weights
 * packed on first use, cached by address) until told so. Call it before
 * the next run that reads the new contents, and before freeing. */
void loom_device_buffer_updated(loom_device *device, const void *data,
                                size_t bytes);

/*===--------------------------------------------------------------------===*/
/* Buffers                                                                  */
/*===--------------------------------------------------------------------===*/

/* Device memory of `bytes` bytes, aligned as the properties say; 0 bytes
 * gives a valid buffer with a distinct address. Its contents are
 * undefined until written (the CPU device zero-fills). */
int loom_buffer_allocate(loom_device *device, size_t bytes,
                         loom_buffer **buffer, char *err, size_t err_len);
void loom_buffer_free(loom_buffer *buffer);

/* The device address of the buffer's first byte (what executables and
 * communicator backends take); NULL for a NULL buffer. */
void *loom_buffer_data(const loom_buffer *buffer);
size_t loom_buffer_size(const loom_buffer *buffer);
loom_device *loom_buffer_device(const loom_buffer *buffer);

/* Copies and fills run on `stream` (a stream of the buffers' device), in
 * order with its other work; a NULL stream completes the operation before
 * returning. Ranges must lie within their buffers. Host memory passed to a
 * queued copy must stay valid until the stream has run it. */

/* Host to device: `bytes` bytes at `src` to `dst` at `dst_offset`. */
int loom_buffer_write(loom_stream *stream, loom_buffer *dst, size_t dst_offset,
                      const void *src, size_t bytes, char *err, size_t err_len);
/* Device to host: `bytes` bytes of `src` at `src_offset` to `dst`. */
int loom_buffer_read(loom_stream *stream, const loom_buffer *src,
                     size_t src_offset, void *dst, size_t bytes, char *err,
                     size_t err_len);
/* Device to device, between buffers of one device; the ranges may overlap
 * (as memmove). */
int loom_buffer_copy(loom_stream *stream, const loom_buffer *src,
                     size_t src_offset, loom_buffer *dst, size_t dst_offset,
                     size_t bytes, char *err, size_t err_len);
/* Repeats the `pattern_size`-byte value at `pattern` (1, 2 or 4 bytes) over
 * `bytes` bytes of `buffer` at `offset`; offset and bytes are multiples of
 * pattern_size. */
int loom_buffer_fill(loom_stream *stream, loom_buffer *buffer, size_t offset,
                     size_t bytes, const void *pattern, size_t pattern_size,
                     char *err, size_t err_len);

/*===--------------------------------------------------------------------===*/
/* Streams and events                                                       */
/*===--------------------------------------------------------------------===*/

int loom_stream_create(loom_device *device, loom_stream **stream, char *err,
                       size_t err_len);
/* Waits for the stream's work, then frees it. */
void loom_stream_free(loom_stream *stream);
/* Returns once everything queued on the stream has run. */
int loom_stream_synchronize(loom_stream *stream, char *err, size_t err_len);
/* The device's own handle of the stream, what communicator backends take
 * (CommBackend.h): a cudaStream_t on CUDA devices; NULL on the CPU device,
 * whose work is inline, and for a NULL stream. */
void *loom_stream_native(const loom_stream *stream);

int loom_event_create(loom_device *device, loom_event **event, char *err,
                      size_t err_len);
void loom_event_free(loom_event *event);
/* Marks the point of `stream` after the work queued so far (a NULL stream:
 * after everything the device was given). Recording again moves it. */
int loom_event_record(loom_event *event, loom_stream *stream, char *err,
                      size_t err_len);
/* Work queued on `stream` after this call runs only once the event's point
 * is reached; an event never recorded is reached. */
int loom_stream_wait_event(loom_stream *stream, loom_event *event, char *err,
                           size_t err_len);
/* Returns once the event's point is reached. */
int loom_event_synchronize(loom_event *event, char *err, size_t err_len);
/* Milliseconds between two recorded and reached events of one device
 * (negative when `end` came first). LOOM_ERROR_INVALID_ARGUMENT when one
 * was never recorded. */
int loom_event_elapsed_ms(const loom_event *start, const loom_event *end,
                          double *ms, char *err, size_t err_len);

/*===--------------------------------------------------------------------===*/
/* Executables                                                              */
/*===--------------------------------------------------------------------===*/

/* The executable part of an artifact, as its manifest describes it.
 * Zero-initialise it: NULL strings are "" and NULL arrays empty. */
typedef struct loom_executable_params {
  /* The file (the CPU device: a shared library, e.g. "m.loom/program.so"). */
  const char *path;
  /* The entry symbol: void entry(void **buffers). */
  const char *entry;
  /* The artifact directory, named in messages. */
  const char *artifact;
  /* The manifest's target: the triple (its architecture must be the
   * device's), the CPU (named in messages) and the features the code uses
   * (LLVM spellings; those the device cannot test are skipped). */
  const char *target_triple;
  const char *target_cpu;
  const char *const *target_features;
  size_t num_target_features;
} loom_executable_params;

/* Whether the device can run code built for `params`' target, without
 * loading anything: LOOM_ERROR_INCOMPATIBLE with a message naming what it
 * lacks. Loaders call it before their other work; loom_executable_load
 * checks again. */
int loom_executable_check(loom_device *device,
                          const loom_executable_params *params, char *err,
                          size_t err_len);

/* Checks the target, then loads the file and finds the entry: a missing
 * file is LOOM_ERROR_IO, a missing entry symbol LOOM_ERROR_FORMAT. */
int loom_executable_load(loom_device *device,
                         const loom_executable_params *params,
                         loom_executable **executable, char *err,
                         size_t err_len);
void loom_executable_free(loom_executable *executable);

/* The device address of `symbol` in the executable (the CPU device: its
 * dlsym); LOOM_ERROR_FORMAT when it has none. */
int loom_executable_lookup(const loom_executable *executable,
                           const char *symbol, void **address, char *err,
                           size_t err_len);

/* Runs the entry on `buffers`, `num_buffers` device addresses (parameters,
 * inputs, outputs: the entry ABI of docs/Artifact.md), queued on `stream`
 * (NULL: completes before returning). */
int loom_executable_launch(loom_executable *executable, loom_stream *stream,
                           void *const *buffers, size_t num_buffers, char *err,
                           size_t err_len);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOOM_RUNTIME_DEVICE_H */
