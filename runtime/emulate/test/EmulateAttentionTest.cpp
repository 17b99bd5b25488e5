//===- EmulateAttentionTest.cpp - FA2 attention steps on the emulated device -===//
//
// The sm_80 attention kernels of AttentionTestKernel.cuh (the emitter's
// form: load_box for Q, the cp.async pipeline, kgen/block/Attention.cuh's
// qk / online_softmax / pv / store, attention_combine for split-KV) run on
// the emulated device at small shapes and are compared with a
// double-precision host reference of kgen.attention (dialect/KgenOps.td:
// bottom-right causal, sliding window, kv_lens, softcap, LSE; a row with no
// visible key gives zeros and -inf). Tolerances: relative Frobenius norm
// <= 1e-2 for the output (P is rounded to the operand type before PV),
// 1e-3 absolute for the LSE, -inf exactly where the reference has it.
//
// Register report of the same kernels (no GPU needed):
//   nvcc -std=c++17 -arch=sm_80 -Xptxas -v -I codegen/include
//        -I runtime/emulate/test -c FILE.cu   (FILE.cu instantiates them)
//
//===----------------------------------------------------------------------===//

#include "AttentionTestKernel.cuh"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {
using namespace kgen;

/// What one test case asks for.
struct Case {
  long B = 1, Hkv = 1, G = 1, Sq = 37, Skv = 100, D = 64;
  bool causal = false;
  float softcap = 0.f; // 0: none
  int window = 0;      // 0: none
  std::vector<int> kvLens; // empty: none
  int splits = 1;
  bool packGqa = false;
  float scale = 0.f; // 0: 1 / sqrt(D)
  float kernelScale = 0.f; // the kernel's scale, when it differs (mutation)
};

struct Result {
  double outRelErr = 0; // relative Frobenius
  double lseMaxErr = 0; // over finite LSEs
  long lseInfMismatch = 0;
  long noKeyRows = 0;   // rows with no visible key in the reference
  long nanOut = 0;
};

template <class T> float roundTo(float x) { return float(T(x)); }

/// kgen.attention in double precision on the rounded inputs.
void reference(const Case &c, const std::vector<float> &q,
               const std::vector<float> &k, const std::vector<float> &v,
               std::vector<double> &out, std::vector<double> &lse) {
  const long rows = c.G * c.Sq;
  const double scale = c.scale;
  out.assign(size_t(c.B * c.Hkv * rows * c.D), 0.0);
  lse.assign(size_t(c.B * c.Hkv * rows), -INFINITY);
  std::vector<double> t(size_t(c.Skv));
  for (long b = 0; b < c.B; ++b) {
    long L = c.Skv;
    if (!c.kvLens.empty())
      L = std::min<long>(std::max<long>(c.kvLens[size_t(b)], 0), c.Skv);
    for (long hk = 0; hk < c.Hkv; ++hk)
      for (long r = 0; r < rows; ++r) {
        const long i = r % c.Sq, p = i + L - c.Sq;
        const long plane = b * c.Hkv + hk;
        const float *qr = &q[size_t((plane * rows + r) * c.D)];
        double m = -INFINITY;
        for (long j = 0; j < c.Skv; ++j) {
          const bool visible = j < L && (!c.causal || j <= p) &&
                               (c.window == 0 || j > p - c.window);
          if (!visible) {
            t[size_t(j)] = -INFINITY;
            continue;
          }
          const float *kr = &k[size_t((plane * c.Skv + j) * c.D)];
          double dot = 0;
          for (long d = 0; d < c.D; ++d)
            dot += double(qr[d]) * kr[d];
          double x = scale * dot;
          if (c.softcap > 0)
            x = c.softcap * std::tanh(x / c.softcap);
          t[size_t(j)] = x;
          m = std::max(m, x);
        }
        if (m == -INFINITY)
          continue; // zeros, -inf
        double l = 0;
        double *o = &out[size_t((plane * rows + r) * c.D)];
        for (long j = 0; j < c.Skv; ++j) {
          if (t[size_t(j)] == -INFINITY)
            continue;
          const double w = std::exp(t[size_t(j)] - m);
          l += w;
          const float *vr = &v[size_t((plane * c.Skv + j) * c.D)];
          for (long d = 0; d < c.D; ++d)
            o[d] += w * vr[d];
        }
        for (long d = 0; d < c.D; ++d)
          o[d] /= l;
        lse[size_t(plane * rows + r)] = m + std::log(l);
      }
  }
}

/// Registers the launch's tensors for the emulated cp.async bounds check.
struct Buffers {
  void add(const char *name, const void *p, size_t bytes) {
    emu::dev().buffers.push_back({name, static_cast<const char *>(p), bytes});
  }
  ~Buffers() { emu::dev().buffers.clear(); }
};

template <class T> std::vector<T> toDevice(const std::vector<float> &x) {
  std::vector<T> y(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    y[i] = T(x[i]);
  return y;
}

/// Runs one case with the kernel configuration in the template arguments;
/// returns false (with a failure recorded) if a launch fails.
template <class T, int BM, int BN, int Dp, int WarpsM, bool Causal,
          bool HasSoftcap, bool HasWindow>
bool run(Case c, Result &res) {
  constexpr int S = 2;
  if (c.scale == 0.f)
    c.scale = 1.f / std::sqrt(float(c.D));
  const long rows = c.G * c.Sq;
  std::mt19937 rng(unsigned(c.D * 131 + c.Sq * 7 + c.Skv));
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  auto fill = [&](long n) {
    std::vector<float> x(static_cast<size_t>(n));
    for (float &e : x)
      e = roundTo<T>(2.f * u(rng)); // logits of a few units
    return x;
  };
  const std::vector<float> qf = fill(c.B * c.Hkv * rows * c.D),
                           kf = fill(c.B * c.Hkv * c.Skv * c.D),
                           vf = fill(c.B * c.Hkv * c.Skv * c.D);
  std::vector<T> q = toDevice<T>(qf), k = toDevice<T>(kf), v = toDevice<T>(vf);
  std::vector<int> kvLens = c.kvLens;
  const size_t outN = size_t(c.B * c.Hkv * rows * c.D),
               lseN = size_t(c.B * c.Hkv * rows);
  std::vector<T> out(outN, T(NAN));
  std::vector<float> lse(lseN, NAN);
  std::vector<float> oPart(size_t(c.splits) * outN, NAN),
      lsePart(size_t(c.splits) * lseN, NAN);

  AttnShape sh{c.B, c.Hkv, c.G, c.Sq, c.Skv, c.D,
               c.kernelScale != 0.f ? c.kernelScale : c.scale,
               c.softcap, c.window, c.splits, c.packGqa ? 1 : 0};
  const unsigned smemBytes =
      unsigned(block::attention_smem_bytes<T>(BM, BN, Dp, S));
  const long rowBlocks =
      c.packGqa ? (rows + BM - 1) / BM : c.G * ((c.Sq + BM - 1) / BM);
  const dim3 grid{unsigned(rowBlocks), unsigned(c.B * c.Hkv),
                  unsigned(c.splits)};
  const dim3 block{unsigned(32 * WarpsM), 1, 1};
  const T *qp = q.data(), *kp = k.data(), *vp = v.data();
  const int *lensp = kvLens.empty() ? nullptr : kvLens.data();
  Buffers buffers;
  buffers.add("q", qp, q.size() * sizeof(T));
  buffers.add("k", kp, k.size() * sizeof(T));
  buffers.add("v", vp, v.size() * sizeof(T));
  if (c.splits == 1) {
    T *op = out.data();
    float *lp = lse.data();
    void *args[] = {&qp, &kp, &vp, &lensp, &op, &lp, &sh};
    auto *fn = &attn_kernel<T, T, BM, BN, Dp, WarpsM, S, Causal, HasSoftcap,
                            HasWindow>;
    if (emu::launchKernel("attn", fn, args, grid, block, smemBytes) != 0) {
      ADD_FAILURE() << "attention kernel failed on the emulated device";
      return false;
    }
  } else {
    float *op = oPart.data(), *lp = lsePart.data();
    void *args[] = {&qp, &kp, &vp, &lensp, &op, &lp, &sh};
    auto *fn = &attn_kernel<T, float, BM, BN, Dp, WarpsM, S, Causal,
                            HasSoftcap, HasWindow>;
    if (emu::launchKernel("attn_split", fn, args, grid, block, smemBytes) !=
        0) {
      ADD_FAILURE() << "split attention kernel failed on the emulated device";
      return false;
    }
    constexpr int kRows = 16;
    const float *opc = oPart.data(), *lpc = lsePart.data();
    T *o = out.data();
    float *l = lse.data();
    void *cargs[] = {&opc, &lpc, &o, &l, &sh};
    auto *cfn = &attn_combine_kernel<T, kRows, Dp, 128>;
    const dim3 cgrid{unsigned((rows + kRows - 1) / kRows),
                     unsigned(c.B * c.Hkv), 1};
    if (emu::launchKernel("attn_combine", cfn, cargs, cgrid, dim3{128, 1, 1},
                          0) != 0) {
      ADD_FAILURE() << "combine kernel failed on the emulated device";
      return false;
    }
  }

  std::vector<double> refOut, refLse;
  reference(c, qf, kf, vf, refOut, refLse);
  double num = 0, den = 0;
  for (size_t i = 0; i < outN; ++i) {
    const double got = float(out[i]);
    if (std::isnan(got))
      ++res.nanOut;
    num += (got - refOut[i]) * (got - refOut[i]);
    den += refOut[i] * refOut[i];
  }
  res.outRelErr = std::sqrt(num / std::max(den, 1e-30));
  for (size_t i = 0; i < lseN; ++i) {
    const bool refInf = std::isinf(refLse[i]);
    res.noKeyRows += refInf;
    if (refInf != (std::isinf(lse[i]) && lse[i] < 0))
      ++res.lseInfMismatch;
    else if (!refInf)
      res.lseMaxErr = std::max(res.lseMaxErr, std::fabs(lse[i] - refLse[i]));
  }
  return true;
}

template <class T, int BM, int BN, int Dp, int WarpsM, bool Causal,
          bool HasSoftcap = false, bool HasWindow = false>
void check(const Case &c, long expectNoKeyRows = -1) {
  Result r;
  if (!run<T, BM, BN, Dp, WarpsM, Causal, HasSoftcap, HasWindow>(c, r))
    return;
  EXPECT_EQ(r.nanOut, 0);
  EXPECT_LE(r.outRelErr, 1e-2);
  EXPECT_LE(r.lseMaxErr, 1e-3);
  EXPECT_EQ(r.lseInfMismatch, 0);
  if (expectNoKeyRows >= 0)
    EXPECT_EQ(r.noKeyRows, expectNoKeyRows) << "the case's empty rows";
  std::printf("  rel_err=%.2e lse_err=%.2e rows without keys=%ld\n",
              r.outRelErr, r.lseMaxErr, r.noKeyRows);
}

using bf16 = __nv_bfloat16;
using f16 = __half;

TEST(EmulateAttention, Bf16D64NonCausalSqNeSkv) {
  Case c;
  c.B = 2, c.Hkv = 2, c.G = 2, c.D = 64;
  check<bf16, 64, 64, 64, 4, false>(c, 0);
}

TEST(EmulateAttention, F16D40PaddedCausal) {
  Case c;
  c.Hkv = 2, c.D = 40; // Dp = 48
  c.causal = true;
  check<f16, 64, 64, 48, 4, true>(c, 0);
}

TEST(EmulateAttention, Bf16D72PaddedCausalKvLens) {
  // L = 20 < Sq = 37: queries i < 17 sit before every key (no visible key);
  // L = 0: none of batch 2's rows has a key.
  Case c;
  c.B = 3, c.Hkv = 1, c.G = 2, c.D = 72; // Dp = 80
  c.causal = true;
  c.kvLens = {100, 20, 0};
  check<bf16, 64, 64, 80, 4, true>(c, 2 * 17 + 2 * 37);
}

TEST(EmulateAttention, F16D64KvLensNonCausal) {
  Case c;
  c.B = 2, c.D = 64;
  c.kvLens = {57, 130}; // 130 is clamped to Skv
  check<f16, 64, 32, 64, 4, false>(c, 0);
}

TEST(EmulateAttention, Bf16SoftcapWindowCausal) {
  Case c;
  c.Hkv = 2, c.D = 64, c.Sq = 70, c.Skv = 150;
  c.causal = true;
  c.softcap = 5.f;
  c.window = 24;
  c.scale = 0.5f;
  check<bf16, 64, 64, 64, 4, true, true, true>(c, 0);
}

TEST(EmulateAttention, Bf16TwoMTilesPerWarp) {
  // BM 64 over 2 warps: 32 rows (two m16 tiles) per warp.
  Case c;
  c.Hkv = 1, c.G = 3, c.D = 64;
  c.causal = true;
  check<bf16, 64, 64, 64, 2, true>(c, 0);
}

TEST(EmulateAttention, Bf16Bm128EightWarps) {
  Case c;
  c.Sq = 150, c.Skv = 150, c.D = 128;
  c.causal = true;
  check<bf16, 128, 64, 128, 8, true>(c, 0);
}

TEST(EmulateAttention, F16D256Bn32) {
  Case c;
  c.Sq = 20, c.Skv = 70, c.D = 256;
  check<f16, 64, 32, 256, 4, false>(c, 0);
}

TEST(EmulateAttention, PackedGqaDecode) {
  // G = 4 query heads of one decode step in one BM = 16 tile, one warp.
  Case c;
  c.B = 3, c.Hkv = 2, c.G = 4, c.Sq = 1, c.Skv = 150, c.D = 64;
  c.causal = true;
  c.packGqa = true;
  c.kvLens = {150, 33, 0};
  check<bf16, 16, 64, 64, 1, true>(c, 2 * 4);
}

TEST(EmulateAttention, PackedGqaDecodeBn128) {
  Case c;
  c.B = 2, c.Hkv = 1, c.G = 4, c.Sq = 1, c.Skv = 300, c.D = 128;
  c.packGqa = true;
  c.kvLens = {300, 129};
  check<f16, 16, 128, 128, 1, false>(c, 0);
}

TEST(EmulateAttention, SplitKvCombine) {
  // Two blocks per row block write f32 partials and LSEs for halves of the
  // key range; attention_combine merges them.
  Case c;
  c.B = 2, c.Hkv = 2, c.G = 4, c.Sq = 1, c.Skv = 200, c.D = 64;
  c.causal = true;
  c.packGqa = true;
  c.splits = 2;
  c.kvLens = {200, 40}; // 40 keys: the second split is empty
  check<bf16, 16, 64, 64, 1, true>(c, 0);
}

TEST(EmulateAttention, SplitKvCombineCausalPrefill) {
  Case c;
  c.Hkv = 1, c.G = 2, c.Sq = 37, c.Skv = 100, c.D = 72;
  c.causal = true;
  c.splits = 2;
  c.kvLens = {30}; // rows i < 7: no key at all
  check<f16, 64, 32, 80, 4, true>(c, 2 * 7);
}

TEST(EmulateAttention, MutationWrongScaleIsCaught) {
  // The kernel gets a scale 10% off: the comparison must fail.
  Case c;
  c.Hkv = 2, c.D = 64;
  c.kernelScale = 1.1f / 8.f;
  Result r;
  ASSERT_TRUE((run<bf16, 64, 64, 64, 4, false, false, false>(c, r)));
  EXPECT_GT(r.outRelErr, 1e-2);
  EXPECT_GT(r.lseMaxErr, 1e-3);
}

} // namespace
