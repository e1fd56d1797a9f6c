/*===- CommBackend.h - The interface of communicator backends -----*- C -*-===*\
|*                                                                            *|
|* The runtime's communicator (Communicator.h: loom_comm) runs every          *|
|* collective through a backend: MPI (built into libloom_runtime) or NCCL (a  *|
|* plugin, libloom_comm_nccl.so, loaded with dlopen when asked for, so that   *|
|* neither the runtime nor the compiler links CUDA). A backend only moves     *|
|* contiguous blocks within one group of ranks; the runtime does the layout   *|
|* work (gathering along an inner dimension, timeouts, logging) around it.    *|
|*                                                                            *|
|* A group is bootstrapped through the runtime's MPI: the backend receives    *|
|* its rank and size within the group and a broadcast it may use to share     *|
|* an identifier (NCCL's ncclUniqueId).                                       *|
|*                                                                            *|
|* Every function returns 0 on success or a loom_status with a message in     *|
|* `err` (which may be NULL / 0-sized). Buffers are host memory or memory of  *|
|* the device the caller runs on (Device.h: loom_buffer_data); a backend      *|
|* that cannot use device memory (MPI) gets host memory only. `stream` is     *|
|* that device's native stream (loom_stream_native: a cudaStream_t for CUDA,  *|
|* NULL for the CPU): a GPU backend orders its work after what was queued on  *|
|* it; NULL means the backend's own stream. MPI ignores it.                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LOOM_RUNTIME_COMMBACKEND_H
#define LOOM_RUNTIME_COMMBACKEND_H

#include "loom/runtime/ABI.h"
#include "loom/runtime/Base.h"
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of loom_comm_backend_ops; a plugin with another one is refused,
 * with a message naming both. 2 added the `stream` argument of the
 * operations that move data; 3 added `send` and `recv`. */
#define LOOM_COMM_BACKEND_ABI_VERSION 3

/* What the runtime lends a backend to set up one group. */
typedef struct loom_comm_bootstrap {
  /* This rank's index in the group, and the group's size. */
  int rank;
  int size;
  /* Copies `bytes` bytes at `buf` on the group's rank `root` to `buf` on
   * every rank of the group (a blocking MPI broadcast). */
  int (*broadcast)(void *ctx, void *buf, size_t bytes, int root);
  void *ctx;
} loom_comm_bootstrap;

typedef struct loom_comm_backend_ops {
  /* LOOM_COMM_BACKEND_ABI_VERSION; always the first field, so that the
   * runtime can refuse a plugin of another version before reading more. */
  int abi_version;
  const char *name;

  /* Creates the backend's communicator for one group; collective over the
   * group (every member calls it, in the same order for all groups). */
  int (*group_create)(const loom_comm_bootstrap *bootstrap, void **group,
                      char *err, size_t err_len);
  void (*group_destroy)(void *group);

  /* dst[i] = op over ranks of src[i], i < count; src == dst is allowed. */
  int (*all_reduce)(void *group, const void *src, void *dst, size_t count,
                    loom_dtype dtype, loom_reduce_op op, void *stream,
                    char *err, size_t err_len);
  /* dst = the ranks' `bytes`-byte blocks in group order. */
  int (*all_gather)(void *group, const void *src, void *dst, size_t bytes,
                    void *stream, char *err, size_t err_len);
  /* src holds `size` blocks of `count` elements; dst = op over ranks of
   * block `rank`. */
  int (*reduce_scatter)(void *group, const void *src, void *dst, size_t count,
                        loom_dtype dtype, loom_reduce_op op, void *stream,
                        char *err, size_t err_len);
  /* src holds `size` blocks of `bytes` bytes; block j goes to rank j, and
   * dst's block i comes from rank i. */
  int (*all_to_all)(void *group, const void *src, void *dst, size_t bytes,
                    void *stream, char *err, size_t err_len);
  /* dst on every rank = src on rank `root` (`src` is read on root only). */
  int (*broadcast)(void *group, const void *src, void *dst, size_t bytes,
                   int root, void *stream, char *err, size_t err_len);
  /* Sends `bytes` bytes to rank `peer` under `tag` without waiting for the
   * receiver: `src` may be reused when this returns. Sends with one tag
   * between two ranks arrive in order. */
  int (*send)(void *group, const void *src, size_t bytes, int peer, int tag,
              void *stream, char *err, size_t err_len);
  /* Waits for the matching send of rank `peer` (same tag, same size). */
  int (*recv)(void *group, void *dst, size_t bytes, int peer, int tag,
              void *stream, char *err, size_t err_len);
} loom_comm_backend_ops;

/* The symbol a backend plugin exports (libloom_comm_<name>.so exports
 * loom_comm_backend_<name>). */
typedef const loom_comm_backend_ops *(*loom_comm_backend_entry)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOOM_RUNTIME_COMMBACKEND_H */
