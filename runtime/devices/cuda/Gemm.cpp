//===- Gemm.cpp - A schedule's GEMMs as cuBLASLt matmuls ------------------===//

#include "devices/cuda/Gemm.h"

using namespace loom::rt::cuda;

namespace {

cudaDataType_t dataType(ElementType t) {
  switch (t) {
  case ElementType::F64:
    return CUDA_R_64F;
  case ElementType::F16:
    return CUDA_R_16F;
  case ElementType::BF16:
    return CUDA_R_16BF;
  case ElementType::F32:
    break;
  }
  return CUDA_R_32F;
}

} // namespace

GemmPlan::~GemmPlan() {
  if (!lt)
    return;
  if (layoutA)
    lt->cublasLtMatrixLayoutDestroy(layoutA);
  if (layoutB)
    lt->cublasLtMatrixLayoutDestroy(layoutB);
  if (layoutC)
    lt->cublasLtMatrixLayoutDestroy(layoutC);
  if (desc)
    lt->cublasLtMatmulDescDestroy(desc);
}

bool GemmPlan::prepare(const BlasLt *blas, cublasLtHandle_t h, const Gemm &g,
                       size_t workspaceBytes, std::string &error) {
  lt = blas;
  handle = h;
  if (g.m == 0 || g.n == 0 || g.k == 0)
    return true;
  if (g.batch > INT32_MAX) {
    error = "a batch of more than 2^31 GEMMs";
    return false;
  }
  auto check = [&](cublasStatus_t status, const char *call) {
    if (status == CUBLAS_STATUS_SUCCESS)
      return true;
    error = std::string(call) + ": " + lt->describe(status);
    return false;
  };
  doubleScale = g.typeAB == ElementType::F64;
  beta32 = float(g.beta);
  beta64 = double(g.beta);
  cublasComputeType_t compute =
      doubleScale ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  cudaDataType_t scale = doubleScale ? CUDA_R_64F : CUDA_R_32F;
  if (!check(lt->cublasLtMatmulDescCreate(&desc, compute, scale),
             "cublasLtMatmulDescCreate"))
    return false;
  // cuBLASLt's A is our B and its B our A (C^T = B^T A^T).
  cublasOperation_t opA = g.b.rowMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
  cublasOperation_t opB = g.a.rowMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
  if (!check(lt->cublasLtMatmulDescSetAttribute(
                 desc, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof(opA)),
             "cublasLtMatmulDescSetAttribute") ||
      !check(lt->cublasLtMatmulDescSetAttribute(
                 desc, CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof(opB)),
             "cublasLtMatmulDescSetAttribute"))
    return false;
  // The stored column-major matrix: rows x cols of the storage.
  auto layout = [&](cublasLtMatrixLayout_t &out, ElementType type,
                    uint64_t rows, uint64_t cols, int64_t ld, int64_t stride) {
    if (!check(lt->cublasLtMatrixLayoutCreate(&out, dataType(type), rows, cols,
                                              ld),
               "cublasLtMatrixLayoutCreate"))
      return false;
    if (g.batch == 1)
      return true;
    int32_t count = int32_t(g.batch);
    return check(lt->cublasLtMatrixLayoutSetAttribute(
                     out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                     sizeof(count)),
                 "cublasLtMatrixLayoutSetAttribute") &&
           check(lt->cublasLtMatrixLayoutSetAttribute(
                     out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                     sizeof(stride)),
                 "cublasLtMatrixLayoutSetAttribute");
  };
  // B [k, n]: row-major storage is B^T [n, k]; column-major is B [k, n].
  uint64_t n = uint64_t(g.n), m = uint64_t(g.m), k = uint64_t(g.k);
  if (!layout(layoutA, g.typeAB, g.b.rowMajor ? n : k, g.b.rowMajor ? k : n,
              g.b.ld, g.b.stride) ||
      !layout(layoutB, g.typeAB, g.a.rowMajor ? k : m, g.a.rowMajor ? m : k,
              g.a.ld, g.a.stride) ||
      !layout(layoutC, g.typeC, n, m, g.c.ld, g.c.stride))
    return false;
  cublasLtMatmulPreference_t preference = nullptr;
  if (!check(lt->cublasLtMatmulPreferenceCreate(&preference),
             "cublasLtMatmulPreferenceCreate"))
    return false;
  uint64_t limit = workspaceBytes;
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  bool ok = check(lt->cublasLtMatmulPreferenceSetAttribute(
                      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                      &limit, sizeof(limit)),
                  "cublasLtMatmulPreferenceSetAttribute") &&
            check(lt->cublasLtMatmulAlgoGetHeuristic(
                      handle, desc, layoutA, layoutB, layoutC, layoutC,
                      preference, 1, &result, &found),
                  "cublasLtMatmulAlgoGetHeuristic");
  lt->cublasLtMatmulPreferenceDestroy(preference);
  if (!ok)
    return false;
  if (found < 1) {
    error = "cuBLASLt has no algorithm for it";
    return false;
  }
  algo = result.algo;
  return true;
}

bool GemmPlan::run(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c,
                   CUdeviceptr workspace, size_t workspaceBytes,
                   CUstream stream, std::string &error) const {
  static const float one32 = 1;
  static const double one64 = 1;
  const void *alpha = doubleScale ? static_cast<const void *>(&one64)
                                  : static_cast<const void *>(&one32);
  const void *beta = doubleScale ? static_cast<const void *>(&beta64)
                                 : static_cast<const void *>(&beta32);
  cublasStatus_t status = lt->cublasLtMatmul(
      handle, desc, alpha, reinterpret_cast<const void *>(b), layoutA,
      reinterpret_cast<const void *>(a), layoutB, beta,
      reinterpret_cast<const void *>(c), layoutC, reinterpret_cast<void *>(c),
      layoutC, &algo, reinterpret_cast<void *>(workspace), workspaceBytes,
      stream);
  if (status == CUBLAS_STATUS_SUCCESS)
    return true;
  error = "cublasLtMatmul: " + lt->describe(status);
  return false;
}
