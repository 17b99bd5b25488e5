// Naive float32 attention, the attention package of the runtime's tests
// (kgen.attention, dialect/KgenOps.td):
//   out = softmax(mask(softcap(scale Q K^T))) V, and its log-sum-exp,
// with Q and out in the packed-GQA view [B, Hkv, G * Sq, D] (the bytes of
// [B, Hq, Sq, D]), K and V [B, Hkv, Skv, D], lse [B, Hq, Sq], kv_lens [B];
// causal bottom-right (query i at p = i + L - Sq sees keys j <= p, j < L),
// softcap 20. One thread computes one query row in three passes (max, sum,
// weighted sum of V) straight from global memory.
//
// Launch (see manifest.json): block (64, 1, 1), grid (1, 1, 1). Runs on
// the emulated device too (docs/emulated-device.md).

#if KGEN_EMULATE
#include <kgen/emulate/Device.h>
#endif

constexpr int B = 2, Hq = 4, Hkv = 2, G = Hq / Hkv, Sq = 5, Skv = 37, D = 32;
constexpr float kSoftcap = 20.0f;
constexpr int kRows = B * Hq * Sq;

extern "C" __global__ void kgen_naive_attention_f32(
    const float *q, const float *k, const float *v, const int *kv_lens,
    float *out, float *lse, float scale) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x; // (b, h, i) flat
  if (row >= kRows)
    return;
  const int i = row % Sq, h = row / Sq % Hq, b = row / (Sq * Hq);
  const int hk = h / G;
  const int len = kv_lens[b];
  const int L = len < 0 ? 0 : len > Skv ? Skv : len;
  const int p = i + L - Sq; // bottom-right position
  const int end = p + 1 < 0 ? 0 : p + 1 > L ? L : p + 1; // keys [0, end)
  const float *qRow = q + row * D;
  const float *kHead = k + (b * Hkv + hk) * Skv * D;
  const float *vHead = v + (b * Hkv + hk) * Skv * D;
  float *oRow = out + row * D;
  if (end == 0) {
    for (int d = 0; d < D; ++d)
      oRow[d] = 0.0f;
    lse[row] = -1.0f / 0.0f;
    return;
  }
  auto logit = [&](int j) {
    float dot = 0.0f;
    for (int d = 0; d < D; ++d)
      dot += qRow[d] * kHead[j * D + d];
    return kSoftcap * tanhf(scale * dot / kSoftcap);
  };
  float mx = logit(0);
  for (int j = 1; j < end; ++j)
    mx = fmaxf(mx, logit(j));
  float sum = 0.0f;
  for (int j = 0; j < end; ++j)
    sum += expf(logit(j) - mx);
  for (int d = 0; d < D; ++d) {
    float acc = 0.0f;
    for (int j = 0; j < end; ++j)
      acc += expf(logit(j) - mx) * vHead[j * D + d];
    oRow[d] = acc / sum;
  }
  lse[row] = mx + logf(sum);
}
