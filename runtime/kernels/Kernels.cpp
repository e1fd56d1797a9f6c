//===- Kernels.cpp - Library kernels that compiled programs call ----------===//
//
// Generated code calls these through MLIR's C interface: a memref argument
// arrives as a pointer to its strided descriptor. GEMMs go to OpenBLAS;
// `memrefCopy` is the symbol MLIR's memref lowering calls for copies between
// non-contiguous buffers.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Kernels.h"

#include <cblas.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace {

template <typename T, int Rank> struct Desc {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};

struct UnrankedDesc {
  int64_t rank;
  void *descriptor;
};

/// How a BLAS call reads a strided matrix view: its data pointer, whether
/// it is read transposed, and the leading dimension.
template <typename T> struct MatrixView {
  const T *data;
  bool transposed;
  int64_t ld;
};

/// Views whose strides BLAS cannot express are copied into `scratch`.
template <typename T>
MatrixView<T> viewOf(const T *base, int64_t rows, int64_t cols, int64_t rs,
                     int64_t cs, std::vector<T> &scratch) {
  // A dimension of extent 1 may carry any stride; BLAS wants ld >= extent.
  if (cols == 1)
    cs = 1;
  if (rows == 1)
    rs = cols;
  if (cs == 1 && rs >= (cols > 1 ? cols : 1))
    return {base, false, rs};
  if (rs == 1 && cs >= (rows > 1 ? rows : 1))
    return {base, true, cs};
  scratch.resize(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      scratch[i * cols + j] = base[i * rs + j * cs];
  return {scratch.data(), false, cols > 1 ? cols : 1};
}

void blasGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float *a,
              int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a, lda, b, ldb,
              1.0f, c, ldc);
}

void blasGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k,
              const double *a, int64_t lda, const double *b, int64_t ldb,
              double *c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0, a, lda, b, ldb, 1.0,
              c, ldc);
}

/// C[m,n] += A[m,k] * B[k,n] (B given as [n,k] when `transB`) for one
/// matrix of a (batched) GEMM.
template <typename T>
void gemmOne(const T *a, const int64_t *aStrides, const T *b,
             const int64_t *bStrides, T *c, const int64_t *cStrides, int64_t m,
             int64_t n, int64_t k, bool transB) {
  if (m == 0 || n == 0 || k == 0)
    return; // C += 0
  std::vector<T> sa, sb, sc;
  MatrixView<T> va = viewOf(a, m, k, aStrides[0], aStrides[1], sa);
  MatrixView<T> vb = transB ? viewOf(b, n, k, bStrides[0], bStrides[1], sb)
                            : viewOf(b, k, n, bStrides[0], bStrides[1], sb);
  bool tb = transB ? !vb.transposed : vb.transposed;
  int64_t rs = cStrides[0], cs = cStrides[1];
  if (n == 1)
    cs = 1;
  if (m == 1)
    rs = n;
  if (cs == 1 && rs >= n) {
    blasGemm(va.transposed, tb, m, n, k, va.data, va.ld, vb.data, vb.ld, c, rs);
    return;
  }
  // An output view BLAS cannot write: accumulate into a dense copy.
  sc.resize(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      sc[i * n + j] = c[i * rs + j * cs];
  blasGemm(va.transposed, tb, m, n, k, va.data, va.ld, vb.data, vb.ld,
           sc.data(), n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      c[i * rs + j * cs] = sc[i * n + j];
}

template <typename T>
void gemm2d(Desc<T, 2> *a, Desc<T, 2> *b, Desc<T, 2> *c, int32_t transB) {
  int64_t m = c->sizes[0], n = c->sizes[1], k = a->sizes[1];
  gemmOne(a->aligned + a->offset, a->strides, b->aligned + b->offset,
          b->strides, c->aligned + c->offset, c->strides, m, n, k, transB != 0);
}

template <typename T>
void gemm3d(Desc<T, 3> *a, Desc<T, 3> *b, Desc<T, 3> *c, int32_t transB) {
  int64_t batch = c->sizes[0], m = c->sizes[1], n = c->sizes[2],
          k = a->sizes[2];
  for (int64_t i = 0; i < batch; ++i)
    gemmOne(a->aligned + a->offset + i * a->strides[0], a->strides + 1,
            b->aligned + b->offset + i * b->strides[0], b->strides + 1,
            c->aligned + c->offset + i * c->strides[0], c->strides + 1, m, n, k,
            transB != 0);
}

/// Copies a strided view element by element.
void copyStrided(int64_t elemSize, int64_t rank, const char *src,
                 const int64_t *sizes, const int64_t *srcStrides, char *dst,
                 const int64_t *dstStrides) {
  if (rank == 0) {
    std::memcpy(dst, src, static_cast<size_t>(elemSize));
    return;
  }
  for (int64_t i = 0; i < sizes[0]; ++i)
    copyStrided(elemSize, rank - 1, src + i * srcStrides[0] * elemSize,
                sizes + 1, srcStrides + 1, dst + i * dstStrides[0] * elemSize,
                dstStrides + 1);
}

/// Programs allocate their intermediate buffers on every call; going to
/// malloc for multi-megabyte blocks means mmap, page faults and zeroing each
/// time. Freed blocks are kept per size and handed out again instead.
class BufferCache {
public:
  void *allocate(size_t size, size_t alignment) {
    if (alignment < 64)
      alignment = 64;
    size = (size + 63) & ~size_t(63);
    if (size == 0)
      size = 64;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = freeBlocks.find(size);
      if (it != freeBlocks.end() && !it->second.empty()) {
        void *p = it->second.back();
        it->second.pop_back();
        cachedBytes -= size;
        live[p] = size;
        return p;
      }
    }
    void *p = std::aligned_alloc(alignment > 4096 ? alignment : 64, size);
    if (!p)
      return nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    live[p] = size;
    return p;
  }

  void release(void *p) {
    if (!p)
      return;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = live.find(p);
    if (it == live.end()) {
      std::free(p); // not ours
      return;
    }
    size_t size = it->second;
    live.erase(it);
    // Bound what the cache keeps so a one-off peak is returned to the OS.
    if (cachedBytes + size > kMaxCachedBytes) {
      std::free(p);
      return;
    }
    freeBlocks[size].push_back(p);
    cachedBytes += size;
  }

private:
  static constexpr size_t kMaxCachedBytes = size_t(8) << 30;
  std::mutex mutex;
  std::unordered_map<void *, size_t> live;
  std::unordered_map<size_t, std::vector<void *>> freeBlocks;
  size_t cachedBytes = 0;
};

BufferCache &bufferCache() {
  static BufferCache *cache = new BufferCache(); // outlives static dtors
  return *cache;
}

} // namespace

extern "C" {

// The allocation functions MLIR's memref lowering calls with
// `use-generic-functions`.
void *_mlir_memref_to_llvm_alloc(size_t size) {
  return bufferCache().allocate(size, 64);
}

void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  return bufferCache().allocate(size, alignment);
}

void _mlir_memref_to_llvm_free(void *p) { bufferCache().release(p); }

void loom_set_num_threads(int threads) {
  if (threads > 0)
    openblas_set_num_threads(threads);
}

void _mlir_ciface_loom_kernel_gemm_f32(void *a, void *b, void *c,
                                       int32_t transB) {
  gemm2d(static_cast<Desc<float, 2> *>(a), static_cast<Desc<float, 2> *>(b),
         static_cast<Desc<float, 2> *>(c), transB);
}

void _mlir_ciface_loom_kernel_gemm_f64(void *a, void *b, void *c,
                                       int32_t transB) {
  gemm2d(static_cast<Desc<double, 2> *>(a), static_cast<Desc<double, 2> *>(b),
         static_cast<Desc<double, 2> *>(c), transB);
}

void _mlir_ciface_loom_kernel_batch_gemm_f32(void *a, void *b, void *c,
                                             int32_t transB) {
  gemm3d(static_cast<Desc<float, 3> *>(a), static_cast<Desc<float, 3> *>(b),
         static_cast<Desc<float, 3> *>(c), transB);
}

void _mlir_ciface_loom_kernel_batch_gemm_f64(void *a, void *b, void *c,
                                             int32_t transB) {
  gemm3d(static_cast<Desc<double, 3> *>(a), static_cast<Desc<double, 3> *>(b),
         static_cast<Desc<double, 3> *>(c), transB);
}

void memrefCopy(int64_t elemSize, void *srcArg, void *dstArg) {
  auto *src = static_cast<UnrankedDesc *>(srcArg);
  auto *dst = static_cast<UnrankedDesc *>(dstArg);
  int64_t rank = src->rank;
  // Descriptor layout: two pointers, an offset, then sizes and strides.
  auto *srcWords = static_cast<int64_t *>(src->descriptor);
  auto *dstWords = static_cast<int64_t *>(dst->descriptor);
  char *srcData =
      reinterpret_cast<char *>(srcWords[1]) + srcWords[2] * elemSize;
  char *dstData =
      reinterpret_cast<char *>(dstWords[1]) + dstWords[2] * elemSize;
  const int64_t *sizes = srcWords + 3;
  for (int64_t i = 0; i < rank; ++i)
    if (sizes[i] == 0)
      return;
  copyStrided(elemSize, rank, srcData, sizes, srcWords + 3 + rank, dstData,
              dstWords + 3 + rank);
}

} // extern "C"
