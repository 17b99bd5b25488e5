// Compile test: Mma.cuh warp tiles for f16 (ldmatrix) and tf32 (f32 in
// shared memory: ldmatrix for K-major, ld.shared for MN-major, cvt.rna to
// tf32), f32 and f16 outputs; and the f32 SIMT thread tile.
// TARGETS: sm_80 sm_90a
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK: cvt.rna.tf32.f32
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: ld.shared.b32
// CHECK: cvt.rn.f16x2.f32
// CHECK: fma.rn.f32
#include "BlockTile.cuh"

#include <cuda_fp16.h>

using namespace kgen::cuda;

constexpr int kBM = 128, kBN = 128, kBK = 32, kWM = 64, kWN = 64;
constexpr int kThreads = 128;

using Tile = kgen::cuda::test::BlockTile<kBM, kBN, kBK, kWM, kWN, kThreads>;

using f16 = __half;
// f16, padded by 16 bytes.
using HAK = RowMajorPadded<f16, kBM, kBK, 8>;
using HBK = RowMajorPadded<f16, kBN, kBK, 8>;
using HAMN = RowMajorPadded<f16, kBK, kBM, 8>;
using HBMN = RowMajorPadded<f16, kBK, kBN, 8>;
// f32 for tf32: K-major rows padded by 16 bytes (ldmatrix), MN-major rows by
// 8 words so that the element loads of a warp hit 32 distinct banks.
using FAK = RowMajorPadded<float, kBM, kBK, 4>;
using FBK = RowMajorPadded<float, kBN, kBK, 4>;
using FAMN = RowMajorPadded<float, kBK, kBM, 8>;
using FBMN = RowMajorPadded<float, kBK, kBN, 8>;

#define KGEN_TEST_KERNEL(name, Op, T, OutT, MA, MB, LA, LB)                    \
  __global__ void __launch_bounds__(kThreads)                                  \
      name(const T *a, long long lda, const T *b, long long ldb, OutT *d,      \
           long long ldd, int m, int n, int k) {                               \
    Tile::run<Op, MA, MB, LA, LB>(a, lda, b, ldb, d, ldd, m, n, k);           \
  }

KGEN_TEST_KERNEL(f16_tn, MmaF16, f16, f16, Major::K, Major::K, HAK, HBK)
KGEN_TEST_KERNEL(f16_nt, MmaF16, f16, float, Major::MN, Major::MN, HAMN, HBMN)
KGEN_TEST_KERNEL(tf32_tn, MmaTf32, float, float, Major::K, Major::K, FAK, FBK)
KGEN_TEST_KERNEL(tf32_nt, MmaTf32, float, float, Major::MN, Major::MN, FAMN, FBMN)

// f32 SIMT: each thread an (8, 8) register tile over a (128, 128) block tile
// of (BK = 8, 128) MN-major A and B slabs in shared memory.
__global__ void __launch_bounds__(256)
simt_f32(const float *a, const float *b, float *d, int n) {
  __shared__ alignas(16) float sa[8][128], sb[8][128];
  const int tid = threadIdx.x, tm = tid / 16, tn = tid % 16;
  for (int i = tid; i < 8 * 128; i += 256) {
    sa[i / 128][i % 128] = a[i];
    sb[i / 128][i % 128] = b[i];
  }
  __syncthreads();
  float acc[8][8] = {};
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    float fa[8], fb[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      fa[i] = sa[k][tm * 8 + i];
      fb[i] = sb[k][tn * 8 + i];
    }
    ThreadTileFma<8, 8>::step(acc, fa, fb);
  }
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      d[(tm * 8 + i) * n + tn * 8 + j] = acc[i][j];
}
