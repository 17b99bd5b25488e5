//===- Wgmma.cuh - warpgroup MMA with shared-memory descriptors -*- CUDA -*-===//
//
// Hopper warpgroup MMA (wgmma.mma_async), A and B read from shared memory
// through 64-bit matrix descriptors (or A from registers: the RS form), f32
// accumulators in registers.
//
//   make_wgmma_desc(addr, lbo, sbo, swizzle, base_offset)   KGEN_HD constexpr
//       The descriptor of the PTX ISA ("Matrix Descriptor Format"):
//         bits  0-13  start address        (addr & 0x3FFFF) >> 4
//         bits 16-29  leading byte offset  (lbo  & 0x3FFFF) >> 4
//         bits 32-45  stride byte offset   (sbo  & 0x3FFFF) >> 4
//         bits 49-51  matrix base offset   (0 when atoms are aligned)
//         bits 62-63  swizzle mode         0 none, 1 128B, 2 64B, 3 32B
//   WgmmaOperand<Layout, Major, KElems>   descriptors of one operand tile
//       (RowMajorSwizzled from Layout.cuh, as TMA wrote it) for each K slice
//       of one wgmma, plus the LBO/SBO it uses:
//         K-major  (MN rows, K cols):  SBO = 8 rows * S (one swizzle atom),
//                  LBO unused for swizzled layouts (encoded as 1); slice k
//                  starts k * KElems columns in (inside one S-byte row).
//         MN-major (K rows, MN cols):  SBO = 8 K-rows * S (next atom down K),
//                  LBO = Rows * S (next S-byte column block along MN);
//                  slice k starts k * KElems rows down.
//   wgmma_fence(), wgmma_commit(), wgmma_wait<N>(), fence_operand(acc)
//   wgmma_bf16<N, TransA, TransB>(d, desc_a, desc_b, scale_d)   m64nNk16
//   wgmma_f16 <N, TransA, TransB>(d, desc_a, desc_b, scale_d)   m64nNk16
//   wgmma_e4m3<N>(d, desc_a, desc_b, scale_d)                   m64nNk32
//   wgmma_rs_bf16<N, TransB>(d, a, desc_b, scale_d)             m64nNk16
//   wgmma_rs_f16 <N, TransB>(d, a, desc_b, scale_d)             m64nNk16
//       A (64 x 16) from registers: `a` is the thread's unsigned[4], laid
//       out by WgmmaAFragMap; B from shared memory as above. No TransA (the
//       ISA's register form has no imm-trans-a). The registers, like d,
//       belong to the instruction until the wgmma_wait that completes it.
//   wgmma_rs_e4m3<N>(d, a, desc_b, scale_d)                     m64nNk32
//       A (64 x 32 e4m3) from registers: `a` is the thread's unsigned[4],
//       16 bytes laid out by WgmmaAFragMap8; B K-major from shared memory
//       (no imm-trans-b for 8-bit types); registers owned as above.
//       N any multiple of 8 in [8, 256] (every dense shape the PTX ISA
//       has for these types); d is float[N / 2], indexed only with
//       constants; D = A * B + (scale_d ? D : 0). Trans = 1 means that
//       operand is MN-major (A: M contiguous, B: N contiguous); e4m3 is
//       K-major only. One wrapper per PTX instruction, all N from one
//       shape table (KGEN_WGMMA_SHAPES).
//   WgmmaAccMap<N>::acc(thread, i)   (row, col) of accumulator i of thread
//       0..127 of the warpgroup in the 64 x N tile (KGEN_HD constexpr).
//   WgmmaAFragMap::a_elem(thread, e)   (row m, col k) of element e (0..7:
//       register e / 2, half e % 2, low half first) of thread 0..127's A
//       fragment in the 64 x 16 A slice of an RS wgmma (KGEN_HD constexpr):
//       warp w holds rows 16w .. 16w + 15 exactly as mma.sync m16n8k16
//       holds its A (Mma.cuh's MmaBf16::a_elem, rows + 16w).
//   WgmmaAFragMap8::a_elem(thread, e)   the same for the 8-bit A fragment
//       of an RS m64nNk32 wgmma (e4m3): element e (0..15: register e / 4,
//       byte e % 4 from the low end) in the 64 x 32 A slice; warp w holds
//       rows 16w .. 16w + 15 as mma.sync m16n8k32 holds its A
//       (MmaE4m3::a_elem, rows + 16w). Both maps are WgmmaAFrag<B>, B the
//       element's bytes (2, 1): the 8-bit one is the 16-bit one with each
//       element split into two adjacent bytes.
//   warpgroup_reg_alloc<R>() / warpgroup_reg_dealloc<R>()   setmaxnreg.inc /
//       .dec for consumer / producer warpgroups (24 <= R <= 256, R % 8 == 0;
//       effective only with a register cap at entry, e.g.
//       __launch_bounds__(threads, 1)).
//
// Preconditions: all 128 threads of a warpgroup (4 consecutive warps from a
// warp index divisible by 4) execute each wgmma with identical descriptors;
// operand tiles are RowMajorSwizzled with a base aligned to 8 * S bytes
// (1024 for 128B); wgmma_fence() before the first wgmma of a batch that reads
// accumulators written by ordinary code, wgmma_commit() after the batch,
// wgmma_wait<N>() before touching the accumulators; shared memory written by
// ordinary stores needs fence.proxy.async (Tma.cuh) before wgmma reads it.
//
// Targets: sm_90a only (-gencode arch=compute_90a,code=sm_90a; NVRTC
// -arch=sm_90a). Calling any wgmma/setmaxnreg function in a device pass for
// another target is a compile error; the descriptor and map functions are
// host-callable everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_CUDA_WGMMA_CUH
#define KGEN_CUDA_WGMMA_CUH

#include "kgen/cuda/Common.cuh"
#include "kgen/cuda/Layout.cuh"
// wgmma_fence / _commit / _wait, wgmma_bf16 / _f16 / _e4m3, wgmma_rs_bf16 /
// _f16 / _e4m3, fence_operand, warpgroup_reg_alloc / _dealloc: the
// instruction layer's.
#include "kgen/cuda/Ptx.cuh"

namespace kgen::cuda {

//===----------------------------------------------------------------------===//
// Matrix descriptor
//===----------------------------------------------------------------------===//

/// The descriptor's 2-bit swizzle field for a layout swizzle.
KGEN_HD constexpr unsigned wgmma_swizzle_mode(Swizzle s) {
  return s == Swizzle::B128  ? 1u
         : s == Swizzle::B64 ? 2u
         : s == Swizzle::B32 ? 3u
                             : 0u;
}

/// matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4
KGEN_HD constexpr unsigned long long wgmma_desc_encode(unsigned x) {
  return (x & 0x3FFFFu) >> 4;
}

KGEN_HD constexpr unsigned long long
make_wgmma_desc(unsigned smem_addr, unsigned lbo_bytes, unsigned sbo_bytes,
                Swizzle swizzle, unsigned base_offset = 0) {
  return wgmma_desc_encode(smem_addr) |
         (wgmma_desc_encode(lbo_bytes) << 16) |
         (wgmma_desc_encode(sbo_bytes) << 32) |
         ((unsigned long long)(base_offset & 7u) << 49) |
         ((unsigned long long)wgmma_swizzle_mode(swizzle) << 62);
}

/// The fields of a descriptor, in bytes (for tests and debugging).
struct WgmmaDescFields {
  unsigned start_addr, lbo, sbo, base_offset, swizzle_mode;
};
KGEN_HD constexpr WgmmaDescFields decode_wgmma_desc(unsigned long long d) {
  return {unsigned(d & 0x3FFFu) << 4, unsigned((d >> 16) & 0x3FFFu) << 4,
          unsigned((d >> 32) & 0x3FFFu) << 4, unsigned((d >> 49) & 7u),
          unsigned((d >> 62) & 3u)};
}

/// Descriptors of one operand tile for the wgmma K slices of KElems
/// elements (16 for 16-bit types, 32 for e4m3).
template <class Layout, Major M, int KElems> struct WgmmaOperand {
  static_assert(IsSwizzledLayout<Layout>::value,
                "wgmma operands here are RowMajorSwizzled tiles (TMA layout)");
  static_assert(KElems * Layout::kElemBytes == 32,
                "one wgmma K slice is 32 bytes (k16 for 16-bit, k32 for 8-bit)");
  static constexpr Swizzle kSwizzle = Layout::kSwizzle;
  /// Number of K slices in the tile.
  static constexpr int kSlices =
      (M == Major::K ? Layout::kCols : Layout::kRows) / KElems;
  static constexpr unsigned kSbo = unsigned(Layout::kAtomBytes);
  static constexpr unsigned kLbo =
      M == Major::K ? 16u : unsigned(Layout::kBlockBytes);

  /// Byte offset of K slice k from the tile base.
  KGEN_HD static constexpr unsigned slice_offset(int k) {
    return M == Major::K ? unsigned(Layout::linear_byte_offset(0, k * KElems))
                         : unsigned(Layout::linear_byte_offset(k * KElems, 0));
  }
  /// Byte offset of the sub-tile starting at MN index mn0 (a multiple of 8
  /// for K-major, of the block width S / sizeof(T) for MN-major): e.g. the
  /// second m64 of a 128-row A tile.
  KGEN_HD static constexpr unsigned mn_offset(int mn0) {
    return M == Major::K ? unsigned(Layout::linear_byte_offset(mn0, 0))
                         : unsigned(Layout::linear_byte_offset(0, mn0));
  }
  /// The descriptor for K slice k of the sub-tile at mn0; tile_smem_addr is
  /// the tile base's shared-window address (smem_u32).
  KGEN_HD static constexpr unsigned long long desc(unsigned tile_smem_addr,
                                                   int k, int mn0 = 0) {
    return make_wgmma_desc(tile_smem_addr + mn_offset(mn0) + slice_offset(k),
                           kLbo, kSbo, kSwizzle);
  }
};

/// Accumulator map of an m64nN wgmma: thread t of the warpgroup (warp w =
/// t / 32) owns rows 16w + lane/4 (+8) and column pairs 8j + 2(lane%4) (+1).
/// Accumulators i and i + 1 (even i) are adjacent columns of one row.
template <int N> struct WgmmaAccMap {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256, "wgmma N");
  static constexpr int kAccPerThread = N / 2;
  static constexpr int kThreads = 128;
  KGEN_HD static constexpr RowCol acc(int t, int i) {
    return {16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2),
            8 * (i / 4) + 2 * (t % 4) + i % 2};
  }
};

/// A-fragment map of an RS (A in registers) wgmma whose A elements have
/// kElemBytes bytes (2: m64nNk16, 1: m64nNk32), the two below: each of a
/// thread's four 32-bit registers holds kPerReg = 4 / kElemBytes elements of
/// one row (the lowest column in the low bits), registers 0 and 1 rows g and
/// g + 8 of warp w's 16, registers 2 and 3 the same rows kPerReg * 4
/// columns further. Element e (register e / kPerReg) of thread t (warp w =
/// t / 32, g = lane / 4, q = lane % 4) is
///   A[16w + g + 8 ((e / kPerReg) % 2)][kPerReg q + e % kPerReg
///                                       + 4 kPerReg (e / (2 kPerReg))]
template <int kElemBytes> struct WgmmaAFrag {
  static_assert(kElemBytes == 1 || kElemBytes == 2,
                "RS wgmma A: 16-bit (k16) or 8-bit (k32) elements");
  static constexpr int kPerReg = 4 / kElemBytes;
  static constexpr int kElems = 4 * kPerReg; // 8 (16-bit) or 16 (8-bit)
  static constexpr int kThreads = 128;
  KGEN_HD static constexpr RowCol a_elem(int t, int e) {
    return {16 * (t / 32) + (t % 32) / 4 + 8 * ((e / kPerReg) % 2),
            kPerReg * (t % 4) + e % kPerReg +
                4 * kPerReg * (e / (2 * kPerReg))};
  }
};

/// A-fragment map of an RS (A in registers) m64nNk16 wgmma, 16-bit A: the
/// PTX ISA's Figure 148, "WGMMA .m64nNk16 register fragment layout for
/// matrix A" (section 9.7.15.5.1.1.1, Matrix Fragments for
/// wgmma.mma_async.m64nNk16: four .f16x2 registers, elements a0 .. a7 low
/// to high). The figure is an image; read out (and as CUTLASS's
/// ALayout_64x16 for the SM90 RS atoms has it): thread t (warp w = t / 32,
/// g = lane / 4, q = lane % 4) holds
///   a0, a1 = A[16w + g    ][2q, 2q + 1]        register 0
///   a2, a3 = A[16w + g + 8][2q, 2q + 1]        register 1
///   a4, a5 = A[16w + g    ][2q + 8, 2q + 9]    register 2
///   a6, a7 = A[16w + g + 8][2q + 8, 2q + 9]    register 3
/// the lower column in the low half: per warp, the m16n8k16 A fragment of
/// mma.sync (9.7.14.5.8) shifted down 16w rows. Since the accumulator map
/// (WgmmaAccMap) has the same per-warp rows and column pairs, an S = Q K^T
/// accumulator tile converts to P's A fragment in registers: k-slice s of
/// P takes accumulators 8s .. 8s + 7, pairs (8s, 8s+1) -> a[0], (8s+2,
/// 8s+3) -> a[1], (8s+4, 8s+5) -> a[2], (8s+6, 8s+7) -> a[3].
using WgmmaAFragMap = WgmmaAFrag<2>;

/// A-fragment map of an RS (A in registers) m64nNk32 wgmma, 8-bit A (e4m3):
/// the PTX ISA's Figure 152, "WGMMA .m64nNk32 register fragment layout for
/// matrix A" (section 9.7.15.5.1.1, Matrix Fragments for
/// wgmma.mma_async.m64nNk32: four .b32 registers of four 8-bit elements,
/// a0 .. a15 low to high). The figure is an image; this is read from
/// CUTLASS's ALayout_64x32 (cute/atom/mma_traits_sm90_gmma.hpp, the layout
/// of its SM90 RS atoms for 8-bit types):
///   Layout<Shape <Shape <  _4,_8, _4>,Shape < _4,_2,   _2>>,
///          Stride<Stride<_256,_1,_16>,Stride<_64,_8,_1024>>>
/// thread t = t0 + 4 t1 + 32 t2, value v = v0 + 4 v1 + 8 v2 (register v / 4)
/// maps to m + 64 k. So thread t (warp w = t / 32, g = lane / 4, q =
/// lane % 4) holds byte e (0..15: register e / 4, byte e % 4 counted from
/// the low end) = A[16w + g + 8 ((e / 4) % 2)][4q + e % 4 + 16 (e / 8)]:
///   register 0 = A[16w + g    ][4q      .. 4q + 3]
///   register 1 = A[16w + g + 8][4q      .. 4q + 3]
///   register 2 = A[16w + g    ][4q + 16 .. 4q + 19]
///   register 3 = A[16w + g + 8][4q + 16 .. 4q + 19]
/// the lowest column in the lowest byte: per warp, the m16n8k32 A fragment
/// of mma.sync shifted down 16w rows, and WgmmaAFragMap with each 16-bit
/// element split into two adjacent bytes. Unlike the 16-bit case, an f32
/// accumulator tile (WgmmaAccMap) is not this fragment register for
/// register: a thread holds the same rows but other columns, so P's
/// fragment from S = Q K^T needs a permutation among the 4 lanes of a quad.
using WgmmaAFragMap8 = WgmmaAFrag<1>;

} // namespace kgen::cuda

#endif // KGEN_CUDA_WGMMA_CUH
