// Compile test: Mma.cuh warp tile for fp8 e4m3 (TN: both operands K-major),
// bf16 output. A 64 x 64 block tile of 32 x 32 warp tiles: on sm_90a,
// mma.sync e4m3 is emulated (SASS: F2FP.F16.E4M3.UNPACK_B + HMMA.16816), which
// costs registers; sm_89 has it natively (QMMA). Hopper's fast fp8 is
// wgmma_e4m3. __launch_bounds__(.., 1): without it ptxas chose 72 registers
// on sm_89 and spilled one.
// TARGETS: sm_89 sm_90a
// CHECK: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
#include "BlockTile.cuh"

#include <cuda_fp8.h>

using namespace kgen::cuda;

constexpr int kBM = 64, kBN = 64, kBK = 64, kWM = 32, kWN = 32;
constexpr int kThreads = 128;

using Tile = kgen::cuda::test::BlockTile<kBM, kBN, kBK, kWM, kWN, kThreads>;

using e4m3 = __nv_fp8_e4m3;
// (128, 64) e4m3 = 64-byte rows, 16 bytes of padding.
using EAK = RowMajorPadded<e4m3, kBM, kBK, 16>;
using EBK = RowMajorPadded<e4m3, kBN, kBK, 16>;
// The same in the 64-byte swizzle.
using EAKS = RowMajorSwizzled<e4m3, kBM, kBK, Swizzle::B64>;
using EBKS = RowMajorSwizzled<e4m3, kBN, kBK, Swizzle::B64>;

__global__ void __launch_bounds__(kThreads, 1)
e4m3_tn(const e4m3 *a, long long lda, const e4m3 *b, long long ldb,
        __nv_bfloat16 *d, long long ldd, int m, int n, int k) {
  Tile::run<MmaE4m3, Major::K, Major::K, EAK, EBK>(a, lda, b, ldb, d, ldd, m,
                                                    n, k);
}

__global__ void __launch_bounds__(kThreads, 1)
e4m3_tn_swizzled(const e4m3 *a, long long lda, const e4m3 *b, long long ldb,
                 __nv_bfloat16 *d, long long ldd, int m, int n, int k) {
  Tile::run<MmaE4m3, Major::K, Major::K, EAKS, EBKS>(a, lda, b, ldb, d, ldd,
                                                      m, n, k);
}
