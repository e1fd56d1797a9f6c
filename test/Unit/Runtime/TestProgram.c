/*===- TestProgram.c - Hand-written stand-ins for compiled programs -------===*\
|*                                                                            *|
|* The runtime tests run these instead of loomc output, so that they need no  *|
|* compiler. Like real programs, they take the buffer array of the entry ABI  *|
|* (parameters, inputs, outputs) and import a symbol from libloom_runtime     *|
|* that the loader must have made global.                                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "loom/runtime/Kernels.h"
#include "loom/runtime/Runtime.h"
#include <stdint.h>
#include <string.h>

static int allAligned(void **buffers, int count) {
  for (int i = 0; i < count; ++i)
    if ((uintptr_t)buffers[i] % LOOM_ALIGNMENT != 0)
      return 0;
  return 1;
}

/* "affine": parameter p float32[3]; input x float32[2,3]; outputs
 * y float32[2,3] = x * p + 1 (p broadcast over rows) and count int64[], the
 * number of positive elements of y, or -1 if a buffer was misaligned. */
void loom_entry(void **buffers) {
  const float *p = (const float *)buffers[0];
  const float *x = (const float *)buffers[1];
  float *y = (float *)buffers[2];
  int64_t *count = (int64_t *)buffers[3];
  int64_t positive = 0;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      float value = x[i * 3 + j] * p[j] + 1.0f;
      y[i * 3 + j] = value;
      positive += value > 0.0f;
    }
  }
  /* Imported from the runtime: resolves only if it is in global scope. */
  if (loom_dtype_size(LOOM_DTYPE_INT64) != sizeof(int64_t))
    positive = -2;
  *count = allAligned(buffers, 4) ? positive : -1;
}

/* What loomc exports beside each entry (LOOM_SIGNATURE_SUFFIX): the tensors
 * it was compiled for, which the loader checks the manifest against. */
const char loom_entry_signature[] =
    "{\"version\":1,"
    "\"parameters\":[{\"name\":\"p\",\"dtype\":\"float32\",\"shape\":[3],"
    "\"nbytes\":12}],"
    "\"inputs\":[{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[2,3],"
    "\"nbytes\":24}],"
    "\"outputs\":[{\"name\":\"y\",\"dtype\":\"float32\",\"shape\":[2,3],"
    "\"nbytes\":24},"
    "{\"name\":\"count\",\"dtype\":\"int64\",\"shape\":[],\"nbytes\":8}]}";

/* "big": the affine signature, with a second output big int64[256] =
 * 0, 1, ..., 255 (large enough to exceed a 1 KiB file-size limit). */
void loom_entry_big(void **buffers) {
  const float *p = (const float *)buffers[0];
  const float *x = (const float *)buffers[1];
  float *y = (float *)buffers[2];
  int64_t *big = (int64_t *)buffers[3];
  for (int i = 0; i < 6; ++i)
    y[i] = x[i] * p[i % 3] + 1.0f;
  for (int i = 0; i < 256; ++i)
    big[i] = i;
}

/* "scalar": no parameters; inputs s float64[] and e float32[0]; outputs
 * r float64[] = 2 * s and empty int32[0,3]. */
void loom_entry_scalar(void **buffers) {
  const double *s = (const double *)buffers[0];
  double *r = (double *)buffers[2];
  *r = 2.0 * *s;
}

/* "dtypes": copies each of its seven inputs to the matching output:
 * bool[4], int8[4], uint8[4], int16[2], int32[2], float16[2], bfloat16[2]. */
void loom_entry_dtypes(void **buffers) {
  static const size_t sizes[7] = {4, 4, 4, 4, 8, 4, 4};
  for (int i = 0; i < 7; ++i)
    memcpy(buffers[7 + i], buffers[i], sizes[i]);
}

/* MLIR's descriptor of a rank-2 f32 memref. */
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} Memref2;

/* "gemm": parameter w float32[64,4]; input x float32[2,64]; output
 * y float32[2,4] = x w, through the GEMM for a constant B (runtime ABI 2),
 * which the CPU device may serve from weights packed on first use. */
void loom_entry_gemm(void **buffers) {
  Memref2 w = {buffers[0], buffers[0], 0, {64, 4}, {4, 1}};
  Memref2 x = {buffers[1], buffers[1], 0, {2, 64}, {64, 1}};
  Memref2 y = {buffers[2], buffers[2], 0, {2, 4}, {4, 1}};
  _mlir_ciface_loom_kernel_gemm_const_b_f32(&x, &w, &y, 0, 0);
}
