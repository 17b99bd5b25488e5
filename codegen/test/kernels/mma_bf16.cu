// Compile test: Mma.cuh warp tiles for bf16 in all four transposition
// combinations (padded tiles: ldmatrix / ldmatrix.trans), and TN with
// swizzled tiles. A 128 x 128 block tile, 4 warps of 64 x 64, BK = 32.
// TARGETS: sm_80 sm_90a
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: cvt.rn.bf16x2.f32
// CHECK-NOT: ld.shared.b32
#include "kgen/cuda/CpAsync.cuh"
#include "kgen/cuda/Epilogue.cuh"
#include "kgen/cuda/Mma.cuh"

#include <cuda_bf16.h>

using namespace kgen::cuda;

constexpr int kBM = 128, kBN = 128, kBK = 32, kWM = 64, kWN = 64;
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
    block_tile<MmaBf16, MA, MB, LA, LB>(a, lda, b, ldb, d, ldd, m, n, k);      \
  }

KGEN_TEST_KERNEL(bf16_tn, Major::K, Major::K, AK, BK_)
KGEN_TEST_KERNEL(bf16_nn, Major::MN, Major::K, AMN, BK_)
KGEN_TEST_KERNEL(bf16_tt, Major::K, Major::MN, AK, BMN)
KGEN_TEST_KERNEL(bf16_nt, Major::MN, Major::MN, AMN, BMN)
KGEN_TEST_KERNEL(bf16_tn_swizzled, Major::K, Major::K, AKS, BKS)
