//===- HostOps.h - What the host schedule runs without a kernel -*- C++ -*-===//
//
// One answer for two places: -loom-cuda-map-to-gpu leaves these ops on the
// host, and the host schedule turns them into its own instructions: GEMMs
// into cuBLASLt calls, constant fills into memsets, contiguous copies into
// memcpys. GEMMs are described in row-major terms of the logical operands
// A [m,k], B [k,n] and C [m,n] (batched: a leading batch dimension on each).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_CUDA_HOSTOPS_H
#define LOOM_TARGET_CUDA_HOSTOPS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include <optional>

namespace loom::cuda {

/// One operand of a GEMM: a strided matrix (or batch of matrices) in
/// elements.
struct GemmMatrix {
  mlir::Value memref;
  /// Rows and columns of the logical matrix.
  int64_t rows = 0, cols = 0;
  /// Row-major (column stride 1, `ld` between rows) or column-major (row
  /// stride 1, `ld` between columns).
  bool rowMajor = true;
  int64_t ld = 0;
  /// Elements between consecutive matrices of a batch.
  int64_t batchStride = 0;
  /// The view's offset in elements from its buffer's start.
  int64_t offset = 0;
};

struct LibraryGemm {
  GemmMatrix a, b, c;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  mlir::Type abType, cType;
};

/// The GEMM `op` computes, when cuBLASLt can run it: linalg.matmul,
/// batch_matmul and their transpose_b forms on memrefs of static layout
/// whose matrices have a unit stride in one dimension, C row-major, with
/// A, B, C all f32, all f64, all f16 or all bf16, or f16/bf16 A and B with
/// an f32 C.
std::optional<LibraryGemm> matchLibraryGemm(mlir::Operation *op);

/// A constant fill the device's memset does: `pattern` repeated, of
/// `patternBytes` 1, 2 or 4 bytes.
struct HostFill {
  mlir::Value memref;
  uint32_t pattern = 0;
  int patternBytes = 4;
};

/// `op` as a memset: a linalg.fill of a constant whose bit pattern repeats
/// in 1, 2 or 4 bytes, into a contiguous static buffer.
std::optional<HostFill> matchHostFill(mlir::Operation *op);

/// Whether `op` is a memref.copy between contiguous static buffers.
bool isHostCopy(mlir::Operation *op);

/// Whether `type` is static and contiguous row-major.
bool isContiguous(mlir::Type type);

} // namespace loom::cuda

#endif // LOOM_TARGET_CUDA_HOSTOPS_H
