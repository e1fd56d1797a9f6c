/*===- Runtime.h - The Loom runtime's C API -----------------------*- C -*-===*\
|*                                                                            *|
|* The runtime loads an artifact directory written by loomc (manifest.json,   *|
|* program.so, parameters.bin; see docs/Artifact.md) and runs it. The API is  *|
|* plain C over opaque handles so that loomrun, the tests and foreign-        *|
|* function bindings share one stable ABI. Functions report failure with a    *|
|* status code and a message; the library never exits or aborts on bad input. *|
|*                                                                            *|
|* This header declares programs (loading, running, binding, parameters) and  *|
|* includes the rest of the C API: the codes of ABI.h, the basics of Base.h,  *|
|* devices (Device.h) and communicators (Communicator.h). Error buffers are   *|
|* optional everywhere (Base.h).                                              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LOOM_RUNTIME_RUNTIME_H
#define LOOM_RUNTIME_RUNTIME_H

#include "loom/runtime/ABI.h"
#include "loom/runtime/Base.h"
#include "loom/runtime/Communicator.h"
#include "loom/runtime/Device.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===--------------------------------------------------------------------===*/
/* Programs                                                                 */
/*===--------------------------------------------------------------------===*/

typedef struct loom_program loom_program;

/* 1 when the tensor's local shape differs from its global shape (each rank
 * holds a block), else 0 (also for NULL). */
int loom_program_tensor_is_sharded(const loom_tensor_info *info);

/* Flags for loom_program_load_with_flags. */
enum {
  /* Read and check manifest.json only: no device, no parameter mapping, no
   * dlopen, no CPU check. The signature and target accessors work; running
   * does not. For tools that describe artifacts built for other machines. */
  LOOM_LOAD_MANIFEST_ONLY = 1u << 0,
  /* With LOOM_LOAD_MANIFEST_ONLY: also map the parameter file, so that
   * loom_program_parameter_data reads the weights (still no device and no
   * dlopen: loom-ckpt reads artifacts built for other machines). */
  LOOM_LOAD_PARAMETERS = 1u << 1,
};

/* Loads the artifact directory `artifact_dir` (e.g. "mlp.loom"): reads and
 * checks manifest.json, opens the device its target names ("target.device";
 * default "cpu"), checks that the device can run it (the CPU's architecture
 * and features), maps the parameter file read-only and loads the program
 * library onto the device. Returns NULL on failure, with a message naming
 * the file and the problem in `err`. */
loom_program *loom_program_load(const char *artifact_dir, char *err,
                                size_t err_len);
loom_program *loom_program_load_with_flags(const char *artifact_dir,
                                           unsigned flags, char *err,
                                           size_t err_len);

/* Loads what rank `rank` runs: for a pipelined artifact (a manifest with a
 * "pipeline" object, docs/Artifact.md) the stage its "rank_stage" names,
 * else the artifact itself. loom_program_load refuses pipelined artifacts,
 * whose stages differ by rank. */
loom_program *loom_program_load_rank(const char *artifact_dir, int rank,
                                     unsigned flags, char *err, size_t err_len);

/* For a stage of a pipelined artifact: its index and the number of stages
 * (-1 and 1 otherwise). */
int64_t loom_program_pipeline_stage(const loom_program *program);
int64_t loom_program_pipeline_stages(const loom_program *program);

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
 * loaded with LOOM_LOAD_MANIFEST_ONLY alone): the mapped global tensor, or, for
 * a sharded parameter of a bound program, this rank's block. */
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
/* The manifest's "target.device", or LOOM_DEFAULT_DEVICE_KIND ("cpu") when
 * it names none. */
const char *loom_program_target_device(const loom_program *program);
/* GPU targets: the chips the manifest's "target.chips" lists ("sm_90"),
 * and "target.arena_bytes", the device memory of the program's temporaries
 * (0 when it names none). */
size_t loom_program_num_target_chips(const loom_program *program);
const char *loom_program_target_chip(const loom_program *program, size_t index);
int64_t loom_program_target_arena_bytes(const loom_program *program);

/* The device the program runs on (owned by the program); NULL when loaded
 * with LOOM_LOAD_MANIFEST_ONLY. */
loom_device *loom_program_device(const loom_program *program);

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
/* Programs on communicators                                                 */
/*===--------------------------------------------------------------------===*/

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
 * ignored. Implemented by the CPU device (runtime/devices/cpu/Kernels.cpp). */
void loom_set_num_threads(int num_threads);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOOM_RUNTIME_RUNTIME_H */
