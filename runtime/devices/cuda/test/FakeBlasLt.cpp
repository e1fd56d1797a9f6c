//===- FakeBlasLt.cpp - A host stand-in for cuBLASLt's matmul -------------===//
//
// Part of the fake driver library (FakeDriver.cpp): the cuBLASLt functions
// the CUDA device calls, computing column-major D = alpha op(A) op(B) +
// beta C on the host in double precision, after checking that every
// matrix lies in device memory. The GEMMs the device plans are thereby
// checked for their numbers, not only their calls.
//
//===----------------------------------------------------------------------===//

#include "FakeDriver.h"

#include <cstdint>
#include <cstring>
#include <cublasLt.h>
#include <new>
#include <vector>

namespace {

struct Desc {
  cublasComputeType_t compute;
  cudaDataType_t scale;
  cublasOperation_t transA = CUBLAS_OP_N, transB = CUBLAS_OP_N;
};

struct Layout {
  cudaDataType_t type;
  uint64_t rows, cols;
  int64_t ld;
  int32_t batch = 1;
  int64_t stride = 0;
};

size_t sizeOf(cudaDataType_t t) {
  return t == CUDA_R_64F ? 8 : t == CUDA_R_32F ? 4 : 2;
}

double load(const void *base, cudaDataType_t t, int64_t index) {
  const char *p = static_cast<const char *>(base) + index * int64_t(sizeOf(t));
  if (t == CUDA_R_64F) {
    double v;
    memcpy(&v, p, 8);
    return v;
  }
  if (t == CUDA_R_32F) {
    float v;
    memcpy(&v, p, 4);
    return v;
  }
  uint16_t h;
  memcpy(&h, p, 2);
  if (t == CUDA_R_16BF) {
    uint32_t bits = uint32_t(h) << 16;
    float v;
    memcpy(&v, &bits, 4);
    return v;
  }
  // IEEE half.
  int sign = h >> 15, exp = (h >> 10) & 31, frac = h & 1023;
  double v = exp == 0    ? frac * (1.0 / (1 << 24))
             : exp == 31 ? (frac ? __builtin_nan("") : __builtin_inf())
                         : (1 + frac / 1024.0) * __builtin_ldexp(1.0, exp - 15);
  return sign ? -v : v;
}

void store(void *base, cudaDataType_t t, int64_t index, double v) {
  char *p = static_cast<char *>(base) + index * int64_t(sizeOf(t));
  if (t == CUDA_R_64F) {
    memcpy(p, &v, 8);
  } else if (t == CUDA_R_32F) {
    float f = float(v);
    memcpy(p, &f, 4);
  } else if (t == CUDA_R_16BF) {
    float f = float(v);
    uint32_t bits;
    memcpy(&bits, &f, 4);
    uint16_t h = uint16_t((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
    memcpy(p, &h, 2);
  } else {
    // Half by way of float's rounding is close enough for a test double.
    float f = float(v);
    uint32_t bits;
    memcpy(&bits, &f, 4);
    uint16_t sign = uint16_t((bits >> 16) & 0x8000);
    int exp = int((bits >> 23) & 255) - 127 + 15;
    uint32_t frac = bits & 0x7fffff;
    uint16_t h = exp <= 0    ? sign
                 : exp >= 31 ? uint16_t(sign | 0x7c00)
                             : uint16_t(sign | (exp << 10) | (frac >> 13));
    memcpy(p, &h, 2);
  }
}

/// The bytes a layout's matrices span.
size_t span(const Layout &l) {
  if (!l.rows || !l.cols)
    return 0;
  uint64_t last = (l.cols - 1) * uint64_t(l.ld) + l.rows;
  last += uint64_t(l.batch - 1) * uint64_t(l.stride);
  return size_t(last) * sizeOf(l.type);
}

} // namespace

extern "C" {

cublasStatus_t CUBLASWINAPI cublasLtCreate(cublasLtHandle_t *handle) {
  *handle = reinterpret_cast<cublasLtHandle_t>(new int(0));
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t CUBLASWINAPI cublasLtDestroy(cublasLtHandle_t handle) {
  delete reinterpret_cast<int *>(handle);
  return CUBLAS_STATUS_SUCCESS;
}
size_t CUBLASWINAPI cublasLtGetVersion(void) { return 130000; }
const char *CUBLASWINAPI cublasLtGetStatusString(cublasStatus_t status) {
  return status == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS"
                                         : "CUBLAS_STATUS_INVALID_VALUE";
}

cublasStatus_t CUBLASWINAPI
cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *desc,
                         cublasComputeType_t compute, cudaDataType_t scale) {
  auto *d = new Desc();
  d->compute = compute;
  d->scale = scale;
  *desc = reinterpret_cast<cublasLtMatmulDesc_t>(d);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t CUBLASWINAPI cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d) {
  delete reinterpret_cast<Desc *>(d);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t CUBLASWINAPI cublasLtMatmulDescSetAttribute(
    cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
    const void *buf, size_t size) {
  auto *d = reinterpret_cast<Desc *>(desc);
  if (size != sizeof(cublasOperation_t))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (attr == CUBLASLT_MATMUL_DESC_TRANSA)
    memcpy(&d->transA, buf, size);
  else if (attr == CUBLASLT_MATMUL_DESC_TRANSB)
    memcpy(&d->transB, buf, size);
  else
    return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI
cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *layout, cudaDataType type,
                           uint64_t rows, uint64_t cols, int64_t ld) {
  if (ld < int64_t(rows) || ld < 1)
    return CUBLAS_STATUS_INVALID_VALUE;
  *layout = reinterpret_cast<cublasLtMatrixLayout_t>(
      new Layout{type, rows, cols, ld});
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t CUBLASWINAPI
cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  delete reinterpret_cast<Layout *>(layout);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutSetAttribute(
    cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attr,
    const void *buf, size_t size) {
  auto *l = reinterpret_cast<Layout *>(layout);
  if (attr == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT && size == 4)
    memcpy(&l->batch, buf, 4);
  else if (attr == CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET && size == 8)
    memcpy(&l->stride, buf, 8);
  else
    return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI
cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref) {
  *pref = reinterpret_cast<cublasLtMatmulPreference_t>(new uint64_t(0));
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t CUBLASWINAPI
cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  delete reinterpret_cast<uint64_t *>(pref);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceSetAttribute(
    cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr,
    const void *buf, size_t size) {
  if (attr != CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES || size != 8)
    return CUBLAS_STATUS_INVALID_VALUE;
  memcpy(reinterpret_cast<uint64_t *>(pref), buf, 8);
  return CUBLAS_STATUS_SUCCESS;
}

/// One algorithm for any consistent problem.
cublasStatus_t CUBLASWINAPI cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
    cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c,
    cublasLtMatrixLayout_t d, cublasLtMatmulPreference_t, int requested,
    cublasLtMatmulHeuristicResult_t results[], int *count) {
  auto *op = reinterpret_cast<Desc *>(desc);
  auto *la = reinterpret_cast<Layout *>(a);
  auto *lb = reinterpret_cast<Layout *>(b);
  auto *lc = reinterpret_cast<Layout *>(c);
  uint64_t m = op->transA == CUBLAS_OP_N ? la->rows : la->cols;
  uint64_t k = op->transA == CUBLAS_OP_N ? la->cols : la->rows;
  uint64_t kb = op->transB == CUBLAS_OP_N ? lb->rows : lb->cols;
  uint64_t n = op->transB == CUBLAS_OP_N ? lb->cols : lb->rows;
  *count = 0;
  if (requested < 1 || c != d || k != kb || lc->rows != m || lc->cols != n ||
      la->batch != lc->batch || lb->batch != lc->batch)
    return CUBLAS_STATUS_SUCCESS;
  memset(&results[0], 0, sizeof(results[0]));
  results[0].state = CUBLAS_STATUS_SUCCESS;
  *count = 1;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmul(
    cublasLtHandle_t, cublasLtMatmulDesc_t desc, const void *alpha,
    const void *A, cublasLtMatrixLayout_t a, const void *B,
    cublasLtMatrixLayout_t b, const void *beta, const void *C,
    cublasLtMatrixLayout_t c, void *D, cublasLtMatrixLayout_t d,
    const cublasLtMatmulAlgo_t *algo, void *, size_t, cudaStream_t stream) {
  auto *op = reinterpret_cast<Desc *>(desc);
  auto *la = reinterpret_cast<Layout *>(a);
  auto *lb = reinterpret_cast<Layout *>(b);
  auto *lc = reinterpret_cast<Layout *>(c);
  if (!algo || c != d || C != D)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!fake::inDeviceMemory(A, span(*la), "cublasLtMatmul A") ||
      !fake::inDeviceMemory(B, span(*lb), "cublasLtMatmul B") ||
      !fake::inDeviceMemory(C, span(*lc), "cublasLtMatmul C"))
    return CUBLAS_STATUS_INVALID_VALUE;
  double al, be;
  if (op->scale == CUDA_R_64F) {
    memcpy(&al, alpha, 8);
    memcpy(&be, beta, 8);
  } else {
    float f;
    memcpy(&f, alpha, 4);
    al = f;
    memcpy(&f, beta, 4);
    be = f;
  }
  // The descriptors are copied: the caller may destroy them.
  Desc o = *op;
  Layout lA = *la, lB = *lb, lC = *lc;
  CUresult queued =
      fake::enqueue(reinterpret_cast<CUstream>(stream), [=]() -> CUresult {
        const Desc *op = &o;
        const Layout *la = &lA, *lb = &lB, *lc = &lC;
        bool ta = op->transA == CUBLAS_OP_T, tb = op->transB == CUBLAS_OP_T;
        uint64_t m = lc->rows, n = lc->cols, k = ta ? la->rows : la->cols;
        fake::log("gemm m %llu n %llu k %llu batch %d trans %c%c beta %g",
                  (unsigned long long)m, (unsigned long long)n,
                  (unsigned long long)k, lc->batch, ta ? 'T' : 'N',
                  tb ? 'T' : 'N', be);
        std::vector<double> out(m * n);
        for (int32_t p = 0; p < lc->batch; ++p) {
          int64_t oa = p * la->stride, ob = p * lb->stride, oc = p * lc->stride;
          for (uint64_t j = 0; j < n; ++j)
            for (uint64_t i = 0; i < m; ++i) {
              double sum = 0;
              for (uint64_t q = 0; q < k; ++q) {
                int64_t ia =
                    ta ? int64_t(q + i * la->ld) : int64_t(i + q * la->ld);
                int64_t ib =
                    tb ? int64_t(j + q * lb->ld) : int64_t(q + j * lb->ld);
                sum += load(A, la->type, oa + ia) * load(B, lb->type, ob + ib);
              }
              int64_t ic = oc + int64_t(i + j * lc->ld);
              double prior = be != 0 ? be * load(C, lc->type, ic) : 0;
              out[i + j * m] = al * sum + prior;
            }
          for (uint64_t j = 0; j < n; ++j)
            for (uint64_t i = 0; i < m; ++i)
              store(D, lc->type, oc + int64_t(i + j * lc->ld), out[i + j * m]);
        }
        return CUDA_SUCCESS;
      });
  return queued == CUDA_SUCCESS ? CUBLAS_STATUS_SUCCESS
                                : CUBLAS_STATUS_EXECUTION_FAILED;
}

} // extern "C"
