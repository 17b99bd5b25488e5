//===- AttentionSm90.cuh - FA3-style attention steps for sm_90a -*- CUDA -*-===//
//
// The sm_90a (`wgmma`) realisation of docs/attention.md's tile-level form:
// FlashAttention-3's warp-specialised schedule. The tile ops keep their
// meaning (dialect/KgenTileOps.td; the CPU check runs those definitions);
// what changes is who runs them and how the operands move:
//
//   warpgroup 0 produces: it gives registers back (setmaxnreg.dec), and one
//     thread issues the TMA loads: the Q tile once (on `q_full`), then for
//     each key tile of the block the K and the V tile into the next stage of
//     the ring once that stage is free (its `empty` mbarrier), each on its
//     own `full` barrier (the QK^T of a tile need not wait for its V);
//   warpgroups 1 .. Consumers consume (setmaxnreg.inc): warpgroup w owns the
//     64 rows [64 (w - 1), 64 w) of the block's BM = 64 * Consumers rows.
//     Per key tile: S = Q K^T by wgmma (Q and K from shared memory, both
//     K-major), the online softmax on the accumulators (the FA2 step of
//     kgen/block/Attention.cuh: a wgmma m64nN accumulator is, warp by warp,
//     the m16n8 fragment layout of a 16-row warp tile), P packed from S's
//     registers into wgmma A fragments, O += P V by wgmma with A from
//     registers and V from shared memory (MN-major B), then the stage is
//     freed (one arrive per consumer warpgroup).
//   ping-pong (PingPong, Consumers >= 2): the consumer warpgroups take turns
//     to issue their GEMMs through a ring of named barriers (warpgroup w
//     waits on barrier w, then signals barrier w + 1, the last the first),
//     so one warpgroup's softmax runs while the next one's GEMMs keep the
//     tensor cores busy (FA3's inter-warpgroup overlap).
//
// The registers of the consumer steps are the FA2 types with 64 rows over
// 4 warps: AttentionScores<64, BN, 4>, AttentionRowStats<64, 4> and
// AttentionAccumulator<64, Dp, 4> (their row maps take the thread index
// modulo 128, the warpgroup's thread).
//
//   AttentionSm90<T, BN, Dp, Stages, Consumers, PingPong>
//     kThreads, kSmemBytes, kProducerRegs, kConsumerRegs   constants
//     AttentionSm90()                  every thread: carves the shared
//                                      memory, thread 0 initialises the
//                                      barriers, then __syncthreads()
//     producer()                       true in warpgroup 0
//     start_producer() -> bool         setmaxnreg.dec; true for the one
//                                      thread that issues the loads
//     load_q(map_q, r0, hk, b)         the Q tile, rows [r0, r0 + BM) of
//                                      plane (b, hk) of the packed view
//     acquire() -> int                 waits for the next free stage
//     load_k(map_k, st, key0, hk, b)   K rows [key0, key0 + BN) into st
//     load_v(map_v, st, key0, hk, b)   V likewise
//     loaded()                         moves to the next stage
//     start_consumer(kt_begin, kt_end) setmaxnreg.inc; waits for Q; the
//                                      ping-pong ring's first turn
//     rows0()                          this warpgroup's first block row
//     read_stage() -> int              the stage of the current key tile
//     qk(s, st, more)                  kgen.tile.qk by wgmma; `more`: a
//                                      later key tile follows (ping-pong)
//     pv(acc, s, st)                   kgen.tile.pv by wgmma (P from s)
//     release(st)                      frees the stage, moves to the next
//   e4m3 (FlashAttention-3's FP8 path: T = __nv_fp8_e4m3, m64nNk32):
//     transposer()                     true in warps 1 .. 3 of warpgroup 0
//     transpose_v()                    the next key tile's V, transposed
//                                      into V^T (kVtOffset): e4m3 wgmma
//                                      reads K-major operands only
//   with overlap_softmax (FA3's intra-warpgroup pipelining, Stages >= 2),
//   in place of qk, pv and release:
//     qk_over_pv(s, acc, st, more)     QK^T of this key tile issued with the
//                                      previous tile's P V; waits for S
//     online_softmax(s, stats, scale, ...)  (the rescale kept in a Scale)
//     pv_next(acc, s, scale, st)       waits for that P V, frees its stage,
//                                      rescales O, packs P; moves on
//     finish_pv(acc)                   the last key tile's P V
//
// FP8 (T = __nv_fp8_e4m3): Q, K and V land as 64-byte-swizzled e4m3 tiles
// (boxes of 64 elements, CU_TENSOR_MAP_SWIZZLE_64B); QK^T is one k32 wgmma
// per 32 columns of Dp. e4m3 wgmma has no transpose, so P V's B operand is
// V^T (Dp rows of BN keys): warps 1 .. 3 of the producer warpgroup wait for
// each V tile (its `full` barrier), write it transposed, fence the writes
// for the async proxy and arrive on the stage's `vt_full` (96 arrivals),
// which P V waits for instead. P is rounded to e4m3 and packed into the
// k32 A fragments straight from S's registers: thread (g, q) of a warp holds
// keys 2q, 2q + 1, 2q + 8, 2q + 9 (+16) of each 32-key slice where the A
// fragment wants keys 4q .. 4q + 3 (+16) (WgmmaAFragMap8), so V^T stores
// the keys of a slice in that order, key 16h + 8b + 2q + e at position
// 16h + 4q + 2b + e (fp8_key_position, fp8_slice_key; pack() and
// transpose_v() index through them and fp8_p_accumulator, which a
// static_assert checks against the fragment maps): P V sums over keys, and any order
// both operands share gives the same sums (FA3 permutes P's bytes in
// registers instead).
//
// Preconditions (static_asserts; dialect/AttentionLegality.cpp states the
// same rules): T __nv_bfloat16, __half or __nv_fp8_e4m3; Dp a multiple of
// 64 in [64, 256] (whole 128-byte swizzle blocks, 64-byte for e4m3; V is an
// MN-major wgmma B operand); BN a multiple of 16 in [16, 256] (of 64 for
// e4m3: V^T's 64-byte blocks of keys); Consumers 1 to 3; Stages >= 1; the
// setmaxnreg split within the 64K registers; kSmemBytes <= 232448.
// blockDim.x == kThreads, __launch_bounds__(kThreads, 1), dynamic shared
// memory kSmemBytes. The tensor maps view q, k and v as 4-D tensors
// (b, hk, rows, D) with boxes {1, 1, rows, 64} (BM rows for Q, BN for K and
// V) and CU_TENSOR_MAP_SWIZZLE_128B (64B for e4m3): TMA zero-fills rows past the plane and
// columns past D. Rows of K and V past a sequence's kv_len inside the plane
// are loaded, masked out of S and multiplied by P = 0: they must hold
// finite values (the mma_sync kernels never read them).
// Target: sm_90a.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_BLOCK_ATTENTIONSM90_CUH
#define KGEN_BLOCK_ATTENTIONSM90_CUH

#include "kgen/block/Attention.cuh"
#include "kgen/block/Pipeline.cuh"
#include "kgen/cuda/Tma.cuh"
#include "kgen/cuda/Wgmma.cuh"

namespace kgen::block {

/// An AttentionScores<64, N, 4> register tile is a wgmma m64nN accumulator:
/// thread t of the warpgroup holds the same (row, col) at the same index.
template <int N> KGEN_HD constexpr bool warp_tiles_are_wgmma_accumulators() {
  using Warp = kgen::cuda::WarpTileAccMap<16, N>;
  using Group = kgen::cuda::WgmmaAccMap<N>;
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < Group::kAccPerThread; ++i) {
      const kgen::cuda::RowCol w = Warp::acc(t % 32, i);
      const kgen::cuda::RowCol g = Group::acc(t, i);
      if (g.row != 16 * (t / 32) + w.row || g.col != w.col)
        return false;
    }
  return true;
}
static_assert(warp_tiles_are_wgmma_accumulators<64>() &&
                  warp_tiles_are_wgmma_accumulators<256>(),
              "the FA2 register tiles do not line up with wgmma accumulators");

/// FP8 P V: where key k (0 .. 31) of a 32-key slice sits in V^T's row, so
/// that P's e4m3 A fragment comes straight from S's accumulators: key
/// 16h + 8b + 2q + e at 16h + 4q + 2b + e (see the file comment).
KGEN_HD constexpr int fp8_key_position(int k) {
  const int h = k / 16, b = (k / 8) % 2, q = (k % 8) / 2, e = k % 2;
  return 16 * h + 4 * q + 2 * b + e;
}

/// The inverse: the key at position `pos` (0 .. 31) of a V^T slice, which
/// AttentionSm90::transpose_v reads for it.
KGEN_HD constexpr int fp8_slice_key(int pos) {
  const int h = pos / 16, q = (pos % 16) / 4, b = (pos % 4) / 2, e = pos % 2;
  return 16 * h + 8 * b + 2 * q + e;
}

/// The accumulator of AttentionScores<64, BN, 4>::v (n-tile major, four a
/// tile) that AttentionSm90::pack puts into byte e (0 .. 3) of A register r
/// (0 .. 3) of k32 slice kk: accumulators (2 (r % 2), + 1) of n-tiles
/// 4 kk + 2 (r / 2), + 1 (same rows, adjacent key pairs).
KGEN_HD constexpr int fp8_p_accumulator(int kk, int r, int e) {
  return (4 * kk + 2 * (r / 2) + e / 2) * 4 + 2 * (r % 2) + e % 2;
}

/// Every A-fragment byte pack() fills holds the S element of the byte's
/// row (kgen::cuda::WgmmaAFragMap8) and of the key V^T has at the byte's
/// column, and transpose_v's positions are a permutation of the slice.
KGEN_HD constexpr bool fp8_p_matches_vt() {
  for (int pos = 0; pos < 32; ++pos)
    if (fp8_key_position(fp8_slice_key(pos)) != pos)
      return false;
  for (int t = 0; t < 128; ++t)
    for (int byte = 0; byte < 16; ++byte) {
      const kgen::cuda::RowCol a = kgen::cuda::WgmmaAFragMap8::a_elem(t, byte);
      const kgen::cuda::RowCol c = kgen::cuda::WgmmaAccMap<32>::acc(
          t, fp8_p_accumulator(0, byte / 4, byte % 4));
      if (a.row != c.row || c.col != fp8_slice_key(a.col))
        return false;
    }
  return true;
}
static_assert(fp8_p_matches_vt(),
              "P's e4m3 A fragments do not line up with V^T's key order");

#if KGEN_CUDA_COMPILER

template <class T, int BN, int Dp, int Stages, int Consumers, bool PingPong>
struct AttentionSm90 {
  static constexpr int BM = 64 * Consumers;
  static constexpr int kThreads = 128 * (1 + Consumers);
  /// setmaxnreg split, as the gemm family's (GemmSm90.cuh).
  static constexpr int kProducerRegs = Consumers == 3 ? 32 : 40;
  static constexpr int kConsumerRegs = Consumers == 3 ? 160 : 232;
  static constexpr int kMaxSmemBytes = 232448;

  /// FlashAttention-3's FP8 path: e4m3 Q, K and V (k32 wgmmas, V^T).
  static constexpr bool kFp8 = kgen::cuda::kIsSame<T, __nv_fp8_e4m3>;
  static_assert(kgen::cuda::kIsSame<T, __nv_bfloat16> ||
                    kgen::cuda::kIsSame<T, __half> || kFp8,
                "wgmma attention takes bf16, f16 or e4m3 operands");
  static_assert(!kFp8 || BN % 64 == 0,
                "e4m3 wgmma attention: BN is a multiple of 64 (V^T's rows "
                "are 64-byte swizzle blocks of keys)");
  static_assert(Dp % 64 == 0 && Dp >= 64 && Dp <= 256,
                "wgmma attention: the tile head dim Dp is a multiple of 64 in "
                "[64, 256] (whole 128-byte swizzle blocks; PV's N)");
  static_assert(BN % 16 == 0 && BN >= 16 && BN <= 256,
                "wgmma attention: BN is a multiple of 16 (PV's k) in [16, 256] "
                "(QK^T's N)");
  static_assert(Consumers >= 1 && Consumers <= 3,
                "one to three consumer warpgroups");
  static_assert(!PingPong || Consumers >= 2,
                "ping-pong takes turns between two or more warpgroups");
  static_assert(Stages >= 1, "at least one K/V stage");
  static_assert(kProducerRegs * 128 + kConsumerRegs * 128 * Consumers <= 65536,
                "the setmaxnreg split fits the 64K registers of the SM");

  using Swz = kgen::cuda::Swizzle;
  using Major = kgen::cuda::Major;
  /// Boxes of 64 elements: 128-byte rows of 16 bits, 64-byte rows of e4m3.
  static constexpr Swz kSwizzle = kFp8 ? Swz::B64 : Swz::B128;
  /// Elements of K in one wgmma: 16 (k16), 32 for e4m3 (k32).
  static constexpr int kK = kFp8 ? 32 : 16;
  using LQ = kgen::cuda::RowMajorSwizzled<T, BM, Dp, kSwizzle>;
  using LK = kgen::cuda::RowMajorSwizzled<T, BN, Dp, kSwizzle>;
  using OpQ = kgen::cuda::WgmmaOperand<LQ, Major::K, kK>;
  using OpK = kgen::cuda::WgmmaOperand<LK, Major::K, kK>;
  /// P V's B operand: the V tile (keys, Dp), MN-major; for e4m3 V^T, Dp
  /// rows of BN keys (fp8_key_position's order in each slice of 32), the
  /// K-major operand e4m3 wgmma reads.
  using LVt = kgen::cuda::RowMajorSwizzled<T, Dp, BN, Swz::B64>;
  using OpV = kgen::cuda::ConditionalT<
      kFp8, kgen::cuda::WgmmaOperand<LVt, Major::K, 32>,
      kgen::cuda::WgmmaOperand<LK, Major::MN, 16>>;
  using Scores = AttentionScores<64, BN, 4>;
  using Acc = AttentionAccumulator<64, Dp, 4>;

  static constexpr int kQBytes = LQ::kBytes, kKvBytes = LK::kBytes;
  static constexpr int kVtBytes = kFp8 ? Dp * BN : 0; // LVt's
  static constexpr int kKOffset = kQBytes;
  static constexpr int kVOffset = kKOffset + Stages * kKvBytes;
  static constexpr int kVtOffset = kVOffset + Stages * kKvBytes;
  static constexpr int kBarOffset = kVtOffset + Stages * kVtBytes;
  /// q_full; per stage k_full, v_full, empty (and vt_full for e4m3).
  static constexpr int kBarriers = 1 + (kFp8 ? 4 : 3) * Stages;
  /// FP8: warps 1 .. 3 of the producer warpgroup transpose V.
  static constexpr int kTransposers = 96;
  /// 1 KiB of alignment slack (the 128-byte swizzle repeats every 1 KiB),
  /// the tiles, then the mbarriers.
  static constexpr int kSmemBytes = 1024 + kBarOffset + 8 * kBarriers;
  static_assert(kSmemBytes <= kMaxSmemBytes,
                "kSmemBytes <= 232448 (sm_90's opt-in shared memory per "
                "block): fewer stages or a smaller tile");

  char *smem;
  unsigned long long *q_full, *k_full, *v_full, *empty, *vt_full;
  PipelineState<Stages> write, read;
  /// FP8: the transposers' position in the ring of V tiles.
  PipelineState<Stages> transposed;

  KGEN_DEVICE AttentionSm90() {
    extern __shared__ __align__(128) unsigned char smemRaw[];
    smem = reinterpret_cast<char *>(
        (reinterpret_cast<unsigned long long>(smemRaw) + 1023) & ~1023ull);
    q_full = reinterpret_cast<unsigned long long *>(smem + kBarOffset);
    k_full = q_full + 1;
    v_full = k_full + Stages;
    empty = v_full + Stages;
    vt_full = empty + Stages; // (e4m3 only)
    write = producer_start<Stages>();
    read = PipelineState<Stages>{};
    transposed = PipelineState<Stages>{};
    if (threadIdx.x == 0) {
      kgen::cuda::mbar_init(q_full, 1);
      for (int s = 0; s < Stages; ++s) {
        kgen::cuda::mbar_init(&k_full[s], 1); // producer + bytes
        kgen::cuda::mbar_init(&v_full[s], 1);
        kgen::cuda::mbar_init(&empty[s], Consumers);
        if constexpr (kFp8)
          kgen::cuda::mbar_init(&vt_full[s], kTransposers);
      }
      kgen::cuda::fence_barrier_init();
    }
    __syncthreads();
  }

  KGEN_DEVICE static bool producer() { return threadIdx.x < 128; }

  //===--------------------------------------------------------------------===//
  // Producer warpgroup
  //===--------------------------------------------------------------------===//

  KGEN_DEVICE static bool start_producer() {
    kgen::cuda::warpgroup_reg_dealloc<kProducerRegs>();
    return threadIdx.x == 0;
  }

  KGEN_DEVICE void load_q(const CUtensorMap *map, long r0, long hk, long b) {
    kgen::cuda::prefetch_tensormap(map);
    kgen::cuda::mbar_arrive_expect_tx(q_full, kQBytes);
    kgen::cuda::tma_load_tile<LQ>(smem, map, q_full, 0, int(r0), int(hk),
                                  int(b));
  }

  /// Waits until the consumers freed the next stage; returns it.
  KGEN_DEVICE int acquire() {
    kgen::cuda::mbar_wait(&empty[write.index], write.phase);
    return write.index;
  }
  KGEN_DEVICE void load_k(const CUtensorMap *map, int st, long key0, long hk,
                          long b) {
    kgen::cuda::mbar_arrive_expect_tx(&k_full[st], kKvBytes);
    kgen::cuda::tma_load_tile<LK>(smem + kKOffset + st * kKvBytes, map,
                                  &k_full[st], 0, int(key0), int(hk), int(b));
  }
  KGEN_DEVICE void load_v(const CUtensorMap *map, int st, long key0, long hk,
                          long b) {
    kgen::cuda::mbar_arrive_expect_tx(&v_full[st], kKvBytes);
    kgen::cuda::tma_load_tile<LK>(smem + kVOffset + st * kKvBytes, map,
                                  &v_full[st], 0, int(key0), int(hk), int(b));
  }
  KGEN_DEVICE void loaded() { ++write; }

  /// FP8: the producer warpgroup's warps 1 .. 3 (start_producer first).
  KGEN_DEVICE static bool transposer() {
    return kFp8 && threadIdx.x >= 32 && threadIdx.x < 32 + kTransposers;
  }

  /// FP8: waits for the next key tile's V (stage transposed.index), writes
  /// V^T[d][fp8_key_position(key)] = V[key][d] into its V^T stage, makes
  /// the writes visible to wgmma (the async proxy) and arrives on the
  /// stage's vt_full. The V^T stage is free: the consumers freed the stage
  /// (empty) before the producer loaded this V into it. Each step moves a
  /// 4 x 4 block of bytes: keys 16h + {2q, 2q + 1, 2q + 8, 2q + 9} of a
  /// slice (one 32-bit word of V^T's row once transposed) by 4 head dims.
  KGEN_DEVICE void transpose_v() {
    static_assert(kFp8, "only e4m3 V is transposed");
    const int st = transposed.index;
    kgen::cuda::mbar_wait(&v_full[st], transposed.phase);
    const char *v = smem + kVOffset + st * kKvBytes;
    char *vt = smem + kVtOffset + st * kVtBytes;
    constexpr int kSlices = BN / 32, kUnits = (Dp / 4) * kSlices * 8;
    for (int u = int(threadIdx.x) - 32; u < kUnits; u += kTransposers) {
      const int pos = 4 * (u % 8); // in the slice: one 32-bit word of V^T
      const int slice = (u / 8) % kSlices, d0 = 4 * (u / (8 * kSlices));
      unsigned in[4]; // the word's four keys (fp8_slice_key), 4 head dims
#pragma unroll
      for (int m = 0; m < 4; ++m)
        in[m] = kgen::cuda::ld_shared(reinterpret_cast<const unsigned *>(
            v + LK::byte_offset(32 * slice + fp8_slice_key(pos + m), d0)));
#pragma unroll
      for (int i = 0; i < 4; ++i) // byte i of each key: head dim d0 + i
        kgen::cuda::st_shared(
            reinterpret_cast<unsigned *>(
                vt + LVt::byte_offset(d0 + i, 32 * slice + pos)),
            ((in[0] >> (8 * i)) & 0xffu) | (((in[1] >> (8 * i)) & 0xffu) << 8) |
                (((in[2] >> (8 * i)) & 0xffu) << 16) |
                ((in[3] >> (8 * i)) << 24));
    }
    kgen::cuda::fence_proxy_async(); // the writes, for wgmma's reads
    kgen::cuda::mbar_arrive(&vt_full[st]);
    ++transposed;
  }

  //===--------------------------------------------------------------------===//
  // Consumer warpgroups
  //===--------------------------------------------------------------------===//

  /// This thread's consumer warpgroup, 0 .. Consumers - 1.
  KGEN_DEVICE static int group() { return int(threadIdx.x / 128) - 1; }
  KGEN_DEVICE static long rows0() { return 64l * group(); }
  /// Named barrier 0 is __syncthreads; the ring uses 1 .. Consumers.
  KGEN_DEVICE static unsigned turn_barrier(int g) { return 1u + unsigned(g); }

  /// setmaxnreg.inc, then waits for the Q tile. With ping-pong the last
  /// warpgroup hands the first turn to the first, when there is a key tile.
  KGEN_DEVICE void start_consumer(long kt_begin, long kt_end) {
    kgen::cuda::warpgroup_reg_alloc<kConsumerRegs>();
    if constexpr (PingPong)
      if (group() == Consumers - 1 && kt_begin < kt_end)
        kgen::cuda::named_barrier_arrive(turn_barrier(0), 256);
    kgen::cuda::mbar_wait(q_full, 0);
  }

  KGEN_DEVICE int read_stage() const { return read.index; }

  /// s = Q[rows0 .. +64, 0:Dp] K[0:BN, 0:Dp]^T (kgen.tile.qk). `more`: the
  /// block has a later key tile (the ping-pong ring's last signal is left
  /// out so that no barrier is left half-arrived at the exit).
  KGEN_DEVICE void qk(Scores &s, int st, bool more) {
    take_turn(st);
    kgen::cuda::wgmma_fence();
    issue_qk(s, st);
    kgen::cuda::wgmma_commit();
    if constexpr (PingPong)
      pass_turn(more);
    kgen::cuda::wgmma_wait<0>();
    kgen::cuda::fence_operand(s.v);
  }

  /// acc += round_T(P) V[0:BN, 0:Dp], P = s (kgen.tile.pv): P's registers
  /// are the A fragments of the k16 slices (the FA2 packing: an m16n8k16 A
  /// fragment is a wgmma A fragment, warp by warp).
  KGEN_DEVICE void pv(Acc &acc, const Scores &s, int st) {
    pack(s);
    run_pv(acc, st, read.phase);
  }

  /// The warpgroup is done with stage st: one arrive on its `empty`.
  KGEN_DEVICE void release(int st) {
    release_stage(st);
    ++read;
  }

  //===--------------------------------------------------------------------===//
  // overlap_softmax: FA3's intra-warpgroup pipelining
  //===--------------------------------------------------------------------===//
  //
  // Per key tile kt (stage st): qk_over_pv issues QK^T(kt) and, under it,
  // the P V of the previous tile, then waits for S only; online_softmax
  // (s, stats, scale, ...) runs while that P V is in flight, keeping the
  // rescale factors; pv_next waits for the P V, frees its stage, rescales O
  // and packs P(kt); finish_pv issues the last tile's P V. Needs Stages >= 2
  // (tile kt's K lands while the previous tile's stage is still held).

  using Scale = AttentionRowScale<64, 4>;

  KGEN_DEVICE void qk_over_pv(Scores &s, Acc &acc, int st, bool more) {
    static_assert(Stages >= 2, "overlap_softmax holds two stages at once");
    take_turn(st);
    kgen::cuda::fence_operand(acc.v);
    kgen::cuda::wgmma_fence();
    issue_qk(s, st);
    kgen::cuda::wgmma_commit();
    if (has_prev) {
      wait_pv_operand(prev.index, prev.phase);
      issue_pv(acc, prev.index);
      kgen::cuda::wgmma_commit();
    }
    if constexpr (PingPong)
      pass_turn(more);
    if (has_prev)
      kgen::cuda::wgmma_wait<1>(); // S; the P V may still run
    else
      kgen::cuda::wgmma_wait<0>();
    kgen::cuda::fence_operand(s.v);
  }

  KGEN_DEVICE void pv_next(Acc &acc, const Scores &s, const Scale &scale,
                           int /*st*/) {
    if (has_prev) {
      kgen::cuda::wgmma_wait<0>(); // the previous P V is done
      kgen::cuda::fence_operand(acc.v);
      release_stage(prev.index);
    }
    acc.rescale(scale);
    pack(s);
    prev = read;
    has_prev = true;
    ++read;
  }

  KGEN_DEVICE void finish_pv(Acc &acc) {
    if (!has_prev)
      return;
    run_pv(acc, prev.index, prev.phase);
    release_stage(prev.index);
    has_prev = false;
  }

private:
  /// P of the last packed key tile: the A fragments of its P V (one per
  /// k16 slice; e4m3, per k32 slice).
  unsigned p[BN / kK][4];
  /// overlap_softmax: the stage (and phase) whose P V is still to run.
  PipelineState<Stages> prev{};
  bool has_prev = false;

  KGEN_DEVICE void issue_qk(Scores &s, int st) {
    const unsigned sq = kgen::cuda::smem_u32(smem);
    const unsigned sk = kgen::cuda::smem_u32(smem + kKOffset + st * kKvBytes);
#pragma unroll
    for (int k = 0; k < OpQ::kSlices; ++k) {
      const unsigned long long da = OpQ::desc(sq, k, int(rows0()));
      const unsigned long long db = OpK::desc(sk, k);
      if constexpr (kFp8)
        kgen::cuda::wgmma_e4m3<BN>(s.v, da, db, k > 0 ? 1 : 0);
      else if constexpr (kgen::cuda::kIsSame<T, __half>)
        kgen::cuda::wgmma_f16<BN>(s.v, da, db, k > 0 ? 1 : 0);
      else
        kgen::cuda::wgmma_bf16<BN>(s.v, da, db, k > 0 ? 1 : 0);
    }
  }

  /// acc += P V of stage st, whose V load completes phase `phase` of its
  /// `full` barrier; returns once the wgmmas are done.
  KGEN_DEVICE void run_pv(Acc &acc, int st, unsigned phase) {
    wait_pv_operand(st, phase);
    kgen::cuda::fence_operand(acc.v);
    kgen::cuda::wgmma_fence();
    issue_pv(acc, st);
    kgen::cuda::wgmma_commit();
    kgen::cuda::wgmma_wait<0>();
    kgen::cuda::fence_operand(acc.v);
  }

  /// Waits for P V's B operand of stage st: the V tile (its TMA load), or
  /// for e4m3 its transpose.
  KGEN_DEVICE void wait_pv_operand(int st, unsigned phase) {
    kgen::cuda::mbar_wait(kFp8 ? &vt_full[st] : &v_full[st], phase);
  }

  /// P (the registers pack() filled) times the V tile of stage st.
  KGEN_DEVICE void issue_pv(Acc &acc, int st) {
    if constexpr (kFp8) {
      const unsigned svt =
          kgen::cuda::smem_u32(smem + kVtOffset + st * kVtBytes);
#pragma unroll
      for (int kk = 0; kk < BN / 32; ++kk)
        kgen::cuda::wgmma_rs_e4m3<Dp>(acc.v, p[kk], OpV::desc(svt, kk), 1);
    } else {
      const unsigned sv =
          kgen::cuda::smem_u32(smem + kVOffset + st * kKvBytes);
#pragma unroll
      for (int kk = 0; kk < BN / 16; ++kk) {
        const unsigned long long db = OpV::desc(sv, kk);
        if constexpr (kgen::cuda::kIsSame<T, __half>)
          kgen::cuda::wgmma_rs_f16<Dp, true>(acc.v, p[kk], db, 1);
        else
          kgen::cuda::wgmma_rs_bf16<Dp, true>(acc.v, p[kk], db, 1);
      }
    }
  }

  /// p = round_T(s) as the A fragments of the k16 slices (the FA2 packing:
  /// an m16n8k16 A fragment is a wgmma A fragment, warp by warp).
  /// e4m3: p = round_e4m3(s) as the A fragments of the k32 slices, in
  /// V^T's key order: byte e of register r of slice kk is accumulator
  /// fp8_p_accumulator(kk, r, e) (fp8_p_matches_vt).
  KGEN_DEVICE void pack(const Scores &s) {
    if constexpr (kFp8) {
#pragma unroll
      for (int kk = 0; kk < BN / 32; ++kk)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const float *v = s.v;
          auto at = [&](int e) { return v[fp8_p_accumulator(kk, r, e)]; };
          p[kk][r] = unsigned(kgen::cuda::cvt_e4m3x2(at(1), at(0))) |
                     (unsigned(kgen::cuda::cvt_e4m3x2(at(3), at(2))) << 16);
        }
    } else {
#pragma unroll
      for (int kk = 0; kk < BN / 16; ++kk)
        s.template p_fragment<T>(0, kk, p[kk]);
    }
  }

  /// Waits for the K tile of stage st, then (ping-pong) for this
  /// warpgroup's turn to issue its GEMMs.
  KGEN_DEVICE void take_turn(int st) {
    kgen::cuda::mbar_wait(&k_full[st], read.phase);
    if constexpr (PingPong)
      kgen::cuda::named_barrier_sync(turn_barrier(group()), 256);
  }

  /// Ping-pong: the next warpgroup's turn; the ring's last signal is left
  /// out (no barrier left half-arrived at the exit).
  KGEN_DEVICE static void pass_turn(bool more) {
    if (more || group() != Consumers - 1)
      kgen::cuda::named_barrier_arrive(turn_barrier((group() + 1) % Consumers),
                                       256);
  }

  KGEN_DEVICE void release_stage(int st) {
    if (threadIdx.x % 128 == 0)
      kgen::cuda::mbar_arrive(&empty[st]);
  }
};

#endif // KGEN_CUDA_COMPILER

} // namespace kgen::block

#endif // KGEN_BLOCK_ATTENTIONSM90_CUH
