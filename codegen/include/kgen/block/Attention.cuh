//===- Attention.cuh - FA2-style attention steps that emitted kernels call -*- CUDA -*-===//
//
// The block-level steps of an sm_80 (`mma_sync`) attention kernel, one per
// tile op of docs/attention.md's tile-level form, with the tile sizes as
// template arguments (dialect/KgenTileOps.td defines each op; the CPU check
// runs those definitions). FlashAttention-2's schedule: warps split the
// block's rows (warp w owns rows [w * BM / WarpsM, (w + 1) * BM / WarpsM)),
// each warp keeps its rows of S and of the output accumulator in mma.sync
// m16n8 fragments (kgen::cuda::WarpTileAccMap), P goes from the S
// fragments straight into the A fragments of the PV mma.sync, the row max
// and sum reduce over the 4 lanes of a quad with shuffles, exp is exp2 of
// log2(e)-scaled logits.
//
//   AttentionScores<BM, BN, WarpsM>                 S, [BM, BN] f32 (registers)
//     template <int Dp, class T> qk(const T *sq, const T *sk)
//         kgen.tile.qk: s[m, n] = sum_d Q[m, d] K[n, d] (overwrites s).
//         sq: the Q tile, RowMajorPadded<T, BM, Dp>; sk: one K stage,
//         RowMajorPadded<T, BN, Dp> (what load_box writes). ldmatrix +
//         mma.sync (kgen::cuda::WarpMma: Q K-major A, K K-major B).
//   AttentionRowStats<BM, WarpsM>                   per row: max, sum
//     init()   kgen.tile.softmax_init: max = -inf, sum = 0.
//     (max is kept in log2 units, sum per lane: the 4 lanes of a quad each
//     hold the sum over their own columns; store adds them up.)
//   AttentionAccumulator<BM, Dp, WarpsM>            O, [BM, Dp] f32 (registers)
//     zero()   kgen.tile.zero.
//     template <int BN, class T>
//     pv(const AttentionScores<BM, BN, WarpsM> &s, const T *sv)
//         kgen.tile.pv: acc[m, d] += sum_n round_T(s[m, n]) V[n, d]; sv: one
//         V stage, RowMajorPadded<T, BN, Dp>, read with ldmatrix.trans.
//     template <class TOut>
//     store(const AttentionRowStats<BM, WarpsM> &stats, TOut *out, long ld,
//           long row0, long col0, long rows, long cols, float *lse,
//           float out_scale = 1) const
//         kgen.tile.attention_store: for block rows m with row0 + m < rows
//         and columns c = col0 + j < cols (j < Dp):
//         out[(row0 + m) * ld + c] = l > 0 ? acc * (out_scale / l) : 0
//         (out_scale: the descale of an e4m3 V), rounded once to
//         TOut (__nv_bfloat16, __half, or float for split-KV partials);
//         lse[row0 + m] = l > 0 ? max + log(l) : -inf (natural log), when
//         lse is not null. out and lse point at the (b, hk) plane.
//   AttentionRowScale<BM, WarpsM>                   per row: a deferred alpha
//     (in place of acc below: the rescale is applied later by
//     AttentionAccumulator::rescale(scale))
//   template <bool Causal, bool HasSoftcap, bool HasLeft, bool HasRight,
//             bool HasAlibi, int BM, int BN, int WarpsM, class Rescale>
//   online_softmax(AttentionScores<BM, BN, WarpsM> &s,
//                  AttentionRowStats<BM, WarpsM> &stats,
//                  Rescale &acc,   (AttentionAccumulator or AttentionRowScale)
//                  long row0, long col0, long kv_len, long seq_q,
//                  float scale, float softcap, int left, int right,
//                  const float *alibi, long head0, long alibi_heads = 1)
//       kgen.tile.online_softmax, per block row m (packed row r = row0 + m,
//       query i = r mod seq_q of query head head0 + r / seq_q (clamped
//       below alibi_heads, the slopes' count; seq_q < 1 counts as 1), position
//       p = i + kv_len - seq_q) and column n (key j = col0 + n): visible =
//       j < kv_len && (!Causal || j <= p) && (!HasLeft || j >= p - left)
//       && (!HasRight || j <= p + right); t = visible ? softcap(scale * s)
//       - slope * |p - j| : -inf, softcap(x) = softcap * tanh(x /
//       softcap), slope = alibi[head] (0 without HasAlibi); m' = max(m,
//       max_n t); shift = m' == -inf ? 0 : m'; alpha = exp(m - shift) (0
//       when m = -inf); s[m, n] = exp(t - shift); l = alpha l + sum_n s[m,
//       n]; acc[m, :] *= alpha; m = m'. softcap, left, right and alibi are
//       ignored unless HasSoftcap, HasLeft, HasRight, HasAlibi.
//   template <int Rows, int Cols, int Threads, class TOut>
//   attention_combine(const float *o_partial, long o_split_stride,
//                     const float *lse_partial, long lse_split_stride,
//                     int splits, long ld, long row0, long rows, long cols,
//                     TOut *out, float *lse)
//       kgen.tile.attention_combine (SIMT, any target): for rows r in
//       [row0, min(row0 + Rows, rows)) and columns c < min(Cols, cols):
//       M = max_s lse_s[r]; M == -inf: out = 0, lse = -inf; else w_s =
//       exp(lse_s[r] - M), out[r * ld + c] = sum_s w_s O_s[r * ld + c] /
//       sum_s w_s, lse[r] = M + log(sum_s w_s) (s in order; lse may be
//       null). Split s's planes are at o_partial + s * o_split_stride and
//       lse_partial + s * lse_split_stride; all pointers at split 0 of the
//       (b, hk) plane.
//   template <int BlockM>
//   SequenceTile sequence_tile(const int *offsets, int batch, long tile)
//       kgen.tile.sequence_tile: {seq, row, valid} of row tile `tile` of a
//       variable-length batch (offsets [batch + 1], cumulative lengths;
//       sequence b holds ceil(len_b / BlockM) tiles, numbered in order):
//       every thread walks the offsets (B reads, from L1 after the first
//       warp's), {0, 0, 0} past the last sequence's tiles.
//   template <int Rows, int Cols, int Threads, class T>
//   widen_tile(T *dst, const __nv_fp8_e4m3 *src)
//       kgen.tile.widen: the e4m3 tile src (RowMajorPadded<__nv_fp8_e4m3,
//       Rows, Cols>) into dst (RowMajorPadded<T, Rows, Cols>, T bf16 or
//       f16), exactly (cvt.rn.f16x2.e4m3x2, sm_89+); every one of the
//       block's Threads threads calls it, a block barrier ends it. An e4m3
//       KV cache's tiles land as e4m3 and are widened stage by stage for
//       the 16-bit MMAs (decode reads each key once: the bytes are what
//       count); e4m3 queries are widened once, to f16.
//   template <int Rows, int Cols, int Threads, class T>
//   load_paged_box<Rows, Cols, Threads, Nhd>(T *dst, const T *cache,
//                  long heads, long page_size, long ld, long hk,
//                  const int *table, long key0, long rows, long cols)
//       kgen.tile.load_paged: rows [key0, key0 + Rows) of head hk of a
//       paged cache [pages, heads, page_size, ld] (Nhd: [pages, page_size,
//       heads, ld], FlashInfer's NHD) into a RowMajorPadded
//       stage tile, key j's row from page table[j / page_size], zero where
//       j >= rows or c >= cols (table entries of such keys not read).
//   attention_smem_bytes<T>(BM, BN, Dp, Stages)     KGEN_HD constexpr
//       the dynamic shared memory of the kernel: the Q tile at byte 0
//       (stage_buffer_bytes<T>(1, BM, Dp)), then K (Stages, BN, Dp) at
//       attention_k_offset<T>(BM, Dp), then V at attention_v_offset<T>(BM,
//       BN, Dp, Stages); stage st of K / V is BN * Dp elements after st - 1.
//
// The kernel around them (emitted by codegen/emit; the cp.async pipeline of
// Gemm.cuh / Pipeline.cuh):
//   load_box<BM, Dp, Threads>(sq, q_plane, D, r0, 0, rhi, D);  acc.zero();
//   stats.init();  prologue: S - 1 times { if tile exists: load_box K and
//   V tiles (kt * BN, 0) bounds (L, D) into stage load.index; ++load; }
//   commit_stage(); }  per key tile kt: { prefetch S - 1 ahead; commit_stage();
//   wait_stage<S - 1>(); s.qk<Dp>(sq, sk + read.index * BN * Dp);
//   online_softmax<...>(s, stats, acc, r0, kt * BN, L, Sq, scale, softcap,
//   window); acc.pv<BN>(s, sv + read.index * BN * Dp); ++read;
//   __syncthreads(); }  acc.store(stats, out_plane, D, r0, 0, rhi, D,
//   lse_plane);
//
// Preconditions (static_asserts): BM % (16 * WarpsM) == 0 (each warp owns a
// multiple of 16 rows); BN % 16 == 0, 16 <= BN <= 128 (256 for the wgmma
// kernel's register tiles, AttentionSm90.cuh); Dp % 16 == 0,
// 32 <= Dp <= 256; T is __nv_bfloat16 or __half (f16 P for f16 V, bf16 for
// bf16). Threads = 32 * WarpsM, all of them call every step (ldmatrix,
// mma.sync and shfl.sync are warp collectives); the row maps read the
// thread index modulo 32 * WarpsM, so a larger block may run the steps in
// groups of 32 * WarpsM threads (AttentionSm90.cuh: 64 rows per consumer
// warpgroup, offset by the caller's row0). Runtime: seq_q > 0;
// row0 + BM, kv_len + seq_q, col0 + BN and |window| below 2^30 (int
// arithmetic); the padding columns D .. Dp of Q, K and V are zero in shared
// memory (load_box zero-fills them).
// Targets: sm_80 and later (cp.async, ldmatrix, mma.sync, cvt bf16x2).
//
// Registers (nvcc 13 -Xptxas -v, kernels of runtime/emulate/test/
// AttentionTestKernel.cuh, 2 stages, bf16; sm_80 / sm_90a, no spills, no
// stack unless said): BM 64 BN 64 4 warps Dp 64: 144 / 161, Dp 128: 191 /
// 205 (causal + softcap + window: 240 / 242); BM 64 BN 32 4 warps Dp 256:
// 242 / 245; BM 128 BN 64 8 warps Dp 128: 183 / 196; one warp (BM 16):
// BN 64 Dp 64: 203 / 201, BN 32 Dp 128: 231 / 237. One warp with BN * Dp
// > 4096 spills (BN 64 Dp 128: 428 bytes; BN 128 Dp 64: 156; BN 128 Dp 128:
// 1784): its 32 threads issue BN * Dp / 128 cp.async per K and V tile
// (load_box), and ptxas keeps their addresses live across the key loop.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_BLOCK_ATTENTION_CUH
#define KGEN_BLOCK_ATTENTION_CUH

#include "kgen/block/Gemm.cuh"

namespace kgen::block {

/// -inf (NVRTC has no <cmath> INFINITY): the f32 bit pattern 0xff800000.
KGEN_DEVICE float neg_inf() { return __uint_as_float(0xff800000u); }

/// Bytes of the Q tile, rounded up to 128: where the K stages start.
template <class T>
KGEN_HD constexpr long attention_k_offset(long bm, long dp) {
  return stage_buffer_bytes<T>(1, bm, dp);
}
/// Where the V stages start.
template <class T>
KGEN_HD constexpr long attention_v_offset(long bm, long bn, long dp,
                                          long stages) {
  return attention_k_offset<T>(bm, dp) +
         stage_buffer_bytes<T>(stages, bn, dp);
}
/// The kernel's dynamic shared memory: Q, K stages, V stages.
template <class T>
KGEN_HD constexpr long attention_smem_bytes(long bm, long bn, long dp,
                                            long stages) {
  return attention_v_offset<T>(bm, bn, dp, stages) +
         stage_buffer_bytes<T>(stages, bn, dp);
}

/// The rows a thread holds: warp w owns WM = BM / WarpsM rows in m16 tiles;
/// in m16 tile mt a lane holds rows g and g + 8 (g = lane / 4), numbered
/// 2 * mt and 2 * mt + 1 here (accumulator e of an m16n8 tile is in row
/// slot e / 2).
template <int BM, int WarpsM> struct AttentionRows {
  static_assert(WarpsM >= 1 && BM % (16 * WarpsM) == 0,
                "attention: each warp owns a multiple of 16 rows "
                "(BM % (16 * WarpsM) == 0)");
  static constexpr int kWM = BM / WarpsM;
  static constexpr int kMTiles = kWM / 16;
  static constexpr int kRows = 2 * kMTiles; ///< rows per thread
  static constexpr int kThreads = 32 * WarpsM;

  /// Block row of row slot `ri` of `thread`.
  KGEN_HD static constexpr int row(int thread, int ri) {
    return (thread / 32) * kWM + 16 * (ri / 2) + (thread % 32) / 4 +
           8 * (ri % 2);
  }
};

/// The A fragment of k-step kk of P V is made of the m16n8 accumulators of
/// S's n-tiles 2kk (columns 0..7 of the k-step) and 2kk + 1 (8..15): A
/// register q holds accumulators (2 * (q % 2), + 1) of n-tile 2kk + q / 2.
/// Checked against the operand and accumulator maps of Mma.cuh.
KGEN_HD constexpr bool p_fragment_matches_a_fragment() {
  for (int lane = 0; lane < 32; ++lane)
    for (int e = 0; e < 8; ++e) {
      const int q = e / 2, nt = q / 2, acc = 2 * (q % 2) + e % 2;
      const kgen::cuda::RowCol a = kgen::cuda::MmaBf16::a_elem(lane, e);
      const kgen::cuda::RowCol c = kgen::cuda::mma_acc_m16n8(lane, acc);
      if (a.row != c.row || a.col != 8 * nt + c.col)
        return false;
    }
  return true;
}
static_assert(p_fragment_matches_a_fragment(),
              "S accumulators do not line up with the PV A fragment");

KGEN_HD constexpr bool attention_bn_ok(int bn) {
  return bn % 16 == 0 && bn >= 16 && bn <= 256;
}
KGEN_HD constexpr bool attention_dp_ok(int dp) {
  return dp % 16 == 0 && dp >= 32 && dp <= 256;
}

#if KGEN_CUDA_COMPILER

template <class T> struct AttentionElement {
  static_assert(kgen::cuda::kFalseT<T>,
                "attention operands must be __nv_bfloat16 or __half");
};
template <> struct AttentionElement<__nv_bfloat16> {
  /// {lo, hi} rounded to bf16 and packed (lo in the low half): the element
  /// order of an mma.sync A register.
  template <int kDummy = 0> KGEN_DEVICE static unsigned pack(float lo, float hi) {
    return kgen::cuda::cvt_bf16x2<kDummy>(hi, lo);
  }
};
template <> struct AttentionElement<__half> {
  template <int kDummy = 0> KGEN_DEVICE static unsigned pack(float lo, float hi) {
    return kgen::cuda::cvt_f16x2<kDummy>(hi, lo);
  }
};


template <int BM, int BN, int WarpsM> struct AttentionScores {
  static_assert(attention_bn_ok(BN),
                "attention: BN must be a multiple of 16 in [16, 256]");
  using Rows = AttentionRows<BM, WarpsM>;
  using Map = kgen::cuda::WarpTileAccMap<Rows::kWM, BN>;
  static constexpr int kNTiles = BN / 8;
  float v[Map::kAccPerThread];

  /// s = Q[warp rows, 0:Dp] K[0:BN, 0:Dp]^T.
  template <int Dp, class T> KGEN_DEVICE void qk(const T *sq, const T *sk) {
    static_assert(attention_dp_ok(Dp), "attention: the padded head dim Dp "
                                       "must be a multiple of 16 in [32, 256]");
    static_assert(BN <= 128, "mma_sync attention: BN at most 128 (a warp's "
                             "S row block in registers)");
    static_assert(sizeof(AttentionElement<T>) > 0, "2-byte operands");
    using Op = typename MmaOpFor<T>::type;
    using kgen::cuda::Major;
    using Warp = kgen::cuda::WarpMma<
        Op, Rows::kWM, BN, kgen::cuda::RowMajorPadded<T, BM, Dp>, Major::K,
        kgen::cuda::RowMajorPadded<T, BN, Dp>, Major::K>;
#pragma unroll
    for (int i = 0; i < Map::kAccPerThread; ++i)
      v[i] = 0.f;
    const int thread = int(threadIdx.x) % Rows::kThreads;
    Warp::template run<Dp>(v, kgen::cuda::smem_u32(sq),
                           kgen::cuda::smem_u32(sk), (thread / 32) * Rows::kWM,
                           0, thread % 32);
  }

  /// P = round_T(s) as the A fragment of k-step kk (keys 16 kk .. + 15) of
  /// m16 tile mt: register q holds accumulators (2 (q % 2), + 1) of n-tile
  /// 2 kk + q / 2 (p_fragment_matches_a_fragment). The A operand of the
  /// P V mma.sync, and of the wgmma with A from registers (AttentionSm90.cuh).
  template <class T>
  KGEN_DEVICE void p_fragment(int mt, int kk, unsigned (&a)[4]) const {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const float *c = &v[(mt * kNTiles + 2 * kk + q / 2) * 4 + 2 * (q % 2)];
      a[q] = AttentionElement<T>::pack(c[0], c[1]);
    }
  }
};

template <int BM, int WarpsM> struct AttentionRowStats {
  using Rows = AttentionRows<BM, WarpsM>;
  float max[Rows::kRows]; ///< running max of the log2-scaled logits
  float sum[Rows::kRows]; ///< this lane's share of the running sum

  KGEN_DEVICE void init() {
#pragma unroll
    for (int r = 0; r < Rows::kRows; ++r) {
      max[r] = neg_inf();
      sum[r] = 0.f;
    }
  }
};

/// The rescale factors of an online-softmax step, kept for later (the
/// output accumulator is still being written by an asynchronous P V when
/// the softmax runs: AttentionSm90.cuh's overlapped schedule). Passed to
/// online_softmax in place of the accumulator; AttentionAccumulator::
/// rescale applies them.
template <int BM, int WarpsM> struct AttentionRowScale {
  using Rows = AttentionRows<BM, WarpsM>;
  float alpha[Rows::kRows];
  KGEN_DEVICE void scale_row(int ri, float a) { alpha[ri] = a; }
};

template <int BM, int Dp, int WarpsM> struct AttentionAccumulator {
  static_assert(attention_dp_ok(Dp), "attention: the padded head dim Dp must "
                                     "be a multiple of 16 in [32, 256]");
  using Rows = AttentionRows<BM, WarpsM>;
  using Map = kgen::cuda::WarpTileAccMap<Rows::kWM, Dp>;
  static constexpr int kDTiles = Dp / 8;
  float v[Map::kAccPerThread];

  KGEN_DEVICE void zero() {
#pragma unroll
    for (int i = 0; i < Map::kAccPerThread; ++i)
      v[i] = 0.f;
  }

  /// acc += round_T(P) V[0:BN, 0:Dp], P = s (the probabilities).
  template <int BN, class T>
  KGEN_DEVICE void pv(const AttentionScores<BM, BN, WarpsM> &s, const T *sv) {
    using Op = typename MmaOpFor<T>::type;
    using LayoutV = kgen::cuda::RowMajorPadded<T, BN, Dp>;
    const int lane = int(threadIdx.x % 32);
    const unsigned base = kgen::cuda::smem_u32(sv);
    // ldmatrix.x4.trans of V (K = n rows, N = d cols): d-tiles 2np, 2np + 1.
    const kgen::cuda::RowCol ld = kgen::cuda::ldsm_mnmajor_b(lane);
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      unsigned a[Rows::kMTiles][4];
#pragma unroll
      for (int mt = 0; mt < Rows::kMTiles; ++mt)
        s.template p_fragment<T>(mt, kk, a[mt]);
#pragma unroll
      for (int np = 0; np < Dp / 16; ++np) {
        unsigned r[4];
        kgen::cuda::ldmatrix_x4_trans(
            r, base + unsigned(LayoutV::byte_offset(
                          16 * kk + ld.row,
                          16 * np + ld.col / int(sizeof(T)))));
        const unsigned b0[2] = {r[0], r[1]}, b1[2] = {r[2], r[3]};
#pragma unroll
        for (int mt = 0; mt < Rows::kMTiles; ++mt) {
          float *d0 = &v[(mt * kDTiles + 2 * np) * 4];
          float *d1 = &v[(mt * kDTiles + 2 * np + 1) * 4];
          Op::mma(d0[0], d0[1], d0[2], d0[3], a[mt], b0);
          Op::mma(d1[0], d1[1], d1[2], d1[3], a[mt], b1);
        }
      }
    }
  }

  /// acc[row slot ri, :] *= alpha (online_softmax's rescale).
  KGEN_DEVICE void scale_row(int ri, float alpha) {
    const int mt = ri / 2, e0 = 2 * (ri % 2);
#pragma unroll
    for (int dt = 0; dt < kDTiles; ++dt) {
      v[(mt * kDTiles + dt) * 4 + e0] *= alpha;
      v[(mt * kDTiles + dt) * 4 + e0 + 1] *= alpha;
    }
  }
  /// Every row slot scaled by its deferred factor (AttentionRowScale).
  template <class Scale> KGEN_DEVICE void rescale(const Scale &scale) {
#pragma unroll
    for (int ri = 0; ri < Rows::kRows; ++ri)
      scale_row(ri, scale.alpha[ri]);
  }

  /// out = acc * out_scale / l (0 when l = 0) inside (rows, cols); lse =
  /// max + log l. out_scale: e4m3 V's descale factor (1 without).
  template <class TOut>
  KGEN_DEVICE void store(const AttentionRowStats<BM, WarpsM> &stats,
                         TOut *out, long ld, long row0, long col0, long rows,
                         long cols, float *lse, float out_scale = 1.f) const {
    using Cast = kgen::cuda::OutputCast<TOut>;
    constexpr float kLn2 = 0.693147180559945309f;
    const int thread = int(threadIdx.x) % Rows::kThreads, lane = thread % 32;
    const bool pairs =
        ld % 2 == 0 && col0 % 2 == 0 &&
        reinterpret_cast<unsigned long long>(out) % (2 * sizeof(TOut)) == 0;
#pragma unroll
    for (int ri = 0; ri < Rows::kRows; ++ri) {
      // The quad's four shares of the row sum (every lane takes part).
      float l = stats.sum[ri];
      l += kgen::cuda::shfl_xor(l, 1);
      l += kgen::cuda::shfl_xor(l, 2);
      const float inv = l > 0.f ? out_scale / l : 0.f;
      const long row = row0 + Rows::row(thread, ri);
      if (row >= rows)
        continue;
      TOut *o = out + row * ld;
      const int mt = ri / 2, e0 = 2 * (ri % 2);
#pragma unroll
      for (int dt = 0; dt < kDTiles; ++dt) {
        const long c = col0 + 8 * dt + 2 * (lane % 4);
        const float *a = &v[(mt * kDTiles + dt) * 4 + e0];
        if (pairs && c + 1 < cols) {
          Cast::store2(o + c, a[0] * inv, a[1] * inv);
        } else {
          if (c < cols)
            Cast::store1(o + c, a[0] * inv);
          if (c + 1 < cols)
            Cast::store1(o + c + 1, a[1] * inv);
        }
      }
      if (lse != nullptr && lane % 4 == 0)
        lse[row] = l > 0.f ? (stats.max[ri] + log2f(l)) * kLn2 : neg_inf();
    }
  }
};

template <bool Causal, bool HasSoftcap, bool HasLeft, bool HasRight,
          bool HasAlibi, int BM, int BN, int WarpsM, class Rescale>
KGEN_DEVICE void online_softmax(AttentionScores<BM, BN, WarpsM> &s,
                                AttentionRowStats<BM, WarpsM> &stats,
                                Rescale &acc, long row0, long col0,
                                long kv_len, long seq_q, float scale,
                                float softcap, int left, int right,
                                const float *alibi, long head0,
                                long alibi_heads = 1) {
  using Rows = AttentionRows<BM, WarpsM>;
  constexpr int kNT = BN / 8;
  constexpr float kLog2e = 1.44269504088896341f;
  // t * log2(e) = u * mul with u = s (no softcap) or tanh(s * pre).
  const float mul = HasSoftcap ? softcap * kLog2e : scale * kLog2e;
  const float pre = HasSoftcap ? scale / softcap : 1.f;
  const int thread = int(threadIdx.x) % Rows::kThreads, lane = thread % 32;
  const int len = int(kv_len), c0 = int(col0);
#pragma unroll
  for (int ri = 0; ri < Rows::kRows; ++ri) {
    const int mt = ri / 2, e0 = 2 * (ri % 2);
    // The row's visible columns n of this tile: lo_n <= n < hi_n.
    const int r = int(row0) + Rows::row(thread, ri);
    const int sq = seq_q > 0 ? int(seq_q) : 1; // (a runtime 0 counts as 1)
    const int p = r % sq + len - sq;
    int hi_n = len - c0;
    if (Causal && p + 1 - c0 < hi_n)
      hi_n = p + 1 - c0;
    if (HasRight && p + right + 1 - c0 < hi_n)
      hi_n = p + right + 1 - c0;
    const int lo_n = HasLeft ? p - left - c0 : 0;
    // ALiBi: - slope * |p - j| (in log2 units), the slope of the row's
    // query head.
    // (Rows past the block's last, whose results are never stored, may
    // name heads past the last: clamped, as the CPU definition has it.)
    const float slope =
        HasAlibi ? alibi[lmin(head0 + r / sq, alibi_heads - 1)] * kLog2e : 0.f;
    float mx = stats.max[ri];
#pragma unroll
    for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        float &x = s.v[(mt * kNT + nt) * 4 + e0 + e];
        const int n = 8 * nt + 2 * (lane % 4) + e;
        const float u = HasSoftcap ? tanhf(x * pre) : x;
        const float bias =
            HasAlibi ? slope * fabsf(float(p - c0 - n)) : 0.f;
        x = (n < hi_n && n >= lo_n) ? u * mul - bias : neg_inf();
        mx = fmaxf(mx, x);
      }
    mx = fmaxf(mx, kgen::cuda::shfl_xor(mx, 1));
    mx = fmaxf(mx, kgen::cuda::shfl_xor(mx, 2));
    const float shift = mx == neg_inf() ? 0.f : mx;
    const float alpha = exp2f(stats.max[ri] - shift); // 0 for max = -inf
    stats.max[ri] = mx;
    float sum = 0.f;
#pragma unroll
    for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        float &x = s.v[(mt * kNT + nt) * 4 + e0 + e];
        x = exp2f(x - shift);
        sum += x;
      }
    stats.sum[ri] = stats.sum[ri] * alpha + sum;
    acc.scale_row(ri, alpha);
  }
}

/// kgen.tile.load_paged: rows [key0, key0 + Rows) of head `hk` of a paged
/// cache ([pages, heads, page_size, ld] elements at `cache`, or with Nhd
/// [pages, page_size, heads, ld]; key j at page table[j / page_size], row
/// j mod page_size) into a RowMajorPadded<T, Rows, Cols> tile, zero where
/// j >= rows or a column >= cols. `table` is the sequence's row of the
/// block table; entries of keys j >= rows are not read. 16-byte cp.async
/// chunks when `cache` and the row pitch are 16-byte aligned (commit with
/// the stage), else element copies.
template <int Rows, int Cols, int Threads, bool Nhd = false, class T>
KGEN_DEVICE void load_paged_box(T *dst, const T *cache, long heads,
                                long page_size, long ld, long hk,
                                const int *table, long key0, long rows,
                                long cols) {
  using Layout = kgen::cuda::RowMajorPadded<T, Rows, Cols>;
  constexpr int kVec = 16 / int(sizeof(T));
  static_assert(Cols % kVec == 0, "a stage tile's rows must be whole 16-byte "
                                  "chunks");
  constexpr int kChunksPerRow = Cols / kVec, kChunks = Rows * kChunksPerRow;
  const bool async = kgen::cuda::can_use_cp_async_16(cache, ld, int(sizeof(T)));
  char *smem = reinterpret_cast<char *>(dst);
  for (int chunk = int(threadIdx.x); chunk < kChunks; chunk += Threads) {
    const int row = chunk / kChunksPerRow;
    const int col = (chunk % kChunksPerRow) * kVec;
    const long j = key0 + row;
    const int n = j < rows ? int(lmin(lmax(cols - col, 0), kVec)) : 0;
    const T *src = cache;
    if (n > 0) {
      const long page = table[j / page_size];
      const long line = Nhd ? (page * page_size + j % page_size) * heads + hk
                            : (page * heads + hk) * page_size + j % page_size;
      src = cache + line * ld + col;
    }
    if (async) {
      kgen::cuda::cp_async_cg_16(smem + Layout::byte_offset(row, col), src,
                                 n * int(sizeof(T)));
    } else {
      T *d = reinterpret_cast<T *>(smem + Layout::byte_offset(row, col));
      for (int e = 0; e < kVec; ++e)
        d[e] = e < n ? src[e] : T(0.f);
    }
  }
}

/// Two e4m3 values (`pair`: element 0 in bits 7:0) as a packed pair of T
/// (element 0 in bits 15:0), exactly: cvt.rn.f16x2.e4m3x2, and for bf16
/// on through f32 (cvt.f32.f16, cvt.rn.bf16x2.f32; every e4m3 value is an
/// f16, an f32 and a bf16 value).
template <class T> KGEN_DEVICE unsigned widen_e4m3x2(unsigned short pair) {
  const unsigned h = kgen::cuda::cvt_f16x2_e4m3x2(pair);
  if constexpr (kgen::cuda::kIsSame<T, __half>) {
    return h;
  } else {
    static_assert(kgen::cuda::kIsSame<T, __nv_bfloat16>,
                  "e4m3 widens to bf16 or f16");
    __half2 halves;
    static_assert(sizeof(halves) == sizeof(h), "a packed f16 pair");
    memcpy(&halves, &h, sizeof(h));
    const float2 f = __half22float2(halves);
    return kgen::cuda::cvt_bf16x2(f.y, f.x);
  }
}

template <int Rows, int Cols, int Threads, class T>
KGEN_DEVICE void widen_tile(T *dst, const __nv_fp8_e4m3 *src) {
  static_assert(Cols % 16 == 0, "widened tiles have rows of whole 16-element "
                                "chunks (the padded head dim)");
  constexpr int kChunks = Rows * Cols / 8; // 8 bytes in, 16 bytes out
  const uint2 *in = reinterpret_cast<const uint2 *>(src);
  uint4 *out = reinterpret_cast<uint4 *>(dst);
  for (int c = int(threadIdx.x); c < kChunks; c += Threads) {
    const uint2 e = kgen::cuda::ld_shared(in + c);
    kgen::cuda::st_shared(
        out + c,
        make_uint4(widen_e4m3x2<T>(static_cast<unsigned short>(e.x & 0xffffu)),
                   widen_e4m3x2<T>(static_cast<unsigned short>(e.x >> 16)),
                   widen_e4m3x2<T>(static_cast<unsigned short>(e.y & 0xffffu)),
                   widen_e4m3x2<T>(static_cast<unsigned short>(e.y >> 16))));
  }
  __syncthreads();
}

/// A row tile of a variable-length batch: its sequence, its first row in
/// the sequence, and whether any sequence holds it (1) or not (0).
struct SequenceTile {
  long seq, row, valid;
};

template <int BlockM>
KGEN_DEVICE SequenceTile sequence_tile(const int *offsets, int batch,
                                       long tile) {
  long first = 0; // the first tile of sequence b
  for (int b = 0; b < batch; ++b) {
    const long len = lmax(long(offsets[b + 1]) - long(offsets[b]), 0);
    const long tiles = (len + BlockM - 1) / BlockM;
    if (tile < first + tiles)
      return {b, (tile - first) * BlockM, 1};
    first += tiles;
  }
  return {0, 0, 0};
}

template <int Rows, int Cols, int Threads, class TOut>
KGEN_DEVICE void attention_combine(const float *o_partial, long o_split_stride,
                                   const float *lse_partial,
                                   long lse_split_stride, int splits, long ld,
                                   long row0, long rows, long cols, TOut *out,
                                   float *lse) {
  static_assert(Rows > 0 && Cols > 0 && Threads > 0 && Threads % 32 == 0,
                "attention_combine: a (Rows, Cols) box over whole warps");
  using Cast = kgen::cuda::OutputCast<TOut>;
  for (int idx = int(threadIdx.x); idx < Rows * Cols; idx += Threads) {
    const long r = row0 + idx / Cols;
    const long c = idx % Cols;
    if (r >= rows || c >= cols)
      continue;
    float m = neg_inf();
    for (int s = 0; s < splits; ++s)
      m = fmaxf(m, lse_partial[s * lse_split_stride + r]);
    if (m == neg_inf()) {
      Cast::store1(out + r * ld + c, 0.f);
      if (lse != nullptr && c == 0)
        lse[r] = neg_inf();
      continue;
    }
    float wsum = 0.f, o = 0.f;
    for (int s = 0; s < splits; ++s) {
      const float w = expf(lse_partial[s * lse_split_stride + r] - m);
      wsum += w;
      o += w * o_partial[s * o_split_stride + r * ld + c];
    }
    Cast::store1(out + r * ld + c, o / wsum);
    if (lse != nullptr && c == 0)
      lse[r] = m + logf(wsum);
  }
}

#endif // KGEN_CUDA_COMPILER

} // namespace kgen::block

#endif // KGEN_BLOCK_ATTENTION_CUH
