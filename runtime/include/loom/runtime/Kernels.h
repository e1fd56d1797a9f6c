//===- Kernels.h - Kernels compiled programs call into ------------*- C -*-===//
//
// The symbols here are part of the runtime ABI (LOOM_RUNTIME_ABI_VERSION):
// programs compiled by loomc leave them undefined and resolve them against
// libloom_runtime.so. Memref arguments are pointers to MLIR strided memref
// descriptors (`{T *allocated, T *aligned, int64_t offset, int64_t sizes[R],
// int64_t strides[R]}`).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_KERNELS_H
#define LOOM_RUNTIME_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Sets the thread count of the library kernels (OpenBLAS) and of the pool
/// that runs parallel loops; <= 0 keeps it (default: all hardware threads).
void loom_set_num_threads(int threads);

/// Runs task(ctx, lo, hi) over chunks covering [0, n) on the thread pool
/// and returns when all are done. Compiled programs call it for their
/// parallel loops.
void loom_parallel_for(void (*task)(void *, int64_t, int64_t), void *ctx,
                       int64_t n);

/// C += A * B (or A * B^T when transB), rank-2 f32/f64 views; C = A * B
/// when `accumulate` is 0.
void _mlir_ciface_loom_kernel_gemm_f32(void *a, void *b, void *c,
                                       int32_t transB, int32_t accumulate);
void _mlir_ciface_loom_kernel_gemm_f64(void *a, void *b, void *c,
                                       int32_t transB, int32_t accumulate);
/// As loom_kernel_gemm_f32, for a B that does not change at its address
/// while the program is loaded (a parameter): the runtime may keep B packed
/// for its GEMM kernel between calls (runtime ABI 2).
void _mlir_ciface_loom_kernel_gemm_const_b_f32(void *a, void *b, void *c,
                                               int32_t transB,
                                               int32_t accumulate);
/// The same per batch element of rank-3 views.
void _mlir_ciface_loom_kernel_batch_gemm_f32(void *a, void *b, void *c,
                                             int32_t transB,
                                             int32_t accumulate);
void _mlir_ciface_loom_kernel_batch_gemm_f64(void *a, void *b, void *c,
                                             int32_t transB,
                                             int32_t accumulate);

/// Buffer allocation for compiled programs (MLIR's generic allocation
/// functions). Freed buffers are cached per size and reused.
void *_mlir_memref_to_llvm_alloc(size_t size);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
void _mlir_memref_to_llvm_free(void *p);

/// The runtime's accounting of those buffers (not part of the program ABI):
/// the bytes programs hold now and the most they held at once since the
/// last reset; a nonzero `reset_peak` then restarts the peak from now.
void loom_buffer_stats(int64_t *live, int64_t *peak, int reset_peak);

/// Strided copy between two unranked memref descriptors (MLIR's lowering of
/// `memref.copy` calls it for non-contiguous views).
void memrefCopy(int64_t elemSize, void *src, void *dst);

#ifdef __cplusplus
}

namespace loom::rt {

/// MLIR's strided memref descriptor, as the kernels receive it.
template <typename T, int Rank> struct MemRefDesc {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};

/// MLIR's unranked memref descriptor (`memrefCopy`'s arguments): the rank
/// and a pointer to a ranked descriptor.
struct UnrankedMemRefDesc {
  int64_t rank;
  void *descriptor;
};

} // namespace loom::rt
#endif

#endif // LOOM_RUNTIME_KERNELS_H
