//===- KernelsTest.cpp - The kernels compiled programs call ---------------===//
//
// GEMMs, the thread pool, memrefCopy and the buffer allocator of
// runtime/kernels/Kernels.cpp, called through their C ABI the way compiled
// programs call them: memrefs are hand-built MLIR strided descriptors, and
// results are checked against naive loops in double.
//
//===----------------------------------------------------------------------===//

#include "loom/runtime/Kernels.h"
#include "devices/cpu/PackedGemm.h"
#include "loom/runtime/Device.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Descriptors and views
//===----------------------------------------------------------------------===//

template <typename T, int Rank> using Desc = loom::rt::MemRefDesc<T, Rank>;

/// The rank-0 descriptor (no sizes, no strides).
template <typename T> struct Desc0 {
  T *allocated;
  T *aligned;
  int64_t offset;
};

using UnrankedDesc = loom::rt::UnrankedMemRefDesc;

/// The pool's size when a test starts and after it: the runtime's default.
int defaultThreads() {
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? static_cast<int>(hw) : 1;
}

/// Puts the pool back to defaultThreads() when a test that changes it ends.
struct ThreadsGuard {
  ~ThreadsGuard() { loom_set_num_threads(defaultThreads()); }
};

/// Calls fn(index) for every index of a row-major iteration over `sizes`.
template <int Rank, typename Fn>
void forEachIndex(const std::array<int64_t, Rank> &sizes, Fn fn) {
  for (int64_t s : sizes)
    if (s == 0)
      return;
  std::array<int64_t, Rank> idx{};
  for (;;) {
    fn(idx);
    int d = Rank - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < sizes[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// A strided view over its own storage. Storage outside the view holds a
/// sentinel that the kernels must leave alone.
template <typename T, int Rank> struct View {
  std::vector<T> storage;
  std::vector<bool> inView;
  Desc<T, Rank> desc;

  View(std::array<int64_t, Rank> sizes, std::array<int64_t, Rank> strides,
       int64_t offset, T sentinel) {
    int64_t span = offset;
    bool empty = false;
    for (int d = 0; d < Rank; ++d) {
      empty |= sizes[d] == 0;
      if (sizes[d] > 0)
        span += (sizes[d] - 1) * strides[d];
    }
    storage.assign(static_cast<size_t>(span + 1 + 5), sentinel);
    inView.assign(storage.size(), false);
    desc.allocated = storage.data();
    desc.aligned = storage.data();
    desc.offset = offset;
    for (int d = 0; d < Rank; ++d) {
      desc.sizes[d] = sizes[d];
      desc.strides[d] = strides[d];
    }
    if (!empty)
      forEachIndex<Rank>(sizes, [&](const std::array<int64_t, Rank> &i) {
        inView[pos(i)] = true;
      });
  }
  View(const View &) = delete;
  View &operator=(const View &) = delete;

  std::array<int64_t, Rank> sizes() const {
    std::array<int64_t, Rank> s;
    for (int d = 0; d < Rank; ++d)
      s[d] = desc.sizes[d];
    return s;
  }
  size_t pos(const std::array<int64_t, Rank> &i) const {
    int64_t p = desc.offset;
    for (int d = 0; d < Rank; ++d)
      p += i[d] * desc.strides[d];
    return static_cast<size_t>(p);
  }
  T &at(const std::array<int64_t, Rank> &i) { return storage[pos(i)]; }
  T at(const std::array<int64_t, Rank> &i) const { return storage[pos(i)]; }

  /// Fills the view's elements with values in [-1, 1].
  void randomize(std::mt19937 &rng) {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    forEachIndex<Rank>(sizes(), [&](const std::array<int64_t, Rank> &i) {
      at(i) = static_cast<T>(dist(rng));
    });
  }
};

template <typename T> using Matrix = View<T, 2>;

/// How a rank-2 view is laid out in its storage.
enum class Layout {
  RowMajor, // strides [cols, 1]
  Padded,   // strides [cols + 3, 1]: a leading dimension above the extent
  ColMajor, // strides [1, rows]: a transposed view
  Strided,  // strides [2 * cols, 2]: not expressible to BLAS, copied
};
constexpr Layout allLayouts[] = {Layout::RowMajor, Layout::Padded,
                                 Layout::ColMajor, Layout::Strided};

const char *layoutName(Layout l) {
  switch (l) {
  case Layout::RowMajor:
    return "row-major";
  case Layout::Padded:
    return "padded";
  case Layout::ColMajor:
    return "col-major";
  case Layout::Strided:
    return "strided";
  }
  return "?";
}

std::array<int64_t, 2> stridesOf(Layout l, int64_t rows, int64_t cols) {
  switch (l) {
  case Layout::RowMajor:
    return {cols, 1};
  case Layout::Padded:
    return {cols + 3, 1};
  case Layout::ColMajor:
    return {1, rows};
  case Layout::Strided:
    return {2 * cols, 2};
  }
  return {cols, 1};
}

/// A random [rows, cols] matrix laid out as `layout` from `offset`, with
/// storage outside it set to `sentinel`.
template <typename T>
std::unique_ptr<Matrix<T>> randomMatrix(int64_t rows, int64_t cols,
                                        Layout layout, int64_t offset,
                                        std::mt19937 &rng, T sentinel = T(77)) {
  auto m = std::make_unique<Matrix<T>>(std::array<int64_t, 2>{rows, cols},
                                       stridesOf(layout, rows, cols), offset,
                                       sentinel);
  m->randomize(rng);
  return m;
}

//===----------------------------------------------------------------------===//
// GEMM reference and checks
//===----------------------------------------------------------------------===//

/// Set while a test routes rank-2 f32 GEMMs to the kernel for constant B.
bool useConstB = false;

/// The CPU device, whose parameter-update hook drops packed weights.
loom_device *cpuDevice() {
  static loom_device *device = [] {
    loom_device *created = nullptr;
    loom_device_create("cpu", 0, &created, nullptr, 0);
    return created;
  }();
  return device;
}

void callGemm(Desc<float, 2> *a, Desc<float, 2> *b, Desc<float, 2> *c,
              bool transB, bool accumulate) {
  if (!useConstB) {
    _mlir_ciface_loom_kernel_gemm_f32(a, b, c, transB, accumulate);
    return;
  }
  _mlir_ciface_loom_kernel_gemm_const_b_f32(a, b, c, transB, accumulate);
  // B's storage is freed after the case and its address may come back with
  // other values: drop the packing, as a program does when it is freed
  // (through the device's parameter-update hook).
  int64_t span = b->offset + 1;
  for (int d = 0; d < 2; ++d)
    span += std::max<int64_t>(b->sizes[d] - 1, 0) * b->strides[d];
  loom_device_buffer_updated(cpuDevice(), b->aligned,
                             size_t(span) * sizeof(float));
}

struct ConstBGuard {
  ConstBGuard() { useConstB = true; }
  ~ConstBGuard() { useConstB = false; }
};
void callGemm(Desc<double, 2> *a, Desc<double, 2> *b, Desc<double, 2> *c,
              bool transB, bool accumulate) {
  _mlir_ciface_loom_kernel_gemm_f64(a, b, c, transB, accumulate);
}
void callGemm(Desc<float, 3> *a, Desc<float, 3> *b, Desc<float, 3> *c,
              bool transB, bool accumulate) {
  _mlir_ciface_loom_kernel_batch_gemm_f32(a, b, c, transB, accumulate);
}
void callGemm(Desc<double, 3> *a, Desc<double, 3> *b, Desc<double, 3> *c,
              bool transB, bool accumulate) {
  _mlir_ciface_loom_kernel_batch_gemm_f64(a, b, c, transB, accumulate);
}

/// Bitwise equality, so that NaN sentinels compare equal to themselves.
template <typename T> bool sameBits(T x, T y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

/// Runs the (batched) GEMM c (+)= a * b (b^T when transB) and checks every
/// element of c against a naive double reference, within the rounding bound
/// of a k-term dot product in T, and that storage outside c's view is left
/// alone. For Rank 3 the first dimension is the batch; b may broadcast it
/// (batch stride 0).
template <typename T, int Rank>
void checkGemm(View<T, Rank> &a, View<T, Rank> &b, View<T, Rank> &c,
               bool transB, bool accumulate) {
  constexpr int R = Rank - 2; // index of the row dimension
  int64_t batch = Rank == 3 ? c.desc.sizes[0] : 1;
  int64_t m = c.desc.sizes[R], n = c.desc.sizes[R + 1], k = a.desc.sizes[R + 1];
  ASSERT_EQ(a.desc.sizes[R], m);
  ASSERT_EQ(b.desc.sizes[R], transB ? n : k);
  ASSERT_EQ(b.desc.sizes[R + 1], transB ? k : n);

  std::vector<T> before = c.storage;
  // Expected values and error bounds, indexed like c.storage.
  std::vector<double> expected(c.storage.size()), bound(c.storage.size());
  auto idx = [&](int64_t bi, int64_t i, int64_t j) {
    std::array<int64_t, Rank> r{};
    if constexpr (Rank == 3) {
      r[0] = bi;
      r[1] = i;
      r[2] = j;
    } else {
      r[0] = i;
      r[1] = j;
    }
    return r;
  };
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t p = 0; p < k; ++p) {
          double x = a.at(idx(bi, i, p));
          double y = transB ? b.at(idx(bi, j, p)) : b.at(idx(bi, p, j));
          sum += x * y;
          magnitude += std::fabs(x * y);
        }
        size_t at = c.pos(idx(bi, i, j));
        if (accumulate) {
          sum += static_cast<double>(before[at]);
          magnitude += std::fabs(static_cast<double>(before[at]));
        }
        expected[at] = sum;
        bound[at] =
            4.0 * (k + 2) * std::numeric_limits<T>::epsilon() * magnitude +
            std::numeric_limits<T>::min();
      }

  callGemm(&a.desc, &b.desc, &c.desc, transB, accumulate);

  int failures = 0;
  for (size_t at = 0; at < c.storage.size() && failures < 10; ++at) {
    if (!c.inView[at]) {
      if (!sameBits(c.storage[at], before[at])) {
        ADD_FAILURE() << "storage element " << at
                      << " outside C's view changed from " << before[at]
                      << " to " << c.storage[at];
        ++failures;
      }
      continue;
    }
    double got = c.storage[at];
    if (!(std::fabs(got - expected[at]) <= bound[at])) {
      ADD_FAILURE() << "C storage element " << at << ": got " << got
                    << ", expected " << expected[at] << " (+- " << bound[at]
                    << ")";
      ++failures;
    }
  }
}

std::string describe(int64_t m, int64_t n, int64_t k, Layout la, Layout lb,
                     Layout lc, bool transB, bool accumulate) {
  return "m=" + std::to_string(m) + " n=" + std::to_string(n) +
         " k=" + std::to_string(k) + " A " + layoutName(la) + ", B " +
         layoutName(lb) + ", C " + layoutName(lc) + (transB ? ", transB" : "") +
         (accumulate ? ", accumulate" : "");
}

/// One rank-2 GEMM case: random A, B and C (C's storage, sentinel included,
/// set to `cFill` first when given).
template <typename T>
void gemmCase(int64_t m, int64_t n, int64_t k, Layout la, Layout lb, Layout lc,
              bool transB, bool accumulate, int64_t offA = 0, int64_t offB = 0,
              int64_t offC = 0, bool cNaN = false) {
  SCOPED_TRACE(describe(m, n, k, la, lb, lc, transB, accumulate) +
               (cNaN ? ", C NaN" : ""));
  std::mt19937 rng(static_cast<unsigned>(m * 1000003 + n * 1009 + k));
  auto a = randomMatrix<T>(m, k, la, offA, rng);
  auto b = transB ? randomMatrix<T>(n, k, lb, offB, rng)
                  : randomMatrix<T>(k, n, lb, offB, rng);
  T nan = std::numeric_limits<T>::quiet_NaN();
  auto c = randomMatrix<T>(m, n, lc, offC, rng, cNaN ? nan : T(-55));
  if (cNaN)
    std::fill(c->storage.begin(), c->storage.end(), nan);
  checkGemm(*a, *b, *c, transB, accumulate);
}

template <typename T> class GemmTest : public ::testing::Test {};
using GemmTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GemmTest, GemmTypes);

TYPED_TEST(GemmTest, RowMajor) {
  const int64_t shapes[][3] = {{5, 7, 3},   {1, 1, 1},  {4, 1, 6},
                               {1, 5, 2},   {3, 4, 1},  {16, 9, 33},
                               {31, 17, 8}, {2, 64, 5}, {8, 8, 8}};
  for (auto &s : shapes)
    for (bool transB : {false, true})
      for (bool acc : {false, true})
        gemmCase<TypeParam>(s[0], s[1], s[2], Layout::RowMajor,
                            Layout::RowMajor, Layout::RowMajor, transB, acc);
}

TYPED_TEST(GemmTest, OverwriteIgnoresNaNInC) {
  // accumulate = 0 must overwrite C: no NaN from the old contents survives
  // (BLAS with beta = 0, on C itself or on the copy of a strided C).
  for (Layout lc :
       {Layout::RowMajor, Layout::Padded, Layout::ColMajor, Layout::Strided})
    for (bool transB : {false, true})
      gemmCase<TypeParam>(6, 5, 4, Layout::RowMajor, Layout::RowMajor, lc,
                          transB, /*accumulate=*/false, 0, 0, 2,
                          /*cNaN=*/true);
}

TYPED_TEST(GemmTest, Accumulate) {
  for (Layout lc : {Layout::RowMajor, Layout::Strided})
    for (bool transB : {false, true})
      gemmCase<TypeParam>(7, 6, 5, Layout::RowMajor, Layout::RowMajor, lc,
                          transB, /*accumulate=*/true);
}

TYPED_TEST(GemmTest, Offsets) {
  for (bool transB : {false, true})
    for (bool acc : {false, true}) {
      gemmCase<TypeParam>(5, 6, 7, Layout::RowMajor, Layout::RowMajor,
                          Layout::RowMajor, transB, acc, 7, 13, 5);
      gemmCase<TypeParam>(5, 6, 7, Layout::Padded, Layout::ColMajor,
                          Layout::Strided, transB, acc, 3, 1, 11);
    }
}

TYPED_TEST(GemmTest, TransposedViews) {
  for (bool transB : {false, true})
    for (bool acc : {false, true}) {
      gemmCase<TypeParam>(6, 4, 5, Layout::ColMajor, Layout::RowMajor,
                          Layout::RowMajor, transB, acc);
      gemmCase<TypeParam>(6, 4, 5, Layout::RowMajor, Layout::ColMajor,
                          Layout::RowMajor, transB, acc);
      gemmCase<TypeParam>(6, 4, 5, Layout::ColMajor, Layout::ColMajor,
                          Layout::RowMajor, transB, acc, 2, 3, 0);
    }
}

TYPED_TEST(GemmTest, CopyPath) {
  // Strides [2 * cols, 2]: A, B and C go through the scratch copies.
  for (bool transB : {false, true})
    for (bool acc : {false, true}) {
      gemmCase<TypeParam>(5, 6, 4, Layout::Strided, Layout::RowMajor,
                          Layout::RowMajor, transB, acc);
      gemmCase<TypeParam>(5, 6, 4, Layout::RowMajor, Layout::Strided,
                          Layout::RowMajor, transB, acc);
      gemmCase<TypeParam>(5, 6, 4, Layout::RowMajor, Layout::RowMajor,
                          Layout::Strided, transB, acc);
      gemmCase<TypeParam>(5, 6, 4, Layout::Strided, Layout::Strided,
                          Layout::Strided, transB, acc, 1, 2, 3);
    }
}

TYPED_TEST(GemmTest, AllLayoutCombinations) {
  for (Layout la : allLayouts)
    for (Layout lb : allLayouts)
      for (Layout lc : allLayouts)
        for (bool transB : {false, true})
          for (bool acc : {false, true})
            gemmCase<TypeParam>(6, 5, 4, la, lb, lc, transB, acc, 1, 2, 3);
}

TYPED_TEST(GemmTest, UnitExtentsWithOddStrides) {
  // A dimension of extent 1 may carry any stride (0, 1, huge, odd); the
  // other dimension is contiguous (stride 1) or not (stride 3).
  using T = TypeParam;
  const int64_t oddStrides[] = {0, 1, 7, 1000003};
  const int64_t shapes[][3] = {{1, 5, 4}, {5, 1, 4}, {5, 4, 1}, {1, 1, 4},
                               {1, 4, 1}, {4, 1, 1}, {1, 1, 1}};
  for (auto &s : shapes)
    for (int64_t odd : oddStrides)
      for (int64_t inner : {1, 3})
        for (bool transB : {false, true})
          for (bool acc : {false, true}) {
            int64_t m = s[0], n = s[1], k = s[2];
            auto strides = [&](int64_t rows, int64_t cols, bool colMajor) {
              // Unit dims get `odd`; a non-unit dim gets `inner`, or the
              // dense stride past the other dim when both are non-unit.
              std::array<int64_t, 2> st{};
              if (colMajor) {
                st[0] = rows == 1 ? odd : inner;
                st[1] = cols == 1 ? odd : (rows == 1 ? inner : rows * inner);
              } else {
                st[1] = cols == 1 ? odd : inner;
                st[0] = rows == 1 ? odd : (cols == 1 ? inner : cols * inner);
              }
              return st;
            };
            SCOPED_TRACE("m=" + std::to_string(m) + " n=" + std::to_string(n) +
                         " k=" + std::to_string(k) + " odd stride " +
                         std::to_string(odd) + " inner " +
                         std::to_string(inner) + (transB ? " transB" : "") +
                         (acc ? " accumulate" : ""));
            std::mt19937 rng(static_cast<unsigned>(odd + inner));
            int64_t bRows = transB ? n : k, bCols = transB ? k : n;
            Matrix<T> a({m, k}, strides(m, k, false), 2, T(77));
            Matrix<T> b({bRows, bCols}, strides(bRows, bCols, true), 1, T(77));
            Matrix<T> c({m, n}, strides(m, n, false), 3, T(-55));
            a.randomize(rng);
            b.randomize(rng);
            c.randomize(rng);
            checkGemm(a, b, c, transB, acc);
          }
}

TYPED_TEST(GemmTest, EmptyExtents) {
  using T = TypeParam;
  T nan = std::numeric_limits<T>::quiet_NaN();
  // m = 0 or n = 0: nothing to do, C (all NaN) untouched.
  for (bool transB : {false, true})
    for (bool acc : {false, true}) {
      gemmCase<T>(0, 5, 4, Layout::RowMajor, Layout::RowMajor, Layout::RowMajor,
                  transB, acc, 0, 0, 0, true);
      gemmCase<T>(5, 0, 4, Layout::RowMajor, Layout::RowMajor, Layout::RowMajor,
                  transB, acc, 0, 0, 0, true);
      gemmCase<T>(0, 0, 0, Layout::RowMajor, Layout::RowMajor, Layout::RowMajor,
                  transB, acc, 0, 0, 0, true);
    }
  // k = 0: C = 0 without accumulate (NaN overwritten), kept with it.
  for (Layout lc : allLayouts)
    for (bool transB : {false, true}) {
      SCOPED_TRACE(std::string("k=0, C ") + layoutName(lc) +
                   (transB ? ", transB" : ""));
      std::mt19937 rng(5);
      auto a = randomMatrix<T>(4, 0, Layout::RowMajor, 0, rng);
      auto b = transB ? randomMatrix<T>(3, 0, Layout::RowMajor, 0, rng)
                      : randomMatrix<T>(0, 3, Layout::RowMajor, 0, rng);
      auto c = randomMatrix<T>(4, 3, lc, 1, rng, nan);
      std::fill(c->storage.begin(), c->storage.end(), nan);
      callGemm(&a->desc, &b->desc, &c->desc, transB, /*accumulate=*/false);
      for (size_t i = 0; i < c->storage.size(); ++i) {
        if (c->inView[i])
          EXPECT_EQ(c->storage[i], T(0)) << "element " << i;
        else
          EXPECT_TRUE(std::isnan(c->storage[i])) << "element " << i;
      }
      c->randomize(rng);
      std::vector<T> before = c->storage;
      callGemm(&a->desc, &b->desc, &c->desc, transB, /*accumulate=*/true);
      for (size_t i = 0; i < c->storage.size(); ++i)
        EXPECT_TRUE(sameBits(c->storage[i], before[i])) << "element " << i;
    }
}

TYPED_TEST(GemmTest, SplitOverThePool) {
  // m * n * k > 2^18 splits the rows of A and C over the pool; the result
  // must not depend on the thread count nor on the layouts.
  ThreadsGuard guard;
  struct Case {
    int64_t m, n, k;
    Layout la, lb, lc;
    int64_t offA, offB, offC;
  };
  const Case cases[] = {
      {96, 80, 64, Layout::RowMajor, Layout::RowMajor, Layout::RowMajor, 0, 0,
       0},
      {67, 61, 70, Layout::Padded, Layout::ColMajor, Layout::Strided, 3, 5, 7},
      {67, 61, 70, Layout::ColMajor, Layout::Strided, Layout::Padded, 1, 2, 3},
      {1, 600, 500, Layout::RowMajor, Layout::RowMajor, Layout::RowMajor, 0, 0,
       0},
      {2, 400, 400, Layout::ColMajor, Layout::RowMajor, Layout::Strided, 0, 1,
       2},
  };
  for (int threads : {1, 2, 3}) {
    loom_set_num_threads(threads);
    SCOPED_TRACE(std::to_string(threads) + " threads");
    for (const Case &c : cases)
      for (bool transB : {false, true})
        for (bool acc : {false, true}) {
          ASSERT_GT(c.m * c.n * c.k, int64_t(1) << 18);
          gemmCase<TypeParam>(c.m, c.n, c.k, c.la, c.lb, c.lc, transB, acc,
                              c.offA, c.offB, c.offC, /*cNaN=*/!acc);
        }
  }
}

//===----------------------------------------------------------------------===//
// GEMM with a constant B (the packed kernel where the CPU has AVX-512)
//===----------------------------------------------------------------------===//

TEST(ConstBGemmTest, EdgesOfTheTiles) {
  // Rows around the 12-row tile and 96-row block, columns around the
  // 32-wide panel and its 16-wide halves, depths around the 256-deep block.
  ConstBGuard constB;
  const int64_t ms[] = {1, 11, 12, 13, 97};
  const int64_t ns[] = {1, 15, 16, 17, 32, 33, 70};
  // (Depths below 64 take BLAS.)
  const int64_t ks[] = {1, 5, 64, 256, 257, 600};
  for (int64_t m : ms)
    for (int64_t n : ns)
      for (int64_t k : ks)
        for (bool transB : {false, true})
          gemmCase<float>(m, n, k, Layout::RowMajor,
                          transB ? Layout::Padded : Layout::RowMajor,
                          Layout::RowMajor, transB, (m + n + k) % 2 == 0);
}

TEST(ConstBGemmTest, LayoutsAndAccumulation) {
  // Row-major and padded A and C take the packed kernel, any B layout is
  // packed; other A and C views fall back to BLAS. Both give the product.
  ConstBGuard constB;
  for (Layout la : allLayouts)
    for (Layout lb : allLayouts)
      for (Layout lc : allLayouts)
        for (bool transB : {false, true})
          for (bool acc : {false, true})
            gemmCase<float>(29, 45, 70, la, lb, lc, transB, acc, 1, 2, 3,
                            /*cNaN=*/!acc);
}

TEST(ConstBGemmTest, SplitOverThePool) {
  ThreadsGuard guard;
  ConstBGuard constB;
  for (int threads : {1, 2, 3}) {
    loom_set_num_threads(threads);
    SCOPED_TRACE(std::to_string(threads) + " threads");
    for (bool transB : {false, true})
      gemmCase<float>(150, 100, 300, Layout::RowMajor, Layout::RowMajor,
                      Layout::Padded, transB, false, 0, 0, 0, /*cNaN=*/true);
  }
}

TEST(ConstBGemmTest, PackingLastsUntilForgotten) {
  if (!loom::rt::packed::available())
    GTEST_SKIP() << "no AVX-512F: the constant-B kernel is BLAS";
  // The contract: B does not change while its packing is cached; freeing
  // the program (the parameter-update hook) drops the packing.
  const int64_t k = 64; // deep enough for the packed kernel
  std::vector<float> a(3 * k, 1.0f), b(k * 2, 1.0f), c(3 * 2, 0.0f);
  Desc<float, 2> da{a.data(), a.data(), 0, {3, k}, {k, 1}};
  Desc<float, 2> db{b.data(), b.data(), 0, {k, 2}, {2, 1}};
  Desc<float, 2> dc{c.data(), c.data(), 0, {3, 2}, {2, 1}};
  _mlir_ciface_loom_kernel_gemm_const_b_f32(&da, &db, &dc, 0, 0);
  EXPECT_EQ(c[0], 64.0f);
  std::fill(b.begin(), b.end(), 5.0f);
  _mlir_ciface_loom_kernel_gemm_const_b_f32(&da, &db, &dc, 0, 0);
  EXPECT_EQ(c[0], 64.0f) << "the packing was rebuilt although B is constant";
  loom_device_buffer_updated(cpuDevice(), b.data(), b.size() * sizeof(float));
  _mlir_ciface_loom_kernel_gemm_const_b_f32(&da, &db, &dc, 0, 0);
  EXPECT_EQ(c[0], 320.0f);
  loom_device_buffer_updated(cpuDevice(), b.data(), b.size() * sizeof(float));
}

//===----------------------------------------------------------------------===//
// Batched GEMM
//===----------------------------------------------------------------------===//

/// Rank-3 strides: the batch stride is the matrix's span plus `pad`, or 0
/// (a broadcast batch dimension) when `broadcast`.
std::array<int64_t, 3> batchStrides(Layout l, int64_t rows, int64_t cols,
                                    int64_t pad, bool broadcast = false) {
  std::array<int64_t, 2> inner = stridesOf(l, rows, cols);
  int64_t span = 1;
  if (rows > 0 && cols > 0)
    span += (rows - 1) * inner[0] + (cols - 1) * inner[1];
  return {broadcast ? 0 : span + pad, inner[0], inner[1]};
}

template <typename T>
void batchCase(int64_t batch, int64_t m, int64_t n, int64_t k, Layout la,
               Layout lb, Layout lc, bool transB, bool accumulate,
               int64_t pad = 0, bool broadcastB = false, int64_t offset = 0) {
  SCOPED_TRACE("batch=" + std::to_string(batch) + " " +
               describe(m, n, k, la, lb, lc, transB, accumulate) + " pad=" +
               std::to_string(pad) + (broadcastB ? " B broadcast" : ""));
  std::mt19937 rng(static_cast<unsigned>(batch * 31 + m * 7 + n * 3 + k));
  int64_t bRows = transB ? n : k, bCols = transB ? k : n;
  View<T, 3> a({batch, m, k}, batchStrides(la, m, k, pad), offset, T(77));
  View<T, 3> b({batch, bRows, bCols},
               batchStrides(lb, bRows, bCols, pad + 1, broadcastB), offset + 1,
               T(77));
  View<T, 3> c({batch, m, n}, batchStrides(lc, m, n, pad + 2), offset + 2,
               T(-55));
  a.randomize(rng);
  b.randomize(rng);
  c.randomize(rng);
  if (!accumulate) // must be overwritten
    forEachIndex<3>(c.sizes(), [&](const std::array<int64_t, 3> &i) {
      c.at(i) = std::numeric_limits<T>::quiet_NaN();
    });
  checkGemm(a, b, c, transB, accumulate);
}

TYPED_TEST(GemmTest, BatchContiguous) {
  for (int64_t batch : {1, 2, 3})
    for (bool transB : {false, true})
      for (bool acc : {false, true})
        batchCase<TypeParam>(batch, 4, 5, 6, Layout::RowMajor, Layout::RowMajor,
                             Layout::RowMajor, transB, acc);
}

TYPED_TEST(GemmTest, BatchStridesAndLayouts) {
  ThreadsGuard guard;
  for (int threads : {1, 2, 3}) {
    loom_set_num_threads(threads);
    SCOPED_TRACE(std::to_string(threads) + " threads");
    for (int64_t batch : {1, 2, 5})
      for (bool transB : {false, true})
        for (bool acc : {false, true}) {
          batchCase<TypeParam>(batch, 5, 3, 4, Layout::Padded, Layout::ColMajor,
                               Layout::RowMajor, transB, acc,
                               /*pad=*/3, false, /*offset=*/2);
          batchCase<TypeParam>(batch, 5, 3, 4, Layout::ColMajor,
                               Layout::Strided, Layout::Strided, transB, acc,
                               /*pad=*/1, false, /*offset=*/1);
          batchCase<TypeParam>(batch, 3, 4, 5, Layout::RowMajor,
                               Layout::RowMajor, Layout::Padded, transB, acc,
                               /*pad=*/0, /*broadcastB=*/true);
        }
  }
}

TYPED_TEST(GemmTest, BatchEmptyMatrices) {
  for (bool transB : {false, true})
    for (bool acc : {false, true}) {
      batchCase<TypeParam>(3, 0, 4, 5, Layout::RowMajor, Layout::RowMajor,
                           Layout::RowMajor, transB, acc);
      batchCase<TypeParam>(3, 4, 0, 5, Layout::RowMajor, Layout::RowMajor,
                           Layout::RowMajor, transB, acc);
      // k = 0: zero without accumulate, unchanged with it.
      batchCase<TypeParam>(3, 4, 5, 0, Layout::RowMajor, Layout::RowMajor,
                           Layout::Strided, transB, acc);
    }
}

// A batch of 0 must not run (and write) the GEMM of batch element 0.
TYPED_TEST(GemmTest, BatchOfZeroIsANoOp) {
  for (bool acc : {false, true})
    batchCase<TypeParam>(0, 3, 4, 5, Layout::RowMajor, Layout::RowMajor,
                         Layout::RowMajor, false, acc);
}

//===----------------------------------------------------------------------===//
// loom_parallel_for
//===----------------------------------------------------------------------===//

struct Coverage {
  int64_t n;
  std::vector<std::atomic<int>> hits;
  std::atomic<int> calls{0};
  std::atomic<int> badRanges{0};
  explicit Coverage(int64_t n) : n(n), hits(static_cast<size_t>(n)) {}
};

void coverTask(void *ctx, int64_t lo, int64_t hi) {
  auto *c = static_cast<Coverage *>(ctx);
  c->calls.fetch_add(1);
  if (lo < 0 || lo > hi || hi > c->n) {
    c->badRanges.fetch_add(1);
    return;
  }
  for (int64_t i = lo; i < hi; ++i)
    c->hits[i].fetch_add(1);
}

/// Runs loom_parallel_for over [0, n) and checks every index is covered
/// once, by at most `threads` well-formed chunks.
void expectCoveredOnce(int64_t n, int threads) {
  Coverage c(n);
  loom_parallel_for(coverTask, &c, n);
  EXPECT_EQ(c.badRanges.load(), 0) << "n=" << n;
  EXPECT_LE(c.calls.load(), std::max(threads, 1)) << "n=" << n;
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i)
    wrong += c.hits[i].load() != 1;
  EXPECT_EQ(wrong, 0) << "indices not covered exactly once, n=" << n;
}

TEST(ParallelForTest, CoversEachIndexOnce) {
  ThreadsGuard guard;
  for (int threads : {1, 2, 3}) {
    loom_set_num_threads(threads);
    SCOPED_TRACE(std::to_string(threads) + " threads");
    for (int64_t n : {0, 1, 2, 3, 1000})
      expectCoveredOnce(n, threads);
  }
}

TEST(ParallelForTest, NonPositiveThreadCountKeepsThePool) {
  ThreadsGuard guard;
  loom_set_num_threads(2);
  loom_set_num_threads(0);
  loom_set_num_threads(-3);
  Coverage c(1000);
  loom_parallel_for(coverTask, &c, 1000);
  EXPECT_EQ(c.calls.load(), 2);
}

/// x[i] += 1 + x[(i + 1) % n] of the previous round: each round reads what
/// the one before wrote, so rounds must not overlap.
struct Rounds {
  std::vector<int64_t> prev, next;
};

void roundTask(void *ctx, int64_t lo, int64_t hi) {
  auto *r = static_cast<Rounds *>(ctx);
  int64_t n = static_cast<int64_t>(r->prev.size());
  for (int64_t i = lo; i < hi; ++i)
    r->next[i] = r->prev[i] + 1 + r->prev[(i + 1) % n] % 3;
}

TEST(ParallelForTest, SequentialCallsInALoop) {
  // Loops of parallel loops, as programs run them: every call sees the
  // previous one's writes; thread counts change between outer iterations.
  ThreadsGuard guard;
  Rounds parallel, serial;
  for (int outer = 0; outer < 6; ++outer) {
    loom_set_num_threads(1 + outer % 3);
    int64_t n = 1 + outer * 37;
    parallel.prev.assign(n, outer);
    serial.prev.assign(n, outer);
    parallel.next.assign(n, -1);
    serial.next.assign(n, -1);
    for (int round = 0; round < 50; ++round) {
      loom_parallel_for(roundTask, &parallel, n);
      roundTask(&serial, 0, n);
      std::swap(parallel.prev, parallel.next);
      std::swap(serial.prev, serial.next);
      // A small GEMM or two in between, which use the pool too.
      if (round % 10 == 0)
        gemmCase<float>(70, 65, 64, Layout::RowMajor, Layout::RowMajor,
                        Layout::RowMajor, false, false);
    }
    ASSERT_EQ(parallel.prev, serial.prev) << "outer iteration " << outer;
  }
}

/// Outer loop of the nested-calls test: each outer index runs an inner
/// loom_parallel_for over its own Coverage.
struct Nested {
  std::vector<std::unique_ptr<Coverage>> inner;
  int64_t innerN;
};

void nestedTask(void *ctx, int64_t lo, int64_t hi) {
  auto *nested = static_cast<Nested *>(ctx);
  for (int64_t i = lo; i < hi; ++i)
    loom_parallel_for(coverTask, nested->inner[i].get(), nested->innerN);
}

/// In a child process (a deadlock ends in SIGALRM, not a hung suite): a
/// loom_parallel_for called from inside a task runs inline and covers its
/// range once. Exits 0 when all is well.
[[noreturn]] void nestedCallsChild() {
  alarm(5);
  bool ok = true;
  for (int threads : {1, 2, 3})
    for (int64_t outerN : {1, 2, 5, 40}) {
      loom_set_num_threads(threads);
      Nested nested;
      nested.innerN = 17;
      for (int64_t i = 0; i < outerN; ++i)
        nested.inner.push_back(std::make_unique<Coverage>(nested.innerN));
      loom_parallel_for(nestedTask, &nested, outerN);
      for (int64_t i = 0; i < outerN; ++i)
        for (int64_t j = 0; j < nested.innerN; ++j)
          if (nested.inner[i]->hits[j].load() != 1 ||
              nested.inner[i]->badRanges.load() != 0) {
            std::fprintf(stderr,
                         "%d threads, outer n %lld: inner %lld index %lld "
                         "covered %d times\n",
                         threads, (long long)outerN, (long long)i, (long long)j,
                         nested.inner[i]->hits[j].load());
            ok = false;
          }
    }
  std::_Exit(ok ? 0 : 1);
}

TEST(ParallelForTest, NestedCallsRunInline) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(nestedCallsChild(), ::testing::ExitedWithCode(0), "");
}

/// The body of the many-calls tests, run in a child process (a death test)
/// so that a deadlock fails the test instead of hanging the suite:
/// `calls` back-to-back loom_parallel_for calls on `threads` threads with n
/// cycling over [minN, 64]. Exits 0 when every index was covered exactly
/// as often as expected, 1 otherwise; SIGALRM ends it after 5 s.
[[noreturn]] void manyCallsChild(int threads, int minN, int calls) {
  alarm(5);
  loom_set_num_threads(threads);
  Coverage c(64);
  std::vector<int64_t> expected(64, 0);
  for (int call = 0; call < calls; ++call) {
    int64_t n = minN + call % (65 - minN);
    loom_parallel_for(coverTask, &c, n);
    for (int64_t i = 0; i < n; ++i)
      ++expected[i];
  }
  bool ok = c.badRanges.load() == 0;
  for (int64_t i = 0; i < 64; ++i)
    if (c.hits[i].load() != expected[i]) {
      std::fprintf(stderr, "index %lld covered %lld times, expected %lld\n",
                   (long long)i, (long long)c.hits[i].load(),
                   (long long)expected[i]);
      ok = false;
    }
  std::_Exit(ok ? 0 : 1);
}

TEST(ParallelForTest, ManyCallsInARow) {
  // Back-to-back calls with tiny n: no lost wake-up, no deadlock, no chunk
  // lost or run twice. The chunk count stays the same on 3 threads (see
  // ManyCallsWithChangingChunkCounts).
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(manyCallsChild(1, 1, 20000), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(manyCallsChild(2, 1, 20000), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(manyCallsChild(3, 3, 20000), ::testing::ExitedWithCode(0), "");
}

// The chunk count changes from call to call (n from 1 up on 3 threads): a
// worker that finished the last chunk of one job and reads the claim word
// late must neither take a chunk of the next job nor count one.
TEST(ParallelForTest, ManyCallsWithChangingChunkCounts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(manyCallsChild(3, 1, 20000), ::testing::ExitedWithCode(0), "");
}

TEST(ParallelForTest, PassesContext) {
  ThreadsGuard guard;
  loom_set_num_threads(2);
  struct Sum {
    std::atomic<int64_t> total{0};
  } sum;
  loom_parallel_for(
      [](void *ctx, int64_t lo, int64_t hi) {
        int64_t s = 0;
        for (int64_t i = lo; i < hi; ++i)
          s += i;
        static_cast<Sum *>(ctx)->total.fetch_add(s);
      },
      &sum, 1001);
  EXPECT_EQ(sum.total.load(), 1000 * 1001 / 2);
}

//===----------------------------------------------------------------------===//
// memrefCopy
//===----------------------------------------------------------------------===//

TEST(MemrefCopyTest, RankZero) {
  double src[4] = {1, 2, 3, 4}, dst[3] = {-1, -1, -1};
  Desc0<double> s{src, src, 2}, d{dst, dst, 1};
  UnrankedDesc us{0, &s}, ud{0, &d};
  memrefCopy(sizeof(double), &us, &ud);
  EXPECT_EQ(dst[0], -1);
  EXPECT_EQ(dst[1], 3);
  EXPECT_EQ(dst[2], -1);
}

TEST(MemrefCopyTest, StridedToContiguous) {
  // float [3, 4] with strides [9, 2] from offset 5 into a dense [3, 4] at
  // offset 1.
  std::vector<float> src(5 + 2 * 9 + 3 * 2 + 1);
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = static_cast<float>(i);
  std::vector<float> dst(1 + 12 + 1, -1.0f);
  Desc<float, 2> s{src.data(), src.data(), 5, {3, 4}, {9, 2}};
  Desc<float, 2> d{dst.data(), dst.data(), 1, {3, 4}, {4, 1}};
  UnrankedDesc us{2, &s}, ud{2, &d};
  memrefCopy(sizeof(float), &us, &ud);
  EXPECT_EQ(dst[0], -1.0f);
  EXPECT_EQ(dst[13], -1.0f);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(dst[1 + i * 4 + j], src[5 + i * 9 + j * 2])
          << "i=" << i << " j=" << j;
}

TEST(MemrefCopyTest, ContiguousToTransposedBytes) {
  // One-byte elements, [2, 3] dense into a transposed [2, 3] view.
  uint8_t src[6] = {1, 2, 3, 4, 5, 6};
  uint8_t dst[8];
  std::memset(dst, 0xee, sizeof(dst));
  Desc<uint8_t, 2> s{src, src, 0, {2, 3}, {3, 1}};
  Desc<uint8_t, 2> d{dst, dst, 2, {2, 3}, {1, 2}};
  UnrankedDesc us{2, &s}, ud{2, &d};
  memrefCopy(1, &us, &ud);
  const uint8_t expected[8] = {0xee, 0xee, 1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(dst[i], expected[i]) << "byte " << i;
}

TEST(MemrefCopyTest, EmptyExtentCopiesNothing) {
  std::vector<double> src(20, 1.0), dst(20, -1.0);
  for (auto sizes : {std::array<int64_t, 2>{0, 4}, {3, 0}, {0, 0}}) {
    Desc<double, 2> s{src.data(), src.data(), 0, {sizes[0], sizes[1]}, {4, 1}};
    Desc<double, 2> d{dst.data(), dst.data(), 0, {sizes[0], sizes[1]}, {1, 5}};
    UnrankedDesc us{2, &s}, ud{2, &d};
    memrefCopy(sizeof(double), &us, &ud);
    for (double v : dst)
      EXPECT_EQ(v, -1.0);
  }
}

//===----------------------------------------------------------------------===//
// Buffer allocation
//===----------------------------------------------------------------------===//

bool alignedTo(const void *p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

TEST(AllocTest, AlignedToCacheLines) {
  std::vector<void *> blocks;
  for (size_t size :
       {size_t(0), size_t(1), size_t(7), size_t(63), size_t(64), size_t(65),
        size_t(1000), size_t(4096), size_t(100003), size_t(1) << 20}) {
    void *p = _mlir_memref_to_llvm_alloc(size);
    ASSERT_NE(p, nullptr) << size;
    EXPECT_TRUE(alignedTo(p, 64)) << size;
    std::memset(p, 0x5a, size);
    blocks.push_back(p);
  }
  for (void *p : blocks)
    _mlir_memref_to_llvm_free(p);
}

TEST(AllocTest, LargerAlignmentHonoured) {
  // Sizes of 64-byte classes no other test uses, so that every block is a
  // fresh one (see ReuseKeepsRequestedAlignment for cached ones).
  std::vector<void *> blocks;
  size_t sizeClass = 503;
  for (size_t alignment : {size_t(8192), size_t(65536)})
    for (size_t scale : {size_t(1), size_t(3), size_t(200)}) {
      size_t size = 64 * (sizeClass++ * scale) + 1;
      void *p = _mlir_memref_to_llvm_aligned_alloc(alignment, size);
      ASSERT_NE(p, nullptr);
      EXPECT_TRUE(alignedTo(p, alignment))
          << "alignment " << alignment << ", size " << size;
      std::memset(p, 1, size);
      blocks.push_back(p);
    }
  for (void *p : blocks)
    _mlir_memref_to_llvm_free(p);
}

// Alignments between 64 and 4096 are honoured too.
TEST(AllocTest, MidAlignmentHonoured) {
  std::vector<void *> blocks;
  for (size_t alignment :
       {size_t(128), size_t(256), size_t(1024), size_t(4096)})
    for (size_t size : {size_t(64), size_t(200), size_t(5000)})
      for (int i = 0; i < 4; ++i) {
        void *p = _mlir_memref_to_llvm_aligned_alloc(alignment, size);
        ASSERT_NE(p, nullptr);
        EXPECT_TRUE(alignedTo(p, alignment))
            << "alignment " << alignment << ", size " << size;
        blocks.push_back(p);
      }
  for (void *p : blocks)
    _mlir_memref_to_llvm_free(p);
}

// A cached block is handed out again only if it has the requested
// alignment.
TEST(AllocTest, ReuseKeepsRequestedAlignment) {
  const size_t size = 12345 * 64;
  void *p = nullptr;
  std::vector<void *> keep;
  // A block that is not 8192-aligned.
  for (int i = 0; i < 16 && (!p || alignedTo(p, 8192)); ++i) {
    if (p)
      keep.push_back(p);
    p = _mlir_memref_to_llvm_alloc(size);
  }
  ASSERT_FALSE(alignedTo(p, 8192));
  _mlir_memref_to_llvm_free(p);
  void *q = _mlir_memref_to_llvm_aligned_alloc(8192, size);
  EXPECT_TRUE(alignedTo(q, 8192));
  _mlir_memref_to_llvm_free(q);
  for (void *b : keep)
    _mlir_memref_to_llvm_free(b);
}

TEST(AllocTest, FreedBlockReused) {
  // An unusual size that no other test allocates.
  const size_t size = 777777;
  void *p = _mlir_memref_to_llvm_alloc(size);
  ASSERT_NE(p, nullptr);
  _mlir_memref_to_llvm_free(p);
  void *q = _mlir_memref_to_llvm_alloc(size);
  EXPECT_EQ(q, p);
  // Sizes round up to 64 bytes: a size in the same 64-byte class reuses it.
  _mlir_memref_to_llvm_free(q);
  void *r = _mlir_memref_to_llvm_aligned_alloc(16, size - 1);
  EXPECT_EQ(r, p);
  // While it is live, another allocation of the size gets another block.
  void *s = _mlir_memref_to_llvm_alloc(size);
  EXPECT_NE(s, r);
  _mlir_memref_to_llvm_free(r);
  _mlir_memref_to_llvm_free(s);
}

TEST(AllocTest, FreeNull) { _mlir_memref_to_llvm_free(nullptr); }

TEST(AllocTest, ManySizesDistinctAndUsable) {
  // Live blocks never overlap: each is filled with its own byte and read
  // back after all are allocated. Twice, the second time from the cache.
  std::vector<size_t> sizes;
  for (size_t s = 1; s < (size_t(1) << 21); s = s * 3 + 1)
    for (size_t d : {size_t(0), size_t(1), size_t(63)})
      sizes.push_back(s + d);
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<uint8_t *> blocks;
    for (size_t i = 0; i < sizes.size(); ++i) {
      auto *p = static_cast<uint8_t *>(_mlir_memref_to_llvm_alloc(sizes[i]));
      ASSERT_NE(p, nullptr);
      EXPECT_TRUE(alignedTo(p, 64));
      std::memset(p, static_cast<int>(i & 0xff), sizes[i]);
      blocks.push_back(p);
    }
    for (size_t i = 0; i < sizes.size(); ++i) {
      size_t bad = 0;
      for (size_t j = 0; j < sizes[i]; ++j)
        bad += blocks[i][j] != static_cast<uint8_t>(i & 0xff);
      EXPECT_EQ(bad, 0u) << "block of " << sizes[i] << " bytes";
    }
    for (uint8_t *p : blocks)
      _mlir_memref_to_llvm_free(p);
  }
}

} // namespace
