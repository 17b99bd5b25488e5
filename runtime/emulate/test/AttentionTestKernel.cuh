//===- AttentionTestKernel.cuh - attention kernels in the emitted form -*- CUDA -*-===//
//
// Hand-written sm_80 attention kernels in the form kgen's CUDA emitter
// prints for a kgen.attention (docs/attention.md, "Tile-level form"): the Q
// box by load_box, the cp.async pipeline of Gemm.cuh / Pipeline.cuh over
// the key tiles, kgen/block/Attention.cuh's steps, the store; and the
// split-KV combine kernel. The emitter hard-codes the shapes; here they are
// a parameter (AttnShape) so one template covers the test's cases.
// Compiled by EmulateAttentionTest.cpp on the emulated device, and by nvcc
// for the register report (see the test's file comment).
//
// Grid: x = row blocks (per query head without pack_gqa, over the packed
// G * Sq rows with it), y = b * Hkv + hk, z = the split (split-KV).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_TEST_ATTENTION_TEST_KERNEL_CUH
#define KGEN_TEST_ATTENTION_TEST_KERNEL_CUH

#include "kgen/block/Attention.cuh"

struct AttnShape {
  long B, Hkv, G, Sq, Skv, D;
  float scale, softcap;
  int window;
  int splits;    ///< key-range splits (grid z); > 1: f32 partials
  int pack_gqa;  ///< rows of a block may span query heads
};

template <class T, class TOut, int BM, int BN, int Dp, int WarpsM, int S,
          bool Causal, bool HasSoftcap, bool HasWindow>
__global__ void __launch_bounds__(32 * WarpsM, 1)
attn_kernel(const T *__restrict__ q /* (B, Hkv, G*Sq, D) */,
            const T *__restrict__ k /* (B, Hkv, Skv, D) */,
            const T *__restrict__ v /* (B, Hkv, Skv, D) */,
            const int *__restrict__ kv_lens /* (B) optional */,
            TOut *__restrict__ out /* ([splits,] B, Hkv, G*Sq, D) */,
            float *__restrict__ lse /* ([splits,] B, Hkv, G*Sq) optional */,
            AttnShape sh) {
  constexpr int kThreads = 32 * WarpsM;
  extern __shared__ __align__(128) unsigned char smem[];
  const long bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
  const long b = by / sh.Hkv, hk = by % sh.Hkv;
  const long rowsTotal = sh.G * sh.Sq;
  long r0, rhi, head0;
  if (sh.pack_gqa) {
    r0 = bx * BM;
    rhi = rowsTotal;
    head0 = -1;
  } else {
    const long perHead = (sh.Sq + BM - 1) / BM;
    const long g = bx / perHead;
    head0 = g * sh.Sq;
    r0 = head0 + (bx % perHead) * BM;
    rhi = head0 + sh.Sq;
  }
  long L = sh.Skv;
  if (kv_lens) {
    L = kv_lens[b];
    L = L < 0 ? 0 : L > sh.Skv ? sh.Skv : L;
  }
  // Key tiles [lo, hi): the causal and window limits of the block's rows
  // (when they stay in one head), then this block's split.
  long lo = 0, hi = (L + BN - 1) / BN;
  if (head0 >= 0) {
    const long pFirst = r0 - head0 + L - sh.Sq;
    const long pLast = kgen::block::lmin(r0 + BM, rhi) - 1 - head0 + L - sh.Sq;
    if (Causal)
      hi = kgen::block::lmin(hi, pLast < 0 ? 0 : pLast / BN + 1);
    if (HasWindow && pFirst - sh.window + 1 > 0)
      lo = (pFirst - sh.window + 1) / BN;
  }
  if (sh.splits > 1) {
    const long per = (kgen::block::lmax(hi - lo, 0) + sh.splits - 1) / sh.splits;
    lo = lo + bz * per;
    hi = kgen::block::lmin(hi, lo + per);
  }
  const long plane = b * sh.Hkv + hk;
  const long split = sh.splits > 1 ? bz : 0;
  const T *qp = q + plane * rowsTotal * sh.D;
  const T *kp = k + plane * sh.Skv * sh.D;
  const T *vp = v + plane * sh.Skv * sh.D;
  TOut *op = out + (split * sh.B * sh.Hkv + plane) * rowsTotal * sh.D;
  float *lp = lse ? lse + (split * sh.B * sh.Hkv + plane) * rowsTotal : nullptr;

  T *sq = reinterpret_cast<T *>(smem + 0); // (1, BM, Dp)
  T *sk = reinterpret_cast<T *>(
      smem + kgen::block::attention_k_offset<T>(BM, Dp)); // (S, BN, Dp)
  T *sv = reinterpret_cast<T *>(
      smem + kgen::block::attention_v_offset<T>(BM, BN, Dp, S)); // (S, BN, Dp)
  kgen::block::AttentionScores<BM, BN, WarpsM> s;          // (BM, BN) f32
  kgen::block::AttentionAccumulator<BM, Dp, WarpsM> acc;   // (BM, Dp) f32
  kgen::block::AttentionRowStats<BM, WarpsM> stats;        // max, sum per row
  kgen::block::load_box<BM, Dp, kThreads>(sq, qp, sh.D, r0, 0, rhi, sh.D);
  acc.zero();
  stats.init();
  // Key tiles [lo, hi) through S stages: loads run S - 1 tiles ahead
  // (PrintCpAsyncPipeline.cpp's form).
  kgen::block::PipelineState<S> load{}, read{};
  for (long i = 0; i < S - 1; ++i) {
    if (lo + i < hi) {
      const long kt = lo + i, stage = load.index;
      kgen::block::load_box<BN, Dp, kThreads>(sk + stage * BN * Dp, kp, sh.D,
                                              kt * BN, 0, L, sh.D);
      kgen::block::load_box<BN, Dp, kThreads>(sv + stage * BN * Dp, vp, sh.D,
                                              kt * BN, 0, L, sh.D);
      ++load;
    }
    kgen::block::commit_stage(); // possibly empty: one group per stage
  }
  for (long kt = lo; kt < hi; ++kt, ++read) {
    const long ahead = kt + S - 1;
    if (ahead < hi) {
      const long stage = load.index;
      kgen::block::load_box<BN, Dp, kThreads>(sk + stage * BN * Dp, kp, sh.D,
                                              ahead * BN, 0, L, sh.D);
      kgen::block::load_box<BN, Dp, kThreads>(sv + stage * BN * Dp, vp, sh.D,
                                              ahead * BN, 0, L, sh.D);
      ++load;
    }
    kgen::block::commit_stage(); // possibly empty: keeps the group count uniform
    kgen::block::wait_stage<S - 1>(); // tile kt has landed
    {
      const long stage = read.index;
      s.template qk<Dp>(sq, sk + stage * BN * Dp);
      // A sliding window W is a left window of W - 1 keys.
      kgen::block::online_softmax<Causal, HasSoftcap, HasWindow, false,
                                  false>(s, stats, acc, r0, kt * BN, L, sh.Sq,
                                         sh.scale, sh.softcap, sh.window - 1,
                                         0, nullptr, 0);
      acc.template pv<BN>(s, sv + stage * BN * Dp);
    }
    __syncthreads(); // the stage may be refilled next
  }
  acc.store(stats, op, sh.D, r0, 0, rhi, sh.D, lp);
}

/// The split-KV combine: block x covers rows [x * Rows, (x + 1) * Rows) of
/// plane y = b * Hkv + hk.
template <class TOut, int Rows, int Cols, int Threads>
__global__ void __launch_bounds__(Threads)
attn_combine_kernel(const float *__restrict__ o_partial /* (S, B, Hkv, G*Sq, D) */,
                    const float *__restrict__ lse_partial /* (S, B, Hkv, G*Sq) */,
                    TOut *__restrict__ out, float *__restrict__ lse,
                    AttnShape sh) {
  const long rowsTotal = sh.G * sh.Sq;
  const long plane = blockIdx.y;
  const long planes = sh.B * sh.Hkv;
  kgen::block::attention_combine<Rows, Cols, Threads>(
      o_partial + plane * rowsTotal * sh.D, planes * rowsTotal * sh.D,
      lse_partial + plane * rowsTotal, planes * rowsTotal, sh.splits, sh.D,
      long(blockIdx.x) * Rows, rowsTotal, sh.D,
      out + plane * rowsTotal * sh.D, lse ? lse + plane * rowsTotal : nullptr);
}

#endif // KGEN_TEST_ATTENTION_TEST_KERNEL_CUH
