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
 * 2: loom_kernel_gemm_const_b_f32. */
#define LOOM_RUNTIME_ABI_VERSION 2
#define LOOM_RUNTIME_ABI_MIN_VERSION 1

/* The manifest format this runtime reads ("format_version"). */
#define LOOM_ARTIFACT_FORMAT_VERSION 1

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
} loom_tensor_info;

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

/* The mapped, read-only bytes of parameter `index` (NULL when out of range
 * or loaded with LOOM_LOAD_MANIFEST_ONLY). */
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

/* Runs the program once. `inputs` holds one pointer per input and `outputs`
 * one per output, in manifest order, each to a contiguous row-major buffer of
 * the tensor's nbytes (it may be NULL when nbytes is 0). Buffers that are not
 * LOOM_ALIGNMENT-aligned are copied through aligned scratch memory, so
 * aligned buffers avoid a copy. Outputs must not overlap inputs. Runs of one
 * program must not overlap in time. Returns LOOM_OK or a loom_status with a
 * message in `err`. */
int loom_program_run(loom_program *program, const void *const *inputs,
                     void *const *outputs, char *err, size_t err_len);

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
