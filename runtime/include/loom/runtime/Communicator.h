/*===- Communicator.h - The ranks of a job ------------------------*- C -*-===*\
|*                                                                            *|
|* A communicator is this process's place in a job. Collectives move data     *|
|* through a backend (MPI built in, NCCL as the plugin libloom_comm_nccl.so;  *|
|* CommBackend.h); the communicator itself (agreeing on a status, gathering   *|
|* outputs) always talks through MPI in host memory. Binding programs to a    *|
|* communicator is part of the program API (Runtime.h: loom_program_bind).   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LOOM_RUNTIME_COMMUNICATOR_H
#define LOOM_RUNTIME_COMMUNICATOR_H

#include "loom/runtime/Base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The handle is used from the thread that created it
 * (MPI_THREAD_FUNNELED). */
typedef struct loom_comm loom_comm;

/* Creates the communicator of this process. `backend`: "mpi"; "nccl" (or
 * any "NAME" whose plugin libloom_comm_NAME.so exports
 * loom_comm_backend_NAME; looked for beside libloom_runtime.so, then on the
 * library search path); "self", a one-rank world without MPI; or NULL:
 * "mpi" when the process was started by mpirun/srun with more than one
 * process, else "self". Initialises MPI (MPI_Init_thread) unless it already
 * is; the matching loom_comm_free finalises it then. Collective: every rank
 * calls it. NULL and a message on failure. */
loom_comm *loom_comm_create(const char *backend, char *err, size_t err_len);

/* Unbinds the programs still bound to it, stops its watchdog and, if it
 * initialised MPI, finalises it. NULL is ignored. */
void loom_comm_free(loom_comm *comm);

int loom_comm_rank(const loom_comm *comm);
int loom_comm_size(const loom_comm *comm);
/* "mpi", "nccl", "self", ... */
const char *loom_comm_backend(const loom_comm *comm);

/* Collective timeout in seconds (default: $LOOM_COLLECTIVE_TIMEOUT, else
 * 600); <= 0 disables it. A collective (or a communicator call) that runs
 * longer ends the job, naming the collective: a peer that died or hangs
 * must not hang the others forever. */
void loom_comm_set_timeout(loom_comm *comm, double seconds);
double loom_comm_timeout(const loom_comm *comm);

/* dst[i] = op over all ranks of src[i] (host memory, src == dst allowed;
 * `op` a loom_reduce_op). For launchers: agreeing on a status, summing
 * statistics. Collective. */
int loom_comm_all_reduce(loom_comm *comm, const void *src, void *dst,
                         size_t count, loom_dtype dtype, int32_t op, char *err,
                         size_t err_len);

/* Copies `bytes` bytes at `buf` on rank `root` to `buf` on every rank.
 * Collective. */
int loom_comm_broadcast(loom_comm *comm, void *buf, size_t bytes, int root,
                        char *err, size_t err_len);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOOM_RUNTIME_COMMUNICATOR_H */
