//===- Gemm.h - A schedule's GEMMs as cuBLASLt matmuls ----------*- C++ -*-===//
//
// cuBLASLt is column-major; the schedule's GEMMs have a row-major C. A
// row-major C is the column-major C^T, and C^T = B^T A^T: each operand is
// passed as the column-major matrix its storage already is (a row-major
// M is the column-major M^T), transposed where that is the wrong one. The
// descriptors and the algorithm are chosen once, when the executable loads.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_DEVICES_CUDA_GEMM_H
#define LOOM_RUNTIME_DEVICES_CUDA_GEMM_H

#include "devices/cuda/CudaApi.h"
#include "devices/cuda/Schedule.h"

namespace loom::rt::cuda {

class GemmPlan {
public:
  GemmPlan() = default;
  GemmPlan(const GemmPlan &) = delete;
  GemmPlan &operator=(const GemmPlan &) = delete;
  ~GemmPlan();

  /// Describes `g` to cuBLASLt and picks an algorithm that fits
  /// `workspaceBytes`.
  bool prepare(const BlasLt *lt, cublasLtHandle_t handle, const Gemm &g,
               size_t workspaceBytes, std::string &error);

  /// C = A B (+ C) on `stream`; the addresses are the matrices' first
  /// elements.
  bool run(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace,
           size_t workspaceBytes, CUstream stream, std::string &error) const;

  /// Nothing to multiply (m, n or k is 0).
  bool empty() const { return !desc; }

private:
  const BlasLt *lt = nullptr;
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layoutA = nullptr, layoutB = nullptr,
                         layoutC = nullptr;
  cublasLtMatmulAlgo_t algo{};
  bool doubleScale = false;
  float beta32 = 0;
  double beta64 = 0;
};

} // namespace loom::rt::cuda

#endif // LOOM_RUNTIME_DEVICES_CUDA_GEMM_H
