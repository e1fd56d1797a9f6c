/*===- TrainProgram.c - Hand-written training steps -----------------------===*\
|*                                                                            *|
|* Stand-ins for what `loomc --train` will emit (docs/Training.md), so that   *|
|* the runtime's training loop, checkpoints and resharding are tested        *|
|* without the compiler. The artifacts come from                              *|
|* test/runtime/Inputs/make_train_artifact.py (mesh dp=D, group 0 = [dp]).   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "loom/runtime/Collectives.h"
#include "loom/runtime/CommBackend.h"
#include "loom/runtime/Runtime.h"
#include <math.h>
#include <stdint.h>

enum { DP = 0, F = 4, MAX_LOCAL = 64 };

/* "train": linear regression pred = x . w + b with the mean squared error
 * over the global batch B, and one AdamW step (weight decay 0) whose state
 * for w is sharded over dp (ZeRO-1): each rank updates its slice of w and
 * all-gathers the result. The per-example gradient terms are all-gathered
 * and summed in global example order, so that every rank count computes
 * bit-identical values.
 *
 * Parameters: cfg int64[3] = (F, B/D, D) (frozen); w [4]; b [1];
 * adamw.m:w, adamw.v:w [4] split over dp (local [4/D]); adamw.m:b,
 * adamw.v:b [1] (init zeros). Inputs: x [B, 4] and y [B] split over dp;
 * the scalars lr, bias_correction1, bias_correction2, loss_scale. Outputs:
 * loss, grad_norm, then the updates w.new, b.new, m_w.new, v_w.new,
 * m_b.new, v_b.new. */
void loom_entry_train(void **buffers) {
  const int64_t *cfg = (const int64_t *)buffers[0];
  const float *w = (const float *)buffers[1];
  const float *b = (const float *)buffers[2];
  const float *mw = (const float *)buffers[3];
  const float *vw = (const float *)buffers[4];
  const float *mb = (const float *)buffers[5];
  const float *vb = (const float *)buffers[6];
  const float *x = (const float *)buffers[7];
  const float *y = (const float *)buffers[8];
  float lr = *(const float *)buffers[9];
  float bc1 = *(const float *)buffers[10];
  float bc2 = *(const float *)buffers[11];
  float scale = *(const float *)buffers[12];
  float *loss = (float *)buffers[13];
  float *norm = (float *)buffers[14];
  float *wNew = (float *)buffers[15];
  float *bNew = (float *)buffers[16];
  float *mwNew = (float *)buffers[17];
  float *vwNew = (float *)buffers[18];
  float *mbNew = (float *)buffers[19];
  float *vbNew = (float *)buffers[20];
  int local = (int)cfg[1], ranks = (int)cfg[2];
  int global = local * ranks;
  const float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;

  /* Per example: err * x[j] (j < F), err, err * err; scaled by the loss
   * scale as a real mixed-precision step would be. */
  _Alignas(64) float terms[MAX_LOCAL * (F + 2)];
  _Alignas(64) float all[MAX_LOCAL * 4 * (F + 2)];
  for (int r = 0; r < local; ++r) {
    float err = *b;
    for (int j = 0; j < F; ++j)
      err += x[r * F + j] * w[j];
    err -= y[r];
    for (int j = 0; j < F; ++j)
      terms[r * (F + 2) + j] = err * x[r * F + j] * scale;
    terms[r * (F + 2) + F] = err * scale;
    terms[r * (F + 2) + F + 1] = err * err;
  }
  loom_coll_all_gather(terms, all, 1, local * (F + 2) * sizeof(float), DP);

  float grad[F + 1] = {0};
  float sum = 0;
  for (int r = 0; r < global; ++r) {
    for (int j = 0; j <= F; ++j)
      grad[j] += all[r * (F + 2) + j];
    sum += all[r * (F + 2) + F + 1];
  }
  float squares = 0;
  for (int j = 0; j <= F; ++j) {
    grad[j] = 2.0f * grad[j] / (float)global / scale;
    squares += grad[j] * grad[j];
  }
  *loss = sum / (float)global;
  *norm = sqrtf(squares);

  /* AdamW on this rank's slice of w, then the whole w from every slice. */
  int slice = F / ranks, first = (int)loom_coll_axis_index(DP) * slice;
  _Alignas(64) float wSlice[F];
  for (int k = 0; k < slice; ++k) {
    float g = grad[first + k];
    float m = beta1 * mw[k] + (1 - beta1) * g;
    float v = beta2 * vw[k] + (1 - beta2) * g * g;
    mwNew[k] = m;
    vwNew[k] = v;
    wSlice[k] = w[first + k] - lr * (m / bc1) / (sqrtf(v / bc2) + eps);
  }
  loom_coll_all_gather(wSlice, wNew, 1, slice * sizeof(float), DP);
  float g = grad[F];
  *mbNew = beta1 * *mb + (1 - beta1) * g;
  *vbNew = beta2 * *vb + (1 - beta2) * g * g;
  *bNew = *b - lr * (*mbNew / bc1) / (sqrtf(*vbNew / bc2) + eps);
}

/* "tokens": checks what a token file feeds. Parameters: cfg int64[2] =
 * (B/D, T) (frozen); p [1], whose update p.new = p + 1 counts the applied
 * steps. Inputs: ids, labels int32 [B, T] split over dp; lr. Outputs: loss
 * = the mean token id of the global batch; grad_norm = the number of
 * positions whose label is not the next position's id (0 when the labels
 * are the following tokens); p.new. */
void loom_entry_tokens(void **buffers) {
  const int64_t *cfg = (const int64_t *)buffers[0];
  const float *p = (const float *)buffers[1];
  const int32_t *ids = (const int32_t *)buffers[2];
  const int32_t *labels = (const int32_t *)buffers[3];
  float *loss = (float *)buffers[5];
  float *norm = (float *)buffers[6];
  float *pNew = (float *)buffers[7];
  int64_t local = cfg[0], length = cfg[1];
  _Alignas(64) int64_t mine[2] = {0, 0};
  _Alignas(64) int64_t total[2];
  for (int64_t r = 0; r < local; ++r)
    for (int64_t t = 0; t < length; ++t) {
      mine[0] += ids[r * length + t];
      if (t + 1 < length && labels[r * length + t] != ids[r * length + t + 1])
        ++mine[1];
    }
  loom_coll_all_reduce(mine, total, 2, LOOM_DTYPE_INT64, LOOM_REDUCE_SUM, DP);
  int64_t count = local * length;
  _Alignas(64) int64_t counts[1] = {count};
  _Alignas(64) int64_t all[1];
  loom_coll_all_reduce(counts, all, 1, LOOM_DTYPE_INT64, LOOM_REDUCE_SUM, DP);
  *loss = (float)((double)total[0] / (double)all[0]);
  *norm = (float)total[1];
  *pNew = *p + 1.0f;
}

/* "predict": the inference side of "train". Parameters: w [4], b [1].
 * Input x [8, 4]; output y [8] = x . w + b. */
void loom_entry_predict(void **buffers) {
  const float *w = (const float *)buffers[0];
  const float *b = (const float *)buffers[1];
  const float *x = (const float *)buffers[2];
  float *y = (float *)buffers[3];
  for (int r = 0; r < 8; ++r) {
    float sum = *b;
    for (int j = 0; j < F; ++j)
      sum += x[r * F + j] * w[j];
    y[r] = sum;
  }
}
