/*===- ABI.h - What the compiler and the runtime must agree on ----*- C -*-===*\
|*                                                                            *|
|* The one place for the facts that loomc writes into artifacts and the       *|
|* runtime reads back: element type codes, reduction and collective codes,    *|
|* the symbols compiled programs export and import, the artifact's file       *|
|* names, and the versions of both contracts. Plain C with macros and enums   *|
|* only, so that the compiler includes it without linking the runtime and    *|
|* bindings read the codes from it (or ask the runtime: loom_dtype_name).     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LOOM_RUNTIME_ABI_H
#define LOOM_RUNTIME_ABI_H

/*===--------------------------------------------------------------------===*/
/* Versions                                                                 */
/*===--------------------------------------------------------------------===*/

/* The ABI of the programs this runtime runs: an artifact's "runtime_abi"
 * must be between LOOM_RUNTIME_ABI_MIN_VERSION and this. It grows when
 * compiled programs may import a new symbol, and the minimum moves when the
 * entry calling convention or an existing symbol changes incompatibly.
 * 2: loom_kernel_gemm_const_b_f32. 3: the loom_coll_* collectives
 * (Collectives.h). 4: loom_coll_send and loom_coll_recv (pipelines). */
#define LOOM_RUNTIME_ABI_VERSION 4
#define LOOM_RUNTIME_ABI_MIN_VERSION 1

/* The runtime ABI at which each import appeared: a program that imports it
 * declares at least this "runtime_abi". */
#define LOOM_RUNTIME_ABI_BASE 1
#define LOOM_RUNTIME_ABI_GEMM_CONST_B 2
#define LOOM_RUNTIME_ABI_COLLECTIVES 3
#define LOOM_RUNTIME_ABI_TRANSFERS 4

/* The manifest formats this runtime reads ("format_version"); 2 added the
 * mesh, groups, collectives and sharded tensors of distributed artifacts, 3
 * the training object and the parameter keys init and update
 * (docs/Training.md), 4 pipelined artifacts: a manifest whose "pipeline"
 * object maps every rank to a stage directory holding an artifact of its
 * own, 5 the "files" object (size and CRC-32 of every file) and, for CPU
 * programs, the entry's signature (LOOM_SIGNATURE_SUFFIX); the runtime
 * requires both from 5 on, and loads older artifacts without "files"
 * unchecked, with a warning. Optional keys (such as target.device) come without
 * a new version: readers ignore keys they do not know. */
#define LOOM_ARTIFACT_FORMAT_VERSION 5
#define LOOM_ARTIFACT_FORMAT_PIPELINE 4
#define LOOM_ARTIFACT_FORMAT_CHECKSUMS 5
#define LOOM_ARTIFACT_FORMAT_MIN_VERSION 1

/*===--------------------------------------------------------------------===*/
/* The artifact                                                             */
/*===--------------------------------------------------------------------===*/

/* The manifest's "format". */
#define LOOM_ARTIFACT_FORMAT_NAME "loom-artifact"

/* The files of an artifact directory (docs/Artifact.md). */
#define LOOM_MANIFEST_FILE "manifest.json"
#define LOOM_PARAMETERS_FILE "parameters.bin"
#define LOOM_PROGRAM_FILE "program.so"

/* The executable part of a CUDA artifact (--target=cuda, docs/CUDA.md): the
 * host schedule the CUDA device runs (the manifest's "library"), PTX of the
 * kernels for the lowest listed chip (the JIT fallback), a cubin per chip
 * (kernels.sm_90.cubin) and the program's constants. */
#define LOOM_CUDA_PROGRAM_FILE "program.cuda.json"
#define LOOM_CUDA_PROGRAM_FORMAT "loom-cuda-program"
#define LOOM_CUDA_PROGRAM_VERSION 1
#define LOOM_CUDA_PTX_FILE "kernels.ptx"
#define LOOM_CUDA_CUBIN_PREFIX "kernels."
#define LOOM_CUDA_CUBIN_SUFFIX ".cubin"
#define LOOM_CUDA_CONSTANTS_FILE "constants.bin"
/* The device kind of CUDA artifacts (the plugin libloom_device_cuda.so). */
#define LOOM_CUDA_DEVICE_KIND "cuda"
/* Alignment of every buffer in a CUDA program's arena and constants. */
#define LOOM_CUDA_BUFFER_ALIGNMENT 256

/* The device an artifact runs on when its manifest names none
 * ("target.device"). */
#define LOOM_DEFAULT_DEVICE_KIND "cpu"

/* Alignment, in bytes, of every buffer handed to a compiled program, and of
 * every parameter's offset in the parameter file. */
#define LOOM_ALIGNMENT 64

/*===--------------------------------------------------------------------===*/
/* Symbols                                                                  */
/*===--------------------------------------------------------------------===*/

/* The entry point a compiled program exports: void loom_entry(void **). */
#define LOOM_ENTRY_SYMBOL "loom_entry"

/* What a program library exports beside each entry, as ENTRY + this suffix
 * (loom_entry_signature): a NUL-terminated JSON string of the tensors the
 * entry was compiled for, which the runtime checks the manifest against
 * (docs/Artifact.md). */
#define LOOM_SIGNATURE_SUFFIX "_signature"
#define LOOM_SIGNATURE_VERSION 1

/* Prefixes of the symbols compiled programs import from the runtime: the
 * collectives (Collectives.h, ABI 3) and the kernels (Kernels.h), which
 * MLIR's C interface reaches as _mlir_ciface_loom_kernel_*. */
#define LOOM_COLLECTIVE_SYMBOL_PREFIX "loom_coll_"
#define LOOM_KERNEL_SYMBOL_PREFIX "loom_kernel_"
#define LOOM_CIFACE_PREFIX "_mlir_ciface_"

/* The f32 GEMM against a B that is a parameter (ABI 2). */
#define LOOM_GEMM_CONST_B_F32_SYMBOL "_mlir_ciface_loom_kernel_gemm_const_b_f32"

/* Parallel loops over the runtime's thread pool (ABI 1). */
#define LOOM_PARALLEL_FOR_SYMBOL "loom_parallel_for"

/*===--------------------------------------------------------------------===*/
/* Codes                                                                    */
/*===--------------------------------------------------------------------===*/

/* Element types. The values are part of the ABI; new types are appended. */
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

/* Reduction operators; the values are those of the compiler's ReductionKind
 * (and of the `op` argument of the loom_coll_* symbols). */
typedef enum loom_reduce_op {
  LOOM_REDUCE_SUM = 0,
  LOOM_REDUCE_MEAN = 1,
  LOOM_REDUCE_MAX = 2,
  LOOM_REDUCE_MIN = 3,
} loom_reduce_op;

/* The kinds of collective calls, as the manifest's "collectives" spells
 * them (loom_collective_kind_name). */
typedef enum loom_collective_kind {
  LOOM_COLLECTIVE_ALL_REDUCE = 0,
  LOOM_COLLECTIVE_ALL_GATHER = 1,
  LOOM_COLLECTIVE_REDUCE_SCATTER = 2,
  LOOM_COLLECTIVE_ALL_TO_ALL = 3,
  LOOM_COLLECTIVE_BROADCAST = 4,
  LOOM_COLLECTIVE_TAKE_SHARD = 5,
  /* Point to point between pipeline stages (loom_coll_send/recv). */
  LOOM_COLLECTIVE_SEND = 6,
  LOOM_COLLECTIVE_RECV = 7,
  LOOM_COLLECTIVE_NUM_KINDS = 8,
} loom_collective_kind;

#endif /* LOOM_RUNTIME_ABI_H */
