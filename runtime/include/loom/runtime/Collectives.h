/*===- Collectives.h - The collectives compiled programs call -----*- C -*-===*\
|*                                                                            *|
|* A distributed artifact's program.so (runtime ABI 3,                       *|
|* LOOM_RUNTIME_ABI_COLLECTIVES) is the same SPMD program on every rank; it   *|
|* imports these symbols from libloom_runtime to communicate. They act on    *|
|* the communicator the running program is bound to                          *|
|* (loom_program_bind; loom_program_run makes it current on its thread) and   *|
|* on group `group` of the manifest's "groups" (docs/Artifact.md).            *|
|*                                                                            *|
|* They return nothing: a compiled program has no way to handle a failed     *|
|* collective, and a rank that leaves a collective early would hang its      *|
|* peers. A failure (backend error, timeout, bad arguments) prints            *|
|* "loom: rank R: <kind> over [axes] failed: <why>" and ends the whole job.   *|
|*                                                                            *|
|* Layouts are row-major. With n the group's size and i this rank's index in  *|
|* it, "[outer][n][chunk]" views a buffer as `outer` rows of n slots each.    *|
|* Buffers are LOOM_ALIGNMENT-aligned and never overlap. In a group of one    *|
|* rank every call is a plain copy.                                           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LOOM_RUNTIME_COLLECTIVES_H
#define LOOM_RUNTIME_COLLECTIVES_H

#include "loom/runtime/ABI.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "all_reduce", ... (a loom_collective_kind of ABI.h, as the manifest's
 * "collectives" spell them); "invalid" outside the enum. */
const char *loom_collective_kind_name(int32_t kind);

/* dst[0..count) = op over the group of src (`dtype` a loom_dtype, `op` a
 * loom_reduce_op; MEAN sums, then divides by n, truncating for integers). */
void loom_coll_all_reduce(const void *src, void *dst, int64_t count,
                          int32_t dtype, int32_t op, int32_t group);

/* src [outer][chunk_bytes] -> dst [outer][n][chunk_bytes]: member j's rows
 * land in slot j. */
void loom_coll_all_gather(const void *src, void *dst, int64_t outer,
                          int64_t chunk_bytes, int32_t group);

/* src [outer][n][chunk_count] elements -> dst [outer][chunk_count] = op over
 * the group of slot i. */
void loom_coll_reduce_scatter(const void *src, void *dst, int64_t outer,
                              int64_t chunk_count, int32_t dtype, int32_t op,
                              int32_t group);

/* src viewed as [split_outer][n][split_chunk_bytes]: slot j of every row
 * (split_outer * split_chunk_bytes bytes) goes to member j. The block from
 * member j, viewed as [concat_outer][concat_chunk_bytes], lands in dst viewed
 * as [concat_outer][n][concat_chunk_bytes] at slot j. Requires
 * split_outer * split_chunk_bytes == concat_outer * concat_chunk_bytes. */
void loom_coll_all_to_all(const void *src, void *dst, int64_t split_outer,
                          int64_t split_chunk_bytes, int64_t concat_outer,
                          int64_t concat_chunk_bytes, int32_t group);

/* dst = src of member `root` (an index within the group); src is read on
 * root only. */
void loom_coll_broadcast(const void *src, void *dst, int64_t bytes,
                         int64_t root, int32_t group);

/* No communication: src [outer][n][chunk_bytes] -> dst [outer][chunk_bytes]
 * = slot i. */
void loom_coll_take_shard(const void *src, void *dst, int64_t outer,
                          int64_t chunk_bytes, int32_t group);

/* Pipeline transfers: sends `bytes` bytes at `src` to member `peer` of the
 * group under `tag`, without waiting for the receiver; receives into `dst`
 * what member `peer` sent under `tag` (the sizes must agree). In a group of
 * one rank they fail: a stage has no peer there. */
void loom_coll_send(const void *src, int64_t bytes, int64_t peer, int64_t tag,
                    int32_t group);
void loom_coll_recv(void *dst, int64_t bytes, int64_t peer, int64_t tag,
                    int32_t group);

/* This rank's index i within group `group` (0 when no communicator is
 * bound). */
int64_t loom_coll_axis_index(int32_t group);

/* This process's totals for one kind of loom_coll_* call: calls, input
 * bytes (as the comm log counts them) and seconds spent. Returns 0, or
 * LOOM_ERROR_INVALID_ARGUMENT for a kind outside the enum; NULL outputs are
 * skipped. */
int loom_collective_stats(int32_t kind, int64_t *calls, int64_t *bytes,
                          double *seconds);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOOM_RUNTIME_COLLECTIVES_H */
