// Compile test: f16 (ldmatrix) and tf32 (f32 in shared memory: ldmatrix for
// K-major, ld.shared for MN-major, cvt.rna to tf32) mma.sync through the
// shipped block layer (kgen/block: load_box, MmaSyncAccumulator, the
// emitter's 3-stage cp.async mainloop), f32 and f16 outputs; the Mma.cuh
// warp tile alone on padded tiles; and the f32 SIMT thread tile.
// TARGETS: sm_80 sm_90a
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK: cvt.rna.tf32.f32
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: ld.shared.b32
// CHECK: cvt.rn.f16x2.f32
// CHECK: fma.rn.f32
#include "Sm80Mainloop.cuh"
#include "WarpTile.cuh"

#include <cuda_fp16.h>

using namespace kgen::cuda;
using f16 = __half;

constexpr int kBM = 128, kBN = 128, kBK = 32, kStages = 3, kThreads = 128;

// D (m, n) = A x B through the block layer: A (m, k) or stored (k, m) with
// TransA, B (k, n) or stored (n, k) with TransB.
#define KGEN_TEST_KERNEL(name, T, OutT, TransA, TransB)                        \
  __global__ void __launch_bounds__(kThreads)                                  \
      name(const T *a, const T *b, OutT *d, long m, long n, long k) {          \
    extern __shared__ __align__(128) unsigned char smem[];                     \
    const long m0 = blockIdx.y * long(kBM), n0 = blockIdx.x * long(kBN);       \
    kgen::block::MmaSyncAccumulator<kBM, kBN, 2, 2> acc;                       \
    kgen::test::mainloop<T, kBM, kBN, kBK, kStages, kThreads, TransA,          \
                         TransB>(acc, smem, a, TransA ? m : k, b,              \
                                 TransB ? k : n, m, n, k, m0, n0, 0,           \
                                 (k + kBK - 1) / kBK);                         \
    acc.epilogue<Act::None, false, false>(                                     \
        d, n, m0, n0, m, n, static_cast<const float *>(nullptr),              \
        static_cast<const OutT *>(nullptr), 1.f, 0.f);                         \
  }

KGEN_TEST_KERNEL(f16_tn, f16, f16, false, true)
KGEN_TEST_KERNEL(f16_nt, f16, float, true, false)
KGEN_TEST_KERNEL(tf32_tn, float, float, false, true)
KGEN_TEST_KERNEL(tf32_nt, float, float, true, false)
#undef KGEN_TEST_KERNEL

// The warp tile alone on padded layouts. f32 for tf32: K-major rows padded
// by 16 bytes (ldmatrix), MN-major rows by 8 words so that the element
// loads of a warp hit 32 distinct banks.
using HAK = RowMajorPadded<f16, kBM, kBK, 8>;
using HBK = RowMajorPadded<f16, kBN, kBK, 8>;
using FAMN = RowMajorPadded<float, kBK, kBM, 8>;
using FBMN = RowMajorPadded<float, kBK, kBN, 8>;

__global__ void __launch_bounds__(kThreads)
f16_tn_padded(const f16 *a, const f16 *b, f16 *d) {
  kgen::test::warp_tile<MmaF16, Major::K, Major::K, HAK, HBK, 64, 64, kBK,
                        kThreads>(a, b, d, kBN);
}

__global__ void __launch_bounds__(kThreads)
tf32_nt_padded(const float *a, const float *b, float *d) {
  kgen::test::warp_tile<MmaTf32, Major::MN, Major::MN, FAMN, FBMN, 64, 64,
                        kBK, kThreads>(a, b, d, kBN);
}

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
