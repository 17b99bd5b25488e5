//===- Wgmma.cuh - warpgroup MMA with shared-memory descriptors -*- CUDA -*-===//
//
// Hopper warpgroup MMA (wgmma.mma_async), A and B read from shared memory
// through 64-bit matrix descriptors, f32 accumulators in registers.
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
//       N any multiple of 8 in [8, 256] (every dense shape the PTX ISA
//       has for these types); d is float[N / 2], indexed only with
//       constants; D = A * B + (scale_d ? D : 0). Trans = 1 means that
//       operand is MN-major (A: M contiguous, B: N contiguous); e4m3 is
//       K-major only. One wrapper per PTX instruction, all N from one
//       shape table (KGEN_WGMMA_SHAPES).
//   WgmmaAccMap<N>::acc(thread, i)   (row, col) of accumulator i of thread
//       0..127 of the warpgroup in the 64 x N tile (KGEN_HD constexpr).
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

#if KGEN_EMULATE
#error "the emulated device does not emulate this header's sm_90 instructions \
yet (docs/emulated-device.md): move them into the instruction layer (Ptx.cuh) \
with an emulation first"
#endif
#include "kgen/cuda/Layout.cuh"

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

//===----------------------------------------------------------------------===//
// Instructions (sm_90a)
//===----------------------------------------------------------------------===//

#if KGEN_CUDA_COMPILER

#define KGEN_REQUIRE_SM90A(dep, what)                                          \
  static_assert(KGEN_ARCH == 0 || KGEN_SM90A || kFalse<dep>,                   \
                what " needs sm_90a: compile with -gencode "                   \
                     "arch=compute_90a,code=sm_90a (NVRTC: -arch=sm_90a)")

/// Orders prior register/shared accesses before the next wgmma.mma_async.
template <int kDummy = 0> KGEN_DEVICE void wgmma_fence() {
  KGEN_REQUIRE_SM90A(kDummy, "kgen::cuda::wgmma_fence");
#if KGEN_SM90A
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

/// Commits the warpgroup's outstanding wgmma.mma_async ops as one group.
template <int kDummy = 0> KGEN_DEVICE void wgmma_commit() {
  KGEN_REQUIRE_SM90A(kDummy, "kgen::cuda::wgmma_commit");
#if KGEN_SM90A
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

/// Waits until at most N committed wgmma groups are pending.
template <int N> KGEN_DEVICE void wgmma_wait() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
  KGEN_REQUIRE_SM90A(N, "kgen::cuda::wgmma_wait");
#if KGEN_SM90A
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}

/// Keeps the compiler from moving accesses of `acc` across a wgmma boundary
/// (the asynchronous MMA writes these registers behind its back).
template <int R> KGEN_DEVICE void fence_operand(float (&acc)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i)
    asm volatile("" : "+f"(acc[i])::"memory");
}

/// setmaxnreg.inc: a consumer warpgroup takes registers from the pool.
template <int R> KGEN_DEVICE void warpgroup_reg_alloc() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0,
                "setmaxnreg takes 24..256 in steps of 8");
  KGEN_REQUIRE_SM90A(R, "kgen::cuda::warpgroup_reg_alloc (setmaxnreg)");
#if KGEN_SM90A
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
#endif
}

/// setmaxnreg.dec: a producer warpgroup returns registers to the pool.
template <int R> KGEN_DEVICE void warpgroup_reg_dealloc() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0,
                "setmaxnreg takes 24..256 in steps of 8");
  KGEN_REQUIRE_SM90A(R, "kgen::cuda::warpgroup_reg_dealloc (setmaxnreg)");
#if KGEN_SM90A
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
#endif
}

// The wgmma.mma_async wrappers below, one per PTX instruction (PTX ISA,
// "Asynchronous Multiply-and-Accumulate Instruction: wgmma.mma_async",
// section 9.7.15.5.2 in recent versions). The ISA lists the dense shapes m64nNk16 (f16, bf16)
// and m64nNk32 (e4m3, e5m2) for every N = 8, 16, .., 256; with f32
// accumulators each thread holds N / 2 of them, so the asm has N / 2
// "+f" operands %0 .. %(N/2 - 1), then the descriptors and the flags.
//
// KGEN_WGMMA_R<R>: the accumulator list "%0, .., %(R-1)" (R a multiple
// of 4); KGEN_WGMMA_O<R>(d): the matching outputs "+f"(d[0]) ..
// "+f"(d[R-1]). Each extends the one before by four.
#define KGEN_WGMMA_R4 "%0, %1, %2, %3"
#define KGEN_WGMMA_R8 KGEN_WGMMA_R4 ", %4, %5, %6, %7"
#define KGEN_WGMMA_R12 KGEN_WGMMA_R8 ", %8, %9, %10, %11"
#define KGEN_WGMMA_R16 KGEN_WGMMA_R12 ", %12, %13, %14, %15"
#define KGEN_WGMMA_R20 KGEN_WGMMA_R16 ", %16, %17, %18, %19"
#define KGEN_WGMMA_R24 KGEN_WGMMA_R20 ", %20, %21, %22, %23"
#define KGEN_WGMMA_R28 KGEN_WGMMA_R24 ", %24, %25, %26, %27"
#define KGEN_WGMMA_R32 KGEN_WGMMA_R28 ", %28, %29, %30, %31"
#define KGEN_WGMMA_R36 KGEN_WGMMA_R32 ", %32, %33, %34, %35"
#define KGEN_WGMMA_R40 KGEN_WGMMA_R36 ", %36, %37, %38, %39"
#define KGEN_WGMMA_R44 KGEN_WGMMA_R40 ", %40, %41, %42, %43"
#define KGEN_WGMMA_R48 KGEN_WGMMA_R44 ", %44, %45, %46, %47"
#define KGEN_WGMMA_R52 KGEN_WGMMA_R48 ", %48, %49, %50, %51"
#define KGEN_WGMMA_R56 KGEN_WGMMA_R52 ", %52, %53, %54, %55"
#define KGEN_WGMMA_R60 KGEN_WGMMA_R56 ", %56, %57, %58, %59"
#define KGEN_WGMMA_R64 KGEN_WGMMA_R60 ", %60, %61, %62, %63"
#define KGEN_WGMMA_R68 KGEN_WGMMA_R64 ", %64, %65, %66, %67"
#define KGEN_WGMMA_R72 KGEN_WGMMA_R68 ", %68, %69, %70, %71"
#define KGEN_WGMMA_R76 KGEN_WGMMA_R72 ", %72, %73, %74, %75"
#define KGEN_WGMMA_R80 KGEN_WGMMA_R76 ", %76, %77, %78, %79"
#define KGEN_WGMMA_R84 KGEN_WGMMA_R80 ", %80, %81, %82, %83"
#define KGEN_WGMMA_R88 KGEN_WGMMA_R84 ", %84, %85, %86, %87"
#define KGEN_WGMMA_R92 KGEN_WGMMA_R88 ", %88, %89, %90, %91"
#define KGEN_WGMMA_R96 KGEN_WGMMA_R92 ", %92, %93, %94, %95"
#define KGEN_WGMMA_R100 KGEN_WGMMA_R96 ", %96, %97, %98, %99"
#define KGEN_WGMMA_R104 KGEN_WGMMA_R100 ", %100, %101, %102, %103"
#define KGEN_WGMMA_R108 KGEN_WGMMA_R104 ", %104, %105, %106, %107"
#define KGEN_WGMMA_R112 KGEN_WGMMA_R108 ", %108, %109, %110, %111"
#define KGEN_WGMMA_R116 KGEN_WGMMA_R112 ", %112, %113, %114, %115"
#define KGEN_WGMMA_R120 KGEN_WGMMA_R116 ", %116, %117, %118, %119"
#define KGEN_WGMMA_R124 KGEN_WGMMA_R120 ", %120, %121, %122, %123"
#define KGEN_WGMMA_R128 KGEN_WGMMA_R124 ", %124, %125, %126, %127"
#define KGEN_WGMMA_F4(d, i)                                                    \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define KGEN_WGMMA_O4(d) KGEN_WGMMA_F4(d, 0)
#define KGEN_WGMMA_O8(d) KGEN_WGMMA_O4(d), KGEN_WGMMA_F4(d, 4)
#define KGEN_WGMMA_O12(d) KGEN_WGMMA_O8(d), KGEN_WGMMA_F4(d, 8)
#define KGEN_WGMMA_O16(d) KGEN_WGMMA_O12(d), KGEN_WGMMA_F4(d, 12)
#define KGEN_WGMMA_O20(d) KGEN_WGMMA_O16(d), KGEN_WGMMA_F4(d, 16)
#define KGEN_WGMMA_O24(d) KGEN_WGMMA_O20(d), KGEN_WGMMA_F4(d, 20)
#define KGEN_WGMMA_O28(d) KGEN_WGMMA_O24(d), KGEN_WGMMA_F4(d, 24)
#define KGEN_WGMMA_O32(d) KGEN_WGMMA_O28(d), KGEN_WGMMA_F4(d, 28)
#define KGEN_WGMMA_O36(d) KGEN_WGMMA_O32(d), KGEN_WGMMA_F4(d, 32)
#define KGEN_WGMMA_O40(d) KGEN_WGMMA_O36(d), KGEN_WGMMA_F4(d, 36)
#define KGEN_WGMMA_O44(d) KGEN_WGMMA_O40(d), KGEN_WGMMA_F4(d, 40)
#define KGEN_WGMMA_O48(d) KGEN_WGMMA_O44(d), KGEN_WGMMA_F4(d, 44)
#define KGEN_WGMMA_O52(d) KGEN_WGMMA_O48(d), KGEN_WGMMA_F4(d, 48)
#define KGEN_WGMMA_O56(d) KGEN_WGMMA_O52(d), KGEN_WGMMA_F4(d, 52)
#define KGEN_WGMMA_O60(d) KGEN_WGMMA_O56(d), KGEN_WGMMA_F4(d, 56)
#define KGEN_WGMMA_O64(d) KGEN_WGMMA_O60(d), KGEN_WGMMA_F4(d, 60)
#define KGEN_WGMMA_O68(d) KGEN_WGMMA_O64(d), KGEN_WGMMA_F4(d, 64)
#define KGEN_WGMMA_O72(d) KGEN_WGMMA_O68(d), KGEN_WGMMA_F4(d, 68)
#define KGEN_WGMMA_O76(d) KGEN_WGMMA_O72(d), KGEN_WGMMA_F4(d, 72)
#define KGEN_WGMMA_O80(d) KGEN_WGMMA_O76(d), KGEN_WGMMA_F4(d, 76)
#define KGEN_WGMMA_O84(d) KGEN_WGMMA_O80(d), KGEN_WGMMA_F4(d, 80)
#define KGEN_WGMMA_O88(d) KGEN_WGMMA_O84(d), KGEN_WGMMA_F4(d, 84)
#define KGEN_WGMMA_O92(d) KGEN_WGMMA_O88(d), KGEN_WGMMA_F4(d, 88)
#define KGEN_WGMMA_O96(d) KGEN_WGMMA_O92(d), KGEN_WGMMA_F4(d, 92)
#define KGEN_WGMMA_O100(d) KGEN_WGMMA_O96(d), KGEN_WGMMA_F4(d, 96)
#define KGEN_WGMMA_O104(d) KGEN_WGMMA_O100(d), KGEN_WGMMA_F4(d, 100)
#define KGEN_WGMMA_O108(d) KGEN_WGMMA_O104(d), KGEN_WGMMA_F4(d, 104)
#define KGEN_WGMMA_O112(d) KGEN_WGMMA_O108(d), KGEN_WGMMA_F4(d, 108)
#define KGEN_WGMMA_O116(d) KGEN_WGMMA_O112(d), KGEN_WGMMA_F4(d, 112)
#define KGEN_WGMMA_O120(d) KGEN_WGMMA_O116(d), KGEN_WGMMA_F4(d, 116)
#define KGEN_WGMMA_O124(d) KGEN_WGMMA_O120(d), KGEN_WGMMA_F4(d, 120)
#define KGEN_WGMMA_O128(d) KGEN_WGMMA_O124(d), KGEN_WGMMA_F4(d, 124)

// X(N, R, A, B, S, TA, TB) for every N the ISA allows: R = N / 2
// accumulator operands, then the asm operand numbers of desc_a, desc_b,
// scale_d and the two transpose immediates (what follows the
// accumulators). The three instruction wrappers expand this one table.
#define KGEN_WGMMA_SHAPES(X)           \
  X(  8,   4,   4,   5,   6,   7,   8) \
  X( 16,   8,   8,   9,  10,  11,  12) \
  X( 24,  12,  12,  13,  14,  15,  16) \
  X( 32,  16,  16,  17,  18,  19,  20) \
  X( 40,  20,  20,  21,  22,  23,  24) \
  X( 48,  24,  24,  25,  26,  27,  28) \
  X( 56,  28,  28,  29,  30,  31,  32) \
  X( 64,  32,  32,  33,  34,  35,  36) \
  X( 72,  36,  36,  37,  38,  39,  40) \
  X( 80,  40,  40,  41,  42,  43,  44) \
  X( 88,  44,  44,  45,  46,  47,  48) \
  X( 96,  48,  48,  49,  50,  51,  52) \
  X(104,  52,  52,  53,  54,  55,  56) \
  X(112,  56,  56,  57,  58,  59,  60) \
  X(120,  60,  60,  61,  62,  63,  64) \
  X(128,  64,  64,  65,  66,  67,  68) \
  X(136,  68,  68,  69,  70,  71,  72) \
  X(144,  72,  72,  73,  74,  75,  76) \
  X(152,  76,  76,  77,  78,  79,  80) \
  X(160,  80,  80,  81,  82,  83,  84) \
  X(168,  84,  84,  85,  86,  87,  88) \
  X(176,  88,  88,  89,  90,  91,  92) \
  X(184,  92,  92,  93,  94,  95,  96) \
  X(192,  96,  96,  97,  98,  99, 100) \
  X(200, 100, 100, 101, 102, 103, 104) \
  X(208, 104, 104, 105, 106, 107, 108) \
  X(216, 108, 108, 109, 110, 111, 112) \
  X(224, 112, 112, 113, 114, 115, 116) \
  X(232, 116, 116, 117, 118, 119, 120) \
  X(240, 120, 120, 121, 122, 123, 124) \
  X(248, 124, 124, 125, 126, 127, 128) \
  X(256, 128, 128, 129, 130, 131, 132)

/// d[0 .. N/2) (+)= A(64 x 16, bf16) * B(16 x N, bf16), f32 accumulate.
/// wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16 d, a-desc, b-desc,
///     scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b
template <int N, bool TransA = false, bool TransB = false>
KGEN_DEVICE void wgmma_bf16(float (&d)[N / 2], unsigned long long desc_a,
                            unsigned long long desc_b, int scale_d) {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256,
                "wgmma_bf16: N is a multiple of 8 in [8, 256] (m64nNk16)");
  KGEN_REQUIRE_SM90A(N, "kgen::cuda::wgmma_bf16");
#if KGEN_SM90A
#define KGEN_WGMMA_BF16(kN, kR, kA, kB, kS, kTA, kTB)                          \
  if constexpr (N == kN)                                                       \
    asm volatile("{\n"                                                         \
                 ".reg .pred p;\n"                                             \
                 "setp.ne.b32 p, %" #kS ", 0;\n"                               \
                 "wgmma.mma_async.sync.aligned.m64n" #kN "k16.f32.bf16.bf16 "  \
                 "{" KGEN_WGMMA_R##kR "}, %" #kA ", %" #kB ", p, 1, 1, %" #kTA \
                 ", %" #kTB ";\n"                                              \
                 "}\n"                                                         \
                 : KGEN_WGMMA_O##kR(d)                                         \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(int(TransA)),   \
                   "n"(int(TransB)));
  KGEN_WGMMA_SHAPES(KGEN_WGMMA_BF16)
#undef KGEN_WGMMA_BF16
#endif
}

/// d[0 .. N/2) (+)= A(64 x 16, f16) * B(16 x N, f16), f32 accumulate.
/// wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16 d, a-desc, b-desc,
///     scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b
template <int N, bool TransA = false, bool TransB = false>
KGEN_DEVICE void wgmma_f16(float (&d)[N / 2], unsigned long long desc_a,
                           unsigned long long desc_b, int scale_d) {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256,
                "wgmma_f16: N is a multiple of 8 in [8, 256] (m64nNk16)");
  KGEN_REQUIRE_SM90A(N, "kgen::cuda::wgmma_f16");
#if KGEN_SM90A
#define KGEN_WGMMA_F16(kN, kR, kA, kB, kS, kTA, kTB)                           \
  if constexpr (N == kN)                                                       \
    asm volatile("{\n"                                                         \
                 ".reg .pred p;\n"                                             \
                 "setp.ne.b32 p, %" #kS ", 0;\n"                               \
                 "wgmma.mma_async.sync.aligned.m64n" #kN "k16.f32.f16.f16 "    \
                 "{" KGEN_WGMMA_R##kR "}, %" #kA ", %" #kB ", p, 1, 1, %" #kTA \
                 ", %" #kTB ";\n"                                              \
                 "}\n"                                                         \
                 : KGEN_WGMMA_O##kR(d)                                         \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(int(TransA)),   \
                   "n"(int(TransB)));
  KGEN_WGMMA_SHAPES(KGEN_WGMMA_F16)
#undef KGEN_WGMMA_F16
#endif
}

/// d[0 .. N/2) (+)= A(64 x 32, e4m3) * B(32 x N, e4m3), f32 accumulate.
/// Both operands K-major (fp8 wgmma has no transpose immediates).
/// wgmma.mma_async.sync.aligned.m64nNk32.f32.e4m3.e4m3 d, a-desc, b-desc,
///     scale-d, imm-scale-a, imm-scale-b
template <int N>
KGEN_DEVICE void wgmma_e4m3(float (&d)[N / 2], unsigned long long desc_a,
                            unsigned long long desc_b, int scale_d) {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256,
                "wgmma_e4m3: N is a multiple of 8 in [8, 256] (m64nNk32)");
  KGEN_REQUIRE_SM90A(N, "kgen::cuda::wgmma_e4m3");
#if KGEN_SM90A
#define KGEN_WGMMA_E4M3(kN, kR, kA, kB, kS, kTA, kTB)                          \
  if constexpr (N == kN)                                                       \
    asm volatile("{\n"                                                         \
                 ".reg .pred p;\n"                                             \
                 "setp.ne.b32 p, %" #kS ", 0;\n"                               \
                 "wgmma.mma_async.sync.aligned.m64n" #kN "k32.f32.e4m3.e4m3 "  \
                 "{" KGEN_WGMMA_R##kR "}, %" #kA ", %" #kB ", p, 1, 1;\n"      \
                 "}\n"                                                         \
                 : KGEN_WGMMA_O##kR(d)                                         \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  KGEN_WGMMA_SHAPES(KGEN_WGMMA_E4M3)
#undef KGEN_WGMMA_E4M3
#endif
}

#undef KGEN_REQUIRE_SM90A
// The operand lists and the shape table are this header's alone.
#undef KGEN_WGMMA_SHAPES
#undef KGEN_WGMMA_F4
#undef KGEN_WGMMA_R4
#undef KGEN_WGMMA_R8
#undef KGEN_WGMMA_R12
#undef KGEN_WGMMA_R16
#undef KGEN_WGMMA_R20
#undef KGEN_WGMMA_R24
#undef KGEN_WGMMA_R28
#undef KGEN_WGMMA_R32
#undef KGEN_WGMMA_R36
#undef KGEN_WGMMA_R40
#undef KGEN_WGMMA_R44
#undef KGEN_WGMMA_R48
#undef KGEN_WGMMA_R52
#undef KGEN_WGMMA_R56
#undef KGEN_WGMMA_R60
#undef KGEN_WGMMA_R64
#undef KGEN_WGMMA_R68
#undef KGEN_WGMMA_R72
#undef KGEN_WGMMA_R76
#undef KGEN_WGMMA_R80
#undef KGEN_WGMMA_R84
#undef KGEN_WGMMA_R88
#undef KGEN_WGMMA_R92
#undef KGEN_WGMMA_R96
#undef KGEN_WGMMA_R100
#undef KGEN_WGMMA_R104
#undef KGEN_WGMMA_R108
#undef KGEN_WGMMA_R112
#undef KGEN_WGMMA_R116
#undef KGEN_WGMMA_R120
#undef KGEN_WGMMA_R124
#undef KGEN_WGMMA_R128
#undef KGEN_WGMMA_O4
#undef KGEN_WGMMA_O8
#undef KGEN_WGMMA_O12
#undef KGEN_WGMMA_O16
#undef KGEN_WGMMA_O20
#undef KGEN_WGMMA_O24
#undef KGEN_WGMMA_O28
#undef KGEN_WGMMA_O32
#undef KGEN_WGMMA_O36
#undef KGEN_WGMMA_O40
#undef KGEN_WGMMA_O44
#undef KGEN_WGMMA_O48
#undef KGEN_WGMMA_O52
#undef KGEN_WGMMA_O56
#undef KGEN_WGMMA_O60
#undef KGEN_WGMMA_O64
#undef KGEN_WGMMA_O68
#undef KGEN_WGMMA_O72
#undef KGEN_WGMMA_O76
#undef KGEN_WGMMA_O80
#undef KGEN_WGMMA_O84
#undef KGEN_WGMMA_O88
#undef KGEN_WGMMA_O92
#undef KGEN_WGMMA_O96
#undef KGEN_WGMMA_O100
#undef KGEN_WGMMA_O104
#undef KGEN_WGMMA_O108
#undef KGEN_WGMMA_O112
#undef KGEN_WGMMA_O116
#undef KGEN_WGMMA_O120
#undef KGEN_WGMMA_O124
#undef KGEN_WGMMA_O128

#endif // KGEN_CUDA_COMPILER

} // namespace kgen::cuda

#endif // KGEN_CUDA_WGMMA_CUH
