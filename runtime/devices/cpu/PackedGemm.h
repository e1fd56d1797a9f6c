//===- PackedGemm.h - f32 GEMM against weights packed once ------*- C++ -*-===//
//
// A model's weights never change while its program is loaded, yet a BLAS
// call repacks its B operand on every call, from memory it must stream in
// each time. Here B is packed once, on first use, into the layout the
// AVX-512 micro-kernel reads, and kept until the device is told that the
// weights changed (loom_device_buffer_updated); A and C are used in place.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_DEVICES_CPU_PACKEDGEMM_H
#define LOOM_RUNTIME_DEVICES_CPU_PACKEDGEMM_H

#include <cstddef>
#include <cstdint>

namespace loom::rt::packed {

/// Whether this CPU runs the packed kernel (AVX-512F) and it is not turned
/// off with LOOM_PACKED_GEMM=0.
bool available();

/// B packed for the kernel: `k` x `n` read through strides (element (p, j)
/// at b[p * strideK + j * strideN]).
struct PackedB;

/// The packing of B for these strides, made on first use and cached under
/// B's address until forgetRange() covers it. Thread-safe.
const PackedB *packedWeights(const float *b, int64_t k, int64_t n,
                             int64_t strideK, int64_t strideN);

/// C[m, n] (+)= A[m, k] * B for row-major A (row stride lda) and C (row
/// stride ldc); without `accumulate` C is overwritten.
void gemm(int64_t m, const float *a, int64_t lda, const PackedB *b, float *c,
          int64_t ldc, bool accumulate);

/// `bytes` or more, rounded up to whole 2 MiB pages (`bytes` is updated),
/// 2 MiB-aligned and advised onto transparent huge pages: large buffers on
/// 4 KiB pages cost a page walk every 4 KiB. Null when huge pages are off
/// (LOOM_HUGE_PAGES=0) or memory is short; free with std::free.
void *allocateHugePages(size_t &bytes);

/// Drops the packings of weights inside [begin, begin + bytes): their
/// contents changed, or their memory is about to be freed and its address
/// may be reused. The CPU device's parameter-update hook
/// (loom_device_buffer_updated) is the one caller outside tests.
void forgetRange(const void *begin, size_t bytes);

} // namespace loom::rt::packed

#endif // LOOM_RUNTIME_DEVICES_CPU_PACKEDGEMM_H
