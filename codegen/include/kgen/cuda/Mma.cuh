//===- Mma.cuh - ldmatrix / mma.sync warp tiles (sm_80+) ---------*- CUDA -*-===//
//
// Warp-level tensor-core primitives and the fragment loop built on them.
// The instructions themselves (ldmatrix, mma.sync, cvt, ld.shared) are the
// instruction layer's (Ptx.cuh); this file composes them.
//
//   ldmatrix_x{1,2,4}[_trans](regs, smem_addr)   ldmatrix.sync.aligned.m8n8.b16
//   MmaBf16, MmaF16   mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.f32   sm_80+
//   MmaTf32           mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32      sm_80+
//                     (f32 in shared memory, rounded to tf32 with cvt.rna)
//   MmaE4m3           mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32     sm_89+
//                     (native on sm_89; on sm_90a ptxas emulates it with
//                     F2FP unpacks + HMMA.16816: correct but slow, and it
//                     needs more registers. Hopper's fast fp8 is wgmma_e4m3.)
//   WarpMma<Op, WM, WN, LayoutA, MajorA, LayoutB, MajorB>
//       a WM x WN warp tile: acc[] (f32, compile-time indexed), fragments
//       loaded with ldmatrix (.trans for MN-major 16-bit operands; plain
//       shared loads for MN-major tf32) and run over a BK slab of the
//       shared-memory tiles with one k-step of fragments prefetched.
//   ThreadTileFma<TM, TN>   the f32 SIMT outer-product step (any target).
//
// Fragment maps (KGEN_HD constexpr, checked on the CPU): for each op,
// a_elem/b_elem(lane, e) give the (row, col) of element e of a lane's A
// (row = m, col = k) and B (row = k, col = n) fragment, mma_acc_m16n8 and
// WarpTileAccMap give each accumulator's (row, col). ldsm_*(lane) give the
// (row, byte column) whose address a lane passes to ldmatrix.x4 so that the
// loaded registers are exactly those fragments.
//
// Operand storage in shared memory (the Layout's own rows and cols; Major
// is declared in Layout.cuh):
//   A, Major::K  : (M rows, K cols)      A, Major::MN : (K rows, M cols)
//   B, Major::K  : (N rows, K cols)      B, Major::MN : (K rows, N cols)
// The four (MajorA, MajorB) pairs are the four transposition combinations of
// row-/column-major A and B. e4m3 needs Major::K for both (as in cuBLAS);
// tf32 MN-major operands use element loads (pad those rows to 8 words mod
// 32 for conflict-free loads).
//
// Preconditions: WM % 16 == 0, WN % 16 == 0, BK % Op::kK == 0; the warp's
// tile origin (m0, n0) a multiple of 16, k0 of Op::kK; shared tiles in
// RowMajorPadded (rows padded by a multiple of 16 bytes) or RowMajorSwizzled
// with the base aligned to the layout's kAlignBytes; all 32 lanes of the warp
// execute load/mma/run together (ldmatrix and mma.sync are .aligned).
//
// Targets: ldmatrix sm_75+, the bf16/f16/tf32 mma sm_80+, e4m3 sm_89+; a
// use on an older target is a compile error naming the requirement.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_CUDA_MMA_CUH
#define KGEN_CUDA_MMA_CUH

#include "kgen/cuda/Common.cuh"
#include "kgen/cuda/Layout.cuh"
#include "kgen/cuda/Ptx.cuh"

namespace kgen::cuda {

//===----------------------------------------------------------------------===//
// Fragment maps
//===----------------------------------------------------------------------===//

/// Accumulator i (0..3) of a lane in one m16n8 f32 tile: rows g and g + 8,
/// columns 2t and 2t + 1 (g = lane / 4, t = lane % 4). i and i + 1 (even i)
/// are adjacent columns of one row.
KGEN_HD constexpr RowCol mma_acc_m16n8(int lane, int i) {
  return {lane / 4 + 8 * (i / 2), 2 * (lane % 4) + i % 2};
}

/// The accumulators of a WM x WN warp tile, flattened as
/// i = ((mt * (WN / 8) + nt) * 4 + e), e the m16n8 accumulator index.
template <int WM, int WN> struct WarpTileAccMap {
  static_assert(WM % 16 == 0 && WN % 8 == 0, "warp tile of m16n8 tiles");
  static constexpr int kMTiles = WM / 16;
  static constexpr int kNTiles = WN / 8;
  static constexpr int kAccPerThread = kMTiles * kNTiles * 4;
  static constexpr int kThreads = 32;
  KGEN_HD static constexpr RowCol acc(int lane, int i) {
    return {16 * ((i / 4) / kNTiles) + mma_acc_m16n8(lane, i % 4).row,
            8 * ((i / 4) % kNTiles) + mma_acc_m16n8(lane, i % 4).col};
  }
};

/// ldmatrix.x4 addressing. Each returns (stored row, byte column) relative
/// to the 16 x 32-byte block being loaded; byte columns are multiples of 16.
/// K-major A (M rows, K cols): registers = the A fragment a[0..3].
KGEN_HD constexpr RowCol ldsm_kmajor_a(int lane) {
  return {lane % 16, (lane / 16) * 16};
}
/// K-major B (N rows, K cols), two n8 tiles: registers = {b[0], b[1]} of
/// n-tile 0 then of n-tile 1.
KGEN_HD constexpr RowCol ldsm_kmajor_b(int lane) {
  return {lane % 8 + 8 * (lane / 16), ((lane / 8) % 2) * 16};
}
/// MN-major A (K rows, M cols), 16-bit, with .trans: registers = a[0..3].
KGEN_HD constexpr RowCol ldsm_mnmajor_a(int lane) {
  return {lane % 8 + 8 * (lane / 16), ((lane / 8) % 2) * 16};
}
/// MN-major B (K rows, N cols), 16-bit, with .trans: as ldsm_kmajor_b.
KGEN_HD constexpr RowCol ldsm_mnmajor_b(int lane) {
  return {lane % 8 + 8 * ((lane / 8) % 2), (lane / 16) * 16};
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

#if KGEN_CUDA_COMPILER

/// f32 += a * b, one thread's TM x TN register tile (SIMT f32 path).
template <int TM, int TN> struct ThreadTileFma {
  KGEN_DEVICE static void step(float (&acc)[TM][TN], const float (&a)[TM],
                           const float (&b)[TN]) {
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j)
        acc[i][j] = a[i] * b[j] + acc[i][j];
  }
};

#endif // KGEN_CUDA_COMPILER

/// One mma.sync shape with its fragment maps. kElemBytes is the size of an
/// operand element in shared memory (tf32 is stored as f32).
struct MmaBf16 {
  static constexpr int kM = 16, kN = 8, kK = 16, kElemBytes = 2;
  static constexpr int kAElems = 8, kBElems = 4, kMinArch = 800;
  static constexpr bool kLdsmTrans = true; // MN-major via ldmatrix.trans
  KGEN_HD static constexpr RowCol a_elem(int lane, int e) {
    return {lane / 4 + 8 * ((e / 2) % 2), 2 * (lane % 4) + e % 2 + 8 * (e / 4)};
  }
  KGEN_HD static constexpr RowCol b_elem(int lane, int e) {
    return {2 * (lane % 4) + e % 2 + 8 * (e / 2), lane / 4};
  }
#if KGEN_CUDA_COMPILER
  template <int kDummy = 0>
  KGEN_DEVICE static void mma(float &d0, float &d1, float &d2, float &d3,
                              const unsigned (&a)[4], const unsigned (&b)[2]) {
    mma_m16n8k16_bf16<kDummy>(d0, d1, d2, d3, a, b);
  }
#endif
};

struct MmaF16 {
  static constexpr int kM = 16, kN = 8, kK = 16, kElemBytes = 2;
  static constexpr int kAElems = 8, kBElems = 4, kMinArch = 800;
  static constexpr bool kLdsmTrans = true;
  KGEN_HD static constexpr RowCol a_elem(int lane, int e) {
    return MmaBf16::a_elem(lane, e);
  }
  KGEN_HD static constexpr RowCol b_elem(int lane, int e) {
    return MmaBf16::b_elem(lane, e);
  }
#if KGEN_CUDA_COMPILER
  template <int kDummy = 0>
  KGEN_DEVICE static void mma(float &d0, float &d1, float &d2, float &d3,
                              const unsigned (&a)[4], const unsigned (&b)[2]) {
    mma_m16n8k16_f16<kDummy>(d0, d1, d2, d3, a, b);
  }
#endif
};

struct MmaTf32 {
  static constexpr int kM = 16, kN = 8, kK = 8, kElemBytes = 4;
  static constexpr int kAElems = 4, kBElems = 2, kMinArch = 800;
  static constexpr bool kLdsmTrans = false; // 32-bit: MN-major uses ld.shared
  KGEN_HD static constexpr RowCol a_elem(int lane, int e) {
    return {lane / 4 + 8 * (e % 2), lane % 4 + 4 * (e / 2)};
  }
  KGEN_HD static constexpr RowCol b_elem(int lane, int e) {
    return {lane % 4 + 4 * e, lane / 4};
  }
#if KGEN_CUDA_COMPILER
  template <int kDummy = 0>
  KGEN_DEVICE static void mma(float &d0, float &d1, float &d2, float &d3,
                              const unsigned (&a)[4], const unsigned (&b)[2]) {
    mma_m16n8k8_tf32<kDummy>(d0, d1, d2, d3, a, b);
  }
#endif
};

struct MmaE4m3 {
  static constexpr int kM = 16, kN = 8, kK = 32, kElemBytes = 1;
  static constexpr int kAElems = 16, kBElems = 8, kMinArch = 890;
  static constexpr bool kLdsmTrans = false; // no 8-bit transpose: K-major only
  KGEN_HD static constexpr RowCol a_elem(int lane, int e) {
    return {lane / 4 + 8 * ((e / 4) % 2), 4 * (lane % 4) + e % 4 + 16 * (e / 8)};
  }
  KGEN_HD static constexpr RowCol b_elem(int lane, int e) {
    return {4 * (lane % 4) + e % 4 + 16 * (e / 4), lane / 4};
  }
#if KGEN_CUDA_COMPILER
  template <int kDummy = 0>
  KGEN_DEVICE static void mma(float &d0, float &d1, float &d2, float &d3,
                              const unsigned (&a)[4], const unsigned (&b)[2]) {
    mma_m16n8k32_e4m3<kDummy>(d0, d1, d2, d3, a, b);
  }
#endif
};

//===----------------------------------------------------------------------===//
// Warp tile
//===----------------------------------------------------------------------===//

#if KGEN_CUDA_COMPILER
/// acc += A B for one k-step of a warp tile of MTiles x NTiles m16n8 tiles,
/// from fragments already in registers (acc in WarpTileAccMap's order).
/// Serpentine over n so consecutive mmas share an A or B fragment.
template <class Op, int MTiles, int NTiles>
KGEN_DEVICE void mma_warp_tile(float (&acc)[MTiles * NTiles * 4],
                               const unsigned (&a)[MTiles][4],
                               const unsigned (&b)[NTiles][2]) {
#pragma unroll
  for (int mt = 0; mt < MTiles; ++mt)
#pragma unroll
    for (int nt = 0; nt < NTiles; ++nt) {
      const int n = (mt % 2) ? NTiles - 1 - nt : nt;
      float *d = &acc[(mt * NTiles + n) * 4];
      Op::mma(d[0], d[1], d[2], d[3], a[mt], b[n]);
    }
}
#endif // KGEN_CUDA_COMPILER

template <class Op, int WM, int WN, class LayoutA, Major MajorA, class LayoutB,
          Major MajorB>
struct WarpMma {
  static_assert(WM % 16 == 0 && WN % 16 == 0,
                "warp tile must be a multiple of 16 x 16");
  static_assert(sizeof(typename LayoutA::Element) == Op::kElemBytes &&
                    sizeof(typename LayoutB::Element) == Op::kElemBytes,
                "shared-memory element size does not match the mma operand");
  static_assert(Op::kLdsmTrans || Op::kElemBytes == 4 ||
                    (MajorA == Major::K && MajorB == Major::K),
                "8-bit operands must be K-major (TN); transpose them on load");
  static_assert(LayoutA::kRowsAligned16 && LayoutB::kRowsAligned16,
                "ldmatrix reads 16-byte rows: pad by a multiple of 16 bytes");
  using AccMap = WarpTileAccMap<WM, WN>;
  static constexpr int kMTiles = WM / 16;
  static constexpr int kNTiles = WN / 8;
  static constexpr int kAccPerThread = AccMap::kAccPerThread;
  static constexpr int kEB = Op::kElemBytes;

  /// One k-step's operands: A per m16 tile, B per n8 tile.
  struct Frags {
    unsigned a[kMTiles][4];
    unsigned b[kNTiles][2];
  };

  // Shared-memory byte offsets (from the tile base) that `load` reads, as
  // KGEN_HD constexpr functions so that the CPU tests can replay them.

  /// ldmatrix.x4 row address of `lane` for A's m16 tile mt (K-major: plain,
  /// MN-major 16-bit: .trans).
  KGEN_HD static constexpr int a_ldsm_offset(int lane, int mt, int m0,
                                             int k0) {
    return MajorA == Major::K
               ? LayoutA::byte_offset(m0 + 16 * mt + ldsm_kmajor_a(lane).row,
                                      k0 + ldsm_kmajor_a(lane).col / kEB)
               : LayoutA::byte_offset(k0 + ldsm_mnmajor_a(lane).row,
                                      m0 + 16 * mt +
                                          ldsm_mnmajor_a(lane).col / kEB);
  }
  /// ldmatrix.x4 row address of `lane` for B's n8 tiles 2np and 2np + 1.
  KGEN_HD static constexpr int b_ldsm_offset(int lane, int np, int n0,
                                             int k0) {
    return MajorB == Major::K
               ? LayoutB::byte_offset(n0 + 16 * np + ldsm_kmajor_b(lane).row,
                                      k0 + ldsm_kmajor_b(lane).col / kEB)
               : LayoutB::byte_offset(k0 + ldsm_mnmajor_b(lane).row,
                                      n0 + 16 * np +
                                          ldsm_mnmajor_b(lane).col / kEB);
  }
  /// Element e of A's fragment for m16 tile mt when loaded element-wise
  /// (32-bit MN-major).
  KGEN_HD static constexpr int a_elem_offset(int lane, int mt, int e, int m0,
                                             int k0) {
    return LayoutA::byte_offset(k0 + Op::a_elem(lane, e).col,
                                m0 + 16 * mt + Op::a_elem(lane, e).row);
  }
  /// Element e of B's fragment for n8 tile nt, loaded element-wise.
  KGEN_HD static constexpr int b_elem_offset(int lane, int nt, int e, int n0,
                                             int k0) {
    return LayoutB::byte_offset(k0 + Op::b_elem(lane, e).row,
                                n0 + 8 * nt + Op::b_elem(lane, e).col);
  }

#if KGEN_CUDA_COMPILER
  KGEN_DEVICE static void zero(float (&acc)[kAccPerThread]) {
#pragma unroll
    for (int i = 0; i < kAccPerThread; ++i)
      acc[i] = 0.f;
  }

  /// Loads the fragments of k-step [k0, k0 + Op::kK) for the warp tile whose
  /// origin in the block tile is (m0, n0). a_smem / b_smem: smem_u32 of the
  /// A / B tiles.
  KGEN_DEVICE static void load(Frags &f, unsigned a_smem, unsigned b_smem,
                               int m0, int n0, int k0, int lane) {
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
      if constexpr (MajorA == Major::K) {
        ldmatrix_x4(f.a[mt], a_smem + a_ldsm_offset(lane, mt, m0, k0));
      } else if constexpr (Op::kLdsmTrans) {
        ldmatrix_x4_trans(f.a[mt], a_smem + a_ldsm_offset(lane, mt, m0, k0));
      } else { // 32-bit MN-major: element loads
#pragma unroll
        for (int e = 0; e < 4; ++e)
          f.a[mt][e] =
              ld_shared_b32(a_smem + a_elem_offset(lane, mt, e, m0, k0));
      }
    }
#pragma unroll
    for (int np = 0; np < kNTiles / 2; ++np) {
      unsigned r[4];
      if constexpr (MajorB == Major::K) {
        ldmatrix_x4(r, b_smem + b_ldsm_offset(lane, np, n0, k0));
      } else if constexpr (Op::kLdsmTrans) {
        ldmatrix_x4_trans(r, b_smem + b_ldsm_offset(lane, np, n0, k0));
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          r[e] = ld_shared_b32(
              b_smem + b_elem_offset(lane, 2 * np + e / 2, e % 2, n0, k0));
      }
      f.b[2 * np][0] = r[0];
      f.b[2 * np][1] = r[1];
      f.b[2 * np + 1][0] = r[2];
      f.b[2 * np + 1][1] = r[3];
    }
    if constexpr (Op::kElemBytes == 4) { // f32 in shared memory -> tf32
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
        for (int i = 0; i < 4; ++i)
          f.a[mt][i] = f32_to_tf32(f.a[mt][i]);
#pragma unroll
      for (int nt = 0; nt < kNTiles; ++nt)
#pragma unroll
        for (int i = 0; i < 2; ++i)
          f.b[nt][i] = f32_to_tf32(f.b[nt][i]);
    }
  }

  KGEN_DEVICE static void mma(float (&acc)[kAccPerThread], const Frags &f) {
    mma_warp_tile<Op>(acc, f.a, f.b);
  }

  /// acc += A[m0:m0+WM, 0:BK] * B[0:BK, n0:n0+WN] from the shared tiles,
  /// the next k-step's fragments loaded while the current one multiplies.
  template <int BK>
  KGEN_DEVICE static void run(float (&acc)[kAccPerThread], unsigned a_smem,
                              unsigned b_smem, int m0, int n0, int lane) {
    static_assert(BK % Op::kK == 0, "BK must be a multiple of the mma K");
    constexpr int kSteps = BK / Op::kK;
    Frags f[2];
    load(f[0], a_smem, b_smem, m0, n0, 0, lane);
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      if (s + 1 < kSteps)
        load(f[(s + 1) % 2], a_smem, b_smem, m0, n0, (s + 1) * Op::kK, lane);
      mma(acc, f[s % 2]);
    }
  }
#endif // KGEN_CUDA_COMPILER
};

//===----------------------------------------------------------------------===//
// e4m3 tiles widened to f16 fragments
//===----------------------------------------------------------------------===//

/// The warp tile of WarpMma for e4m3 stage tiles that mma.sync's e4m3 form
/// cannot read: A K-major (M rows, K cols) and B MN-major (K rows, N cols),
/// as kgen.grouped_gemm's block-scaled weights [E, K, N] are stored. Each
/// lane reads the bytes of its m16n8k16 f16 fragments (MmaF16's maps) from
/// shared memory and widens them with cvt.rn.f16x2.e4m3x2, which is exact,
/// so the f16 mma.sync computes the e4m3 products exactly and sums them in
/// f32 (the block-scaled main loop of kgen/block/Moe.cuh). A's pairs are
/// adjacent bytes of a row (one 16-bit load); B's pairs are one byte from
/// each of two K rows. Targets: sm_89+ (the widening).
template <int WM, int WN, class LayoutA, class LayoutB> struct WarpMmaE4m3F16 {
  static_assert(WM % 16 == 0 && WN % 8 == 0,
                "warp tile must be whole m16 x n8 tiles");
  static_assert(sizeof(typename LayoutA::Element) == 1 &&
                    sizeof(typename LayoutB::Element) == 1,
                "the widened path reads e4m3 (1-byte) tiles");
  using Op = MmaF16;
  using AccMap = WarpTileAccMap<WM, WN>;
  static constexpr int kMTiles = WM / 16;
  static constexpr int kNTiles = WN / 8;
  static constexpr int kAccPerThread = AccMap::kAccPerThread;

  struct Frags {
    unsigned a[kMTiles][4];
    unsigned b[kNTiles][2];
  };

  /// Byte offset of register i (elements 2i and 2i + 1, adjacent in K) of
  /// A's m16 tile mt: a row of the K-major tile.
  KGEN_HD static constexpr int a_pair_offset(int lane, int mt, int i, int m0,
                                             int k0) {
    return LayoutA::byte_offset(m0 + 16 * mt + Op::a_elem(lane, 2 * i).row,
                                k0 + Op::a_elem(lane, 2 * i).col);
  }
  /// Byte offset of element e of B's n8 tile nt (K row, N column).
  KGEN_HD static constexpr int b_elem_offset(int lane, int nt, int e, int n0,
                                             int k0) {
    return LayoutB::byte_offset(k0 + Op::b_elem(lane, e).row,
                                n0 + 8 * nt + Op::b_elem(lane, e).col);
  }

#if KGEN_CUDA_COMPILER
  /// The fragments of k-step [k0, k0 + 16) of the warp tile at (m0, n0);
  /// a and b: the stage tiles in shared memory.
  KGEN_DEVICE static void load(Frags &f, const unsigned char *a,
                               const unsigned char *b, int m0, int n0, int k0,
                               int lane) {
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
      for (int i = 0; i < 4; ++i)
        f.a[mt][i] = cvt_f16x2_e4m3x2(ld_shared(
            reinterpret_cast<const unsigned short *>(
                a + a_pair_offset(lane, mt, i, m0, k0))));
#pragma unroll
    for (int nt = 0; nt < kNTiles; ++nt)
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const unsigned lo = ld_shared(b + b_elem_offset(lane, nt, 2 * i, n0, k0));
        const unsigned hi =
            ld_shared(b + b_elem_offset(lane, nt, 2 * i + 1, n0, k0));
        f.b[nt][i] = cvt_f16x2_e4m3x2((unsigned short)(lo | (hi << 8)));
      }
  }

  /// acc += A[m0:m0+WM, 0:BK] * B[0:BK, n0:n0+WN], k-steps in order, the
  /// next step's fragments loaded while the current one multiplies.
  template <int BK>
  KGEN_DEVICE static void run(float (&acc)[kAccPerThread],
                              const unsigned char *a, const unsigned char *b,
                              int m0, int n0, int lane) {
    static_assert(BK % Op::kK == 0, "BK must be a multiple of 16");
    constexpr int kSteps = BK / Op::kK;
    Frags f[2];
    load(f[0], a, b, m0, n0, 0, lane);
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      if (s + 1 < kSteps)
        load(f[(s + 1) % 2], a, b, m0, n0, (s + 1) * Op::kK, lane);
      mma_warp_tile<Op>(acc, f[s % 2].a, f[s % 2].b);
    }
  }
#endif // KGEN_CUDA_COMPILER
};

} // namespace kgen::cuda

#endif // KGEN_CUDA_MMA_CUH
