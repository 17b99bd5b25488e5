// Compile test: Mma.cuh warp tile for fp8 e4m3 (TN: both operands K-major),
// bf16 output. A 64 x 64 block tile of 32 x 32 warp tiles: on sm_90a,
// mma.sync e4m3 is emulated (SASS: F2FP.F16.E4M3.UNPACK_B + HMMA.16816), which
// costs registers; sm_89 has it natively (QMMA). Hopper's fast fp8 is
// wgmma_e4m3. __launch_bounds__(.., 1): without it ptxas chose 72 registers
// on sm_89 and spilled one.
// TARGETS: sm_89 sm_90a
// CHECK: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
#include "kgen/cuda/CpAsync.cuh"
#include "kgen/cuda/Epilogue.cuh"
#include "kgen/cuda/Mma.cuh"

#include <cuda_fp8.h>

using namespace kgen::cuda;

constexpr int kBM = 64, kBN = 64, kBK = 64, kWM = 32, kWN = 32;
constexpr int kThreads = 128;

// LA is (BM, BK) for K-major A, (BK, BM) for MN-major; likewise LB.
template <class Op, Major MA, Major MB, class LA, class LB, class T, class OutT>
__device__ void block_tile(const T *a, long long lda, const T *b, long long ldb,
                           OutT *d, long long ldd, int m, int n, int k) {
  __shared__ alignas(1024) char smem_a[LA::kBytes];
  __shared__ alignas(1024) char smem_b[LB::kBytes];
  using Warp = WarpMma<Op, kWM, kWN, LA, MA, LB, MB>;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int wm = (warp / 2) * kWM, wn = (warp % 2) * kWN;
  float acc[Warp::kAccPerThread]; // (64, 64) per warp, 128 floats per lane
  Warp::zero(acc);
  for (int k0 = 0; k0 < k; k0 += kBK) {
    if constexpr (MA == Major::K) // A tile (BM, BK) at A[m0, k0]
      TileLoader<LA, kThreads>::load_async(smem_a, a + m0 * lda + k0, lda,
                                           m - m0, k - k0, tid);
    else // A^T tile (BK, BM) at A[k0, m0]
      TileLoader<LA, kThreads>::load_async(smem_a, a + k0 * lda + m0, lda,
                                           k - k0, m - m0, tid);
    if constexpr (MB == Major::K) // B^T tile (BN, BK) at B[n0, k0]
      TileLoader<LB, kThreads>::load_async(smem_b, b + n0 * ldb + k0, ldb,
                                           n - n0, k - k0, tid);
    else // B tile (BK, BN) at B[k0, n0]
      TileLoader<LB, kThreads>::load_async(smem_b, b + k0 * ldb + n0, ldb,
                                           k - k0, n - n0, tid);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
    Warp::template run<kBK>(acc, smem_u32(smem_a), smem_u32(smem_b), wm, wn,
                            lane);
    __syncthreads();
  }
  using Epi = Epilogue<OutT>;
  typename Epi::Args args{d, ldd, nullptr, 0, nullptr, 1.f, 0.f, m, n};
  Epi::template store_fragment<typename Warp::AccMap>(args, acc, m0 + wm,
                                                      n0 + wn, lane);
}

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
  block_tile<MmaE4m3, Major::K, Major::K, EAK, EBK>(a, lda, b, ldb, d, ldd, m,
                                                    n, k);
}

__global__ void __launch_bounds__(kThreads, 1)
e4m3_tn_swizzled(const e4m3 *a, long long lda, const e4m3 *b, long long ldb,
                 __nv_bfloat16 *d, long long ldd, int m, int n, int k) {
  block_tile<MmaE4m3, Major::K, Major::K, EAKS, EBKS>(a, lda, b, ldb, d, ldd,
                                                      m, n, k);
}
