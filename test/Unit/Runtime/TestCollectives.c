/*===- TestCollectives.c - Hand-written distributed programs -------------===*\
|*                                                                            *|
|* Stand-ins for what loomc will emit for a mesh: the same SPMD program on    *|
|* every rank, calling the runtime's loom_coll_* symbols. The mesh is         *|
|* (dp, tp) with groups 0 = [tp], 1 = [dp], 2 = [dp, tp]; the artifacts come  *|
|* from test/runtime/Inputs/make_dist_artifact.py, which also computes the    *|
|* expected outputs with numpy.                                               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "loom/runtime/Collectives.h"
#include "loom/runtime/CommBackend.h"
#include "loom/runtime/Runtime.h"
#include <stdint.h>
#include <string.h>

enum { TP = 0, DP = 1, ALL = 2 };

/* c[m][n] = a[m][k] * b[k][n] */
static void matmul(const float *a, const float *b, float *c, int m, int k,
                   int n) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float sum = 0;
      for (int l = 0; l < k; ++l)
        sum += a[i * k + l] * b[l * n + j];
      c[i * n + j] = sum;
    }
}

/* "dist", a tensor-parallel MLP plus every collective. Parameters: cfg
 * int64[2] = (D, T), the mesh; w1 [4, 3T] split by columns over tp (local
 * [4, 3]); w2 [3T, 4T] split by rows over tp (local [3, 4T]). Input x
 * [4D, 4] split by rows over dp (local [4, 4]). Outputs, with H = x w1 and
 * Z = H w2:
 *   h  = H      [4D, 3T] rows over dp     (all_gather over tp)
 *   z  = Z      [4D, 4T] rows over dp     (all_reduce over tp)
 *   zs = Z      [4D, 4T] rows dp, cols tp (reduce_scatter over tp)
 *   za = Z      [4D, 4T] rows over dp,tp  (all_to_all over tp)
 *   zt = Z      [4D, 4T] rows dp, cols tp (take_shard over tp)
 *   xb          [4D, 4]  rows over dp: x[0:4] on every dp block (broadcast)
 *   idx int64   [D, T]   100 d + 10 t + r (axis indices)
 *   red int32   [2]      mean and max over all ranks of r
 *   fm float64  [1]      mean over all ranks of r + 0.5 */
void loom_entry_dist(void **buffers) {
  const int64_t *cfg = (const int64_t *)buffers[0];
  const float *w1 = (const float *)buffers[1];
  const float *w2 = (const float *)buffers[2];
  const float *x = (const float *)buffers[3];
  float *h = (float *)buffers[4], *z = (float *)buffers[5];
  float *zs = (float *)buffers[6], *za = (float *)buffers[7];
  float *zt = (float *)buffers[8], *xb = (float *)buffers[9];
  int64_t *idx = (int64_t *)buffers[10];
  int32_t *red = (int32_t *)buffers[11];
  double *fm = (double *)buffers[12];
  int T = (int)cfg[1];

  _Alignas(64) float hl[4 * 3];
  _Alignas(64) float zp[4 * 4 * 16];
  matmul(x, w1, hl, 4, 4, 3);
  loom_coll_all_gather(hl, h, 4, 3 * sizeof(float), TP);
  matmul(hl, w2, zp, 4, 3, 4 * T);
  loom_coll_all_reduce(zp, z, 16 * T, LOOM_DTYPE_FLOAT32, LOOM_REDUCE_SUM, TP);
  loom_coll_reduce_scatter(zp, zs, 4, 4, LOOM_DTYPE_FLOAT32, LOOM_REDUCE_SUM,
                           TP);
  loom_coll_all_to_all(zs, za, 1, (4 / T) * 4 * sizeof(float), 4 / T,
                       4 * sizeof(float), TP);
  loom_coll_take_shard(z, zt, 4, 4 * sizeof(float), TP);
  loom_coll_broadcast(x, xb, 16 * sizeof(float), 0, DP);

  int64_t r = loom_coll_axis_index(ALL);
  idx[0] = 100 * loom_coll_axis_index(DP) + 10 * loom_coll_axis_index(TP) + r;
  _Alignas(64) int32_t mine[16] = {(int32_t)r};
  _Alignas(64) int32_t result[16];
  loom_coll_all_reduce(mine, result, 1, LOOM_DTYPE_INT32, LOOM_REDUCE_MEAN,
                       ALL);
  red[0] = result[0];
  loom_coll_all_reduce(mine, result, 1, LOOM_DTYPE_INT32, LOOM_REDUCE_MAX, ALL);
  red[1] = result[0];
  _Alignas(64) double half[8] = {(double)r + 0.5};
  loom_coll_all_reduce(half, fm, 1, LOOM_DTYPE_FLOAT64, LOOM_REDUCE_MEAN, ALL);
}

/* "dtypes": the reductions of every MPI type mapping. Inputs [N, 4] split
 * by rows over dp,tp (local [1, 4]): f16, bf16, i8, u16, u64, b (bool), f8
 * (float8e4m3fn). Outputs [4]: f16 sum, bf16 max, i8 sum, u16 min, u64 sum,
 * bool sum (or) and bool mean (and); and f8 all-gathered, [N, 4]. */
void loom_entry_dtypes(void **buffers) {
  loom_coll_all_reduce(buffers[0], buffers[7], 4, LOOM_DTYPE_FLOAT16,
                       LOOM_REDUCE_SUM, ALL);
  loom_coll_all_reduce(buffers[1], buffers[8], 4, LOOM_DTYPE_BFLOAT16,
                       LOOM_REDUCE_MAX, ALL);
  loom_coll_all_reduce(buffers[2], buffers[9], 4, LOOM_DTYPE_INT8,
                       LOOM_REDUCE_SUM, ALL);
  loom_coll_all_reduce(buffers[3], buffers[10], 4, LOOM_DTYPE_UINT16,
                       LOOM_REDUCE_MIN, ALL);
  loom_coll_all_reduce(buffers[4], buffers[11], 4, LOOM_DTYPE_UINT64,
                       LOOM_REDUCE_SUM, ALL);
  loom_coll_all_reduce(buffers[5], buffers[12], 4, LOOM_DTYPE_BOOL,
                       LOOM_REDUCE_SUM, ALL);
  loom_coll_all_reduce(buffers[5], buffers[13], 4, LOOM_DTYPE_BOOL,
                       LOOM_REDUCE_MEAN, ALL);
  loom_coll_all_gather(buffers[6], buffers[14], 1, 4, ALL);
}

/* "allreduce": cfg int64[1] = n; x float32[n] -> y float32[n], the sum over
 * group 0 (the benchmark's program). */
void loom_entry_allreduce(void **buffers) {
  const int64_t *cfg = (const int64_t *)buffers[0];
  loom_coll_all_reduce(buffers[1], buffers[2], cfg[0], LOOM_DTYPE_FLOAT32,
                       LOOM_REDUCE_SUM, 0);
}
