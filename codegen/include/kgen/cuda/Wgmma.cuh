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
//       N in {64, 128, 256}; d is float[N / 2], indexed only with constants;
//       D = A * B + (scale_d ? D : 0). Trans = 1 means that operand is
//       MN-major (A: M contiguous, B: N contiguous); e4m3 is K-major only.
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

// Accumulator operand lists (mechanical; %i is d[i]).
// The 32 f32 accumulators of an m64n64 tile: asm operands %0..%31.
#define KGEN_WGMMA_D32_REGS \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
  "}"
#define KGEN_WGMMA_D32_OUT(d) \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])

// The 64 f32 accumulators of an m64n128 tile: asm operands %0..%63.
#define KGEN_WGMMA_D64_REGS \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
  "}"
#define KGEN_WGMMA_D64_OUT(d) \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])

// The 128 f32 accumulators of an m64n256 tile: asm operands %0..%127.
#define KGEN_WGMMA_D128_REGS \
  "{" \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
  "}"
#define KGEN_WGMMA_D128_OUT(d) \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

/// d[0 .. N/2) (+)= A(64 x 16, bf16) * B(16 x N, bf16), f32 accumulate.
template <int N, bool TransA = false, bool TransB = false>
KGEN_DEVICE void wgmma_bf16(float (&d)[N / 2], unsigned long long desc_a,
                            unsigned long long desc_b, int scale_d) {
  static_assert(N == 64 || N == 128 || N == 256,
                "wgmma_bf16 is provided for N in {64, 128, 256}");
  KGEN_REQUIRE_SM90A(N, "kgen::cuda::wgmma_bf16");
#if KGEN_SM90A
  if constexpr (N == 64) {
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
                 KGEN_WGMMA_D32_REGS
                 ", %32, %33, p, 1, 1, %35, %36;\n"
                 "}\n"
                 : KGEN_WGMMA_D32_OUT(d)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(int(TransA)), "n"(int(TransB)));
  } else if constexpr (N == 128) {
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
                 KGEN_WGMMA_D64_REGS
                 ", %64, %65, p, 1, 1, %67, %68;\n"
                 "}\n"
                 : KGEN_WGMMA_D64_OUT(d)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(int(TransA)), "n"(int(TransB)));
  } else if constexpr (N == 256) {
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
                 KGEN_WGMMA_D128_REGS
                 ", %128, %129, p, 1, 1, %131, %132;\n"
                 "}\n"
                 : KGEN_WGMMA_D128_OUT(d)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(int(TransA)), "n"(int(TransB)));
  }
#endif
}

/// d[0 .. N/2) (+)= A(64 x 16, f16) * B(16 x N, f16), f32 accumulate.
template <int N, bool TransA = false, bool TransB = false>
KGEN_DEVICE void wgmma_f16(float (&d)[N / 2], unsigned long long desc_a,
                           unsigned long long desc_b, int scale_d) {
  static_assert(N == 64 || N == 128 || N == 256,
                "wgmma_f16 is provided for N in {64, 128, 256}");
  KGEN_REQUIRE_SM90A(N, "kgen::cuda::wgmma_f16");
#if KGEN_SM90A
  if constexpr (N == 64) {
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                 KGEN_WGMMA_D32_REGS
                 ", %32, %33, p, 1, 1, %35, %36;\n"
                 "}\n"
                 : KGEN_WGMMA_D32_OUT(d)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(int(TransA)), "n"(int(TransB)));
  } else if constexpr (N == 128) {
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
                 KGEN_WGMMA_D64_REGS
                 ", %64, %65, p, 1, 1, %67, %68;\n"
                 "}\n"
                 : KGEN_WGMMA_D64_OUT(d)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(int(TransA)), "n"(int(TransB)));
  } else if constexpr (N == 256) {
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
                 KGEN_WGMMA_D128_REGS
                 ", %128, %129, p, 1, 1, %131, %132;\n"
                 "}\n"
                 : KGEN_WGMMA_D128_OUT(d)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(int(TransA)), "n"(int(TransB)));
  }
#endif
}

/// d[0 .. N/2) (+)= A(64 x 32, e4m3) * B(32 x N, e4m3), f32 accumulate.
/// Both operands K-major (fp8 wgmma has no transpose).
template <int N>
KGEN_DEVICE void wgmma_e4m3(float (&d)[N / 2], unsigned long long desc_a,
                            unsigned long long desc_b, int scale_d) {
  static_assert(N == 64 || N == 128 || N == 256,
                "wgmma_e4m3 is provided for N in {64, 128, 256}");
  KGEN_REQUIRE_SM90A(N, "kgen::cuda::wgmma_e4m3");
#if KGEN_SM90A
  if constexpr (N == 64) {
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 "
                 KGEN_WGMMA_D32_REGS
                 ", %32, %33, p, 1, 1;\n"
                 "}\n"
                 : KGEN_WGMMA_D32_OUT(d)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  } else if constexpr (N == 128) {
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 "
                 KGEN_WGMMA_D64_REGS
                 ", %64, %65, p, 1, 1;\n"
                 "}\n"
                 : KGEN_WGMMA_D64_OUT(d)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  } else if constexpr (N == 256) {
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 "
                 KGEN_WGMMA_D128_REGS
                 ", %128, %129, p, 1, 1;\n"
                 "}\n"
                 : KGEN_WGMMA_D128_OUT(d)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  }
#endif
}

#undef KGEN_REQUIRE_SM90A

#endif // KGEN_CUDA_COMPILER

} // namespace kgen::cuda

#endif // KGEN_CUDA_WGMMA_CUH
