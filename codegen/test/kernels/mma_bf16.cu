// Compile test: bf16 mma.sync through the shipped block layer (kgen/block:
// load_box, MmaSyncAccumulator, the epilogue; the emitter's 2-stage
// cp.async mainloop) in all four transposition combinations, and the
// Mma.cuh warp tile alone on padded (ldmatrix / ldmatrix.trans) and
// 64-byte swizzled tiles. A 128 x 128 block tile, 4 warps of 64 x 64,
// BK = 32.
// TARGETS: sm_80 sm_90a
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: cp.async.wait_group 1;
// CHECK: cvt.rn.bf16x2.f32
// CHECK-NOT: ld.shared.b32
#include "Sm80Mainloop.cuh"
#include "WarpTile.cuh"

#include <cuda_bf16.h>

using namespace kgen::cuda;
using bf16 = __nv_bfloat16;

constexpr int kBM = 128, kBN = 128, kBK = 32, kStages = 2, kThreads = 128;

// D (m, n) = A x B, A (m, k) or stored (k, m) with TransA, B (k, n) or
// stored (n, k) with TransB; bf16 out.
#define KGEN_TEST_KERNEL(name, TransA, TransB)                                 \
  __global__ void __launch_bounds__(kThreads)                                  \
      name(const bf16 *a, const bf16 *b, bf16 *d, long m, long n, long k) {    \
    extern __shared__ __align__(128) unsigned char smem[];                     \
    const long m0 = blockIdx.y * long(kBM), n0 = blockIdx.x * long(kBN);       \
    kgen::block::MmaSyncAccumulator<kBM, kBN, 2, 2> acc;                       \
    kgen::test::mainloop<bf16, kBM, kBN, kBK, kStages, kThreads, TransA,       \
                         TransB>(acc, smem, a, TransA ? m : k, b,              \
                                 TransB ? k : n, m, n, k, m0, n0, 0,           \
                                 (k + kBK - 1) / kBK);                         \
    acc.epilogue<Act::None, false, false>(                                     \
        d, n, m0, n0, m, n, static_cast<const float *>(nullptr),              \
        static_cast<const bf16 *>(nullptr), 1.f, 0.f);                         \
  }

KGEN_TEST_KERNEL(bf16_tn, false, true)
KGEN_TEST_KERNEL(bf16_nn, true, true)
KGEN_TEST_KERNEL(bf16_tt, false, false)
KGEN_TEST_KERNEL(bf16_nt, true, false)
#undef KGEN_TEST_KERNEL

// The warp tile alone on padded and swizzled layouts.
using AK = RowMajorPadded<bf16, kBM, kBK, 8>;  // A K-major (BM, BK)
using AMN = RowMajorPadded<bf16, kBK, kBM, 8>; // A MN-major (BK, BM)
using BK_ = RowMajorPadded<bf16, kBN, kBK, 8>; // B K-major (BN, BK)
using BMN = RowMajorPadded<bf16, kBK, kBN, 8>; // B MN-major (BK, BN)
// K-major tiles in the 64-byte swizzle (BK = 32 bf16 = 64 bytes per row).
using AKS = RowMajorSwizzled<bf16, kBM, kBK, Swizzle::B64>;
using BKS = RowMajorSwizzled<bf16, kBN, kBK, Swizzle::B64>;

#define KGEN_TEST_WARP_TILE(name, MA, MB, LA, LB)                              \
  __global__ void __launch_bounds__(kThreads)                                  \
      name(const bf16 *a, const bf16 *b, bf16 *d) {                            \
    kgen::test::warp_tile<MmaBf16, MA, MB, LA, LB, 64, 64, kBK, kThreads>(     \
        a, b, d, kBN);                                                         \
  }
KGEN_TEST_WARP_TILE(bf16_tn_padded, Major::K, Major::K, AK, BK_)
KGEN_TEST_WARP_TILE(bf16_nt_padded, Major::MN, Major::MN, AMN, BMN)
KGEN_TEST_WARP_TILE(bf16_tn_swizzled, Major::K, Major::K, AKS, BKS)
#undef KGEN_TEST_WARP_TILE
