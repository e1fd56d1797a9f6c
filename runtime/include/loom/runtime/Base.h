/*===- Base.h - The C basics every layer of the runtime shares ----*- C -*-===*\
|*                                                                            *|
|* Status codes, the version of the library actually loaded, element type    *|
|* sizes and names, and aligned host memory: what the device, communicator   *|
|* and program APIs (Device.h, Communicator.h, Runtime.h) all build on.       *|
|*                                                                            *|
|* Error buffers: every `err`/`err_len` pair of the runtime's C API is        *|
|* optional (NULL or 0 skips the message); when given, the message is         *|
|* NUL-terminated and truncated to fit.                                       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LOOM_RUNTIME_BASE_H
#define LOOM_RUNTIME_BASE_H

#include "loom/runtime/ABI.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Returns LOOM_RUNTIME_ABI_VERSION of the library actually loaded, which can
 * differ from the header a caller was compiled against. */
int loom_runtime_abi_version(void);

/* The runtime's release version, e.g. "0.1.0". */
const char *loom_runtime_version(void);

/*===--------------------------------------------------------------------===*/
/* Status codes                                                             */
/*===--------------------------------------------------------------------===*/

typedef enum loom_status {
  LOOM_OK = 0,
  /* A NULL handle or buffer, an index out of range. */
  LOOM_ERROR_INVALID_ARGUMENT = 1,
  /* A file could not be opened, read, mapped or loaded. */
  LOOM_ERROR_IO = 2,
  /* A file is malformed (JSON syntax, missing keys, bad values). */
  LOOM_ERROR_FORMAT = 3,
  /* Well-formed, but for another runtime ABI, format version or CPU. */
  LOOM_ERROR_INCOMPATIBLE = 4,
  LOOM_ERROR_OUT_OF_MEMORY = 5,
  /* The operation is not available on this handle (e.g. running a program
   * loaded with LOOM_LOAD_MANIFEST_ONLY), or a device kind this runtime
   * does not have. */
  LOOM_ERROR_UNSUPPORTED = 6,
  /* A collective call (loom_program_bind) failed because another rank
   * failed; that rank's message says why. */
  LOOM_ERROR_PEER_FAILED = 7,
} loom_status;

/*===--------------------------------------------------------------------===*/
/* Element types (the codes are in ABI.h)                                   */
/*===--------------------------------------------------------------------===*/

/* Size of one element in bytes; 0 for LOOM_DTYPE_INVALID or values outside
 * the enum. */
size_t loom_dtype_size(loom_dtype dtype);

/* The manifest spelling ("float32", "bool", ...); "invalid" for values
 * outside the enum. Never NULL. Bindings build their tables from it: the
 * codes 1, 2, ... up to the first "invalid" are the types this runtime
 * knows. */
const char *loom_dtype_name(loom_dtype dtype);

/* The inverse of loom_dtype_name; LOOM_DTYPE_INVALID for NULL or an unknown
 * name (including "invalid"). */
loom_dtype loom_dtype_from_name(const char *name);

/*===--------------------------------------------------------------------===*/
/* Aligned memory                                                           */
/*===--------------------------------------------------------------------===*/

/* LOOM_ALIGNMENT-aligned, zero-filled memory of at least `nbytes` bytes (a
 * valid, distinct pointer also for 0); NULL when out of memory. */
void *loom_aligned_alloc(size_t nbytes);
void loom_aligned_free(void *ptr);

/*===--------------------------------------------------------------------===*/
/* Tensors                                                                  */
/*===--------------------------------------------------------------------===*/

/* A tensor of a program's signature. Owned by the program and valid until
 * loom_program_free; later runtime versions may append fields, so callers
 * only ever receive pointers to it. */
typedef struct loom_tensor_info {
  const char *name;
  loom_dtype dtype;
  int32_t rank;
  /* `rank` non-negative extents, row-major; NULL when rank is 0. */
  const int64_t *shape;
  int64_t num_elements;
  size_t nbytes;
  /* The whole tensor a sharded tensor is a block of (format_version 2):
   * `rank` extents, and its size in bytes. Equal to shape/nbytes when the
   * tensor is not sharded; shape and nbytes are always this rank's part. */
  const int64_t *global_shape;
  size_t global_nbytes;
} loom_tensor_info;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOOM_RUNTIME_BASE_H */
