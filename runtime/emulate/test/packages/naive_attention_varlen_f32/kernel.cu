// Naive f32 variable-length attention, the varlen attention package of the
// emulated device's tests (kgen.attention with cu_seqlens, dialect/
// KgenOps.td; FlashAttention's varlen layout): one thread per (token,
// query head), straight from global memory. The token's sequence b is
// found in cu_seqlens_q; its keys are rows [cu_k[b], cu_k[b + 1]) of K and
// V; causal bottom-right within the sequence (query i at p = i + Skv_b -
// Sq_b sees keys j <= p); a two-pass softmax in f32 -> out [Tq, Hq, D] and
// lse [Hq, Tq] (natural log; a row that sees no key is 0, its lse -inf).
// Tq = 37, Tk = 53, B = 4 sequences, Hq = 4, Hkv = 2, D = 32.
// Runs on the emulated device (docs/emulated-device.md).

#if KGEN_EMULATE
#include <kgen/emulate/Device.h>
#endif

constexpr int TQ = 37, B = 4, HQ = 4, HKV = 2, D = 32;
constexpr float SCALE = 0.17677669529663687f; // 1 / sqrt(D)

/// The sequence whose queries hold token `t`.
__device__ int sequenceOf(const int *cu_q, int t) {
  int b = 0;
  while (b + 1 < B && t >= cu_q[b + 1])
    ++b;
  return b;
}

extern "C" __global__ void kgen_naive_attention_varlen(
    const float *q, const float *k, const float *v, const int *cu_q,
    const int *cu_k, float *out, float *lse) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x; // t * HQ + h
  if (row >= TQ * HQ)
    return;
  const int t = row / HQ, h = row % HQ, hk = h / (HQ / HKV);
  const int b = sequenceOf(cu_q, t);
  const int i = t - cu_q[b], sq = cu_q[b + 1] - cu_q[b];
  const int k0 = cu_k[b], skv = cu_k[b + 1] - cu_k[b];
  const int p = i + skv - sq;
  const int end = p + 1 < skv ? p + 1 : skv; // keys [0, end) visible
  const float *qr = q + row * D;
  float *o = out + row * D;
  float mx = -1.0f / 0.0f;
  for (int j = 0; j < end; ++j) {
    const float *kr = k + ((k0 + j) * HKV + hk) * D;
    float s = 0.0f;
    for (int d = 0; d < D; ++d)
      s += qr[d] * kr[d];
    mx = fmaxf(mx, SCALE * s);
  }
  float acc[D] = {};
  float sum = 0.0f;
  for (int j = 0; j < end; ++j) {
    const float *kr = k + ((k0 + j) * HKV + hk) * D;
    const float *vr = v + ((k0 + j) * HKV + hk) * D;
    float s = 0.0f;
    for (int d = 0; d < D; ++d)
      s += qr[d] * kr[d];
    const float w = expf(SCALE * s - mx);
    sum += w;
    for (int d = 0; d < D; ++d)
      acc[d] += w * vr[d];
  }
  for (int d = 0; d < D; ++d)
    o[d] = end > 0 ? acc[d] / sum : 0.0f;
  lse[h * TQ + t] = end > 0 ? mx + logf(sum) : -1.0f / 0.0f;
}
