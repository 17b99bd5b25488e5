// Naive f32 variable-length attention over a paged KV cache, the varlen
// paged attention package of the emulated device's tests (kgen.attention
// with cu_seqlens and block_table, dialect/KgenOps.td; FlashAttention's
// varlen API with a block table, vLLM's chunked prefill): one thread per
// (token, query head), straight from global memory. The token's sequence b
// is found in cu_seqlens_q; cu_seqlens_k only counts its keys, L = min(
// max(cu_k[b + 1], s) - s, M * P) for s = max(cu_k[b], 0); key j < L is row
// j % P of page block_table[b, j / P] of K and V [N, Hkv, P, D]; causal
// bottom-right within the sequence (query i at p = i + L - Sq sees keys
// j <= p); FlashAttention's one-pass online softmax in f32 -> out
// [Tq, Hq, D] and lse [Hq, Tq] (natural log; a row that sees no key is 0,
// its lse -inf).
// Tq = 37, B = 4 sequences, Hq = 4, Hkv = 2, D = 32, pages of P = 4 keys,
// M = 6 per sequence, a pool of N = 24.
// Runs on the emulated device (docs/emulated-device.md).

#if KGEN_EMULATE
#include <kgen/emulate/Device.h>
#endif

constexpr int TQ = 37, B = 4, HQ = 4, HKV = 2, D = 32, P = 4, M = 6;
constexpr float SCALE = 0.17677669529663687f; // 1 / sqrt(D)

/// The last sequence whose queries hold token `t` (the reference's rule;
/// sequence 0 for a token of none, whose row is then out of its range).
__device__ int lastSequenceOf(const int *cu_q, int t) {
  for (int b = B - 1; b > 0; --b)
    if (t >= cu_q[b] && t < cu_q[b + 1])
      return b;
  return 0;
}

/// Row j of sequence b's keys (or values) at head hk: [D] floats.
__device__ const float *keyRow(const float *pool, const int *bt, int b, int j,
                               int hk) {
  const int page = bt[b * M + j / P];
  return pool + ((page * HKV + hk) * P + j % P) * D;
}

/// One pass over the visible keys [0, end) of sequence b for query row
/// `qr`: the online softmax (FlashAttention's running max and rescaled
/// sums) into o[0, D) and the log-sum-exp.
__device__ float attendOnline(const float *qr, const float *k, const float *v,
                              const int *bt, int b, int hk, int end,
                              float *o) {
  float mx = -1.0f / 0.0f, sum = 0.0f;
  float acc[D] = {};
  for (int j = 0; j < end; ++j) {
    const float *kr = keyRow(k, bt, b, j, hk), *vr = keyRow(v, bt, b, j, hk);
    float dot = 0.0f;
    for (int d = 0; d < D; ++d)
      dot += qr[d] * kr[d];
    const float s = SCALE * dot, next = fmaxf(mx, s);
    const float rescale = expf(mx - next), w = expf(s - next);
    sum = sum * rescale + w;
    for (int d = 0; d < D; ++d)
      acc[d] = acc[d] * rescale + w * vr[d];
    mx = next;
  }
  for (int d = 0; d < D; ++d)
    o[d] = end > 0 ? acc[d] / sum : 0.0f;
  return end > 0 ? mx + logf(sum) : -1.0f / 0.0f;
}

extern "C" __global__ void kgen_naive_attention_varlen_paged(
    const float *q, const float *k, const float *v, const int *cu_q,
    const int *cu_k, const int *bt, float *out, float *lse) {
  const int token = blockIdx.x * blockDim.x + threadIdx.x; // t * HQ + h
  if (token >= TQ * HQ)
    return;
  const int t = token / HQ, h = token % HQ;
  const int b = lastSequenceOf(cu_q, t);
  const int ks = cu_k[b] > 0 ? cu_k[b] : 0;
  const int ke = cu_k[b + 1] > ks ? cu_k[b + 1] : ks;
  const int skv = ke - ks < M * P ? ke - ks : M * P;
  const int p = (t - cu_q[b]) + skv - (cu_q[b + 1] - cu_q[b]);
  const int visible = p + 1 < skv ? p + 1 : skv; // keys [0, visible)
  lse[h * TQ + t] = attendOnline(q + token * D, k, v, bt, b, h / (HQ / HKV),
                                 visible, out + token * D);
}
