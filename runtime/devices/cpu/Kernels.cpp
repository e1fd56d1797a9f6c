//===- Kernels.cpp - Library kernels that compiled programs call ----------===//
//
// Generated code calls these through MLIR's C interface: a memref argument
// arrives as a pointer to its strided descriptor. GEMMs go to OpenBLAS;
// `memrefCopy` is the symbol MLIR's memref lowering calls for copies between
// non-contiguous buffers.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Kernels.h"
#include "devices/cpu/PackedGemm.h"

#include <algorithm>
#include <cblas.h>
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace {

template <typename T, int Rank> using Desc = loom::rt::MemRefDesc<T, Rank>;
namespace packed = loom::rt::packed;
using UnrankedDesc = loom::rt::UnrankedMemRefDesc;

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

/// oneDNN's sgemm (libdnnl.so.2), when installed: its AVX-512 kernels beat
/// OpenBLAS's on this work by about 1.4x. Loaded on first use, after
/// OMP_NUM_THREADS defaults to 1 (its OpenMP is then single-threaded: the
/// thread pool already splits GEMMs); LOOM_DNNL=0 keeps OpenBLAS.
using DnnlSgemm = int (*)(char, char, int64_t, int64_t, int64_t, float,
                          const float *, int64_t, const float *, int64_t, float,
                          float *, int64_t);
DnnlSgemm dnnlSgemm() {
  static const DnnlSgemm fn = []() -> DnnlSgemm {
    const char *env = std::getenv("LOOM_DNNL");
    if (env && std::strcmp(env, "0") == 0)
      return nullptr;
    ::setenv("OMP_NUM_THREADS", "1", /*overwrite=*/0);
    void *library = ::dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!library)
      return nullptr;
    return reinterpret_cast<DnnlSgemm>(::dlsym(library, "dnnl_sgemm"));
  }();
  return fn;
}

void blasGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float *a,
              int64_t lda, const float *b, int64_t ldb, float beta, float *c,
              int64_t ldc) {
  if (DnnlSgemm sgemm = dnnlSgemm())
    if (sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb,
              beta, c, ldc) == 0)
      return;
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a, lda, b, ldb,
              beta, c, ldc);
}

void blasGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k,
              const double *a, int64_t lda, const double *b, int64_t ldb,
              double beta, double *c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0, a, lda, b, ldb,
              beta, c, ldc);
}

/// C[m,n] (+)= A[m,k] * B[k,n] (B given as [n,k] when `transB`) for one
/// matrix of a (batched) GEMM; without `accumulate` C is overwritten.
template <typename T>
void gemmOne(const T *a, const int64_t *aStrides, const T *b,
             const int64_t *bStrides, T *c, const int64_t *cStrides, int64_t m,
             int64_t n, int64_t k, bool transB, bool accumulate) {
  if (m == 0 || n == 0)
    return;
  T beta = accumulate ? T(1) : T(0);
  if (k == 0) {
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          c[i * cStrides[0] + j * cStrides[1]] = T(0);
    return;
  }
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
    blasGemm(va.transposed, tb, m, n, k, va.data, va.ld, vb.data, vb.ld, beta,
             c, rs);
    return;
  }
  // An output view BLAS cannot write: accumulate into a dense copy.
  sc.resize(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      sc[i * n + j] = c[i * rs + j * cs];
  blasGemm(va.transposed, tb, m, n, k, va.data, va.ld, vb.data, vb.ld, beta,
           sc.data(), n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      c[i * rs + j * cs] = sc[i * n + j];
}

/// GEMMs of at most this many multiply-adds are not worth splitting.
constexpr int64_t kSmallGemm = int64_t(1) << 18;

/// Runs fn(i) for i in [0, n) on the thread pool (defined below).
void parallelFor(int64_t n, const std::function<void(int64_t)> &fn);
int poolThreads();

/// With LOOM_KERNEL_STATS set, GEMM calls are timed per shape and the
/// totals printed to stderr at exit: where a program's BLAS time goes.
class KernelStats {
public:
  static KernelStats *get() {
    static KernelStats *stats =
        getenv("LOOM_KERNEL_STATS") ? new KernelStats() : nullptr;
    return stats;
  }
  void add(int64_t batch, int64_t m, int64_t n, int64_t k, bool transB,
           double seconds) {
    std::lock_guard<std::mutex> lock(mutex);
    Entry &e = entries[{batch, m, n, k, transB}];
    e.calls += 1;
    e.seconds += seconds;
  }
  ~KernelStats() = default;

private:
  using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, bool>;
  struct Entry {
    int64_t calls = 0;
    double seconds = 0;
  };
  KernelStats() {
    std::atexit([] { get()->print(); });
  }
  void print() {
    std::lock_guard<std::mutex> lock(mutex);
    double total = 0;
    for (auto &[key, e] : entries)
      total += e.seconds;
    std::fprintf(stderr, "loom kernel stats: %.3f s in GEMMs\n", total);
    for (auto &[key, e] : entries) {
      auto [batch, m, n, k, t] = key;
      double flops = 2.0 * batch * m * n * k * e.calls;
      std::fprintf(stderr,
                   "  %lldx[%lld,%lld,%lld]%s: %lld calls, %.3f ms, %.1f "
                   "GFLOP/s\n",
                   (long long)batch, (long long)m, (long long)n, (long long)k,
                   t ? " B^T" : "", (long long)e.calls, e.seconds * 1e3,
                   flops / e.seconds * 1e-9);
    }
  }
  std::mutex mutex;
  std::map<Key, Entry> entries;
};

/// Times `fn` into the kernel statistics when they are on.
template <typename Fn>
void timed(int64_t batch, int64_t m, int64_t n, int64_t k, bool transB, Fn fn) {
  KernelStats *stats = KernelStats::get();
  if (!stats) {
    fn();
    return;
  }
  auto start = std::chrono::steady_clock::now();
  fn();
  std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
  stats->add(batch, m, n, k, transB, d.count());
}

template <typename T>
void gemm2d(Desc<T, 2> *a, Desc<T, 2> *b, Desc<T, 2> *c, int32_t transB,
            int32_t accumulate) {
  int64_t m = c->sizes[0], n = c->sizes[1], k = a->sizes[1];
  const T *pa = a->aligned + a->offset, *pb = b->aligned + b->offset;
  T *pc = c->aligned + c->offset;
  timed(1, m, n, k, transB != 0, [&] {
    int64_t chunks = std::min<int64_t>(poolThreads(), m);
    if (chunks > 1 && m * n * k > kSmallGemm) {
      // Row blocks of A and C, one per thread, each a single-threaded GEMM.
      parallelFor(chunks, [&](int64_t i) {
        int64_t lo = i * m / chunks, hi = (i + 1) * m / chunks;
        gemmOne(pa + lo * a->strides[0], a->strides, pb, b->strides,
                pc + lo * c->strides[0], c->strides, hi - lo, n, k, transB != 0,
                accumulate != 0);
      });
      return;
    }
    gemmOne(pa, a->strides, pb, b->strides, pc, c->strides, m, n, k,
            transB != 0, accumulate != 0);
  });
}

constexpr int64_t kPackedMinDepth = 64;

/// gemm2d for a B that stays unchanged at its address while the program is
/// loaded (a parameter): through the packed kernel where it runs.
void gemm2dConstB(Desc<float, 2> *a, Desc<float, 2> *b, Desc<float, 2> *c,
                  int32_t transB, int32_t accumulate) {
  int64_t m = c->sizes[0], n = c->sizes[1], k = a->sizes[1];
  // Short dot products spend the tile's time on loading and storing C:
  // OpenBLAS's small-matrix kernels do better there.
  if (!packed::available() || m == 0 || n == 0 || k < kPackedMinDepth ||
      a->strides[1] != 1 || c->strides[1] != 1 || (m > 1 && c->strides[0] < n))
    return gemm2d(a, b, c, transB, accumulate);
  const float *pb = b->aligned + b->offset;
  const packed::PackedB *weights =
      transB ? packed::packedWeights(pb, k, n, b->strides[1], b->strides[0])
             : packed::packedWeights(pb, k, n, b->strides[0], b->strides[1]);
  if (!weights) // Out of memory for the packing: BLAS packs per call.
    return gemm2d(a, b, c, transB, accumulate);
  const float *pa = a->aligned + a->offset;
  float *pc = c->aligned + c->offset;
  int64_t lda = a->strides[0], ldc = c->strides[0];
  timed(1, m, n, k, transB != 0, [&] {
    int64_t chunks = std::min<int64_t>(poolThreads(), m);
    if (chunks > 1 && m * n * k > kSmallGemm) {
      parallelFor(chunks, [&](int64_t i) {
        int64_t lo = i * m / chunks, hi = (i + 1) * m / chunks;
        packed::gemm(hi - lo, pa + lo * lda, lda, weights, pc + lo * ldc, ldc,
                     accumulate != 0);
      });
      return;
    }
    packed::gemm(m, pa, lda, weights, pc, ldc, accumulate != 0);
  });
}

template <typename T>
void gemm3d(Desc<T, 3> *a, Desc<T, 3> *b, Desc<T, 3> *c, int32_t transB,
            int32_t accumulate) {
  int64_t batch = c->sizes[0], m = c->sizes[1], n = c->sizes[2],
          k = a->sizes[2];
  auto one = [&](int64_t i) {
    gemmOne(a->aligned + a->offset + i * a->strides[0], a->strides + 1,
            b->aligned + b->offset + i * b->strides[0], b->strides + 1,
            c->aligned + c->offset + i * c->strides[0], c->strides + 1, m, n, k,
            transB != 0, accumulate != 0);
  };
  timed(batch, m, n, k, transB != 0, [&] {
    // BLAS runs single-threaded; the batch is split over the pool.
    if (batch > 1)
      parallelFor(batch, one);
    else if (batch == 1)
      one(0);
  });
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
    // aligned_alloc wants a power-of-two alignment and a size multiple of it.
    if ((alignment & (alignment - 1)) || size > SIZE_MAX - alignment)
      return nullptr;
    size = (size + alignment - 1) & ~(alignment - 1);
    if (size == 0)
      size = alignment;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = freeBlocks.find(size);
      if (it != freeBlocks.end()) {
        std::vector<void *> &blocks = it->second;
        for (size_t i = blocks.size(); i-- > 0;) {
          void *p = blocks[i];
          if (reinterpret_cast<uintptr_t>(p) % alignment != 0)
            continue;
          blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
          cachedBytes -= size;
          live[p] = size;
          count(size);
          return p;
        }
      }
    }
    // Large buffers on 2 MiB pages (the cache keys them by requested size).
    void *p = nullptr;
    if (size >= kHugeThreshold && alignment <= (size_t(2) << 20)) {
      size_t huge = size;
      p = packed::allocateHugePages(huge);
    }
    if (!p)
      p = std::aligned_alloc(alignment, size);
    if (!p)
      return nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    live[p] = size;
    count(size);
    return p;
  }

  /// Bytes held by programs now, and the most held at once since the last
  /// reset.
  void stats(int64_t *liveOut, int64_t *peakOut, bool resetPeak) {
    std::lock_guard<std::mutex> lock(mutex);
    if (liveOut)
      *liveOut = static_cast<int64_t>(liveBytes);
    if (peakOut)
      *peakOut = static_cast<int64_t>(peakBytes);
    if (resetPeak)
      peakBytes = liveBytes;
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
    liveBytes -= size;
    // Bound what the cache keeps so a one-off peak is returned to the OS.
    if (cachedBytes + size > kMaxCachedBytes) {
      std::free(p);
      return;
    }
    freeBlocks[size].push_back(p);
    cachedBytes += size;
  }

private:
  void count(size_t size) {
    liveBytes += size;
    peakBytes = std::max(peakBytes, liveBytes);
  }

  static constexpr size_t kMaxCachedBytes = size_t(8) << 30;
  static constexpr size_t kHugeThreshold = size_t(1) << 20;
  std::mutex mutex;
  std::unordered_map<void *, size_t> live;
  std::unordered_map<size_t, std::vector<void *>> freeBlocks;
  size_t cachedBytes = 0;
  size_t liveBytes = 0, peakBytes = 0;
};

BufferCache &bufferCache() {
  static BufferCache *cache = new BufferCache(); // outlives static dtors
  return *cache;
}

/// How long an idle worker spins (pause instructions, about a millisecond)
/// before it sleeps.
constexpr int kSpins = 20000;

/// The pool that runs the parallel loops of compiled programs and splits
/// GEMMs (BLAS itself runs single-threaded): the caller
/// and `threads - 1` workers split [0, n) into one contiguous chunk each.
/// Workers spin briefly after a job (ops come back to back), then sleep.
class ThreadPool {
public:
  using Task = void (*)(void *, int64_t, int64_t);

  static ThreadPool &get() {
    static ThreadPool *pool = new ThreadPool(); // outlives static dtors
    return *pool;
  }

  int numThreads() const { return threads; }

  void setThreads(int n) {
    std::lock_guard<std::mutex> runLock(runMutex);
    stopWorkers();
    threads = n > 0 ? n : 1;
  }

  void run(Task task, void *ctx, int64_t n) {
    // A loop started from inside a task runs inline: the pool is busy with
    // the outer loop, and waiting for it would deadlock.
    if (insideTask) {
      task(ctx, 0, n);
      return;
    }
    std::lock_guard<std::mutex> runLock(runMutex);
    int64_t chunks = std::min<int64_t>(threads, n);
    if (chunks <= 1) {
      insideTask = true;
      task(ctx, 0, n);
      insideTask = false;
      return;
    }
    startWorkers();
    uint64_t id;
    {
      std::lock_guard<std::mutex> lock(mutex);
      id = (generation.load() + 1) & 0xffffffffu;
      // Close the previous job first (a worker still leaving it fails its
      // claim on the changed word), then fill in this one, then open it.
      claim.store((id << 32) | 0xffffffffu, std::memory_order_release);
      job.task = task;
      job.ctx = ctx;
      job.n = n;
      job.chunks.store(chunks, std::memory_order_relaxed);
      finished.store(0);
      claim.store(id << 32, std::memory_order_release);
      generation.store(id, std::memory_order_release);
    }
    wake.notify_all();
    work(id);
    while (finished.load(std::memory_order_acquire) < chunks)
      std::this_thread::yield();
  }

private:
  struct Job {
    Task task = nullptr;
    void *ctx = nullptr;
    int64_t n = 0;
    std::atomic<int64_t> chunks{0}; // read before a claim succeeds
  };

  ThreadPool() {
    unsigned hw = std::thread::hardware_concurrency();
    threads = hw ? static_cast<int>(hw) : 1;
    // All parallelism is the pool's: OpenBLAS's own threads would compete
    // with its workers for the same cores (and spin while idle).
    openblas_set_num_threads(1);
  }

  /// Runs unclaimed chunks of job `id`. A chunk is claimed by advancing the
  /// claim word (job id in the high half, next chunk in the low half), so a
  /// worker late from an earlier job can never take or count a chunk of
  /// this one; a job is replaced only once all its chunks are finished.
  void work(uint64_t id) {
    for (;;) {
      uint64_t word = claim.load(std::memory_order_acquire);
      if (word >> 32 != id)
        return;
      int64_t i = static_cast<int64_t>(word & 0xffffffffu);
      int64_t chunks = job.chunks.load(std::memory_order_relaxed);
      if (i >= chunks)
        return;
      if (!claim.compare_exchange_weak(word, word + 1,
                                       std::memory_order_acq_rel))
        continue;
      insideTask = true;
      job.task(job.ctx, i * job.n / chunks, (i + 1) * job.n / chunks);
      insideTask = false;
      finished.fetch_add(1, std::memory_order_release);
    }
  }

  void workerLoop() {
    uint64_t seen = generation.load(std::memory_order_acquire);
    for (;;) {
      // Spin a little: the next op usually follows within microseconds.
      for (int spin = 0; spin < kSpins &&
                         generation.load(std::memory_order_acquire) == seen &&
                         !stopping.load();
           ++spin)
        __builtin_ia32_pause();
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] {
          return stopping.load() ||
                 generation.load(std::memory_order_acquire) != seen;
        });
        if (stopping.load())
          return;
        seen = generation.load(std::memory_order_acquire);
      }
      work(seen);
    }
  }

  void startWorkers() {
    if (!workers.empty())
      return;
    stopping.store(false);
    for (int i = 1; i < threads; ++i)
      workers.emplace_back([this] { workerLoop(); });
  }

  void stopWorkers() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping.store(true);
    }
    wake.notify_all();
    for (std::thread &t : workers)
      t.join();
    workers.clear();
  }

  static thread_local bool insideTask;
  std::mutex runMutex; // one parallel loop at a time
  std::mutex mutex;
  std::condition_variable wake;
  std::vector<std::thread> workers;
  std::atomic<bool> stopping{false};
  std::atomic<uint64_t> generation{0};
  std::atomic<uint64_t> claim{0};
  std::atomic<int64_t> finished{0};
  Job job;
  int threads = 1;
};

thread_local bool ThreadPool::insideTask = false;

int poolThreads() { return ThreadPool::get().numThreads(); }

void parallelFor(int64_t n, const std::function<void(int64_t)> &fn) {
  ThreadPool::get().run(
      [](void *ctx, int64_t lo, int64_t hi) {
        auto &f = *static_cast<const std::function<void(int64_t)> *>(ctx);
        for (int64_t i = lo; i < hi; ++i)
          f(i);
      },
      const_cast<std::function<void(int64_t)> *>(&fn), n);
}

} // namespace

extern "C" {

void loom_parallel_for(void (*task)(void *, int64_t, int64_t), void *ctx,
                       int64_t n) {
  ThreadPool::get().run(task, ctx, n);
}

// The allocation functions MLIR's memref lowering calls with
// `use-generic-functions`.
void *_mlir_memref_to_llvm_alloc(size_t size) {
  return bufferCache().allocate(size, 64);
}

void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  return bufferCache().allocate(size, alignment);
}

void _mlir_memref_to_llvm_free(void *p) { bufferCache().release(p); }

void loom_buffer_stats(int64_t *live, int64_t *peak, int reset_peak) {
  bufferCache().stats(live, peak, reset_peak != 0);
}

void loom_set_num_threads(int threads) {
  if (threads > 0)
    ThreadPool::get().setThreads(threads);
}

void _mlir_ciface_loom_kernel_gemm_f32(void *a, void *b, void *c,
                                       int32_t transB, int32_t accumulate) {
  gemm2d(static_cast<Desc<float, 2> *>(a), static_cast<Desc<float, 2> *>(b),
         static_cast<Desc<float, 2> *>(c), transB, accumulate);
}

void _mlir_ciface_loom_kernel_gemm_const_b_f32(void *a, void *b, void *c,
                                               int32_t transB,
                                               int32_t accumulate) {
  gemm2dConstB(static_cast<Desc<float, 2> *>(a),
               static_cast<Desc<float, 2> *>(b),
               static_cast<Desc<float, 2> *>(c), transB, accumulate);
}

void _mlir_ciface_loom_kernel_gemm_f64(void *a, void *b, void *c,
                                       int32_t transB, int32_t accumulate) {
  gemm2d(static_cast<Desc<double, 2> *>(a), static_cast<Desc<double, 2> *>(b),
         static_cast<Desc<double, 2> *>(c), transB, accumulate);
}

void _mlir_ciface_loom_kernel_batch_gemm_f32(void *a, void *b, void *c,
                                             int32_t transB,
                                             int32_t accumulate) {
  gemm3d(static_cast<Desc<float, 3> *>(a), static_cast<Desc<float, 3> *>(b),
         static_cast<Desc<float, 3> *>(c), transB, accumulate);
}

void _mlir_ciface_loom_kernel_batch_gemm_f64(void *a, void *b, void *c,
                                             int32_t transB,
                                             int32_t accumulate) {
  gemm3d(static_cast<Desc<double, 3> *>(a), static_cast<Desc<double, 3> *>(b),
         static_cast<Desc<double, 3> *>(c), transB, accumulate);
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
