// Naive bf16 mixture-of-experts layer, the moe package of the emulated
// device's tests (kgen.moe, dialect/KgenOps.td): six SIMT kernels in the
// order of kgen-decompose-moe's ops, each as plain as the op's definition,
// straight from global memory:
//   route     one thread per token: softmax in f32, top-k by repeated scans
//             (ties to the lower index), renormalised -> expert_ids, weights
//   offsets   one thread: copies per expert, prefix sum -> expert_offsets
//   permute   one thread: rows of x grouped by expert in (token, slot) order
//             -> permuted, positions
//   gate_up   one thread per (row, i): silu(x w_gate) * (x w_up), f32 sums,
//             rounded to bf16 -> h
//   down      one thread per (row, n): h w_down, f32 sum, bf16 -> expert_out
//   combine   one thread per (token, n): sum_s weights * expert_out in slot
//             order, f32, bf16 -> y
// T = 9 tokens, H = 24, I = 40, E = 5 experts, top-2, renormalize.
// Runs on the emulated device (docs/emulated-device.md).

#if KGEN_EMULATE
#include <kgen/emulate/Device.h>
#endif
#include <cuda_bf16.h>

constexpr int T = 9, H = 24, I = 40, E = 5, K = 2;
typedef __nv_bfloat16 bf16;

extern "C" __global__ void kgen_naive_moe_route(const float *logits,
                                                int *expert_ids,
                                                float *weights) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= T)
    return;
  const float *l = logits + t * E;
  float p[E];
  float mx = -1.0f / 0.0f;
  for (int e = 0; e < E; ++e)
    mx = fmaxf(mx, l[e]);
  float sum = 0.0f;
  for (int e = 0; e < E; ++e) {
    p[e] = expf(l[e] - mx);
    sum += p[e];
  }
  for (int e = 0; e < E; ++e)
    p[e] /= sum;
  float total = 0.0f;
  for (int s = 0; s < K; ++s) {
    int best = -1;
    float bestP = -1.0f / 0.0f;
    for (int e = 0; e < E; ++e) {
      bool taken = false;
      for (int s2 = 0; s2 < s; ++s2)
        taken = taken || expert_ids[t * K + s2] == e;
      if (!taken && (p[e] > bestP || best < 0)) {
        best = e;
        bestP = p[e];
      }
    }
    expert_ids[t * K + s] = best;
    weights[t * K + s] = bestP;
    total += bestP;
  }
  for (int s = 0; s < K; ++s)
    weights[t * K + s] /= total;
}

extern "C" __global__ void kgen_naive_moe_offsets(const int *expert_ids,
                                                  int *expert_offsets) {
  if (blockIdx.x != 0 || threadIdx.x != 0)
    return;
  int count[E] = {};
  for (int c = 0; c < T * K; ++c)
    ++count[expert_ids[c]];
  expert_offsets[0] = 0;
  for (int e = 0; e < E; ++e)
    expert_offsets[e + 1] = expert_offsets[e] + count[e];
}

extern "C" __global__ void kgen_naive_moe_permute(const bf16 *x,
                                                  const int *expert_ids,
                                                  const int *expert_offsets,
                                                  bf16 *permuted,
                                                  int *positions) {
  if (blockIdx.x != 0 || threadIdx.x != 0)
    return;
  int cursor[E];
  for (int e = 0; e < E; ++e)
    cursor[e] = expert_offsets[e];
  for (int c = 0; c < T * K; ++c) { // (token, slot) order
    const int row = cursor[expert_ids[c]]++;
    positions[c] = row;
    for (int n = 0; n < H; ++n)
      permuted[row * H + n] = x[(c / K) * H + n];
  }
}

/// The expert whose group holds row `r`.
__device__ int expertOf(const int *expert_offsets, int r) {
  int e = 0;
  while (e + 1 < E && r >= expert_offsets[e + 1])
    ++e;
  return e;
}

extern "C" __global__ void kgen_naive_moe_gate_up(const bf16 *permuted,
                                                  const bf16 *w_gate,
                                                  const bf16 *w_up,
                                                  const int *expert_offsets,
                                                  bf16 *h) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x; // (r, i)
  if (idx >= T * K * I)
    return;
  const int r = idx / I, i = idx % I;
  const int e = expertOf(expert_offsets, r);
  float g = 0.0f, u = 0.0f;
  for (int k = 0; k < H; ++k) {
    const float a = __bfloat162float(permuted[r * H + k]);
    g += a * __bfloat162float(w_gate[(e * H + k) * I + i]);
    u += a * __bfloat162float(w_up[(e * H + k) * I + i]);
  }
  const float act = g / (1.0f + expf(-g));
  h[r * I + i] = __float2bfloat16_rn(act * u);
}

extern "C" __global__ void kgen_naive_moe_down(const bf16 *h,
                                               const bf16 *w_down,
                                               const int *expert_offsets,
                                               bf16 *expert_out) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x; // (r, n)
  if (idx >= T * K * H)
    return;
  const int r = idx / H, n = idx % H;
  const int e = expertOf(expert_offsets, r);
  float acc = 0.0f;
  for (int i = 0; i < I; ++i)
    acc += __bfloat162float(h[r * I + i]) *
           __bfloat162float(w_down[(e * I + i) * H + n]);
  expert_out[r * H + n] = __float2bfloat16_rn(acc);
}

extern "C" __global__ void kgen_naive_moe_combine(const bf16 *expert_out,
                                                  const int *positions,
                                                  const float *weights,
                                                  bf16 *y) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x; // (t, n)
  if (idx >= T * H)
    return;
  const int t = idx / H, n = idx % H;
  float acc = 0.0f;
  for (int s = 0; s < K; ++s)
    acc += weights[t * K + s] *
           __bfloat162float(expert_out[positions[t * K + s] * H + n]);
  y[t * H + n] = __float2bfloat16_rn(acc);
}
