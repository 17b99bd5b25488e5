// Compile test: Mma.cuh warp tiles for bf16 in all four transposition
// combinations (padded tiles: ldmatrix / ldmatrix.trans), and TN with
// swizzled tiles. A 128 x 128 block tile, 4 warps of 64 x 64, BK = 32.
// TARGETS: sm_80 sm_90a
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: cvt.rn.bf16x2.f32
// CHECK-NOT: ld.shared.b32
#include "BlockTile.cuh"

#include <cuda_bf16.h>

using namespace kgen::cuda;

constexpr int kBM = 128, kBN = 128, kBK = 32, kWM = 64, kWN = 64;
constexpr int kThreads = 128;

using Tile = kgen::cuda::test::BlockTile<kBM, kBN, kBK, kWM, kWN, kThreads>;

using bf16 = __nv_bfloat16;
using AK = RowMajorPadded<bf16, kBM, kBK, 8>;  // A K-major (BM, BK)
using AMN = RowMajorPadded<bf16, kBK, kBM, 8>; // A MN-major (BK, BM)
using BK_ = RowMajorPadded<bf16, kBN, kBK, 8>; // B K-major (BN, BK)
using BMN = RowMajorPadded<bf16, kBK, kBN, 8>; // B MN-major (BK, BN)
// K-major tiles in the 64-byte swizzle (BK = 32 bf16 = 64 bytes per row).
using AKS = RowMajorSwizzled<bf16, kBM, kBK, Swizzle::B64>;
using BKS = RowMajorSwizzled<bf16, kBN, kBK, Swizzle::B64>;

#define KGEN_TEST_KERNEL(name, MA, MB, LA, LB)                                 \
  __global__ void __launch_bounds__(kThreads)                                  \
      name(const bf16 *a, long long lda, const bf16 *b, long long ldb,         \
           bf16 *d, long long ldd, int m, int n, int k) {                      \
    Tile::run<MmaBf16, MA, MB, LA, LB>(a, lda, b, ldb, d, ldd, m, n, k);      \
  }

KGEN_TEST_KERNEL(bf16_tn, Major::K, Major::K, AK, BK_)
KGEN_TEST_KERNEL(bf16_nn, Major::MN, Major::K, AMN, BK_)
KGEN_TEST_KERNEL(bf16_tt, Major::K, Major::MN, AK, BMN)
KGEN_TEST_KERNEL(bf16_nt, Major::MN, Major::MN, AMN, BMN)
KGEN_TEST_KERNEL(bf16_tn_swizzled, Major::K, Major::K, AKS, BKS)
