//===- Moe.cuh - mixture-of-experts steps that emitted kernels call -*- CUDA -*-===//
//
// The block-level steps of kgen's MoE kernels (docs/moe.md), one per tile op
// of dialect/KgenTileOps.td (tile.moe_route, tile.moe_rank, tile.moe_gather,
// tile.group_tile, tile.moe_combine), each the whole body of its kernel
// besides the index computation. Every kernel is a 1-D grid of 1-D blocks of
// `Threads` threads, and every thread of the block makes the call (the
// steps use block barriers and warp collectives). The CPU definitions are
// the ops' reference semantics (passes/LowerToLoops.cpp: emitRoute,
// lowerMoePermute, lowerGroupedGemm, lowerMoeCombine).
//
//   template <int Threads, int Rows, int TopK, bool Renormalize, class T>
//   moe_route(const T *logits, long tokens, long experts, long t0,
//             int *ids, float *weights)
//       kgen.moe_route for tokens [t0, min(t0 + Rows, tokens)) of logits
//       [tokens, experts] into ids, weights [tokens, TopK]. One warp per
//       token, no shared memory (moe_route_smem_bytes is 0).
//   template <int Threads, int Rows, int TopK, bool Renormalize,
//             bool Sigmoid, bool HasBias, int NGroup, int TopkGroup, class T>
//   moe_route_ext(const T *logits, const float *bias, long tokens,
//                 long experts, long t0, float scale, int *ids,
//                 float *weights)
//       kgen.moe_route with the DeepSeek extensions (sigmoid scoring, a
//       correction bias, group-limited top-k, a scaling factor), same
//       layout; experts <= kMoeExtMaxExperts. No shared memory.
//   template <int Threads>
//   moe_rank(const int *ids, long copies, long experts, long e,
//            int *positions, int *offsets)
//       kgen.moe_permute's positions and offsets, block e of a grid of
//       `experts` blocks; deterministic (block scans, no atomics).
//   template <int Threads, int Copies, class T>
//   moe_gather(const T *x, const int *positions, const int *offsets,
//              long tokens, long top_k, long experts, long hidden, long c0,
//              T *permuted)
//       kgen.moe_permute's rows: copies [c0, min(c0 + Copies, tokens *
//       top_k)) of x into their expert-sorted rows, zeros past the last.
//   template <int Threads, int Rows, class T>
//   act_quant(const T *a, long rows, long k, long r0, __nv_fp8_e4m3 *q,
//             float *scale)
//       kgen.tile.act_quant: rows [r0, min(r0 + Rows, rows)) of a [rows, k]
//       quantised to e4m3 per (row, 128 columns) as DeepSeek-V3's
//       act_quant, q [rows, k] and scale [rows, ceil(k / 128)] (sm_89+:
//       cvt.rn.satfinite.e4m3x2).
//   template <int BlockM>
//   GroupTile group_tile(const int *offsets, long experts, long rows,
//                        long tile)
//       the grouped GEMM's tile scheduler: which expert and rows m tile
//       `tile` of the one launch over all experts covers.
//   template <int Threads, int Tokens, class T, class W, class OutT>
//   moe_combine(const T *expert_out, const int *positions,
//               const W *weights, const T *shared, long tokens, long top_k,
//               long rows, long hidden, long t0, OutT *y)
//       kgen.moe_combine for tokens [t0, min(t0 + Tokens, tokens)), plus
//       a shared expert's rows (shared [tokens, hidden], or nullptr).
//   moe_single_group(long rows, int *offsets)
//       offsets = [0, rows] (block 0, thread 0): a shared expert's one
//       group of every token.
//
// Element types: T is float, __nv_bfloat16 or __half; W any of those;
// OutT float, __nv_bfloat16 or __half (rounded as the epilogues round,
// kgen::cuda::OutputCast). Arithmetic is f32 in the reference's order with
// one rounding per operation (fadd_rn / fmul_rn / fdiv_rn: nvcc may not
// contract a mul and an add into an fma the reference does not have), so on
// the emulated device, where expf is the host's as in the reference, every
// result equals the reference bit for bit. On a GPU routing differs from
// the reference only by expf's ulps.
//
// Preconditions (static_asserts): Threads a positive multiple of 32, at
// most 1024; Rows, TopK, Copies, Tokens, BlockM positive. Runtime: ids,
// positions and offsets are i32 arrays; tokens * top_k < 2^31 (positions
// are int); 1 <= experts <= kMoeMaxExperts for moe_route, experts >= 1
// elsewhere.
// Targets: any (SIMT code, shfl.sync / vote.sync: sm_70 and later).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_BLOCK_MOE_CUH
#define KGEN_BLOCK_MOE_CUH

#include "kgen/block/Gemm.cuh"

namespace kgen::block {

/// The most experts moe_route takes: each lane of a token's warp keeps the
/// probabilities of experts lane, lane + 32, ... in registers (32 at most).
constexpr int kMoeMaxExperts = 1024;

/// A block the MoE steps take: whole warps, at most 1024 threads.
KGEN_HD constexpr bool moe_threads_ok(int threads) {
  return threads > 0 && threads % 32 == 0 && threads <= 1024;
}

/// The most experts moe_route_ext takes (dialect/MoeLegality.h's
/// kMoeExtendedRouteMaxExperts): each lane keeps the scores and choice
/// scores of experts lane, lane + 32, ... in registers (8 each).
constexpr int kMoeExtMaxExperts = 256;

/// moe_route's shared memory: none (registers and warp shuffles).
template <int Threads, int Rows> KGEN_HD constexpr long moe_route_smem_bytes() {
  return 0;
}

/// One m tile of the grouped GEMM (group_tile's answer): rows [row0,
/// min(row0 + BlockM, row_end)) of expert `expert` when live is 1; rows in
/// no expert's group (write zeros) when live is 0.
struct GroupTile {
  long expert, row0, row_end, live;
};

#if KGEN_CUDA_COMPILER

namespace moe_detail {

/// T in a non-deduced context (a nullptr argument takes the type).
template <class U> struct Same {
  using type = U;
};

/// -inf (NVRTC has no INFINITY): the f32 bit pattern 0xff800000.
KGEN_DEVICE float minus_inf() { return __uint_as_float(0xff800000u); }

/// max(a, b) with arith.maximumf's NaN rule: a NaN operand wins. For two
/// zeros the sign may differ from maximumf's (+0), which does not change
/// exp(l - m) for any l.
KGEN_DEVICE float max_nan(float a, float b) {
  return (b > a || b != b) ? b : a;
}

KGEN_DEVICE long clamp(long v, long lo, long hi) {
  return lmin(lmax(v, lo), hi);
}

KGEN_DEVICE bool aligned(const void *p, unsigned long long bytes) {
  return reinterpret_cast<unsigned long long>(p) % bytes == 0;
}

/// A routing slot's candidates, over one lane's experts or a whole warp.
/// first: 2 * (the first untaken expert) + (its p is NaN), ~0u when every
/// expert is taken; best: the untaken expert of largest non-NaN p (ties to
/// the lower index), -1 when none; p: its probability.
struct RoutePick {
  unsigned first;
  int best;
  float p;
};

KGEN_DEVICE RoutePick merge(RoutePick a, RoutePick b) {
  RoutePick r = a;
  r.first = a.first < b.first ? a.first : b.first;
  if (b.best >= 0 &&
      (a.best < 0 || b.p > a.p || (b.p == a.p && b.best < a.best))) {
    r.best = b.best;
    r.p = b.p;
  }
  return r;
}

/// One routing slot's expert, on every lane: among the eligible experts
/// (bit k of `eligible`: expert 32 k + lane, whose score is v[k]), the
/// first one when its score is NaN (nothing compares greater in the
/// reference's scan), else the one of largest score (ties to the lower
/// index); -1 when none is eligible. Rounds past `experts` are skipped.
template <int PerLane>
KGEN_DEVICE int warp_pick(const float (&v)[PerLane], unsigned long long eligible,
                          long experts) {
  using kgen::cuda::shfl_xor;
  using kgen::cuda::shfl_xor_u32;
  const int lane = int(threadIdx.x) % 32;
  RoutePick pick{~0u, -1, 0.f};
#pragma unroll
  for (int k = 0; k < PerLane; ++k) {
    if (32 * k >= experts)
      break;
    if (!((eligible >> k) & 1ull))
      continue;
    const int e = 32 * k + lane;
    if (pick.first == ~0u)
      pick.first = 2u * unsigned(e) + (v[k] != v[k] ? 1u : 0u);
    if (v[k] == v[k] && (pick.best < 0 || v[k] > pick.p)) {
      pick.best = e;
      pick.p = v[k];
    }
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    const RoutePick other{shfl_xor_u32(pick.first, off),
                          int(shfl_xor_u32(unsigned(pick.best), off)),
                          shfl_xor(pick.p, off)};
    pick = merge(pick, other);
  }
  return (pick.first != ~0u && (pick.first & 1u)) ? int(pick.first >> 1)
                                                  : pick.best;
}

/// p[k] (expert 32 k + lane: its logit, -inf past the last expert, in
/// every round before `experts`) becomes its softmax probability as
/// emitRoute computes it: m = max_e l_e (a NaN wins, over the warp by
/// shuffles), q_e = expf(l_e - m), s = q_0 + q_1 + ... serially in e order
/// (each q_e broadcast by shfl.idx, every lane adding them in the same
/// order, as the reference's bits require), p_e = q_e / s.
template <int PerLane>
KGEN_DEVICE void warp_softmax(float (&p)[PerLane], long experts) {
  using kgen::cuda::fadd_rn;
  using kgen::cuda::fdiv_rn;
  using kgen::cuda::shfl_idx;
  using kgen::cuda::shfl_xor;
  const int lane = int(threadIdx.x) % 32;
  float m = minus_inf();
#pragma unroll
  for (int k = 0; k < PerLane; ++k) {
    if (32 * k >= experts)
      break;
    m = max_nan(m, p[k]);
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    m = max_nan(m, shfl_xor(m, off));
#pragma unroll
  for (int k = 0; k < PerLane; ++k) {
    if (32 * k >= experts)
      break;
    if (32 * k + lane < experts)
      p[k] = expf(p[k] - m);
  }
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < PerLane; ++k) {
    if (32 * k >= experts)
      break;
    const int n = int(lmin(experts - 32 * k, 32));
    for (int j = 0; j < n; ++j)
      s = fadd_rn(s, shfl_idx(p[k], j));
  }
#pragma unroll
  for (int k = 0; k < PerLane; ++k) {
    if (32 * k >= experts)
      break;
    if (32 * k + lane < experts)
      p[k] = fdiv_rn(p[k], s);
  }
}

/// Writes a routing slot of token t: the chosen expert's weight (`mine`
/// on the lane that holds it; -inf when no expert was chosen) broadcast,
/// added to `total`, and stored with the id by lane slot % 32 (the lane
/// that renormalises it later).
template <int TopK>
KGEN_DEVICE void write_slot(float mine, int chosen, int slot, long t,
                            int *ids, float *weights, float &total) {
  const float picked = kgen::cuda::shfl_idx(mine, chosen & 31);
  const float w = chosen >= 0 ? picked : minus_inf();
  total = kgen::cuda::fadd_rn(total, w);
  if (int(threadIdx.x) % 32 == slot % 32) {
    ids[t * TopK + slot] = chosen;
    weights[t * TopK + slot] = w;
  }
}

/// Sum of v over the warp (every lane gets it).
KGEN_DEVICE int warp_sum(int v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    v += int(kgen::cuda::shfl_xor_u32(unsigned(v), off));
  return v;
}

} // namespace moe_detail

//===----------------------------------------------------------------------===//
// Routing
//===----------------------------------------------------------------------===//

/// kgen.moe_route (emitRoute in passes/LowerToLoops.cpp) for the tokens t
/// in [t0, min(t0 + Rows, tokens)) of logits [tokens, experts] (row-major,
/// read as f32), into ids [tokens, TopK] (i32) and weights [tokens, TopK]
/// (f32):
///   m = max_e l_e (a NaN wins); q_e = expf(l_e - m); s = q_0 + q_1 + ...
///   (in e order from 0.0f); p_e = q_e / s; TopK times: starting from the
///   first untaken expert, scan e in order and take any untaken e whose p
///   is strictly greater (ties to the lower index; with NaN logits every p
///   is NaN and the first untaken expert is chosen); ids[t, slot] = e,
///   weights[t, slot] = p_e (-1 and -inf when TopK > experts leaves no
///   expert). Renormalize: weights[t, :] /= their sum in slot order.
/// Warp w routes tokens t0 + w, t0 + w + Threads / 32, ...; lane l holds
/// p of experts l, l + 32, ... in registers. The max and the top-k scans
/// reduce over the warp with shuffles (both orders give the same answer);
/// the sum is serial in e order (each q_e broadcast by shfl.idx, every lane
/// adding them in the same order), as the reference's bits require: about
/// E shuffle-and-add steps per token. Taken experts are marked by p = -1
/// (a real p is +0..1 or NaN).
/// Precondition: 1 <= experts <= kMoeMaxExperts; TopK <= experts for
/// valid ids.
template <int Threads, int Rows, int TopK, bool Renormalize, class T>
KGEN_DEVICE void moe_route(const T *logits, long tokens, long experts, long t0,
                           int *ids, float *weights) {
  static_assert(moe_threads_ok(Threads),
                "moe_route: whole warps (one token per warp at a time)");
  static_assert(Rows > 0 && TopK > 0, "moe_route: Rows and TopK positive");
  using namespace moe_detail;
  using kgen::cuda::fdiv_rn;
  constexpr int kWarps = Threads / 32;
  constexpr int kPerLane = kMoeMaxExperts / 32;
  constexpr float kTaken = -1.f;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const long t_end = lmin(t0 + Rows, tokens);
  for (long t = t0 + warp; t < t_end; t += kWarps) {
    const T *row = logits + t * experts;
    // p[k]: expert 32 k + lane (-inf past the last): the logit, then q,
    // then p. A whole k round is past the last expert for every lane or
    // for none, so the loops stop there together.
    float p[kPerLane];
#pragma unroll
    for (int k = 0; k < kPerLane; ++k) {
      if (32 * k >= experts)
        break;
      const long e = 32 * k + lane;
      p[k] = e < experts ? to_f32(row[e]) : minus_inf();
    }
    warp_softmax(p, experts);

    float total = 0.f;
#pragma unroll 1
    for (int slot = 0; slot < TopK; ++slot) {
      unsigned long long untaken = 0ull; // p < 0: taken, or past the last
#pragma unroll
      for (int k = 0; k < kPerLane; ++k) {
        if (32 * k >= experts)
          break;
        if (!(p[k] < 0.f))
          untaken |= 1ull << k;
      }
      const int chosen = warp_pick(p, untaken, experts);
      float mine = 0.f;
#pragma unroll
      for (int k = 0; k < kPerLane; ++k) {
        if (32 * k >= experts)
          break;
        if (32 * k + lane == chosen) {
          mine = p[k];
          p[k] = kTaken;
        }
      }
      write_slot<TopK>(mine, chosen, slot, t, ids, weights, total);
    }
    if (Renormalize)
      for (int slot = lane; slot < TopK; slot += 32) // the lane that wrote it
        weights[t * TopK + slot] = fdiv_rn(weights[t * TopK + slot], total);
  }
}

/// kgen.moe_route with the DeepSeek extensions (emitRoute in
/// passes/LowerToLoops.cpp with its RouteParams) for the tokens t in
/// [t0, min(t0 + Rows, tokens)), same layout as moe_route:
///   s_e = softmax as moe_route computes it, or (Sigmoid)
///         1 / (1 + expf(-l_e)) (fadd_rn, fdiv_rn);
///   c_e = s_e + bias[e] (HasBias; fadd_rn), else s_e;
///   NGroup > 1: group g = experts [g G, (g + 1) G), G = experts / NGroup,
///     scored by its two largest c (larger first, scanned as the reference
///     does: a NaN never enters) summed (HasBias) or its largest; TopkGroup
///     times the untaken group of largest score (ties to the lower index)
///     is kept; only the experts of kept groups are eligible;
///   TopK times: the eligible untaken expert of largest c (ties to the
///     lower index; the first eligible one when its c is NaN), its s the
///     weight; then weights /= their sum (Renormalize, slot order) and
///     *= scale when scale != 1.
/// A group's top two are each lane's, merged over the warp by shuffles: the
/// merge of two top-two pairs is the top two of their union, so any order
/// gives the reference's values (a +0 and a -0 may trade places, which no
/// comparison and no sum that decides anything can tell apart). Every lane
/// then picks the same groups from the same scores.
/// Precondition: 1 <= experts <= kMoeExtMaxExperts, experts % NGroup == 0,
/// TopK <= TopkGroup * experts / NGroup for valid ids; bias [experts] f32
/// when HasBias.
template <int Threads, int Rows, int TopK, bool Renormalize, bool Sigmoid,
          bool HasBias, int NGroup, int TopkGroup, class T>
KGEN_DEVICE void moe_route_ext(const T *logits, const float *bias,
                               long tokens, long experts, long t0, float scale,
                               int *ids, float *weights) {
  static_assert(moe_threads_ok(Threads),
                "moe_route_ext: whole warps (one token per warp at a time)");
  static_assert(Rows > 0 && TopK > 0, "moe_route_ext: Rows and TopK positive");
  static_assert(NGroup >= 1 && NGroup <= 32,
                "moe_route_ext: 1 to 32 expert groups (a bit mask of kept "
                "groups)");
  static_assert(TopkGroup >= 1 && TopkGroup <= NGroup,
                "moe_route_ext: topk_group in [1, n_group]");
  using namespace moe_detail;
  using kgen::cuda::fadd_rn;
  using kgen::cuda::fdiv_rn;
  using kgen::cuda::fmul_rn;
  using kgen::cuda::shfl_xor;
  constexpr int kWarps = Threads / 32;
  constexpr int kPerLane = kMoeExtMaxExperts / 32;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const long t_end = lmin(t0 + Rows, tokens);
  const long group_size = experts / NGroup;
  for (long t = t0 + warp; t < t_end; t += kWarps) {
    const T *row = logits + t * experts;
    // s[k], c[k]: expert 32 k + lane; bit k of `eligible`: that expert
    // exists, is untaken and (with groups) in a kept group.
    float s[kPerLane], c[kPerLane];
    unsigned eligible = 0u;
#pragma unroll
    for (int k = 0; k < kPerLane; ++k) {
      const long e = 32 * k + lane;
      s[k] = e < experts ? to_f32(row[e]) : minus_inf();
      if (e < experts)
        eligible |= 1u << k;
    }
    if (Sigmoid) {
#pragma unroll
      for (int k = 0; k < kPerLane; ++k)
        if (32 * k + lane < experts)
          s[k] = fdiv_rn(1.f, fadd_rn(1.f, expf(-s[k])));
    } else {
      warp_softmax(s, experts);
    }
#pragma unroll
    for (int k = 0; k < kPerLane; ++k) {
      const long e = 32 * k + lane;
      c[k] = (HasBias && e < experts) ? fadd_rn(s[k], bias[e]) : s[k];
    }
    if (NGroup > 1) {
      // score[g] on every lane: the top two of group g's choice scores.
      float score[NGroup];
#pragma unroll
      for (int g = 0; g < NGroup; ++g) {
        float m0 = minus_inf(), m1 = minus_inf();
#pragma unroll
        for (int k = 0; k < kPerLane; ++k) {
          const long e = 32 * k + lane;
          if (e < experts && e / group_size == g) {
            const float v = c[k];
            const bool above0 = v > m0, above1 = v > m1;
            m1 = above0 ? m0 : (above1 ? v : m1);
            m0 = above0 ? v : m0;
          }
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
          const float o0 = shfl_xor(m0, off), o1 = shfl_xor(m1, off);
          const float lo = o0 > m0 ? m0 : o0, hi = o0 > m0 ? o0 : m0;
          const float second = o1 > m1 ? o1 : m1;
          m0 = hi;
          m1 = second > lo ? second : lo;
        }
        score[g] = HasBias ? fadd_rn(m0, m1) : m0;
      }
      unsigned keep = 0u;
#pragma unroll 1
      for (int round = 0; round < TopkGroup; ++round) {
        int best = -1;
        float best_score = minus_inf();
#pragma unroll
        for (int g = 0; g < NGroup; ++g)
          if (!((keep >> g) & 1u) && (best < 0 || score[g] > best_score)) {
            best = g;
            best_score = score[g];
          }
        keep |= 1u << best;
      }
#pragma unroll
      for (int k = 0; k < kPerLane; ++k) {
        const long e = 32 * k + lane;
        if (e < experts && !((keep >> int(e / group_size)) & 1u))
          eligible &= ~(1u << k);
      }
    }

    float total = 0.f;
#pragma unroll 1
    for (int slot = 0; slot < TopK; ++slot) {
      const int chosen = warp_pick(c, eligible, experts);
      float mine = 0.f;
#pragma unroll
      for (int k = 0; k < kPerLane; ++k)
        if (32 * k + lane == chosen) {
          mine = s[k];
          eligible &= ~(1u << k);
        }
      write_slot<TopK>(mine, chosen, slot, t, ids, weights, total);
    }
    if (Renormalize || scale != 1.f)
      for (int slot = lane; slot < TopK; slot += 32) { // the lane that wrote it
        float w = weights[t * TopK + slot];
        if (Renormalize)
          w = fdiv_rn(w, total);
        if (scale != 1.f)
          w = fmul_rn(w, scale);
        weights[t * TopK + slot] = w;
      }
  }
}

/// offsets [2] = [0, rows]: the row groups of a grouped GEMM over every row
/// as one expert (a shared expert's). Thread 0 of block 0 writes them (the
/// call may sit in a kernel of any grid, as the routing's).
KGEN_DEVICE void moe_single_group(long rows, int *offsets) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    offsets[0] = 0;
    offsets[1] = int(rows);
  }
}

//===----------------------------------------------------------------------===//
// Permutation: ranks and rows
//===----------------------------------------------------------------------===//

/// Block e (of a grid of `experts` blocks) of kgen.moe_permute's positions
/// and offsets (lowerMoePermute). ids: [copies] i32 in (token, slot) order,
/// copies = tokens * top_k; positions [copies], offsets [experts + 1].
///   below = #{i : ids[i] in [0, e)}; offsets[e] = below;
///   positions[i] = below + #{j < i : ids[j] == e} for each i with
///   ids[i] == e;
///   block experts - 1: offsets[experts] = #{i : ids[i] in [0, experts)};
///   block 0: positions[i] = -1 for each i with ids[i] outside [0, experts).
/// Two passes over ids: the counts (per-thread counters, one block
/// reduction), then the ranks, kSub * Threads copies per round with one
/// ballot per warp and sub-round and one block barrier per round; a copy's
/// rank is the matches before it in earlier rounds, earlier sub-rounds,
/// earlier warps and earlier lanes. Nothing depends on the order threads
/// run in. Static shared memory: (2 * kSub + 2) * Threads / 32 ints.
template <int Threads>
KGEN_DEVICE void moe_rank(const int *ids, long copies, long experts, long e,
                          int *positions, int *offsets) {
  static_assert(moe_threads_ok(Threads), "moe_rank: whole warps");
  using kgen::cuda::ballot;
  using kgen::cuda::popc;
  constexpr int kWarps = Threads / 32;
  constexpr int kSub = 4; // sub-rounds of Threads copies per barrier
  static __shared__ int counts[2][kWarps];        // pass 1: below, valid
  static __shared__ int matches[2][kSub][kWarps]; // pass 2, double-buffered
  const int tid = int(threadIdx.x), warp = tid / 32, lane = tid % 32;

  int below = 0, valid = 0;
  for (long i = tid; i < copies; i += Threads) {
    const int id = ids[i];
    const bool ok = id >= 0 && id < experts;
    below += ok && id < e;
    valid += ok;
    if (e == 0 && !ok)
      positions[i] = -1;
  }
  below = moe_detail::warp_sum(below);
  valid = moe_detail::warp_sum(valid);
  if (lane == 0) {
    counts[0][warp] = below;
    counts[1][warp] = valid;
  }
  __syncthreads();
  below = 0;
  valid = 0;
  for (int w = 0; w < kWarps; ++w) {
    below += counts[0][w];
    valid += counts[1][w];
  }
  if (tid == 0) {
    offsets[e] = below;
    if (e == experts - 1)
      offsets[experts] = valid;
  }

  const unsigned lanes_before = (1u << lane) - 1u;
  int seen = below; // below + the matches of earlier rounds
  int buf = 0;
  for (long r0 = 0; r0 < copies; r0 += long(kSub) * Threads) {
    bool match[kSub];
    unsigned vote[kSub];
#pragma unroll
    for (int j = 0; j < kSub; ++j) {
      const long i = r0 + long(j) * Threads + tid;
      match[j] = i < copies && ids[i] == e;
    }
#pragma unroll
    for (int j = 0; j < kSub; ++j) {
      vote[j] = ballot(match[j]);
      if (lane == 0)
        matches[buf][j][warp] = int(popc(vote[j]));
    }
    __syncthreads();
    int before = 0; // matches of this round before sub-round j's warp
#pragma unroll
    for (int j = 0; j < kSub; ++j) {
      int earlier = 0, all = 0;
      for (int w = 0; w < kWarps; ++w) {
        const int n = matches[buf][j][w];
        earlier += w < warp ? n : 0;
        all += n;
      }
      if (match[j])
        positions[r0 + long(j) * Threads + tid] =
            seen + before + earlier + int(popc(vote[j] & lanes_before));
      before += all;
    }
    seen += before;
    buf ^= 1; // the next round writes the other buffer: one barrier a round
  }
}

/// Rows of kgen.moe_permute's permuted (lowerMoePermute) for the copies i
/// in [c0, min(c0 + Copies, tokens * top_k)): x [tokens, hidden], positions
/// [tokens * top_k] and offsets [experts + 1] from moe_rank, permuted
/// [tokens * top_k, hidden].
///   p = positions[i] in [0, tokens * top_k): permuted[p, :] = x[i / top_k, :];
///   i >= offsets[experts]: permuted[i, :] = 0 (the rows no copy fills).
/// A warp per copy; 16-byte vectors when hidden * sizeof(T) % 16 == 0 and
/// x and permuted are 16-byte aligned, elements otherwise.
template <int Threads, int Copies, class T>
KGEN_DEVICE void moe_gather(const T *x, const int *positions,
                            const int *offsets, long tokens, long top_k,
                            long experts, long hidden, long c0, T *permuted) {
  static_assert(moe_threads_ok(Threads),
                "moe_gather: whole warps (a warp per copy)");
  static_assert(Copies > 0, "moe_gather: Copies positive");
  constexpr int kWarps = Threads / 32;
  constexpr long kVec = 16 / long(sizeof(T));
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const long rows = tokens * top_k;
  const long c_end = lmin(c0 + Copies, rows);
  const long filled = offsets[experts];
  const bool vec = hidden * long(sizeof(T)) % 16 == 0 &&
                   moe_detail::aligned(x, 16) &&
                   moe_detail::aligned(permuted, 16);
  for (long i = c0 + warp; i < c_end; i += kWarps) {
    const long p = positions[i];
    if (p >= 0 && p < rows) {
      const T *src = x + (i / top_k) * hidden;
      T *dst = permuted + p * hidden;
      if (vec)
        for (long v = lane; v < hidden / kVec; v += 32)
          reinterpret_cast<uint4 *>(dst)[v] =
              reinterpret_cast<const uint4 *>(src)[v];
      else
        for (long h = lane; h < hidden; h += 32)
          dst[h] = src[h];
    }
    if (i >= filled) {
      T *dst = permuted + i * hidden;
      if (vec)
        for (long v = lane; v < hidden / kVec; v += 32)
          reinterpret_cast<uint4 *>(dst)[v] = make_uint4(0u, 0u, 0u, 0u);
      else
        for (long h = lane; h < hidden; h += 32)
          dst[h] = T{};
    }
  }
}

/// kgen.tile.act_quant: for rows r in [r0, min(r0 + Rows, rows)) of a
/// [rows, k] and each 128-column block b of the row (the last may be
/// partial): s = max(amax, 1e-4) / 448 with amax the largest |a[r, c]| of
/// the block (a NaN wins, as arith.maximumf), scale[r, b] = s, and
/// q[r, c] = e4m3(a[r, c] / s) (div.rn, then round to nearest even,
/// saturating at +-448: cvt.rn.satfinite), exactly the reference's
/// emitQuantiseRow. A warp per (row, block), 4 columns a lane, the amax a
/// butterfly over the warp.
template <int Threads, int Rows, class T>
KGEN_DEVICE void act_quant(const T *a, long rows, long k, long r0,
                           __nv_fp8_e4m3 *q, float *scale) {
  static_assert(moe_threads_ok(Threads), "act_quant: whole warps");
  static_assert(Rows > 0, "act_quant: Rows positive");
  constexpr int kWarps = Threads / 32;
  constexpr long kBlock = 128, kPerLane = kBlock / 32;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const long blocks = (k + kBlock - 1) / kBlock;
  const long pairs = (lmin(r0 + Rows, rows) - r0) * blocks;
  unsigned char *qb = reinterpret_cast<unsigned char *>(q);
  for (long p = warp; p < pairs; p += kWarps) {
    const long r = r0 + p / blocks, blk = p % blocks;
    const long c0 = blk * kBlock, n = lmin(kBlock, k - c0);
    float v[kPerLane];
    float amax = 0.f;
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      const long c = lane * kPerLane + j;
      v[j] = c < n ? to_f32(a[r * k + c0 + c]) : 0.f;
      amax = moe_detail::max_nan(amax, fabsf(v[j]));
    }
#pragma unroll
    for (int m = 16; m >= 1; m /= 2)
      amax = moe_detail::max_nan(amax, kgen::cuda::shfl_xor(amax, m));
    const float s =
        kgen::cuda::fdiv_rn(moe_detail::max_nan(amax, 1e-4f), 448.f);
    if (lane == 0)
      scale[r * blocks + blk] = s;
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      const long c = lane * kPerLane + j;
      if (c < n)
        qb[r * k + c0 + c] = (unsigned char)(
            kgen::cuda::cvt_e4m3x2(0.f, kgen::cuda::fdiv_rn(v[j], s)) & 0xffu);
    }
  }
}

//===----------------------------------------------------------------------===//
// Grouped GEMM tile scheduler
//===----------------------------------------------------------------------===//

/// Which rows m tile `tile` of a grouped GEMM over all experts covers
/// (lowerGroupedGemm's groups). offsets: [experts + 1], non-decreasing once
/// clamped (what moe_rank writes); rows: the GEMM's rows (tokens * top_k).
/// The groups, in order: the head [0, lo_0); expert e's rows [lo_e, hi_e)
/// with lo_e = clamp(offsets[e], 0, rows), hi_e = clamp(offsets[e + 1],
/// lo_e, rows), e = 0 .. experts - 1; the tail [hi_{experts-1}, rows). A
/// group of n rows has ceil(n / BlockM) tiles, numbered group after group.
/// The j-th tile of group g: row0 = g's start + j * BlockM, row_end = g's
/// end, expert = e and live = 1 for expert e's group, expert = 0 and live
/// = 0 for the head and tail (the kernel writes zeros there). Past the
/// last group: row0 = row_end = rows, expert = 0, live = 0.
/// Warp-cooperative, every lane of every warp gets the same answer: round
/// r gives lane l group 32 r + l (two loads of offsets), an inclusive warp
/// scan of the tile counts (5 shfl.up) and one ballot finds the group of
/// `tile`; ceil((experts + 2) / 32) rounds at most (9 for 256 experts),
/// stopping at the tile's round. Precondition: called by whole warps with
/// the same arguments; experts >= 1; tile >= 0; rows < 2^31.
template <int BlockM>
KGEN_DEVICE GroupTile group_tile(const int *offsets, long experts, long rows,
                                 long tile) {
  static_assert(BlockM > 0, "group_tile: BlockM positive");
  using kgen::cuda::shfl_idx_u32;
  using moe_detail::clamp;
  const int lane = int(threadIdx.x) % 32;
  const long groups = experts + 2; // head, the experts, tail
  long before = 0;                 // tiles of the groups of earlier rounds
  for (long g0 = 0; g0 < groups; g0 += 32) {
    const long g = g0 + lane;
    long start = rows, end = rows; // past the tail: an empty group
    if (g == 0) {
      start = 0;
      end = clamp(offsets[0], 0, rows);
    } else if (g <= experts) {
      start = clamp(offsets[g - 1], 0, rows);
      end = clamp(offsets[g], start, rows);
    } else if (g == experts + 1) {
      start = clamp(offsets[experts], clamp(offsets[experts - 1], 0, rows),
                    rows);
    }
    const unsigned n = unsigned((end - start + BlockM - 1) / BlockM);
    unsigned incl = n; // tiles of groups g0 .. g
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const unsigned up = kgen::cuda::shfl_up_u32(incl, d);
      if (lane >= d)
        incl += up;
    }
    const unsigned hit = kgen::cuda::ballot(tile < before + long(incl));
    if (hit != 0) { // the tile's group is the lowest lane that counts past it
      const int f = int(kgen::cuda::popc(hit ^ (hit - 1u))) - 1;
      const long f_start = shfl_idx_u32(unsigned(start), f);
      const long f_end = shfl_idx_u32(unsigned(end), f);
      const long f_first = before + long(shfl_idx_u32(incl - n, f));
      const long gf = g0 + f;
      const bool live = gf >= 1 && gf <= experts;
      return {live ? gf - 1 : 0, f_start + (tile - f_first) * BlockM, f_end,
              live ? 1 : 0};
    }
    before += long(shfl_idx_u32(incl, 31));
  }
  return {0, rows, rows, 0};
}

//===----------------------------------------------------------------------===//
// Combine
//===----------------------------------------------------------------------===//

/// kgen.moe_combine (lowerMoeCombine) for tokens t in [t0, min(t0 + Tokens,
/// tokens)): expert_out [rows, hidden], positions and weights [tokens,
/// top_k], y [tokens, hidden]:
///   y[t, h] = round_OutT(acc), acc = 0.0f, then for s = 0 .. top_k - 1 with
///   p = positions[t, s] in [0, rows): acc = acc + weights[t, s] *
///   expert_out[p, h] (f32 mul, then f32 add: never fused); then, with a
///   shared expert (shared [tokens, hidden], else nullptr), acc = acc +
///   shared[t, h].
/// rows = tokens * top_k. The block's threads split each token's columns:
/// 16-byte loads of expert_out when hidden * sizeof(T) % 16 == 0,
/// expert_out is 16-byte aligned and y is aligned to two elements (pair
/// stores) (and shared, when given, is 16-byte aligned), elements
/// otherwise; the same arithmetic on both paths.
template <int Threads, int Tokens, class T, class W, class OutT>
KGEN_DEVICE void moe_combine(const T *expert_out, const int *positions,
                             const W *weights,
                             const typename moe_detail::Same<T>::type *shared,
                             long tokens,
                             long top_k, long rows, long hidden, long t0,
                             OutT *y) {
  static_assert(moe_threads_ok(Threads), "moe_combine: whole warps");
  static_assert(Tokens > 0, "moe_combine: Tokens positive");
  using kgen::cuda::fadd_rn;
  using kgen::cuda::fmul_rn;
  using Cast = kgen::cuda::OutputCast<OutT>;
  constexpr int kVec = 16 / int(sizeof(T));
  const int tid = int(threadIdx.x);
  const long t_end = lmin(t0 + Tokens, tokens);
  const bool vec = hidden * long(sizeof(T)) % 16 == 0 &&
                   moe_detail::aligned(expert_out, 16) &&
                   (shared == nullptr || moe_detail::aligned(shared, 16)) &&
                   moe_detail::aligned(y, 2 * sizeof(OutT));
  for (long t = t0; t < t_end; ++t) {
    const int *pos = positions + t * top_k;
    const W *wt = weights + t * top_k;
    if (vec) {
      for (long h = long(tid) * kVec; h < hidden; h += long(Threads) * kVec) {
        float acc[kVec];
#pragma unroll
        for (int j = 0; j < kVec; ++j)
          acc[j] = 0.f;
        for (long s = 0; s < top_k; ++s) {
          const long p = pos[s];
          if (p < 0 || p >= rows)
            continue;
          const float w = to_f32(wt[s]);
          alignas(16) T v[kVec];
          *reinterpret_cast<uint4 *>(v) =
              *reinterpret_cast<const uint4 *>(expert_out + p * hidden + h);
#pragma unroll
          for (int j = 0; j < kVec; ++j)
            acc[j] = fadd_rn(acc[j], fmul_rn(w, to_f32(v[j])));
        }
        if (shared != nullptr) { // the shared expert, after the routed slots
          alignas(16) T z[kVec];
          *reinterpret_cast<uint4 *>(z) =
              *reinterpret_cast<const uint4 *>(shared + t * hidden + h);
#pragma unroll
          for (int j = 0; j < kVec; ++j)
            acc[j] = fadd_rn(acc[j], to_f32(z[j]));
        }
#pragma unroll
        for (int j = 0; j < kVec; j += 2)
          Cast::store2(y + t * hidden + h + j, acc[j], acc[j + 1]);
      }
    } else {
      for (long h = tid; h < hidden; h += Threads) {
        float acc = 0.f;
        for (long s = 0; s < top_k; ++s) {
          const long p = pos[s];
          if (p < 0 || p >= rows)
            continue;
          acc = fadd_rn(acc, fmul_rn(to_f32(wt[s]),
                                     to_f32(expert_out[p * hidden + h])));
        }
        if (shared != nullptr)
          acc = fadd_rn(acc, to_f32(shared[t * hidden + h]));
        Cast::store1(y + t * hidden + h, acc);
      }
    }
  }
}

#endif // KGEN_CUDA_COMPILER

} // namespace kgen::block

#endif // KGEN_BLOCK_MOE_CUH
