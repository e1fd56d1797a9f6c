//===- PackedGemm.cpp - f32 GEMM against weights packed once --------------===//
//
// Blocking (BLIS-style): B is packed into KC x NR panels, KC = 256 rows of
// k and NR = 32 columns (two zmm registers) each, zero-padded at the right
// edge. For each KC block and each MC = 96 row block of A (which then stays
// in L2), the micro-kernel sweeps the panels, computing MR x NR = 12 x 32
// tiles of C in 24 accumulator registers, broadcasting A straight from its
// rows. Masked loads and stores handle the edges.
//
//===----------------------------------------------------------------------===//

#include "devices/cpu/PackedGemm.h"

#include <immintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

namespace loom::rt::packed {

namespace {
constexpr int64_t kNR = 32, kMR = 12, kKC = 256, kMC = 96;

int64_t panelsOf(int64_t n) { return (n + kNR - 1) / kNR; }
} // namespace

struct PackedB {
  int64_t k = 0, n = 0;
  // [k block][panel][row of the block][kNR], 64-byte aligned.
  std::unique_ptr<float, decltype(&std::free)> data{nullptr, &std::free};
};

void *allocateHugePages(size_t &bytes) {
  constexpr size_t kHugePage = size_t(2) << 20;
  static const bool on = [] {
    const char *env = std::getenv("LOOM_HUGE_PAGES");
    return !(env && std::strcmp(env, "0") == 0);
  }();
  if (!on || bytes > SIZE_MAX - kHugePage)
    return nullptr;
  size_t huge = (bytes + kHugePage - 1) & ~(kHugePage - 1);
  void *p = std::aligned_alloc(kHugePage, huge);
  if (p) {
    ::madvise(p, huge, MADV_HUGEPAGE);
    bytes = huge;
  }
  return p;
}

bool available() {
  static const bool ok = [] {
    const char *env = std::getenv("LOOM_PACKED_GEMM");
    if (env && std::strcmp(env, "0") == 0)
      return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
  }();
  return ok;
}

namespace {

/// 64-byte aligned memory for packed weights; large ones on 2 MiB pages
/// (the kernel streams them, and 4 KiB pages cost a page walk every 4 KiB).
void *allocateWeights(size_t &bytes) {
  if (bytes >= (size_t(512) << 10))
    if (void *p = allocateHugePages(bytes))
      return p;
  return std::aligned_alloc(64, bytes);
}

/// B packed into panels; null if out of memory.
std::unique_ptr<PackedB> pack(const float *b, int64_t k, int64_t n,
                              int64_t strideK, int64_t strideN) {
  auto packed = std::make_unique<PackedB>();
  int64_t panels = panelsOf(n);
  size_t bytes = size_t(k) * size_t(panels) * kNR * sizeof(float);
  bytes = (bytes + 63) / 64 * 64;
  packed->data.reset(static_cast<float *>(allocateWeights(bytes)));
  if (!packed->data)
    return nullptr;
  packed->k = k;
  packed->n = n;
  float *out = packed->data.get();
  for (int64_t k0 = 0; k0 < k; k0 += kKC) {
    int64_t kc = std::min(kKC, k - k0);
    for (int64_t panel = 0; panel < panels; ++panel) {
      float *dst = out + k0 * panels * kNR + panel * kc * kNR;
      for (int64_t p = 0; p < kc; ++p)
        for (int64_t j = 0; j < kNR; ++j) {
          int64_t col = panel * kNR + j;
          dst[p * kNR + j] =
              col < n ? b[(k0 + p) * strideK + col * strideN] : 0.0f;
        }
    }
  }
  return packed;
}

using Key = std::tuple<const float *, int64_t, int64_t, int64_t, int64_t>;

struct Cache {
  std::mutex mutex;
  std::map<Key, std::unique_ptr<PackedB>> entries;
};

Cache &cache() {
  static Cache *c = new Cache(); // Never destroyed: kernels may run at exit.
  return *c;
}

/// C[R x 32] (+)= A[R x kc] * panel[kc x 32], columns masked by m0/m1.
/// With Prefetch, also pulls `next` (the next panel, as large) into L1:
/// weights come from memory, and each panel is first read by one tile.
template <int R, bool Prefetch>
__attribute__((target("avx512f"))) void
micro(int64_t kc, const float *a, int64_t lda, const float *panel, float *c,
      int64_t ldc, __mmask16 m0, __mmask16 m1, bool accumulate,
      const float *next) {
  __m512 c0[R], c1[R];
  for (int i = 0; i < R; ++i) {
    c0[i] = _mm512_setzero_ps();
    c1[i] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p) {
    if (Prefetch) {
      _mm_prefetch(reinterpret_cast<const char *>(next + p * kNR), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char *>(next + p * kNR + 16),
                   _MM_HINT_T0);
    }
    __m512 b0 = _mm512_load_ps(panel + p * kNR);
    __m512 b1 = _mm512_load_ps(panel + p * kNR + 16);
    for (int i = 0; i < R; ++i) {
      __m512 av = _mm512_set1_ps(a[i * lda + p]);
      c0[i] = _mm512_fmadd_ps(av, b0, c0[i]);
      c1[i] = _mm512_fmadd_ps(av, b1, c1[i]);
    }
  }
  for (int i = 0; i < R; ++i) {
    float *row = c + i * ldc;
    if (accumulate) {
      c0[i] = _mm512_add_ps(c0[i], _mm512_maskz_loadu_ps(m0, row));
      c1[i] = _mm512_add_ps(c1[i], _mm512_maskz_loadu_ps(m1, row + 16));
    }
    _mm512_mask_storeu_ps(row, m0, c0[i]);
    _mm512_mask_storeu_ps(row + 16, m1, c1[i]);
  }
}

using MicroFn = void (*)(int64_t, const float *, int64_t, const float *,
                         float *, int64_t, __mmask16, __mmask16, bool,
                         const float *);
template <bool P>
constexpr MicroFn kMicro[kMR + 1] = {
    nullptr,      micro<1, P>,  micro<2, P>, micro<3, P>, micro<4, P>,
    micro<5, P>,  micro<6, P>,  micro<7, P>, micro<8, P>, micro<9, P>,
    micro<10, P>, micro<11, P>, micro<12, P>};

__mmask16 maskOf(int64_t valid) {
  if (valid <= 0)
    return 0;
  return valid >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << valid) - 1);
}

} // namespace

const PackedB *packedWeights(const float *b, int64_t k, int64_t n,
                             int64_t strideK, int64_t strideN) {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  std::unique_ptr<PackedB> &entry = c.entries[{b, k, n, strideK, strideN}];
  if (!entry)
    entry = pack(b, k, n, strideK, strideN);
  return entry.get();
}

void gemm(int64_t m, const float *a, int64_t lda, const PackedB *b, float *c,
          int64_t ldc, bool accumulate) {
  int64_t k = b->k, n = b->n, panels = panelsOf(n);
  const float *data = b->data.get();
  if (k == 0) {
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i)
        std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    return;
  }
  for (int64_t k0 = 0; k0 < k; k0 += kKC) {
    int64_t kc = std::min(kKC, k - k0);
    bool acc = accumulate || k0 > 0;
    for (int64_t i0 = 0; i0 < m; i0 += kMC) {
      int64_t mc = std::min(kMC, m - i0);
      for (int64_t panel = 0; panel < panels; ++panel) {
        const float *bp = data + k0 * panels * kNR + panel * kc * kNR;
        // The next panel of this k block (panels of a block are contiguous).
        const float *next = panel + 1 < panels ? bp + kc * kNR : bp;
        int64_t valid = std::min(kNR, n - panel * kNR);
        __mmask16 m0 = maskOf(valid), m1 = maskOf(valid - 16);
        for (int64_t i = i0; i < i0 + mc; i += kMR) {
          int64_t rows = std::min(kMR, i0 + mc - i);
          (i == i0 ? kMicro<true> : kMicro<false>)[rows](
              kc, a + i * lda + k0, lda, bp, c + i * ldc + panel * kNR, ldc, m0,
              m1, acc, next);
        }
      }
    }
  }
}

void forgetRange(const void *begin, size_t bytes) {
  auto lo = static_cast<const char *>(begin);
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (auto it = c.entries.begin(); it != c.entries.end();) {
    auto p = reinterpret_cast<const char *>(std::get<0>(it->first));
    if (p >= lo && p < lo + bytes)
      it = c.entries.erase(it);
    else
      ++it;
  }
}

} // namespace loom::rt::packed
