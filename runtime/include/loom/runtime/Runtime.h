/*===- Runtime.h - The Loom runtime's C API -----------------------*- C -*-===*\
|*                                                                            *|
|* The runtime loads an artifact directory written by loomc (manifest.json,   *|
|* program.so, parameters.bin; see docs/Artifact.md) and runs it. The API is  *|
|* plain C over opaque handles so that loomrun, the tests and foreign-        *|
|* function bindings share one stable ABI. Functions report failure with a    *|
|* status code and a message; the library never exits or aborts on bad input. *|
|*                                                                            *|
|* Error buffers: every `err`/`err_len` pair is optional (NULL or 0 skips the *|
|* message); when given, the message is NUL-terminated and truncated to fit.  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LOOM_RUNTIME_RUNTIME_H
#define LOOM_RUNTIME_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI of the programs this runtime runs: an artifact's "runtime_abi"
 * must be between LOOM_RUNTIME_ABI_MIN_VERSION and this. It grows when
 * compiled programs may import a new symbol, and the minimum moves when the
 * entry calling convention or an existing symbol changes incompatibly.
 * 2: loom_kernel_gemm_const_b_f32. 3: the loom_coll_* collectives
 * (Collectives.h). */
#define LOOM_RUNTIME_ABI_VERSION 3
#define LOOM_RUNTIME_ABI_MIN_VERSION 1

/* The manifest formats this runtime reads ("format_version"); 2 added the
 * mesh, groups, collectives and sharded tensors of distributed artifacts, 3
 * the training object and the parameter keys init and update
 * (docs/Training.md). */
#define LOOM_ARTIFACT_FORMAT_VERSION 3
#define LOOM_ARTIFACT_FORMAT_MIN_VERSION 1

/* Alignment, in bytes, of every buffer handed to a compiled program. */
#define LOOM_ALIGNMENT 64

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
   * loaded with LOOM_LOAD_MANIFEST_ONLY). */
  LOOM_ERROR_UNSUPPORTED = 6,
  /* A collective call (loom_program_bind) failed because another rank
   * failed; that rank's message says why. */
  LOOM_ERROR_PEER_FAILED = 7,
} loom_status;

/*===--------------------------------------------------------------------===*/
/* Element types                                                            */
/*===--------------------------------------------------------------------===*/

/* The values are part of the ABI; new types are appended. */
typedef enum loom_dtype {
  LOOM_DTYPE_INVALID = 0,
  LOOM_DTYPE_FLOAT16 = 1,
  LOOM_DTYPE_BFLOAT16 = 2,
  LOOM_DTYPE_FLOAT32 = 3,
  LOOM_DTYPE_FLOAT64 = 4,
  LOOM_DTYPE_INT8 = 5,
  LOOM_DTYPE_INT16 = 6,
  LOOM_DTYPE_INT32 = 7,
  LOOM_DTYPE_INT64 = 8,
  LOOM_DTYPE_UINT8 = 9,
  /* One byte holding 0 or 1. */
  LOOM_DTYPE_BOOL = 10,
  LOOM_DTYPE_UINT16 = 11,
  LOOM_DTYPE_UINT32 = 12,
  LOOM_DTYPE_UINT64 = 13,
  /* 8-bit floats, one byte of raw bits each (the ONNX/OCP formats). */
  LOOM_DTYPE_FLOAT8E4M3FN = 14,
  LOOM_DTYPE_FLOAT8E4M3FNUZ = 15,
  LOOM_DTYPE_FLOAT8E5M2 = 16,
  LOOM_DTYPE_FLOAT8E5M2FNUZ = 17,
  /* 4-bit integers, one byte each holding the value (-8..7 and 0..15), as
   * numpy holds them; loom_program_run rejects values out of range. */
  LOOM_DTYPE_INT4 = 18,
  LOOM_DTYPE_UINT4 = 19,
  /* Not a type: makes the enum 32-bit, and any value a C caller passes up
   * to this one a valid enum value in C++. */
  LOOM_DTYPE_MAX_ENUM = 0x7fffffff,
} loom_dtype;

/* Size of one element in bytes; 0 for LOOM_DTYPE_INVALID or values outside
 * the enum. */
size_t loom_dtype_size(loom_dtype dtype);

/* The manifest spelling ("float32", "bool", ...); "invalid" for values
 * outside the enum. Never NULL. */
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
/* Programs                                                                 */
/*===--------------------------------------------------------------------===*/

typedef struct loom_program loom_program;

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

/* 1 when the tensor's local shape differs from its global shape (each rank
 * holds a block), else 0 (also for NULL). */
int loom_program_tensor_is_sharded(const loom_tensor_info *info);

/* Flags for loom_program_load_with_flags. */
enum {
  /* Read and check manifest.json only: no parameter mapping, no dlopen, no
   * CPU check. The signature and target accessors work; running does not.
   * For tools that describe artifacts built for other machines. */
  LOOM_LOAD_MANIFEST_ONLY = 1u << 0,
};

/* Loads the artifact directory `artifact_dir` (e.g. "mlp.loom"): reads and
 * checks manifest.json, checks the CPU against the artifact's target, maps
 * the parameter file read-only and loads the program library. Returns NULL
 * on failure, with a message naming the file and the problem in `err`. */
loom_program *loom_program_load(const char *artifact_dir, char *err,
                                size_t err_len);
loom_program *loom_program_load_with_flags(const char *artifact_dir,
                                           unsigned flags, char *err,
                                           size_t err_len);

/* Unloads the program; NULL is ignored. */
void loom_program_free(loom_program *program);

/* Signature accessors. Counts are 0 and lookups NULL for a NULL program;
 * the loom_tensor_info accessors return NULL for an index out of range. */
size_t loom_program_num_parameters(const loom_program *program);
size_t loom_program_num_inputs(const loom_program *program);
size_t loom_program_num_outputs(const loom_program *program);
const loom_tensor_info *loom_program_parameter(const loom_program *program,
                                               size_t index);
const loom_tensor_info *loom_program_input(const loom_program *program,
                                           size_t index);
const loom_tensor_info *loom_program_output(const loom_program *program,
                                            size_t index);

/* Index of the input/output named `name`, or -1. */
int64_t loom_program_find_input(const loom_program *program, const char *name);
int64_t loom_program_find_output(const loom_program *program, const char *name);

/* The read-only bytes of parameter `index` (NULL when out of range or
 * loaded with LOOM_LOAD_MANIFEST_ONLY): the mapped global tensor, or, for a
 * sharded parameter of a bound program, this rank's block. */
const void *loom_program_parameter_data(const loom_program *program,
                                        size_t index);

/* Manifest metadata; "" when the manifest omits the key, NULL only for a
 * NULL program or an index out of range. */
const char *loom_program_artifact_dir(const loom_program *program);
const char *loom_program_producer(const loom_program *program);
const char *loom_program_model(const loom_program *program);
const char *loom_program_target_triple(const loom_program *program);
const char *loom_program_target_cpu(const loom_program *program);
size_t loom_program_num_target_features(const loom_program *program);
const char *loom_program_target_feature(const loom_program *program,
                                        size_t index);

/* The device mesh of a distributed artifact ("mesh"): axes major to minor.
 * A program without a mesh has 0 axes and a mesh size of 1. */
size_t loom_program_mesh_num_axes(const loom_program *program);
const char *loom_program_mesh_axis_name(const loom_program *program,
                                        size_t axis);
int64_t loom_program_mesh_axis_size(const loom_program *program, size_t axis);
int64_t loom_program_mesh_size(const loom_program *program);

/* The manifest's "groups": group `group`'s axes, comma-separated ("dp,tp";
 * "" for none). NULL when out of range. */
size_t loom_program_num_groups(const loom_program *program);
const char *loom_program_group_axes(const loom_program *program, size_t group);

/* The manifest's "collectives", in program order: the kind (a
 * loom_collective_kind), group index and input bytes of call `index`.
 * Returns 0, or LOOM_ERROR_INVALID_ARGUMENT when out of range. */
size_t loom_program_num_collectives(const loom_program *program);
int loom_program_collective(const loom_program *program, size_t index,
                            int32_t *kind, int32_t *group, int64_t *bytes);

/* Which tensor lists the sharding accessors address. */
typedef enum loom_tensor_list {
  LOOM_TENSOR_PARAMETER = 0,
  LOOM_TENSOR_INPUT = 1,
  LOOM_TENSOR_OUTPUT = 2,
} loom_tensor_list;

/* The mesh axes that split dimension `dim` of a tensor, comma-separated in
 * major-to-minor order ("dp,tp"), "" when the tensor is replicated along it;
 * NULL when out of range. */
const char *loom_program_tensor_sharding(const loom_program *program,
                                         int32_t list, size_t index,
                                         int32_t dim);

/* Runs the program once. `inputs` holds one pointer per input and `outputs`
 * one per output, in manifest order, each to a contiguous row-major buffer of
 * the tensor's nbytes (it may be NULL when nbytes is 0). Buffers that are not
 * LOOM_ALIGNMENT-aligned are copied through aligned scratch memory, so
 * aligned buffers avoid a copy. Outputs must not overlap inputs. Runs of one
 * program must not overlap in time. Buffers are this rank's blocks (nbytes);
 * a program whose mesh has more than one device runs only bound
 * (loom_program_bind), on every rank at once. Returns LOOM_OK or a
 * loom_status with a message in `err`. */
int loom_program_run(loom_program *program, const void *const *inputs,
                     void *const *outputs, char *err, size_t err_len);

/*===--------------------------------------------------------------------===*/
/* Communicators                                                            */
/*===--------------------------------------------------------------------===*/

/* The ranks of one job. Collectives move data through a backend (MPI built
 * in, NCCL as the plugin libloom_comm_nccl.so; CommBackend.h); the
 * communicator itself (agreeing on a status, gathering outputs) always
 * talks through MPI in host memory. The handle is used from the thread that
 * created it (MPI_THREAD_FUNNELED). */
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
 * `op` a loom_reduce_op of CommBackend.h). For launchers: agreeing on a
 * status, summing statistics. Collective. */
int loom_comm_all_reduce(loom_comm *comm, const void *src, void *dst,
                         size_t count, loom_dtype dtype, int32_t op, char *err,
                         size_t err_len);

/* Copies `bytes` bytes at `buf` on rank `root` to `buf` on every rank.
 * Collective. */
int loom_comm_broadcast(loom_comm *comm, void *buf, size_t bytes, int root,
                        char *err, size_t err_len);

/* Binds `program` to `comm`: checks that the mesh has as many devices as
 * the communicator has ranks, creates one backend group per manifest group
 * and copies this rank's block of every sharded parameter. A program
 * without a mesh binds to any communicator (each rank then runs the whole
 * program). Collective: every rank binds the same program, and the ranks
 * agree on the outcome (a failure on one rank fails the call on all; the
 * others return LOOM_ERROR_PEER_FAILED). Rebinding replaces the previous
 * binding; loom_comm_free unbinds the programs still bound, so either may
 * be freed first. */
int loom_program_bind(loom_program *program, loom_comm *comm, char *err,
                      size_t err_len);

/* Copies this rank's block of input `index` out of the whole tensor
 * `global` (global_nbytes bytes; every rank passes it) into `local`
 * (nbytes). Works unbound for programs whose mesh has one device. */
int loom_program_shard_input(const loom_program *program, size_t index,
                             const void *global, void *local, char *err,
                             size_t err_len);

/* Collective: assembles output `index` from the ranks' blocks `local` into
 * `global` (global_nbytes) on rank `root`; `global` may be NULL elsewhere.
 * A block held by several ranks (replicated along an axis) is taken from
 * one of them. */
int loom_program_gather_output(loom_program *program, size_t index,
                               const void *local, void *global, int root,
                               char *err, size_t err_len);

/*===--------------------------------------------------------------------===*/
/* Parameters and training (format_version 3, docs/Training.md)             */
/*===--------------------------------------------------------------------===*/

/* 1 when the manifest has a "training" object, else 0. The parameters of
 * such a program are owned, mutable buffers (this rank's blocks once bound;
 * binding again resets them to the artifact's values). */
int loom_program_is_training(const loom_program *program);

/* Index of the parameter named `name`, or -1. */
int64_t loom_program_find_parameter(const loom_program *program,
                                    const char *name);

/* Index of the output that holds parameter `index` after a step (its
 * "update"), or -1 when it has none (frozen) or is out of range. */
int64_t loom_program_parameter_update(const loom_program *program,
                                      size_t index);

/* After a run whose update is to be applied: copies every update output
 * (`outputs` as passed to loom_program_run, this rank's blocks) into its
 * parameter. */
int loom_program_apply_updates(loom_program *program,
                               const void *const *outputs, char *err,
                               size_t err_len);

/* Sets parameter `index` from the whole tensor `global` (global_nbytes
 * bytes); a bound program keeps this rank's block. */
int loom_program_set_parameter(loom_program *program, size_t index,
                               const void *global, char *err, size_t err_len);

/* Loads the parameters from a safetensors file (e.g. `loom-ckpt export`),
 * by name: every parameter with data in the artifact must be in the file
 * with its dtype and global shape (zero-initialised ones may be absent);
 * other tensors in the file are ignored. Call it after loom_program_bind:
 * binding again resets the parameters. Nothing changes on failure. */
int loom_program_load_parameters(loom_program *program, const char *path,
                                 char *err, size_t err_len);

/*===--------------------------------------------------------------------===*/
/* Kernels                                                                  */
/*===--------------------------------------------------------------------===*/

/* Number of threads the CPU kernels (OpenBLAS) use; values below 1 are
 * ignored. Implemented by the kernel library (runtime/kernels). */
void loom_set_num_threads(int num_threads);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOOM_RUNTIME_RUNTIME_H */
